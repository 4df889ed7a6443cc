//! `key = value` in the forms code and configuration use (`:`, `=`, `:=`, `?=`, `::=`,
//! `.=`, `=>`, `setenv("KEY", "v")`, `<key>v</key>`, `key="K" value="v"`), found from a
//! secret word in the key (`password`, `secret`, `token`, `key`, …). The key decides
//! how strict the value check is; vendor names in the key (`DATADOG_API_KEY`) with a
//! value of the vendor's shape give the vendor's kind.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::form::{self, After, Form};
use super::value::{
    Quoting, is_identifier, is_literal, is_password_like, is_stand_in_token, is_uuid, looks_random,
};
use super::{SecretKind, floor_char_boundary};

/// Words that make a key worth a look; the prefilter finds them in lower case,
/// UPPER CASE and Capitalised (camelCase) spellings.
pub(super) const WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "key",
    "auth",
    "credential",
    "creds",
];

/// A key or value longer than this is a blob, not a name: give up rather than walk it.
const MAX_KEY: usize = 100;
const MAX_VALUE: usize = 4096;

/// How strict the value check is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strength {
    /// `password`, `secret`: any literal with a digit or symbol is a password.
    Password,
    /// `token`, `*_key`, `auth`: common words for harmless things, so the value must
    /// look generated.
    Token,
}

/// Trailing words that qualify the secret without changing it (`SECRET_KEY_BASE`).
const QUALIFIERS: &[&str] = &[
    "base", "value", "b64", "base64", "hex", "raw", "plain", "string", "str",
];

/// Words in a key that say its value is public or not a credential at all.
const NOT_SECRET: &[&str] = &[
    "public",
    "publishable",
    "pub",
    "primary",
    "foreign",
    "sort",
    "partition",
    "hash",
    "range",
    "cache",
    "idempotency",
    "lookup",
    "dedup",
    "unique",
    "composite",
    "row",
    "index",
    "object",
    "s3",
    "gpg",
    "pgp",
    "ssh",
    "next",
    "page",
    "continuation",
    "pagination",
    "cancellation",
    "csrf",
    "xsrf",
    "authenticity",
    "bucket",
    "schema",
    "sequence",
    "natural",
    // Keys meant for browsers: a reCAPTCHA site key, a search-only key.
    "site",
    "search",
    "fake",
    "dummy",
    "example",
    "sample",
    "mock",
    "placeholder",
    // A test's values that must not work (`nonMatchingToken`, `invalid_password`).
    "non",
    "not",
    "invalid",
    "wrong",
    "bad",
    "bogus",
    "incorrect",
    "malformed",
    "mismatched",
    "expired",
    "revoked",
];

/// Glued spellings of `… key` and `… auth` that are credentials (`apikey`).
const GLUED_KEYS: &[&str] = &[
    "apikey",
    "accesskey",
    "privatekey",
    "authkey",
    "masterkey",
    "signingkey",
    "encryptionkey",
    "licensekey",
    "appkey",
    "clientkey",
    "serverkey",
];

/// A vendor's credential named in an assignment: the key mentions the vendor and the
/// value has the vendor's shape.
struct KeyedRule {
    kind: SecretKind,
    key: fn(&str) -> bool,
    value: &'static str,
}

const UUID: &str = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

static KEYED: LazyLock<Vec<(KeyedRule, Regex)>> = LazyLock::new(|| {
    let rules = [
        KeyedRule {
            kind: SecretKind::AwsSecretAccessKey,
            key: |k| {
                k.ends_with("secretaccesskey")
                    || (k.contains("aws") && (k.ends_with("secretkey") || k.ends_with("secret")))
            },
            value: "[A-Za-z0-9/+]{40}",
        },
        KeyedRule {
            kind: SecretKind::AzureStorageKey,
            key: |k| k.ends_with("accountkey") || (k.contains("storage") && k.ends_with("key")),
            value: "[A-Za-z0-9+/]{86}(?:==)?",
        },
        KeyedRule {
            kind: SecretKind::HerokuApiKey,
            key: |k| k.contains("heroku"),
            value: UUID,
        },
        KeyedRule {
            kind: SecretKind::DatadogKey,
            key: |k| {
                k.contains("datadog")
                    || (k.starts_with("dd") && (k.contains("apikey") || k.contains("appkey")))
            },
            value: "[a-f0-9]{32}|[a-f0-9]{40}",
        },
        KeyedRule {
            kind: SecretKind::TwilioKey,
            key: |k| k.contains("twilio"),
            value: "[a-f0-9]{32}",
        },
        KeyedRule {
            kind: SecretKind::MailgunKey,
            key: |k| k.contains("mailgun"),
            value: "key-[a-f0-9]{32}|[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}",
        },
        KeyedRule {
            kind: SecretKind::NewRelicKey,
            key: |k| k.contains("newrelic") || k.starts_with("nr"),
            value: "[a-f0-9]{36}NRAL|[a-f0-9]{40}",
        },
        KeyedRule {
            kind: SecretKind::SentryToken,
            key: |k| k.contains("sentry"),
            value: "[a-f0-9]{64}",
        },
        KeyedRule {
            kind: SecretKind::DiscordToken,
            key: |k| k.contains("discord"),
            value: r"[a-f0-9]{64}|[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}|[A-Za-z0-9_-]{32}",
        },
        KeyedRule {
            kind: SecretKind::BitbucketToken,
            key: |k| k.contains("bitbucket"),
            value: "[A-Za-z0-9_=-]{32,64}",
        },
        KeyedRule {
            kind: SecretKind::AtlassianToken,
            key: |k| k.contains("atlassian") || k.contains("jira") || k.contains("confluence"),
            value: "[A-Za-z0-9]{24}",
        },
        KeyedRule {
            kind: SecretKind::OktaToken,
            key: |k| k.contains("okta"),
            value: "00[A-Za-z0-9_-]{40}",
        },
        KeyedRule {
            kind: SecretKind::SnykToken,
            key: |k| k.contains("snyk"),
            value: UUID,
        },
        KeyedRule {
            kind: SecretKind::CloudflareToken,
            key: |k| k.contains("cloudflare") || k.starts_with("cfapi"),
            value: "[A-Za-z0-9_-]{40}|[a-f0-9]{37}",
        },
    ];
    rules
        .into_iter()
        .map(|rule| {
            let regex = Regex::new(&format!("^(?:{})$", rule.value))
                .expect("keyed value patterns are constant and valid");
            (rule, regex)
        })
        .collect()
});

/// A vendor whose credentials have one exact shape, and the layout a value copies when
/// it imitates that shape.
struct NearMiss {
    names: fn(&str) -> bool,
    layout: Regex,
    exact: Regex,
}

static NEAR_MISSES: LazyLock<Vec<NearMiss>> = LazyLock::new(|| {
    let anchored =
        |pattern: &str| Regex::new(&format!("^(?:{pattern})$")).expect("constant pattern");
    vec![NearMiss {
        names: |k| k.contains("telegram"),
        layout: anchored("[0-9]+:[A-Za-z0-9_-]+"),
        exact: anchored("(?:bot)?[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"),
    }]
});

/// `telegram_token = "4711:Abc…"`: a value in a vendor's layout that fails its shape (a
/// bot id too short, a body too long) is a test of the shape, not a credential; a real
/// one is reported by the vendor's own rule.
fn is_near_miss(key: &str, value: &str) -> bool {
    NEAR_MISSES
        .iter()
        .any(|rule| (rule.names)(key) && rule.layout.is_match(value) && !rule.exact.is_match(value))
}

/// The key around a secret word: the run of name characters (`db_password`,
/// `spring.datasource.password`, `x-api-key`), `None` when the run is too long to be
/// a name.
pub(super) fn key_around(text: &str, word: Range<usize>) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let before = bytes
        .get(..word.start)?
        .iter()
        .rev()
        .take(MAX_KEY + 1)
        .take_while(|b| is_name(b))
        .count();
    let after = bytes
        .get(word.end..)?
        .iter()
        .take(MAX_KEY + 1)
        .take_while(|b| is_name(b))
        .count();
    (before <= MAX_KEY && after <= MAX_KEY).then(|| word.start - before..word.end + after)
}

/// An assignment to a secret-looking key: the range from the key to the end of the
/// value, and the kind of secret the value is, if it is one.
pub(super) struct Assignment {
    pub range: Range<usize>,
    pub kind: Option<SecretKind>,
    /// Unquoted values run on to the next separator, so words inside them are part of
    /// the value (`secret: arn:…:secret:prod`); a quoted value's words may be keys of
    /// their own (`key="ClearTextPassword" value="…"`).
    pub bare: bool,
}

/// The assignment to the key at `key` in `text`, when the key names a secret.
pub(super) fn assignment_at(text: &str, key: Range<usize>) -> Option<Assignment> {
    let rest = text.get(key.end..)?;
    if !may_assign(rest) {
        return None;
    }
    let name = text.get(key.clone())?;
    let words = words(name);
    let strength = strength(&words)?;
    let rest = rest.get(..floor_char_boundary(rest, MAX_VALUE))?;
    let after = form::after_key(rest)?;
    let kind = if form_fits(&after, name, text.get(..key.start)?, rest) {
        let quoting = if after.bare {
            Quoting::Bare(rest.get(after.value_end..).and_then(|s| s.chars().next()))
        } else {
            Quoting::Quoted
        };
        classify(&words.concat(), strength, after.value, quoting)
    } else {
        None
    };
    Some(Assignment {
        range: key.start..key.end + after.end,
        kind,
        bare: after.bare,
    })
}

/// Whether what follows a key can start an assignment: most secret words in code are
/// not keys (`password handling`, `auth::verify`), and this spares them the parse.
fn may_assign(after_key: &str) -> bool {
    let after = after_key.trim_start_matches([' ', '\t']);
    match after.chars().next() {
        // `::` is a path separator unless it is Make's `::=` or `:::=`.
        Some(':') => !after.starts_with("::") || after.trim_start_matches(':').starts_with('='),
        Some('"' | '\'' | '\\' | ']' | '=' | '?' | '.' | '+' | '>' | '(') => true,
        // A type between key and operator: `var apiToken string = …`.
        Some('s' | 'S' | 'c') => after.len() < after_key.len(),
        _ => false,
    }
}

/// What comes before the key fits the form after it: a call's key is a string literal
/// right after `(`, an attribute's key is quoted, an element's key follows `<`, a setter
/// stores its argument, and a bare value after `:` reads as YAML.
fn form_fits(after: &After, name: &str, before: &str, rest: &str) -> bool {
    let quoted_key = before.ends_with(['"', '\'']);
    match after.form {
        Form::Call => {
            let opener = before.get(..before.len().saturating_sub(1)).unwrap_or("");
            quoted_key && opener.trim_end().ends_with('(')
        }
        Form::Attribute => quoted_key,
        Form::Element => before.ends_with('<'),
        Form::Setter => is_setter(name),
        Form::Operator { op: ":", gap } if after.bare => gap && !is_sentence(rest, after.value_end),
        Form::Operator { .. } => true,
    }
}

/// `password: see the docs`: more words after a bare value make a sentence, not YAML
/// (`secret:prod` without a space is a path or an ARN part, not YAML either).
fn is_sentence(rest: &str, value_end: usize) -> bool {
    let after = rest.get(value_end..).unwrap_or("");
    let next_word = after.trim_start_matches([' ', '\t']);
    after.len() != next_word.len() && next_word.starts_with(|c: char| c.is_ascii_alphabetic())
}

/// `setPassword("v")`, `withToken("v")`, `.password("v")`: a call that stores its
/// argument, unlike `get_secret("name")` or `check_password("input")`.
fn is_setter(key: &str) -> bool {
    let method = key.rsplit('.').next().unwrap_or(key);
    let words = words(method);
    words.len() == 1
        || words
            .first()
            .is_some_and(|w| matches!(w.as_str(), "set" | "with" | "use" | "put"))
}

/// The kind of secret `value` is under a key whose words join to `key`.
fn classify(key: &str, strength: Strength, value: &str, quoting: Quoting) -> Option<SecretKind> {
    // A vendor's shape is strict enough to stand on its own (an AWS secret may start
    // with `/`, which would otherwise read as a path).
    let keyed = KEYED
        .iter()
        .find(|(rule, shape)| (rule.key)(key) && shape.is_match(value));
    if let Some((rule, _)) = keyed {
        return (!is_stand_in_token(value, 0)).then_some(rule.kind);
    }
    if is_near_miss(key, value) || !is_literal(value, quoting) {
        return None;
    }
    // `key: <uuid>` alone is a list item's or a record's key (React's `key`, a
    // dictionary entry); an API key that is a UUID has a name that says so.
    if key == "key" && is_uuid(value) {
        return None;
    }
    let real = match strength {
        Strength::Password => {
            is_password_like(value)
                && !(matches!(quoting, Quoting::Bare(_)) && is_identifier(value))
        }
        Strength::Token => looks_random(value),
    };
    real.then_some(SecretKind::PasswordAssignment)
}

/// How strict to be with the value of a key made of `words`, `None` when the key does
/// not name a secret.
fn strength(words: &[String]) -> Option<Strength> {
    let mut words = words;
    while let Some((last, init)) = words.split_last() {
        if !QUALIFIERS.contains(&last.as_str()) {
            break;
        }
        words = init;
    }
    if words.iter().any(|w| NOT_SECRET.contains(&w.as_str())) {
        return None;
    }
    let (last, init) = words.split_last()?;
    let previous = init.last().map(String::as_str);
    let last = last.as_str();
    let glued = |word: &str| last.ends_with(word);
    if (last == "key" && previous == Some("secret")) || last.ends_with("secretkey") {
        return Some(Strength::Password);
    }
    if ["password", "passwd", "passphrase", "secret"]
        .iter()
        .any(|w| glued(w))
        || last == "pwd"
    {
        return Some(Strength::Password);
    }
    if glued("token")
        || matches!(
            last,
            "key" | "auth" | "credential" | "credentials" | "creds"
        )
        || GLUED_KEYS.iter().any(|w| glued(w))
    {
        return Some(Strength::Token);
    }
    None
}

/// The words of a key, lower-cased: split at `_`, `-`, `.` and camelCase humps
/// (`PuttyPassword` → `putty`, `password`; `DBPassword2` → `db`, `password`). Keys are
/// ASCII: `key_around` takes only ASCII name characters.
fn words(key: &str) -> Vec<String> {
    let b = key.as_bytes();
    let mut words = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            push_word(&mut words, key.get(start..i));
            start = i + 1;
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| b.get(p));
        let next = b.get(i + 1);
        let hump = c.is_ascii_uppercase()
            && previous.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(u8::is_ascii_lowercase))
            });
        if hump {
            push_word(&mut words, key.get(start..i));
            start = i;
        }
    }
    push_word(&mut words, key.get(start..));
    words
}

/// Adds `word` lower-cased, without trailing digits (`password2` is a password).
fn push_word(words: &mut Vec<String>, word: Option<&str>) {
    let trimmed = word
        .unwrap_or("")
        .trim_end_matches(|c: char| c.is_ascii_digit());
    if !trimmed.is_empty() {
        words.push(trimmed.to_ascii_lowercase());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strength_of(key: &str) -> Option<Strength> {
        strength(&words(key))
    }

    #[test]
    fn keys_split_into_words() {
        assert_eq!(words("PuttyPassword"), ["putty", "password"]);
        assert_eq!(words("DBPassword2"), ["db", "password"]);
        assert_eq!(
            words("spring.datasource.password"),
            ["spring", "datasource", "password"]
        );
        assert_eq!(words("--x-api-key"), ["x", "api", "key"]);
    }

    #[test]
    fn the_last_word_of_a_key_decides() {
        use Strength::{Password, Token};
        for (key, expected) in [
            ("db_password", Some(Password)),
            ("clientSecret", Some(Password)),
            ("SECRET_KEY_BASE", Some(Password)),
            ("API_KEY", Some(Token)),
            ("apikey", Some(Token)),
            ("GITHUB_TOKEN", Some(Token)),
            ("secrets", None),
            ("secret_name", None),
            ("token_type", None),
            ("monkey", None),
            ("public_key", None),
            ("password_length", None),
            ("fake_password", None),
        ] {
            assert_eq!(strength_of(key), expected, "{key}");
        }
    }
}
