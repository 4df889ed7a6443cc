//! The rmcp handler: lists the selected tools and the prompt, runs a tool call through
//! its handler in [`super::toolset::TOOLS`], and turns every failure into a tool result
//! with `isError` (the server keeps serving).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use super::context::ToolContext;
use super::toolset::Tool as ToolDef;
use council_protocol::error::{Error, Result};

/// The prompt that asks an agent to report its context on connecting.
const PROMPT: &str = "report_context";

#[derive(Clone)]
pub struct Server {
    context: Arc<ToolContext>,
    tools: Arc<Vec<&'static ToolDef>>,
}

pub async fn run(context: ToolContext, tools: Vec<&'static ToolDef>) -> Result<()> {
    let server = Server {
        context: Arc::new(context),
        tools: Arc::new(tools),
    };
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::Usage(format!("the MCP client did not initialize: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Usage(format!("the MCP server stopped: {e}")))?;
    Ok(())
}

impl Server {
    fn listed(&self) -> Vec<Tool> {
        self.tools
            .iter()
            .map(|t| {
                Tool::new(t.name, t.description, t.input_schema())
                    .with_title(t.title)
                    .with_annotations(t.annotations())
            })
            .collect()
    }

    fn has_report_tool(&self) -> bool {
        self.tools.iter().any(|t| t.name == "report_context")
    }
}

/// A tool's answer as the client sees it: the JSON, pretty, as text.
fn answer(value: &serde_json::Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn failure(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("council", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "agent-council: the guard, review and release gates of this repository's pull \
                 requests, agents' handoff state on issues and their context reports. Before \
                 pushing, call check_branch; on connecting, report your context with \
                 report_context.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.listed()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            let served: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
            return Ok(failure(format!(
                "no tool `{name}` on this server; it serves {}",
                served.join(", ")
            ))
            .into());
        };
        let args = request.arguments.unwrap_or_default();
        let result = match (tool.call)(&self.context, &args).await {
            Ok(value) => answer(&value),
            Err(e) => {
                eprintln!("council mcp: {name}: {}", super::message(&e));
                failure(super::message(&e))
            }
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListPromptsResult, ErrorData> {
        let prompts = if self.has_report_tool() {
            vec![Prompt::new(
                PROMPT,
                Some(
                    "Report what your context window holds, as the Agent Context Report \
                     protocol asks every agent on connecting",
                ),
                Some(vec![PromptArgument::new("agentId").with_description(
                    "Your agent id (default: ask the agent to choose one)",
                )]),
            )]
        } else {
            Vec::new()
        };
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<GetPromptResponse, ErrorData> {
        if request.name != PROMPT || !self.has_report_tool() {
            return Err(ErrorData::invalid_params(
                format!("no prompt `{}`; the prompt is `{PROMPT}`", request.name),
                None,
            ));
        }
        let agent = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("agentId"))
            .and_then(|v| v.as_str())
            .map(str::to_string);
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            prompt_text(agent.as_deref()),
        )])
        .with_description("Report your context window to the council")
        .into())
    }
}

fn prompt_text(agent: Option<&str>) -> String {
    let id = match agent {
        Some(id) => format!("Use the agent id `{id}`."),
        None => "Choose a stable agent id (letters, digits, `-`, `_`, `.`) and keep it for this \
                 session."
            .to_string(),
    };
    format!(
        "You are connected to agent-council. Report what your context window holds now, with \
         the `report_context` tool, so that work is assigned to the agent that already has its \
         context. {id}\n\n\
         Give contextWindow.totalTokens (tokens in use) and contextWindow.availableTokens (tokens \
         still free); loadedProjects: each project whose files you have read, with projectId, \
         filesLoaded and sizeInTokens; loadedTasks: each task (issue) whose context you hold, \
         with taskId and relevantFiles; capabilities.canStartImmediately: task ids you could \
         start without reading more, and capabilities.needsContextLoad: those you would have to \
         load first. Estimate honestly; report again when your context changes a lot or when \
         the answer says your report is COLD."
    )
}
