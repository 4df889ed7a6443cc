//! Gate decisions: pure functions from facts to verdicts, messages and fixes.

pub mod guard;

use crate::render::text::Message;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
        }
    }
}

/// One gate's decision, with what the timeline, summary and comments say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOutcome {
    /// Key in the Context Object's `gates` (`naming_convention`).
    pub gate: &'static str,
    /// Timeline action (`check:branch-name`).
    pub action: &'static str,
    pub verdict: Verdict,
    pub message: Message,
    pub fix: Option<Fix>,
}

/// How to make a failed gate pass: advice, and commands to copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub advice: Message,
    pub commands: Vec<String>,
}

impl GateOutcome {
    /// The timeline message: the verdict's reason and, on failure, the fix in one line.
    pub fn timeline_message(&self) -> String {
        match &self.fix {
            None => self.message.plain(),
            Some(fix) if fix.commands.is_empty() => {
                format!("{} Fix: {}", self.message.plain(), fix.advice.plain())
            }
            Some(fix) => format!(
                "{} Fix: {} `{}`",
                self.message.plain(),
                fix.advice.plain(),
                fix.commands.join(" && ")
            ),
        }
    }
}

/// Failed gates' fixes, each shown once (two gates often share the same fix).
pub fn distinct_fixes<'a>(gates: &[&'a GateOutcome]) -> Vec<(&'a GateOutcome, &'a Fix)> {
    let mut out: Vec<(&GateOutcome, &Fix)> = Vec::new();
    for gate in gates {
        if let Some(fix) = &gate.fix
            && !out.iter().any(|(_, f)| *f == fix)
        {
            out.push((gate, fix));
        }
    }
    out
}
