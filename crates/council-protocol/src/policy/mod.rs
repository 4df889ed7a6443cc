//! `.github/council.yml`: strict parsing (unknown keys are errors with file, line, column
//! and field), limits for untrusted input, compiled branch rules, and the default policy of
//! seed 001 (pure).

pub mod actors;
pub mod glob;
pub mod limits;
pub mod propose;
pub mod queue;
mod sections;

use std::cell::OnceCell;

use regex::{RegexSet, SetMatches};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

pub use actors::{ActorGlob, Actors, AgentRules, Detection, TrailerGlob};
pub use queue::Queue;
pub use sections::{AgentStateSection, DiffSize, DocsGate, DocsPair, MergeMethod, Release, Review};

use crate::error::Error;
use glob::{AnchorError, Glob, Subject};
use limits::{Limited, MAX_LIST, MAX_POLICY_BYTES, MAX_RULES, Problem};

/// `Policy::source` of the built-in policy, used when no policy file exists.
pub const DEFAULT_SOURCE: &str = "default policy";

#[derive(Debug, Clone)]
pub struct Policy {
    /// Where the policy came from, for messages (`default`, or `.github/council.yml@develop`).
    pub source: String,
    pub branches: BranchPolicy,
    pub review: Review,
    pub release: Release,
    pub agent_state: AgentStateSection,
    pub queue: Queue,
    /// Which pull requests are agents', and the rules for them.
    pub actors: Actors,
}

#[derive(Debug, Clone)]
pub struct BranchPolicy {
    pub case_sensitive: bool,
    pub exempt: Vec<NamePattern>,
    pub rules: Vec<Rule>,
    /// The `regex` rules' heads, compiled together (`Head::Regex` indexes them).
    regexes: RegexSet,
    /// The same ignoring letter case, for hints; `None` when that form is over the size
    /// budget (case folding grows a regex), and then regex rules give no case hint.
    regexes_ignoring_case: Option<RegexSet>,
}

/// A glob as written, and its compiled form.
#[derive(Debug, Clone)]
pub struct NamePattern {
    pub glob: String,
    matcher: Glob,
}

impl NamePattern {
    pub fn is_match(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }

    /// No wildcard: the pattern names one branch.
    pub fn is_literal(&self) -> bool {
        self.matcher.is_literal()
    }
}

/// Whether any of `patterns` matches `name`, preparing the name once for all of them.
fn any_matches<'a>(patterns: &'a [NamePattern], name: &str) -> Option<&'a NamePattern> {
    let first = patterns.first()?;
    let subject = first.matcher.subject(name);
    patterns.iter().find(|p| p.matcher.matches(&subject))
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub name: Option<String>,
    /// How the rule reads in messages: the glob, the regex, or a template.
    pub shape: String,
    /// Branch names to suggest in advice, one per alternative the rule allows (none when
    /// the rule has no readable form: a policy file's regex).
    pub suggestions: Vec<String>,
    head: Head,
    pub targets: Vec<NamePattern>,
    pub message: Option<String>,
}

#[derive(Debug, Clone)]
enum Head {
    /// A `pattern` rule: its glob, and the glob ignoring letter case (for hints).
    Glob { glob: Glob, ignoring_case: Glob },
    /// A `regex` rule: its index in the policy's regex sets.
    Regex(usize),
}

impl Rule {
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{name} ({})", self.shape),
            None => self.shape.clone(),
        }
    }

    pub fn allows_target(&self, base: &str) -> bool {
        any_matches(&self.targets, base).is_some()
    }

    /// The targets as messages show them: the first few, then how many more (a rule may
    /// list 1,000, and a message must still fit an annotation and a comment).
    pub fn target_list(&self) -> String {
        const SHOWN: usize = 10;
        let mut shown: Vec<&str> = self
            .targets
            .iter()
            .take(SHOWN)
            .map(|t| t.glob.as_str())
            .collect();
        let more;
        if self.targets.len() > SHOWN {
            more = format!("and {} more", self.targets.len() - SHOWN);
            shown.push(&more);
        }
        shown.join(", ")
    }
}

impl BranchPolicy {
    pub fn exemption(&self, head: &str) -> Option<&NamePattern> {
        any_matches(&self.exempt, head)
    }

    pub fn matching_rules<'a>(&'a self, head: &'a str) -> impl Iterator<Item = &'a Rule> + 'a {
        let regex_hits = self.regexes.matches(head);
        let exact = OnceCell::new();
        let folded = OnceCell::new();
        self.rules.iter().filter(move |r| match &r.head {
            Head::Glob { glob, .. } => {
                let subject = if glob.ignores_case() {
                    folded.get_or_init(|| Subject::new(head, true))
                } else {
                    exact.get_or_init(|| Subject::new(head, false))
                };
                glob.matches(subject)
            }
            Head::Regex(i) => regex_hits.matched(*i),
        })
    }

    /// The first rule that matches one of `names` when letter case is ignored.
    pub fn rule_ignoring_case(&self, names: &[&str]) -> Option<&Rule> {
        // A search costs up to name length × compiled size: never twice for one name.
        let mut names = names.to_vec();
        names.dedup();
        let regex_hits: Vec<SetMatches> = match &self.regexes_ignoring_case {
            Some(set) => names.iter().map(|n| set.matches(n)).collect(),
            None => Vec::new(),
        };
        let subjects: Vec<Subject> = names.iter().map(|n| Subject::new(n, true)).collect();
        self.rules.iter().find(|r| match &r.head {
            Head::Glob { ignoring_case, .. } => subjects.iter().any(|s| ignoring_case.matches(s)),
            Head::Regex(i) => regex_hits.iter().any(|hits| hits.matched(*i)),
        })
    }
}

impl Policy {
    /// The Multi-Agent Communication Protocol's policy (seed 001), used when no file exists.
    pub fn default_policy() -> Policy {
        Policy {
            source: DEFAULT_SOURCE.to_string(),
            branches: default_branches(),
            review: Review::default(),
            release: Release::default(),
            agent_state: AgentStateSection::default(),
            queue: Queue::defaults(&Release::default()),
            actors: Actors::default(),
        }
    }

    /// Parses and compiles a policy file; `file` names it in errors (`path@ref`).
    pub fn parse(text: &str, file: &str) -> Result<Policy, Error> {
        let fail = |p: Problem| {
            let location = match p.at {
                Some((line, column)) => format!("{file}:{line}:{column}"),
                None => file.to_string(),
            };
            let message = if p.field.is_empty() {
                p.message
            } else {
                format!("{}: {}", p.field, p.message)
            };
            Error::Policy { location, message }
        };
        if text.len() > MAX_POLICY_BYTES {
            return Err(fail(Problem {
                at: None,
                field: String::new(),
                message: format!(
                    "{} bytes, more than the {} MiB a policy may hold",
                    text.len(),
                    MAX_POLICY_BYTES >> 20
                ),
            }));
        }
        if text.trim().is_empty() {
            let mut policy = Policy::default_policy();
            policy.source = format!("{file} (empty: default policy)");
            return Ok(policy);
        }
        let raw: RawPolicy = limits::read(text).map_err(fail)?;
        if let Some(v) = &raw.version
            && v.value != 1
        {
            return Err(fail(Problem::new(
                &v.referenced,
                "version",
                format!(
                    "version {} is not supported; this council reads version 1",
                    v.value
                ),
            )));
        }
        let branches = match raw.branches {
            Some(b) => b.compile().map_err(fail)?,
            None => default_branches(),
        };
        let release = raw.release.unwrap_or_default();
        let queue = match raw.queue {
            Some(q) => q.compile(&release).map_err(fail)?,
            None => Queue::defaults(&release),
        };
        let actors = raw
            .actors
            .unwrap_or_default()
            .compile(branches.case_sensitive);
        Ok(Policy {
            source: file.to_string(),
            branches,
            review: raw.review.unwrap_or_default(),
            release,
            agent_state: raw.agent_state.unwrap_or_default(),
            queue,
            actors,
        })
    }
}

const DEFAULT_FEATURE: &str = r"feature/[a-z0-9][a-z0-9._-]*/PBI-[0-9]+-[a-z0-9][a-z0-9._-]*";
const DEFAULT_CHORE: &str = r"chore/[a-z0-9][a-z0-9._-]*/PBI-[0-9]+-[a-z0-9][a-z0-9._-]*";
const DEFAULT_HOTFIX: &str = r"hotfix/(INC|BUG)-[0-9]+-[a-z0-9][a-z0-9._-]*";

/// One of the seed's rules: its regex, and the names it accepts as templates.
struct DefaultRule {
    name: &'static str,
    regex: &'static str,
    templates: &'static [&'static str],
    targets: &'static [&'static str],
    message: &'static str,
}

const DEFAULT_RULES: [DefaultRule; 3] = [
    DefaultRule {
        name: "feature",
        regex: DEFAULT_FEATURE,
        templates: &["feature/<area>/PBI-<n>-<slug>"],
        targets: &["develop"],
        message: "Feature work targets develop.",
    },
    DefaultRule {
        name: "chore",
        regex: DEFAULT_CHORE,
        templates: &["chore/<area>/PBI-<n>-<slug>"],
        targets: &["develop"],
        message: "Chores target develop.",
    },
    DefaultRule {
        name: "hotfix",
        regex: DEFAULT_HOTFIX,
        templates: &["hotfix/INC-<n>-<slug>", "hotfix/BUG-<n>-<slug>"],
        targets: &["main", "develop"],
        message: "Hotfixes target main (or develop).",
    },
];

/// The seed's rules: regexes shown as templates, case-sensitive whatever the file says.
fn default_branches() -> BranchPolicy {
    let sources: Vec<String> = DEFAULT_RULES
        .iter()
        .map(|d| glob::anchored(d.regex).expect("built-in regex"))
        .collect();
    let rules = DEFAULT_RULES
        .iter()
        .enumerate()
        .map(|(i, d)| Rule {
            name: Some(d.name.to_string()),
            shape: d.templates.join(" or "),
            suggestions: d.templates.iter().map(|t| t.to_string()).collect(),
            head: Head::Regex(i),
            targets: d
                .targets
                .iter()
                .map(|t| NamePattern {
                    glob: t.to_string(),
                    matcher: Glob::new(t, true),
                })
                .collect(),
            message: Some(d.message.to_string()),
        })
        .collect();
    BranchPolicy {
        case_sensitive: true,
        exempt: Vec::new(),
        rules,
        regexes: limits::regex_set(&sources, true).expect("built-in regexes"),
        regexes_ignoring_case: limits::regex_set(&sources, false).ok(),
    }
}

/// Regex errors end with the line that names the problem.
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(&text);
    last.trim().trim_start_matches("error: ").to_string()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    #[serde(default)]
    version: Option<Spanned<u64>>,
    #[serde(default)]
    branches: Option<RawBranches>,
    #[serde(default)]
    review: Option<Review>,
    #[serde(default)]
    release: Option<Release>,
    #[serde(default)]
    agent_state: Option<AgentStateSection>,
    #[serde(default)]
    queue: Option<queue::RawQueue>,
    actors: Option<actors::RawActors>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBranches {
    #[serde(default = "sections::yes")]
    case_sensitive: bool,
    #[serde(default = "no_globs")]
    exempt: Limited<GlobText, MAX_LIST>,
    #[serde(default)]
    rules: Option<Spanned<Limited<Spanned<RawRule>, MAX_RULES>>>,
}

fn no_globs() -> Limited<GlobText, MAX_LIST> {
    Limited(Vec::new())
}

/// A glob as written. An empty one is refused while it is read, where serde still knows
/// its line and path: a `Spanned` per glob would cost more than the rest of the parse.
#[derive(Debug)]
struct GlobText(String);

impl<'de> Deserialize<'de> for GlobText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.is_empty() {
            return Err(serde::de::Error::custom("an empty glob matches no branch"));
        }
        Ok(GlobText(text))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    pattern: Option<Spanned<String>>,
    #[serde(default)]
    regex: Option<Spanned<String>>,
    #[serde(default = "no_globs")]
    targets: Limited<GlobText, MAX_LIST>,
    #[serde(default)]
    message: Option<String>,
}

/// A `regex` rule's source before the rules' regexes are compiled together.
struct PendingRegex {
    source: String,
    rule: usize,
    at: Location,
    shape: String,
}

impl RawBranches {
    fn compile(self) -> Result<BranchPolicy, Problem> {
        let cs = self.case_sensitive;
        let exempt = self
            .exempt
            .0
            .into_iter()
            .map(|g| name_pattern(g, cs))
            .collect();
        let Some(rules) = self.rules else {
            // The default rules, with this file's exemptions.
            return Ok(BranchPolicy {
                case_sensitive: cs,
                exempt,
                ..default_branches()
            });
        };
        if rules.value.0.is_empty() {
            return Err(Problem::new(
                &rules.referenced,
                "branches.rules",
                "empty, so every pull request would fail; remove the key to use the default \
                 rules"
                    .to_string(),
            ));
        }
        let mut pending = Vec::new();
        let rules = rules
            .value
            .0
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.value.compile(i, &r.referenced, cs, &mut pending))
            .collect::<Result<Vec<_>, _>>()?;
        let sources: Vec<String> = pending.iter().map(|p| p.source.clone()).collect();
        let regexes = limits::regex_set(&sources, cs).map_err(|e| {
            let culprit = match e {
                regex::Error::CompiledTooBig(_) => {
                    &pending[limits::first_over_budget(&sources, cs)]
                }
                _ => &pending[0],
            };
            over_budget(culprit, &e)
        })?;
        let regexes_ignoring_case = if cs {
            limits::regex_set(&sources, false).ok()
        } else {
            Some(regexes.clone())
        };
        Ok(BranchPolicy {
            case_sensitive: cs,
            exempt,
            rules,
            regexes,
            regexes_ignoring_case,
        })
    }
}

fn over_budget(culprit: &PendingRegex, e: &regex::Error) -> Problem {
    let message = match e {
        regex::Error::CompiledTooBig(_) => format!(
            "regex `{}` takes the rules' regexes over {} MiB compiled, the limit for all of \
             them together; simplify it (a Unicode class such as `\\w` compiles large; \
             `[a-z0-9_]` does not)",
            culprit.shape,
            limits::REGEX_BUDGET >> 20
        ),
        other => format!(
            "invalid regex `{}`: {}",
            culprit.shape,
            regex_message(other)
        ),
    };
    Problem::new(
        &culprit.at,
        format!("branches.rules[{}].regex", culprit.rule),
        message,
    )
}

impl RawRule {
    fn compile(
        self,
        index: usize,
        at: &Location,
        cs: bool,
        pending: &mut Vec<PendingRegex>,
    ) -> Result<Rule, Problem> {
        let field = format!("branches.rules[{index}]");
        let (shape, suggestions, head) = match (self.pattern, self.regex) {
            (Some(p), None) => {
                if p.value.is_empty() {
                    return Err(Problem::new(
                        &p.referenced,
                        format!("{field}.pattern"),
                        "an empty pattern matches no branch".into(),
                    ));
                }
                let head = Head::Glob {
                    glob: Glob::new(&p.value, cs),
                    ignoring_case: Glob::new(&p.value, false),
                };
                (p.value.clone(), vec![glob::template(&p.value)], head)
            }
            (None, Some(r)) => {
                let spot = format!("{field}.regex");
                if r.value.is_empty() {
                    return Err(Problem::new(
                        &r.referenced,
                        spot,
                        "an empty regex matches no branch".into(),
                    ));
                }
                let source = glob::anchored(&r.value).map_err(|e| {
                    let message = match e {
                        AnchorError::Invalid(e) => {
                            format!("invalid regex `{}`: {}", r.value, regex_message(&e))
                        }
                        AnchorError::Unanchorable(_) => format!(
                            "regex `{}` cannot be anchored to the whole name: its trailing `#` \
                             comment (verbose mode) would swallow the anchor; end the comment \
                             with a line break",
                            r.value
                        ),
                    };
                    Problem::new(&r.referenced, spot.clone(), message)
                })?;
                pending.push(PendingRegex {
                    source,
                    rule: index,
                    at: r.referenced,
                    shape: r.value.clone(),
                });
                (r.value, Vec::new(), Head::Regex(pending.len() - 1))
            }
            (Some(_), Some(_)) => {
                return Err(Problem::new(
                    at,
                    field,
                    "a rule has both `pattern` and `regex`; keep one".into(),
                ));
            }
            (None, None) => {
                return Err(Problem::new(
                    at,
                    field,
                    "a rule needs `pattern` (a glob) or `regex`".into(),
                ));
            }
        };
        if self.targets.0.is_empty() {
            return Err(Problem::new(
                at,
                format!("{field}.targets"),
                format!("rule `{shape}` lists no `targets`"),
            ));
        }
        let targets = self
            .targets
            .0
            .into_iter()
            .map(|t| name_pattern(t, cs))
            .collect();
        Ok(Rule {
            name: self.name,
            shape,
            suggestions,
            head,
            targets,
            message: self.message,
        })
    }
}

fn name_pattern(g: GlobText, cs: bool) -> NamePattern {
    NamePattern {
        matcher: Glob::new(&g.0, cs),
        glob: g.0,
    }
}

#[cfg(test)]
mod tests;
