//! Passwords made of the words people type when a real one does not matter:
//! `Password1`, `P@ssw0rd!`, `changeme123`, `adminpasswd`, `ClearTextPassword2`,
//! `MySourcePassword`. Documentation, test fixtures and config templates are full of
//! them; a leaked credential is generated, or at least holds a word outside this list
//! (`hunter2` stays a password).
//!
//! A value is read as words from `WORDS`, in any case and in leetspeak (`p4ssw0rd`),
//! glued or separated, with digits and symbols around them as decoration. Every letter
//! must belong to a word: one letter outside the list makes it a password again.

/// The vocabulary of made-up passwords: the secret words themselves, the accounts and
/// roles they guard, the stand-in words of documentation and the classic weak passwords.
/// Words of one or two letters are few on purpose: each one lets more text through.
const WORDS: &[&str] = &[
    // What the value is called
    "password",
    "passwort",
    "passwd",
    "passphrase",
    "pass",
    "pwd",
    "pw",
    "secret",
    "cleartext",
    "plaintext",
    "clear",
    "plain",
    "text",
    "key",
    "token",
    "auth",
    "login",
    "access",
    "private",
    "value",
    "jwt",
    "session",
    "signing",
    "encryption",
    "cookie",
    // Whose it is
    "admin",
    "administrator",
    "root",
    "user",
    "username",
    "guest",
    "owner",
    "master",
    "service",
    "server",
    "client",
    "system",
    "app",
    "api",
    "db",
    "database",
    "sql",
    "mysql",
    "postgres",
    "redis",
    "source",
    "local",
    "dev",
    "prod",
    // What documentation and tests say
    "test",
    "testing",
    "demo",
    "sample",
    "example",
    "dummy",
    "fake",
    "mock",
    "default",
    "temp",
    "tmp",
    "my",
    "your",
    "some",
    "the",
    "new",
    "old",
    "super",
    "top",
    "very",
    "strong",
    "replace",
    "change",
    "changeme",
    "changeit",
    "me",
    "it",
    "todo",
    "fixme",
    "insert",
    "enter",
    "here",
    "foo",
    "bar",
    "baz",
    "qux",
    "abc",
    "xyz",
    // Passwords everyone tries first
    "letmein",
    "let",
    "in",
    "welcome",
    "qwerty",
    "asdf",
    "hello",
    "world",
    "open",
    "sesame",
    "trustno",
    "iloveyou",
];

/// Longer values are not typed by hand.
const MAX_TYPED: usize = 48;

/// Whether `value` is made of `WORDS`, decorated with digits and symbols, and holds at
/// least one of them.
pub(super) fn is_typed_stand_in(value: &str) -> bool {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() > MAX_TYPED || !chars.iter().any(char::is_ascii_alphabetic) {
        return false;
    }
    let n = chars.len();
    // reach[i]: the first i characters read as words and decoration; `with_word` when
    // at least one word was read.
    let mut reach = vec![false; n + 1];
    let mut with_word = vec![false; n + 1];
    reach[0] = true;
    for i in 0..n {
        if !reach[i] {
            continue;
        }
        let c = chars[i];
        if !c.is_ascii_alphabetic() && c.is_ascii() {
            reach[i + 1] = true;
            with_word[i + 1] |= with_word[i];
        }
        for word in WORDS {
            let len = word.len();
            let fits = chars.get(i..i + len).is_some_and(|run| {
                run.iter()
                    .zip(word.bytes())
                    .all(|(&c, w)| reads_as(c, char::from(w)))
            });
            if fits {
                reach[i + len] = true;
                with_word[i + len] = true;
            }
        }
    }
    reach[n] && with_word[n]
}

/// `c` typed for the letter `letter`: the letter in either case or its leetspeak.
fn reads_as(c: char, letter: char) -> bool {
    if c.to_ascii_lowercase() == letter {
        return true;
    }
    matches!(
        (c, letter),
        ('0', 'o')
            | ('1' | '!' | '|', 'i' | 'l')
            | ('3', 'e')
            | ('4' | '@', 'a')
            | ('5' | '$', 's')
            | ('7', 't')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_made_of_stand_in_words_are_recognised() {
        for value in [
            "Password1",
            "P@ssw0rd!",
            "p4ssw0rd",
            "changeme123",
            "adminpasswd",
            "ClearTextPassword2",
            "MySourcePassword",
            "Test-Source-Password",
            "TestSource%Password1",
            "s3cr3t",
            "Secret123!",
            "admin_123",
            "mySuperSecretPassword",
            "Welcome1!",
            "letmein",
            "test-api-key-1",
        ] {
            assert!(is_typed_stand_in(value), "{value}");
        }
    }

    #[test]
    fn a_letter_outside_the_words_makes_a_password() {
        for value in [
            "hunter2",
            "snjmu03!hEoU",
            "Summer2024!",
            "correcthorsebatterystaple",
            "12345678",
            "Passwordx1",
            "",
            "passwörd1",
        ] {
            assert!(!is_typed_stand_in(value), "{value}");
        }
    }

    #[test]
    fn long_values_are_not_read() {
        let long = "password".repeat(7);
        assert!(!is_typed_stand_in(&long));
    }
}
