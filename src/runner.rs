//! The runner's side channels: `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, workflow commands
//! (`::error::`, `::warning::`, `::notice::`). Outside Actions, plain lines on stderr.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub struct Runner {
    /// Inside GitHub Actions: emit workflow commands rather than plain messages.
    pub actions: bool,
    pub output_path: Option<PathBuf>,
    pub summary_path: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

impl Runner {
    /// Writes outputs in the heredoc form, safe for any value.
    pub fn set_outputs(&self, outputs: &[(&str, String)]) -> Result<()> {
        let Some(path) = &self.output_path else {
            return Ok(());
        };
        let mut text = String::new();
        for (name, value) in outputs {
            text.push_str(&format_output(name, value, &delimiter_for(value)));
        }
        append(path, &text)
    }

    pub fn append_summary(&self, markdown: &str) -> Result<()> {
        match &self.summary_path {
            Some(path) => append(path, markdown),
            None => Ok(()),
        }
    }

    pub fn annotate(&self, level: Level, title: &str, message: &str) {
        if self.actions {
            println!("{}", workflow_command(level, title, message));
        } else {
            eprintln!("{}: {title}: {message}", level.command());
        }
    }
}

fn append(path: &PathBuf, text: &str) -> Result<()> {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all(text.as_bytes())
        .map_err(|e| Error::io(path, e))
}

/// A random delimiter that does not occur in the value.
fn delimiter_for(value: &str) -> String {
    loop {
        let delimiter = format!(
            "ghadelimiter_{}",
            hex::encode(&crate::jitter::bytes()[..12])
        );
        if !value.contains(&delimiter) {
            return delimiter;
        }
    }
}

pub fn format_output(name: &str, value: &str, delimiter: &str) -> String {
    format!("{name}<<{delimiter}\n{value}\n{delimiter}\n")
}

pub fn workflow_command(level: Level, title: &str, message: &str) -> String {
    format!(
        "::{} title={}::{}",
        level.command(),
        escape_property(title),
        escape_data(message)
    )
}

/// Escaping of `@actions/core`'s `escapeData`.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of `@actions/core`'s `escapeProperty`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_use_a_heredoc() {
        insta::assert_snapshot!(format_output("context", "{\"a\":1}\nsecond line", "EOF_X"), @r#"
        context<<EOF_X
        {"a":1}
        second line
        EOF_X
        "#);
    }

    #[test]
    fn delimiters_never_occur_in_the_value() {
        let d = delimiter_for("ghadelimiter_");
        assert!(d.starts_with("ghadelimiter_") && d.len() > 20);
    }

    #[test]
    fn workflow_commands_are_escaped() {
        assert_eq!(
            workflow_command(Level::Error, "guard: a,b", "50% done\r\nnext ::x::"),
            "::error title=guard%3A a%2Cb::50%25 done%0D%0Anext ::x::"
        );
    }

    #[test]
    fn outputs_and_summary_append_to_files() {
        let dir = tempfile::tempdir().unwrap();
        let runner = Runner {
            actions: true,
            output_path: Some(dir.path().join("out")),
            summary_path: Some(dir.path().join("summary")),
        };
        runner
            .set_outputs(&[("a", "1".into()), ("b", "x\ny".into())])
            .unwrap();
        runner.append_summary("# hi\n").unwrap();
        let out = std::fs::read_to_string(dir.path().join("out")).unwrap();
        assert!(out.starts_with("a<<ghadelimiter_"));
        assert!(out.contains("\nx\ny\n"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("summary")).unwrap(),
            "# hi\n"
        );
    }
}
