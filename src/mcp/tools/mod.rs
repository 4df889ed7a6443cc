//! The tools: names, descriptions, input schemas (derived from the argument types),
//! annotations, and each tool's adapter over the library.

mod branch;
mod ledger;
mod reports;
mod state;

use rmcp::model::ToolAnnotations;
#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::settings::Settings;
use council_protocol::error::{Error, Result};

/// Every tool, in the order they are listed.
pub const NAMES: [&str; 7] = [
    "report_context",
    "check_branch",
    "get_agent_state",
    "put_agent_state",
    "assign",
    "verify_ledger",
    "pr_status",
];

/// One tool as listed.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// Writes nothing, ever (`readOnlyHint`).
    pub read_only: bool,
    /// May replace or remove something (`destructiveHint`; meaningful for writers).
    pub destructive: bool,
    /// Calling it twice with the same arguments changes nothing more (`idempotentHint`).
    pub idempotent: bool,
    /// The arguments' JSON Schema, as committed: deriving it at run time would put
    /// schemars' generator in the binary (a test holds the file to the argument type).
    pub schema: &'static str,
}

impl ToolDef {
    pub fn input_schema(&self) -> Map<String, Value> {
        serde_json::from_str(self.schema).unwrap_or_default()
    }

    pub fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title(self.title)
            .read_only(self.read_only)
            .destructive(!self.read_only && self.destructive)
            .idempotent(self.idempotent)
            .open_world(true)
    }
}

/// The tool set, all of it (the listed order is [`NAMES`]).
pub fn all() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "report_context",
            title: "Report your context window",
            description: "Report what your context window holds (the Agent Context Report \
                protocol): agentId, contextWindow {totalTokens, availableTokens}, loadedProjects, \
                loadedTasks, capabilities {canStartImmediately, needsContextLoad}; the full \
                {contextReport: {...}} shape is accepted too. Validated like `council report`, \
                then posted on the registry issue (your one report comment, edited in place). \
                Answers {success, message, optimization: {tasksSuitedForYou, tasksRequiringLoad}} \
                and the report's freshness (HOT < 30 min, WARM < 2 h, COLD).",
            read_only: false,
            destructive: false,
            idempotent: true,
            schema: include_str!("../schemas/report_context.json"),
        },
        ToolDef {
            name: "check_branch",
            title: "Would the guard pass this branch?",
            description: "Before pushing: would a pull request from `branch` to `target` pass \
                council's guard (branch naming, target policy)? Reads the policy at the target \
                branch through the API (or the local `policy` file given), the default policy \
                when there is none. Returns each gate's verdict and, on failure, the exact \
                remedy (commands to copy). Writes nothing.",
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: include_str!("../schemas/check_branch.json"),
        },
        ToolDef {
            name: "get_agent_state",
            title: "Read an issue's agent state",
            description: "The latest trusted <agent-state> of an issue (intent, step, progress, \
                memory, next_action, and the v2.1 agent, plan, input_request and metrics), with \
                the comment it came from and warnings about skipped blocks. Untrusted authors' \
                blocks are ignored. Writes nothing.",
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: include_str!("../schemas/get_agent_state.json"),
        },
        ToolDef {
            name: "put_agent_state",
            title: "Write your handoff state",
            description: "Post a new <agent-state> comment on an issue: the given fields on top \
                of the latest trusted state. progress is 0-100 or \"auto\" (from the issue's task \
                list); memory is any JSON value (compacted to fit a comment). A field that looks \
                like a secret is refused and nothing is posted.",
            read_only: false,
            destructive: false,
            idempotent: true,
            schema: include_str!("../schemas/put_agent_state.json"),
        },
        ToolDef {
            name: "assign",
            title: "Rank agents for an issue",
            description: "Rank the agents that reported their context on the registry issue for \
                an issue, with the reasons of each score and each report's freshness. With \
                apply: true, labels the issue agent:<id> (replacing an earlier agent:* label); \
                otherwise writes nothing.",
            read_only: false,
            destructive: true,
            idempotent: true,
            schema: include_str!("../schemas/assign.json"),
        },
        ToolDef {
            name: "verify_ledger",
            title: "Verify a Context Object",
            description: "Verify the hash chain (and with the server's HMAC key, the signatures) \
                of a pull request's Context Object, read from its ledger comment (`pr`), or of \
                an audit file (`file`, with earlier files in `with`). Tampering is a result \
                ({verified: false, problem}), not an error. Writes nothing.",
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: include_str!("../schemas/verify_ledger.json"),
        },
        ToolDef {
            name: "pr_status",
            title: "A pull request's council status",
            description: "A pull request's guard, review and release statuses and gates, derived \
                from its verified Context Object's timeline, and the last entries of that \
                timeline. Writes nothing.",
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: include_str!("../schemas/pr_status.json"),
        },
    ]
}

/// The tools `--read-only` and `--tools` leave; an unknown name is a usage error.
pub fn select(read_only: bool, names: &[String]) -> Result<Vec<ToolDef>> {
    let names: Vec<&str> = names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .collect();
    if let Some(unknown) = names.iter().find(|n| !NAMES.contains(n)) {
        return Err(Error::Usage(format!(
            "--tools: `{unknown}` is not a tool; the tools are {}",
            NAMES.join(", ")
        )));
    }
    Ok(all()
        .into_iter()
        .filter(|t| names.is_empty() || names.contains(&t.name))
        .filter(|t| !read_only || t.read_only)
        .collect())
}

/// A JSON Schema (draft 2020-12) for a tool's arguments, inlined (no `$defs`: some
/// clients do not resolve references) and without schemars' `$schema`/`title` noise.
#[cfg(test)]
fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.remove("title");
    map.remove("description");
    map
}

/// The arguments as `T`; a bad one names its field (`memory`, `contextWindow.totalTokens`).
pub fn decode<T: DeserializeOwned>(args: &Map<String, Value>) -> Result<T> {
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

/// Runs a tool; `Ok` is its JSON answer, `Err` the message of an `isError` result.
pub async fn call(settings: &Settings, name: &str, args: &Map<String, Value>) -> Result<Value> {
    match name {
        "report_context" => reports::report_context(settings, args).await,
        "check_branch" => branch::check_branch(settings, args).await,
        "get_agent_state" => state::get(settings, args).await,
        "put_agent_state" => state::put(settings, args).await,
        "assign" => reports::assign(settings, args).await,
        "verify_ledger" => ledger::verify(settings, args).await,
        "pr_status" => ledger::pr_status(settings, args).await,
        other => Err(Error::Usage(format!("unknown tool `{other}`"))),
    }
}

/// The repository the server acts on.
pub fn repo(settings: &Settings) -> Result<council_github::RepoName> {
    let full = settings.repo.clone().ok_or_else(|| {
        Error::Usage(
            "no repository: start the server with --repo owner/name, or in a git checkout whose \
             origin is on GitHub"
                .to_string(),
        )
    })?;
    council_github::RepoName::parse(&full)
        .ok_or_else(|| Error::Usage(format!("`{full}` is not an owner/name repository")))
}

/// A client for the server's token (dry run: writes refused by the client itself).
pub fn client(settings: &Settings, why: &str) -> Result<council_github::GitHub> {
    let repo = repo(settings)?;
    crate::app::github_client(settings, &repo, settings.token.as_ref())?
        .ok_or_else(|| Error::no_token(why))
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    /// The committed schemas are what the argument types say (change one, regenerate:
    /// `COUNCIL_UPDATE_SCHEMAS=1 cargo test --lib mcp`).
    #[test]
    fn committed_schemas_match_the_argument_types() {
        let derived: [(&str, Map<String, Value>); 7] = [
            ("report_context", schema_of::<reports::ReportContextArgs>()),
            ("check_branch", schema_of::<branch::CheckBranchArgs>()),
            ("get_agent_state", schema_of::<state::GetStateArgs>()),
            ("put_agent_state", schema_of::<state::PutStateArgs>()),
            ("assign", schema_of::<reports::AssignArgs>()),
            ("verify_ledger", schema_of::<ledger::VerifyArgs>()),
            ("pr_status", schema_of::<ledger::PrStatusArgs>()),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/mcp/schemas");
        for (name, schema) in derived {
            let tool = all().into_iter().find(|t| t.name == name).unwrap();
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
}
