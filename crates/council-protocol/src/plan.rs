//! Events → the command `command: auto` runs (SPEC.md's table, one arm per row; pure).

use crate::command::Command;
use crate::event::Event;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// This command (a pipeline command runs its stages while the gates before pass).
    Run(Command),
    /// Nothing to do for this event: say why, exit 0.
    Nothing(String),
}

const GUARD_ACTIONS: [&str; 5] = [
    "opened",
    "reopened",
    "synchronize",
    "edited",
    "ready_for_review",
];

pub fn command_for(event: &Event, registry_issue_set: bool) -> Plan {
    let action = event.action.as_deref().unwrap_or("");
    let name = event.name.as_str();
    match (name, action) {
        ("pull_request" | "pull_request_target", a) if GUARD_ACTIONS.contains(&a) => {
            Plan::Run(Command::Review)
        }
        ("pull_request", "labeled") => Plan::Run(Command::Release),
        ("pull_request_review", "submitted") => Plan::Run(Command::Release),
        ("check_suite" | "workflow_run", "completed") => Plan::Run(Command::Release),
        ("status", _) => Plan::Run(Command::Release),
        // The release stage's post-merge check: it tells from the push whether it made
        // the merge; and the merge queue of the pushed base, when its policy has one.
        ("push", _) => Plan::Run(Command::Release),
        // The merge queue's fallback: every base's queue whose policy enables it (the
        // policy lives on each base, so the run decides; a repository without a queue
        // has nothing to do).
        ("schedule", _) => Plan::Run(Command::Release),
        ("issue_comment", "created" | "edited") => Plan::Run(Command::StateGet),
        ("issues", "opened") if registry_issue_set => Plan::Run(Command::Assign),
        ("issues", "opened") => Plan::Nothing(
            "issues opened: assignment runs only when the `registry-issue` input is set"
                .to_string(),
        ),
        ("workflow_dispatch", _) => Plan::Nothing(
            "workflow_dispatch with `command: auto` has nothing to run: set the `command` input"
                .to_string(),
        ),
        (_, "") => Plan::Nothing(format!(
            "event `{name}` is not one council handles; nothing to do"
        )),
        (_, a) => Plan::Nothing(format!(
            "event `{name}` with action `{a}` is not one council handles; nothing to do"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(name: &str, action: Option<&str>) -> Event {
        let mut payload = json!({
            "pull_request": {}, "review": {}, "issue": {}, "comment": {},
            "check_suite": {}, "workflow_run": {}
        });
        if let Some(a) = action {
            payload["action"] = a.into();
        }
        Event::parse(name, &payload.to_string(), "e").unwrap()
    }

    #[test]
    fn one_assertion_per_row_of_the_table() {
        for a in GUARD_ACTIONS {
            assert_eq!(
                command_for(&event("pull_request", Some(a)), false),
                Plan::Run(Command::Review)
            );
            assert_eq!(
                command_for(&event("pull_request_target", Some(a)), false),
                Plan::Run(Command::Review)
            );
        }
        assert_eq!(
            command_for(&event("pull_request_review", Some("submitted")), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("check_suite", Some("completed")), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("workflow_run", Some("completed")), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("status", None), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("pull_request", Some("labeled")), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("push", None), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("schedule", None), false),
            Plan::Run(Command::Release)
        );
        assert_eq!(
            command_for(&event("issue_comment", Some("created")), false),
            Plan::Run(Command::StateGet)
        );
        assert_eq!(
            command_for(&event("issue_comment", Some("edited")), false),
            Plan::Run(Command::StateGet)
        );
        assert_eq!(
            command_for(&event("issues", Some("opened")), true),
            Plan::Run(Command::Assign)
        );
        assert!(matches!(
            command_for(&event("issues", Some("opened")), false),
            Plan::Nothing(_)
        ));
        assert!(matches!(
            command_for(&event("workflow_dispatch", None), false),
            Plan::Nothing(_)
        ));
    }

    #[test]
    fn everything_else_is_a_notice() {
        for (name, action) in [
            ("pull_request", Some("closed")),
            ("pull_request", Some("assigned")),
            ("issue_comment", Some("deleted")),
            ("check_suite", Some("requested")),
            ("release", Some("published")),
            ("fork", None),
        ] {
            assert!(
                matches!(command_for(&event(name, action), false), Plan::Nothing(_)),
                "{name} {action:?}"
            );
        }
    }
}
