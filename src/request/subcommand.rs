//! A parsed command line → the [`Request`] it asks for, and the warnings to give first.

use std::path::PathBuf;

use council_protocol::command::Command;
use council_protocol::error::{Error, Result};

use super::pipeline::PipelineRequest;
use super::{
    Access, AssignRequest, AuditFilter, AuditRequest, AuditTask, AutoRequest, ContextShowRequest,
    ContextSyncRequest, ContextValidateRequest, IssueRequest, McpRequest, PolicyFile,
    ReportRequest, Request, StateFields, StateGetRequest, StatePutRequest, VerifyRequest,
    direction, secrets,
};
use crate::cli::args::{
    ApiArgs, AuditFilterArgs, DryRunArgs, EventArgs, IssueArgs, PolicyArgs, PostArgs,
    StateFields as FieldArgs, TrustArgs,
};
use crate::cli::values::CommandInput;
use crate::cli::{
    AuditCommand, Cli, Command as Sub, ContextCommand, PolicyCommand, StateCommand, ToolCommand,
};
use crate::env::{EventSource, RunEnv};

/// The request a command line asks for, and a warning per secret given as an argument
/// (`ps` shows those to every user). The tools (`init`, `policy check`, …) are run by
/// `main` before any request is resolved.
pub fn resolve(cli: Cli, env: &RunEnv) -> Result<(Request, Vec<String>)> {
    let exposed = cli.secrets_on_command_line.clone();
    let (request, database_url) = match cli.command {
        None => {
            let command = cli.action.command.unwrap_or(CommandInput::Auto);
            let database_url = cli.action.run.store.database_url.clone();
            (
                super::action::resolve(command, cli.action, env)?,
                database_url,
            )
        }
        Some(sub) => {
            // With a subcommand, the top level holds only what `INPUT_*` set there.
            if let Some(given) = cli.action.command {
                let name = match given {
                    CommandInput::Auto => "auto",
                    CommandInput::Named(c) => c.name(),
                };
                return Err(Error::Usage(format!(
                    "the command is given twice: `--command {name}` (or INPUT_COMMAND) and \
                     the subcommand `{}`; give one: `council {}` or `council --command \
                     {name}`",
                    sub.name(),
                    sub.name()
                )));
            }
            subcommand(sub, env)?
        }
    };
    let warnings = secrets::exposed_secret_warnings(&exposed, database_url.as_ref());
    Ok((request, warnings))
}

fn subcommand(sub: Sub, env: &RunEnv) -> Result<(Request, Option<crate::secret::Secret>)> {
    Ok(match sub {
        Sub::Run(args) => {
            let database_url = args.store.database_url.clone();
            let auto = AutoRequest::of_run(args, env)?;
            (Request::Auto(Box::new(auto)), database_url)
        }
        Sub::Guard(args) => (
            pipeline(PipelineRequest::guard(Command::Guard, &args, env)?),
            args.store.database_url,
        ),
        Sub::Review(args) => (
            pipeline(PipelineRequest::guard(Command::Review, &args, env)?),
            args.store.database_url,
        ),
        Sub::Release(args) => (
            pipeline(PipelineRequest::release(&args, env)?),
            args.store.database_url,
        ),
        Sub::State(StateCommand::Get(a)) => {
            let target = IssueGroups {
                issue: &a.issue,
                api: &a.api,
                dry_run: &DryRunArgs::default(),
                event: &a.event,
                policy: &a.policy,
                trust: &a.trust,
                json: a.json.json,
            }
            .resolve(env)?;
            (Request::StateGet(StateGetRequest { target }), None)
        }
        Sub::State(StateCommand::Put(a)) => {
            let target = IssueGroups {
                issue: &a.issue,
                api: &a.api,
                dry_run: &a.dry_run,
                event: &a.event,
                policy: &a.policy,
                trust: &a.trust,
                json: a.json.json,
            }
            .resolve(env)?;
            (
                Request::StatePut(Box::new(StatePutRequest {
                    target,
                    fields: fields(&a.fields),
                    summary: a.post.summary.clone(),
                    allow_secrets: a.post.allow_secrets,
                })),
                None,
            )
        }
        Sub::Verify(a) => (
            Request::Verify(VerifyRequest {
                file: Some(a.file),
                with: a.with,
                allow_partial: a.allow_partial,
                hmac_key: secrets::hmac_key(a.sign.hmac_key, a.sign.hmac_key_file, env)?,
                event: None,
                json: a.json.json,
            }),
            None,
        ),
        Sub::Context(ContextCommand::Validate(a)) => (
            Request::ContextValidate(ContextValidateRequest {
                paths: a.paths,
                json: a.json.json,
            }),
            None,
        ),
        Sub::Context(ContextCommand::Show(a)) => (
            Request::ContextShow(ContextShowRequest {
                path: a.path,
                json: a.json.json,
            }),
            None,
        ),
        Sub::Context(ContextCommand::Sync(a)) => {
            let target = IssueGroups {
                issue: &a.issue,
                api: &a.api,
                dry_run: &a.dry_run,
                event: &a.event,
                policy: &a.policy,
                trust: &a.trust,
                json: a.json.json,
            }
            .resolve(env)?;
            (
                Request::ContextSync(Box::new(context_sync(target, &a.context, &a.post))),
                None,
            )
        }
        Sub::Report(a) => {
            let target = IssueGroups {
                issue: &IssueArgs::default(),
                api: &a.api,
                dry_run: &a.dry_run,
                event: &a.event,
                policy: &PolicyArgs::default(),
                trust: &TrustArgs::default(),
                json: a.json.json,
            }
            .resolve(env)?;
            (
                Request::Report(ReportRequest {
                    target,
                    registry_issue: a.registry_issue,
                    report: a.report,
                }),
                None,
            )
        }
        Sub::Assign(a) => {
            let target = IssueGroups {
                issue: &a.issue,
                api: &a.api,
                dry_run: &a.dry_run,
                event: &a.event,
                policy: &a.policy,
                trust: &a.trust,
                json: a.json.json,
            }
            .resolve(env)?;
            (
                Request::Assign(AssignRequest {
                    target,
                    registry_issue: a.registry_issue,
                    apply: a.apply || env.in_actions,
                }),
                None,
            )
        }
        Sub::Mcp(a) => (
            Request::Mcp(Box::new(McpRequest {
                read_only: a.read_only,
                tools: a.tools,
                access: access(&a.api, &a.dry_run, env),
                policy: PolicyFile::resolve(a.policy.policy, env)?,
                trusted_authors: trusted(&a.trust),
                hmac_key: secrets::hmac_key(a.sign.hmac_key, a.sign.hmac_key_file, env)?,
                registry_issue: a.registry_issue,
            })),
            None,
        ),
        Sub::Audit(a) => {
            let database_url = store_url(&a);
            (Request::Audit(Box::new(audit(a, env)?)), database_url)
        }
        Sub::Tool(ToolCommand::Policy(PolicyCommand::Simulate(a))) => {
            let database_url = a.store.database_url.clone();
            (
                Request::Audit(Box::new(AuditRequest {
                    task: AuditTask::Simulate {
                        policy: PolicyFile {
                            explicit: a.path.is_some(),
                            path: a.path.map_or_else(
                                || super::DEFAULT_POLICY_PATH.to_string(),
                                |p| p.to_string_lossy().into_owned(),
                            ),
                        },
                        filter: filter(a.filter),
                    },
                    database_url: secrets::database_url(database_url.clone(), env),
                    hmac_key: None,
                    json: a.json.json,
                })),
                database_url,
            )
        }
        Sub::Tool(_) => {
            return Err(Error::Usage(format!(
                "`council {}` reads and writes local files only and takes no run settings",
                sub.name()
            )));
        }
    })
}

fn pipeline(request: PipelineRequest) -> Request {
    Request::Pipeline(Box::new(request))
}

/// The event file: `--event`/`--event-name`, else the runner's.
pub(super) fn event_source(args: &EventArgs, env: &RunEnv) -> Result<Option<EventSource>> {
    // A path on the command line starts at the working directory, whatever the
    // process's is (a test runs the app in-process).
    let path = args
        .event
        .as_ref()
        .map(|p| env.cwd.join(p))
        .or_else(|| env.vars.get("GITHUB_EVENT_PATH").map(PathBuf::from));
    let name = args
        .event_name
        .clone()
        .or_else(|| env.vars.get("GITHUB_EVENT_NAME").map(str::to_string));
    match (name, path) {
        (Some(name), Some(path)) => Ok(Some(EventSource { name, path })),
        (None, None) => Ok(None),
        (None, Some(_)) => Err(Error::Usage(
            "an event file was given without its name: add --event-name (e.g. pull_request) or set GITHUB_EVENT_NAME".into(),
        )),
        (Some(name), None) => Err(Error::Usage(format!(
            "event `{name}` was named but no payload was given: add --event FILE or set GITHUB_EVENT_PATH"
        ))),
    }
}

/// The repository and the workflow token (`--repo`, else `GITHUB_REPOSITORY`).
pub(super) fn access(api: &ApiArgs, dry_run: &DryRunArgs, env: &RunEnv) -> Access {
    Access {
        repo: api.repo.clone().or_else(|| env.repository.clone()),
        token: secrets::workflow_token(api.github_token.clone(), env),
        dry_run: dry_run.dry_run.unwrap_or(false),
    }
}

pub(super) fn trusted(args: &TrustArgs) -> Vec<String> {
    args.trusted_authors
        .clone()
        .map(|l| l.0)
        .unwrap_or_default()
}

/// The groups an issue command reads, whichever command line they came from.
pub(super) struct IssueGroups<'a> {
    pub issue: &'a IssueArgs,
    pub api: &'a ApiArgs,
    pub dry_run: &'a DryRunArgs,
    pub event: &'a EventArgs,
    pub policy: &'a PolicyArgs,
    pub trust: &'a TrustArgs,
    pub json: bool,
}

impl IssueGroups<'_> {
    pub(super) fn resolve(self, env: &RunEnv) -> Result<IssueRequest> {
        Ok(IssueRequest {
            issue: self.issue.issue,
            event: event_source(self.event, env)?,
            access: access(self.api, self.dry_run, env),
            policy: PolicyFile::resolve(self.policy.policy.clone(), env)?,
            trusted_authors: trusted(self.trust),
            json: self.json,
        })
    }
}

pub(super) fn fields(args: &FieldArgs) -> StateFields {
    StateFields {
        intent: args.intent.clone(),
        step: args.step.clone(),
        progress: args.progress.clone(),
        memory: args.memory.clone(),
        next_action: args.next_action.clone(),
        agent: args.agent.clone(),
        plan: args.plan.clone(),
        input_request: args.input_request.clone(),
        metrics: args.metrics.clone(),
    }
}

pub(super) fn context_sync(
    target: IssueRequest,
    context: &crate::cli::args::ContextFileArgs,
    post: &PostArgs,
) -> ContextSyncRequest {
    ContextSyncRequest {
        target,
        file: context.context_file.clone(),
        direction: direction(context.direction),
        summary: post.summary.clone(),
        allow_secrets: post.allow_secrets,
    }
}

fn store_url(command: &AuditCommand) -> Option<crate::secret::Secret> {
    match command {
        AuditCommand::Import(a) => a.store.database_url.clone(),
        AuditCommand::Sync(a) => a.store.database_url.clone(),
        AuditCommand::Query(a) => a.store.database_url.clone(),
        AuditCommand::Report(a) => a.store.database_url.clone(),
        AuditCommand::Verify(a) => a.store.database_url.clone(),
    }
}

fn filter(args: AuditFilterArgs) -> AuditFilter {
    AuditFilter {
        repo: args.repo,
        since: args.since,
    }
}

fn audit(command: AuditCommand, env: &RunEnv) -> Result<AuditRequest> {
    let database_url = secrets::database_url(store_url(&command), env);
    let no_key = crate::cli::args::SignArgs::default();
    let (task, sign, json) = match command {
        AuditCommand::Import(a) => (AuditTask::Import { files: a.files }, a.sign, a.json.json),
        AuditCommand::Sync(a) => (
            AuditTask::Sync {
                access: access(&a.api, &DryRunArgs::default(), env),
                registry_issue: a.registry_issue,
                trusted_authors: trusted(&a.trust),
                ledger_authors: a.ledger_author,
                full: a.full,
            },
            a.sign,
            a.json.json,
        ),
        AuditCommand::Query(a) => (
            AuditTask::Query {
                question: a.question,
                filter: filter(a.filter),
                csv: a.csv,
            },
            no_key,
            a.json.json,
        ),
        AuditCommand::Report(a) => (
            AuditTask::Report {
                html: a.html.unwrap_or_default(),
                filter: filter(a.filter),
            },
            no_key,
            false,
        ),
        AuditCommand::Verify(a) => (
            AuditTask::Verify {
                filter: filter(a.filter),
            },
            a.sign,
            a.json.json,
        ),
    };
    Ok(AuditRequest {
        task,
        database_url,
        hmac_key: secrets::hmac_key(sign.hmac_key, sign.hmac_key_file, env)?,
        json,
    })
}
