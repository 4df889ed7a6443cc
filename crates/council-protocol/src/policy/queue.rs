//! The `queue` section: the merge queue's settings, checked where they are read so that a
//! bad value names its file, line, column and field like every other policy error.
//!
//! A base that requires linear history cannot take a queue (queue commits are merges),
//! but that is branch protection, read from GitHub at run time: the queue's facts carry
//! it (`queue::BaseFacts::linear_history`) and the plan refuses as a set-up error.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::limits::{self, Problem};
use super::sections::Release;

/// The label that is a pull request's place in line (SPEC "Merge queue").
pub const QUEUED_LABEL: &str = "council:queued";

/// Whether `name` is the queue's label (GitHub compares label names without case).
pub fn is_queued_label(name: &str) -> bool {
    crate::actors::same_label(name, QUEUED_LABEL)
}

/// Whether a pull request with `labels` carries the queue's label.
pub fn has_queued_label(labels: &[String]) -> bool {
    labels.iter().any(|l| is_queued_label(l))
}

/// Pull requests tested together at most. A batch of 16 is 16 merges written in one run
/// (well inside GitHub's 80 content writes a minute) and 17 commits read back; bisecting a
/// red one takes at most 4 more queue commits (8, 4, 2, 1) to find the PR that broke it.
/// Beyond that a red batch costs more CI than the batch saved.
pub const MAX_BATCH: u64 = 16;
/// A queue commit with no verdict after a day is stuck: waiting longer stalls the whole
/// line for days. Suites of several hours fit.
pub const MAX_TIMEOUT_MINUTES: u64 = 24 * 60;
/// Characters in `branch_prefix`: the queue branch is the prefix and the base's name,
/// and a ref name has to stay readable in messages.
pub const MAX_PREFIX_CHARS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queue {
    /// Off (the default): release merges as it always did.
    pub enabled: bool,
    /// The queue commit of base `B` is tested on the branch `<prefix>B`.
    pub branch_prefix: String,
    /// A pull request with one of these labels goes before the others (compared as
    /// GitHub compares label names: ignoring case).
    pub priority_labels: Vec<String>,
    /// Names that must be green on the queue commit; every other check on it must be
    /// green too.
    pub required_checks: Vec<String>,
    /// Where `required_checks` came from, for messages: `queue.required_checks`, or
    /// `release.required_checks` when the queue section does not say.
    pub required_checks_key: &'static str,
    pub timeout_minutes: u32,
    pub batch_size: u32,
}

impl Queue {
    /// The defaults, with `release`'s required checks.
    pub fn defaults(release: &Release) -> Queue {
        Queue {
            enabled: false,
            branch_prefix: default_prefix(),
            priority_labels: default_priority_labels(),
            required_checks: release.required_checks.clone(),
            required_checks_key: "release.required_checks",
            timeout_minutes: 60,
            batch_size: 1,
        }
    }

    /// The branch where base `base`'s queue commit is tested: CI runs on a push there.
    pub fn branch(&self, base: &str) -> String {
        format!("{}{base}", self.branch_prefix)
    }

    /// Where a queue commit is put together before the queue branch points at it. It is
    /// outside `<prefix>**`, so CI (which runs on pushes there) starts once per queue
    /// commit, not once per merge (bors keeps its `auto-merge` branch for the same reason).
    pub fn build_branch(&self, base: &str) -> String {
        let stem = self
            .branch_prefix
            .strip_suffix('/')
            .unwrap_or(&self.branch_prefix);
        format!("{stem}-build/{base}")
    }

    pub fn is_priority(&self, labels: &[String]) -> bool {
        labels.iter().any(|l| {
            let l = l.to_lowercase();
            self.priority_labels.iter().any(|p| p.to_lowercase() == l)
        })
    }
}

fn default_prefix() -> String {
    "council/queue/".to_string()
}

fn default_priority_labels() -> Vec<String> {
    vec!["queue:urgent".to_string()]
}

/// The section as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawQueue {
    #[serde(default)]
    enabled: bool,
    #[serde(default)]
    branch_prefix: Option<Spanned<String>>,
    #[serde(default)]
    priority_labels: Option<limits::Limited<LabelText, { limits::MAX_LIST }>>,
    #[serde(default)]
    required_checks: Option<limits::Limited<String, { limits::MAX_LIST }>>,
    #[serde(default)]
    timeout_minutes: Option<Spanned<u64>>,
    #[serde(default)]
    batch_size: Option<Spanned<u64>>,
}

/// A label name as written; an empty one is refused while serde still knows where it is.
#[derive(Debug)]
struct LabelText(String);

impl<'de> Deserialize<'de> for LabelText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.trim().is_empty() {
            return Err(serde::de::Error::custom(
                "an empty label name matches no label",
            ));
        }
        Ok(LabelText(text))
    }
}

impl RawQueue {
    pub(super) fn compile(self, release: &Release) -> Result<Queue, Problem> {
        let mut queue = Queue::defaults(release);
        queue.enabled = self.enabled;
        if let Some(prefix) = self.branch_prefix {
            if let Err(why) = check_prefix(&prefix.value) {
                return Err(Problem::new(
                    &prefix.referenced,
                    "queue.branch_prefix",
                    format!(
                        "`{}` is not a branch prefix: {why}",
                        crate::render::text::visible(&prefix.value)
                    ),
                ));
            }
            queue.branch_prefix = prefix.value;
        }
        if let Some(labels) = self.priority_labels {
            queue.priority_labels = labels.0.into_iter().map(|l| l.0).collect();
        }
        if let Some(checks) = self.required_checks {
            queue.required_checks = checks.0;
            queue.required_checks_key = "queue.required_checks";
        }
        if let Some(t) = self.timeout_minutes {
            queue.timeout_minutes = bounded(&t, "queue.timeout_minutes", MAX_TIMEOUT_MINUTES)?;
        }
        if let Some(b) = self.batch_size {
            queue.batch_size = bounded(&b, "queue.batch_size", MAX_BATCH)?;
        }
        Ok(queue)
    }
}

fn bounded(value: &Spanned<u64>, field: &str, max: u64) -> Result<u32, Problem> {
    match u32::try_from(value.value) {
        Ok(v) if (1..=max).contains(&value.value) => Ok(v),
        _ => Err(Problem::new(
            &value.referenced,
            field,
            format!("{} is out of range: from 1 to {max}", value.value),
        )),
    }
}

/// Git's rules for a ref name (`git check-ref-format`), for a prefix that a base name
/// completes: it ends with `/`, and nothing in it may make `<prefix><base>` invalid or
/// hard to read.
fn check_prefix(prefix: &str) -> Result<(), String> {
    if prefix.chars().count() > MAX_PREFIX_CHARS {
        return Err(format!("longer than {MAX_PREFIX_CHARS} characters"));
    }
    if !prefix.ends_with('/') {
        return Err(
            "it must end with `/` (the queue branch is the prefix followed by the base's name)"
                .into(),
        );
    }
    if let Some(c) = prefix
        .chars()
        .find(|c| c.is_control() || c.is_whitespace() || crate::chars::is_invisible(*c))
    {
        return Err(format!(
            "it holds {}, and a branch name may hold no space, control or invisible character",
            if c == ' ' {
                "a space".to_string()
            } else {
                format!("U+{:04X}", c as u32)
            }
        ));
    }
    if let Some(c) = prefix
        .chars()
        .find(|c| matches!(c, '~' | '^' | ':' | '?' | '*' | '[' | '\\'))
    {
        return Err(format!("`{c}` may not appear in a branch name"));
    }
    if prefix.contains("..") {
        return Err("`..` may not appear in a branch name".into());
    }
    if prefix.contains("@{") {
        return Err("`@{` may not appear in a branch name".into());
    }
    if prefix.starts_with('/') || prefix.starts_with('-') {
        return Err("it may not start with `/` or `-`".into());
    }
    if prefix.starts_with("refs/") {
        return Err("write the branch name without `refs/` (e.g. `council/queue/`)".into());
    }
    if prefix.contains("//") {
        return Err("it holds an empty path segment (`//`)".into());
    }
    // The last segment is empty (the prefix ends with `/`); every other one is checked.
    for segment in prefix.split('/').filter(|s| !s.is_empty()) {
        if segment.starts_with('.') {
            return Err(format!("the segment `{segment}` starts with `.`"));
        }
        if segment.ends_with(".lock") {
            return Err(format!("the segment `{segment}` ends with `.lock`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_follow_git_ref_rules() {
        for good in ["council/queue/", "q/", "merge-queue/v1.2/", "queue_ü/"] {
            assert_eq!(check_prefix(good), Ok(()), "{good}");
        }
        let said = |p: &str| check_prefix(p).unwrap_err();
        insta::assert_snapshot!(said("council/queue"), @"it must end with `/` (the queue branch is the prefix followed by the base's name)");
        insta::assert_snapshot!(said("council queue/"), @"it holds a space, and a branch name may hold no space, control or invisible character");
        insta::assert_snapshot!(said("council\u{7}/"), @"it holds U+0007, and a branch name may hold no space, control or invisible character");
        insta::assert_snapshot!(said("a\u{202E}b/"), @"it holds U+202E, and a branch name may hold no space, control or invisible character");
        insta::assert_snapshot!(said("a..b/"), @"`..` may not appear in a branch name");
        insta::assert_snapshot!(said("a/../"), @"`..` may not appear in a branch name");
        insta::assert_snapshot!(said("a*/"), @"`*` may not appear in a branch name");
        insta::assert_snapshot!(said("a@{1}/"), @"`@{` may not appear in a branch name");
        insta::assert_snapshot!(said("/queue/"), @"it may not start with `/` or `-`");
        insta::assert_snapshot!(said("-q/"), @"it may not start with `/` or `-`");
        insta::assert_snapshot!(said("refs/heads/q/"), @"write the branch name without `refs/` (e.g. `council/queue/`)");
        insta::assert_snapshot!(said("a//b/"), @"it holds an empty path segment (`//`)");
        insta::assert_snapshot!(said("a/.hidden/"), @"the segment `.hidden` starts with `.`");
        insta::assert_snapshot!(said("a.lock/"), @"the segment `a.lock` ends with `.lock`");
        insta::assert_snapshot!(said(&format!("{}/", "é".repeat(100))), @"longer than 100 characters");
        assert!(check_prefix("/").is_err());
    }

    #[test]
    fn branches_of_a_base() {
        let q = Queue::defaults(&Release::default());
        assert_eq!(q.branch("main"), "council/queue/main");
        assert_eq!(q.build_branch("main"), "council/queue-build/main");
        assert_eq!(
            q.build_branch("release/2.x"),
            "council/queue-build/release/2.x"
        );
        assert!(q.is_priority(&["Queue:Urgent".to_string()]));
        assert!(!q.is_priority(&["urgent".to_string()]));
    }
}
