//! The help texts: each command's examples, then where its secrets come from.

// Said under the help of each command that takes a token or a key: where secrets come from.
macro_rules! token_help {
    () => {
        "Secrets: the GitHub token comes from GH_TOKEN or GITHUB_TOKEN (--github-token overrides them)."
    };
}
macro_rules! release_help {
    () => {
        " The release token comes from COUNCIL_RELEASE_TOKEN (--release-token overrides it)."
    };
}
macro_rules! key_help {
    () => {
        " The HMAC key comes from COUNCIL_HMAC_KEY, or from a file: --hmac-key-file or \
         COUNCIL_HMAC_KEY_FILE (--hmac-key overrides them)."
    };
}
macro_rules! store_help {
    () => {
        "The store: --database-url, else COUNCIL_DATABASE_URL, else sqlite://council-audit.db \
         in the working directory (sqlite://PATH or postgres://USER@HOST/DATABASE; a password \
         belongs in COUNCIL_DATABASE_URL, not on the command line)."
    };
}
macro_rules! ps_help {
    () => {
        " A flag's value is visible to other users in `ps`: prefer the environment"
    };
}
macro_rules! token_only {
    () => {
        concat!(token_help!(), ps_help!(), ".")
    };
}
macro_rules! pr_secrets {
    () => {
        concat!(token_help!(), key_help!(), ps_help!(), " or the key file.")
    };
}
macro_rules! all_secrets {
    () => {
        concat!(
            token_help!(),
            release_help!(),
            key_help!(),
            ps_help!(),
            " or the key file."
        )
    };
}
macro_rules! key_only {
    () => {
        concat!("Secrets:", key_help!(), ps_help!(), " or the key file.")
    };
}

// Each subcommand's help ends with examples a user can copy (the repository and numbers
// are placeholders), then where its secrets come from.
pub(super) const RUN_HELP: &str = concat!(
    "Examples:\n  council run --event event.json --event-name pull_request --dry-run\n  \
     council run --event event.json --event-name issue_comment\n\n",
    all_secrets!()
);
pub(super) const GUARD_HELP: &str = concat!(
    "Examples:\n  council guard --event examples/pull_request.opened.json --dry-run\n  \
     council guard --repo octo-org/app --pr 42 --dry-run\n  \
     council guard --repo octo-org/app --pr 42 --policy .github/council.yml --json\n\n",
    pr_secrets!()
);
pub(super) const REVIEW_HELP: &str = concat!(
    "Examples:\n  council review --repo octo-org/app --pr 42 --dry-run\n  \
     council review --event examples/pull_request.opened.json --json\n\n",
    pr_secrets!()
);
pub(super) const RELEASE_HELP: &str = concat!(
    "Examples:\n  council release --repo octo-org/app --pr 42 --dry-run\n  \
     COUNCIL_RELEASE_TOKEN=… council release --repo octo-org/app --pr 42\n\n",
    all_secrets!()
);
pub(super) const STATE_GET_HELP: &str = concat!(
    "Examples:\n  council state get --repo octo-org/app --issue 7\n  \
     council state get --repo octo-org/app --issue 7 --json\n\n",
    token_only!()
);
pub(super) const STATE_PUT_HELP: &str = concat!(
    "Examples:\n  council state put --repo octo-org/app --issue 7 --intent add_login --step \
     testing --progress auto --memory '{\"files\": [\"auth.rs\"]}' --dry-run\n  \
     council state put --repo octo-org/app --issue 7 --intent add_login --step review \
     --progress 90 --memory @memory.json --input-request \"Merge now?\"\n\n",
    token_only!()
);
pub(super) const VERIFY_HELP: &str = concat!(
    "Examples:\n  council verify out/audit/PR-7.json\n  \
     council verify out/audit/PR-7.json --with old/PR-7.json --hmac-key-file ~/.council-key\n\n",
    key_only!()
);
pub(super) const CONTEXT_VALIDATE_HELP: &str = "Examples:\n  council context validate\n  council \
     context validate ASSISTANT_CONTEXT.md --json";
pub(super) const CONTEXT_SHOW_HELP: &str = "Examples:\n  council context show ASSISTANT_CONTEXT.md\n  \
     council context show ASSISTANT_CONTEXT.yaml --json";
pub(super) const CONTEXT_SYNC_HELP: &str = concat!(
    "Examples:\n  council context sync --repo octo-org/app --issue 7 --file \
     ASSISTANT_CONTEXT.md\n  council context sync --repo octo-org/app --issue 7 --file \
     ASSISTANT_CONTEXT.md --direction to-issue --dry-run\n\n",
    token_only!()
);
pub(super) const REPORT_HELP: &str = concat!(
    "Examples:\n  council report --repo octo-org/app --registry-issue 1 --report \
     @examples/context-report.json --dry-run\n  council report --repo octo-org/app \
     --registry-issue 1 --report @report.json\n\n",
    token_only!()
);
pub(super) const ASSIGN_HELP: &str = concat!(
    "Examples:\n  council assign --repo octo-org/app --issue 7 --registry-issue 1\n  \
     council assign --repo octo-org/app --issue 7 --registry-issue 1 --apply\n\n",
    token_only!()
);
pub(super) const MCP_HELP: &str = concat!(
    "Examples:\n  council mcp --repo octo-org/app --registry-issue 1\n  \
     council mcp --read-only\n  \
     council mcp --tools check_branch,get_agent_state,put_agent_state --policy .github/council.yml\n\n\
     Serves the Model Context Protocol over stdio (stdout carries protocol messages only; logs \
     go to stderr): register it with an agent (Claude Code .mcp.json, VS Code \
     .vscode/mcp.json, Cursor .cursor/mcp.json). Tools: report_context, check_branch, \
     get_agent_state, put_agent_state, assign, verify_ledger, pr_status.\n\n",
    token_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
pub(super) const AUDIT_IMPORT_HELP: &str = concat!(
    "Examples:\n  council audit import out/audit/PR-7.json\n  \
     council audit import artifacts/*.json --database-url postgres://council@db.internal/audit\n\n",
    store_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
pub(super) const AUDIT_SYNC_HELP: &str = concat!(
    "Examples:\n  council audit sync --repo octo-org/app\n  \
     council audit sync --repo octo-org/app --registry-issue 1 --database-url sqlite://audit.db\n\n\
     Lists the repository's pull requests updated since the last sync (100 per request) and \
     reads each changed one's Context Object comment (written by github-actions[bot], the \
     token's own login, or a --ledger-author); when none verifies, the newest audit-PR-<n> \
     artifact of the repository's own runs. Resumes where a stopped sync left off; --full \
     reads every pull request again.\n\n",
    token_help!(),
    " ",
    store_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
pub(super) const AUDIT_QUERY_HELP: &str = concat!(
    "Examples:\n  council audit query\n  council audit query agents --json\n  \
     council audit query merge-time --csv --repo octo-org/app --since 2026-01-01\n\n\
     Questions: agents (guard pass rate per agent and the check failed most, review findings, \
     merges), findings (checks by gate), merge-time (open to merge), rollbacks, failures \
     (objects whose verification failed). Without a question, all of them. The agent is the \
     pull request's author.\n\n",
    store_help!()
);
pub(super) const AUDIT_REPORT_HELP: &str = concat!(
    "Examples:\n  council audit report --html site\n  \
     council audit report --html site --repo octo-org/app --since 2026-01-01\n\n\
     Writes DIR/index.html: one self-contained page (no network) with pass rates per agent \
     over time, gate failures by rule, time to merge, each pull request's timeline and a \
     verification badge per pull request.\n\n",
    store_help!()
);
pub(super) const AUDIT_VERIFY_HELP: &str = concat!(
    "Examples:\n  council audit verify\n  council audit verify --repo octo-org/app \
     --hmac-key-file ~/.council-key --json\n\n\
     Checks every stored chain again from the store alone (hashes, links, signatures with a \
     key): finds an entry changed or removed in the database itself.\n\n",
    store_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
pub(super) const INIT_HELP: &str = "Examples:\n  council init\n  council init --from-branches \
     --dry-run\n  council init --two-phase --action octo-org/agent-council@v0 --force";
pub(super) const POLICY_CHECK_HELP: &str = "Examples:\n  council policy check\n  council policy check \
     --branch \"$(git branch --show-current)\"\n  council policy check .github/council.yml \
     --branch feature/login --branch fix-typo --target main --json";
pub(super) const POLICY_SIMULATE_HELP: &str = concat!(
    "Examples:\n  council policy simulate\n  council policy simulate new-council.yml --repo \
     octo-org/app --since 2026-01-01 --json\n\n\
     Replays the policy against every pull request in the audit store: the guard gates from \
     each one's recorded branches, the class (agent or human) from its recorded author and \
     branch. Lists each pull request whose recorded guard verdict would change (PASS -> \
     FAIL, FAIL -> PASS, with the gate JSON under --json) and each whose class would \
     change, then the counts. A class that came from a trailer or a label is not in the \
     store: it is counted, not replayed. Exit 0 when nothing would change, 1 when \
     something would, 2 for a bad policy.\n\n",
    store_help!()
);
pub(super) const COMPLETIONS_HELP: &str = "Examples:\n  council completions bash > \
     ~/.local/share/bash-completion/completions/council\n  council completions zsh > \
     ~/.zfunc/_council\n  council completions fish > ~/.config/fish/completions/council.fish";
pub(super) const MAN_HELP: &str = "Examples:\n  council man man && man ./man/council.1\n  sudo council \
     man /usr/local/share/man/man1";

// The top level's help: with no subcommand council is the action.
pub(super) const ROOT_HELP: &str = concat!(
    "Examples:\n  council init --from-branches\n  council policy check --branch \
     \"$(git branch --show-current)\"\n  council guard --event \
     examples/pull_request.opened.json --dry-run\n\n",
    "With no subcommand council runs as the GitHub Action: every input is read from \
     INPUT_<NAME> or its flag, and --command (default auto) picks what runs. A subcommand \
     takes only its own flags: council <COMMAND> --help.\n\n",
    token_help!(),
    release_help!(),
    key_help!(),
    ps_help!(),
    " or the key file.\n\nExit codes: 0 passed or nothing to do, 1 a gate failed, 2 bad usage or input, \
     3 the GitHub API failed."
);
