//! `guard`, `review`, `release` (and `auto` on an event those stages handle): what a
//! pull-request run acts on and with.

use council_protocol::command::Command;
use council_protocol::error::Result;

use super::{Access, PolicyFile, secrets};
use crate::cli::args::{
    ApiArgs, DryRunArgs, EventArgs, GuardArgs, PolicyArgs, ReleaseArgs, RunArgs, RunStoreArgs,
    SignArgs, UploadArgs,
};
use crate::env::{EventSource, RunEnv};
use crate::secret::Secret;

#[derive(Debug, Clone)]
pub struct PipelineRequest {
    /// `guard`, `review` (behind the guard) or `release`.
    pub command: Command,
    /// What `--json` names the command: `auto` when the event chose it.
    pub invoked_as: &'static str,
    pub event: Option<EventSource>,
    /// `--pr N`: the pull request read through the API instead of the event's.
    pub pr: Option<u64>,
    pub access: Access,
    /// The only token that merges.
    pub release_token: Option<Secret>,
    pub policy: PolicyFile,
    pub close_on_fail: bool,
    pub hmac_key: Option<Secret>,
    pub upload: Upload,
    /// Also write the Context Object to this audit store (`database-url`).
    pub database_url: Option<Secret>,
    pub json: bool,
}

/// The audit file as an artifact (inside Actions only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upload {
    pub enabled: bool,
    /// `None`: the repository's default.
    pub retention_days: Option<u32>,
}

impl Upload {
    fn resolve(args: &UploadArgs) -> Upload {
        Upload {
            enabled: args.upload_artifact.unwrap_or(true),
            retention_days: args.retention_days.filter(|days| *days > 0),
        }
    }
}

/// The groups a pull-request run reads, whichever command line they came from.
pub(super) struct Groups<'a> {
    pub event: &'a EventArgs,
    pub api: &'a ApiArgs,
    pub policy: &'a PolicyArgs,
    pub dry_run: &'a DryRunArgs,
    pub sign: &'a SignArgs,
    pub upload: &'a UploadArgs,
    pub store: &'a RunStoreArgs,
    pub json: bool,
    pub pr: Option<u64>,
    pub close_on_fail: Option<bool>,
    pub release_token: Option<&'a Secret>,
}

impl PipelineRequest {
    pub(super) fn resolve(
        command: Command,
        invoked_as: &'static str,
        g: Groups,
        env: &RunEnv,
    ) -> Result<PipelineRequest> {
        Ok(PipelineRequest {
            command,
            invoked_as,
            event: super::subcommand::event_source(g.event, env)?,
            pr: g.pr,
            access: super::subcommand::access(g.api, g.dry_run, env),
            release_token: secrets::release_token(g.release_token.cloned(), env),
            policy: PolicyFile::resolve(g.policy.policy.clone(), env)?,
            close_on_fail: g.close_on_fail.unwrap_or(false),
            hmac_key: secrets::hmac_key(
                g.sign.hmac_key.clone(),
                g.sign.hmac_key_file.clone(),
                env,
            )?,
            upload: Upload::resolve(g.upload),
            database_url: secrets::database_url(g.store.database_url.clone(), env),
            json: g.json,
        })
    }

    pub(super) fn guard(
        command: Command,
        args: &GuardArgs,
        env: &RunEnv,
    ) -> Result<PipelineRequest> {
        let groups = Groups {
            event: &args.event,
            api: &args.api,
            policy: &args.policy,
            dry_run: &args.dry_run,
            sign: &args.sign,
            upload: &args.upload,
            store: &args.store,
            json: args.json.json,
            pr: args.pr,
            close_on_fail: args.close_on_fail,
            release_token: None,
        };
        PipelineRequest::resolve(command, command.name(), groups, env)
    }

    pub(super) fn release(args: &ReleaseArgs, env: &RunEnv) -> Result<PipelineRequest> {
        let groups = Groups {
            event: &args.event,
            api: &args.api,
            policy: &args.policy,
            dry_run: &args.dry_run,
            sign: &args.sign,
            upload: &args.upload,
            store: &args.store,
            json: args.json.json,
            pr: args.pr,
            close_on_fail: None,
            release_token: args.release_token.as_ref(),
        };
        PipelineRequest::resolve(Command::Release, "release", groups, env)
    }

    /// A pipeline command of the action or `council run` (`pr`: the action's `--pr`).
    pub(super) fn of_run(
        command: Command,
        invoked_as: &'static str,
        run: &RunArgs,
        pr: Option<u64>,
        env: &RunEnv,
    ) -> Result<PipelineRequest> {
        let groups = Groups {
            event: &run.event,
            api: &run.api,
            policy: &run.policy,
            dry_run: &run.dry_run,
            sign: &run.sign,
            upload: &run.upload,
            store: &run.store,
            json: run.json.json,
            pr,
            close_on_fail: run.close_on_fail,
            release_token: run.release_token.as_ref(),
        };
        PipelineRequest::resolve(command, invoked_as, groups, env)
    }
}
