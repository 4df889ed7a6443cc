//! The workflow event, parsed once at the edge into the facts the stages need (pure).
//!
//! Payloads are read as JSON trees and fields are taken by path, so that a missing or
//! mistyped field is reported by its full name (`pull_request.head.ref`), not by a serde
//! position.

use serde_json::Value;

use crate::error::Error;

/// The pull request facts every PR stage needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub author: String,
    pub head_ref: String,
    pub head_sha: String,
    /// `None` when the fork behind the PR was deleted.
    pub head_repo: Option<String>,
    pub base_ref: String,
    pub base_sha: String,
    pub base_repo: String,
    pub state: String,
    pub draft: bool,
    pub labels: Vec<String>,
    pub html_url: String,
    /// Totals GitHub computed over the whole diff (a list of its files may stop short).
    pub changed_files: Option<u64>,
    pub additions: Option<u64>,
    pub deletions: Option<u64>,
}

impl PullRequest {
    /// A pull request as the REST API returns it (`GET /pulls/{n}`, `GET
    /// /commits/{sha}/pulls`): the same fields as an event's `pull_request`. A field
    /// missing from GitHub's answer is reported naming `what` was read.
    pub fn from_api(value: &Value, what: &str) -> Result<PullRequest, Error> {
        let f = Fields {
            source: what,
            name: what,
            root: "pull_request",
        };
        let parsed = match value.is_object() {
            true => f.pull_request(value),
            false => Err(f.missing("pull_request", "an object")),
        };
        // GitHub's answer, not the user's input: an API failure (exit 3), not bad input.
        parsed.map_err(|e| match e {
            Error::Event { message, .. } => {
                let field = message.split(" (event").next().unwrap_or(&message);
                Error::Api(format!("{what}: unexpected answer: {field}"))
            }
            other => other,
        })
    }

    /// A PR from another repository: on `pull_request` its token is read-only.
    pub fn is_from_fork(&self) -> bool {
        self.head_repo.as_deref() != Some(self.base_repo.as_str())
    }
}

/// An issue comment, for the `<agent-state>` stages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueComment {
    pub issue_number: u64,
    pub issue_author: String,
    pub comment_id: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `GITHUB_EVENT_NAME`, e.g. `pull_request`.
    pub name: String,
    /// `action` of the payload, when the event has one.
    pub action: Option<String>,
    /// `repository.full_name`, when present.
    pub repository: Option<String>,
    pub payload: Value,
    /// Where the payload came from, for error messages.
    pub source: String,
}

impl Event {
    /// Parses a payload. Only the envelope is checked here; each stage asks for its fields.
    pub fn parse(name: &str, text: &str, source: &str) -> Result<Event, Error> {
        let bad = |message: String| Error::Event {
            path: source.to_string(),
            message,
        };
        if name.trim().is_empty() {
            return Err(bad(
                "the event name is empty (set GITHUB_EVENT_NAME or --event-name)".into(),
            ));
        }
        let payload: Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
        if !payload.is_object() {
            return Err(bad("the payload is not a JSON object".into()));
        }
        let action = match payload.get("action") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(bad("field `action` is not a string".into())),
        };
        if let Some(key) = required_key(name)
            .iter()
            .find(|k| !payload[**k].is_object())
        {
            return Err(bad(format!(
                "`{name}` payloads have an object `{key}`; this one does not. Does \
                 GITHUB_EVENT_NAME (or --event-name) name the event in the file?"
            )));
        }
        let repository = payload
            .pointer("/repository/full_name")
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(Event {
            name: name.to_string(),
            action,
            repository,
            payload,
            source: source.to_string(),
        })
    }

    /// `webhook:<name>.<action>` or `webhook:<name>` (the Context Object's `trigger`);
    /// `cli:<command>` for a run started by hand without an event.
    pub fn trigger(&self) -> String {
        if self.is_cli() {
            return format!("cli:{}", self.action.as_deref().unwrap_or(""));
        }
        match &self.action {
            Some(action) => format!("webhook:{}.{action}", self.name),
            None => format!("webhook:{}", self.name),
        }
    }

    pub fn is_pull_request_event(&self) -> bool {
        matches!(self.name.as_str(), "pull_request" | "pull_request_target")
    }

    /// The `pull_request` object of the payload, with every field a stage relies on.
    pub fn pull_request(&self) -> Result<PullRequest, Error> {
        let f = Fields {
            source: &self.source,
            name: &self.name,
            root: "pull_request",
        };
        let pr = self
            .payload
            .get("pull_request")
            .filter(|v| v.is_object())
            .ok_or_else(|| f.missing("pull_request", "an object"))?;
        f.pull_request(pr)
    }

    /// A string field of the payload by dotted path (`check_suite.head_sha`); a missing
    /// one is bad input naming the field.
    pub fn str_field(&self, path: &str) -> Result<String, Error> {
        self.fields().str(&self.payload, path)
    }

    /// `council release --pr N` without an event file: a run started by hand, whose
    /// Context Object records `trigger: "cli:<command>"`.
    pub fn cli(command: &str) -> Event {
        Event {
            name: CLI_EVENT.to_string(),
            action: Some(command.to_string()),
            repository: None,
            payload: Value::Object(serde_json::Map::new()),
            source: "the command line".to_string(),
        }
    }

    pub fn is_cli(&self) -> bool {
        self.name == CLI_EVENT
    }

    fn fields(&self) -> Fields<'_> {
        Fields {
            source: &self.source,
            name: &self.name,
            root: "",
        }
    }

    /// The issue and comment of an `issue_comment` event.
    pub fn issue_comment(&self) -> Result<IssueComment, Error> {
        let f = self.fields();
        let p = &self.payload;
        Ok(IssueComment {
            issue_number: f.u64(p, "issue.number")?,
            issue_author: f.str(p, "issue.user.login")?,
            comment_id: f.u64(p, "comment.id")?,
        })
    }

    /// `issue.number` of an `issues` or `issue_comment` event (`None`: no `issue` object).
    pub fn issue_number(&self) -> Result<Option<u64>, Error> {
        if self.payload.get("issue").is_none_or(Value::is_null) {
            return Ok(None);
        }
        self.fields().u64(&self.payload, "issue.number").map(Some)
    }

    /// `changes.base.ref.from` of an `edited` event: the PR was retargeted.
    pub fn previous_base(&self) -> Option<String> {
        self.payload
            .pointer("/changes/base/ref/from")
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// The payload's `repository.id`, when the payload is about `owner/name`.
    pub fn repository_id(&self, full_name: &str) -> Option<u64> {
        let repository = &self.payload["repository"];
        let name = repository["full_name"].as_str()?;
        name.eq_ignore_ascii_case(full_name)
            .then(|| repository["id"].as_u64())
            .flatten()
    }

    /// A `workflow_run` whose run belongs to another repository's code (a fork's pull
    /// request): its head commit and branch are whatever the fork chose, so it may not
    /// set off anything about this repository's own commits. A run whose head repository
    /// is not named counts as a fork's.
    pub fn run_is_from_fork(&self) -> bool {
        let run = &self.payload["workflow_run"];
        fn ids(repo: &Value) -> (Option<u64>, Option<&str>) {
            (repo["id"].as_u64(), repo["full_name"].as_str())
        }
        let (head_id, head_name) = ids(&run["head_repository"]);
        let base = match run.get("repository") {
            Some(repo) if repo.is_object() => repo,
            _ => &self.payload["repository"],
        };
        let (base_id, base_name) = ids(base);
        let same_id = head_id.is_some() && head_id == base_id;
        let same_name = head_name.is_some()
            && head_name.map(str::to_ascii_lowercase) == base_name.map(str::to_ascii_lowercase);
        !(same_id || same_name)
    }
}

/// The name of the event a CLI run without an event file makes up (never a webhook's).
const CLI_EVENT: &str = "cli";

/// The object every payload of a known event carries: a missing one means the event name
/// and the file disagree.
fn required_key(name: &str) -> &'static [&'static str] {
    match name {
        "pull_request" | "pull_request_target" => &["pull_request"],
        "pull_request_review" => &["pull_request", "review"],
        "issue_comment" => &["issue", "comment"],
        "issues" => &["issue"],
        "check_suite" => &["check_suite"],
        "workflow_run" => &["workflow_run"],
        _ => &[],
    }
}

/// Every event name GitHub Actions sets in `GITHUB_EVENT_NAME` (a workflow's `on:` keys,
/// and `dynamic` for GitHub's own workflows): a name outside it can only be a typo.
pub const GITHUB_EVENT_NAMES: &[&str] = &[
    "branch_protection_rule",
    "check_run",
    "check_suite",
    "create",
    "delete",
    "deployment",
    "deployment_status",
    "discussion",
    "discussion_comment",
    "dynamic",
    "fork",
    "gollum",
    "issue_comment",
    "issues",
    "label",
    "merge_group",
    "milestone",
    "page_build",
    "project",
    "project_card",
    "project_column",
    "public",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_target",
    "push",
    "registry_package",
    "release",
    "repository_dispatch",
    "schedule",
    "status",
    "watch",
    "workflow_call",
    "workflow_dispatch",
    "workflow_run",
];

/// A typed event name that is not one GitHub sets: why, and the closest name GitHub
/// does set (case, `-` or ` ` for `_` and an action after a `.` ignored, else at most
/// two edits away).
/// `None` for a real name.
pub fn unknown_event_name(name: &str) -> Option<String> {
    if GITHUB_EVENT_NAMES.contains(&name) {
        return None;
    }
    // `pull_request.opened`: the action is the payload's, the name is before the dot.
    let bare = name.trim().split('.').next().unwrap_or_default();
    let normal: String = bare
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    let closest = GITHUB_EVENT_NAMES
        .iter()
        .map(|known| (edit_distance(&normal, known), *known))
        .min()
        .filter(|(distance, _)| *distance <= 2);
    Some(match closest {
        Some((_, known)) => {
            format!("`{name}` is not a GitHub event name; did you mean `{known}`?")
        }
        None => format!(
            "`{name}` is not a GitHub event name (council acts on pull_request, \
             pull_request_target, pull_request_review, check_suite, workflow_run, status, \
             push, issue_comment, issues and workflow_dispatch)"
        ),
    })
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The real `pull_request.opened` payload's PR (head `changes` → `master`), for tests.
#[cfg(test)]
pub(crate) fn sample_pull_request() -> PullRequest {
    let text = include_str!("../../../tests/data/events/pull_request.opened.json");
    Event::parse("pull_request", text, "pull_request.opened.json")
        .and_then(|e| e.pull_request())
        .expect("the bundled payload parses")
}

/// Field access by dotted path, with errors that name the full path.
struct Fields<'a> {
    /// Where the JSON came from (the event file, or the API call), for messages.
    source: &'a str,
    /// The event name, or what was read (`GET /pulls/7`).
    name: &'a str,
    root: &'a str,
}

impl Fields<'_> {
    fn name(&self, path: &str) -> String {
        if self.root.is_empty() || path == self.root {
            path.to_string()
        } else {
            format!("{}.{path}", self.root)
        }
    }

    fn missing(&self, path: &str, expected: &str) -> Error {
        Error::Event {
            path: self.source.to_string(),
            message: format!(
                "field `{}` is missing or not {expected} (event `{}`); is this the event the step was written for?",
                self.name(path),
                self.name
            ),
        }
    }

    /// A pull request object: an event's `pull_request`, or the API's answer.
    fn pull_request(&self, pr: &Value) -> Result<PullRequest, Error> {
        let f = self;
        Ok(PullRequest {
            number: f.u64(pr, "number")?,
            title: f.opt_str(pr, "title")?.unwrap_or_default(),
            body: f.opt_str(pr, "body")?.unwrap_or_default(),
            author: f.str(pr, "user.login")?,
            head_ref: f.str(pr, "head.ref")?,
            head_sha: f.str(pr, "head.sha")?,
            head_repo: f.opt_str(pr, "head.repo.full_name")?,
            base_ref: f.str(pr, "base.ref")?,
            base_sha: f.str(pr, "base.sha")?,
            base_repo: f.str(pr, "base.repo.full_name")?,
            state: f.opt_str(pr, "state")?.unwrap_or_else(|| "open".into()),
            draft: pr
                .pointer("/draft")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            labels: f.labels(pr)?,
            html_url: f.opt_str(pr, "html_url")?.unwrap_or_default(),
            changed_files: pr.get("changed_files").and_then(Value::as_u64),
            additions: pr.get("additions").and_then(Value::as_u64),
            deletions: pr.get("deletions").and_then(Value::as_u64),
        })
    }

    fn get<'v>(&self, v: &'v Value, path: &str) -> Option<&'v Value> {
        let pointer = format!("/{}", path.replace('.', "/"));
        v.pointer(&pointer).filter(|v| !v.is_null())
    }

    fn str(&self, v: &Value, path: &str) -> Result<String, Error> {
        match self.get(v, path) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(self.missing(path, "a non-empty string")),
        }
    }

    fn opt_str(&self, v: &Value, path: &str) -> Result<Option<String>, Error> {
        match self.get(v, path) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.missing(path, "a string")),
        }
    }

    fn u64(&self, v: &Value, path: &str) -> Result<u64, Error> {
        self.get(v, path)
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
            .ok_or_else(|| self.missing(path, "a positive integer"))
    }

    fn labels(&self, pr: &Value) -> Result<Vec<String>, Error> {
        match self.get(pr, "labels") {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|l| {
                    self.str(l, "name")
                        .map_err(|_| self.missing("labels[].name", "a string"))
                })
                .collect(),
            Some(_) => Err(self.missing("labels", "an array")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::disallowed_methods)] // a test reads its fixture
    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/../../tests/data/events/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn a_workflow_run_of_a_fork_is_told_apart() {
        let text = fixture("workflow_run.completed");
        let own = Event::parse("workflow_run", &text, "event.json").unwrap();
        assert!(!own.run_is_from_fork());
        let mut payload: Value = serde_json::from_str(&text).unwrap();
        payload["workflow_run"]["head_repository"]["id"] = 1.into();
        payload["workflow_run"]["head_repository"]["full_name"] = "fork/Hello-World".into();
        let fork = Event::parse("workflow_run", &payload.to_string(), "event.json").unwrap();
        assert!(fork.run_is_from_fork());
        payload["workflow_run"]["head_repository"] = Value::Null;
        let unnamed = Event::parse("workflow_run", &payload.to_string(), "event.json").unwrap();
        assert!(unnamed.run_is_from_fork());
    }

    #[test]
    fn a_mistyped_event_name_gets_the_closest_real_one() {
        assert_eq!(unknown_event_name("pull_request"), None);
        assert_eq!(unknown_event_name("dynamic"), None);
        for (typed, meant) in [
            ("pull-request", "pull_request"),
            ("Pull_Request", "pull_request"),
            ("pullrequest", "pull_request"),
            ("pull_request.opened", "pull_request"),
            ("issue", "issues"),
            ("issue-comment", "issue_comment"),
            ("workflow-run", "workflow_run"),
        ] {
            assert_eq!(
                unknown_event_name(typed).as_deref(),
                Some(
                    format!("`{typed}` is not a GitHub event name; did you mean `{meant}`?")
                        .as_str()
                ),
            );
        }
        let far = unknown_event_name("deploy everything").unwrap();
        assert!(
            far.starts_with(
                "`deploy everything` is not a GitHub event name (council acts on pull_request,"
            ),
            "{far}"
        );
    }

    #[test]
    fn a_payload_without_its_events_object_says_which_one_with_a_right_article() {
        let e = Event::parse("issues", &fixture("pull_request.opened"), "e.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "event e.json: `issues` payloads have an object `issue`; this one does not. Does \
             GITHUB_EVENT_NAME (or --event-name) name the event in the file?"
        );
    }

    #[test]
    fn real_pull_request_payload() {
        let e = Event::parse(
            "pull_request",
            &fixture("pull_request.opened"),
            "event.json",
        )
        .unwrap();
        assert_eq!(e.trigger(), "webhook:pull_request.opened");
        let pr = e.pull_request().unwrap();
        assert_eq!(pr.number, 2);
        assert_eq!(pr.head_ref, "changes");
        assert_eq!(pr.base_ref, "master");
        assert_eq!(pr.author, "Codertocat");
        assert!(!pr.is_from_fork());
        assert_eq!(e.repository.as_deref(), Some("Codertocat/Hello-World"));
    }

    #[test]
    fn events_without_action() {
        let e = Event::parse("push", &fixture("push"), "push.json").unwrap();
        assert_eq!(e.trigger(), "webhook:push");
    }

    #[test]
    fn retargeted_pr_reports_its_previous_base() {
        let e = Event::parse("pull_request", &fixture("pull_request.edited"), "e").unwrap();
        assert_eq!(e.previous_base().as_deref(), Some("develop"));
    }

    #[test]
    fn malformed_payloads_are_bad_input() {
        for (text, expected) in [
            ("", "not valid JSON"),
            ("{\"action\": \"opened\"", "not valid JSON"),
            ("[1,2]", "not a JSON object"),
            (
                "{\"action\": 7, \"pull_request\": {}}",
                "`action` is not a string",
            ),
        ] {
            let err = Event::parse("pull_request", text, "e.json").unwrap_err();
            assert_eq!(err.kind(), crate::error::Kind::BadInput);
            assert!(err.to_string().contains(expected), "{err}");
        }
    }

    #[test]
    fn missing_fields_are_named() {
        let mut v: Value = serde_json::from_str(&fixture("pull_request.opened")).unwrap();
        v["pull_request"]["head"]
            .as_object_mut()
            .unwrap()
            .remove("ref");
        let e = Event::parse("pull_request", &v.to_string(), "e.json").unwrap();
        let err = e.pull_request().unwrap_err();
        assert!(err.to_string().contains("`pull_request.head.ref`"), "{err}");

        let err =
            Event::parse("pull_request", &fixture("issue_comment.created"), "e.json").unwrap_err();
        assert!(err.to_string().contains("`pull_request`"), "{err}");

        let mut v: Value = serde_json::from_str(&fixture("pull_request.opened")).unwrap();
        v["pull_request"]["number"] = Value::String("2".into());
        let e = Event::parse("pull_request", &v.to_string(), "e.json").unwrap();
        assert!(
            e.pull_request()
                .unwrap_err()
                .to_string()
                .contains("`pull_request.number`")
        );
    }

    #[test]
    fn deleted_fork_has_no_head_repo() {
        let mut v: Value = serde_json::from_str(&fixture("pull_request.opened")).unwrap();
        v["pull_request"]["head"]["repo"] = Value::Null;
        let pr = Event::parse("pull_request", &v.to_string(), "e")
            .unwrap()
            .pull_request()
            .unwrap();
        assert_eq!(pr.head_repo, None);
        assert!(pr.is_from_fork());
    }
}
