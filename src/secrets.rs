//! Token patterns that must never be posted: used by `state put` (memory), the review
//! gate (added lines) and the ASSISTANT_CONTEXT validator.
//!
//! A match carries its kind and position, never the matched text, so that a caller
//! cannot leak the value by printing a finding.

use std::fmt;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretKind {
    GithubToken,
    AwsAccessKeyId,
    PrivateKey,
    SlackToken,
    PasswordAssignment,
}

impl SecretKind {
    pub fn label(self) -> &'static str {
        match self {
            SecretKind::GithubToken => "GitHub token",
            SecretKind::AwsAccessKeyId => "AWS access key ID",
            SecretKind::PrivateKey => "private key",
            SecretKind::SlackToken => "Slack token",
            SecretKind::PasswordAssignment => "password or secret assignment",
        }
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SecretMatch {
    pub kind: SecretKind,
    /// Byte range in the scanned text, for redaction; never print that slice.
    pub range: Range<usize>,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl fmt::Display for SecretMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {}, column {}",
            self.kind, self.line, self.column
        )
    }
}

struct Pattern {
    kind: SecretKind,
    regex: Regex,
    /// Tokens glued to a longer word (`xghp_…`) are identifiers, not tokens.
    needs_boundary: bool,
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let pattern = |kind, source: &str, needs_boundary| Pattern {
        kind,
        regex: Regex::new(source).expect("secret patterns are constant and valid"),
        needs_boundary,
    };
    vec![
        pattern(
            SecretKind::GithubToken,
            r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}",
            true,
        ),
        pattern(
            SecretKind::AwsAccessKeyId,
            r"(?:AKIA|ASIA)[A-Z0-9]{16}",
            true,
        ),
        pattern(
            SecretKind::PrivateKey,
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY[ A-Z0-9]*-----",
            false,
        ),
        pattern(
            SecretKind::SlackToken,
            r"xox[abprs]-[A-Za-z0-9-]{10,}",
            true,
        ),
    ]
});

/// `password=…`, `"db_password": "…"`, `client_secret: …`, `API_TOKEN=…` and the like.
/// The key must end with one of the words; the value is checked in code so placeholders
/// are skipped. The pattern starts at the word (a literal the regex engine finds fast),
/// and the rest of the key is taken back afterwards.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(password|passwd|secret_key|secret|api_key|apikey|token)["']?[ \t]*[:=][ \t]*("[^"\r\n]*"|'[^'\r\n]*'|[^\s"',;(){}\[\]]+)"#,
    )
    .expect("the assignment pattern is constant and valid")
});

/// `token` names many harmless things (`token_type = "bearer"`): a token assignment
/// counts only when its value looks random.
const TOKEN_MIN_CHARS: usize = 16;
const TOKEN_MIN_BITS_PER_CHAR: f64 = 3.5;

/// Every pattern at once: one pass tells the common case (nothing at all) apart.
static ANY: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(
        PATTERNS
            .iter()
            .map(|p| p.regex.as_str())
            .chain([ASSIGNMENT.as_str()]),
    )
    .expect("the patterns are constant and valid")
});

/// Every token pattern in `text`, in order of position.
pub fn find_secrets(text: &str) -> Vec<SecretMatch> {
    if !ANY.is_match(text) {
        return Vec::new();
    }
    let mut found: Vec<(SecretKind, Range<usize>)> = Vec::new();
    for pattern in PATTERNS.iter() {
        for m in pattern.regex.find_iter(text) {
            if pattern.needs_boundary && !stands_alone(text, m.range()) {
                continue;
            }
            found.push((pattern.kind, m.range()));
        }
    }
    found.sort_by_key(|(_, range)| (range.start, range.end));
    // Specific matches never overlap each other much; the longest end so far lets an
    // assignment check overlap with one binary search instead of a scan.
    let reach: Vec<usize> = found
        .iter()
        .scan(0, |max_end, (_, r)| {
            *max_end = r.end.max(*max_end);
            Some(*max_end)
        })
        .collect();
    let specific = found.len();
    for captures in ASSIGNMENT.captures_iter(text) {
        let (Some(matched), Some(word), Some(value)) =
            (captures.get(0), captures.get(1), captures.get(2))
        else {
            continue;
        };
        let whole = key_start(text, matched.start())..matched.end();
        if word.as_str().eq_ignore_ascii_case("token") && !looks_random(value.as_str()) {
            continue;
        }
        let starting_before = found
            .get(..specific)
            .map_or(0, |f| f.partition_point(|(_, r)| r.start < whole.end));
        let overlaps = starting_before
            .checked_sub(1)
            .and_then(|i| reach.get(i))
            .is_some_and(|&end| end > whole.start);
        let followed_by_call = matches!(
            text.get(value.end()..).and_then(|rest| rest.chars().next()),
            Some('(' | '[' | '.')
        );
        if !overlaps && !followed_by_call && is_real_value(value.as_str()) {
            found.push((SecretKind::PasswordAssignment, whole));
        }
    }
    found.sort_by_key(|(_, range)| (range.start, range.end));
    let mut cursor = Cursor::default();
    found
        .into_iter()
        .map(|(kind, range)| {
            let (line, column) = cursor.advance(text, range.start);
            SecretMatch {
                kind,
                range,
                line,
                column,
            }
        })
        .collect()
}

pub fn contains_secret(text: &str) -> bool {
    !find_secrets(text).is_empty()
}

/// `text` with `known` (a token this run holds) and every token pattern replaced by
/// `***`: for messages built from a server's reply, which may echo what it was sent.
pub fn redact(text: &str, known: Option<&str>) -> String {
    let mut out = match known.filter(|k| k.len() >= 4) {
        Some(k) => text.replace(k, "***"),
        None => text.to_string(),
    };
    for m in find_secrets(&out.clone()).into_iter().rev() {
        out.replace_range(m.range, "***");
    }
    out
}

/// Where the key of an assignment starts: back over the word characters before the
/// matched word (`db_password`, `client.secret`).
fn key_start(text: &str, word_start: usize) -> usize {
    let before = &text.as_bytes()[..word_start];
    let kept = before
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    word_start - kept
}

/// Long enough, and spread over enough characters (Shannon entropy), to be a key
/// rather than a word.
fn looks_random(value: &str) -> bool {
    let inner = value.trim_matches(|c| c == '"' || c == '\'');
    let n = inner.chars().count();
    if n < TOKEN_MIN_CHARS {
        return false;
    }
    let mut counts = std::collections::HashMap::new();
    for c in inner.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let entropy: f64 = counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum();
    entropy >= TOKEN_MIN_BITS_PER_CHAR
}

fn stands_alone(text: &str, range: Range<usize>) -> bool {
    let before = text.get(..range.start).and_then(|s| s.chars().next_back());
    let after = text.get(range.end..).and_then(|s| s.chars().next());
    !before.is_some_and(|c| c.is_ascii_alphanumeric())
        && !after.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Placeholders, references and booleans are not secrets: `${{ secrets.X }}`, `$PASS`,
/// `<password>`, `***`, `true`.
fn is_real_value(value: &str) -> bool {
    let inner = value.trim_matches(|c| c == '"' || c == '\'').trim();
    let Some(first) = inner.chars().next() else {
        return false;
    };
    let placeholder = inner
        .chars()
        .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'));
    let keyword = [
        "true",
        "false",
        "null",
        "none",
        "nil",
        "yes",
        "no",
        "undefined",
        "required",
        "optional",
        "redacted",
        "changeme",
    ]
    .iter()
    .any(|k| inner.eq_ignore_ascii_case(k));
    !matches!(first, '$' | '<' | '{' | '%' | '=' | '(' | '[') && !placeholder && !keyword
}

/// Line and column of increasing offsets in one pass, so that many findings on one
/// long line stay linear.
struct Cursor {
    offset: usize,
    line: usize,
    column: usize,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor {
            offset: 0,
            line: 1,
            column: 1,
        }
    }
}

impl Cursor {
    fn advance(&mut self, text: &str, offset: usize) -> (usize, usize) {
        if let Some(skipped) = text.get(self.offset..offset) {
            for c in skipped.chars() {
                if c == '\n' {
                    self.line += 1;
                    self.column = 1;
                } else {
                    self.column += 1;
                }
            }
            self.offset = offset;
        }
        (self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_assignments_count_only_when_the_value_looks_random() {
        assert_eq!(
            kinds("API_TOKEN=\"q8ZrT2mVx9LpK4sWb7NcY1dF\""),
            [SecretKind::PasswordAssignment]
        );
        for benign in [
            "token_type = \"bearer\"",
            "token = \"aaaaaaaaaaaaaaaaaaaa\"",
            "TOKEN=${{ secrets.T }}",
        ] {
            assert!(kinds(benign).is_empty(), "{benign}");
        }
    }

    #[test]
    fn redaction_removes_the_known_token_and_every_pattern() {
        let echoed =
            "Bad token s3cr3t-value; also ghp_0123456789abcdefghijABCDEFGHIJ0123456789 here";
        assert_eq!(
            redact(echoed, Some("s3cr3t-value")),
            "Bad token ***; also *** here"
        );
        assert_eq!(redact("nothing", None), "nothing");
    }

    fn kinds(text: &str) -> Vec<SecretKind> {
        find_secrets(text).into_iter().map(|m| m.kind).collect()
    }

    const GHP: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

    #[test]
    fn github_tokens_are_found() {
        for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
            let token = format!("token {prefix}{}", "a1".repeat(18));
            assert_eq!(kinds(&token), [SecretKind::GithubToken], "{prefix}");
        }
        let pat = format!("github_pat_{}_{}", "A".repeat(22), "b".repeat(59));
        assert_eq!(kinds(&pat), [SecretKind::GithubToken]);
        assert!(kinds(&format!("x{GHP}")).is_empty());
        assert!(kinds("ghp_short").is_empty());
    }

    #[test]
    fn aws_keys_are_found() {
        assert_eq!(
            kinds("id=AKIAIOSFODNN7EXAMPLE"),
            [SecretKind::AwsAccessKeyId]
        );
        assert_eq!(kinds("ASIAIOSFODNN7EXAMPLE"), [SecretKind::AwsAccessKeyId]);
        assert!(kinds("AKIAIOSFODNN7EXAMPLEX").is_empty());
    }

    #[test]
    fn private_keys_slack_and_assignments_are_found() {
        assert_eq!(
            kinds("-----BEGIN RSA PRIVATE KEY-----\nMII"),
            [SecretKind::PrivateKey]
        );
        assert_eq!(
            kinds("-----BEGIN OPENSSH PRIVATE KEY-----"),
            [SecretKind::PrivateKey]
        );
        assert!(kinds("-----BEGIN PUBLIC KEY-----").is_empty());
        assert_eq!(
            kinds("xoxb-123456789012-abcdefghij"),
            [SecretKind::SlackToken]
        );
        for text in [
            "password=hunter2",
            "passwd: hunter2",
            "secret = 's3cr3t'",
            r#"{"db_password": "hunter2"}"#,
            "CLIENT_SECRET=abc",
        ] {
            assert_eq!(kinds(text), [SecretKind::PasswordAssignment], "{text}");
        }
    }

    #[test]
    fn placeholders_and_empty_values_are_not_secrets() {
        for text in [
            "password=",
            "password: ${{ secrets.DB }}",
            "password=$DB_PASSWORD",
            "password: <your password>",
            "password: \"\"",
            "secret_scan: true",
            "password: ****",
            "password = get_password()",
            "if password == other",
        ] {
            assert!(kinds(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_token_in_an_assignment_is_reported_once() {
        assert_eq!(kinds(&format!("password={GHP}")), [SecretKind::GithubToken]);
    }

    #[test]
    fn several_findings_get_their_own_positions() {
        let text = format!("{GHP} x\npassword=a password=b\n\n  AKIAIOSFODNN7EXAMPLE");
        let positions: Vec<_> = find_secrets(&text)
            .iter()
            .map(|m| (m.line, m.column))
            .collect();
        assert_eq!(positions, [(1, 1), (2, 1), (2, 12), (4, 3)]);
    }

    #[test]
    fn positions_are_reported_without_the_value() {
        let text = format!("first line\n  é {GHP}");
        let found = find_secrets(&text);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line, found[0].column), (2, 5));
        let shown = format!("{} {:?}", found[0], found[0]);
        assert!(!shown.contains("ghp_"), "{shown}");
        assert_eq!(found[0].to_string(), "GitHub token at line 2, column 5");
    }
}
