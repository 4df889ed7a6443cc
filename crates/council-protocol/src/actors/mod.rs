//! Agents and humans (SPEC "Agents and humans"): whose pull request this is, decided
//! from live facts by one function, [`classify`], which every enforcement point calls:
//! MCP `check_branch` and `council policy check` before a pull request exists
//! ([`preflight()`]), review's `check:actor` and agents' gates, release's
//! `check:human-approval`, and `council policy simulate` over recorded pull requests
//! ([`simulate`]). What a point does not know (no commits yet, no labels) it leaves
//! `None`, and the class only ever grows with facts: evidence found in a login or a
//! branch is found by every point that has them, so a point with fewer facts can call
//! a pull request a human's that a later one calls an agent's, never the reverse.

pub mod preflight;
pub mod simulate;
pub mod trailers;

#[cfg(test)]
mod tests;

use crate::gates::release::short;
use crate::policy::actors::MAX_TRAILER_VALUE_CHARS;
use crate::policy::{AgentRules, Detection};
use crate::render::text::Message;

pub use preflight::{Preflight, preflight};
pub use simulate::{ClassChange, GateChange, RecordedPull, Replay, replay};

/// The most commits GitHub lists for a pull request (the pull request commits endpoint).
pub const MAX_LISTED_COMMITS: u64 = 250;
/// Matching trailers named in the evidence; more are counted.
const MAX_TRAILER_EVIDENCE: usize = 3;
/// Characters of a trailer shown in a message.
const SHOWN_TRAILER_CHARS: usize = 200;
/// Trailer globs tried for one pull request, at most. Each costs at most (glob length ×
/// value length / 64) word operations, both bounded; the budget keeps the product of a
/// policy of 1,000 long trailer globs and 25,000 trailers (250 commits of 100) to a
/// fraction of a second. An honest pull request under the default policy, whose
/// trailers each meet the one or two globs for their key, stays far below it.
pub const MAX_TRAILER_CHECKS: usize = 100_000;

/// An agent's or a human's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Agent,
    Human,
}

impl Class {
    /// The `actor` output: `agent` or `human`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Agent => "agent",
            Class::Human => "human",
        }
    }
}

/// One commit of the pull request as GitHub lists it: its SHA and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitMessage {
    pub sha: String,
    pub message: String,
}

/// The pull request's commits as read: those GitHub listed (at most
/// [`MAX_LISTED_COMMITS`]) and how many it has in all.
#[derive(Debug, Clone, Copy)]
pub struct Commits<'a> {
    pub listed: &'a [CommitMessage],
    /// The pull request's commit count (`commits` of the pull request).
    pub total: u64,
}

/// What an enforcement point knows about a pull request, or about a branch before a
/// pull request exists. `None`: not known there (not "none").
#[derive(Debug, Clone, Copy)]
pub struct ActorFacts<'a> {
    /// The author's login as the REST API writes it ([`rest_login`] for GraphQL's).
    pub author: Option<&'a str>,
    pub head: &'a str,
    pub labels: Option<&'a [String]>,
    pub commits: Option<Commits<'a>>,
}

/// Which fact made a pull request an agent's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    Login {
        login: String,
        glob: String,
        /// The account's other login that matched ([`crate::policy::actors::LOGIN_ALIASES`]).
        alias: Option<&'static str>,
    },
    Branch {
        branch: String,
        glob: String,
    },
    Trailer {
        commit: String,
        /// `Key: value` as written (the value unfolded).
        trailer: String,
        glob: String,
    },
    Label {
        label: String,
    },
}

/// The kinds of evidence, in the order messages name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EvidenceKind {
    Login,
    Branch,
    Trailer,
    Label,
}

impl EvidenceKind {
    pub const ALL: [EvidenceKind; 4] = [
        EvidenceKind::Login,
        EvidenceKind::Branch,
        EvidenceKind::Trailer,
        EvidenceKind::Label,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceKind::Login => "login",
            EvidenceKind::Branch => "branch",
            EvidenceKind::Trailer => "trailer",
            EvidenceKind::Label => "label",
        }
    }

    /// Known before a pull request exists, and recorded for it: what `policy simulate`
    /// can replay.
    pub fn of_branch_and_author(self) -> bool {
        matches!(self, EvidenceKind::Login | EvidenceKind::Branch)
    }
}

impl Evidence {
    pub fn kind(&self) -> EvidenceKind {
        match self {
            Evidence::Login { .. } => EvidenceKind::Login,
            Evidence::Branch { .. } => EvidenceKind::Branch,
            Evidence::Trailer { .. } => EvidenceKind::Trailer,
            Evidence::Label { .. } => EvidenceKind::Label,
        }
    }
}

/// How many of the pull request's commits were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitsRead {
    pub read: u64,
    pub total: u64,
}

/// A pull request's class and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub class: Class,
    /// What matched, by kind in [`EvidenceKind`] order; empty for a human.
    pub evidence: Vec<Evidence>,
    /// What the decision could not see (commits GitHub does not list, trailers past the
    /// limits), for `::warning::` lines.
    pub warnings: Vec<Message>,
    /// The commits whose trailers were read; `None` when none were.
    pub commits: Option<CommitsRead>,
    seen: Seen,
}

/// What was looked at, for a human's message.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    author: Option<String>,
    head: String,
    labels: Option<usize>,
    detection_off: bool,
    /// Matching trailers beyond those named in the evidence.
    more_trailers: usize,
}

/// A pull request's class with the rules for agents: what the review and release gates
/// read ([`crate::review::ReviewFacts::actor`], [`crate::gates::release::ReleaseFacts`]).
#[derive(Debug, Clone, Copy)]
pub struct Classified<'a> {
    pub actor: &'a Actor,
    /// `actors.agent` of the base branch's policy.
    pub rules: &'a AgentRules,
}

impl Classified<'_> {
    pub fn is_agent(&self) -> bool {
        self.actor.is_agent()
    }
}

/// The class of a pull request (or of a branch before one exists) under the policy's
/// `actors.agents`: an agent's when any login, branch, trailer or label matches.
pub fn classify(agents: &Detection, facts: &ActorFacts) -> Actor {
    let mut evidence = Vec::new();
    let mut warnings = Vec::new();
    if let Some((glob, alias)) = facts.author.and_then(|a| agents.login(a)) {
        evidence.push(Evidence::Login {
            login: facts.author.unwrap_or_default().to_string(),
            glob: glob.glob.clone(),
            alias,
        });
    }
    if let Some(glob) = agents.branch(facts.head) {
        evidence.push(Evidence::Branch {
            branch: facts.head.to_string(),
            glob: glob.glob.clone(),
        });
    }
    let mut more_trailers = 0;
    let mut commits_read = None;
    if let Some(commits) = facts.commits {
        let (mut unread, mut too_long, mut unchecked, mut checks) =
            (0usize, 0usize, 0usize, 0usize);
        // Without trailer globs the messages decide nothing: not even parsed.
        let listed = if agents.trailers.is_empty() {
            &[][..]
        } else {
            commits.listed
        };
        for commit in listed {
            let block = trailers::parse(&commit.message);
            unread += block.unread;
            for t in &block.trailers {
                if t.value.len() > MAX_TRAILER_VALUE_CHARS
                    && t.value.chars().count() > MAX_TRAILER_VALUE_CHARS
                {
                    too_long += 1;
                    continue;
                }
                if checks >= MAX_TRAILER_CHECKS {
                    unchecked += 1;
                    continue;
                }
                let Some(glob) = agents.trailer_counted(t.key, &t.value, &mut checks) else {
                    continue;
                };
                let named = evidence
                    .iter()
                    .filter(|e| e.kind() == EvidenceKind::Trailer)
                    .count();
                if named == MAX_TRAILER_EVIDENCE {
                    more_trailers += 1;
                    continue;
                }
                evidence.push(Evidence::Trailer {
                    commit: commit.sha.clone(),
                    trailer: format!("{}: {}", t.key, t.value),
                    glob: glob.glob.clone(),
                });
            }
        }
        let read = commits.listed.len() as u64;
        let total = commits.total.max(read);
        if total > read && !agents.trailers.is_empty() {
            warnings.push(Message::new().text(format!(
                "actors: read the trailers of {read} of the pull request's {total} commits \
                 (GitHub lists at most {MAX_LISTED_COMMITS}); a trailer in the other {} \
                 was not seen",
                total - read
            )));
        }
        if unread > 0 {
            warnings.push(Message::new().text(format!(
                "actors: {unread} trailer{} beyond the first {} of a commit {} not read",
                plural_s(unread),
                trailers::MAX_TRAILERS,
                if unread == 1 { "was" } else { "were" }
            )));
        }
        if too_long > 0 {
            warnings.push(Message::new().text(format!(
                "actors: {too_long} trailer{} with a value longer than \
                 {MAX_TRAILER_VALUE_CHARS} characters {} not matched",
                plural_s(too_long),
                if too_long == 1 { "was" } else { "were" }
            )));
        }
        if unchecked > 0 {
            warnings.push(Message::new().text(format!(
                "actors: {unchecked} trailer{} not matched: matching stops after \
                 {MAX_TRAILER_CHECKS} glob checks per pull request",
                plural_s(unchecked),
            )));
        }
        commits_read = Some(CommitsRead { read, total });
    }
    if let Some(labels) = facts.labels {
        for label in labels {
            if agents.label(label).is_some()
                && !evidence
                    .iter()
                    .any(|e| matches!(e, Evidence::Label { label: l } if same_label(l, label)))
            {
                evidence.push(Evidence::Label {
                    label: label.clone(),
                });
            }
        }
    }
    Actor {
        class: if evidence.is_empty() {
            Class::Human
        } else {
            Class::Agent
        },
        evidence,
        warnings,
        commits: commits_read,
        seen: Seen {
            author: facts.author.map(str::to_string),
            head: facts.head.to_string(),
            labels: facts.labels.map(<[String]>::len),
            detection_off: agents.is_off(),
            more_trailers,
        },
    }
}

fn plural_s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl Actor {
    pub fn is_agent(&self) -> bool {
        self.class == Class::Agent
    }

    /// The kinds of evidence found, in order, without repeats.
    pub fn kinds(&self) -> Vec<EvidenceKind> {
        let mut kinds: Vec<EvidenceKind> = self.evidence.iter().map(Evidence::kind).collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// `check:actor`'s message: the class, then what matched (or what was looked at).
    /// It starts `agent (login, trailer):` or `human:`, in words no user value comes
    /// before, so that [`RecordedActor::parse`] reads the class back from the ledger.
    pub fn message(&self) -> Message {
        if !self.is_agent() {
            return self.human_message();
        }
        let kinds: Vec<&str> = self.kinds().iter().map(|k| k.as_str()).collect();
        let mut m = Message::new().text(format!("agent ({}): ", kinds.join(", ")));
        for (i, e) in self.evidence.iter().enumerate() {
            if i > 0 {
                m = m.text("; ");
            }
            m = match e {
                Evidence::Login { login, glob, alias } => {
                    let mut m = m.text("author ").value(login);
                    if let Some(alias) = alias {
                        m = m.text(" (GitHub also writes it ").value(*alias).text(")");
                    }
                    m.text(" matches actors.agents.logins ").value(glob)
                }
                Evidence::Branch { branch, glob } => m
                    .text("head branch ")
                    .value(branch)
                    .text(" matches actors.agents.branches ")
                    .value(glob),
                Evidence::Trailer {
                    commit,
                    trailer,
                    glob,
                } => m
                    .text(format!("commit {} has trailer ", short(commit)))
                    .value(shown(trailer))
                    .text(", which matches actors.agents.trailers ")
                    .value(glob),
                Evidence::Label { label } => m
                    .text("label ")
                    .value(label)
                    .text(" is in actors.agents.labels"),
            };
        }
        if self.seen.more_trailers > 0 {
            m = m.text(format!(
                "; {} more matching trailer{}",
                self.seen.more_trailers,
                plural_s(self.seen.more_trailers)
            ));
        }
        m.text(".")
    }

    fn human_message(&self) -> Message {
        if self.seen.detection_off {
            return Message::new().text(
                "human: agent detection is off (actors.agents lists no login, branch, \
                 trailer or label).",
            );
        }
        let mut m = Message::new()
            .text("human: no login, branch, trailer or label of actors.agents matches (");
        m = match &self.seen.author {
            Some(author) => m.text("author ").value(author),
            None => m.text("author not known"),
        };
        m = m.text(", head branch ").value(&self.seen.head);
        m = m.text(match self.commits {
            Some(c) if c.read < c.total => {
                format!(", trailers of {} of {} commits", c.read, c.total)
            }
            Some(c) => format!(
                ", trailers of {} commit{}",
                c.read,
                plural_s(c.read as usize)
            ),
            None => ", commits not read".to_string(),
        });
        m = m.text(match self.seen.labels {
            Some(0) => ", no labels".to_string(),
            Some(n) => format!(", {n} label{}", plural_s(n)),
            None => ", labels not read".to_string(),
        });
        m.text(").")
    }
}

/// A trailer as a message shows it: cut to [`SHOWN_TRAILER_CHARS`] characters (its
/// hidden characters are shown by the message, as `<U+202E>`).
fn shown(trailer: &str) -> String {
    match trailer.char_indices().nth(SHOWN_TRAILER_CHARS) {
        Some((end, _)) => format!("{}…", trailer.get(..end).unwrap_or(trailer)),
        None => trailer.to_string(),
    }
}

/// A login as the REST API writes it, from GraphQL's `login` and `__typename`: GraphQL
/// drops the `[bot]` that an app's REST login (and a comment author's) carries.
pub fn rest_login(login: String, typename: &str) -> String {
    if typename == "Bot" && !login.ends_with("[bot]") {
        format!("{login}[bot]")
    } else {
        login
    }
}

/// Label names compare without letter case, as GitHub's do.
pub fn same_label(a: &str, b: &str) -> bool {
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

/// The class a `check:actor` timeline entry recorded, read back from its message (for
/// `policy simulate`), with the kinds of evidence it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedActor {
    pub class: Class,
    pub kinds: Vec<EvidenceKind>,
}

impl RecordedActor {
    /// Reads `agent (login, branch): …` or `human: …`; `None` for anything else.
    pub fn parse(message: &str) -> Option<RecordedActor> {
        if message.starts_with("human:") {
            return Some(RecordedActor {
                class: Class::Human,
                kinds: Vec::new(),
            });
        }
        let rest = message.strip_prefix("agent (")?;
        let (list, _) = rest.split_once("):")?;
        let kinds = list
            .split(", ")
            .map(|word| EvidenceKind::ALL.into_iter().find(|k| k.as_str() == word))
            .collect::<Option<Vec<_>>>()?;
        (!kinds.is_empty()).then_some(RecordedActor {
            class: Class::Agent,
            kinds,
        })
    }

    /// The class rests on facts `policy simulate` replays (the author and branch) only.
    pub fn replayable(&self) -> bool {
        self.kinds.iter().all(|k| k.of_branch_and_author())
    }
}
