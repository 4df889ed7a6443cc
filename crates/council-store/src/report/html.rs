//! The page: a template with the data embedded as JSON, drawn by its own script.

use super::ReportData;

/// The whole page, self-contained.
pub fn render_html(data: &ReportData) -> String {
    // Placeholder until the page's template lands: the data, escaped for a script block.
    let json = serde_json::to_string(data)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c");
    format!(
        "<!doctype html><meta charset=\"utf-8\"><title>council audit</title>\
         <script type=\"application/json\" id=\"council-data\">{json}</script>"
    )
}
