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

/// Commands to copy, as an HTML `<pre>` block: GitHub parses no Markdown inside it and
/// the escaped text holds no live tag, whatever the branch names are.
pub fn code_block(lines: &[String]) -> String {
    let body: Vec<String> = lines.iter().map(|l| text::escape_pre(l)).collect();
    format!("<pre><code>{}</code></pre>\n", body.join("\n"))
}
