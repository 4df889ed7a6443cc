//! A flag given before its subcommand (`council --dry-run guard …`): clap can only say
//! that the flag and the subcommand conflict (the top level is the action, whose flags
//! are its inputs); this says where the flag goes, with the command line fixed.

use std::ffi::OsString;

use clap::CommandFactory;

use crate::cli::Cli;

/// `move `--dry-run` after `guard`: council guard --dry-run --event x.json` when `args`
/// (the program's name first) hold top-level flags, then a subcommand that takes every
/// one of them; `None` for anything else (clap's message stands).
pub fn hint(args: &[OsString]) -> Option<String> {
    let tokens: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    let mut root = Cli::command();
    root.build();
    let mut moved: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    let at = loop {
        let token = tokens.get(i)?;
        if let Some(flag) = token.strip_prefix("--").filter(|f| !f.is_empty()) {
            let (name, attached) = match flag.split_once('=') {
                Some((name, _)) => (name, true),
                None => (flag, false),
            };
            let arg = root.get_arguments().find(|a| a.get_long() == Some(name))?;
            moved.push(token.clone());
            names.push(name.to_string());
            if !attached && takes_next(arg) {
                i += 1;
                moved.push(value_shown(arg, tokens.get(i)?));
            }
            i += 1;
            continue;
        }
        if token.starts_with('-') {
            return None;
        }
        break i;
    };
    if moved.is_empty() {
        return None;
    }
    // The subcommand's path (`state get`): the flags go after its last word.
    let mut command = root.find_subcommand(&tokens[at])?.clone();
    let mut path = vec![tokens[at].clone()];
    let mut rest = at + 1;
    while let Some(sub) = tokens
        .get(rest)
        .and_then(|t| command.find_subcommand(t))
        .cloned()
    {
        path.push(tokens[rest].clone());
        command = sub;
        rest += 1;
    }
    let takes = |name: &str| command.get_arguments().any(|a| a.get_long() == Some(name));
    if !names.iter().all(|n| takes(n)) {
        return None;
    }
    let rest: Vec<String> = tokens[rest..]
        .iter()
        .enumerate()
        .map(|(k, t)| shown_after(&command, &tokens[rest..], k, t))
        .collect();
    let fixed: Vec<String> = std::iter::once("council".to_string())
        .chain(path.iter().cloned())
        .chain(moved.iter().cloned())
        .chain(rest)
        .map(|t| quoted(&t))
        .collect();
    Some(format!(
        "move `{}` after `{}`: {}",
        moved.join(" "),
        path.join(" "),
        fixed.join(" ")
    ))
}

/// The flag takes the next word as its value (`--issue 1`), not only `--flag=value`.
fn takes_next(arg: &clap::Arg) -> bool {
    arg.get_action().takes_values()
        && !arg.is_require_equals_set()
        && arg.get_num_args().is_none_or(|n| n.min_values() > 0)
}

/// A value as the hint shows it: a secret's never (the hint may land in a log), its
/// placeholder instead.
fn value_shown(arg: &clap::Arg, value: &str) -> String {
    if arg.is_hide_env_values_set() {
        let name = arg
            .get_value_names()
            .and_then(|names| names.first())
            .map_or("VALUE", |n| n.as_str());
        format!("<{name}>")
    } else {
        value.to_string()
    }
}

/// A word after the subcommand, secret values masked as before it.
fn shown_after(command: &clap::Command, words: &[String], k: usize, word: &str) -> String {
    let secret = |arg: &clap::Arg| arg.is_hide_env_values_set() && takes_next(arg);
    let previous = k
        .checked_sub(1)
        .and_then(|p| words[p].strip_prefix("--"))
        .and_then(|name| command.get_arguments().find(|a| a.get_long() == Some(name)));
    match previous {
        Some(arg) if secret(arg) => value_shown(arg, word),
        _ => word.to_string(),
    }
}

/// A word as a POSIX shell reads it back.
fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint_for(line: &str) -> Option<String> {
        let args: Vec<OsString> = std::iter::once("council")
            .chain(line.split(' '))
            .map(OsString::from)
            .collect();
        // Whatever the hint says, clap refuses the line too: it only replaces the words.
        assert!(Cli::parse_from_iter(&args).is_err(), "{line}");
        hint(&args)
    }

    #[test]
    fn a_flag_before_its_subcommand_is_moved_after_it() {
        assert_eq!(
            hint_for("--dry-run guard --event x.json").as_deref(),
            Some("move `--dry-run` after `guard`: council guard --dry-run --event x.json")
        );
        assert_eq!(
            hint_for("--json state get --issue 1").as_deref(),
            Some("move `--json` after `state get`: council state get --json --issue 1")
        );
        assert_eq!(
            hint_for("--policy my policy.yml --dry-run=false guard").as_deref(),
            None,
            "a stray word before the subcommand is not a subcommand"
        );
        assert_eq!(
            hint_for("--issue 7 --json state get").as_deref(),
            Some("move `--issue 7 --json` after `state get`: council state get --issue 7 --json")
        );
    }

    #[test]
    fn flags_the_subcommand_does_not_take_keep_claps_message() {
        assert_eq!(hint_for("--command review guard"), None);
        assert_eq!(hint_for("--intent x verify a.json"), None);
        assert_eq!(hint_for("guard --command review"), None);
    }

    #[test]
    fn secrets_are_never_repeated_and_odd_words_are_quoted() {
        assert_eq!(
            hint_for("--github-token ghp_secret guard --hmac-key k2 --event my_event's.json")
                .as_deref(),
            Some(
                "move `--github-token <TOKEN>` after `guard`: council guard --github-token \
                 '<TOKEN>' --hmac-key '<KEY>' --event 'my_event'\\''s.json'"
            )
        );
    }
}
