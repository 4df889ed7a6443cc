//! Branch globs: `*` stays inside one `/` segment, `**` crosses segments, `?` is one
//! character other than `/`; everything else is literal. The `actors` section's globs
//! ([`Glob::stars_only`]) have `*` and `**` alone: there `?` is literal too.
//!
//! A policy may hold some 60,000 globs (the node limit), and compiling each to a regex
//! costs tens of microseconds and kilobytes: 40,000 globs took seconds.
//! So a glob is a token list, matched by a bit-parallel simulation over the name: no
//! compilation, and at most (tokens × name length / 64) word operations per glob,
//! whatever the glob. `to_regex_source` states the same semantics as a regex; the tests
//! hold the two to each other.

use regex::RegexBuilder;

/// A compiled branch glob.
#[derive(Debug, Clone)]
pub struct Glob {
    tokens: Box<[Token]>,
    /// The whole glob when it has no wildcard (most targets: `main`, `develop`): matching
    /// is then a string comparison.
    literal: Option<Box<str>>,
    ignore_case: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    /// `?`: one character other than `/`.
    Any,
    /// `*`: any run of characters other than `/`.
    Star,
    /// `**`: any run of characters but a line break (what the regex `.*` matches).
    DoubleStar,
}

impl Glob {
    pub fn new(glob: &str, case_sensitive: bool) -> Glob {
        Glob::build(glob, case_sensitive, true)
    }

    /// A glob whose only wildcards are `*` and `**` (the `actors` section's logins,
    /// branches and trailers): `?`, like `[bot]`, is the text it reads.
    pub fn stars_only(glob: &str, case_sensitive: bool) -> Glob {
        Glob::build(glob, case_sensitive, false)
    }

    fn build(glob: &str, case_sensitive: bool, question_mark: bool) -> Glob {
        let ignore_case = !case_sensitive;
        let mut tokens: Vec<Token> = Vec::with_capacity(glob.len());
        let mut chars = glob.chars().peekable();
        while let Some(c) = chars.next() {
            let token = match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    Token::DoubleStar
                }
                '*' => Token::Star,
                '?' if question_mark => Token::Any,
                c => Token::Char(fold_if(c, ignore_case)),
            };
            // `**` twice, or `*` twice, matches what one does; a hostile `*****…` stays short.
            if matches!(token, Token::Star | Token::DoubleStar) && tokens.last() == Some(&token) {
                continue;
            }
            tokens.push(token);
        }
        let literal = tokens.iter().all(|t| matches!(t, Token::Char(_))).then(|| {
            tokens
                .iter()
                .filter_map(|t| match t {
                    Token::Char(c) => Some(*c),
                    _ => None,
                })
                .collect::<String>()
                .into_boxed_str()
        });
        Glob {
            tokens: tokens.into_boxed_slice(),
            literal,
            ignore_case,
        }
    }

    pub fn is_match(&self, name: &str) -> bool {
        self.matches(&self.subject(name))
    }

    /// No wildcard: the glob names one branch.
    pub fn is_literal(&self) -> bool {
        self.literal.is_some()
    }

    pub fn ignores_case(&self) -> bool {
        self.ignore_case
    }

    /// `name` prepared for this glob and every glob with the same letter-case setting.
    pub fn subject(&self, name: &str) -> Subject {
        Subject::new(name, self.ignore_case)
    }

    /// The characters the glob must meet literally (letter case folded as it matches):
    /// with them, [`Subject::over`] prepares a name for it.
    pub fn literal_chars(&self) -> impl Iterator<Item = char> + '_ {
        self.tokens.iter().filter_map(|t| match t {
            Token::Char(c) => Some(*c),
            _ => None,
        })
    }

    /// Matches a name prepared once for many globs; it must be prepared with this glob's
    /// letter-case setting.
    pub fn matches(&self, name: &Subject) -> bool {
        debug_assert_eq!(name.ignore_case, self.ignore_case);
        if let Some(literal) = &self.literal {
            return name.text == **literal;
        }
        // Names up to 511 characters need no allocation.
        let mut small = [0u64; 8];
        let mut large;
        let state = if name.words <= small.len() {
            &mut small[..name.words]
        } else {
            large = vec![0u64; name.words];
            &mut large[..]
        };
        self.run(name, state)
    }

    /// `state` bit `j` = "the tokens so far can match the first `j` characters".
    fn run(&self, name: &Subject, state: &mut [u64]) -> bool {
        state.fill(0);
        state[0] = 1;
        for token in &self.tokens {
            match token {
                Token::Char(c) => match name.equal_to(*c) {
                    Some(mask) => step(state, mask),
                    None => return false,
                },
                Token::Any => step(state, name.not_slash()),
                Token::Star => repeat(state, name.not_slash()),
                Token::DoubleStar => repeat(state, name.not_newline()),
            }
            if state.iter().all(|w| *w == 0) {
                return false;
            }
        }
        state[name.len / 64] & (1 << (name.len % 64)) != 0
    }
}

/// A name prepared for matching: per-character position masks, built once per name.
#[derive(Debug, Clone)]
pub struct Subject {
    /// The name, letter case folded when the globs ignore it.
    text: String,
    ignore_case: bool,
    /// Characters in the name.
    len: usize,
    /// Words per mask: one bit per position 0..=len.
    words: usize,
    /// The distinct characters, sorted; mask `2 + i` is where `keys[i]` stands.
    keys: Vec<char>,
    /// Masks 0 (not `/`), 1 (not a line break), then one per key, `words` each.
    masks: Vec<u64>,
}

impl Subject {
    pub fn new(name: &str, ignore_case: bool) -> Subject {
        Subject::prepare(name, ignore_case, None)
    }

    /// `name` prepared only for globs whose literal characters are all in `alphabet`
    /// (sorted, without repeats, folded as the globs fold them). A mask per distinct
    /// character of the name costs (characters × name length / 64) words: untrusted
    /// text with thousands of distinct characters (a commit trailer) would make that
    /// quadratic; over the globs' alphabet it stays (alphabet × length / 64).
    pub fn over(name: &str, ignore_case: bool, alphabet: &[char]) -> Subject {
        Subject::prepare(name, ignore_case, Some(alphabet))
    }

    fn prepare(name: &str, ignore_case: bool, alphabet: Option<&[char]>) -> Subject {
        let text: String = name.chars().map(|c| fold_if(c, ignore_case)).collect();
        let chars: Vec<char> = text.chars().collect();
        let len = chars.len();
        let words = len / 64 + 1;
        let mut keys: Vec<char> = match alphabet {
            None => chars.clone(),
            Some(alphabet) => chars
                .iter()
                .copied()
                .filter(|c| alphabet.binary_search(c).is_ok())
                .collect(),
        };
        keys.sort_unstable();
        keys.dedup();
        let mut masks = vec![0u64; (2 + keys.len()) * words];
        for (j, c) in chars.iter().enumerate() {
            let bit = 1u64 << (j % 64);
            let word = j / 64;
            if *c != '/' {
                masks[word] |= bit;
            }
            if *c != '\n' {
                masks[words + word] |= bit;
            }
            if let Ok(key) = keys.binary_search(c) {
                masks[(2 + key) * words + word] |= bit;
            }
        }
        Subject {
            text,
            ignore_case,
            len,
            words,
            keys,
            masks,
        }
    }

    fn mask(&self, i: usize) -> &[u64] {
        &self.masks[i * self.words..(i + 1) * self.words]
    }

    fn not_slash(&self) -> &[u64] {
        self.mask(0)
    }

    fn not_newline(&self) -> &[u64] {
        self.mask(1)
    }

    fn equal_to(&self, c: char) -> Option<&[u64]> {
        self.keys.binary_search(&c).ok().map(|i| self.mask(2 + i))
    }
}

/// One character that `mask` allows: `state = (state & mask) << 1`.
fn step(state: &mut [u64], mask: &[u64]) {
    for i in (0..state.len()).rev() {
        let carry = if i > 0 {
            (state[i - 1] & mask[i - 1]) >> 63
        } else {
            0
        };
        state[i] = ((state[i] & mask[i]) << 1) | carry;
    }
}

/// Any run of characters that `mask` allows. From each reachable position the run extends
/// to the end of its stretch of allowed characters: with seeds `x` inside the stretches of
/// `mask`, `mask + x` clears each stretch from its lowest seed up (the carry runs to the
/// stretch's end), so `(mask & !(mask + x)) | x` is every character that can be stepped over.
fn repeat(state: &mut [u64], mask: &[u64]) {
    let mut carry = false;
    let mut small = [0u64; 8];
    let mut large;
    let over = if state.len() <= small.len() {
        &mut small[..state.len()]
    } else {
        large = vec![0u64; state.len()];
        &mut large[..]
    };
    for i in 0..state.len() {
        let seeds = state[i] & mask[i];
        let (sum, c1) = mask[i].overflowing_add(seeds);
        let (sum, c2) = sum.overflowing_add(u64::from(carry));
        carry = c1 || c2;
        over[i] = (mask[i] & !sum) | seeds;
    }
    for i in (0..state.len()).rev() {
        let below = if i > 0 { over[i - 1] >> 63 } else { 0 };
        state[i] |= (over[i] << 1) | below;
    }
}

/// Letter case is folded with Unicode's one-character lowercase mapping (`K` and the
/// Kelvin sign both become `k`); a character whose lowercase is longer stays as it is.
fn fold_if(c: char, ignore_case: bool) -> char {
    if !ignore_case {
        return c;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The anchored regex source for a glob: the reference semantics of `Glob`.
pub fn to_regex_source(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() + 8);
    out.push_str("^(?:");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push_str(".*");
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            c => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out.push_str(")$");
    out
}

/// Why a user regex cannot be anchored.
#[derive(Debug)]
pub enum AnchorError {
    /// The regex does not compile on its own.
    Invalid(regex::Error),
    /// It compiles alone, but not inside the anchoring group: a trailing `#` comment in
    /// verbose mode (`(?x)`) swallows the group's end.
    Unanchorable(regex::Error),
}

/// A full-match regex source from a user regex, anchoring it without changing its meaning.
///
/// The regex is checked on its own first: `a)|(b` would otherwise close the anchoring
/// group early and leave `(b` unanchored. A regex that parses alone has balanced groups,
/// so inside `^(?:…)$` all of it stays between the anchors, a top-level `|` included.
pub fn anchored(user_regex: &str) -> Result<String, AnchorError> {
    syntax_check(user_regex).map_err(AnchorError::Invalid)?;
    let source = format!("^(?:{user_regex})$");
    syntax_check(&source).map_err(AnchorError::Unanchorable)?;
    Ok(source)
}

/// Parses a regex without building it: a size limit of zero stops the build right after
/// the parser has accepted the pattern (microseconds, whatever the pattern's size).
fn syntax_check(source: &str) -> Result<(), regex::Error> {
    match RegexBuilder::new(source).size_limit(0).build() {
        Ok(_) | Err(regex::Error::CompiledTooBig(_)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// How a glob reads in advice: `release/*` → `release/<name>`.
pub fn template(glob: &str) -> String {
    glob.replace("**", "<path>").replace('*', "<name>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::Regex;

    fn compile(source: &str, case_sensitive: bool) -> Result<Regex, regex::Error> {
        RegexBuilder::new(source)
            .case_insensitive(!case_sensitive)
            .build()
    }

    fn m(glob: &str, name: &str) -> bool {
        let by_tokens = Glob::new(glob, true).is_match(name);
        let by_regex = compile(&to_regex_source(glob), true)
            .unwrap()
            .is_match(name);
        assert_eq!(by_tokens, by_regex, "{glob:?} on {name:?}");
        by_tokens
    }

    #[test]
    fn single_star_stays_in_one_segment() {
        assert!(m("release/*", "release/v1"));
        assert!(!m("release/*", "release/v1/hotfix"));
        assert!(!m("release/*", "xrelease/v1"));
        assert!(m("feature/*/PBI-*", "feature/devops/PBI-12-login"));
        assert!(!m("feature/*/PBI-*", "feature/a/b/PBI-12-login"));
        assert!(m("*", ""));
        assert!(!m("*", "a/b"));
    }

    #[test]
    fn double_star_crosses_segments() {
        assert!(m("dependabot/**", "dependabot/npm_and_yarn/lodash-4.17.21"));
        assert!(m("**", "any/thing"));
        assert!(!m("dependabot/**", "renovate/x"));
        assert!(m("a/**/b", "a/x/y/b"));
        assert!(!m("**", "line\nbreak"));
    }

    #[test]
    fn everything_else_is_literal() {
        assert!(m("v1.0", "v1.0"));
        assert!(!m("v1.0", "v1x0"));
        assert!(m("a+b(c)", "a+b(c)"));
        assert!(m("re?", "rel"));
        assert!(!m("re?", "re/"));
        assert!(!m("main", "mainx"));
        assert!(!m("main", "xmain"));
    }

    #[test]
    fn long_names_span_several_words() {
        let name = format!("{}/{}", "a".repeat(300), "b".repeat(300));
        assert!(m("*/*", &name));
        assert!(m("a*/b*b", &name));
        assert!(!m("*", &name));
        assert!(m("**b", &name));
        assert!(m(&format!("{}?", "a".repeat(299)), &"a".repeat(300)));
        assert!(m(&"*a".repeat(200), &"a".repeat(700)));
        assert!(!m(&format!("{}b", "*a".repeat(200)), &"a".repeat(700)));
    }

    #[test]
    fn case_sensitivity_is_a_switch() {
        assert!(Glob::new("Feature/*", false).is_match("feature/X"));
        assert!(Glob::new("feature/*", false).is_match("FEATURE/x"));
        assert!(!Glob::new("Feature/*", true).is_match("feature/x"));
        assert!(Glob::new("MAIN", false).is_match("main"));
        // One-character lowercase mappings only: the Kelvin sign is a `k`.
        assert!(Glob::new("k", false).is_match("\u{212A}"));
    }

    #[test]
    fn user_regexes_must_match_the_whole_name() {
        let re = compile(&anchored("release/v\\d+|main").unwrap(), true).unwrap();
        assert!(re.is_match("release/v2"));
        assert!(re.is_match("main"));
        assert!(!re.is_match("release/v2-x"));
        assert!(!re.is_match("xmain"));
        let re = compile(&anchored("main|develop").unwrap(), true).unwrap();
        for name in ["xmain", "mainx", "developx", "xdevelop", "main|develop"] {
            assert!(!re.is_match(name), "{name}");
        }
        assert!(re.is_match("develop"));
    }

    #[test]
    fn a_regex_cannot_close_the_anchoring_group() {
        // Wrapped as text, `a)|(b` would read `^(?:a)|(b)$`: any name starting with `a`.
        assert!(matches!(anchored("a)|(b"), Err(AnchorError::Invalid(_))));
        assert!(matches!(anchored(")"), Err(AnchorError::Invalid(_))));
        assert!(matches!(anchored("a\\"), Err(AnchorError::Invalid(_))));
        assert!(matches!(
            anchored("(?x)main # a comment"),
            Err(AnchorError::Unanchorable(_))
        ));
        let re = compile(&anchored("(?x) main | dev # ok\n").unwrap(), true).unwrap();
        assert!(re.is_match("dev") && !re.is_match("devx"));
    }

    #[test]
    fn templates_for_advice() {
        assert_eq!(template("feature/*/PBI-*"), "feature/<name>/PBI-<name>");
        assert_eq!(template("bots/**"), "bots/<path>");
    }

    fn glob_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("*"),
                Just("**"),
                Just("?"),
                Just("a"),
                Just("b"),
                Just("/"),
                Just("."),
                Just("A"),
                Just("é"),
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    fn name_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just('a'),
                Just('b'),
                Just('/'),
                Just('.'),
                Just('A'),
                Just('é'),
                Just('\n')
            ],
            0..80,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// The regex of a stars-only glob: `?` is escaped like any other literal.
    fn stars_only_regex(glob: &str) -> String {
        to_regex_source(&glob.replace('?', "\u{1}")).replace("\u{1}", "\\?")
    }

    #[test]
    fn stars_only_globs_read_question_marks_and_brackets_as_text() {
        let g = Glob::stars_only("*-agent[bot]", true);
        assert!(g.is_match("copilot-swe-agent[bot]"));
        assert!(
            !g.is_match("copilot-swe-agentb"),
            "[bot] is no character class"
        );
        assert!(!g.is_match("x-agent[bot]/y"));
        let q = Glob::stars_only("why?", true);
        assert!(q.is_match("why?") && !q.is_match("whyx"));
        assert!(Glob::stars_only("a?", true).is_literal());
        assert!(Glob::new("a?", true).is_match("ab"));
    }

    #[test]
    fn a_subject_over_an_alphabet_matches_as_a_full_one() {
        let glob = Glob::stars_only("Claude *", true);
        let alphabet: Vec<char> = {
            let mut a: Vec<char> = glob.literal_chars().collect();
            a.sort_unstable();
            a.dedup();
            a
        };
        for name in [
            "Claude <noreply@anthropic.com>",
            "Claude",
            "Claude x/y",
            "Claud",
            "クロード Claude x",
        ] {
            assert_eq!(
                glob.matches(&Subject::over(name, false, &alphabet)),
                glob.is_match(name),
                "{name}"
            );
        }
    }

    #[test]
    fn a_long_name_over_a_small_alphabet_costs_its_length_not_its_square() {
        // A trailer value of a million distinct characters: a mask per character would be
        // a million masks of 15,625 words; over the glob's alphabet it is a few.
        let glob = Glob::stars_only("Claude *", true);
        let mut alphabet: Vec<char> = glob.literal_chars().collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        let value: String = std::iter::once("Claude ".to_string())
            .chain(
                (0..1_000_000u32)
                    .filter_map(|i| char::from_u32(0x4E00 + i % 20_000))
                    .map(String::from),
            )
            .collect();
        let subject = Subject::over(&value, false, &alphabet);
        assert!(subject.masks.len() <= (2 + alphabet.len()) * subject.words);
        assert!(glob.matches(&subject));
        assert!(!Glob::stars_only("Claude *C", true).matches(&subject));
    }

    proptest! {
        #[test]
        fn stars_only_globs_match_what_their_regex_matches(glob in glob_text(), name in name_text()) {
            for case_sensitive in [true, false] {
                let by_regex = compile(&stars_only_regex(&glob), case_sensitive).unwrap().is_match(&name);
                let compiled = Glob::stars_only(&glob, case_sensitive);
                prop_assert_eq!(compiled.is_match(&name), by_regex, "{:?} on {:?}", glob, name);
                let mut alphabet: Vec<char> = compiled.literal_chars().collect();
                alphabet.sort_unstable();
                alphabet.dedup();
                let over = compiled.matches(&Subject::over(&name, !case_sensitive, &alphabet));
                prop_assert_eq!(over, by_regex, "over the alphabet: {:?} on {:?}", glob, name);
            }
        }

        #[test]
        fn tokens_match_exactly_what_the_regex_matches(glob in glob_text(), name in name_text()) {
            for case_sensitive in [true, false] {
                let by_regex = compile(&to_regex_source(&glob), case_sensitive).unwrap().is_match(&name);
                let by_tokens = Glob::new(&glob, case_sensitive).is_match(&name);
                prop_assert_eq!(by_tokens, by_regex, "{:?} on {:?}, case sensitive: {}", glob, name, case_sensitive);
            }
        }
    }
}
