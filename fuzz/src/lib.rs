//! One function per parser, each taking the raw bytes a fuzzer (or a committed seed)
//! gives it. They panic on a bug, never on bad input: bad input must come back as an
//! error value. Where a parser has an inverse (a renderer), what it read is rendered
//! and read again, and must come back the same.
//!
//! The same file is compiled twice: by `fuzz/fuzz_targets/*.rs` (cargo-fuzz), and by
//! `crates/council-protocol/tests/fuzz_seeds.rs`, which replays every committed seed and
//! every crash the fuzzers found through these functions on each `cargo test`.

use std::io::Cursor;

use council_protocol::actors::trailers::{self as commit_trailers, MAX_TRAILERS};
use council_protocol::actors::{ActorFacts, CommitMessage, Commits, classify};
use council_protocol::agent_state::{
    self, count_blocks, parse_block, read_block, render_block, render_comment, scan_comment,
};
use council_protocol::assistant_context::{self, Edit, Field};
use council_protocol::audit::stored::{self, Links};
use council_protocol::audit::verify::{prove, verify_document, verify_reader};
use council_protocol::context_report::{
    self, Candidate, IssueFacts, parse_report, rank, strict_json,
};
use council_protocol::event::{Event, PullRequest};
use council_protocol::gates::guard::{self, GuardInput};
use council_protocol::policy::Policy;
use council_protocol::review::diff::added_lines;
use council_protocol::secrets::find_secrets;

/// A fuzz target: raw bytes in, a panic on a bug.
pub type Target = fn(&[u8]);

/// The fuzz targets by name, for the seed replay and the scripts.
pub const TARGETS: [(&str, Target); 9] = [
    ("event", event),
    ("policy", policy),
    ("agent_state", agent_state),
    ("assistant_context", assistant_context),
    ("context_report", context_report),
    ("ledger_block", ledger_block),
    ("verify", verify),
    ("patch", patch),
    ("trailers", trailers),
];

/// Event names the product tells apart; the first byte picks one.
const EVENT_NAMES: [&str; 12] = [
    "pull_request",
    "pull_request_target",
    "pull_request_review",
    "check_suite",
    "workflow_run",
    "status",
    "push",
    "issue_comment",
    "issues",
    "workflow_dispatch",
    "merge_group",
    "",
];

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// The first byte chooses among `n` options; the rest is the input.
fn pick(data: &[u8], n: usize) -> (usize, &[u8]) {
    match data.split_first() {
        Some((first, rest)) => (*first as usize % n, rest),
        None => (0, data),
    }
}

/// A workflow event payload (`GITHUB_EVENT_PATH`), then every field a stage reads, and
/// the guard's decision on the pull request's branches under the default policy.
pub fn event(data: &[u8]) {
    let (which, rest) = pick(data, EVENT_NAMES.len());
    let Some(text) = text(rest) else { return };
    let _ = PullRequest::from_api(
        &serde_json::from_str(text).unwrap_or_default(),
        "a fuzzed answer",
    );
    let Ok(event) = Event::parse(EVENT_NAMES[which], text, "event.json") else {
        return;
    };
    let _ = event.trigger();
    let _ = event.is_pull_request_event();
    let _ = event.issue_comment();
    let _ = event.issue_number();
    let previous = event.previous_base();
    if let Ok(pr) = event.pull_request() {
        let _ = pr.is_from_fork();
        let policy = Policy::default_policy();
        let outcomes = guard::evaluate(GuardInput {
            pr_number: pr.number,
            head: &pr.head_ref,
            base: &pr.base_ref,
            previous_base: previous.as_deref(),
            policy: &policy.branches,
            policy_source: &policy.source,
        });
        let _ = guard::passed(&outcomes);
        for outcome in &outcomes {
            let _ = outcome.timeline_message();
        }
    }
}

/// `.github/council.yml`; an accepted policy then decides a few heads, among them the
/// input's own first line, and classifies them as agents' or humans'.
pub fn policy(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(policy) = Policy::parse(text, ".github/council.yml@main") else {
        return;
    };
    let first_line = text.lines().next().unwrap_or("");
    for head in [
        "feature/api/PBI-1-login",
        "hotfix/INC-7-x",
        "dependabot/npm/x",
        "release/v1",
        "",
        first_line,
    ] {
        let branches = &policy.branches;
        let _ = branches.exemption(head);
        let _ = branches.matching_rules(head).count();
        let _ = branches.rule_ignoring_case(&[head, "MAIN"]);
        for base in ["main", "develop", first_line] {
            let outcomes = guard::evaluate(GuardInput {
                pr_number: 1,
                head,
                base,
                previous_base: None,
                policy: branches,
                policy_source: &policy.source,
            });
            for outcome in &outcomes {
                let _ = outcome.timeline_message();
            }
        }
        let commits = [CommitMessage {
            sha: "0".repeat(40),
            message: text.to_string(),
        }];
        let labels = [first_line.to_string(), "agent".to_string()];
        let actor = classify(
            &policy.actors.agents,
            &ActorFacts {
                author: Some(first_line),
                head,
                labels: Some(&labels),
                commits: Some(Commits {
                    listed: &commits,
                    total: 1,
                }),
            },
        );
        let _ = actor.message().markdown();
        let _ = policy.actors.agent.forbidden().map(|g| g.first_match(head));
    }
}

/// An issue comment that may hold `<agent-state>` blocks, and one block on its own.
/// What is read is rendered (as a block, and as the comment the product posts) and read
/// back: the same state must come out.
pub fn agent_state(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let scan = scan_comment(text);
    let _ = count_blocks(text);
    if let Some(state) = &scan.state {
        round_trip(state);
    }
    if let Ok(read) = read_block(text) {
        round_trip(&read.state);
    }
    let _ = parse_block(text);
}

fn round_trip(state: &agent_state::AgentState) {
    let _ = agent_state::v21::read(state);
    let _ = state.find_secrets();
    let block = render_block(state);
    let again = parse_block(&block)
        .unwrap_or_else(|e| panic!("a rendered block does not read back: {e}\n{block}"));
    assert_eq!(
        &again, state,
        "render_block then parse_block changed the state\n{block}"
    );
    if let Ok(rendered) = render_comment(state, Some("fuzzed summary"), "fuzz/1/job") {
        let scan = scan_comment(&rendered.body);
        assert_eq!(
            scan.state.as_ref(),
            Some(&rendered.state),
            "a posted comment does not read back\n{}",
            rendered.body
        );
    }
}

/// An `ASSISTANT_CONTEXT.md` or `.yaml` file (the first byte picks); a valid one is then
/// edited, and the edit must validate with the body and unknown fields byte for byte.
pub fn assistant_context(data: &[u8]) {
    let (which, rest) = pick(data, 2);
    let Some(text) = text(rest) else { return };
    let path = ["ASSISTANT_CONTEXT.md", "ASSISTANT_CONTEXT.yaml"][which];
    let Ok(file) = assistant_context::validate(path, text) else {
        return;
    };
    let _ = file.fields();
    let unknown: Vec<String> = file
        .unknown_fields()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let body = file.body().map(str::to_owned);
    let edits = [
        Edit::text(Field::Status, "paused"),
        Edit::list(Field::NextSteps, vec!["run: the tests".into(), "#2".into()]),
        Edit::text(Field::Purpose, "a: b # c\n'quoted' \"x\""),
    ];
    let edited = match file.edited(&edits) {
        Ok(edited) => edited,
        Err(_) => return,
    };
    let again = assistant_context::validate(path, &edited)
        .unwrap_or_else(|p| panic!("an edited file does not validate: {p:?}\n{edited}"));
    assert_eq!(again.body().map(str::to_owned), body, "the body changed");
    let unknown_again: Vec<String> = again
        .unknown_fields()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(unknown_again, unknown, "unknown fields changed");
}

/// A `<context-report>` comment on the registry issue, or a report's JSON alone; a valid
/// report is scored, rendered as `council report` posts it and read back.
pub fn context_report(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let _ = strict_json::parse(text);
    let _ = context_report::comment::count_blocks(text);
    let mut reports = Vec::new();
    if let Ok(report) = parse_report(text) {
        reports.push(report);
    }
    if let Some(block) = context_report::comment::last_block(text) {
        let _ = context_report::comment::claimed_agent(block);
        if let Ok(report) = parse_report(block) {
            reports.push(report);
        }
    }
    let now = chrono::DateTime::parse_from_rfc3339("2026-05-01T12:00:00Z")
        .unwrap()
        .to_utc();
    for report in reports {
        let issue = IssueFacts {
            number: 7,
            title: "PBI-7 login".into(),
            labels: vec!["project:web".into()],
            repository: "o/r".into(),
        };
        let candidates = [
            Candidate {
                agent_id: report.agent_id.clone(),
                report: Some(report.clone()),
                comment_url: String::new(),
                problem: None,
            },
            Candidate {
                agent_id: "other".into(),
                report: None,
                comment_url: String::new(),
                problem: Some("none".into()),
            },
        ];
        let _ = rank(&candidates, &issue, now);
        let stamped = report.clone().stamped("2026-05-01T12:00:00Z");
        if let Ok(body) = context_report::render(&stamped) {
            let block = context_report::comment::last_block(&body)
                .unwrap_or_else(|| panic!("a rendered report has no block\n{body}"));
            let again = parse_report(block)
                .unwrap_or_else(|e| panic!("a rendered report does not read back: {e}\n{body}"));
            assert_eq!(again.agent_id, stamped.agent_id);
            assert_eq!(again.task_ids, stamped.task_ids);
            assert_eq!(again.total_tokens, stamped.total_tokens);
        }
    }
}

/// The ledger comment's machine block (the Context Object between runs). A stored
/// object is verified, rendered to fit a comment, and read back.
pub fn ledger_block(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let _ = stored::is_ledger(text);
    let Ok(stored) = stored::parse(text) else {
        return;
    };
    let _ = stored.verify(None);
    let _ = stored.verify(Some(b"fuzz-key"));
    let _ = stored.last_hash();
    let _ = stored.file_context();
    let (kept, body) = stored::render_fitting(stored, &Links::default());
    let again = stored::parse(&body)
        .unwrap_or_else(|e| panic!("a rendered ledger comment does not read back: {e}"));
    assert_eq!(again, kept, "render then parse changed the stored object");
    let mut context = kept.context;
    council_protocol::audit::derive::derive(&mut context);
}

/// `council verify`'s input: one audit file streamed, the same as a parsed document,
/// and, split at form feeds, several files proven together (`--with`).
pub fn verify(data: &[u8]) {
    let streamed = verify_reader(Cursor::new(data), None);
    let _ = verify_reader(Cursor::new(data), Some(b"fuzz-key"));
    if let Ok(doc) = serde_json::from_slice::<serde_json::Value>(data) {
        let whole = verify_document(&doc, None);
        // A document the streaming verifier accepts is accepted whole as well.
        if streamed.is_ok() && data.len() < 1 << 16 {
            assert!(
                whole.is_ok(),
                "streamed ok, whole document refused: {whole:?}"
            );
        }
    }
    let files: Vec<_> = data
        .split(|b| *b == 0x0c)
        .take(4)
        .filter_map(|part| verify_reader(Cursor::new(part), None).ok())
        .collect();
    if let Ok(proof) = prove(&files) {
        let _ = proof.unproven_file();
        let _ = proof.earlier_entries();
    }
}

/// A pull request file's patch, as the review's diff and secret scan read it.
pub fn patch(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut last = 0;
    for line in added_lines(text) {
        assert!(line.line >= 1, "line numbers start at 1");
        let _ = find_secrets(line.text);
        last = line.line;
    }
    let _ = last;
    for found in find_secrets(text) {
        let _ = found;
    }
}

/// A commit message's trailers by git's rule. Each is well formed, and written back as a
/// last paragraph they read the same; the default policy then classifies a pull request
/// of that commit, and its message renders.
pub fn trailers(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let block = commit_trailers::parse(text);
    assert!(
        block.trailers.len() <= MAX_TRAILERS,
        "more trailers than the limit"
    );
    let mut written = String::from("Title\n\n");
    for t in &block.trailers {
        assert!(
            !t.key.is_empty()
                && t.key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "a key git would not read: {:?}",
            t.key
        );
        assert!(
            !t.value.contains('\n'),
            "a value left folded: {:?}",
            t.value
        );
        written.push_str(&format!("{}: {}\n", t.key, t.value));
    }
    if !block.trailers.is_empty() {
        let again = commit_trailers::parse(&written);
        assert_eq!(
            again.trailers, block.trailers,
            "written back, read otherwise\n{written}"
        );
    }
    let policy = Policy::default_policy();
    let commits = [CommitMessage {
        sha: "f".repeat(40),
        message: text.to_string(),
    }];
    let actor = classify(
        &policy.actors.agents,
        &ActorFacts {
            author: Some("alice"),
            head: "feature/x",
            labels: Some(&[]),
            commits: Some(Commits {
                listed: &commits,
                total: 300,
            }),
        },
    );
    let _ = actor.message().plain();
    let _ = actor.message().markdown();
}
