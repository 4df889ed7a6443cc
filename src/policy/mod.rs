//! `.github/council.yml`: strict parsing (unknown keys are errors with file, line and
//! column), compiled branch rules, and the default policy of seed 001 (pure).

pub mod glob;
mod sections;

use regex::Regex;
use serde::Deserialize;
use serde_saphyr::Spanned;

pub use sections::{AgentStateSection, DiffSize, DocsGate, DocsPair, MergeMethod, Release, Review};

use crate::error::Error;

/// Policies beyond this size are refused: nobody writes a megabyte of branch rules.
const MAX_POLICY_BYTES: usize = 1 << 20;

#[derive(Debug, Clone)]
pub struct Policy {
    /// Where the policy came from, for messages (`default`, or `.github/council.yml@develop`).
    pub source: String,
    pub branches: BranchPolicy,
    pub review: Review,
    pub release: Release,
    pub agent_state: AgentStateSection,
}

#[derive(Debug, Clone)]
pub struct BranchPolicy {
    pub case_sensitive: bool,
    pub exempt: Vec<NamePattern>,
    pub rules: Vec<Rule>,
}

/// A glob as written, and its compiled form.
#[derive(Debug, Clone)]
pub struct NamePattern {
    pub glob: String,
    pub regex: Regex,
}

impl NamePattern {
    pub fn is_match(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub name: Option<String>,
    /// How the rule reads in messages: the glob, the regex, or a template.
    pub shape: String,
    /// A branch name to suggest in advice, when the rule has a readable form.
    pub suggestion: Option<String>,
    pub head: Regex,
    pub targets: Vec<NamePattern>,
    pub message: Option<String>,
}

impl Rule {
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{name} ({})", self.shape),
            None => self.shape.clone(),
        }
    }

    pub fn allows_target(&self, base: &str) -> bool {
        self.targets.iter().any(|t| t.is_match(base))
    }

    pub fn target_list(&self) -> String {
        self.targets
            .iter()
            .map(|t| t.glob.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl BranchPolicy {
    pub fn exemption(&self, head: &str) -> Option<&NamePattern> {
        self.exempt.iter().find(|p| p.is_match(head))
    }

    pub fn matching_rules<'a>(&'a self, head: &'a str) -> impl Iterator<Item = &'a Rule> + 'a {
        self.rules.iter().filter(move |r| r.head.is_match(head))
    }
}

impl Policy {
    /// The Multi-Agent Communication Protocol's policy (seed 001), used when no file exists.
    pub fn default_policy() -> Policy {
        let rule =
            |name: &str, regex: &str, template: &str, targets: &[&str], message: &str| Rule {
                name: Some(name.to_string()),
                shape: template.to_string(),
                suggestion: Some(template.to_string()),
                head: glob::compile(&glob::anchored(regex), true).expect("built-in regex"),
                targets: targets
                    .iter()
                    .map(|t| NamePattern {
                        glob: t.to_string(),
                        regex: glob::compile(&glob::to_regex_source(t), true)
                            .expect("built-in glob"),
                    })
                    .collect(),
                message: Some(message.to_string()),
            };
        Policy {
            source: "default policy".to_string(),
            branches: BranchPolicy {
                case_sensitive: true,
                exempt: Vec::new(),
                rules: vec![
                    rule(
                        "feature",
                        DEFAULT_FEATURE,
                        "feature/<area>/PBI-<n>-<slug>",
                        &["develop"],
                        "Feature work targets develop.",
                    ),
                    rule(
                        "chore",
                        DEFAULT_CHORE,
                        "chore/<area>/PBI-<n>-<slug>",
                        &["develop"],
                        "Chores target develop.",
                    ),
                    rule(
                        "hotfix",
                        DEFAULT_HOTFIX,
                        "hotfix/INC-<n>-<slug> or hotfix/BUG-<n>-<slug>",
                        &["main", "develop"],
                        "Hotfixes target main (or develop).",
                    ),
                ],
            },
            review: Review::default(),
            release: Release::default(),
            agent_state: AgentStateSection::default(),
        }
    }

    /// Parses and compiles a policy file; `file` names it in errors (`path@ref`).
    pub fn parse(text: &str, file: &str) -> Result<Policy, Error> {
        let at = |line: u64, column: u64| format!("{file}:{line}:{column}");
        let fail = |location: String, message: String| Error::Policy { location, message };
        if text.len() > MAX_POLICY_BYTES {
            return Err(fail(
                file.to_string(),
                format!("larger than {MAX_POLICY_BYTES} bytes"),
            ));
        }
        if text.trim().is_empty() {
            let mut policy = Policy::default_policy();
            policy.source = format!("{file} (empty: default policy)");
            return Ok(policy);
        }
        let raw: RawPolicy = serde_saphyr::from_str(text).map_err(|e| {
            let location = e
                .location()
                .map(|l| at(l.line(), l.column()))
                .unwrap_or_else(|| file.to_string());
            fail(location, yaml_message(&e.to_string()))
        })?;
        if let Some(v) = &raw.version
            && v.value != 1
        {
            return Err(fail(
                at(v.referenced.line(), v.referenced.column()),
                format!(
                    "version {} is not supported; this council reads version 1",
                    v.value
                ),
            ));
        }
        let branches = match raw.branches {
            Some(b) => b.compile(&at)?,
            None => Policy::default_policy().branches,
        };
        Ok(Policy {
            source: file.to_string(),
            branches,
            review: raw.review.unwrap_or_default(),
            release: raw.release.unwrap_or_default(),
            agent_state: raw.agent_state.unwrap_or_default(),
        })
    }
}

const DEFAULT_FEATURE: &str = r"feature/[a-z0-9][a-z0-9._-]*/PBI-[0-9]+-[a-z0-9][a-z0-9._-]*";
const DEFAULT_CHORE: &str = r"chore/[a-z0-9][a-z0-9._-]*/PBI-[0-9]+-[a-z0-9][a-z0-9._-]*";
const DEFAULT_HOTFIX: &str = r"hotfix/(INC|BUG)-[0-9]+-[a-z0-9][a-z0-9._-]*";

/// serde-saphyr repeats the location and appends a snippet; we keep the bare message.
fn yaml_message(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    let re = Regex::new(r"^line \d+ column \d+: ").expect("static regex");
    re.replace(line, "").into_owned()
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBranches {
    #[serde(default = "sections::yes")]
    case_sensitive: bool,
    #[serde(default)]
    exempt: Vec<Spanned<String>>,
    #[serde(default)]
    rules: Option<Spanned<Vec<Spanned<RawRule>>>>,
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
    #[serde(default)]
    targets: Vec<Spanned<String>>,
    #[serde(default)]
    message: Option<String>,
}

type At<'a> = &'a dyn Fn(u64, u64) -> String;

impl RawBranches {
    fn compile(self, at: At) -> Result<BranchPolicy, Error> {
        let cs = self.case_sensitive;
        let exempt = self
            .exempt
            .into_iter()
            .map(|g| name_pattern(g, cs, at))
            .collect::<Result<Vec<_>, _>>()?;
        let rules = match self.rules {
            None => Policy::default_policy().branches.rules,
            Some(rules) if rules.value.is_empty() => {
                return Err(Error::Policy {
                    location: at(rules.referenced.line(), rules.referenced.column()),
                    message: "branches.rules is empty, so every pull request would fail; \
                              remove the key to use the default rules"
                        .to_string(),
                });
            }
            Some(rules) => rules
                .value
                .into_iter()
                .map(|r| r.value.compile(&r.referenced, cs, at))
                .collect::<Result<Vec<_>, _>>()?,
        };
        Ok(BranchPolicy {
            case_sensitive: cs,
            exempt,
            rules,
        })
    }
}

impl RawRule {
    fn compile(self, loc: &serde_saphyr::Location, cs: bool, at: At) -> Result<Rule, Error> {
        let here = at(loc.line(), loc.column());
        let fail = |location: String, message: String| Error::Policy { location, message };
        let (shape, suggestion, source, spot) = match (self.pattern, self.regex) {
            (Some(p), None) => (
                p.value.clone(),
                Some(glob::template(&p.value)),
                glob::to_regex_source(&p.value),
                p.referenced,
            ),
            (None, Some(r)) => (
                r.value.clone(),
                None,
                glob::anchored(&r.value),
                r.referenced,
            ),
            (Some(_), Some(_)) => {
                return Err(fail(
                    here,
                    "a rule has both `pattern` and `regex`; keep one".into(),
                ));
            }
            (None, None) => {
                return Err(fail(
                    here,
                    "a rule needs `pattern` (a glob) or `regex`".into(),
                ));
            }
        };
        if shape.is_empty() {
            return Err(fail(
                at(spot.line(), spot.column()),
                "an empty pattern matches no branch".into(),
            ));
        }
        let head = glob::compile(&source, cs).map_err(|e| {
            fail(
                at(spot.line(), spot.column()),
                format!("invalid regex `{shape}`: {}", regex_message(&e)),
            )
        })?;
        if self.targets.is_empty() {
            return Err(fail(here, format!("rule `{shape}` lists no `targets`")));
        }
        let targets = self
            .targets
            .into_iter()
            .map(|t| name_pattern(t, cs, at))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rule {
            name: self.name,
            shape,
            suggestion,
            head,
            targets,
            message: self.message,
        })
    }
}

fn name_pattern(g: Spanned<String>, cs: bool, at: At) -> Result<NamePattern, Error> {
    let location = at(g.referenced.line(), g.referenced.column());
    if g.value.is_empty() {
        return Err(Error::Policy {
            location,
            message: "an empty glob matches no branch".into(),
        });
    }
    let regex = glob::compile(&glob::to_regex_source(&g.value), cs).map_err(|e| Error::Policy {
        location,
        message: format!("glob `{}`: {e}", g.value),
    })?;
    Ok(NamePattern {
        glob: g.value,
        regex,
    })
}

#[cfg(test)]
mod tests;
