//! Text that mixes our prose with user-controlled values, and the escaping that keeps the
//! values literal in Markdown, logs and annotations (pure).

use crate::chars::normalize_newlines;

// Kept under its old path; the definition lives in `chars`, below this module and
// `markdown` alike.
pub use crate::chars::is_invisible;

/// Shows invisible characters as `<U+XXXX>` so they are never silently dropped.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_invisible(c) {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The invisible characters of `s` with their character positions (0-based).
pub fn invisible_chars(s: &str) -> Vec<(usize, char)> {
    s.chars()
        .enumerate()
        .filter(|(_, c)| is_invisible(*c))
        .collect()
}

/// Non-ASCII characters, which can imitate ASCII ones (`а` U+0430 for `a`).
pub fn non_ascii_chars(s: &str) -> Vec<(usize, char)> {
    s.chars()
        .enumerate()
        .filter(|(_, c)| !c.is_ascii())
        .collect()
}

/// A user value shown literally: `<code>` with every character that Markdown, HTML,
/// tables, autolinks or math could act on written as an entity. GitHub neither links
/// mentions nor parses Markdown inside `<code>`, and the raw text holds no live tag.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str("<code>");
    for c in visible(s).chars() {
        match entity(c) {
            Some(e) => out.push_str(e),
            None => out.push(c),
        }
    }
    out.push_str("</code>");
    out
}

fn entity(c: char) -> Option<&'static str> {
    Some(match c {
        '&' => "&amp;",
        '<' => "&lt;",
        '>' => "&gt;",
        '"' => "&quot;",
        '\'' => "&#39;",
        '|' => "&#124;",
        '`' => "&#96;",
        '*' => "&#42;",
        '_' => "&#95;",
        '[' => "&#91;",
        ']' => "&#93;",
        '\\' => "&#92;",
        '~' => "&#126;",
        '@' => "&#64;",
        ':' => "&#58;",
        '#' => "&#35;",
        '!' => "&#33;",
        '$' => "&#36;",
        _ => return None,
    })
}

/// Our own prose (or a policy author's): entities for the characters Markdown and HTML
/// act on, and `@` kept from becoming a mention.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in visible(s).chars() {
        match c {
            // An empty HTML comment splits the text GitHub scans for mentions, so
            // `@team` renders as written and notifies nobody.
            '@' => out.push_str("@<!-- -->"),
            ':' => out.push(':'),
            c => match entity(c) {
                Some(e) => out.push_str(e),
                None => out.push(c),
            },
        }
    }
    out
}

/// Like [`escape_text`] for a one-line context: line breaks become spaces.
pub fn escape_inline(s: &str) -> String {
    escape_text(&normalize_newlines(s).replace('\n', " "))
}

/// Multi-line user prose (a summary): each line escaped, leading indentation dropped (it
/// would make code), and what would open a block at a line start (`-`, `+`, `=`, `1.`)
/// written as an entity.
pub fn escape_lines(s: &str) -> String {
    normalize_newlines(s)
        .split('\n')
        .map(|line| {
            let line = line.trim_start_matches([' ', '\t']);
            let digits = line.chars().take_while(char::is_ascii_digit).count();
            let mut out = String::with_capacity(line.len() + 8);
            for (i, c) in line.chars().enumerate() {
                let opens_block = (i == 0 && matches!(c, '-' | '+' | '='))
                    || (i == digits && digits > 0 && matches!(c, '.' | ')'));
                if opens_block {
                    out.push_str(&format!("&#{};", c as u32));
                } else {
                    out.push_str(&escape_text(c.encode_utf8(&mut [0; 4])));
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Markdown table cell: a line break would end the row.
pub fn cell(markdown: &str) -> String {
    markdown.replace('\n', " ")
}

/// Text for a `<pre>` block: GitHub parses no Markdown there, and the entities keep the
/// raw comment free of live tags and mentions; a copy-paste yields the literal text.
pub fn escape_pre(s: &str) -> String {
    visible(s)
        .chars()
        .map(|c| {
            entity(c)
                .map(str::to_string)
                .unwrap_or_else(|| c.to_string())
        })
        .collect()
}

/// `https://…` with nothing that could end an autolink or start markup.
fn is_plain_url(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~:/?#@!$&'*+,;=%".contains(c))
}

/// Characters kept verbatim in a URL path segment, query value or marker field.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encoding of everything but unreserved characters (`feature/x` → `feature%2Fx`).
pub fn percent_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

/// A shell word, single-quoted when it needs quoting (for copy-paste commands).
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.' | '<' | '>'));
    if plain && !s.contains('<') {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A sentence built from prose and values; values stay literal in every rendering.
/// Every part is redacted ([`crate::redact::shown`]) as it is added: a message goes to
/// annotations, outputs, the audit file and comments that are hash-chained and cannot
/// be edited later, so a token must not get in at all. Prose is redacted too, because
/// callers format user input into it as well.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Message {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Value(String),
    /// A URL the API returned (a comment, a run): a link when it is plain http(s).
    Link(String),
}

impl Message {
    pub fn new() -> Self {
        Message::default()
    }

    pub fn text(mut self, s: impl Into<String>) -> Self {
        self.parts.push(Part::Text(redacted(s.into())));
        self
    }

    pub fn value(mut self, s: impl Into<String>) -> Self {
        self.parts.push(Part::Value(redacted(s.into())));
        self
    }

    pub fn link(mut self, url: impl Into<String>) -> Self {
        self.parts.push(Part::Link(redacted(url.into())));
        self
    }

    pub fn append(mut self, other: Message) -> Self {
        self.parts.extend(other.parts);
        self
    }

    /// Plain text for logs, annotations and the timeline: values in quotes, invisibles shown.
    pub fn plain(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => visible(t),
                Part::Value(v) => format!("\"{}\"", visible(v)),
                Part::Link(url) => visible(url),
            })
            .collect()
    }

    /// Markdown for comments and the step summary.
    pub fn markdown(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => escape_text(t),
                Part::Value(v) => literal(v),
                Part::Link(url) if is_plain_url(url) => format!("<{url}>"),
                Part::Link(url) => literal(url),
            })
            .collect()
    }
}

/// `s` itself when it holds no token (the common case: no copy).
fn redacted(s: String) -> String {
    match crate::redact::shown(&s) {
        std::borrow::Cow::Borrowed(_) => s,
        std::borrow::Cow::Owned(shown) => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(
            visible("a\u{202E}b\u{200B}c\u{0007}"),
            "a<U+202E>b<U+200B>c<U+0007>"
        );
        assert_eq!(visible("plain/ünïcode"), "plain/ünïcode");
        assert_eq!(invisible_chars("x\u{2066}y"), vec![(1, '\u{2066}')]);
        assert_eq!(non_ascii_chars("feаture"), vec![(2, 'а')]);
    }

    #[test]
    fn literals_hold_no_live_markup() {
        assert_eq!(literal("feature/x-1.2"), "<code>feature/x-1.2</code>");
        assert_eq!(
            literal("<img src=x>|`*@me*`"),
            "<code>&lt;img src=x&gt;&#124;&#96;&#42;&#64;me&#42;&#96;</code>"
        );
        assert_eq!(literal("a\u{202E}b"), "<code>a&lt;U+202E&gt;b</code>");
        assert_eq!(literal("http://evil"), "<code>http&#58;//evil</code>");
    }

    #[test]
    fn multi_line_prose_opens_no_block() {
        assert_eq!(
            escape_lines("- item\r\n    code?\n1. first\n# title @me"),
            "&#45; item\ncode?\n1&#46; first\n&#35; title @<!-- -->me"
        );
        assert_eq!(escape_inline("a\nb"), "a b");
    }

    #[test]
    fn prose_is_escaped() {
        assert_eq!(
            escape_text("<b>*hi*</b> @team [x](y): ok"),
            "&lt;b&gt;&#42;hi&#42;&lt;/b&gt; @<!-- -->team &#91;x&#93;(y): ok"
        );
    }

    #[test]
    fn messages_render_per_target() {
        let m = Message::new()
            .text("Branch ")
            .value("<img src=x>|@x")
            .text(" matches no rule.");
        assert_eq!(m.plain(), "Branch \"<img src=x>|@x\" matches no rule.");
        assert_eq!(
            m.markdown(),
            "Branch <code>&lt;img src=x&gt;&#124;&#64;x</code> matches no rule."
        );
    }

    #[test]
    fn no_part_of_a_message_carries_a_token() {
        let token = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
        let m = Message::new()
            .text(format!("Branch {token}/x "))
            .value(format!("{token}/x"))
            .link(format!("https://example.com/?t={token}"));
        for rendered in [m.plain(), m.markdown()] {
            assert!(!rendered.contains("ghp_R8x2"), "{rendered}");
            assert!(
                rendered.contains("GitHub token, 40 characters"),
                "{rendered}"
            );
        }
        assert_eq!(
            m.plain(),
            "Branch <GitHub token, 40 characters>/x \"<GitHub token, 40 characters>/x\"\
             https://example.com/?t=<GitHub token, 40 characters>"
        );
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("feature/x-1"), "feature/x-1");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(shell_word("feature/<area>"), "'feature/<area>'");
    }
}
