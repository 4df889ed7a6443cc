//! `context sync`: the mapping between an issue's `<agent-state>` and an
//! ASSISTANT_CONTEXT file, both ways (pure; the clock is passed in).
//!
//! To the file (SPEC): `status` from `step` (`blocked` or `waiting*` → paused, `done` or
//! progress 100 → completed, else active), `next_steps` ← `next_action` (one item),
//! `files_changed` ← `memory.files_changed` when it is a list of strings, `purpose` ←
//! `intent`, `updated_at` ← now. A field whose source is absent is left as it is; every
//! other field and the body are untouched (see [`super::ContextFile::edited`]).
//!
//! To the issue, the inverse: `intent` ← `purpose`, `next_action` ← the first of
//! `next_steps`, `memory.files_changed` ← `files_changed` (the rest of the issue's
//! latest memory kept), and `step` ← `status`: the latest step is kept when it already
//! maps to the file's status (so a round trip changes nothing), else `coding` (active),
//! `waiting` (paused) or `done` with progress 100 (completed).

use serde_json::{Map, Value};

use super::edit::Edit;
use super::fields::{Field, Fields, Status};
use crate::agent_state::{AgentState, Memory, Progress};

/// The file status an agent state maps to.
pub fn status_of(state: &AgentState) -> Status {
    let step = state.step.as_deref().unwrap_or("").trim();
    if step == "blocked" || step.starts_with("waiting") {
        Status::Paused
    } else if step == "done" || state.progress.is_some_and(|p| p.value() == 100) {
        Status::Completed
    } else {
        Status::Active
    }
}

/// The edits that bring a file in line with `state`; `now` is an RFC 3339 timestamp.
pub fn to_file(state: &AgentState, now: &str) -> Vec<Edit> {
    let mut edits = vec![Edit::text(Field::Status, status_of(state).name())];
    if let Some(next) = &state.next_action {
        edits.push(Edit::list(Field::NextSteps, vec![next.clone()]));
    }
    if let Some(files) = memory_files(state) {
        edits.push(Edit::list(Field::FilesChanged, files));
    }
    if let Some(intent) = &state.intent {
        edits.push(Edit::text(Field::Purpose, intent.clone()));
    }
    edits.push(Edit::text(Field::UpdatedAt, now));
    edits
}

/// `memory.files_changed` when the memory is an object holding a list of strings.
fn memory_files(state: &AgentState) -> Option<Vec<String>> {
    let memory = state.memory.as_ref()?.to_value().ok()?;
    let list = memory.get("files_changed")?.as_array()?;
    list.iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

/// The state to post for `file` on an issue whose latest state is `latest`.
pub fn to_state(file: &Fields, latest: &AgentState) -> AgentState {
    let mut state = latest.clone();
    if let Some(purpose) = &file.purpose {
        state.intent = Some(purpose.clone());
    }
    if let Some(next) = file.next_steps.as_ref().and_then(|n| n.first()) {
        state.next_action = Some(next.clone());
    }
    if let Some(status) = file.status
        && status_of(latest) != status
    {
        state.step = Some(
            match status {
                Status::Active => "coding",
                Status::Paused => "waiting",
                Status::Completed => "done",
            }
            .to_owned(),
        );
        if status == Status::Completed {
            state.progress = Progress::new(100);
        } else if state.progress.is_some_and(|p| p.value() == 100) {
            // 100 % would read back as completed.
            state.progress = Progress::new(99);
        }
    }
    if let Some(files) = &file.files_changed
        && memory_files(latest).as_ref() != Some(files)
    {
        state.memory = with_files(latest.memory.as_ref(), files).or(state.memory);
    }
    state
}

/// The latest memory with `files_changed` set; a memory that is not an object cannot
/// hold the key and is kept as it is (`None`).
fn with_files(memory: Option<&Memory>, files: &[String]) -> Option<Memory> {
    let mut object = match memory.map(Memory::to_value) {
        None => Map::new(),
        Some(Ok(Value::Object(object))) => object,
        Some(_) => return None,
    };
    let list = files.iter().cloned().map(Value::String).collect();
    object.insert("files_changed".to_owned(), Value::Array(list));
    Some(Memory::from_value(&Value::Object(object)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_state::parse_block;
    use crate::assistant_context::validate;

    fn state(xml: &str) -> AgentState {
        parse_block(xml).expect("valid block")
    }

    #[test]
    fn status_follows_the_step() {
        let status = |step: &str, progress: u8| {
            status_of(&AgentState {
                step: Some(step.to_owned()),
                progress: Progress::new(progress),
                ..AgentState::default()
            })
        };
        assert_eq!(status("blocked", 10), Status::Paused);
        assert_eq!(status("waiting_for_review", 10), Status::Paused);
        assert_eq!(status("waiting", 100), Status::Paused);
        assert_eq!(status("done", 10), Status::Completed);
        assert_eq!(status("testing", 100), Status::Completed);
        assert_eq!(status("coding", 99), Status::Active);
        assert_eq!(status_of(&AgentState::initial()), Status::Active);
    }

    #[test]
    fn to_file_maps_each_field_and_leaves_the_rest() {
        let latest = state(
            "<agent-state><intent>add_auth</intent><step>waiting_for_review</step>\
             <memory>{\"files_changed\": [\"auth.ts\"], \"pending\": \"integration_tests\"}</memory>\
             <next_action>run_tests_again</next_action></agent-state>",
        );
        let file = validate(
            "ASSISTANT_CONTEXT.md",
            "---\nid: ctx\nuser: Ada # owner\nstatus: active\n---\nlog\n",
        )
        .expect("valid");
        let written = file
            .edited(&to_file(&latest, "2026-01-02T03:04:05Z"))
            .expect("applies");
        insta::assert_snapshot!(written, @r"
        ---
        id: ctx
        user: Ada # owner
        status: paused
        next_steps:
          - run_tests_again
        files_changed:
          - auth.ts
        purpose: add_auth
        updated_at: 2026-01-02T03:04:05Z
        ---
        log
        ");
    }

    #[test]
    fn memory_files_must_be_a_list_of_strings() {
        for memory in [
            "{\"files_changed\": \"a\"}",
            "{\"files_changed\": [1]}",
            "[]",
        ] {
            let latest = AgentState {
                memory: Memory::from_json_text(memory).ok(),
                ..AgentState::default()
            };
            assert!(
                to_file(&latest, "2026-01-02T03:04:05Z")
                    .iter()
                    .all(|e| e.field != Field::FilesChanged),
                "{memory}"
            );
        }
    }

    #[test]
    fn to_state_is_the_inverse_and_keeps_the_memory() {
        let latest = state(
            "<agent-state><agent>claude</agent><step>review</step><progress>40</progress>\
             <memory>{\"attempts\": 2, \"files_changed\": [\"old.rs\"]}</memory></agent-state>",
        );
        let file = validate(
            "ASSISTANT_CONTEXT.md",
            "---\npurpose: Finish auth\nstatus: paused\nnext_steps: [ask the human, then test]\nfiles_changed: [a.rs]\n---\n",
        )
        .expect("valid");
        let posted = to_state(file.fields(), &latest);
        assert_eq!(posted.intent.as_deref(), Some("Finish auth"));
        assert_eq!(posted.step.as_deref(), Some("waiting"));
        assert_eq!(posted.next_action.as_deref(), Some("ask the human"));
        assert_eq!(posted.agent.as_deref(), Some("claude"));
        assert_eq!(
            posted.memory.map(|m| m.to_compact_string()),
            Some("{\"attempts\":2,\"files_changed\":[\"a.rs\"]}".to_owned())
        );
    }

    #[test]
    fn a_round_trip_through_the_file_keeps_the_mapped_fields() {
        for xml in [
            "<agent-state><intent>x</intent><step>blocked</step><progress>30</progress><next_action>n</next_action></agent-state>",
            "<agent-state><step>done</step><progress>100</progress></agent-state>",
            "<agent-state><step>testing</step><progress>100</progress></agent-state>",
            "<agent-state><step>coding</step><memory>{\"files_changed\": [\"a\", \"b\"]}</memory></agent-state>",
        ] {
            let latest = state(xml);
            let file = validate("ASSISTANT_CONTEXT.md", "---\n---\n").expect("valid");
            let text = file
                .edited(&to_file(&latest, "2026-01-02T03:04:05Z"))
                .expect("applies");
            let file = validate("ASSISTANT_CONTEXT.md", &text).expect("valid");
            assert_eq!(to_state(file.fields(), &latest), latest, "{xml}");
        }
    }

    #[test]
    fn completed_sets_progress_and_reopening_lowers_it() {
        let done = state("<agent-state><step>done</step><progress>100</progress></agent-state>");
        let fields = Fields {
            status: Some(Status::Active),
            ..Fields::default()
        };
        let reopened = to_state(&fields, &done);
        assert_eq!(reopened.step.as_deref(), Some("coding"));
        assert_eq!(status_of(&reopened), Status::Active);
        let fields = Fields {
            status: Some(Status::Completed),
            ..Fields::default()
        };
        let finished = to_state(&fields, &AgentState::initial());
        assert_eq!(finished.progress.map(|p| p.value()), Some(100));
    }
}
