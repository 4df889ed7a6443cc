//! Every tool in one table: its name, what it says, whether and how it writes, the type
//! its arguments decode into (whose JSON Schema it lists) and its handler, as
//! github-mcp-server's toolsets keep them. `--read-only` and `--tools` select from this
//! table; nothing else lists the tools.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::ToolAnnotations;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::context::ToolContext;
use super::tools::{branch, ledger, queue, registry, state};
use council_protocol::error::{Error, Result};

/// What a tool does to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// Nothing, ever (`readOnlyHint`): served under `--read-only`.
    Read,
    /// Adds or edits (`destructiveHint: false`).
    Write,
    /// May replace or remove something (`destructiveHint: true`).
    Destructive,
}

type Answer<'a> = Pin<Box<dyn Future<Output = Result<Value>> + Send + 'a>>;

/// One tool as listed and called.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub writes: Writes,
    /// Calling it twice with the same arguments changes nothing more (`idempotentHint`).
    pub idempotent: bool,
    /// The arguments' JSON Schema, as committed (`src/mcp/schemas/<name>.json`):
    /// deriving it at run time would put schemars' generator in the binary; a test holds
    /// the file to the argument type.
    pub schema: &'static str,
    /// Decodes the arguments (a bad one names its field, before any request) and runs.
    pub call: for<'a> fn(&'a ToolContext, &'a Map<String, Value>) -> Answer<'a>,
}

impl Tool {
    pub fn read_only(&self) -> bool {
        self.writes == Writes::Read
    }

    pub fn input_schema(&self) -> Map<String, Value> {
        serde_json::from_str(self.schema).unwrap_or_default()
    }

    pub fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title(self.title)
            .read_only(self.read_only())
            .destructive(self.writes == Writes::Destructive)
            .idempotent(self.idempotent)
            .open_world(true)
    }
}

/// Declares the table: each tool once, with its argument type and handler.
macro_rules! tools {
    (@schema $args:ty) => { $args };
    (@schema $args:ty, $schema:ty) => { $schema };
    (@table $($name:ident {
        title: $title:literal,
        description: $description:expr,
        writes: $writes:ident,
        idempotent: $idempotent:literal,
        args: $args:ty,
        $(schema: $schema:ty,)?
        call: $call:path,
    },)*) => {
        /// Every tool, in the order they are listed.
        pub static TOOLS: &[Tool] = &[$(Tool {
            name: stringify!($name),
            title: $title,
            description: $description,
            writes: Writes::$writes,
            idempotent: $idempotent,
            schema: include_str!(concat!("schemas/", stringify!($name), ".json")),
            call: |ctx, args| Box::pin(async move {
                let args: $args = decode(args)?;
                $call(ctx, args).await
            }),
        }),*];

        /// Each tool's schema as its argument type derives it.
        #[cfg(test)]
        pub(crate) fn derived_schemas() -> Vec<(&'static str, Map<String, Value>)> {
            vec![$((stringify!($name), schema_of::<tools!(@schema $args $(, $schema)?)>())),*]
        }
    };
}

tools! {
    @table
    report_context {
        title: "Report your context window",
        description: "Report what your context window holds (the Agent Context Report \
                protocol): agentId, contextWindow {totalTokens, availableTokens}, loadedProjects, \
                loadedTasks, capabilities {canStartImmediately, needsContextLoad}; the full \
                {contextReport: {...}} shape is accepted too. Validated like `council report`, \
                then posted on the registry issue (your one report comment, edited in place). \
                Answers {success, message, optimization: {tasksSuitedForYou, tasksRequiringLoad}} \
                and the report's freshness (HOT < 30 min, WARM < 2 h, COLD).",
        writes: Write,
        idempotent: true,
        args: registry::ReportContextInput,
        schema: registry::ReportContextArgs,
        call: registry::report_context,
    },
    check_branch {
        title: "Would the guard pass this branch?",
        description: "Before pushing: would a pull request from `branch` to `target` pass \
                council's guard (branch naming, target policy)? Reads the policy at the target \
                branch through the API (or the local `policy` file given), the default policy \
                when there is none. Returns each gate's verdict and, on failure, the exact \
                remedy (commands to copy); and `actor`: whether the branch (and `author`, your \
                login, when given) makes the pull request an agent's, and if so what it must \
                expect (paths it may not change, a smaller diff, a person's approval of its \
                head before it merges). Writes nothing.",
        writes: Read,
        idempotent: true,
        args: branch::CheckBranchArgs,
        call: branch::check_branch,
    },
    get_agent_state {
        title: "Read an issue's agent state",
        description: "The latest trusted <agent-state> of an issue (intent, step, progress, \
                memory, next_action, and the v2.1 agent, plan, input_request and metrics), with \
                the comment it came from and warnings about skipped blocks. Untrusted authors' \
                blocks are ignored. Writes nothing.",
        writes: Read,
        idempotent: true,
        args: state::GetStateArgs,
        call: state::get,
    },
    put_agent_state {
        title: "Write your handoff state",
        description: "Post a new <agent-state> comment on an issue: the given fields on top \
                of the latest trusted state. progress is 0-100 or \"auto\" (from the issue's task \
                list); memory is any JSON value (compacted to fit a comment). A field that looks \
                like a secret is refused and nothing is posted.",
        writes: Write,
        idempotent: true,
        args: state::PutStateArgs,
        call: state::put,
    },
    assign {
        title: "Rank agents for an issue",
        description: "Rank the agents that reported their context on the registry issue for \
                an issue, with the reasons of each score and each report's freshness. With \
                apply: true, labels the issue agent:<id> (replacing an earlier agent:* label); \
                otherwise writes nothing.",
        writes: Destructive,
        idempotent: true,
        args: registry::AssignArgs,
        call: registry::assign,
    },
    verify_ledger {
        title: "Verify a Context Object",
        description: "Verify the hash chain (and with the server's HMAC key, the signatures) \
                of a pull request's Context Object, read from its ledger comment (`pr`), or of \
                an audit file (`file`, with earlier files in `with`). Tampering is a result \
                ({verified: false, problem}), not an error. Writes nothing.",
        writes: Read,
        idempotent: true,
        args: ledger::VerifyArgs,
        call: ledger::verify,
    },
    pr_status {
        title: "A pull request's council status",
        description: "A pull request's guard, review and release statuses and gates, derived \
                from its verified Context Object's timeline, the last entries of that \
                timeline, and its place in its base's merge queue (`queue`: position, of, \
                testing; null when it is not in line). Writes nothing.",
        writes: Read,
        idempotent: true,
        args: ledger::PrStatusArgs,
        call: ledger::pr_status,
    },
    queue_status {
        title: "A base's merge queue",
        description: "The merge queue of a base branch, as GitHub says it is now: the pull \
                requests in line, in order (priority label, then when they were queued, then \
                number), and the queue commit being tested (the pull requests it holds, the \
                base commit it was built on, its checks and the queue gate's verdict on them: \
                PENDING until at least one check reported, FAIL on a red check or the \
                timeout). Writes nothing.",
        writes: Read,
        idempotent: true,
        args: queue::QueueStatusArgs,
        call: queue::queue_status,
    },
}

/// The tools' names, in the order they are listed.
pub fn names() -> Vec<&'static str> {
    TOOLS.iter().map(|t| t.name).collect()
}

/// The tools `--read-only` and `--tools` leave; an unknown name is a usage error.
pub fn select(read_only: bool, names: &[String]) -> Result<Vec<&'static Tool>> {
    let names: Vec<&str> = names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .collect();
    if let Some(unknown) = names.iter().find(|n| !TOOLS.iter().any(|t| t.name == **n)) {
        return Err(Error::Usage(format!(
            "--tools: `{unknown}` is not a tool; the tools are {}",
            self::names().join(", ")
        )));
    }
    Ok(TOOLS
        .iter()
        .filter(|t| names.is_empty() || names.contains(&t.name))
        .filter(|t| !read_only || t.read_only())
        .collect())
}

/// The arguments as `T`; a bad one names its field (`memory`, `contextWindow.totalTokens`).
fn decode<T: DeserializeOwned>(args: &Map<String, Value>) -> Result<T> {
    let value = Value::Object(args.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            Error::Input(format!("arguments: {inner}"))
        } else {
            Error::Input(format!("argument `{path}`: {inner}"))
        }
    })
}

/// A JSON Schema (draft 2020-12) for a tool's arguments, inlined (no `$defs`: some
/// clients do not resolve references) and without schemars' `$schema`/`title` noise.
#[cfg(test)]
fn schema_of<T: rmcp::schemars::JsonSchema>() -> Map<String, Value> {
    let generator = rmcp::schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let schema = generator.into_generator().into_root_schema_for::<T>();
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.remove("title");
    map.remove("description");
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed schemas are what the argument types say (change one, regenerate:
    /// `COUNCIL_UPDATE_SCHEMAS=1 cargo test --lib mcp`).
    #[test]
    fn committed_schemas_match_the_argument_types() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/mcp/schemas");
        let derived = derived_schemas();
        assert_eq!(derived.len(), TOOLS.len());
        for (name, schema) in derived {
            let tool = TOOLS.iter().find(|t| t.name == name).unwrap();
            if std::env::var_os("COUNCIL_UPDATE_SCHEMAS").is_some() {
                let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
                std::fs::write(dir.join(format!("{name}.json")), text).unwrap();
                continue;
            }
            assert_eq!(
                tool.input_schema(),
                schema,
                "src/mcp/schemas/{name}.json differs from its argument type"
            );
        }
    }

    #[test]
    fn read_only_selects_the_tools_that_write_nothing() {
        let read: Vec<&str> = select(true, &[]).unwrap().iter().map(|t| t.name).collect();
        assert_eq!(
            read,
            [
                "check_branch",
                "get_agent_state",
                "verify_ledger",
                "pr_status",
                "queue_status"
            ]
        );
        assert!(select(false, &["nope".to_string()]).is_err());
    }
}
