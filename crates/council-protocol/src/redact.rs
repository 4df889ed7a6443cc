//! The one way text a user gave us is echoed: every span the secret scanner calls
//! token-shaped is replaced by its kind and length, so that a message quoting an
//! ASSISTANT_CONTEXT key, a report field or a policy value never carries a token into an
//! annotation, an output, the audit file or a hash-chained comment that can never be
//! edited again. Callers quote through [`shown`] (directly, or through
//! `chars::show_hidden`, `render::text::Message` and the `Display` of `error::Error`,
//! which all call it) at the point where the input enters the message, before any cut:
//! a token cut to a prefix would no longer look like a token, yet still be one in part.

use std::borrow::Cow;

use crate::secrets::{SecretMatch, find_secrets};

/// `text` with every token-shaped span replaced by `<kind, N characters>` (e.g.
/// `<GitHub token, 40 characters>`); borrowed, with no allocation, when nothing matches,
/// which the scanner's prefilter tells in one pass.
pub fn shown(text: &str) -> Cow<'_, str> {
    // The scanner leaves alone a token glued to a dotted name (`file.ico-…` is no
    // token), but a message that quotes a field path (`review.ghp_…`) must not echo one:
    // here a false positive only hides a harmless word, so dots count as separators.
    // Same length, so the spans fit the original text.
    let found = match text.contains('.') {
        true => find_secrets(&text.replace('.', " ")),
        false => find_secrets(text),
    };
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(masked(text, &found))
}

/// `text` with each of `found` (in order of position) replaced by its marker.
fn masked(text: &str, found: &[SecretMatch]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut spans = found.iter().peekable();
    while let Some(m) = spans.next() {
        let (kind, start) = (m.kind, m.range.start.max(copied));
        let mut end = m.range.end;
        // Overlapping spans are shown as one, under the first one's kind, so that no
        // character of a token is left between two markers.
        while let Some(next) = spans.next_if(|n| n.range.start < end) {
            end = end.max(next.range.end);
        }
        if end <= start {
            continue;
        }
        out.push_str(text.get(copied..start).unwrap_or(""));
        let chars = text.get(start..end).map_or(0, |s| s.chars().count());
        let unit = if chars == 1 {
            "character"
        } else {
            "characters"
        };
        out.push_str(&format!("<{}, {chars} {unit}>", kind.label()));
        copied = end;
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GITHUB: &str = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
    const AWS: &str = "AKIAQ3EGUY6TXK7P2MW7";
    const SLACK: &str = "xoxb-4829173650284-7391846205731-Q7vLm2Xr9TnB4kWz8YdH3sJc";

    /// The marker of a text that is one token, named by whatever kind the scanner says.
    fn marker(token: &str) -> String {
        let found = find_secrets(token);
        assert_eq!(found.len(), 1, "{token}");
        format!(
            "<{}, {} characters>",
            found[0].kind.label(),
            token.chars().count()
        )
    }

    #[test]
    fn text_without_tokens_is_borrowed_unchanged() {
        for text in [
            "",
            "status: active",
            "ghp_short",
            "password: ${{ secrets.X }}",
            "é — ✓ 日本語",
        ] {
            assert!(
                matches!(shown(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
    }

    #[test]
    fn each_kind_is_named_with_its_length_in_characters() {
        assert_eq!(
            shown(&format!("status: {GITHUB}")),
            "status: <GitHub token, 40 characters>"
        );
        assert_eq!(
            shown(&format!("{AWS} and {SLACK}.")),
            format!("{} and {}.", marker(AWS), marker(SLACK))
        );
        // A key block counts with its body (a bare header is a stand-in).
        let body = "MIIEpAIBAAKCAQEA7Q3hL0xZr9TnB4kWz8YdH3sJc6PfA1uEo5GiRq8LmXv2";
        let key = format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----");
        let out = shown(&key);
        assert!(out.starts_with('<') && !out.contains(&body[..12]), "{out}");
        assert_eq!(find_secrets(&key)[0].kind.label(), "private key");
        let assignment = "db_password = \"hunter2-correct-horse\"";
        assert_eq!(
            shown(&format!("{assignment} here")),
            format!("{} here", marker(assignment))
        );
    }

    #[test]
    fn every_token_goes_and_nothing_of_it_stays() {
        let pat = format!("github_pat_{}", "A1b2C3d4E5".repeat(8));
        let text = format!("`{GITHUB}` appears twice; {GITHUB}: x ({pat})");
        let out = shown(&text);
        assert_eq!(
            out,
            "`<GitHub token, 40 characters>` appears twice; <GitHub token, 40 characters>: \
             x (<GitHub fine-grained token, 91 characters>)"
        );
        for secret in [GITHUB, &pat] {
            assert!(!out.contains(&secret[..12]), "{out}");
        }
    }

    #[test]
    fn a_token_in_a_dotted_path_goes_too() {
        assert_eq!(
            shown(&format!("review.{GITHUB}: unknown field")),
            "review.<GitHub token, 40 characters>: unknown field"
        );
    }

    #[test]
    fn multi_byte_text_around_a_token_survives() {
        assert_eq!(
            shown(&format!("日本語 «{GITHUB}» ✓")),
            "日本語 «<GitHub token, 40 characters>» ✓"
        );
        // Lengths count characters, not bytes.
        let assignment = "secret = \"пароль-Q7vLm2Xr9TnB4kWz8Yd\"";
        assert_eq!(
            shown(assignment),
            format!(
                "<{}, {} characters>",
                find_secrets(assignment)[0].kind.label(),
                assignment.chars().count()
            )
        );
    }

    #[test]
    fn overlapping_spans_are_one_marker() {
        let text = "a ghp_123 b";
        let at = |range: std::ops::Range<usize>| SecretMatch {
            kind: find_secrets(GITHUB)[0].kind,
            range,
            line: 1,
            column: 1,
        };
        assert_eq!(
            masked(text, &[at(2..6), at(4..9), at(5..7)]),
            "a <GitHub token, 7 characters> b"
        );
        assert_eq!(
            masked(text, &[at(0..1), at(2..9)]),
            "<GitHub token, 1 character> <GitHub token, 7 characters> b"
        );
    }

    #[test]
    fn shown_text_is_shown_unchanged() {
        let once = shown(&format!("{GITHUB} {AWS} secret = \"R8x2Lq9ZtV4mN7cJ\"")).into_owned();
        assert!(matches!(shown(&once), Cow::Borrowed(_)), "{once}");
    }
}
