//! After the merge: whether this run may look at a merged pull request's merge commit at
//! all. Only a merge the release token's own identity made is council's to check or
//! revert, only once, and only on the events SPEC names (a push to the base, a workflow
//! run of the repository's own code, or an explicit `release`): a fork's workflow run
//! can be made to name any commit and branch. The ledger has no say: a recorded merge
//! proves nothing, and a merge recorded nowhere is still ours when GitHub says so.

/// What set this run off, as far as a merged pull request is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// A push to a branch.
    Push,
    /// A workflow run of this repository's own code.
    OwnWorkflowRun,
    /// A workflow run of a fork's code.
    ForkWorkflowRun,
    /// `council release --pr N`, or the action's `command: release`.
    Explicit,
    /// Anything else (a review, a label, a check suite…).
    Other,
}

/// A pull request that refers to the merged one (a cross-reference on its timeline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Referrer {
    pub number: u64,
    pub head_ref: String,
    /// Its author's login as REST writes it.
    pub author: String,
}

/// What GitHub says about a merged pull request, and who this run is.
#[derive(Debug, Clone)]
pub struct MergedFacts<'a> {
    pub number: u64,
    pub base: &'a str,
    /// The pull request is closed now (merged pull requests are).
    pub closed: bool,
    pub trigger: Trigger,
    /// Who merged it, as REST writes it; empty when GitHub names no one.
    pub merged_by: &'a str,
    /// Whether a release token was given at all.
    pub release_token: bool,
    /// The release token's login; `None` when it could not be read.
    pub release_identity: Option<&'a str>,
    /// The pull requests that refer to it.
    pub referrers: &'a [Referrer],
}

/// Whether this run's event may look at the merge commit at all (no request is needed
/// to tell): the first of [`may_check`]'s reasons.
pub fn triggered(f: &MergedFacts) -> Result<(), String> {
    let allowed = matches!(
        f.trigger,
        Trigger::Push | Trigger::OwnWorkflowRun | Trigger::Explicit
    );
    if !f.closed || !allowed {
        return Err(format!(
            "#{} is already merged; its post-merge check runs on a push to (or a \
             workflow_run of this repository on) {}",
            f.number, f.base
        ));
    }
    Ok(())
}

/// `Ok` when the merge commit is council's to check (and, when red, revert); else why
/// not, for the summary.
pub fn may_check(f: &MergedFacts) -> Result<(), String> {
    let n = f.number;
    triggered(f)?;
    if !f.release_token {
        return Err(format!(
            "#{n} is merged; without a `release-token` council cannot tell whether the merge \
             was its own, so its merge commit is not checked or reverted"
        ));
    }
    let Some(ours) = f.release_identity else {
        return Err(format!(
            "#{n} is merged, but the release token's identity could not be read, so whether \
             council made the merge is unknown: nothing is checked or reverted"
        ));
    };
    if f.merged_by.is_empty() || !f.merged_by.eq_ignore_ascii_case(ours) {
        let by = match f.merged_by {
            "" => "someone GitHub does not name".to_string(),
            login => format!("`{login}`"),
        };
        return Err(format!(
            "#{n} was merged by {by}, not by the release token (`{ours}`): not council's \
             merge to check or revert"
        ));
    }
    if let Some(revert) = reverted_by(n, f.referrers, ours) {
        return Err(format!(
            "#{n} was already reverted by #{revert} (ROLLED_BACK)"
        ));
    }
    Ok(())
}

/// The revert pull request `login` opened for pull request `number`, if any: GitHub
/// names its branch `revert-<number>-<head>`, and it refers to the reverted one.
pub fn reverted_by(number: u64, referrers: &[Referrer], login: &str) -> Option<u64> {
    let prefix = format!("revert-{number}-");
    referrers
        .iter()
        .find(|r| r.author.eq_ignore_ascii_case(login) && r.head_ref.starts_with(&prefix))
        .map(|r| r.number)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(trigger: Trigger, merged_by: &'static str) -> MergedFacts<'static> {
        MergedFacts {
            number: 7,
            base: "develop",
            closed: true,
            trigger,
            merged_by,
            release_token: true,
            release_identity: Some("council-release[bot]"),
            referrers: &[],
        }
    }

    #[test]
    fn only_council_s_own_merge_on_the_named_events_is_checked() {
        assert_eq!(
            may_check(&facts(Trigger::Push, "Council-Release[bot]")),
            Ok(())
        );
        assert_eq!(
            may_check(&facts(Trigger::OwnWorkflowRun, "council-release[bot]")),
            Ok(())
        );
        assert_eq!(
            may_check(&facts(Trigger::Explicit, "council-release[bot]")),
            Ok(())
        );
        for trigger in [Trigger::ForkWorkflowRun, Trigger::Other] {
            let why = may_check(&facts(trigger, "council-release[bot]")).unwrap_err();
            assert!(why.contains("post-merge check runs on a push"), "{why}");
        }
        let why = may_check(&facts(Trigger::Push, "mallory")).unwrap_err();
        assert!(
            why.contains("merged by `mallory`, not by the release token"),
            "{why}"
        );
        let why = may_check(&facts(Trigger::Push, "")).unwrap_err();
        assert!(why.contains("someone GitHub does not name"), "{why}");
        let mut unknown = facts(Trigger::Push, "council-release[bot]");
        unknown.release_identity = None;
        assert!(
            may_check(&unknown)
                .unwrap_err()
                .contains("identity could not be read")
        );
        unknown.release_token = false;
        assert!(
            may_check(&unknown)
                .unwrap_err()
                .contains("without a `release-token`")
        );
    }

    #[test]
    fn a_revert_counts_only_when_the_release_identity_opened_it() {
        let referrers = [
            Referrer {
                number: 8,
                head_ref: "revert-7-feature".into(),
                author: "mallory".into(),
            },
            Referrer {
                number: 9,
                head_ref: "revert-70-feature".into(),
                author: "council-release[bot]".into(),
            },
            Referrer {
                number: 10,
                head_ref: "revert-7-feature".into(),
                author: "Council-Release[bot]".into(),
            },
        ];
        assert_eq!(reverted_by(7, &referrers, "council-release[bot]"), Some(10));
        assert_eq!(
            reverted_by(7, &referrers[..2], "council-release[bot]"),
            None
        );
        let mut again = facts(Trigger::Push, "council-release[bot]");
        again.referrers = &referrers;
        assert_eq!(
            may_check(&again).unwrap_err(),
            "#7 was already reverted by #10 (ROLLED_BACK)"
        );
    }
}
