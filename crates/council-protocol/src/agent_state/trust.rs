//! Choosing the state of an issue: the latest valid block among trusted comments.
//!
//! Anyone can comment on a public issue, so a block is read only from the issue
//! author, OWNER/MEMBER/COLLABORATOR, the token's own identity, or an extra trusted
//! login. Rules where the contract is silent:
//! - Logins compare ASCII case-insensitively, as GitHub logins do; an empty login
//!   (a deleted "ghost" account) never matches.
//! - Extra trusted logins match with or without `[bot]`; the issue author and the
//!   token identity must match exactly, because `name` and `name[bot]` are different
//!   accounts. Pass REST-style logins (GraphQL drops the `[bot]` suffix of bots).
//! - Comments are ordered by `created_at`, then id (never `updated_at`); GitHub's
//!   fixed `YYYY-MM-DDTHH:MM:SSZ` format sorts as text.
//! - Work stops at the newest comment with a valid trusted block. Warnings and the
//!   untrusted count cover only comments newer than it, and that comment itself;
//!   untrusted bodies are located but never parsed. One warning per comment for its
//!   skipped blocks, naming the newest error, and one more when the chosen block was
//!   read leniently (unescaped `&` or `<`), naming what its writer should escape.
//! - An element of the chosen block that holds a secret is withheld (taken out of the
//!   state; see `withhold`), with a warning naming the comment, the element and the
//!   kind of secret, never the value. The rest of the block counts.

use serde::Serialize;

use crate::agent_state::error::ROOT;
use crate::agent_state::find::{count_blocks, scan_comment};
use crate::agent_state::lenient::Mend;
use crate::agent_state::model::AgentState;
use crate::agent_state::withhold::Withheld;

const TRUSTED_ASSOCIATIONS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

/// Who may write state on an issue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustConfig {
    pub issue_author: String,
    /// The login of the token in use, e.g. `github-actions[bot]` (association NONE).
    pub token_login: Option<String>,
    /// `trusted-authors` input plus `agent_state.trusted_authors` from the policy.
    pub trusted_logins: Vec<String>,
}

impl TrustConfig {
    pub fn trusts(&self, login: &str, association: &str) -> bool {
        if TRUSTED_ASSOCIATIONS
            .iter()
            .any(|a| a.eq_ignore_ascii_case(association.trim()))
        {
            return true;
        }
        let bare = without_bot(login);
        if bare.is_empty() {
            return false;
        }
        let same = |other: &str| !other.is_empty() && other.eq_ignore_ascii_case(login.trim());
        same(&self.issue_author)
            || self.token_login.as_deref().is_some_and(same)
            || self
                .trusted_logins
                .iter()
                .any(|trusted| without_bot(trusted).eq_ignore_ascii_case(bare))
    }
}

fn without_bot(login: &str) -> &str {
    let trimmed = login.trim();
    trimmed.strip_suffix("[bot]").unwrap_or(trimmed)
}

/// One issue comment as the API returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IssueComment<'a> {
    pub id: u64,
    pub author: &'a str,
    /// `author_association` (REST) or `authorAssociation` (GraphQL).
    pub association: &'a str,
    pub body: &'a str,
    pub html_url: &'a str,
    pub created_at: &'a str,
}

/// The comment the state was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateSource {
    pub comment_id: u64,
    pub author: String,
    pub html_url: String,
    pub created_at: String,
}

/// Something wrong with a block, meant for a `::warning::` annotation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateWarning {
    pub comment_id: u64,
    pub html_url: String,
    pub kind: WarningKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Malformed blocks were skipped (in a comment newer than the chosen one, or in it
    /// after the chosen block).
    Skipped,
    /// The chosen block was read, but held `&` or `<` it should have escaped.
    Lenient,
    /// Elements of the chosen block that hold a secret were left out of the state.
    Withheld,
}

/// A lenient read lists at most this many kinds of mend; a block full of them would
/// otherwise make one annotation as long as the block.
const MENDS_SHOWN: usize = 5;

/// The state of an issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The chosen block, or [`AgentState::initial`] when there is none.
    pub state: AgentState,
    /// `None` when no trusted valid block exists.
    pub source: Option<StateSource>,
    pub warnings: Vec<StateWarning>,
    /// Blocks in untrusted comments newer than the chosen one.
    pub ignored_untrusted: usize,
    /// Elements of the chosen block left out of `state` because they hold a secret.
    pub withheld: Vec<Withheld>,
}

/// Selection over pages fed newest page first, so that a caller can stop fetching
/// older pages as soon as [`StateScan::feed`] reports a find.
#[derive(Debug)]
pub struct StateScan<'t> {
    trust: &'t TrustConfig,
    found: Option<(AgentState, StateSource)>,
    warnings: Vec<StateWarning>,
    ignored_untrusted: usize,
    withheld: Vec<Withheld>,
}

impl<'t> StateScan<'t> {
    pub fn new(trust: &'t TrustConfig) -> Self {
        StateScan {
            trust,
            found: None,
            warnings: Vec::new(),
            ignored_untrusted: 0,
            withheld: Vec::new(),
        }
    }

    /// Scans one page of comments (in any order); true once a state is found. Pages
    /// must come newest first, and no page is scanned after a find.
    pub fn feed(&mut self, page: &[IssueComment<'_>]) -> bool {
        if self.found.is_some() {
            return true;
        }
        let mut order: Vec<&IssueComment<'_>> = page.iter().collect();
        if !order.is_sorted_by_key(|c| (c.created_at, c.id)) {
            order.sort_by_key(|c| (c.created_at, c.id));
        }
        for comment in order.into_iter().rev() {
            if !self.trust.trusts(comment.author, comment.association) {
                self.ignored_untrusted += count_blocks(comment.body);
                continue;
            }
            let scan = scan_comment(comment.body);
            if let Some(error) = scan.newest_error {
                let message = match scan.skipped {
                    1 => format!(
                        "Skipped a malformed <agent-state> block in {}: {error}",
                        comment.html_url
                    ),
                    n => format!(
                        "Skipped {n} malformed <agent-state> blocks in {}; the newest: {error}",
                        comment.html_url
                    ),
                };
                self.warnings.push(StateWarning {
                    comment_id: comment.id,
                    html_url: comment.html_url.to_owned(),
                    kind: WarningKind::Skipped,
                    message,
                });
            }
            if !scan.mends.is_empty() {
                self.warnings.push(StateWarning {
                    comment_id: comment.id,
                    html_url: comment.html_url.to_owned(),
                    kind: WarningKind::Lenient,
                    message: lenient_message(comment.html_url, &scan.mends),
                });
            }
            if let Some(mut state) = scan.state {
                let withheld = state.withhold_secrets();
                if !withheld.is_empty() {
                    self.warnings.push(StateWarning {
                        comment_id: comment.id,
                        html_url: comment.html_url.to_owned(),
                        kind: WarningKind::Withheld,
                        message: withheld_message(comment.html_url, &withheld),
                    });
                }
                self.withheld = withheld;
                let source = StateSource {
                    comment_id: comment.id,
                    author: comment.author.to_owned(),
                    html_url: comment.html_url.to_owned(),
                    created_at: comment.created_at.to_owned(),
                };
                self.found = Some((state, source));
                return true;
            }
        }
        false
    }

    pub fn finish(self) -> Selection {
        let (state, source) = match self.found {
            Some((state, source)) => (state, Some(source)),
            None => (AgentState::initial(), None),
        };
        Selection {
            state,
            source,
            warnings: self.warnings,
            ignored_untrusted: self.ignored_untrusted,
            withheld: self.withheld,
        }
    }
}

/// Names the comment, the elements and the kinds of secret; never a value.
fn withheld_message(html_url: &str, withheld: &[Withheld]) -> String {
    let elements: Vec<String> = withheld
        .iter()
        .map(|w| match w.element.as_str() {
            ROOT => format!("the attributes of <{ROOT}> ({})", w.kind),
            name => format!("<{name}> ({})", w.kind),
        })
        .collect();
    let (it_holds, it_is, it) = match withheld.len() {
        1 => ("it holds what looks like a secret", "it is", "it"),
        _ => ("they hold what look like secrets", "they are", "them"),
    };
    format!(
        "Withheld {} from the <agent-state> block in {html_url}: {it_holds}, so {it_is} \
         left out of the state (outputs, summary, JSON and the next block written); the \
         rest of the block was read. Edit that comment to take {it} out, and revoke what \
         was pasted: anyone who can read the issue has seen it",
        elements.join(", "),
    )
}

fn lenient_message(html_url: &str, mends: &[Mend]) -> String {
    let mut notes: Vec<String> = mends
        .iter()
        .take(MENDS_SHOWN)
        .map(ToString::to_string)
        .collect();
    if mends.len() > MENDS_SHOWN {
        notes.push(format!("and {} more", mends.len() - MENDS_SHOWN));
    }
    format!(
        "Read the <agent-state> block in {html_url} leniently: {}",
        notes.join(" · ")
    )
}

/// The latest valid trusted state among `comments` (one page, or the whole history).
pub fn select_latest(comments: &[IssueComment<'_>], trust: &TrustConfig) -> Selection {
    let mut scan = StateScan::new(trust);
    scan.feed(comments);
    scan.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust() -> TrustConfig {
        TrustConfig {
            issue_author: "alice".into(),
            token_login: Some("github-actions[bot]".into()),
            trusted_logins: vec!["renovate".into(), "claude-agent[bot]".into()],
        }
    }

    fn comment<'a>(
        id: u64,
        author: &'a str,
        association: &'a str,
        body: &'a str,
    ) -> IssueComment<'a> {
        IssueComment {
            id,
            author,
            association,
            body,
            html_url: "https://github.com/o/r/issues/1#issuecomment-1",
            created_at: "2025-01-01T00:00:00Z",
        }
    }

    #[test]
    fn trusted_authors() {
        let trust = trust();
        assert!(trust.trusts("ALICE", "NONE"));
        assert!(trust.trusts("bob", "owner"));
        assert!(trust.trusts("bob", "MEMBER"));
        assert!(trust.trusts("bob", "COLLABORATOR"));
        assert!(trust.trusts("github-actions[bot]", "NONE"));
        assert!(!trust.trusts("github-actions", "NONE"));
        assert!(trust.trusts("renovate[bot]", "NONE"));
        assert!(trust.trusts("renovate", "NONE"));
        assert!(trust.trusts("claude-agent", "NONE"));
        assert!(!trust.trusts("mallory", "CONTRIBUTOR"));
        assert!(!trust.trusts("", "NONE"));
        assert!(!trust.trusts("[bot]", "NONE"));
        let with_empty = TrustConfig {
            trusted_logins: vec![String::new(), "[bot]".into()],
            ..TrustConfig::default()
        };
        assert!(!with_empty.trusts("[bot]", "NONE"));
        let nobody = TrustConfig::default();
        assert!(!nobody.trusts("", "NONE"));
        assert!(!nobody.trusts("x[bot]", "NONE"));
    }

    #[test]
    fn no_block_means_planning() {
        let selection = select_latest(&[comment(1, "alice", "NONE", "hello")], &trust());
        assert_eq!(selection.state, AgentState::initial());
        assert_eq!(selection.state.step.as_deref(), Some("planning"));
        assert_eq!(selection.state.progress.map(|p| p.value()), Some(0));
        assert_eq!(selection.source, None);
    }

    #[test]
    fn newer_malformed_trusted_blocks_warn_and_older_valid_wins() {
        let comments = [
            comment(
                1,
                "alice",
                "NONE",
                "<agent-state><step>one</step></agent-state>",
            ),
            comment(
                2,
                "bob",
                "MEMBER",
                "<agent-state><progress>101</progress></agent-state>",
            ),
            comment(
                3,
                "mallory",
                "NONE",
                "<agent-state><step>forged</step></agent-state>",
            ),
        ];
        let selection = select_latest(&comments, &trust());
        assert_eq!(selection.state.step.as_deref(), Some("one"));
        assert_eq!(selection.source.map(|s| s.comment_id), Some(1));
        assert_eq!(selection.ignored_untrusted, 1);
        assert_eq!(selection.warnings.len(), 1);
        assert_eq!(selection.warnings[0].comment_id, 2);
    }

    #[test]
    fn order_comes_from_created_at_then_id() {
        let mut newer = comment(
            1,
            "alice",
            "NONE",
            "<agent-state><step>newer</step></agent-state>",
        );
        newer.created_at = "2025-02-01T00:00:00Z";
        let older = comment(
            9,
            "alice",
            "NONE",
            "<agent-state><step>older</step></agent-state>",
        );
        let tie = comment(
            10,
            "alice",
            "NONE",
            "<agent-state><step>tie</step></agent-state>",
        );
        let selection = select_latest(&[newer, older, tie], &trust());
        assert_eq!(selection.state.step.as_deref(), Some("newer"));
        let selection = select_latest(&[tie, older], &trust());
        assert_eq!(selection.state.step.as_deref(), Some("tie"));
    }

    #[test]
    fn pages_stop_at_the_first_find() {
        let trust = trust();
        let mut scan = StateScan::new(&trust);
        assert!(!scan.feed(&[comment(5, "mallory", "NONE", "<agent-state/>")]));
        assert!(scan.feed(&[comment(3, "alice", "NONE", "<agent-state/>")]));
        assert!(scan.feed(&[comment(1, "mallory", "NONE", "<agent-state/>")]));
        let selection = scan.finish();
        assert_eq!(selection.source.map(|s| s.comment_id), Some(3));
        assert_eq!(selection.ignored_untrusted, 1);
    }

    #[test]
    fn a_lenient_read_is_chosen_with_a_warning_naming_what_to_escape() {
        let body = "<agent-state><intent>Fix A & B</intent><step>R&D</step>\
                    <next_action>retry if n < 5</next_action></agent-state>";
        let selection = select_latest(&[comment(4, "alice", "NONE", body)], &trust());
        assert_eq!(selection.state.intent.as_deref(), Some("Fix A & B"));
        assert_eq!(selection.source.map(|s| s.comment_id), Some(4));
        let warnings: Vec<_> = selection
            .warnings
            .iter()
            .map(|w| (w.kind, w.message.as_str()))
            .collect();
        insta::assert_debug_snapshot!(warnings, @r#"
        [
            (
                Lenient,
                "Read the <agent-state> block in https://github.com/o/r/issues/1#issuecomment-1 leniently: unescaped `&` in <intent>; read as text — write `&amp;` · unescaped `&` in <step>; read as text — write `&amp;` · unescaped `<` in <next_action>; read as text — write `&lt;`",
            ),
        ]
        "#);
    }

    #[test]
    fn a_lenient_warning_lists_a_few_kinds() {
        let items: String = (0..8).map(|i| format!("<e{i}>&</e{i}>")).collect();
        let body = format!("<agent-state><plan>{items}</plan></agent-state>");
        let selection = select_latest(&[comment(4, "alice", "NONE", &body)], &trust());
        assert_eq!(selection.state.unknown.len(), 1);
        let message = &selection.warnings[0].message;
        assert_eq!(message.matches("unescaped").count(), 5);
        assert!(message.ends_with(" · and 3 more"), "{message}");
    }

    #[test]
    fn several_malformed_blocks_make_one_warning() {
        let body = "<agent-state><progress>-1</progress></agent-state>\n<agent-state>";
        let selection = select_latest(&[comment(7, "alice", "NONE", body)], &trust());
        assert_eq!(selection.state, AgentState::initial());
        assert_eq!(selection.source, None);
        assert_eq!(
            selection.warnings[0].message,
            "Skipped 2 malformed <agent-state> blocks in https://github.com/o/r/issues/1#issuecomment-1; \
             the newest: the block is not closed: no `</agent-state>` follows `<agent-state>`"
        );
    }

    /// A human pasted a token into a question: the question is withheld, the block
    /// (newer than a clean one) still counts, and the warning never holds the value.
    #[test]
    fn a_secret_in_the_chosen_block_withholds_its_element_with_a_warning() {
        let token = "ghp_Tq7Lx2Vb9Nc4Wz8Hd1Rk6Mp3Js5Gf0Ya7Eu2";
        let older = "<agent-state><step>planning</step></agent-state>";
        let newer = format!(
            "<agent-state version=\"{token}\"><step>waiting</step><memory>{{\"k\": \"{token}\"}}</memory>\
             <input_request><question>Is {token} right?</question></input_request></agent-state>"
        );
        let mut newest = comment(9, "alice", "NONE", &newer);
        newest.created_at = "2025-01-02T00:00:00Z";
        let selection = select_latest(&[comment(2, "alice", "NONE", older), newest], &trust());
        assert_eq!(selection.source.map(|s| s.comment_id), Some(9));
        assert_eq!(selection.state.step.as_deref(), Some("waiting"));
        assert_eq!(selection.state.memory, None);
        assert!(selection.state.unknown.is_empty());
        assert_eq!(selection.state.root_attributes.as_str(), "");
        let elements: Vec<&str> = selection
            .withheld
            .iter()
            .map(|w| w.element.as_str())
            .collect();
        assert_eq!(elements, ["memory", "input_request", "agent-state"]);
        let warnings: Vec<_> = selection
            .warnings
            .iter()
            .map(|w| (w.kind, w.message.as_str()))
            .collect();
        insta::assert_debug_snapshot!(warnings, @r#"
        [
            (
                Withheld,
                "Withheld <memory> (GitHub token), <input_request> (GitHub token), the attributes of <agent-state> (GitHub token) from the <agent-state> block in https://github.com/o/r/issues/1#issuecomment-1: they hold what look like secrets, so they are left out of the state (outputs, summary, JSON and the next block written); the rest of the block was read. Edit that comment to take them out, and revoke what was pasted: anyone who can read the issue has seen it",
            ),
        ]
        "#);
        let json = serde_json::to_string(&selection.warnings).unwrap_or_default();
        assert!(!json.contains(&token[4..]), "{json}");
    }
}
