//! `<plan>`: `<item status="pending|in_progress|done">text</item>`, in order.

use serde::Serialize;

use super::text::{children, escape};
use crate::chars::show_hidden;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Done,
}

impl PlanStatus {
    pub fn name(self) -> &'static str {
        match self {
            PlanStatus::Pending => "pending",
            PlanStatus::InProgress => "in_progress",
            PlanStatus::Done => "done",
        }
    }

    pub fn parse(text: &str) -> Option<PlanStatus> {
        [
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Done,
        ]
        .into_iter()
        .find(|s| s.name() == text)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanItem {
    pub status: PlanStatus,
    pub text: String,
}

pub(super) fn parse(xml: &str) -> Result<Vec<PlanItem>, String> {
    let mut items = Vec::new();
    for (index, child) in children(xml, "plan")?.into_iter().enumerate() {
        let n = index + 1;
        if child.name != "item" {
            return Err(format!(
                "`<{}>` is not allowed in `<plan>`; write each step as `<item status=\"pending\">…</item>`",
                show_hidden(&child.name, 40)
            ));
        }
        let status = child
            .attributes
            .iter()
            .find(|(k, _)| k == "status")
            .map(|(_, v)| v.as_str());
        let status = match status {
            None => {
                return Err(format!(
                    "item {n} has no `status`; use pending, in_progress or done"
                ));
            }
            Some(s) => PlanStatus::parse(s).ok_or_else(|| {
                format!(
                    "item {n} has status `{}`; use pending, in_progress or done",
                    show_hidden(s, 40)
                )
            })?,
        };
        if child.text.trim().is_empty() {
            return Err(format!("item {n} has no text"));
        }
        items.push(PlanItem {
            status,
            text: child.text,
        });
    }
    Ok(items)
}

/// The element for `items`, indented to sit in a rendered block.
pub fn render(items: &[PlanItem]) -> String {
    if items.is_empty() {
        return "<plan/>".to_owned();
    }
    let mut out = String::from("<plan>\n");
    for item in items {
        out.push_str(&format!(
            "    <item status=\"{}\">{}</item>\n",
            item.status.name(),
            escape(&item.text)
        ));
    }
    out.push_str("  </plan>");
    out
}
