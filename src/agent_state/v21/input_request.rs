//! `<input_request>`: `<status>` and `<question>` — the agent asking the human for data
//! ("Human-as-a-Tool").
//!
//! Statuses: the origin's v2.1 spec uses `waiting | received | none`; the contract calls
//! a request open when its status is not `answered`. Both vocabularies are accepted:
//! `waiting` and `pending` are open, `received` and `answered` mean the human has
//! replied, `none` means there is no request. A question without a status is open.

use serde::Serialize;

use super::text::{children, escape};
use crate::chars::show_hidden;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatus {
    Waiting,
    Pending,
    Received,
    Answered,
    None,
}

impl RequestStatus {
    const ALL: [RequestStatus; 5] = [
        RequestStatus::Waiting,
        RequestStatus::Pending,
        RequestStatus::Received,
        RequestStatus::Answered,
        RequestStatus::None,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RequestStatus::Waiting => "waiting",
            RequestStatus::Pending => "pending",
            RequestStatus::Received => "received",
            RequestStatus::Answered => "answered",
            RequestStatus::None => "none",
        }
    }

    pub fn parse(text: &str) -> Option<RequestStatus> {
        RequestStatus::ALL.into_iter().find(|s| s.name() == text)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputRequest {
    pub status: Option<RequestStatus>,
    pub question: Option<String>,
    /// Whether the human still has to answer.
    pub open: bool,
}

impl InputRequest {
    pub fn new(status: Option<RequestStatus>, question: Option<String>) -> InputRequest {
        let open = match status {
            Some(RequestStatus::Waiting | RequestStatus::Pending) => true,
            Some(_) => false,
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
    let status = match status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(RequestStatus::parse(s).ok_or_else(|| {
            format!(
                "status `{}` is not one of waiting, pending, received, answered, none",
                show_hidden(s, 40)
            )
        })?),
    };
    let question = question.filter(|q| !q.trim().is_empty());
    let request = InputRequest::new(status, question);
    if request.open && request.question.is_none() {
        return Err("the request is open but has no `<question>` for the human".to_owned());
    }
    Ok(request)
}

pub fn render(request: &InputRequest) -> String {
    let mut out = String::from("<input_request>\n");
    if let Some(status) = request.status {
        out.push_str(&format!("    <status>{}</status>\n", status.name()));
    }
    if let Some(question) = &request.question {
        out.push_str(&format!("    <question>{}</question>\n", escape(question)));
    }
    out.push_str("  </input_request>");
    out
}
