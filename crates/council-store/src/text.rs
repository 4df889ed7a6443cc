//! Entry texts stored exactly. PostgreSQL's TEXT cannot hold NUL, and a verified entry
//! may contain one (JSON allows `\u0000`): such a text, and one that starts with the
//! escape mark, is kept as the mark followed by its JSON string literal. Every other text
//! is kept as it is, so the columns read naturally in SQL.

use council_protocol::audit::Entry;

const MARK: char = '\u{1}';

pub fn encode(text: &str) -> String {
    if text.contains('\0') || text.starts_with(MARK) {
        let literal = serde_json::to_string(text).unwrap_or_default();
        format!("{MARK}{literal}")
    } else {
        text.to_string()
    }
}

pub fn decode(text: &str) -> String {
    match text.strip_prefix(MARK) {
        Some(literal) => serde_json::from_str(literal).unwrap_or_else(|_| text.to_string()),
        None => text.to_string(),
    }
}

/// An entry's members beyond the known fields, as JSON (`None` when there are none).
pub fn entry_extra(entry: &Entry) -> Option<String> {
    (!entry.extra.is_empty()).then(|| serde_json::to_string(&entry.extra).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_comes_back_exactly() {
        for text in [
            "",
            "plain",
            "nul\0inside",
            "\u{1}starts with the mark",
            "\u{1}",
            "é\u{202e}",
        ] {
            let stored = encode(text);
            assert!(!stored.contains('\0'), "{stored:?}");
            assert_eq!(decode(&stored), text);
        }
        assert_eq!(encode("plain"), "plain");
    }
}
