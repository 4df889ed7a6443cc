//! The value parsers: each flag's value (and each `INPUT_<NAME>`, read by the same flag)
//! typed where it is parsed, with a message that says what is expected. Empty inputs
//! never get here: the runner sets every input the workflow leaves empty to `""`, which
//! counts as unset (see `without_blank_inputs`).

use std::fmt;

use council_protocol::command::Command;

use crate::secret::Secret;

/// `true`/`false` in any letter case, as `@actions/core`'s `getBooleanInput` reads them.
pub fn boolean(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("`{value}` is not a boolean; use true or false")),
    }
}

/// A whole number; a leading `#` (an issue or pull request as GitHub writes it) is fine.
pub fn number(value: &str) -> Result<u64, String> {
    let trimmed = value.trim();
    trimmed
        .strip_prefix('#')
        .unwrap_or(trimmed)
        .parse::<u64>()
        .map_err(|_| format!("`{value}` is not a whole number"))
}

/// Artifact retention: 0 is the repository's default; more than 400 days no repository
/// allows.
pub fn retention_days(value: &str) -> Result<u32, String> {
    match number(value)? {
        days @ 0..=400 => Ok(days as u32),
        days => Err(format!(
            "{days} days is more than any repository allows (1-90 by default, 400 at most)"
        )),
    }
}

/// Comma- or newline-separated logins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Logins(pub Vec<String>);

pub fn logins(value: &str) -> Result<Logins, String> {
    Ok(Logins(
        value
            .split([',', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    ))
}

/// A token, a key or a URL that may hold a password: never shown (`Debug` prints `***`).
/// Tokens hold no whitespace: a trailing newline from a secret store is dropped.
pub fn secret(value: &str) -> Result<Secret, String> {
    let trimmed = value.trim();
    match trimmed.is_empty() {
        true => Err("the value is empty".to_string()),
        false => Ok(Secret::new(trimmed)),
    }
}

/// An HMAC key is used byte for byte (a key may hold spaces).
pub fn key(value: &str) -> Result<Secret, String> {
    match value.is_empty() {
        true => Err("the key is empty".to_string()),
        false => Ok(Secret::new(value)),
    }
}

/// A webhook event name GitHub sends: a typed one may be a typo, caught before it reads
/// as "nothing to do".
pub fn event_name(value: &str) -> Result<String, String> {
    let name = value.trim();
    match council_protocol::event::unknown_event_name(name) {
        Some(why) => Err(why),
        None => Ok(name.to_string()),
    }
}

/// What the action runs: `auto` (the event decides) or one named command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandInput {
    Auto,
    Named(Command),
}

pub fn command(value: &str) -> Result<CommandInput, String> {
    match value.trim() {
        "auto" => Ok(CommandInput::Auto),
        other => Command::from_name(other)
            .map(CommandInput::Named)
            .ok_or_else(|| format!("unknown command `{other}`; use one of {}", Command::list())),
    }
}

/// `context-sync`: which way the mapping goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// The issue's latest `<agent-state>` onto the file.
    #[default]
    ToFile,
    /// The file as a new `<agent-state>` on the issue.
    ToIssue,
}

pub fn direction(value: &str) -> Result<Direction, String> {
    match value.trim() {
        "to-file" => Ok(Direction::ToFile),
        "to-issue" => Ok(Direction::ToIssue),
        other => Err(format!(
            "`{other}` is not a direction; use to-file or to-issue"
        )),
    }
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::ToFile => "to-file",
            Direction::ToIssue => "to-issue",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_strict_and_case_blind() {
        for (text, value) in [("true", true), ("TRUE", true), (" False ", false)] {
            assert_eq!(boolean(text), Ok(value));
        }
        assert_eq!(
            boolean("yes").unwrap_err(),
            "`yes` is not a boolean; use true or false"
        );
    }

    #[test]
    fn numbers_lists_and_retention() {
        assert_eq!(number("#12"), Ok(12));
        assert!(number("twelve").is_err() && number("-1").is_err());
        assert_eq!(
            logins("a, b\nrenovate[bot],"),
            Ok(Logins(vec!["a".into(), "b".into(), "renovate[bot]".into()]))
        );
        assert_eq!(retention_days("7"), Ok(7));
        assert!(retention_days("9999").unwrap_err().contains("400 at most"));
    }

    #[test]
    fn secrets_are_trimmed_and_never_shown() {
        let token = secret(" ghp_abc\n").unwrap();
        assert_eq!(token.expose(), "ghp_abc");
        assert_eq!(format!("{token:?}"), "***");
        assert!(secret("  ").is_err());
        assert_eq!(key(" k ").unwrap().expose(), " k ");
    }

    #[test]
    fn commands_and_directions() {
        assert_eq!(command("auto"), Ok(CommandInput::Auto));
        assert_eq!(
            command("state-get"),
            Ok(CommandInput::Named(Command::StateGet))
        );
        assert!(
            command("deploy")
                .unwrap_err()
                .contains("unknown command `deploy`")
        );
        assert_eq!(direction("to-issue"), Ok(Direction::ToIssue));
        assert!(direction("up").is_err());
    }
}
