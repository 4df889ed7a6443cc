//! Everything shown to people: step summary, comments, annotations (pure Markdown/text).

pub mod comment;
pub mod summary;
pub mod text;

use crate::render::text::Message;

/// What happened to one effect (comment, close, label, ...), for the timeline and summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectReport {
    /// Timeline action, e.g. `action:close-pr`.
    pub action: &'static str,
    pub result: EffectResult,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EffectResult {
    Done(Message),
    /// Not attempted or refused without harm (dry run, read-only token, already done).
    Skipped(Message),
    Failed(Message),
}

impl EffectReport {
    pub fn result_str(&self) -> &'static str {
        match self.result {
            EffectResult::Done(_) => "DONE",
            EffectResult::Skipped(_) => "SKIPPED",
            EffectResult::Failed(_) => "FAILED",
        }
    }

    pub fn message(&self) -> &Message {
        match &self.result {
            EffectResult::Done(m) | EffectResult::Skipped(m) | EffectResult::Failed(m) => m,
        }
    }

    pub fn failed(&self) -> bool {
        matches!(self.result, EffectResult::Failed(_))
    }
}

/// A fenced code block whose fence no line inside can close.
pub fn code_block(lang: &str, lines: &[String]) -> String {
    let body = lines.join("\n");
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "{fence}{lang}\n{}\n{fence}\n",
        text::visible_multiline(&body)
    )
}
