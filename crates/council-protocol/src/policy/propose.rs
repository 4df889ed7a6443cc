//! Branch rules proposed from the branch names a repository already has (`council init
//! --from-branches`): names are grouped by their first word (`feature/…`, `fix-…`), each
//! group becomes a glob rule, and bots' branches become exemptions, so that the proposed
//! policy passes the names that exist today. Long-lived branches are the targets.

use std::collections::BTreeMap;

/// Names that are bases rather than work branches, in the order targets list them.
const LONG_LIVED: [&str; 8] = [
    "main",
    "master",
    "trunk",
    "develop",
    "development",
    "dev",
    "staging",
    "production",
];

/// The integration branches that work branches target besides the default one.
const INTEGRATION: [&str; 3] = ["develop", "development", "dev"];

/// Prefixes of branches that bots open; exempt, since their names are not ours to choose.
const BOTS: [&str; 4] = ["dependabot", "renovate", "snyk", "pre-commit-ci"];

/// More rules than this is a list of names, not a policy: the rest are left uncovered.
pub const MAX_RULES: usize = 12;

/// How many example names a rule's comment shows.
const EXAMPLES: usize = 3;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    pub rules: Vec<ProposedRule>,
    /// Exempt globs (bots' branches).
    pub exempt: Vec<String>,
    /// Names no rule covers: one word with nothing to group by, or past [`MAX_RULES`].
    pub uncovered: Vec<String>,
    /// The long-lived branches found, which rules target.
    pub bases: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedRule {
    pub name: String,
    pub pattern: String,
    pub targets: Vec<String>,
    /// How many existing names the rule covers, and a few of them.
    pub covers: usize,
    pub examples: Vec<String>,
}

/// A group of names sharing a first word and separator.
#[derive(Default)]
struct Group {
    names: Vec<String>,
    /// Whether no name has a `/` after the first word (then `*` suffices; else `**`).
    one_level: bool,
}

/// Rules that the given branch names (local and remote-tracking, any order, duplicates
/// allowed) would pass; `default_branch` is the repository's, when known.
pub fn propose(names: &[String], default_branch: Option<&str>) -> Proposal {
    let mut names: Vec<&str> = names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty() && *n != "HEAD")
        .collect();
    names.sort_unstable();
    names.dedup();

    let mut bases: Vec<String> = Vec::new();
    if let Some(default) = default_branch.filter(|d| !d.is_empty()) {
        bases.push(default.to_string());
    }
    for name in LONG_LIVED {
        if names.contains(&name) && !bases.iter().any(|b| b == name) {
            bases.push(name.to_string());
        }
    }
    if bases.is_empty() {
        bases.push("main".to_string());
    }
    let default = bases[0].clone();
    let integration = bases
        .iter()
        .find(|b| INTEGRATION.contains(&b.as_str()) && **b != default)
        .cloned();
    let work_targets: Vec<String> = std::iter::once(default.clone())
        .chain(integration.clone())
        .collect();

    let mut exempt = Vec::new();
    let mut groups: BTreeMap<(String, char), Group> = BTreeMap::new();
    let mut uncovered = Vec::new();
    for name in names {
        if bases.iter().any(|b| b == name) {
            continue;
        }
        let Some((word, sep, after)) = first_word(name) else {
            uncovered.push(name.to_string());
            continue;
        };
        if sep == '/' && BOTS.contains(&word) {
            let glob = format!("{word}/**");
            if !exempt.contains(&glob) {
                exempt.push(glob);
            }
            continue;
        }
        let group = groups.entry((word.to_string(), sep)).or_insert(Group {
            names: Vec::new(),
            one_level: true,
        });
        group.one_level &= !after.contains('/');
        group.names.push(name.to_string());
    }

    let mut ordered: Vec<((String, char), Group)> = groups.into_iter().collect();
    // The largest groups first: they are the conventions; ties by name, for stable output.
    ordered.sort_by(|a, b| b.1.names.len().cmp(&a.1.names.len()).then(a.0.cmp(&b.0)));
    let mut rules = Vec::new();
    if let Some(integration) = &integration {
        // Git flow: the integration branch itself is merged into the default one.
        rules.push(ProposedRule {
            name: integration.clone(),
            pattern: integration.clone(),
            targets: vec![default.clone()],
            covers: 1,
            examples: vec![integration.clone()],
        });
    }
    for ((word, sep), group) in ordered {
        if rules.len() >= MAX_RULES {
            uncovered.extend(group.names);
            continue;
        }
        let wildcard = if !group.one_level { "**" } else { "*" };
        rules.push(ProposedRule {
            name: word.clone(),
            pattern: format!("{}{sep}{wildcard}", escape_glob(&word)),
            targets: work_targets.clone(),
            covers: group.names.len(),
            examples: group.names.iter().take(EXAMPLES).cloned().collect(),
        });
    }
    uncovered.sort_unstable();
    Proposal {
        rules,
        exempt,
        uncovered,
        bases,
    }
}

/// `feature/login` → (`feature`, '/', `login`); `fix-typo` → (`fix`, '-', `typo`);
/// `wip` → None.
fn first_word(name: &str) -> Option<(&str, char, &str)> {
    let (word, from) = name.split_at_checked(name.find(['/', '-', '_'])?)?;
    let mut after = from.chars();
    let sep = after.next()?;
    let after = after.as_str();
    (!word.is_empty() && !after.is_empty()).then_some((word, sep, after))
}

/// A word as a literal in a glob: the glob syntax has no escape, so a word holding a
/// wildcard character cannot be a literal prefix; `?` stands for it (one character).
fn escape_glob(word: &str) -> String {
    word.chars()
        .map(|c| if matches!(c, '*' | '?') { '?' } else { c })
        .collect()
}

/// The `branches:` section of a policy file holding the proposal, with a comment per rule
/// saying which names it came from.
pub fn render_branches(proposal: &Proposal) -> String {
    let mut out = String::from("branches:\n  case_sensitive: true\n");
    if proposal.exempt.is_empty() {
        out.push_str("  exempt: []\n");
    } else {
        out.push_str("  # Bots' branches: their names are not yours to choose.\n");
        out.push_str(&format!("  exempt: [{}]\n", quoted_list(&proposal.exempt)));
    }
    out.push_str(
        "  # Proposed from the branch names this repository has (`council init \
         --from-branches`):\n  # tighten the patterns, and the targets, to what you want from \
         now on.\n",
    );
    if !proposal.uncovered.is_empty() {
        let shown: Vec<&str> = proposal
            .uncovered
            .iter()
            .take(10)
            .map(String::as_str)
            .collect();
        let more = proposal.uncovered.len().saturating_sub(shown.len());
        out.push_str(&format!(
            "  # Not covered (rename them, or add a rule): {}{}\n",
            comment_text(&shown.join(", ")),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if proposal.rules.is_empty() {
        out.push_str("  # No names to propose rules from: the default rules apply.\n");
        return out;
    }
    out.push_str("  rules:\n");
    for rule in &proposal.rules {
        let noun = if rule.covers == 1 { "name" } else { "names" };
        out.push_str(&format!(
            "    # {} existing {noun}, e.g. {}\n",
            rule.covers,
            comment_text(&rule.examples.join(", "))
        ));
        out.push_str(&format!("    - name: {}\n", quoted(&rule.name)));
        out.push_str(&format!("      pattern: {}\n", quoted(&rule.pattern)));
        out.push_str(&format!(
            "      targets: [{}]\n",
            quoted_list(&rule.targets)
        ));
    }
    out
}

/// A YAML double-quoted scalar: JSON's string syntax is valid YAML.
fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| quoted(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Branch names inside a `#` comment: a line break would end the comment.
fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gates::guard::{GuardInput, evaluate, passed};
    use crate::policy::Policy;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// The proposal as a whole policy file, parsed as the action would parse it.
    fn policy_of(proposal: &Proposal) -> Policy {
        Policy::parse(&render_branches(proposal), "proposed.yml").expect("a valid policy")
    }

    fn passes(policy: &Policy, head: &str, base: &str) -> bool {
        passed(&evaluate(GuardInput {
            pr_number: 1,
            head,
            base,
            previous_base: None,
            policy: &policy.branches,
            policy_source: &policy.source,
        }))
    }

    #[test]
    fn ordinary_names_get_a_rule_per_convention_and_pass() {
        let list = names(&[
            "main",
            "develop",
            "feature/login",
            "feature/api/v2",
            "fix-typo",
            "fix-login",
            "fix-ci/cache",
            "dependabot/cargo/serde-1.0",
            "HEAD",
            "wip",
        ]);
        let proposal = propose(&list, Some("main"));
        insta::assert_snapshot!(render_branches(&proposal), @r#"
        branches:
          case_sensitive: true
          # Bots' branches: their names are not yours to choose.
          exempt: ["dependabot/**"]
          # Proposed from the branch names this repository has (`council init --from-branches`):
          # tighten the patterns, and the targets, to what you want from now on.
          # Not covered (rename them, or add a rule): wip
          rules:
            # 1 existing name, e.g. develop
            - name: "develop"
              pattern: "develop"
              targets: ["main"]
            # 3 existing names, e.g. fix-ci/cache, fix-login, fix-typo
            - name: "fix"
              pattern: "fix-**"
              targets: ["main", "develop"]
            # 2 existing names, e.g. feature/api/v2, feature/login
            - name: "feature"
              pattern: "feature/**"
              targets: ["main", "develop"]
        "#);
        let policy = policy_of(&proposal);
        for head in [
            "feature/login",
            "feature/api/v2",
            "fix-typo",
            "fix-ci/cache",
        ] {
            assert!(passes(&policy, head, "develop"), "{head}");
            assert!(passes(&policy, head, "main"), "{head}");
        }
        assert!(passes(&policy, "develop", "main"));
        assert!(passes(&policy, "dependabot/cargo/serde-1.0", "main"));
        assert_eq!(proposal.uncovered, ["wip"]);
    }

    #[test]
    fn without_names_the_proposal_still_parses() {
        let proposal = propose(&[], None);
        assert_eq!(proposal.bases, ["main"]);
        assert!(proposal.rules.is_empty());
        // No rules means the policy keeps the default rules.
        assert!(!render_branches(&proposal).contains("rules:"));
        policy_of(&proposal);
    }

    #[test]
    fn hostile_names_stay_inside_their_quotes_and_comments() {
        let list = names(&["main", "x\"y/\nrules: []", "a*b/c", "feat#1/x", "ünï/cødé"]);
        let proposal = propose(&list, Some("main"));
        let text = render_branches(&proposal);
        let policy = policy_of(&proposal);
        assert!(passes(&policy, "feat#1/x", "main"));
        assert!(passes(&policy, "ünï/cødé", "main"));
        assert!(!text.contains("\nrules: []"), "{text}");
    }

    #[test]
    fn past_the_rule_limit_names_are_left_uncovered() {
        let list: Vec<String> = (0..20).map(|i| format!("w{i:02}/x")).collect();
        let proposal = propose(&list, Some("main"));
        assert_eq!(proposal.rules.len(), MAX_RULES);
        assert_eq!(proposal.uncovered.len(), 20 - MAX_RULES);
        policy_of(&proposal);
    }
}
