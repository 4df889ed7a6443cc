//! The runner's side channels: `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, workflow commands
//! (`::error::`, `::warning::`, `::notice::`). Outside Actions, plain lines on stderr.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use council_protocol::error::{Error, Result};

#[derive(Debug, Clone, Default)]
pub struct Runner {
    /// Inside GitHub Actions: emit workflow commands rather than plain messages.
    pub actions: bool,
    pub output_path: Option<PathBuf>,
    pub summary_path: Option<PathBuf>,
    /// Where stdout and stderr go: the process's, or (a run inside a test) a buffer.
    pub sink: Sink,
}

/// What a run prints: on the process's stdout and stderr, or kept (a test runs the app
/// in-process and reads what a workflow would have seen).
#[derive(Debug, Clone, Default)]
pub enum Sink {
    #[default]
    Process,
    Captured(Arc<Captured>),
}

/// Everything a run printed, by stream.
#[derive(Debug, Default)]
pub struct Captured {
    pub stdout: Mutex<String>,
    pub stderr: Mutex<String>,
}

impl Sink {
    /// A new buffer, and the sink that fills it.
    pub fn capture() -> (Sink, Arc<Captured>) {
        let captured = Arc::new(Captured::default());
        (Sink::Captured(Arc::clone(&captured)), captured)
    }

    fn write(&self, stderr: bool, text: &str) {
        match self {
            Sink::Process if stderr => {
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
            Sink::Process => {
                let _ = std::io::stdout().lock().write_all(text.as_bytes());
            }
            Sink::Captured(c) => {
                let stream = if stderr { &c.stderr } else { &c.stdout };
                stream
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push_str(text);
            }
        }
    }
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
    /// Text on stdout, as `print!` (the result of a command: JSON, a table).
    pub fn print(&self, text: &str) {
        self.sink.write(false, text);
    }

    /// A line on stdout, as `println!`.
    pub fn println(&self, line: &str) {
        self.sink.write(false, &format!("{line}\n"));
    }

    /// Text on stderr, as `eprint!`.
    pub fn sink_stderr(&self, text: &str) {
        self.sink.write(true, text);
    }

    /// A line on stderr, as `eprintln!` (what is said about a run, on a terminal).
    pub fn eprintln(&self, line: &str) {
        self.sink.write(true, &format!("{line}\n"));
    }

    /// Writes outputs in the heredoc form, safe for any value.
    pub fn set_outputs(&self, outputs: &[(&str, String)]) -> Result<()> {
        let Some(path) = &self.output_path else {
            return Ok(());
        };
        let mut text = String::new();
        for (name, value) in outputs {
            text.push_str(&format_output(name, value, &delimiter_for(value)));
        }
        append("GITHUB_OUTPUT file", path, &text)
    }

    pub fn append_summary(&self, markdown: &str) -> Result<()> {
        match &self.summary_path {
            Some(path) => append("GITHUB_STEP_SUMMARY file", path, markdown),
            None => Ok(()),
        }
    }

    pub fn annotate(&self, level: Level, title: &str, message: &str) {
        if self.actions {
            self.println(&workflow_command(level, title, message));
        } else {
            self.eprintln(&terminal_line(level, title, message));
        }
    }

    /// Tells the user about an error that ended the run, in the one error style of every
    /// command: on a terminal `error: <what went wrong and the fix>` on stderr; in Actions
    /// an `::error title=…::` annotation and a section of the step summary.
    pub fn report(&self, e: &council_protocol::error::Error) {
        self.error(crate::exit::title(e), &e.to_string());
        let _ = self.append_summary(&crate::exit::summary_section(e));
    }

    /// An error in the one style of every command: an `::error title=…::` annotation in
    /// Actions; on a terminal `error: <message>` on stderr, the message saying what went
    /// wrong and how to fix it (the title is for the annotation only).
    pub fn error(&self, title: &str, message: &str) {
        if self.actions {
            self.println(&workflow_command(Level::Error, title, message));
        } else {
            self.eprintln(&format!("error: {}", terminal_text(message)));
        }
    }

    /// An annotation GitHub shows on a line of a file (the message still names the
    /// place, for logs and the terminal).
    pub fn annotate_at(&self, level: Level, title: &str, at: &FileLine, message: &str) {
        if self.actions {
            self.println(&format!(
                "::{} file={},line={},col={},title={}::{}",
                level.command(),
                escape_property(&at.file),
                at.line,
                at.column,
                escape_property(title),
                escape_data(message)
            ));
        } else {
            self.eprintln(&terminal_line(level, title, message));
        }
    }
}

/// A place in a file of the repository, for [`Runner::annotate_at`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLine {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

fn append(what: &'static str, path: &PathBuf, text: &str) -> Result<()> {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(what, path, e))?;
    file.write_all(text.as_bytes())
        .map_err(|e| Error::io(what, path, e))
}

/// A random delimiter that does not occur in the value.
fn delimiter_for(value: &str) -> String {
    loop {
        let delimiter = format!(
            "ghadelimiter_{}",
            hex::encode(&council_github::jitter::bytes()[..12])
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

/// `@actions/core`'s `escapeData`, and more. `%`, CR and LF are percent-encoded as there;
/// the runner decodes exactly those, so a multi-line message still shows its lines, and
/// no line of the command can start a second one. Every other [control](is_control) is
/// shown as `<U+XXXX>`: the runner would decode no `%XX` form of it (the text would read
/// `%1B`), and the `<U+XXXX>` form is how the product shows hidden characters elsewhere.
/// Token-shaped text is redacted ([`council_protocol::redact::shown`]): messages are redacted where
/// they quote input, and every log line is checked once more on its way out.
pub fn escape_data(s: &str) -> String {
    let s = council_protocol::redact::shown(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_control(c) => push_shown(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// `@actions/core`'s `escapeProperty`: [`escape_data`] plus the property separators.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Characters that a terminal or a log viewer acts on instead of showing: C0 (ESC
/// starts terminal escapes, CR rewrites a line), DEL, C1 (NEL U+0085 breaks a line, CSI
/// U+009B starts an escape) and the Unicode line and paragraph separators.
fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
}

fn push_shown(out: &mut String, c: char) {
    out.push_str(&format!("<U+{:04X}>", u32::from(c)));
}

/// An annotation outside Actions, on a terminal: line breaks kept, every other control
/// shown as `<U+XXXX>`, so a message cannot move the cursor, recolor or erase text.
fn terminal_line(level: Level, title: &str, message: &str) -> String {
    format!(
        "{}: {}: {}",
        level.command(),
        terminal_text(title),
        terminal_text(message)
    )
}

/// Text for a terminal: line breaks kept, every other control shown as `<U+XXXX>`, and
/// token-shaped text redacted as in [`escape_data`].
fn terminal_text(s: &str) -> String {
    let s = council_protocol::redact::shown(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push('\n'),
            c if is_control(c) => push_shown(&mut out, c),
            c => out.push(c),
        }
    }
    out
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
    fn no_log_line_carries_a_token() {
        let token = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
        let shown = "<GitHub token, 40 characters>";
        assert_eq!(
            workflow_command(Level::Error, token, &format!("bad {token}")),
            format!("::error title={}::bad {shown}", shown.replace(',', "%2C"))
        );
        assert_eq!(
            terminal_line(Level::Warning, "t", &format!("{token}\n")),
            format!("warning: t: {shown}\n")
        );
    }

    #[test]
    fn workflow_commands_are_escaped() {
        assert_eq!(
            workflow_command(Level::Error, "guard: a,b", "50% done\r\nnext ::x::"),
            "::error title=guard%3A a%2Cb::50%25 done%0D%0Anext ::x::"
        );
    }

    #[test]
    fn multi_line_messages_stay_multi_line() {
        insta::assert_snapshot!(
            workflow_command(Level::Warning, "council", "first\nsecond\r\nthird: 100%0A"),
            @"::warning title=council::first%0Asecond%0D%0Athird: 100%250A"
        );
    }

    #[test]
    fn controls_cannot_start_a_command_or_a_terminal_escape() {
        let message =
            "a\u{1b}[2Jb\u{7}\u{0}\u{85}::error::x\u{2028}::notice::y\u{2029}\u{9b}31m\u{7f}\tz";
        insta::assert_snapshot!(
            workflow_command(Level::Error, "t\u{1b}]0;x\u{7},y", message),
            @"::error title=t<U+001B>]0;x<U+0007>%2Cy::a<U+001B>[2Jb<U+0007><U+0000><U+0085>::error::x<U+2028>::notice::y<U+2029><U+009B>31m<U+007F><U+0009>z"
        );
        insta::assert_snapshot!(
            terminal_line(Level::Error, "t\u{1b}[1m", "a\rb\nc\u{1b}[2J\u{2028}d"),
            @"
        error: t<U+001B>[1m: a<U+000D>b
        c<U+001B>[2J<U+2028>d
        "
        );
    }

    proptest::proptest! {
        #[test]
        fn a_workflow_command_is_one_line_without_controls(title: String, message: String) {
            let line = workflow_command(Level::Notice, &title, &message);
            proptest::prop_assert!(!line.chars().any(is_control), "{line:?}");
            proptest::prop_assert!(line.starts_with("::notice title="));
            // Properties escape `:`, so the second `::` is the one before the data.
            let mut parts = line.splitn(3, "::");
            let (_, command, data) = (parts.next(), parts.next(), parts.next());
            let expected_command = format!("notice title={}", escape_property(&title));
            let expected_data = escape_data(&message);
            proptest::prop_assert_eq!(command, Some(expected_command.as_str()));
            proptest::prop_assert_eq!(data, Some(expected_data.as_str()));
        }
    }

    #[test]
    fn outputs_and_summary_append_to_files() {
        let dir = tempfile::tempdir().unwrap();
        let runner = Runner {
            actions: true,
            output_path: Some(dir.path().join("out")),
            summary_path: Some(dir.path().join("summary")),
            sink: Sink::Process,
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
