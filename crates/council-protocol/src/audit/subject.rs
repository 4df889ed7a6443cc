//! The subject (author, branches, head commit) is the object's header: every run rewrites
//! it, and no hash or signature covers it. Anyone who can edit the ledger comment can
//! change it without breaking the chain, so it attributes nothing by itself.
//!
//! What the signed entries do vouch for: the run that wrote the object last (the run of
//! its newest entries, which writes header and entries from the same pull request it
//! read) recorded its decisions on the head commit it names in each entry's `sha`, and
//! the guard's messages name the branches it judged (`Branch "feature/x" matches rule
//! …`, `Base "develop" is allowed …`). A header that says otherwise was edited. Nothing
//! signed names the author: only a live read of GitHub vouches for that.

use super::context::{ContextObject, Entry};
use crate::render::text::Message;

/// Why the header contradicts the signed entries of the run that wrote it, if it does.
/// An object without entries, or whose messages name no branch, is not contradicted.
pub fn contradiction(ctx: &ContextObject) -> Option<String> {
    let last = ctx.timeline.last()?;
    let newest: Vec<&Entry> = ctx
        .timeline
        .iter()
        .rev()
        .take_while(|e| e.run_id == last.run_id && e.run_attempt == last.run_attempt)
        .collect();
    let subject = &ctx.subject;
    if !newest.iter().any(|e| e.sha == subject.head_sha) {
        return Some(format!(
            "its header's head_sha {} is not the commit its newest run decided on ({}): the \
             unsigned header was edited",
            shown(&subject.head_sha),
            shown(&last.sha)
        ));
    }
    let guard = |action: &'static str| {
        newest
            .iter()
            .filter(move |e| e.action == action)
            .map(|e| e.message.as_str())
    };
    let head_named = guard("check:branch-name").chain(guard("check:target-branch"));
    for message in head_named {
        if names(message, "Branch ", &subject.source_branch) == Some(false) {
            return Some(disagreement(
                "source_branch",
                &subject.source_branch,
                message,
            ));
        }
    }
    for message in guard("check:target-branch") {
        if names(message, "Base ", &subject.target_branch) == Some(false) {
            return Some(disagreement(
                "target_branch",
                &subject.target_branch,
                message,
            ));
        }
    }
    None
}

fn disagreement(field: &str, claimed: &str, message: &str) -> String {
    format!(
        "its header's {field} {} is not the branch its newest run's signed guard entry names \
         ({}): the unsigned header was edited",
        shown(claimed),
        shown(message)
    )
}

/// Whether `message`, when it starts with `lead` and a quoted branch (as the guard's
/// messages do), names `branch`; `None` when it names none, or was cut before the name
/// ended. The name is compared as messages show it (invisible characters and token-like
/// text as the message shows them), and must end there: a git branch holds no space.
fn names(message: &str, lead: &str, branch: &str) -> Option<bool> {
    let rest = message.strip_prefix(lead)?;
    if !rest.starts_with('"') {
        return None;
    }
    let expected = Message::new().text(lead).value(branch).plain();
    if let Some(after) = message.strip_prefix(expected.as_str()) {
        return Some(after.is_empty() || after.starts_with([' ', '.', ',']));
    }
    // Cut at the message limit before the name ended: nothing to compare.
    match message.split_once("… (cut at ") {
        Some((head, _)) if expected.starts_with(head) => None,
        _ => Some(false),
    }
}

/// A value from the header or an entry, short and with nothing hidden.
fn shown(value: &str) -> String {
    let visible = crate::render::text::visible(value);
    match visible.char_indices().nth(80) {
        None => format!("`{visible}`"),
        Some(_) => format!("`{}…`", visible.chars().take(80).collect::<String>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::timeline::{Record, RunInfo, new_entry};
    use crate::gates::guard::{GuardInput, evaluate};
    use crate::policy::Policy;

    const HEAD: &str = "feature/auth/PBI-7-login";

    /// An object whose newest run is the real guard on `head` into `base` at `sha`.
    fn judged(head: &str, base: &str, sha: &str) -> ContextObject {
        let mut pr = crate::event::sample_pull_request();
        (pr.head_ref, pr.base_ref, pr.head_sha) = (head.into(), base.into(), sha.into());
        let mut ctx = ContextObject::new("o/r", &pr, "t", "2026-01-01T00:00:00Z");
        let policy = Policy::default_policy();
        let run = RunInfo {
            run_id: "9".into(),
            run_attempt: 1,
            job: "gate".into(),
        };
        for gate in evaluate(GuardInput {
            pr_number: 7,
            head,
            base,
            previous_base: None,
            policy: &policy.branches,
            policy_source: &policy.source,
        }) {
            let record = Record {
                stage: "guard",
                agent: "agent_guard",
                action: gate.action.to_string(),
                result: gate.verdict.as_str().to_string(),
                message: gate.timeline_message(),
            };
            ctx.timeline.push(new_entry(&run, &record, sha, "t"));
        }
        ctx
    }

    #[test]
    fn a_header_as_its_run_wrote_it_agrees_with_the_signed_entries() {
        for (head, base) in [
            (HEAD, "develop"),
            (HEAD, "main"),
            ("wip", "develop"),
            ("release/1.0", "main"),
            ("feature/x-\u{202E}nigol", "develop"),
            ("feature/ünïcødé/PBI-1-ß", "develop"),
        ] {
            let ctx = judged(head, base, &"a".repeat(40));
            assert_eq!(contradiction(&ctx), None, "{head} → {base}");
        }
        let mut empty = judged(HEAD, "develop", "sha");
        empty.timeline.clear();
        assert_eq!(contradiction(&empty), None);
    }

    /// The acceptance run's attack: the header edited to another source branch (and
    /// author), the signed entries untouched.
    #[test]
    fn a_header_naming_another_branch_or_commit_is_caught() {
        let genuine = judged(HEAD, "develop", &"a".repeat(40));
        for (edit, field) in [
            (
                Box::new(|c: &mut ContextObject| c.subject.source_branch = "hotfix/other".into())
                    as Box<dyn Fn(&mut ContextObject)>,
                "source_branch",
            ),
            (
                Box::new(|c: &mut ContextObject| c.subject.source_branch = format!("{HEAD}-2")),
                "source_branch",
            ),
            (
                Box::new(|c: &mut ContextObject| c.subject.source_branch = "feature".into()),
                "source_branch",
            ),
            (
                Box::new(|c: &mut ContextObject| c.subject.target_branch = "main".into()),
                "target_branch",
            ),
            (
                Box::new(|c: &mut ContextObject| c.subject.head_sha = "b".repeat(40)),
                "head_sha",
            ),
        ] {
            let mut forged = genuine.clone();
            edit(&mut forged);
            let why = contradiction(&forged).expect("caught");
            assert!(why.contains(field) && why.contains("edited"), "{why}");
        }
        // The author is in no signed entry: only a live read vouches for it.
        let mut author = genuine.clone();
        author.subject.author = "innocent-alice".into();
        assert_eq!(contradiction(&author), None);
    }

    #[test]
    fn only_the_run_that_wrote_the_header_is_compared() {
        // An earlier run judged the pull request when it targeted `main`; it was
        // retargeted since, and the newest run wrote `develop` with its own entries.
        let mut ctx = judged(HEAD, "main", &"a".repeat(40));
        let newer = judged(HEAD, "develop", &"c".repeat(40));
        for mut e in newer.timeline {
            e.run_id = "10".into();
            ctx.timeline.push(e);
        }
        ctx.subject = newer.subject;
        assert_eq!(contradiction(&ctx), None);
    }

    proptest::proptest! {
        /// Any branch names (multi-byte, invisible, token-like): the header its own run
        /// wrote is never contradicted, and one naming another branch always is (git
        /// branch names hold no space or `"`, so the quoted name ends where it ends).
        #[test]
        fn the_guards_own_messages_vouch_for_the_branch_they_judged(
            head in "[^\\s\"]{1,24}",
            other in "[^\\s\"]{1,24}",
            base in "[^\\s\"]{1,12}",
        ) {
            let ctx = judged(&head, &base, "s");
            proptest::prop_assert_eq!(contradiction(&ctx), None);
            let plain = |b: &str| Message::new().value(b).plain();
            proptest::prop_assume!(plain(&head) != plain(&other));
            let mut forged = ctx.clone();
            forged.subject.source_branch = other;
            proptest::prop_assert!(contradiction(&forged).is_some());
        }
    }

    #[test]
    fn messages_that_name_no_branch_or_were_cut_are_no_claim() {
        assert_eq!(names("`x` matches rule `feature`", "Branch ", "y"), None);
        assert_eq!(names("Branch \"x\" matches", "Branch ", "x"), Some(true));
        assert_eq!(names("Branch \"x\"", "Branch ", "x"), Some(true));
        assert_eq!(names("Branch \"x\"\" matches", "Branch ", "x"), Some(false));
        assert_eq!(names("Branch \"xy\" matches", "Branch ", "x"), Some(false));
        assert_eq!(
            names(
                "Branch \"xxxx… (cut at 4000 characters)",
                "Branch ",
                "xxxxxxxx"
            ),
            None
        );
        assert_eq!(
            names(
                "Branch \"ab… (cut at 4000 characters)",
                "Branch ",
                "xxxxxxxx"
            ),
            Some(false)
        );
    }
}
