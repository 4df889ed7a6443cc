//! What an encoded value says once decoded. A generated secret decodes to random bytes;
//! base64 of a sentence (`SGVsbG8sIHdvcmxkIQ==`) is text written for a test or a doc,
//! and a JWT whose claims are a sample (`"sub": "1234567890"`, `"name": "John Doe"`,
//! `"iss": "https://example.com"`) is the one the documentation shows.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

use super::typed::is_typed_stand_in;
use super::value::holds_stand_in_word;

/// Shorter base64 says too little to judge.
const MIN_ENCODED: usize = 12;

/// Names and claims that samples use and real tokens do not.
const SAMPLE_CLAIMS: &[&str] = &["john doe", "jane doe", "\"test\"", "test user", "testuser"];

/// `value` decoded as base64 in any of its alphabets, padded or not.
fn decode(value: &str) -> Option<Vec<u8>> {
    if value.len() < MIN_ENCODED {
        return None;
    }
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(value).ok())
}

/// Base64 of ordinary text or of a stand-in (`cGFzc3dvcmQxMjM=` is `password123`, as a
/// Kubernetes Secret's `data` holds it).
pub(super) fn is_encoded_stand_in(value: &str) -> bool {
    let Some(bytes) = decode(value) else {
        return false;
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return false;
    };
    let text = text.trim_end_matches(['\n', '\r']);
    let printable = !text.is_empty() && !text.chars().any(char::is_control);
    is_text(text)
        || (printable
            && (is_typed_stand_in(text)
                || holds_stand_in_word(text)
                || TEMPLATE_PREFIXES.iter().any(|p| text.starts_with(p))))
}

/// What a decoded value starts with when it is a reference, not a secret.
const TEMPLATE_PREFIXES: &[&str] = &["${", "{{", "<", "$"];

/// Ordinary text: printable, with spaces between words, and no `user:pass` pair
/// (`Basic` credentials are base64 of text too).
fn is_text(text: &str) -> bool {
    let words = text.split_whitespace().count();
    let letters = text
        .chars()
        .filter(|c| c.is_alphabetic() || *c == ' ')
        .count();
    words >= 2
        && !text.contains(':')
        && !text.chars().any(|c| c.is_control() && c != '\n')
        && letters * 10 >= text.chars().count() * 8
}

/// A JWT (`header.payload.signature`) whose payload holds a stand-in: a documentation
/// sample, not a token someone was issued.
pub(super) fn is_sample_jwt(token: &str) -> bool {
    let Some(payload) = token.split('.').nth(1) else {
        return false;
    };
    let Some(bytes) = decode(payload) else {
        return false;
    };
    let claims = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
    holds_stand_in_word(&claims) || SAMPLE_CLAIMS.iter().any(|c| claims.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(text: &str) -> String {
        STANDARD.encode(text)
    }

    #[test]
    fn base64_of_a_sentence_or_a_stand_in_is_no_secret() {
        assert!(is_encoded_stand_in(&b64("Hello, world! This is a test.")));
        assert!(is_encoded_stand_in(&b64("the quick brown fox")));
        assert!(is_encoded_stand_in(
            &URL_SAFE_NO_PAD.encode("some ordinary words here")
        ));
        assert!(is_encoded_stand_in(&b64("password123")));
        assert!(is_encoded_stand_in(&b64("${DB_PASSWORD}\n")));
    }

    #[test]
    fn base64_of_bytes_or_credentials_is_not_a_stand_in() {
        assert!(!is_encoded_stand_in(&b64("admin:hunter2 and more")));
        assert!(!is_encoded_stand_in(
            &STANDARD.encode([0u8, 159, 146, 150, 7, 8, 9, 200, 1, 2, 3, 4])
        ));
        assert!(!is_encoded_stand_in("q8ZrT2mVx9LpK4sWb7NcY1dF"));
        assert!(!is_encoded_stand_in(&b64("{\"alg\":\"HS256\"}")));
        assert!(!is_encoded_stand_in(&b64("x7K!qZ2vN9pR")));
        assert!(!is_encoded_stand_in("short"));
    }

    #[test]
    fn documentation_jwts_are_samples() {
        let header = URL_SAFE_NO_PAD.encode("{\"alg\":\"HS256\",\"typ\":\"JWT\"}");
        let sample = URL_SAFE_NO_PAD
            .encode("{\"sub\":\"1234567890\",\"name\":\"John Doe\",\"iat\":1516239022}");
        let issued = URL_SAFE_NO_PAD.encode("{\"sub\":\"82917460\",\"iat\":1716239022}");
        assert!(is_sample_jwt(&format!("{header}.{sample}.c2lnbmF0dXJl")));
        assert!(!is_sample_jwt(&format!("{header}.{issued}.c2lnbmF0dXJl")));
        let signed_in = URL_SAFE_NO_PAD.encode("{\"sub\":\"82917460\",\"amr\":[\"password\"]}");
        assert!(!is_sample_jwt(&format!(
            "{header}.{signed_in}.c2lnbmF0dXJl"
        )));
        assert!(!is_sample_jwt("no-dots-here"));
    }
}
