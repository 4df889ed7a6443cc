//! A world from a file: what `fake-github --world FILE` serves. YAML (JSON is YAML too),
//! read strictly: an unknown key, a missing one or a value of the wrong kind is an error
//! naming the file, the field and the line; so is a fact the world cannot hold (a
//! number used twice, a SHA that is not 40 hex digits, a review state GitHub does not
//! have). Every key is a field of the `…Spec` types below; docs/src/try-offline.md lists
//! them, and `examples/fake-world/world.yml` is a world that uses most.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::ci::{Ci, CiCheck, Condition, Verdict};
use crate::generate::{self, Generate, Generated};
use crate::graph::Blob;
use crate::protection::{Kind, Protection};
use crate::routes::comment;
use crate::tokens::{Access, Scope, Token};
use crate::world::{
    CheckRun, CommitStatus, DEFAULT_BRANCH, Issue, PrFile, PullRequest, Review, World, fake_sha,
    timestamp,
};

/// Why a world file was refused: `file: field: message` (`field` is the path of the
/// key, `pulls[0].reviews[1].state`, empty for the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureError {
    pub file: String,
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for FixtureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.field.is_empty() {
            true => write!(f, "{}: {}", self.file, self.message),
            false => write!(f, "{}: {}: {}", self.file, self.field, self.message),
        }
    }
}

impl std::error::Error for FixtureError {}

/// A loaded world, and the environment `council` needs to talk to it.
pub struct Loaded {
    pub world: World,
    pub environment: Environment,
    /// What the `generate:` section made, when there is one.
    pub generated: Option<Generated>,
}

/// Who `council` is in a world: its repository and tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// `owner/name`: `GITHUB_REPOSITORY`.
    pub repo: String,
    /// The first `role: workflow` token: `GH_TOKEN`.
    pub workflow_token: Option<String>,
    /// The first `role: release` token: `COUNCIL_RELEASE_TOKEN`.
    pub release_token: Option<String>,
}

impl Environment {
    /// The variables for the world served at `api`, as `(NAME, value)` in the order a
    /// shell exports them.
    pub fn variables(&self, api: &str) -> Vec<(&'static str, String)> {
        let mut env = vec![
            ("GITHUB_API_URL", api.to_string()),
            ("GITHUB_REPOSITORY", self.repo.clone()),
        ];
        if let Some(token) = &self.workflow_token {
            env.push(("GH_TOKEN", token.clone()));
        }
        if let Some(token) = &self.release_token {
            env.push(("COUNCIL_RELEASE_TOKEN", token.clone()));
        }
        env
    }
}

/// Reads and checks the world file at `path`; files it points to (`{from: …}`) are read
/// relative to its folder.
pub fn load(path: &Path) -> Result<Loaded, FixtureError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FixtureError {
        file: shown.clone(),
        field: String::new(),
        message: format!("cannot read it: {e}"),
    })?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&text, &shown, &base)
}

/// A world from `text` (named `file` in errors; `{from: …}` files relative to `base`).
pub fn parse(text: &str, file: &str, base: &Path) -> Result<Loaded, FixtureError> {
    let mut path = None;
    let spec: WorldFile = serde_saphyr::with_deserializer_from_str(text, |yaml| {
        serde_path_to_error::deserialize(yaml).map_err(|e| {
            path = Some(e.path().to_string());
            e.into_inner()
        })
    })
    .map_err(|e| FixtureError {
        file: file.to_string(),
        field: path.filter(|p| p != ".").unwrap_or_default(),
        message: first_line(&e.to_string()),
    })?;
    Builder {
        file,
        base,
        files_read: BTreeMap::new(),
    }
    .build(spec)
}

/// serde-saphyr's message without its `error: ` and the source snippet it appends (the
/// line is named).
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

// ------------------------------------------------------------------- the file format

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorldFile {
    /// `owner/name`.
    repository: String,
    #[serde(default = "main_branch")]
    default_branch: String,
    /// Branch → head SHA; a branch named nowhere else gets a made-up head.
    #[serde(default)]
    branches: BTreeMap<String, String>,
    /// Ref (branch or SHA) → path → the file's text (or `{from: path}`, relative to the
    /// world file).
    #[serde(default)]
    files: BTreeMap<String, BTreeMap<String, FileText>>,
    /// Commits on branches, in order: each on top of its branch's head (a new branch
    /// starts at `from`'s head, else the default branch's).
    #[serde(default)]
    commits: Vec<CommitSpec>,
    /// Branch protection rules and rulesets.
    #[serde(default)]
    protection: Vec<ProtectionSpec>,
    /// The CI rule: which landings start CI runs and what makes them red.
    #[serde(default)]
    ci: Option<CiSpec>,
    /// What the repository's settings allow (default: all three).
    #[serde(default)]
    merge_methods: Option<Vec<MergeMethod>>,
    tokens: Vec<TokenSpec>,
    #[serde(default)]
    issues: Vec<IssueSpec>,
    #[serde(default)]
    pulls: Vec<PullSpec>,
    /// Many generated pull requests with their ledger comments (`generate.rs`).
    #[serde(default)]
    generate: Option<GenerateSpec>,
}

/// One of `commits:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommitSpec {
    branch: String,
    /// For a new branch: the branch whose head it starts at (default: the default one).
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    message: String,
    /// Who pushed it (default octocat).
    #[serde(default)]
    author: Option<String>,
    /// GitHub verified its signature (default false, as for any pushed commit).
    #[serde(default)]
    verified: bool,
    /// Path → its new text (or `{from: FILE}`); `null` deletes the file.
    #[serde(default)]
    files: BTreeMap<String, Option<FileText>>,
}

/// One of `protection:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProtectionSpec {
    /// A branch glob.
    branch: String,
    #[serde(default)]
    kind: ProtectionKind,
    /// The ruleset's name (default: the branch glob).
    #[serde(default)]
    name: Option<String>,
    /// Logins that may do what the rules forbid.
    #[serde(default)]
    bypass: Vec<String>,
    #[serde(default = "yes")]
    restrict_updates: bool,
    #[serde(default)]
    require_pull_request: bool,
    #[serde(default = "yes")]
    block_force_pushes: bool,
    #[serde(default = "yes")]
    restrict_deletions: bool,
    #[serde(default)]
    required_linear_history: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ProtectionKind {
    #[default]
    Ruleset,
    Classic,
}

/// `ci:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CiSpec {
    /// Branch globs whose pushes start a run.
    #[serde(default)]
    branches: Vec<String>,
    /// A pull request's new head starts a run.
    #[serde(default)]
    pull_requests: bool,
    /// Default: one check `ci` of 5 minutes.
    #[serde(default)]
    checks: Vec<CiCheckSpec>,
    /// Red when any holds (default: never).
    #[serde(default)]
    red_when: Vec<ConditionSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CiCheckSpec {
    name: String,
    #[serde(default = "five")]
    minutes: u32,
}

fn five() -> u32 {
    5
}

/// `{contains: TEXT}` (any file), `{path: P}` (it exists), `{path: P, contains: TEXT}`
/// or `{all: [conditions]}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionSpec {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    contains: Option<String>,
    #[serde(default)]
    all: Option<Vec<ConditionSpec>>,
}

/// `generate:`, the fields of [`Generate`]; left out, its defaults.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GenerateSpec {
    pulls: usize,
    #[serde(default)]
    agents: Option<usize>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    entries_per_pull: Option<usize>,
    #[serde(default)]
    weeks: Option<u32>,
    #[serde(default)]
    until: Option<String>,
    #[serde(default)]
    registry_issue: Option<u64>,
    #[serde(default)]
    hmac_key: Option<String>,
}

impl GenerateSpec {
    fn to_generate(&self) -> Generate {
        let defaults = Generate::default();
        Generate {
            pulls: self.pulls,
            agents: self.agents.unwrap_or(defaults.agents),
            seed: self.seed.unwrap_or(defaults.seed),
            entries_per_pull: self.entries_per_pull.unwrap_or(defaults.entries_per_pull),
            weeks: self.weeks.unwrap_or(defaults.weeks),
            until: self.until.clone().unwrap_or(defaults.until),
            registry_issue: self.registry_issue,
            hmac_key: self.hmac_key.clone(),
        }
    }
}

fn main_branch() -> String {
    "main".to_string()
}

#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected the file's text, or {from: FILE} (a path relative to the world file)"
)]
enum FileText {
    Text(String),
    From(FromFile),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FromFile {
    from: PathBuf,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenSpec {
    token: String,
    login: String,
    /// `read-only` (a fork's token), `workflow` (writes all but contents: GH_TOKEN) or
    /// `release` (writes contents too: may merge; COUNCIL_RELEASE_TOKEN).
    role: Role,
    /// Changes to the role's permissions, as a workflow's `permissions:` block.
    #[serde(default)]
    permissions: BTreeMap<Scope, Grant>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Role {
    ReadOnly,
    Workflow,
    Release,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Grant {
    None,
    Read,
    Write,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IssueSpec {
    number: u64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default = "octocat")]
    author: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    labels: Vec<String>,
    #[serde(default)]
    comments: Vec<CommentSpec>,
}

fn octocat() -> String {
    "octocat".to_string()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommentSpec {
    author: String,
    body: String,
    /// OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, … (default NONE).
    #[serde(default)]
    association: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PullSpec {
    number: u64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: String,
    #[serde(default = "octocat")]
    author: String,
    /// The head branch.
    head: String,
    /// Its commit (default: made up from the branch name).
    #[serde(default)]
    head_sha: Option<String>,
    /// The base branch (default: the default branch).
    #[serde(default)]
    base: Option<String>,
    /// The head lives in this owner's fork.
    #[serde(default)]
    fork: Option<String>,
    #[serde(default)]
    draft: bool,
    #[serde(default)]
    closed: bool,
    #[serde(default)]
    labels: Vec<String>,
    /// clean (default), dirty, behind, blocked, unstable, unknown, has_hooks.
    #[serde(default)]
    mergeable_state: Option<String>,
    #[serde(default)]
    files: Vec<FileSpec>,
    #[serde(default)]
    reviews: Vec<ReviewSpec>,
    /// Check runs on the head.
    #[serde(default)]
    checks: Vec<CheckSpec>,
    /// Commit statuses on the head.
    #[serde(default)]
    statuses: Vec<StatusSpec>,
    #[serde(default)]
    comments: Vec<CommentSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    path: String,
    /// The lines it adds, as text.
    #[serde(default)]
    added: String,
    /// The lines it removes, as text.
    #[serde(default)]
    removed: String,
    /// Default: `added` without removed lines, `removed` without added ones, else
    /// `modified`.
    #[serde(default)]
    status: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewSpec {
    user: String,
    /// APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED.
    state: String,
    /// The commit reviewed (default: the head).
    #[serde(default)]
    commit: Option<String>,
    #[serde(default)]
    body: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckSpec {
    name: String,
    /// queued, in_progress or completed (default).
    #[serde(default)]
    status: Option<String>,
    /// Required once completed: success, failure, neutral, cancelled, skipped,
    /// timed_out or action_required.
    #[serde(default)]
    conclusion: Option<String>,
    /// The app reporting it (default github-actions).
    #[serde(default)]
    app: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusSpec {
    context: String,
    /// error, failure, pending or success.
    state: String,
}

// ----------------------------------------------------------------- file → world

struct Builder<'a> {
    file: &'a str,
    base: &'a Path,
    files_read: BTreeMap<PathBuf, String>,
}

impl Builder<'_> {
    fn error(&self, field: impl Into<String>, message: impl Into<String>) -> FixtureError {
        FixtureError {
            file: self.file.to_string(),
            field: field.into(),
            message: message.into(),
        }
    }

    fn build(mut self, spec: WorldFile) -> Result<Loaded, FixtureError> {
        let valid_name = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        match spec.repository.split_once('/') {
            Some((owner, name)) if valid_name(owner) && valid_name(name) => {}
            _ => return Err(self.error("repository", "must be `owner/name`")),
        }
        let mut world = World::new(&spec.repository);
        world.branches.remove(DEFAULT_BRANCH);
        world.default_branch = spec.default_branch.clone();
        for (name, sha) in &spec.branches {
            self.sha(&format!("branches.{name}"), sha)?;
            world.branches.insert(name.clone(), sha.clone());
        }
        world
            .branches
            .entry(spec.default_branch.clone())
            .or_insert_with(|| fake_sha(&spec.default_branch));
        for (git_ref, files) in &spec.files {
            for (path, text) in files {
                let field = format!("files.{git_ref}.{path}");
                let text = self.text(&field, text)?;
                world
                    .files
                    .entry(git_ref.clone())
                    .or_default()
                    .insert(path.clone(), text);
            }
        }
        for (i, commit) in spec.commits.iter().enumerate() {
            self.commit(&mut world, &format!("commits[{i}]"), commit)?;
        }
        for (i, rule) in spec.protection.iter().enumerate() {
            world
                .protections
                .push(self.protection(&format!("protection[{i}]"), rule)?);
        }
        if let Some(methods) = &spec.merge_methods {
            world.merge_methods = methods
                .iter()
                .map(|m| format!("{m:?}").to_ascii_lowercase())
                .collect();
        }
        let tokens = self.tokens(&spec.tokens)?;
        world.tokens = tokens.tokens;
        let mut numbers = BTreeSet::new();
        for (i, issue) in spec.issues.iter().enumerate() {
            let field = format!("issues[{i}]");
            self.number(&field, issue.number, &mut numbers)?;
            world.issues.insert(
                issue.number,
                Issue {
                    title: issue.title.clone(),
                    author: issue.author.clone(),
                    body: issue.body.clone(),
                    labels: issue.labels.clone(),
                },
            );
            self.comments(&mut world, &field, issue.number, &issue.comments)?;
        }
        for (i, pull) in spec.pulls.iter().enumerate() {
            let field = format!("pulls[{i}]");
            self.number(&field, pull.number, &mut numbers)?;
            self.pull(&mut world, &field, pull)?;
            self.comments(&mut world, &field, pull.number, &pull.comments)?;
        }
        // The CI rule after the scene: its commits and heads predate it (their checks
        // are the ones the file lists).
        if let Some(ci) = &spec.ci {
            world.ci = Some(self.ci(ci)?);
        }
        // Last: generated pull requests take the numbers the sections above leave free.
        let generated = match &spec.generate {
            Some(g) => Some(
                generate::fill(&mut world, &g.to_generate())
                    .map_err(|e| self.error(format!("generate.{}", e.field), e.message))?,
            ),
            None => None,
        };
        Ok(Loaded {
            environment: Environment {
                repo: world.repo.clone(),
                workflow_token: tokens.workflow,
                release_token: tokens.release,
            },
            world,
            generated,
        })
    }

    fn commit(
        &mut self,
        world: &mut World,
        field: &str,
        spec: &CommitSpec,
    ) -> Result<(), FixtureError> {
        if spec.branch.trim().is_empty() {
            return Err(self.error(format!("{field}.branch"), "names no branch"));
        }
        if let Some(from) = &spec.from {
            if world.branches.contains_key(&spec.branch) {
                return Err(self.error(
                    format!("{field}.from"),
                    format!(
                        "`{}` exists already: only a new branch starts from another",
                        spec.branch
                    ),
                ));
            }
            let Some(sha) = world.branch_commit(from) else {
                return Err(self.error(format!("{field}.from"), format!("no branch `{from}`")));
            };
            world.branches.insert(spec.branch.clone(), sha);
        }
        let mut changes = Vec::new();
        for (path, text) in &spec.files {
            let blob = match text {
                Some(text) => Some(Blob::Text(
                    self.text(&format!("{field}.files.{path}"), text)?,
                )),
                None => None,
            };
            changes.push((path.clone(), blob));
        }
        world.commit_on(
            &spec.branch,
            &crate::git::CommitSpec {
                changes,
                message: spec.message.clone(),
                author: spec.author.clone(),
                verified: spec.verified,
            },
        );
        Ok(())
    }

    fn protection(&self, field: &str, spec: &ProtectionSpec) -> Result<Protection, FixtureError> {
        if spec.branch.trim().is_empty() {
            return Err(self.error(format!("{field}.branch"), "names no branch"));
        }
        Ok(Protection {
            branch: spec.branch.clone(),
            kind: match spec.kind {
                ProtectionKind::Ruleset => {
                    Kind::Ruleset(spec.name.clone().unwrap_or_else(|| spec.branch.clone()))
                }
                ProtectionKind::Classic if spec.name.is_some() => {
                    return Err(self.error(format!("{field}.name"), "only a ruleset has a name"));
                }
                ProtectionKind::Classic => Kind::Classic,
            },
            bypass: spec.bypass.clone(),
            restrict_updates: spec.restrict_updates,
            require_pull_request: spec.require_pull_request,
            block_force_pushes: spec.block_force_pushes,
            restrict_deletions: spec.restrict_deletions,
            required_linear_history: spec.required_linear_history,
        })
    }

    fn ci(&self, spec: &CiSpec) -> Result<Ci, FixtureError> {
        if spec.branches.is_empty() && !spec.pull_requests {
            return Err(self.error(
                "ci",
                "runs on nothing: name `branches` or set `pull_requests: true`",
            ));
        }
        let mut ci = Ci::on(&[]);
        ci.branches.clone_from(&spec.branches);
        ci.pull_requests = spec.pull_requests;
        if !spec.checks.is_empty() {
            ci.checks = spec
                .checks
                .iter()
                .map(|c| CiCheck {
                    name: c.name.clone(),
                    minutes: c.minutes,
                })
                .collect();
        }
        let mut red = Vec::new();
        for (i, condition) in spec.red_when.iter().enumerate() {
            red.push(self.condition(&format!("ci.red_when[{i}]"), condition)?);
        }
        ci.verdict = Verdict::RedWhen(red);
        Ok(ci)
    }

    fn condition(&self, field: &str, spec: &ConditionSpec) -> Result<Condition, FixtureError> {
        match (&spec.path, &spec.contains, &spec.all) {
            (None, Some(text), None) => Ok(Condition::Contains(text.clone())),
            (Some(path), None, None) => Ok(Condition::Exists(path.clone())),
            (Some(path), Some(text), None) => Ok(Condition::FileContains {
                path: path.clone(),
                text: text.clone(),
            }),
            (None, None, Some(all)) if !all.is_empty() => {
                let mut conditions = Vec::new();
                for (i, c) in all.iter().enumerate() {
                    conditions.push(self.condition(&format!("{field}.all[{i}]"), c)?);
                }
                Ok(Condition::All(conditions))
            }
            _ => Err(self.error(
                field,
                "one of {contains: TEXT}, {path: P}, {path: P, contains: TEXT} or {all: [...]}                  (not empty)",
            )),
        }
    }

    fn sha(&self, field: &str, sha: &str) -> Result<(), FixtureError> {
        match sha.len() == 40 && sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            true => Ok(()),
            false => Err(self.error(field, "must be a commit SHA: 40 lower-case hex digits")),
        }
    }

    fn number(
        &self,
        field: &str,
        number: u64,
        seen: &mut BTreeSet<u64>,
    ) -> Result<(), FixtureError> {
        if number == 0 {
            return Err(self.error(format!("{field}.number"), "numbers start at 1"));
        }
        if !seen.insert(number) {
            return Err(self.error(
                format!("{field}.number"),
                format!("#{number} is used twice (issues and pull requests share numbers)"),
            ));
        }
        Ok(())
    }

    fn text(&mut self, field: &str, text: &FileText) -> Result<String, FixtureError> {
        match text {
            FileText::Text(text) => Ok(text.clone()),
            FileText::From(FromFile { from }) => {
                let path = self.base.join(from);
                if let Some(text) = self.files_read.get(&path) {
                    return Ok(text.clone());
                }
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    self.error(field, format!("cannot read {}: {e}", path.display()))
                })?;
                self.files_read.insert(path, text.clone());
                Ok(text)
            }
        }
    }

    fn tokens(&self, specs: &[TokenSpec]) -> Result<Tokens, FixtureError> {
        if specs.is_empty() {
            return Err(self.error(
                "tokens",
                "list at least one token: without one, every request is anonymous",
            ));
        }
        let mut tokens = Tokens::default();
        for (i, spec) in specs.iter().enumerate() {
            let field = format!("tokens[{i}]");
            if spec.token.trim().is_empty() || spec.token.chars().any(char::is_whitespace) {
                return Err(self.error(format!("{field}.token"), "must be one word"));
            }
            let mut token = match spec.role {
                Role::ReadOnly => Token::read_only(&spec.login),
                Role::Workflow => Token::workflow(&spec.login),
                Role::Release => Token::release(&spec.login),
            };
            for (scope, grant) in &spec.permissions {
                match grant {
                    Grant::None => token.permissions.remove(scope),
                    Grant::Read => token.permissions.insert(*scope, Access::Read),
                    Grant::Write => token.permissions.insert(*scope, Access::Write),
                };
            }
            if tokens.tokens.insert(spec.token.clone(), token).is_some() {
                return Err(self.error(format!("{field}.token"), "listed twice"));
            }
            let slot = match spec.role {
                Role::Workflow => &mut tokens.workflow,
                Role::Release => &mut tokens.release,
                Role::ReadOnly => continue,
            };
            slot.get_or_insert_with(|| spec.token.clone());
        }
        Ok(tokens)
    }

    fn comments(
        &self,
        world: &mut World,
        field: &str,
        issue: u64,
        specs: &[CommentSpec],
    ) -> Result<(), FixtureError> {
        const ASSOCIATIONS: &[&str] = &[
            "OWNER",
            "MEMBER",
            "COLLABORATOR",
            "CONTRIBUTOR",
            "FIRST_TIME_CONTRIBUTOR",
            "FIRST_TIMER",
            "MANNEQUIN",
            "NONE",
        ];
        for (i, spec) in specs.iter().enumerate() {
            let association = spec.association.as_deref().unwrap_or("NONE");
            if !ASSOCIATIONS.contains(&association) {
                return Err(self.error(
                    format!("{field}.comments[{i}].association"),
                    format!("one of {}", ASSOCIATIONS.join(", ")),
                ));
            }
            world.next_id += 1;
            let id = world.next_id;
            let mut c = comment(&world.repo, id, issue, &spec.author, &spec.body);
            c["author_association"] = association.into();
            world.comments.push(c);
        }
        Ok(())
    }

    fn pull(&self, world: &mut World, field: &str, spec: &PullSpec) -> Result<(), FixtureError> {
        let mut pr = PullRequest::new(spec.number, world.owner());
        if let Some(title) = &spec.title {
            pr.title = title.clone();
        }
        pr.body = spec.body.clone();
        pr.author = spec.author.clone();
        pr.head_ref = spec.head.clone();
        // A head branch built by `commits:` is the pull request's head.
        let built = world
            .branches
            .get(&spec.head)
            .filter(|sha| world.graph.contains(sha))
            .cloned();
        pr.head_sha = match (&spec.head_sha, built) {
            (Some(_), Some(_)) => {
                return Err(self.error(
                    format!("{field}.head_sha"),
                    format!(
                        "`{}` is built by `commits:`: its head is its last commit",
                        spec.head
                    ),
                ));
            }
            (Some(sha), None) => {
                self.sha(&format!("{field}.head_sha"), sha)?;
                sha.clone()
            }
            (None, Some(sha)) => {
                if !spec.files.is_empty() {
                    return Err(self.error(
                        format!("{field}.files"),
                        format!(
                            "`{}` is built by `commits:`: its files come from them",
                            spec.head
                        ),
                    ));
                }
                sha
            }
            (None, None) => fake_sha(&format!("head of {}", spec.head)),
        };
        if let Some(owner) = &spec.fork {
            pr.fork = true;
            pr.head_owner = owner.clone();
        } else {
            world
                .branches
                .insert(pr.head_ref.clone(), pr.head_sha.clone());
        }
        pr.base_ref = spec
            .base
            .clone()
            .unwrap_or_else(|| world.default_branch.clone());
        pr.base_sha = world
            .branches
            .entry(pr.base_ref.clone())
            .or_insert_with(|| fake_sha(&pr.base_ref))
            .clone();
        pr.draft = spec.draft;
        pr.open = !spec.closed;
        pr.labels = spec.labels.clone();
        for label in &spec.labels {
            let at = pr.created_at.clone();
            world.label_event_at(spec.number, "labeled", label, &spec.author, &at);
        }
        let state = spec.mergeable_state.as_deref().unwrap_or(match spec.draft {
            true => "draft",
            false => "clean",
        });
        const STATES: &[&str] = &[
            "clean",
            "dirty",
            "behind",
            "blocked",
            "unstable",
            "unknown",
            "has_hooks",
            "draft",
        ];
        if !STATES.contains(&state) {
            return Err(self.error(
                format!("{field}.mergeable_state"),
                format!("one of {}", STATES.join(", ")),
            ));
        }
        pr.mergeable_state = state.to_string();
        pr.mergeable = match state {
            "dirty" => Some(false),
            "unknown" => None,
            _ => Some(true),
        };
        for (i, file) in spec.files.iter().enumerate() {
            pr.files
                .push(self.file(&format!("{field}.files[{i}]"), file)?);
        }
        for (i, review) in spec.reviews.iter().enumerate() {
            let at = format!("{field}.reviews[{i}]");
            const REVIEW_STATES: &[&str] =
                &["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED"];
            if !REVIEW_STATES.contains(&review.state.as_str()) {
                return Err(self.error(
                    format!("{at}.state"),
                    format!("one of {}", REVIEW_STATES.join(", ")),
                ));
            }
            let commit = match &review.commit {
                Some(sha) => {
                    self.sha(&format!("{at}.commit"), sha)?;
                    sha.clone()
                }
                None => pr.head_sha.clone(),
            };
            let id = world.next_number_id();
            pr.reviews.push(Review {
                id,
                user: review.user.clone(),
                state: review.state.clone(),
                commit_id: commit,
                submitted_at: timestamp(id),
                body: review.body.clone(),
            });
        }
        for (i, check) in spec.checks.iter().enumerate() {
            let run = self.check(world, &format!("{field}.checks[{i}]"), check, &pr.head_sha)?;
            world.checks_mut(&pr.head_sha).check_runs.push(run);
        }
        for (i, status) in spec.statuses.iter().enumerate() {
            const STATUS_STATES: &[&str] = &["error", "failure", "pending", "success"];
            if !STATUS_STATES.contains(&status.state.as_str()) {
                return Err(self.error(
                    format!("{field}.statuses[{i}].state"),
                    format!("one of {}", STATUS_STATES.join(", ")),
                ));
            }
            let id = world.next_number_id();
            let status = CommitStatus {
                id,
                context: status.context.clone(),
                state: status.state.clone(),
                description: Some(format!("{}: {}", status.context, status.state)),
                target_url: None,
                created_at: timestamp(id),
            };
            world.checks_mut(&pr.head_sha).statuses.push(status);
        }
        world.pulls.insert(spec.number, pr);
        Ok(())
    }

    fn file(&self, field: &str, spec: &FileSpec) -> Result<PrFile, FixtureError> {
        let added: Vec<&str> = spec.added.lines().collect();
        let removed: Vec<&str> = spec.removed.lines().collect();
        let status = match (&spec.status, added.is_empty(), removed.is_empty()) {
            (Some(status), _, _) => status.as_str(),
            (None, _, true) => "added",
            (None, true, false) => "removed",
            (None, false, false) => "modified",
        };
        const FILE_STATES: &[&str] = &[
            "added",
            "removed",
            "modified",
            "renamed",
            "copied",
            "changed",
            "unchanged",
        ];
        if !FILE_STATES.contains(&status) {
            return Err(self.error(
                format!("{field}.status"),
                format!("one of {}", FILE_STATES.join(", ")),
            ));
        }
        Ok(PrFile::modified(&spec.path, &removed, &added).status(status))
    }

    fn check(
        &self,
        world: &mut World,
        field: &str,
        spec: &CheckSpec,
        sha: &str,
    ) -> Result<CheckRun, FixtureError> {
        let status = spec.status.as_deref().unwrap_or("completed");
        const STATUSES: &[&str] = &["queued", "in_progress", "completed"];
        if !STATUSES.contains(&status) {
            return Err(self.error(
                format!("{field}.status"),
                format!("one of {}", STATUSES.join(", ")),
            ));
        }
        const CONCLUSIONS: &[&str] = &[
            "success",
            "failure",
            "neutral",
            "cancelled",
            "skipped",
            "timed_out",
            "action_required",
        ];
        match (status, spec.conclusion.as_deref()) {
            ("completed", Some(c)) if CONCLUSIONS.contains(&c) => {}
            ("completed", _) => {
                return Err(self.error(
                    format!("{field}.conclusion"),
                    format!("a completed check needs one of {}", CONCLUSIONS.join(", ")),
                ));
            }
            (_, Some(_)) => {
                return Err(self.error(
                    format!("{field}.conclusion"),
                    "only a completed check has a conclusion",
                ));
            }
            (_, None) => {}
        }
        let id = world.next_number_id();
        Ok(CheckRun {
            id,
            name: spec.name.clone(),
            head_sha: sha.to_string(),
            status: status.to_string(),
            conclusion: spec.conclusion.clone(),
            app_slug: spec.app.clone().unwrap_or_else(|| "github-actions".into()),
            started_at: timestamp(id),
            completed_at: (status == "completed").then(|| timestamp(id + 1)),
        })
    }
}

#[derive(Default)]
struct Tokens {
    tokens: BTreeMap<String, Token>,
    workflow: Option<String>,
    release: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Loaded, FixtureError> {
        parse(text, "world.yml", Path::new("."))
    }

    const MINIMAL: &str = "repository: o/r\ntokens:\n  - {token: t, login: bot, role: workflow}\n";

    #[test]
    fn the_example_world_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fake-world");
        let loaded = load(&dir.join("world.yml")).unwrap_or_else(|e| panic!("{e}"));
        let w = &loaded.world;
        assert_eq!(w.repo, "octo-org/hello-council");
        assert_eq!(w.default_branch, "main");
        let policy = std::fs::read_to_string(dir.join("council.yml")).unwrap_or_default();
        assert_eq!(w.file_at("develop", ".github/council.yml"), Some(&policy));
        let pr = w.pr(1).unwrap_or_else(|| panic!("pull request #1"));
        assert_eq!(
            pr.base_sha, w.branches["develop"],
            "the base is develop's head"
        );
        assert_eq!(
            w.branches[&pr.head_ref], pr.head_sha,
            "the head branch follows"
        );
        assert_eq!(w.commits[&pr.head_sha].check_runs.len(), 1);
        assert_eq!(
            loaded.environment.variables("http://127.0.0.1:1"),
            [
                ("GITHUB_API_URL", "http://127.0.0.1:1".to_string()),
                ("GITHUB_REPOSITORY", "octo-org/hello-council".to_string()),
                ("GH_TOKEN", "ghs_fake_workflow_token".to_string()),
                (
                    "COUNCIL_RELEASE_TOKEN",
                    "ghs_fake_release_token".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_minimal_world_has_its_default_branch_and_token() {
        let loaded = parse_text(MINIMAL).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.world.branches.keys().collect::<Vec<_>>(), ["main"]);
        assert!(loaded.world.tokens["t"].may(Scope::Issues, Access::Write));
        assert!(!loaded.world.tokens["t"].may(Scope::Contents, Access::Write));
        assert_eq!(loaded.environment.release_token, None);
    }

    #[test]
    fn an_unknown_key_names_the_file_the_field_and_the_line() {
        let text = format!("{MINIMAL}pulls:\n  - number: 1\n    head: x\n    reviewers: [a]\n");
        let e = parse_text(&text).err().unwrap_or_else(|| panic!("refused"));
        assert_eq!(e.file, "world.yml");
        assert_eq!(e.field, "pulls[0].reviewers", "{e}");
        assert!(e.message.contains("reviewers"), "{e}");
        assert!(e.message.contains("line 7"), "{e}");
    }

    #[test]
    fn facts_the_world_cannot_hold_are_refused_by_field() {
        let cases = [
            ("repository: nope\ntokens: []\n", "repository"),
            ("repository: o/r\ntokens: []\n", "tokens"),
            (
                &format!("{MINIMAL}branches: {{main: abc}}\n") as &str,
                "branches.main",
            ),
            (
                &format!("{MINIMAL}issues: [{{number: 2}}]\npulls: [{{number: 2, head: x}}]\n"),
                "pulls[0].number",
            ),
            (
                &format!(
                    "{MINIMAL}pulls: [{{number: 1, head: x, reviews: [{{user: a, state: LGTM}}]}}]\n"
                ),
                "pulls[0].reviews[0].state",
            ),
            (
                &format!("{MINIMAL}pulls: [{{number: 1, head: x, checks: [{{name: ci}}]}}]\n"),
                "pulls[0].checks[0].conclusion",
            ),
            (
                &format!("{MINIMAL}files: {{main: {{a.txt: {{from: missing.txt}}}}}}\n"),
                "files.main.a.txt",
            ),
        ];
        for (text, field) in cases {
            let e = parse_text(text).err().unwrap_or_else(|| panic!("{text}"));
            assert_eq!(e.field, field, "{e}");
        }
    }

    #[test]
    fn a_generate_section_fills_the_numbers_the_file_leaves_free() {
        let text = format!(
            "{MINIMAL}pulls: [{{number: 1, head: x}}]\ngenerate: {{pulls: 20, agents: 3, seed: 2, \
             entries_per_pull: 9, weeks: 4, until: 2026-06-01T00:00:00Z, registry_issue: 5, \
             hmac_key: k}}\n"
        );
        let loaded = parse_text(&text).unwrap_or_else(|e| panic!("{e}"));
        let made = loaded.generated.unwrap_or_else(|| panic!("generated"));
        let mut expected: Vec<u64> = (2..=21).filter(|n| *n != 5).collect();
        expected.push(22);
        assert_eq!(made.numbers, expected);
        assert_eq!(made.reports, 4, "3 agents, the first twice");
        let w = &loaded.world;
        assert_eq!(w.pulls.len(), 21);
        assert_eq!(
            w.issues[&5].title.as_deref(),
            Some("Agent context registry")
        );
        assert!(made.newest_update.as_str() < "2026-06-01T00:00:00Z");
        let body = w
            .comments
            .on(2)
            .next()
            .unwrap_or_else(|| panic!("a ledger"))["body"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let stored =
            council_protocol::audit::stored::parse(&body).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            stored.verify(Some(b"k")).is_ok(),
            "signed with the file's key"
        );
        assert!(w.pr(2).is_some_and(|pr| pr.author.starts_with("agent-")
            || pr.author == "alice"
            || pr.author == "bob"));
    }

    #[test]
    fn the_benchmark_world_loads_smaller() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fake-world");
        let text = std::fs::read_to_string(dir.join("bench.yml")).unwrap_or_default();
        assert!(text.contains("pulls: 10000"), "10,000 pull requests");
        // The same file with 60 pull requests: a debug build makes 10,000 in 15 s.
        let small = text.replace("pulls: 10000", "pulls: 60");
        let loaded = parse(&small, "bench.yml", &dir).unwrap_or_else(|e| panic!("{e}"));
        let made = loaded.generated.unwrap_or_else(|| panic!("generated"));
        assert_eq!(made.numbers.len(), 60);
        assert_eq!(made.reports, 9);
        assert!(loaded.world.issues.contains_key(&900));
    }

    #[test]
    fn a_generate_section_is_read_strictly() {
        let cases = [
            (
                "generate: {pulls: 3, pull_requests: 3}\n",
                "generate.pull_requests",
                "unknown field",
            ),
            (
                "generate: {agents: 3}\n",
                "generate",
                "missing field `pulls`",
            ),
            ("generate: {pulls: many}\n", "generate.pulls", ""),
            (
                "generate: {pulls: 3, until: soon}\n",
                "generate.until",
                "ISO 8601",
            ),
            (
                "generate: {pulls: 3, agents: 0}\n",
                "generate.agents",
                "1 to 1000",
            ),
            (
                "issues: [{number: 7}]\ngenerate: {pulls: 3, registry_issue: 7}\n",
                "generate.registry_issue",
                "#7 is already",
            ),
        ];
        for (section, field, message) in cases {
            let e = parse_text(&format!("{MINIMAL}{section}"))
                .err()
                .unwrap_or_else(|| panic!("refused: {section}"));
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(message), "{e}");
        }
    }

    #[test]
    fn commits_protection_and_ci_build_a_graph_world() {
        let text = format!(
            "{MINIMAL}commits:\n  - {{branch: main, message: init, files: {{a.rs: \"a\\n\", b.rs: \"b\\n\"}}}}\n  \
             - {{branch: feature/x, from: main, author: alice, files: {{a.rs: \"x\\n\", b.rs: null}}}}\n\
             pulls: [{{number: 1, head: feature/x, labels: [\"council:queued\"]}}]\n\
             protection: [{{branch: main, bypass: [\"release[bot]\"], required_linear_history: true}}]\n\
             ci: {{branches: [\"council/queue/**\"], pull_requests: true, checks: [{{name: test, minutes: 3}}], \
             red_when: [{{contains: BROKEN}}, {{all: [{{path: a.rs, contains: x}}, {{path: c.rs}}]}}]}}\n"
        );
        let loaded = parse_text(&text).unwrap_or_else(|e| panic!("{e}"));
        let w = &loaded.world;
        let main = &w.branches["main"];
        let head = &w.branches["feature/x"];
        assert_eq!(
            &w.graph.get(head).unwrap().parents,
            std::slice::from_ref(main)
        );
        assert_eq!(
            w.graph.get(head).unwrap().author.login.as_deref(),
            Some("alice")
        );
        let pr = w.pr(1).unwrap();
        assert_eq!(&pr.head_sha, head, "the head is the branch's last commit");
        let files: Vec<(String, String)> = w
            .pr_files(1)
            .into_iter()
            .map(|f| (f.filename, f.status))
            .collect();
        assert_eq!(
            files,
            [
                ("a.rs".into(), "modified".into()),
                ("b.rs".into(), "removed".into())
            ]
        );
        assert_eq!(w.issue_events[&1][0].label, "council:queued");
        assert_eq!(w.protections[0].bypass, ["release[bot]"]);
        assert!(w.protections[0].required_linear_history);
        let ci = w.ci.as_ref().unwrap();
        assert_eq!(ci.checks[0].name, "test");
        assert!(w.ci_runs.is_empty(), "the scene predates the CI rule");
        let mut tree = crate::graph::Tree::new();
        tree.insert("a.rs".into(), Blob::from("x\n"));
        assert!(!ci.verdict.red(&tree));
        tree.insert("c.rs".into(), Blob::from(""));
        assert!(ci.verdict.red(&tree));
    }

    #[test]
    fn commits_protection_and_ci_are_read_strictly() {
        let init = "commits: [{branch: main, files: {a: \"1\"}}]\n";
        let cases = [
            (
                "commits: [{branch: main, file: {a: b}}]\n",
                "commits[0].file",
                "unknown field",
            ),
            (
                "commits: [{branch: main}, {branch: main, from: main}]\n",
                "commits[1].from",
                "exists already",
            ),
            (
                "commits: [{branch: x, from: nope}]\n",
                "commits[0].from",
                "no branch",
            ),
            (
                &format!(
                    "{init}pulls: [{{number: 1, head: main, head_sha: {}}}]\n",
                    "a".repeat(40)
                ) as &str,
                "pulls[0].head_sha",
                "built by",
            ),
            (
                "commits: [{branch: f}]\npulls: [{number: 1, head: f, files: [{path: a}]}]\n",
                "pulls[0].files",
                "come from them",
            ),
            (
                "protection: [{branch: main, bypas: [a]}]\n",
                "protection[0].bypas",
                "unknown field",
            ),
            (
                "protection: [{branch: main, kind: strict}]\n",
                "protection[0].kind",
                "",
            ),
            (
                "protection: [{branch: main, kind: classic, name: x}]\n",
                "protection[0].name",
                "ruleset",
            ),
            ("ci: {branches: []}\n", "ci", "runs on nothing"),
            (
                "ci: {branches: [main], red_when: [{}]}\n",
                "ci.red_when[0]",
                "one of",
            ),
            (
                "ci: {branches: [main], red_when: [{all: []}]}\n",
                "ci.red_when[0]",
                "one of",
            ),
            (
                "ci: {branches: [main], red_when: [{all: [{path: a, all: [{path: b}]}]}]}\n",
                "ci.red_when[0].all[0]",
                "one of",
            ),
            (
                "ci: {branches: [main], checks: [{name: t, minutes: -1}]}\n",
                "ci.checks[0].minutes",
                "",
            ),
            (
                "ci: {branches: [main], timeout: 3}\n",
                "ci.timeout",
                "unknown field",
            ),
        ];
        for (section, field, message) in cases {
            let e = parse_text(&format!("{MINIMAL}{section}"))
                .err()
                .unwrap_or_else(|| panic!("refused: {section}"));
            if !field.is_empty() {
                assert_eq!(e.field, field, "{e}");
            }
            assert!(e.message.contains(message), "{section}: {e}");
        }
    }

    #[test]
    fn the_queue_world_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fake-world");
        let loaded = load(&dir.join("queue.yml")).unwrap_or_else(|e| panic!("{e}"));
        let w = &loaded.world;
        assert!(w.ci.is_some());
        assert!(!w.protections.is_empty());
        for pr in w.pulls.values() {
            assert!(
                w.graph.contains(&pr.head_sha),
                "#{} is built by commits",
                pr.number
            );
            assert!(!w.pr_files(pr.number).is_empty());
        }
    }

    #[test]
    fn permissions_change_a_role() {
        let text = "repository: o/r\ntokens:\n  - {token: t, login: bot, role: release, \
                    permissions: {contents: read, issues: none}}\n";
        let loaded = parse_text(text).unwrap_or_else(|e| panic!("{e}"));
        let token = &loaded.world.tokens["t"];
        assert!(token.may(Scope::Contents, Access::Read));
        assert!(!token.may(Scope::Contents, Access::Write));
        assert!(!token.may(Scope::Issues, Access::Read));
        assert_eq!(loaded.environment.release_token.as_deref(), Some("t"));
    }
}
