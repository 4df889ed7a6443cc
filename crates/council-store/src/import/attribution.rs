//! Who a pull request is attributed to. The Context Object's `subject` (author, branches,
//! head) is an unsigned header: anyone who can edit the ledger comment can change it
//! without breaking the chain. So the store never takes it as vouched for:
//!
//! - a live read of GitHub vouches (`audit sync`'s pull request list, the run that wrote
//!   the object from its own event): that is what is stored, as `github`, and a header
//!   that names another author or source branch is recorded as a verification failure
//!   (another target is only noted: a pull request can be retargeted without a run);
//! - without one (an imported file) the header is stored as `header`: unverified, and the
//!   questions say so. It has already been checked against what the signed entries
//!   vouch for ([`council_protocol::audit::subject`]); a live read later replaces it.

use council_protocol::audit::Subject;

use super::printable;
use crate::StoreError;
use crate::engine::{Conn, Param};

/// What a live read of GitHub says of a pull request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attribution {
    /// The login of its author.
    pub author: String,
    pub source_branch: String,
    pub target_branch: String,
    /// The head commit now, when the read says.
    pub head_sha: Option<String>,
}

/// `workflow_contexts.attribution`: a live read of GitHub vouches for the row's author
/// and branches.
pub const BY_GITHUB: &str = "github";
/// `workflow_contexts.attribution`: only the object's unsigned header names them.
pub const BY_HEADER: &str = "header";

/// Where an object's header and GitHub disagree.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Comparison {
    /// Another author or source branch: the header was edited (or the account renamed).
    pub dispute: Option<String>,
    /// Another target branch: retargeted since the run that wrote the header, likely.
    pub note: Option<String>,
}

pub(super) fn compare(header: &Subject, live: &Attribution) -> Comparison {
    // Logins are not case-sensitive on GitHub; branch names are.
    let author = !header.author.eq_ignore_ascii_case(&live.author);
    let source = header.source_branch != live.source_branch;
    let dispute = (author || source).then(|| {
        let mut differs = Vec::new();
        if author {
            differs.push(format!(
                "author {} where GitHub says {}",
                shown(&header.author),
                shown(&live.author)
            ));
        }
        if source {
            differs.push(format!(
                "source branch {} where GitHub says {}",
                shown(&header.source_branch),
                shown(&live.source_branch)
            ));
        }
        format!(
            "its header names {}: the unsigned header was edited (or the account or branch \
             renamed); the store attributes the pull request as GitHub does",
            differs.join(" and ")
        )
    });
    let note = (header.target_branch != live.target_branch).then(|| {
        format!(
            "its header names target branch {} where GitHub says {} (retargeted since the \
             run that wrote it, or edited): the store takes GitHub's",
            shown(&header.target_branch),
            shown(&live.target_branch)
        )
    });
    Comparison { dispute, note }
}

/// A value for a message: short, with nothing hidden.
fn shown(value: &str) -> String {
    format!("`{}`", council_protocol::chars::show_hidden(value, 80))
}

/// Stores what GitHub says as the row's attribution.
pub(super) async fn vouched(
    conn: &mut Conn,
    id: i64,
    live: &Attribution,
) -> Result<(), StoreError> {
    let head = live.head_sha.as_deref().map(printable);
    conn.execute(
        "UPDATE workflow_contexts SET author = ?, source_branch = ?, target_branch = ?, \
         head_sha = COALESCE(?, head_sha), attribution = ? WHERE id = ?",
        &[
            printable(&live.author).as_str().into(),
            printable(&live.source_branch).as_str().into(),
            printable(&live.target_branch).as_str().into(),
            Param::Text(head.as_deref()),
            BY_GITHUB.into(),
            id.into(),
        ],
    )
    .await?;
    Ok(())
}

/// Stores the newest header's subject, unless GitHub vouched for the row already.
pub(super) async fn from_header(
    conn: &mut Conn,
    id: i64,
    header: &Subject,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE workflow_contexts SET author = ?, source_branch = ?, target_branch = ?, \
         head_sha = ? WHERE id = ? AND attribution = ?",
        &[
            printable(&header.author).as_str().into(),
            printable(&header.source_branch).as_str().into(),
            printable(&header.target_branch).as_str().into(),
            printable(&header.head_sha).as_str().into(),
            id.into(),
            BY_HEADER.into(),
        ],
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(author: &str, source: &str, target: &str) -> Subject {
        Subject {
            kind: "pull_request".into(),
            id: 7,
            source_branch: source.into(),
            target_branch: target.into(),
            author: author.into(),
            head_sha: "a".repeat(40),
        }
    }

    fn live(author: &str, source: &str, target: &str) -> Attribution {
        Attribution {
            author: author.into(),
            source_branch: source.into(),
            target_branch: target.into(),
            head_sha: None,
        }
    }

    #[test]
    fn a_header_naming_another_author_or_source_is_disputed_another_target_noted() {
        let github = live("octocat", "feature/x", "develop");
        assert_eq!(
            compare(&header("OctoCat", "feature/x", "develop"), &github),
            Comparison::default()
        );
        let forged = compare(&header("innocent-alice", "feature/y", "develop"), &github);
        let dispute = forged.dispute.unwrap();
        assert!(
            dispute.contains("author `innocent-alice` where GitHub says `octocat`")
                && dispute.contains("source branch `feature/y` where GitHub says `feature/x`"),
            "{dispute}"
        );
        assert_eq!(forged.note, None);
        let retargeted = compare(&header("octocat", "feature/x", "main"), &github);
        assert_eq!(retargeted.dispute, None);
        assert!(
            retargeted
                .note
                .unwrap()
                .contains("`main` where GitHub says `develop`")
        );
        let hidden = compare(&header("octocat\u{202E}", "feature/x", "develop"), &github);
        assert!(hidden.dispute.unwrap().contains("<U+202E>"));
    }
}
