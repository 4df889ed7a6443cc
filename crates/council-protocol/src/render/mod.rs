//! Everything shown to people: step summary, comments, annotations (pure Markdown/text).

pub mod comment;
pub mod summary;
pub mod text;

/// Commands to copy, as an HTML `<pre>` block: GitHub parses no Markdown inside it and
/// the escaped text holds no live tag, whatever the branch names are.
pub fn code_block(lines: &[String]) -> String {
    let body: Vec<String> = lines.iter().map(|l| text::escape_pre(l)).collect();
    format!("<pre><code>{}</code></pre>\n", body.join("\n"))
}
