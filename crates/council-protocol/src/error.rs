//! Every failure the rules and the clients report, typed by what failed, and how a run
//! ended ([`Outcome`]). Each error is of a [`Kind`]; the binary maps kinds and outcomes
//! to the contract's exit codes, titles and advice (`src/exit.rs`), in one place.

use std::path::PathBuf;

use thiserror::Error;

use crate::redact::shown;

/// Every message is shown through [`shown`]: errors quote flags, inputs, policy text and
/// file contents, and reach the terminal, annotations, the step summary and `--json`;
/// redacting where they are shown covers every way one is built.
#[derive(Debug, Error)]
pub enum Error {
    /// Wrong flags, inputs or environment: the user must change the invocation.
    #[error("{}", shown(.0))]
    Usage(String),

    /// The event payload is unreadable or lacks a field the stage needs.
    #[error("event {}: {}", shown(path), shown(message))]
    Event { path: String, message: String },

    /// The policy file is invalid; `location` is `file:line:column` when known.
    #[error("policy {}: {}", shown(location), shown(message))]
    Policy { location: String, message: String },

    /// Any other input that is not well formed (state blocks, memory JSON, audit files, ...).
    #[error("{}", shown(.0))]
    Input(String),

    /// A local file could not be read or written; `what` names the input it is (`event
    /// file`, `policy file`), so that the message says more than the operating system.
    #[error("{what} {}: {}", shown(&path.to_string_lossy()), io_reason(source))]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The GitHub API failed after bounded retries; the message says what to do.
    #[error("{}", shown(.0))]
    Api(String),

    /// The artifact service failed after bounded retries.
    #[error("{}", shown(.0))]
    Artifact(String),

    /// A verification found tampering (council verify).
    #[error("{}", shown(.0))]
    Tampered(String),

    /// The audit store (SQLite or PostgreSQL) could not be opened or written.
    #[error("{}", shown(.0))]
    Store(String),
}

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A verification found tampering: a result, like a failed gate.
    Tampered,
    /// The invocation, the event, the policy or another input must change.
    BadInput,
    /// A service (the GitHub API, the artifact service, the audit store) failed after
    /// bounded retries.
    Service,
}

impl Error {
    pub fn kind(&self) -> Kind {
        match self {
            Error::Tampered(_) => Kind::Tampered,
            Error::Usage(_)
            | Error::Event { .. }
            | Error::Policy { .. }
            | Error::Input(_)
            | Error::Io { .. } => Kind::BadInput,
            Error::Api(_) | Error::Artifact(_) | Error::Store(_) => Kind::Service,
        }
    }

    /// A file error naming `what` the file is: `Error::io("event file", path, e)` reads
    /// `event file nope.json: no such file or directory`.
    pub fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            what,
            path: path.into(),
            source,
        }
    }
}

/// What went wrong with a file, in words rather than the operating system's (`No such
/// file or directory (os error 2)`); kinds without better words keep the system's text.
pub fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file or directory".to_string(),
        ErrorKind::PermissionDenied => "permission denied".to_string(),
        ErrorKind::IsADirectory => "is a directory, not a file".to_string(),
        ErrorKind::NotADirectory => "a part of the path is not a directory".to_string(),
        _ => e.to_string(),
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a whole run ended, before it becomes a process exit code.
///
/// A computed verdict decides the code: a failed gate exits 1 even when an effect then
/// failed; 3 is only for "all passed but an effect failed" or "nothing could be decided".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    GateFailed,
    EffectFailed,
    /// Every gate that ran passed, but a later stage could not be decided: the kind of
    /// the error that stopped it.
    Unfinished(Kind),
}

impl Outcome {
    /// The worse of two runs' endings, for a run over several pull requests: the same
    /// order as a single run's (a failed gate, then an undecided stage, then a failed
    /// effect).
    pub fn worst(self, other: Outcome) -> Outcome {
        fn rank(o: Outcome) -> u8 {
            match o {
                Outcome::Passed => 0,
                Outcome::EffectFailed => 1,
                Outcome::Unfinished(_) => 2,
                Outcome::GateFailed => 3,
            }
        }
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_is_of_a_kind() {
        assert_eq!(Error::Usage("x".into()).kind(), Kind::BadInput);
        assert_eq!(
            Error::Policy {
                location: "a:1:1".into(),
                message: "m".into()
            }
            .kind(),
            Kind::BadInput
        );
        assert_eq!(Error::Api("x".into()).kind(), Kind::Service);
        assert_eq!(Error::Artifact("x".into()).kind(), Kind::Service);
        assert_eq!(Error::Store("x".into()).kind(), Kind::Service);
        assert_eq!(Error::Tampered("x".into()).kind(), Kind::Tampered);
    }

    #[test]
    fn a_file_error_names_the_input_and_says_what_went_wrong_in_words() {
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = Error::io("event file", "nope.json", missing);
        assert_eq!(
            e.to_string(),
            "event file nope.json: no such file or directory"
        );
        assert_eq!(e.kind(), Kind::BadInput);
        let dir = std::io::Error::from(std::io::ErrorKind::IsADirectory);
        assert_eq!(
            Error::io("policy file", "conf", dir).to_string(),
            "policy file conf: is a directory, not a file"
        );
    }

    #[test]
    fn the_worst_of_several_runs_follows_a_single_runs_order() {
        let all = [
            Outcome::Passed,
            Outcome::EffectFailed,
            Outcome::Unfinished(Kind::BadInput),
            Outcome::GateFailed,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i..] {
                assert_eq!(a.worst(*b), *b, "{a:?} vs {b:?}");
                assert_eq!(b.worst(*a), *b, "{b:?} vs {a:?}");
            }
        }
    }
}
