//! The commands a run can be asked for: the `command` input's values and the CLI's
//! subcommands. Three of them run pipeline stages; the rest act on issues, files and
//! audit records (pure).

use std::fmt;

use crate::stage::Stage;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Command {
    Guard,
    Review,
    Release,
    StateGet,
    StatePut,
    ContextValidate,
    ContextSync,
    Report,
    Assign,
    Verify,
}

impl Command {
    pub const ALL: [Command; 10] = [
        Command::Guard,
        Command::Review,
        Command::Release,
        Command::StateGet,
        Command::StatePut,
        Command::ContextValidate,
        Command::ContextSync,
        Command::Report,
        Command::Assign,
        Command::Verify,
    ];

    /// The name the `command` input uses (the CLI spaces it: `state-get` is `council
    /// state get`).
    pub fn name(self) -> &'static str {
        match self {
            Command::Guard => "guard",
            Command::Review => "review",
            Command::Release => "release",
            Command::StateGet => "state-get",
            Command::StatePut => "state-put",
            Command::ContextValidate => "context-validate",
            Command::ContextSync => "context-sync",
            Command::Report => "report",
            Command::Assign => "assign",
            Command::Verify => "verify",
        }
    }

    pub fn from_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Every `command` input value, for messages.
    pub fn list() -> String {
        let mut names = vec!["auto"];
        names.extend(Command::ALL.iter().map(|c| c.name()));
        names.join(", ")
    }

    /// The pipeline stages the command runs, in order: review runs behind the guard (it
    /// is defined on a pull request whose guard passed).
    pub fn stages(self) -> &'static [Stage] {
        match self {
            Command::Guard => &[Stage::Guard],
            Command::Review => &[Stage::Guard, Stage::Review],
            Command::Release => &[Stage::Release],
            _ => &[],
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_only_pipeline_commands_run_stages() {
        for command in Command::ALL {
            assert_eq!(Command::from_name(command.name()), Some(command));
            let pipeline = matches!(command, Command::Guard | Command::Review | Command::Release);
            assert_eq!(!command.stages().is_empty(), pipeline, "{command}");
        }
        assert_eq!(Command::from_name("auto"), None);
        assert_eq!(
            Command::list(),
            "auto, guard, review, release, state-get, state-put, context-validate, \
             context-sync, report, assign, verify"
        );
    }
}
