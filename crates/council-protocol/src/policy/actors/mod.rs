//! The `actors` section: which pull requests are agents' (their author's login, head
//! branch, commit trailers, labels) and the rules an agent's pull request is held to.
//!
//! Every key defaults on its own (SPEC "Agents and humans"): a list that is given
//! replaces that list's default, a list that is absent keeps it, and the four detection
//! lists given empty turn detection off. The defaults are in one place, below, each
//! with where it comes from. Globs here have `*` (inside one `/` segment) and `**`
//! (across) as wildcards and nothing else: `[bot]` and `?` are text.

use std::sync::OnceLock;

use serde::{Deserialize, Deserializer};

use super::glob::{Glob, Subject};
use super::limits::{Limited, MAX_GLOB_CHARS, MAX_LABEL_CHARS, MAX_LIST};
use super::sections::DiffSize;
use crate::review::paths::PathGlobs;

// ---- The defaults: the values SPEC.md lists, and where each comes from. ----

/// `actors.agents.logins`, globs over the pull request author's login as the REST API
/// writes it (an app's login ends in `[bot]`).
const DEFAULT_LOGINS: [&str; 3] = [
    // GitHub Copilot's coding agent, the app github.com/apps/copilot-swe-agent:
    // GraphQL names its pull requests' author `copilot-swe-agent` (a Bot), which is
    // `copilot-swe-agent[bot]` in REST form; the REST API itself writes the same account
    // as `Copilot` (see LOGIN_ALIASES).
    "copilot-swe-agent[bot]",
    // Devin (Cognition), the app github.com/apps/devin-ai-integration; its commits credit
    // `Devin <158243242+devin-ai-integration[bot]@users.noreply.github.com>`.
    "devin-ai-integration[bot]",
    // Any other app that names itself an agent.
    "*-agent[bot]",
];

/// `actors.agents.branches`, globs over the head branch.
const DEFAULT_BRANCHES: [&str; 5] = [
    // Copilot's coding agent pushes to `copilot/<task>` (GitHub's docs on reviewing its
    // pull requests; github/gh-aw's notes on Copilot agent PRs).
    "copilot/**",
    // Claude Code's GitHub Action: input `branch_prefix`, default "claude/"
    // (anthropics/claude-code-action, action.yml).
    "claude/**",
    // OpenAI Codex (cloud and app): branch format `codex/{feature}`, prefix "codex/"
    // (openai/codex issues #29885, #21112).
    "codex/**",
    // Cursor's cloud (background) agents: `target.branchName` "cursor/add-readme-1234"
    // (cursor.com/docs/cloud-agent/api/webhooks).
    "cursor/**",
    // Devin: `devin/<timestamp>-<slug>` branches.
    "devin/**",
];

/// `actors.agents.trailers`, globs over `Key: value` commit trailers (key without
/// letter case, value as written).
const DEFAULT_TRAILERS: [&str; 4] = [
    // Claude Code appends `Co-Authored-By: Claude <noreply@anthropic.com>` (newer
    // versions name the model: `Claude Opus 4.5 <noreply@anthropic.com>`) to its commits
    // (anthropics/claude-code issues #29999, #14241, #9224).
    "Co-authored-by: Claude *",
    // Copilot's co-author trailer, `Co-authored-by: Copilot <…>`.
    "Co-authored-by: Copilot *",
    // The Linux kernel's AI attribution, `Assisted-by: AGENT_NAME:MODEL_VERSION [TOOLS]`
    // (Documentation/process/coding-assistants.rst), also OpenInfra's `Assisted-By`.
    "Assisted-by: *",
    // The ASF Generative Tooling Guidance's `Generated-by:` token, also OpenInfra's
    // `Generated-By: <tool> [model]`.
    "Generated-by: *",
];

/// `actors.agents.labels`: label names on the pull request.
const DEFAULT_LABELS: [&str; 1] = ["agent"];

/// `actors.agent.human_approvals`.
const DEFAULT_HUMAN_APPROVALS: u32 = 1;

/// `actors.agent.forbidden_paths`: what lets a change run code or pick its own
/// reviewers (the workflows, this policy, the code owners).
const DEFAULT_FORBIDDEN_PATHS: [&str; 4] = [
    ".github/workflows/**",
    ".github/council.yml",
    "CODEOWNERS",
    ".github/CODEOWNERS",
];

/// `actors.agent.diff_size`: (max_files, max_changed_lines).
const DEFAULT_DIFF_SIZE: (u64, u64) = (50, 1000);

/// `actors.agent.label`.
const DEFAULT_LABEL: &str = "agent-authored";

/// Accounts GitHub writes under two logins. The REST API writes the author of a Copilot
/// coding agent pull request as `Copilot` (type Bot; `html_url`
/// github.com/apps/copilot-swe-agent), while GraphQL's `Bot.login` for it is
/// `copilot-swe-agent`, `copilot-swe-agent[bot]` in REST form: a glob for either name
/// matches both, so that every enforcement point agrees whichever API it read. No person
/// can hold these logins (a login names one account).
pub const LOGIN_ALIASES: [(&str, &str); 1] = [("Copilot", "copilot-swe-agent[bot]")];

/// Trailer values longer than this are not matched: no tool writes one, and it bounds
/// what a hostile commit message costs.
pub const MAX_TRAILER_VALUE_CHARS: usize = 1_000;

// ---- The compiled section. ----

/// `actors:` compiled: what makes a pull request an agent's, and the rules for agents.
#[derive(Debug, Clone)]
pub struct Actors {
    pub agents: Detection,
    pub agent: AgentRules,
}

/// `actors.agents`: a pull request is an agent's when any of these matches.
#[derive(Debug, Clone)]
pub struct Detection {
    pub logins: Vec<ActorGlob>,
    pub branches: Vec<ActorGlob>,
    pub trailers: Vec<TrailerGlob>,
    /// Label names as written; they compare without letter case, as GitHub's do.
    pub labels: Vec<String>,
    index: TrailerIndex,
}

/// A glob as written, and its compiled form.
#[derive(Debug, Clone)]
pub struct ActorGlob {
    pub glob: String,
    matcher: Glob,
}

/// A trailer glob as written (`Co-authored-by: Claude *`), its key (compared without
/// letter case) and its value (compared as written).
#[derive(Debug, Clone)]
pub struct TrailerGlob {
    pub glob: String,
    key: Glob,
    value: Glob,
}

/// The trailer globs by key, so that a trailer is tried only against the globs for its
/// key, and the characters their values need (see [`Subject::over`]).
#[derive(Debug, Clone, Default)]
struct TrailerIndex {
    /// Literal keys, lower-cased and sorted, each with its globs in list order.
    literal: Vec<(String, Vec<usize>)>,
    /// Globs whose key holds a wildcard: tried on every key.
    wild: Vec<usize>,
    /// Every literal character of the value globs, sorted.
    alphabet: Vec<char>,
}

/// `actors.agent`: the rules for agents' pull requests.
#[derive(Debug, Clone)]
pub struct AgentRules {
    /// Approvals on the current head by people who did not write it (release waits).
    pub human_approvals: u32,
    /// Paths an agent's pull request may not change (review's `agent_paths`).
    pub forbidden_paths: Vec<String>,
    /// Replaces `review.diff_size` for agents; `None` (`diff_size: null`): no limit of
    /// agents' own, and `review.diff_size` applies to them as to anyone.
    pub diff_size: Option<DiffSize>,
    /// Added to agents' pull requests by review; empty: none.
    pub label: String,
    /// `forbidden_paths` compiled when first used (only agents' reviews need it).
    forbidden: OnceLock<Option<PathGlobs>>,
}

impl Actors {
    /// The defaults, with branch globs compared as `branches.case_sensitive` says.
    pub fn defaults(case_sensitive: bool) -> Actors {
        RawActors::default().compile(case_sensitive)
    }
}

impl Default for Actors {
    fn default() -> Self {
        Actors::defaults(true)
    }
}

impl ActorGlob {
    fn new(glob: String, case_sensitive: bool) -> ActorGlob {
        ActorGlob {
            matcher: Glob::stars_only(&glob, case_sensitive),
            glob,
        }
    }
}

/// The first glob that matches `name`, preparing the name once for all of them.
fn first_match<'a>(globs: &'a [ActorGlob], name: &str) -> Option<&'a ActorGlob> {
    let first = globs.first()?;
    let subject = first.matcher.subject(name);
    globs.iter().find(|g| g.matcher.matches(&subject))
}

impl Detection {
    /// All four lists are empty: no pull request is an agent's.
    pub fn is_off(&self) -> bool {
        self.logins.is_empty()
            && self.branches.is_empty()
            && self.trailers.is_empty()
            && self.labels.is_empty()
    }

    /// The login glob the author matches, and the other name it matched under when
    /// GitHub writes the account two ways ([`LOGIN_ALIASES`]).
    pub fn login(&self, author: &str) -> Option<(&ActorGlob, Option<&'static str>)> {
        if author.is_empty() {
            return None;
        }
        if let Some(glob) = first_match(&self.logins, author) {
            return Some((glob, None));
        }
        let alias = LOGIN_ALIASES.iter().find_map(|(a, b)| {
            if a.eq_ignore_ascii_case(author) {
                Some(*b)
            } else if b.eq_ignore_ascii_case(author) {
                Some(*a)
            } else {
                None
            }
        })?;
        first_match(&self.logins, alias).map(|glob| (glob, Some(alias)))
    }

    /// The branch glob the head matches.
    pub fn branch(&self, head: &str) -> Option<&ActorGlob> {
        first_match(&self.branches, head)
    }

    /// The policy's label name a label on the pull request is (letter case ignored).
    pub fn label(&self, label: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|l| crate::actors::same_label(l, label))
            .map(String::as_str)
    }

    /// The trailer glob a trailer (`key` as written, `value` unfolded) matches. Keys
    /// longer than a glob may be and values longer than [`MAX_TRAILER_VALUE_CHARS`] are
    /// not matched.
    pub fn trailer(&self, key: &str, value: &str) -> Option<&TrailerGlob> {
        self.trailer_counted(key, value, &mut 0)
    }

    /// [`Detection::trailer`], adding to `checks` each glob it tries (a key glob with a
    /// wildcard, or a value glob), so that a caller can bound the work of a pull request
    /// whatever its commits and the policy hold.
    pub fn trailer_counted(
        &self,
        key: &str,
        value: &str,
        checks: &mut usize,
    ) -> Option<&TrailerGlob> {
        if self.trailers.is_empty() || key.len() > MAX_GLOB_CHARS {
            return None;
        }
        if value.len() > MAX_TRAILER_VALUE_CHARS && value.chars().count() > MAX_TRAILER_VALUE_CHARS
        {
            return None;
        }
        let lower = key.to_ascii_lowercase();
        let literal = self
            .index
            .literal
            .binary_search_by(|(k, _)| k.as_str().cmp(&lower))
            .map(|i| self.index.literal[i].1.as_slice())
            .unwrap_or(&[]);
        if literal.is_empty() && self.index.wild.is_empty() {
            return None;
        }
        let mut candidates: Vec<usize> = literal.to_vec();
        if !self.index.wild.is_empty() {
            let key_subject = Subject::new(key, true);
            *checks += self.index.wild.len();
            candidates.extend(
                self.index
                    .wild
                    .iter()
                    .copied()
                    .filter(|i| self.trailers[*i].key.matches(&key_subject)),
            );
        }
        if candidates.is_empty() {
            return None;
        }
        candidates.sort_unstable();
        let value = Subject::over(value, false, &self.index.alphabet);
        candidates.into_iter().map(|i| &self.trailers[i]).find(|t| {
            *checks += 1;
            t.value.matches(&value)
        })
    }
}

impl AgentRules {
    /// `forbidden_paths` compiled; `None` when the globs together are too complex for
    /// the matcher (the gate then fails and says so).
    pub fn forbidden(&self) -> Option<&PathGlobs> {
        self.forbidden
            .get_or_init(|| PathGlobs::new(&self.forbidden_paths).ok())
            .as_ref()
    }
}

// ---- Reading the section. ----

/// `actors:` as written; every key absent is its default.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawActors {
    #[serde(default)]
    agents: RawDetection,
    #[serde(default)]
    agent: RawAgentRules,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDetection {
    #[serde(default = "default_logins")]
    logins: Limited<GlobText, MAX_LIST>,
    #[serde(default = "default_branches")]
    branches: Limited<GlobText, MAX_LIST>,
    #[serde(default = "default_trailers")]
    trailers: Limited<TrailerText, MAX_LIST>,
    #[serde(default = "default_labels")]
    labels: Limited<LabelText, MAX_LIST>,
}

impl Default for RawDetection {
    fn default() -> Self {
        RawDetection {
            logins: default_logins(),
            branches: default_branches(),
            trailers: default_trailers(),
            labels: default_labels(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgentRules {
    #[serde(default = "default_human_approvals")]
    human_approvals: u32,
    #[serde(default = "default_forbidden_paths")]
    forbidden_paths: Limited<GlobText, MAX_LIST>,
    /// `null` turns the agents' own limit off.
    #[serde(default = "default_diff_size")]
    diff_size: Option<DiffSize>,
    #[serde(default = "default_label")]
    label: LabelName,
}

impl Default for RawAgentRules {
    fn default() -> Self {
        RawAgentRules {
            human_approvals: default_human_approvals(),
            forbidden_paths: default_forbidden_paths(),
            diff_size: default_diff_size(),
            label: default_label(),
        }
    }
}

fn globs(defaults: &[&str]) -> Limited<GlobText, MAX_LIST> {
    Limited(defaults.iter().map(|g| GlobText(g.to_string())).collect())
}

fn default_logins() -> Limited<GlobText, MAX_LIST> {
    globs(&DEFAULT_LOGINS)
}

fn default_branches() -> Limited<GlobText, MAX_LIST> {
    globs(&DEFAULT_BRANCHES)
}

fn default_trailers() -> Limited<TrailerText, MAX_LIST> {
    Limited(
        DEFAULT_TRAILERS
            .iter()
            .map(|t| TrailerText::parse(t).expect("a built-in trailer glob"))
            .collect(),
    )
}

fn default_labels() -> Limited<LabelText, MAX_LIST> {
    Limited(
        DEFAULT_LABELS
            .iter()
            .map(|l| LabelText(l.to_string()))
            .collect(),
    )
}

fn default_human_approvals() -> u32 {
    DEFAULT_HUMAN_APPROVALS
}

fn default_forbidden_paths() -> Limited<GlobText, MAX_LIST> {
    globs(&DEFAULT_FORBIDDEN_PATHS)
}

fn default_diff_size() -> Option<DiffSize> {
    Some(DiffSize {
        max_files: Some(DEFAULT_DIFF_SIZE.0),
        max_changed_lines: Some(DEFAULT_DIFF_SIZE.1),
        skip_label: None,
    })
}

fn default_label() -> LabelName {
    LabelName(DEFAULT_LABEL.to_string())
}

/// Refuses what no glob of this section may be, while serde still knows the field and
/// line: empty, or longer than [`MAX_GLOB_CHARS`].
fn checked_glob(text: &str) -> Result<(), String> {
    if text.is_empty() {
        return Err("an empty glob matches nothing".to_string());
    }
    let chars = text.chars().count();
    if chars > MAX_GLOB_CHARS {
        return Err(format!(
            "a glob of {chars} characters; at most {MAX_GLOB_CHARS} are allowed"
        ));
    }
    Ok(())
}

/// A string value; a missing one (`key:` with nothing after it) is refused in the
/// policy's words rather than serde's.
fn text<'de, D: Deserializer<'de>>(deserializer: D, expected: &str) -> Result<String, D::Error> {
    Option::<String>::deserialize(deserializer)?
        .ok_or_else(|| serde::de::Error::custom(format!("expected {expected}, found nothing")))
}

/// A login, branch or path glob as written.
#[derive(Debug)]
struct GlobText(String);

impl<'de> Deserialize<'de> for GlobText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = text(deserializer, "a glob")?;
        checked_glob(&text).map_err(serde::de::Error::custom)?;
        Ok(GlobText(text))
    }
}

/// A trailer glob split into its key and value.
#[derive(Debug)]
struct TrailerText {
    glob: String,
    key: String,
    value: String,
}

impl TrailerText {
    fn parse(text: &str) -> Result<TrailerText, String> {
        checked_glob(text)?;
        let Some((key, value)) = text.split_once(':') else {
            return Err(format!(
                "`{text}` has no `:`; a trailer glob is `Key: value` (e.g. `Co-authored-by: \
                 Claude *`)"
            ));
        };
        let key = key.trim_end_matches([' ', '\t']);
        // Git reads a trailer's key as letters, digits and dashes (trailer.c,
        // find_separator): any other character can never match one.
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'*')
        {
            return Err(format!(
                "key `{key}` can never match a trailer: a trailer's key is letters, digits \
                 and `-` (with `*` as a wildcard here)"
            ));
        }
        Ok(TrailerText {
            glob: text.to_string(),
            key: key.to_string(),
            value: value.trim_matches([' ', '\t']).to_string(),
        })
    }
}

impl<'de> Deserialize<'de> for TrailerText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = text(deserializer, "a trailer glob (`Key: value`)")?;
        TrailerText::parse(&text).map_err(serde::de::Error::custom)
    }
}

fn checked_label(text: &str) -> Result<(), String> {
    let chars = text.chars().count();
    if chars > MAX_LABEL_CHARS {
        return Err(format!(
            "a label name of {chars} characters; GitHub allows at most {MAX_LABEL_CHARS}"
        ));
    }
    Ok(())
}

/// A label name of `agents.labels`.
#[derive(Debug)]
struct LabelText(String);

impl<'de> Deserialize<'de> for LabelText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = text(deserializer, "a label name")?;
        if text.trim().is_empty() {
            return Err(serde::de::Error::custom(
                "an empty label name matches no label",
            ));
        }
        checked_label(&text).map_err(serde::de::Error::custom)?;
        Ok(LabelText(text))
    }
}

/// `agent.label`: a label name, or `""` for none.
#[derive(Debug)]
struct LabelName(String);

impl<'de> Deserialize<'de> for LabelName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = text(deserializer, "a label name (\"\" for none)")?;
        checked_label(&text).map_err(serde::de::Error::custom)?;
        Ok(LabelName(text))
    }
}

impl RawActors {
    /// The section compiled; branch globs compare as `branches.case_sensitive` says,
    /// logins and trailer keys without letter case, trailer values as written.
    pub(super) fn compile(self, case_sensitive: bool) -> Actors {
        let d = self.agents;
        let trailers: Vec<TrailerGlob> = d
            .trailers
            .0
            .into_iter()
            .map(|t| TrailerGlob {
                key: Glob::stars_only(&t.key, false),
                value: Glob::stars_only(&t.value, true),
                glob: t.glob,
            })
            .collect();
        let index = index(&trailers);
        let a = self.agent;
        Actors {
            agents: Detection {
                logins: d
                    .logins
                    .0
                    .into_iter()
                    .map(|g| ActorGlob::new(g.0, false))
                    .collect(),
                branches: d
                    .branches
                    .0
                    .into_iter()
                    .map(|g| ActorGlob::new(g.0, case_sensitive))
                    .collect(),
                trailers,
                labels: d.labels.0.into_iter().map(|l| l.0).collect(),
                index,
            },
            agent: AgentRules {
                human_approvals: a.human_approvals,
                forbidden_paths: a.forbidden_paths.0.into_iter().map(|g| g.0).collect(),
                diff_size: a.diff_size,
                label: a.label.0,
                forbidden: OnceLock::new(),
            },
        }
    }
}

fn index(trailers: &[TrailerGlob]) -> TrailerIndex {
    let mut literal: Vec<(String, Vec<usize>)> = Vec::new();
    let mut wild = Vec::new();
    let mut alphabet: Vec<char> = Vec::new();
    for (i, t) in trailers.iter().enumerate() {
        alphabet.extend(t.value.literal_chars());
        if t.key.is_literal() {
            let key: String = t.key.literal_chars().collect();
            match literal.iter_mut().find(|(k, _)| *k == key) {
                Some((_, globs)) => globs.push(i),
                None => literal.push((key, vec![i])),
            }
        } else {
            wild.push(i);
        }
    }
    literal.sort_by(|a, b| a.0.cmp(&b.0));
    alphabet.sort_unstable();
    alphabet.dedup();
    TrailerIndex {
        literal,
        wild,
        alphabet,
    }
}

#[cfg(test)]
mod tests;
