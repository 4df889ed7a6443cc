//! Credentials that must never be posted: used by `state put` (memory), the review
//! gate (added lines) and the ASSISTANT_CONTEXT validator.
//!
//! Two kinds of evidence: a credential that says what it is (`ghp_…`, `AKIA…`, a
//! private key block; see `tokens`) and a secret word in a key with a literal value
//! (`DB_PASSWORD=…`; see `assignment`). One Aho-Corasick pass over the text finds the
//! literals both start from, so text without any (the common case) costs one scan.
//!
//! A match carries its kind and position, never the matched text, so that a caller
//! cannot leak the value by printing a finding.

mod assignment;
mod decoded;
mod form;
mod kind;
mod tokens;
mod typed;
mod value;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use serde::Serialize;

pub use kind::SecretKind;

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

/// What a literal found by the prefilter leads to.
#[derive(Clone, Copy, Debug)]
enum Lead {
    /// Run token rule `n` on the literal's line.
    Token(usize),
    /// Look at the key around the literal (a secret word).
    Key,
}

struct Prefilter {
    automaton: AhoCorasick,
    /// Per literal of the automaton, what it leads to.
    leads: Vec<Vec<Lead>>,
}

static PREFILTER: LazyLock<Prefilter> = LazyLock::new(|| {
    let mut leads: BTreeMap<String, Vec<Lead>> = BTreeMap::new();
    for (n, rule) in tokens::RULES.iter().enumerate() {
        for literal in rule.literals {
            leads
                .entry((*literal).to_string())
                .or_default()
                .push(Lead::Token(n));
        }
    }
    for word in assignment::WORDS {
        for spelling in spellings(word) {
            leads.entry(spelling).or_default().push(Lead::Key);
        }
    }
    // Overlapping matches: `SECRET_KEY` must yield both words, `xoxe.xoxp-` both rules.
    let automaton = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(leads.keys())
        .expect("the prefilter literals are constant and valid");
    Prefilter {
        automaton,
        leads: leads.into_values().collect(),
    }
});

/// `password`, `PASSWORD`, `Password`: how a secret word appears in snake_case,
/// SCREAMING_CASE and camelCase keys.
fn spellings(word: &str) -> [String; 3] {
    let mut capitalised = word.to_string();
    if let Some(first) = capitalised.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    [word.to_string(), word.to_ascii_uppercase(), capitalised]
}

/// Every credential in `text`, in order of position.
pub fn find_secrets(text: &str) -> Vec<SecretMatch> {
    let prefilter = &*PREFILTER;
    let mut scan = Scan::new(text);
    for hit in prefilter.automaton.find_overlapping_iter(text) {
        let Some(leads) = prefilter.leads.get(hit.pattern().as_usize()) else {
            continue;
        };
        for lead in leads {
            match *lead {
                Lead::Token(rule) => scan.token(rule, hit.start()),
                Lead::Key => scan.key(hit.range()),
            }
        }
    }
    scan.finish()
}

pub fn contains_secret(text: &str) -> bool {
    !find_secrets(text).is_empty()
}

/// `text` with `known` (a token this run holds) and every credential replaced by
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

/// The findings of one pass, and what was already looked at so that a literal repeated
/// on a long line does not rescan it.
struct Scan<'t> {
    text: &'t str,
    /// (rule, range) of token matches.
    tokens: Vec<(usize, Range<usize>)>,
    assignments: Vec<(SecretKind, Range<usize>)>,
    /// The line of the latest literal; literals arrive in order of their end.
    line: Range<usize>,
    /// Per token rule, the start of the line it last ran on.
    ran_on: Vec<Option<usize>>,
    /// The latest key looked at: a key with two secret words is looked at once.
    last_key: Option<Range<usize>>,
    /// The end of the latest assignment looked at with an unquoted value: words inside
    /// it are part of that value, not keys.
    assigned_until: usize,
}

impl<'t> Scan<'t> {
    fn new(text: &'t str) -> Self {
        Scan {
            text,
            tokens: Vec::new(),
            assignments: Vec::new(),
            line: 0..0,
            ran_on: vec![None; tokens::RULES.len()],
            last_key: None,
            assigned_until: 0,
        }
    }

    fn token(&mut self, rule: usize, at: usize) {
        let line = self.line_of(at);
        let Some(ran_on) = self.ran_on.get_mut(rule) else {
            return;
        };
        if *ran_on == Some(line.start) {
            return;
        }
        *ran_on = Some(line.start);
        tokens::find_in_line(rule, self.text, line, &mut self.tokens);
    }

    fn key(&mut self, word: Range<usize>) {
        let in_last_key = self
            .last_key
            .as_ref()
            .is_some_and(|k| k.start <= word.start && word.end <= k.end);
        if in_last_key || word.start < self.assigned_until {
            return;
        }
        let Some(key) = assignment::key_around(self.text, word) else {
            return;
        };
        self.last_key = Some(key.clone());
        if let Some(assignment) = assignment::assignment_at(self.text, key) {
            if assignment.bare {
                self.assigned_until = assignment.range.end;
            }
            if let Some(kind) = assignment.kind {
                self.assignments.push((kind, assignment.range));
            }
        }
    }

    /// The line holding byte `at`, found from the previous line so that many literals
    /// on one long line stay linear.
    fn line_of(&mut self, at: usize) -> Range<usize> {
        if self.line.start <= at && at < self.line.end {
            return self.line.clone();
        }
        let bytes = self.text.as_bytes();
        let floor = if at >= self.line.end {
            self.line.end
        } else {
            0
        };
        let start = bytes
            .get(floor..at)
            .and_then(|b| b.iter().rposition(|&c| c == b'\n'))
            .map_or(floor, |i| floor + i + 1);
        let end = bytes
            .get(at..)
            .and_then(|b| b.iter().position(|&c| c == b'\n'))
            .map_or(self.text.len(), |i| at + i);
        self.line = start..end;
        self.line.clone()
    }

    /// Token matches first (an assignment that holds one is reported as the token),
    /// overlaps dropped, positions attached.
    fn finish(mut self) -> Vec<SecretMatch> {
        self.tokens.sort_by_key(|(rule, r)| (r.start, *rule));
        let mut kept: Vec<(SecretKind, Range<usize>)> = Vec::new();
        for (rule, range) in self.tokens {
            if kept.last().is_some_and(|(_, r)| range.start < r.end) {
                continue;
            }
            if let Some(rule) = tokens::RULES.get(rule) {
                kept.push((rule.kind, range));
            }
        }
        let specific = kept.len();
        // Token matches do not overlap each other now; the longest end so far lets an
        // assignment check overlap with one binary search.
        let reach: Vec<usize> = kept
            .iter()
            .scan(0, |max_end, (_, r)| {
                *max_end = r.end.max(*max_end);
                Some(*max_end)
            })
            .collect();
        self.assignments.sort_by_key(|(_, r)| (r.start, r.end));
        let mut last_end = 0;
        for (kind, range) in self.assignments {
            let starting_before = kept
                .get(..specific)
                .map_or(0, |k| k.partition_point(|(_, r)| r.start < range.end));
            let overlaps = starting_before
                .checked_sub(1)
                .and_then(|i| reach.get(i))
                .is_some_and(|&end| end > range.start);
            if !overlaps && range.start >= last_end {
                last_end = range.end;
                kept.push((kind, range));
            }
        }
        kept.sort_by_key(|(_, range)| (range.start, range.end));
        let mut cursor = Cursor::default();
        kept.into_iter()
            .map(|(kind, range)| {
                let (line, column) = cursor.advance(self.text, range.start);
                SecretMatch {
                    kind,
                    range,
                    line,
                    column,
                }
            })
            .collect()
    }
}

/// The largest char boundary at or before `at`: where to cut a window into `text`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
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
mod tests;
