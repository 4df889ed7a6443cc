//! Character-level facts about untrusted text, shared by the readers (`markdown`,
//! `agent_state`) and the renderers (`render::text`): which characters hide, how to show
//! them, which ones a reader may trim, and one newline form. It sits below both so that
//! neither depends on the other (and above only `redact`, which every quote goes through).

use std::borrow::Cow;

/// Characters that render as nothing (or as plain space) and so can disguise a value:
/// controls, bidi overrides, zero-width and unusual spaces, tag characters.
pub fn is_invisible(c: char) -> bool {
    let u = c as u32;
    matches!(u,
        0x00..=0x1F | 0x7F..=0x9F | 0xA0 | 0xAD | 0x34F | 0x61C | 0x115F | 0x1160
        | 0x17B4 | 0x17B5 | 0x180B..=0x180F | 0x2000..=0x200F | 0x2028..=0x202F
        | 0x205F..=0x206F | 0x3000 | 0x3164 | 0xFEFF | 0xFFA0 | 0xFFF9..=0xFFFB
        | 0x1D173..=0x1D17A | 0xE0000..=0xE007F)
}

/// Like [`is_invisible`], but tab and newline count as layout, not as hidden: readers
/// of multi-line text (comments, blocks) meet them everywhere.
pub fn is_hidden_char(c: char) -> bool {
    c != '\n' && c != '\t' && is_invisible(c)
}

/// Untrusted text as a message quotes it: token-shaped spans named by kind and length
/// ([`crate::redact::shown`]), hidden characters as a visible `<U+XXXX>` so that
/// messages never carry invisible text, cut to `max_chars` characters. Redaction comes
/// before the cut, which could leave a prefix of a token that no longer looks like one.
pub fn show_hidden(text: &str, max_chars: usize) -> String {
    let text = crate::redact::shown(text);
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count >= max_chars {
            out.push('…');
            break;
        }
        if is_hidden_char(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The first `max_chars` characters of `text` when it has more, else `None`: the cut
/// for user text (labels, names, messages, comment bodies), which never falls inside a
/// character as a byte count (`&text[..n]`) can.
pub fn cut(text: &str, max_chars: usize) -> Option<&str> {
    let (end, _) = text.char_indices().nth(max_chars)?;
    text.split_at_checked(end).map(|(head, _)| head)
}

/// Whitespace that a reader trims around values: Unicode whitespace (NBSP included)
/// and a stray BOM, which editors and API clients leave in pasted text.
pub fn is_ignorable_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Turns CRLF and lone CR into LF, so that offsets and rules work on one newline.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut pieces = text.split('\r').peekable();
    while let Some(piece) = pieces.next() {
        out.push_str(piece);
        if let Some(next) = pieces.peek_mut() {
            out.push('\n');
            *next = next.strip_prefix('\n').unwrap_or(next);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_are_normalized() {
        assert_eq!(normalize_newlines("a\r\nb\rc\n\r\n"), "a\nb\nc\n\n");
        assert!(matches!(normalize_newlines("plain\n"), Cow::Borrowed(_)));
        assert_eq!(normalize_newlines("\r"), "\n");
        assert_eq!(normalize_newlines("\r\r\n"), "\n\n");
    }

    #[test]
    fn a_token_is_redacted_before_the_cut() {
        // Cut first, the 30-character prefix would no longer look like a token.
        let token = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
        assert_eq!(
            show_hidden(&format!("a {token}"), 30),
            "a <GitHub token, 40 characters…"
        );
        assert_eq!(
            show_hidden(&format!("{token}\u{200b}"), 60),
            "<GitHub token, 40 characters><U+200B>"
        );
    }

    #[test]
    fn hidden_characters_are_shown() {
        assert_eq!(show_hidden("a\u{200b}b", 10), "a<U+200B>b");
        assert_eq!(show_hidden("abcdef", 3), "abc…");
        assert_eq!(show_hidden("a\tb\nc\u{1b}", 10), "a\tb\nc<U+001B>");
        assert!(is_invisible('\t') && !is_hidden_char('\t'));
    }
}
