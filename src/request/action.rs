//! The action (`council` with no subcommand): its `command` input names what runs, and
//! `auto` leaves it to the event. The action's inputs are every command's, so the
//! request for the command the event planned is built from them once it is known.

use council_protocol::command::Command;
use council_protocol::error::Result;

use super::pipeline::PipelineRequest;
use super::subcommand::{IssueGroups, context_sync, event_source, fields};
use super::{
    AssignRequest, ContextValidateRequest, PolicyFile, ReportRequest, Request, StateGetRequest,
    StatePutRequest, VerifyRequest, secrets,
};
use crate::cli::args::{ActionArgs, IssueArgs, PolicyArgs, RunArgs, TrustArgs};
use crate::cli::values::CommandInput;
use crate::env::{EventSource, RunEnv};

/// The action with `command: auto`, or `council run`: the event decides.
#[derive(Debug, Clone)]
pub struct AutoRequest {
    pub event: Option<EventSource>,
    pub json: bool,
    args: ActionArgs,
}

impl AutoRequest {
    /// `council run`: what it takes is what `auto` needs for the pull-request stages.
    pub(super) fn of_run(run: RunArgs, env: &RunEnv) -> Result<AutoRequest> {
        AutoRequest::new(
            ActionArgs {
                run,
                ..ActionArgs::default()
            },
            env,
        )
    }

    fn new(args: ActionArgs, env: &RunEnv) -> Result<AutoRequest> {
        // What every planned command reads is checked now, before the event is: a bad
        // `policy` path or key file is bad usage whatever the event turns out to be.
        PolicyFile::resolve(args.run.policy.policy.clone(), env)?;
        secrets::hmac_key(
            args.run.sign.hmac_key.clone(),
            args.run.sign.hmac_key_file.clone(),
            env,
        )?;
        Ok(AutoRequest {
            event: event_source(&args.run.event, env)?,
            json: args.run.json.json,
            args,
        })
    }

    /// `registry-issue`: `issues` opened plans `assign` only when one is set.
    pub fn registry_issue(&self) -> Option<u64> {
        self.args.run.registry_issue
    }

    /// The request for the command the event planned.
    pub fn for_command(&self, command: Command, env: &RunEnv) -> Result<Request> {
        request_for(command, "auto", &self.args, env)
    }
}

pub(super) fn resolve(command: CommandInput, args: ActionArgs, env: &RunEnv) -> Result<Request> {
    match command {
        CommandInput::Auto => Ok(Request::Auto(Box::new(AutoRequest::new(args, env)?))),
        CommandInput::Named(command) => request_for(command, command.name(), &args, env),
    }
}

fn request_for(
    command: Command,
    invoked_as: &'static str,
    args: &ActionArgs,
    env: &RunEnv,
) -> Result<Request> {
    let run = &args.run;
    let json = run.json.json;
    let target = |issue: &IssueArgs, policy: &PolicyArgs, trust: &TrustArgs| {
        IssueGroups {
            issue,
            api: &run.api,
            dry_run: &run.dry_run,
            event: &run.event,
            policy,
            trust,
            json,
        }
        .resolve(env)
    };
    Ok(match command {
        Command::Guard | Command::Review | Command::Release => Request::Pipeline(Box::new(
            PipelineRequest::of_run(command, invoked_as, run, args.pr, env)?,
        )),
        Command::StateGet => Request::StateGet(StateGetRequest {
            target: target(&args.issue, &run.policy, &run.trust)?,
        }),
        Command::StatePut => Request::StatePut(Box::new(StatePutRequest {
            target: target(&args.issue, &run.policy, &run.trust)?,
            fields: fields(&args.fields),
            summary: args.post.summary.clone(),
            allow_secrets: args.post.allow_secrets,
        })),
        // The action's `context-validate` checks `context-file` when it is set, else
        // every ASSISTANT_CONTEXT file of the workspace.
        Command::ContextValidate => Request::ContextValidate(ContextValidateRequest {
            paths: args
                .context
                .context_file
                .iter()
                .map(std::path::PathBuf::from)
                .collect(),
            json,
        }),
        Command::ContextSync => Request::ContextSync(Box::new(context_sync(
            target(&args.issue, &run.policy, &run.trust)?,
            &args.context,
            &args.post,
        ))),
        Command::Report => Request::Report(ReportRequest {
            target: target(&IssueArgs::default(), &run.policy, &TrustArgs::default())?,
            registry_issue: run.registry_issue,
            report: args.report.clone(),
        }),
        Command::Assign => Request::Assign(AssignRequest {
            target: target(&args.issue, &run.policy, &run.trust)?,
            registry_issue: run.registry_issue,
            apply: run.apply || env.in_actions,
        }),
        Command::Verify => Request::Verify(VerifyRequest {
            file: None,
            with: Vec::new(),
            allow_partial: false,
            hmac_key: secrets::hmac_key(
                run.sign.hmac_key.clone(),
                run.sign.hmac_key_file.clone(),
                env,
            )?,
            event: event_source(&run.event, env)?,
            json,
        }),
    })
}
