//! `<input_request>`: `<status>` and `<question>` — the agent asking the human for data
//! ("Human-as-a-Tool").
//!
//! Statuses: the contract calls a request open when its status is not `answered` and
//! accepts any status, so the status is kept as written (trimmed: it is a keyword,
//! and the whitespace around it is only layout) and never refused. The origin's
//! `received` and `none` are therefore open too: only `answered` tells the human there
//! is nothing left to answer. A question without a status is open; an element with
//! neither is no request.

use serde::Serialize;

use super::text::{children, escape};
use crate::chars::show_hidden;

/// The one status that closes a request. Compared ignoring ASCII case: an agent that
/// writes `Answered` means it, and showing a question already answered would send the
/// human to answer it twice.
pub const ANSWERED: &str = "answered";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputRequest {
    /// As written, e.g. `waiting`, `open`, `needs-human`; `None` when absent or blank.
    pub status: Option<String>,
    pub question: Option<String>,
    /// Whether the human still has to answer.
    pub open: bool,
}

impl InputRequest {
    pub fn new(status: Option<String>, question: Option<String>) -> InputRequest {
        let status = status
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        let open = match &status {
            Some(s) => !s.eq_ignore_ascii_case(ANSWERED),
            None => question.is_some(),
        };
        InputRequest {
            status,
            question,
            open,
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
    }
}

pub(super) fn parse(xml: &str) -> Result<InputRequest, String> {
    let (mut status, mut question) = (None, None);
    for child in children(xml, "input_request")? {
        let slot = match child.name.as_str() {
            "status" => &mut status,
            "question" => &mut question,
            other => {
                return Err(format!(
                    "`<{}>` is not allowed in `<input_request>`; it holds `<status>` and `<question>`",
                    show_hidden(other, 40)
                ));
            }
        };
        if slot.is_some() {
            return Err(format!("`<{}>` appears more than once", child.name));
        }
        *slot = Some(child.text);
    }
    let question = question.filter(|q| !q.trim().is_empty());
    let request = InputRequest::new(status, question);
    if request.open && request.question.is_none() {
        return Err(format!(
            "the request is open (status `{}`; only `answered` closes it) but has no \
             `<question>` for the human",
            show_hidden(request.status.as_deref().unwrap_or_default(), 40)
        ));
    }
    Ok(request)
}

pub fn render(request: &InputRequest) -> String {
    let mut out = String::from("<input_request>\n");
    if let Some(status) = &request.status {
        out.push_str(&format!("    <status>{}</status>\n", escape(status)));
    }
    if let Some(question) = &request.question {
        out.push_str(&format!("    <question>{}</question>\n", escape(question)));
    }
    out.push_str("  </input_request>");
    out
}
