//! Whether a matched value is a credential or a stand-in for one: documentation and
//! templates write `ghp_xxxx…`, `<token>`, `${{ secrets.X }}` or `var.db_password` where
//! the real value would go, and flagging those teaches people to ignore the gate.

use std::collections::HashMap;

use super::decoded::{is_encoded_stand_in, is_sample_jwt};
use super::typed::is_typed_stand_in;

/// Words that mark a value as written for documentation or tests.
const STAND_IN_WORDS: &[&str] = &[
    "example",
    "sample",
    "dummy",
    "fake",
    "placeholder",
    "your",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "xxxx",
    "****",
    "####",
    "...",
    "…",
    "•",
];

/// The name of the thing where the thing would be (`MyFeedPassword1`). Not a stand-in
/// inside a JWT's claims: `"amr": ["password"]` is how a real token says how its user
/// signed in.
const NAMING_WORDS: &[&str] = &["password", "passwd"];

/// Credentials their vendors publish in documentation and for tests: anyone may use
/// them, and they grant nothing.
const PUBLISHED: &[&str] = &[
    // Stripe's API reference, test mode.
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    // Slack's API documentation.
    "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    // Mailgun's documentation.
    "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
    // The Azure storage emulator's account key (Azurite, `devstoreaccount1`).
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    // Google's reCAPTCHA test keys, which always pass.
    "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
    "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
    // The AES-128 key of FIPS-197 and NIST SP 800-38A's test vectors.
    "2b7e151628aed2a6abf7158809cf4f3c",
];

/// Template and interpolation syntaxes: the value is filled in elsewhere.
const TEMPLATE_MARKS: &[&str] = &[
    "${", "{{", "}}", "#{", "%(", "<%", "%>", "$(", "@@", "<", ">",
];

/// A value this long made of one character is padding or a mask, not a key.
const MASK_RUN: usize = 8;

/// A token body with this few distinct characters (`a1a1a1…`) was typed, not generated.
const MIN_DISTINCT: usize = 4;

/// `abcdefgh`, `12345678`: typed in order, as samples are; a generated value has a
/// run like that about once in 10^13 characters.
const SEQUENCE_RUN: usize = 8;

/// `xoxp-1234-1234-1234-…`, `abcd…1234`: two runs of `SHORT_RUN` characters in order.
/// In a generated value of 64 hex digits that happens about once in 10,000 values.
const SHORT_RUN: usize = 4;
const SHORT_SEQUENCES: usize = 2;

/// Values that name a type, a state or a stand-in rather than hold a secret.
const NOT_VALUES: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "nil",
    "yes",
    "no",
    "on",
    "off",
    "undefined",
    "required",
    "optional",
    "redacted",
    "changeme",
    "empty",
    "string",
    "str",
    "bool",
    "boolean",
    "int",
    "integer",
    "number",
    "bytes",
    "any",
    "object",
    "text",
    "char",
    "secret",
    "password",
    "passwd",
    "pass",
    "token",
    "key",
    "value",
    "default",
    "unset",
    "hidden",
    "masked",
    "sensitive",
    "env",
];

/// Where a value points to a secret store or file instead of holding the secret.
const REFERENCE_PREFIXES: &[&str] = &[
    "arn:",
    "op://",
    "vault:",
    "ssm:",
    "secretsmanager:",
    "sm://",
    "env:",
    "file:",
    "enc[",
    "projects/",
    "keyvault:",
    "akv:",
    "ref+",
];

/// First characters of references, templates, symbols, paths and YAML syntax
/// (`$X`, `<…>`, `{…}`, `%X%`, `:sym`, `@param`, `!Ref`, `&anchor`, `*alias`, `|`, `#`).
const REFERENCE_STARTS: &[char] = &[
    '$', '<', '{', '%', '=', '(', '[', '@', '&', '*', '!', ':', '?', '#', '|', '>', '~', '/', '.',
    '\\',
];

/// A token matched by a family's pattern is a stand-in when it holds a stand-in word or
/// mark, a long run of one character, or too few distinct characters after its prefix.
pub(super) fn is_stand_in_token(token: &str, prefix_len: usize) -> bool {
    let body = token.get(prefix_len..).unwrap_or(token);
    is_stand_in(token) || longest_run(token) >= MASK_RUN || distinct(body) < MIN_DISTINCT
}

/// Stand-in words, template marks, a masking run or a published sample anywhere in the
/// value, or a value that is base64 of one.
pub(super) fn is_stand_in(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    holds_stand_in_word(value)
        || NAMING_WORDS.iter().any(|w| lower.contains(w))
        || TEMPLATE_MARKS.iter().any(|m| value.contains(m))
        || (value.len() > 2 && value.starts_with('%') && value.ends_with('%'))
        || PUBLISHED.iter().any(|p| value.contains(p))
        || is_encoded_stand_in(value)
        || is_sample_jwt(value)
}

/// A stand-in word, or characters typed in order (`12345678`, `1234-1234-1234`,
/// `000102030405060708090a0b`).
pub(super) fn holds_stand_in_word(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    STAND_IN_WORDS.iter().any(|w| lower.contains(w))
        || longest_sequence(value) >= SEQUENCE_RUN
        || short_sequences(value) >= SHORT_SEQUENCES
        || counting_bytes(value) >= SEQUENCE_RUN
        || is_blocky(value)
}

/// How an assignment's value was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Quoting {
    Quoted,
    /// Unquoted, with the character that follows it.
    Bare(Option<char>),
}

/// The value of an assignment is a literal (not a reference, a template, a type, a
/// keyword or a number) that could be a secret.
pub(super) fn is_literal(value: &str, quoting: Quoting) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let lower = value.to_ascii_lowercase();
    let bare = matches!(quoting, Quoting::Bare(_));
    // GraphQL's `String!`, TypeScript's `string?`.
    let unmarked = lower.trim_end_matches(['!', '?']);
    !REFERENCE_STARTS.contains(&first)
        && !value.chars().any(char::is_whitespace)
        && !value.contains("://")
        && !REFERENCE_PREFIXES.iter().any(|p| lower.starts_with(p))
        && !NOT_VALUES.contains(&unmarked)
        && !is_stand_in(value)
        && !is_typed_stand_in(value)
        && longest_run(value) < MASK_RUN
        && !is_number(value)
        && !is_dotted_path(value)
        && !is_password_hash(value)
        && !(bare && (is_code_after(quoting) || is_type_name(value)))
}

/// A bare value followed by a call, an index, a member or generic arguments is code.
fn is_code_after(quoting: Quoting) -> bool {
    matches!(quoting, Quoting::Bare(Some('(' | '[' | '.' | '<')))
}

/// `SecretString`, `DbPassword`: a type or a constant's name, not its value.
fn is_type_name(value: &str) -> bool {
    let mut chars = value.chars();
    let starts_upper = chars.next().is_some_and(|c| c.is_ascii_uppercase());
    let humps = value.chars().filter(char::is_ascii_uppercase).count();
    starts_upper
        && humps >= 2
        && value.chars().all(|c| c.is_ascii_alphabetic())
        && value.chars().any(|c| c.is_ascii_lowercase())
}

/// A bare value written like a variable (`pw`, `new_pass`, `userInput`): in code that
/// is a reference; a real password has digits, symbols or length.
pub(super) fn is_identifier(value: &str) -> bool {
    let mut chars = value.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && value.chars().all(|c| c.is_ascii_alphabetic() || c == '_')
        && value.len() < 16
}

/// Hash formats that name their algorithm (`pbkdf2_sha256$600000$salt$hash` in Django,
/// `bcrypt$…`): the stored hash of a password, not the password.
fn is_password_hash(value: &str) -> bool {
    const ALGORITHMS: &[&str] = &[
        "pbkdf2", "bcrypt", "argon2", "scrypt", "sha1", "sha256", "sha512", "md5", "crypt",
        "unsalted",
    ];
    let mut parts = value.split('$');
    let algorithm = parts.next().unwrap_or("").to_ascii_lowercase();
    parts.count() >= 2 && ALGORITHMS.iter().any(|a| algorithm.starts_with(a))
}

/// `3fa85f64-5717-4562-b3fc-2c963f66afa6`.
pub(super) fn is_uuid(value: &str) -> bool {
    value.len() == 36
        && value.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn is_number(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_digit())
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | '_' | 'e' | 'E'))
        && value.chars().filter(|c| c.is_ascii_alphabetic()).count() <= 1
}

/// `var.db_password`, `settings.SECRET`, `process.env.TOKEN`: a reference, made of
/// names (a dotted token such as a Discord bot token has generated parts).
fn is_dotted_path(value: &str) -> bool {
    value.contains('.')
        && value.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                && !is_generated(part)
        })
}

/// Long, letters and digits mixed, spread over many characters: generated, not a name
/// (`pat.w2x8d4n1k9q3zr7t5v0m.…`).
fn is_generated(part: &str) -> bool {
    looks_random(part)
}

/// Good enough for a password: a letter and a digit or symbol, or random on its own.
pub(super) fn is_password_like(value: &str) -> bool {
    let letter = value.chars().any(|c| c.is_alphabetic());
    let digit = value.chars().any(|c| c.is_ascii_digit());
    let symbol = value
        .chars()
        .any(|c| !c.is_alphanumeric() && !matches!(c, '-' | '_' | '.'));
    (value.chars().count() >= 3 && letter && (digit || symbol)) || looks_random(value)
}

/// Keys and tokens are generated: long, letters and digits mixed, spread over many
/// characters (Shannon entropy), and not a path.
pub(super) fn looks_random(value: &str) -> bool {
    const MIN_CHARS: usize = 16;
    const MIN_BITS_PER_CHAR: f64 = 3.0;
    let n = value.chars().count();
    // Base64 of lower-case bytes holds `/` too, with `+` or `=`; a path does not.
    let path = value.contains('/')
        && !value
            .chars()
            .any(|c| c.is_ascii_uppercase() || matches!(c, '+' | '='));
    n >= MIN_CHARS
        && value.chars().any(|c| c.is_ascii_alphabetic())
        && value.chars().any(|c| c.is_ascii_digit())
        && !path
        && entropy(value) >= MIN_BITS_PER_CHAR
        && !is_made_of_words(value)
        && !is_encoded_stand_in(value)
}

/// `OrderReferenceCodeValueType`, `InvoiceArchive-2.4`: most letters belong to
/// capitalised words, as in names. In generated text an upper-case letter followed by
/// three lower-case ones is rare (about 3 % of positions in base62), so a real token
/// never comes near.
fn is_made_of_words(value: &str) -> bool {
    const MIN_WORD: usize = 4;
    let chars: Vec<char> = value.chars().collect();
    let alphanumeric = chars.iter().filter(|c| c.is_ascii_alphanumeric()).count();
    let mut in_words = 0;
    let mut i = 0;
    // Each character is looked at once: a word's tail is skipped once counted.
    while i < chars.len() {
        if !chars.get(i).is_some_and(char::is_ascii_uppercase) {
            i += 1;
            continue;
        }
        let tail = chars.get(i + 1..).map_or(0, |t| {
            t.iter().take_while(|c| c.is_ascii_lowercase()).count()
        });
        if tail + 1 >= MIN_WORD {
            in_words += tail + 1;
        }
        i += tail + 1;
    }
    alphanumeric > 0 && in_words * 10 >= alphanumeric * 7
}

fn entropy(value: &str) -> f64 {
    let mut counts: HashMap<char, usize> = HashMap::new();
    for c in value.chars() {
        *counts.entry(c).or_insert(0) += 1;
    }
    let n = value.chars().count() as f64;
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn longest_run(value: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    let mut previous = None;
    for c in value.chars() {
        run = if Some(c) == previous { run + 1 } else { 1 };
        previous = Some(c);
        longest = longest.max(run);
    }
    longest
}

/// The longest run of characters in order, next to each other (`abcdefgh`) or every
/// other one (`a1b2c3d4e5f6g7h8`).
fn longest_sequence(value: &str) -> usize {
    let chars: Vec<char> = value.chars().collect();
    let mut longest = 0;
    for stride in 1..=2 {
        for phase in 0..stride {
            let mut run = 0;
            let mut previous: Option<char> = None;
            for &c in chars.iter().skip(phase).step_by(stride) {
                let follows =
                    previous.is_some_and(|p| c.is_ascii_alphanumeric() && p as u32 + 1 == c as u32);
                run = if follows { run + 1 } else { 1 };
                previous = Some(c);
                longest = longest.max(run);
            }
        }
    }
    longest
}

/// `aaaabbbbcccc0000`: runs of one character three long on average; a generated value
/// repeats a character next to itself about once in 16 (hex) to 62 (base62) places.
fn is_blocky(value: &str) -> bool {
    const MIN_LEN: usize = 12;
    const MEAN_RUN: usize = 3;
    let chars: Vec<char> = value.chars().collect();
    let runs = 1 + chars.windows(2).filter(|w| w[0] != w[1]).count();
    chars.len() >= MIN_LEN && chars.len() >= MEAN_RUN * runs
}

/// The longest run of hex byte pairs that count up (`08090a0b…`), as test vectors and
/// made-up keys are written.
fn counting_bytes(value: &str) -> usize {
    let b = value.as_bytes();
    let byte_at = |i: usize| -> Option<u8> {
        let pair = b.get(i..i + 2)?;
        let hex = std::str::from_utf8(pair).ok()?;
        u8::from_str_radix(hex, 16).ok()
    };
    let mut longest = 0;
    for phase in 0..2 {
        let mut run = 0;
        let mut previous: Option<u8> = None;
        let mut i = phase;
        while i + 2 <= b.len() {
            let current = byte_at(i);
            run = match (previous, current) {
                (Some(p), Some(c)) if p.checked_add(1) == Some(c) => run + 1,
                (_, Some(_)) => 1,
                _ => 0,
            };
            longest = longest.max(run);
            previous = current;
            i += 2;
        }
    }
    longest
}

/// How many runs of `SHORT_RUN` or more characters in order (`1234`, `abcd`) `value`
/// holds.
fn short_sequences(value: &str) -> usize {
    let mut count = 0;
    let mut run = 0;
    let mut previous: Option<char> = None;
    for c in value.chars() {
        let follows =
            previous.is_some_and(|p| c.is_ascii_alphanumeric() && p as u32 + 1 == c as u32);
        run = if follows { run + 1 } else { 1 };
        if run == SHORT_RUN {
            count += 1;
        }
        previous = Some(c);
    }
    count
}

fn distinct(value: &str) -> usize {
    let mut seen: Vec<char> = value.chars().filter(|c| c.is_alphanumeric()).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_are_recognised() {
        for token in [
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "AKIAIOSFODNN7EXAMPLE",
            "xoxb-000000000000-000000000000-abc",
            "ghp_a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1",
            "ghp_0123456789abcdefghijABCDEFGHIJ0123456789",
        ] {
            assert!(is_stand_in_token(token, 4), "{token}");
        }
        assert!(!is_stand_in_token(
            "ghp_R8wq2ZkLm4Vt9XsB3nYc7HdJ1pFg6TaQe0Uo",
            4
        ));
        for typed in [
            "aaaabbbbccccdddd0000",
            "a1b2c3d4e5f6g7h8i9j0",
            "000102030405060708090a0b",
            "xoxb-1234-5678-1234-9f3c2a1b7e6d5c4b3a29180716f5e4d3",
            "MyFeedPassword1",
            "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
        ] {
            assert!(is_stand_in(typed), "{typed}");
        }
        for generated in [
            "9f3c2a1b7e6d5c4b3a29180716f5e4d3c8b7a6f5e4d3c2b1a09f8e7d6c5b4a39",
            "R8wq2ZkLm4Vt9XsB3nYc7HdJ1pFg6TaQe0Uo",
        ] {
            assert!(!is_stand_in(generated), "{generated}");
        }
    }

    #[test]
    fn references_types_and_keywords_are_not_literals() {
        let bare = Quoting::Bare(None);
        for value in [
            "var.db_password",
            "process.env.TOKEN",
            "$DB_PASSWORD",
            "${{ secrets.DB }}",
            "%DB_PASSWORD%",
            "{{ vault_password }}",
            "0",
            "true",
            "SecretString",
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:db",
            "https://vault.internal/v1/secret",
        ] {
            assert!(!is_literal(value, bare), "{value}");
        }
        assert!(!is_literal("get_password", Quoting::Bare(Some('('))));
        assert!(is_literal("hunter2", bare));
        assert!(is_literal("k7#vQ2!", Quoting::Quoted));
        assert!(!is_literal("s3cr3t!", Quoting::Quoted));
    }

    #[test]
    fn randomness_needs_length_mixed_characters_and_entropy() {
        assert!(looks_random("q8ZrT2mVx9LpK4sWb7NcY1dF"));
        assert!(looks_random("3f9a2c7d1e8b4f60"));
        assert!(!looks_random("bearer"));
        assert!(!looks_random("user-profile-settings"));
        assert!(!looks_random("uploads/2024/avatar.png"));
        assert!(!looks_random("aaaaaaaaaaaaaaaaaaaaaaaa1"));
        assert!(!looks_random("ord20417:OrderReferenceCodeValueType"));
        assert!(!looks_random("InvoiceArchive-2.4"));
        assert!(looks_random(
            "k2v+_p8rz1ql-dw7+xn4=b9tm3yf0/hc6s5ga_je2uo8wq"
        ));
    }
}
