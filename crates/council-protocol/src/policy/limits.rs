//! A policy is untrusted input (SPEC "Policy file"): these limits keep any file, however
//! hostile, to milliseconds and a few megabytes, and every refusal names the limit.

use std::fmt;
use std::marker::PhantomData;

use regex::{RegexSet, RegexSetBuilder};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, SeqAccess, Visitor};
use serde_saphyr::budget::BudgetBreach;

/// Policy text, before and after alias expansion.
pub const MAX_POLICY_BYTES: usize = 1 << 20;
pub const MAX_RULES: usize = 1_000;
/// Entries in any other list: globs, checks, logins.
pub const MAX_LIST: usize = 1_000;
/// Characters in one glob of the `actors` section. Longer than any login (39 characters
/// and `[bot]`), trailer or path an agent writes; it bounds what one glob costs against
/// untrusted text (a commit's trailers), where a glob is matched in (length × text / 64)
/// word operations.
pub const MAX_GLOB_CHARS: usize = 256;
/// Characters in a label name: GitHub refuses longer ones.
pub const MAX_LABEL_CHARS: usize = 50;
/// YAML values (scalars, lists, maps) after alias expansion. Scalar bytes alone do not bound
/// the work: an empty string costs none, and a 1 MiB flood of one-letter values is half a
/// million nodes, a second to parse. 65,536 parse in tens of milliseconds, so a hostile
/// file fails fast and any accepted one parses quickly, yet it is some sixty times the
/// largest honest policy (1,000 rules of a few targets each).
pub const MAX_NODES: usize = 1 << 16;
/// The policy nests six deep at most (`review.docs.map[0].code[0]`).
pub const MAX_DEPTH: usize = 8;
/// Compiled size of all the `regex` rules of a policy together; one regex may use all of
/// it. A shared budget, not one per regex, because the guard searches every rule: 1,000
/// rules of 1 MiB each would take seconds per decision. A search costs up to name length ×
/// compiled size, and a failing head takes three (the rules, then twice ignoring case for
/// hints): 2 MiB keeps that near 50 ms, and still holds about 40 Unicode classes (`\w`).
pub const REGEX_BUDGET: usize = 2 << 20;
/// Lazy-DFA cache of the rules' regexes: the regex crate's default, stated so it cannot
/// drift.
pub const DFA_SIZE_LIMIT: usize = 2 << 20;

/// Where in the file, which field, and what is wrong: a policy error before it knows the
/// file's name.
#[derive(Debug)]
pub(super) struct Problem {
    /// Line and column, when known.
    pub at: Option<(u64, u64)>,
    /// `branches.rules[0].regex`; empty for the file as a whole.
    pub field: String,
    pub message: String,
}

impl Problem {
    pub fn new(at: &serde_saphyr::Location, field: impl Into<String>, message: String) -> Self {
        Problem {
            at: Some((at.line(), at.column())),
            field: field.into(),
            message,
        }
    }
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            // Replayed aliases count like written text, so these bound the expansion.
            max_total_scalar_bytes: MAX_POLICY_BYTES,
            max_nodes: MAX_NODES,
            // A node is one event, or two (start and end) for a list or a map.
            max_events: 2 * MAX_NODES + 8,
            max_depth: MAX_DEPTH,
            max_documents: 1,
            // The limits above measure the expansion itself; a ratio of aliases to
            // anchors would refuse an honest policy that reuses one target list often.
            enforce_alias_anchor_ratio: false,
        },
        // Comments are never read; not emitting them keeps them out of the event count.
        emit_comments: false,
        with_snippet: false,
    }
}

/// Deserializes a policy within the limits; an error carries the path of the field it
/// arose in (`branches.rules[0].targets`), as far as serde can tell it.
pub(super) fn read<T: DeserializeOwned>(text: &str) -> Result<T, Problem> {
    let mut path = None;
    serde_saphyr::with_deserializer_from_str_with_options(text, options(), |yaml| {
        serde_path_to_error::deserialize(yaml).map_err(|e| {
            path = Some(e.path().clone());
            e.into_inner()
        })
    })
    .map_err(|e| {
        let at = e.location().map(|l| (l.line(), l.column()));
        let mut message = message(&e);
        if let Some(found) = at
            .filter(|_| is_type_error(&e))
            .and_then(|at| scalar_at(text, at))
        {
            message.push_str(&format!(", found `{found}`"));
        }
        Problem {
            at,
            field: path.as_ref().map(field_path).unwrap_or_default(),
            message,
        }
    })
}

/// The scalar a type error points at (`ten` in `max_files: ten`), as written: up to the
/// end of its line or a comment, at most 40 characters.
fn scalar_at(text: &str, (line, column): (u64, u64)) -> Option<String> {
    let line = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let rest: String = line
        .chars()
        .skip(usize::try_from(column).ok()?.checked_sub(1)?)
        .collect();
    let value = rest.split(" #").next().unwrap_or_default().trim();
    if value.is_empty() {
        return None;
    }
    Some(match crate::chars::cut(value, 40) {
        Some(head) => format!("{head}…"),
        None => value.to_string(),
    })
}

fn root(e: &serde_saphyr::Error) -> &serde_saphyr::Error {
    let mut root = e;
    while let serde_saphyr::Error::WithSnippet { error, .. }
    | serde_saphyr::Error::AliasError { error, .. } = root
    {
        root = error;
    }
    root
}

/// A scalar of the wrong kind (`ten` where a number goes): worth quoting.
fn is_type_error(e: &serde_saphyr::Error) -> bool {
    matches!(root(e), serde_saphyr::Error::InvalidScalar { .. })
}

/// What a scalar of type `ty` must look like, in the policy's words (`invalid u64` says
/// nothing to someone who wrote `max_files: ten`).
fn expected_scalar(ty: &str) -> String {
    let bounded = |max: u64| format!("expected a whole number from 0 to {max}");
    match ty {
        "u8" => bounded(u8::MAX.into()),
        "u16" => bounded(u16::MAX.into()),
        "u32" => bounded(u32::MAX.into()),
        "u64" | "usize" | "u128" => "expected a whole number (0 or more)".to_string(),
        "i8" | "i16" | "i32" | "i64" | "isize" | "i128" => "expected a whole number".to_string(),
        "f32" | "f64" => "expected a number".to_string(),
        "bool" | "boolean" => "expected true or false".to_string(),
        other => format!("invalid {other}"),
    }
}

/// `Spanned<T>` reads as a map `{value, referenced, defined}`; its `value` segment is not
/// a key of the file (no policy key is named `value`).
fn field_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Map { key } if key == "value" => {}
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Unknown => out.push_str(".?"),
        }
    }
    out
}

fn message(e: &serde_saphyr::Error) -> String {
    let root = root(e);
    match root {
        serde_saphyr::Error::InvalidScalar { ty, .. } => expected_scalar(ty),
        serde_saphyr::Error::Budget { breach, .. } => breach_message(breach),
        serde_saphyr::Error::AliasReplayLimitExceeded {
            max_total_replayed_events,
            ..
        } => format!(
            "aliases expand to more than {max_total_replayed_events} YAML events, the limit \
             for a policy"
        ),
        _ => plain_words(yaml_message(&root.to_string())),
    }
}

fn breach_message(breach: &BudgetBreach) -> String {
    let mib = MAX_POLICY_BYTES >> 20;
    match breach {
        BudgetBreach::ScalarBytes { .. } => {
            format!("more than {mib} MiB of text with aliases expanded, the limit for a policy")
        }
        BudgetBreach::Nodes { .. } | BudgetBreach::Events { .. } => {
            format!("more than {MAX_NODES} values with aliases expanded, the limit for a policy")
        }
        BudgetBreach::Depth { .. } => {
            format!("nested deeper than {MAX_DEPTH} levels, the limit for a policy")
        }
        BudgetBreach::Aliases { .. } | BudgetBreach::Anchors { .. } => {
            format!("too many aliases or anchors for a policy: {breach:?}")
        }
        BudgetBreach::Documents { .. } => "more than one YAML document".to_string(),
        other => format!("over a YAML parsing limit: {other:?}"),
    }
}

/// The parser's words for a missing list or map, in the policy's.
fn plain_words(message: String) -> String {
    match message.as_str() {
        "expected sequence start" => "expected a list (`[a, b]`, or one `- a` line each)".into(),
        "expected mapping start" => "expected keys with values (`key: value` lines)".into(),
        _ => message,
    }
}

/// serde-saphyr repeats the location (` at line 2, column 3`); we keep the bare message.
fn yaml_message(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    let is_position = |s: &str| {
        s.split_once(", column ").is_some_and(|(l, c)| {
            [l, c]
                .iter()
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    if let Some((position, rest)) = line
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
        && is_position(&position.replace(" column ", ", column "))
    {
        return rest.to_string();
    }
    match line.rsplit_once(" at line ") {
        Some((bare, position)) if is_position(position) => bare.to_string(),
        _ => line.to_string(),
    }
}

/// A list refused as soon as the entry past `MAX` is read, so a long list costs no more
/// than the limit.
pub(super) struct Limited<T, const MAX: usize>(pub Vec<T>);

impl<T: fmt::Debug, const MAX: usize> fmt::Debug for Limited<T, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de, T: Deserialize<'de>, const MAX: usize> Deserialize<'de> for Limited<T, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<T, const MAX: usize>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>, const MAX: usize> Visitor<'de> for Entries<T, MAX> {
            type Value = Limited<T, MAX>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    if items.len() == MAX {
                        return Err(de::Error::custom(format!(
                            "more than {MAX} entries, the limit for a list"
                        )));
                    }
                    items.push(item);
                }
                Ok(Limited(items))
            }
        }

        deserializer.deserialize_seq(Entries(PhantomData))
    }
}

/// `deserialize_with` for the plain lists of the policy's sections.
pub(super) fn list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Limited::<T, MAX_LIST>::deserialize(deserializer).map(|l| l.0)
}

/// All rule regexes in one set, compiled once: one search tells which rules match, and
/// the size limit is the budget of all of them together.
pub(super) fn regex_set(
    sources: &[String],
    case_sensitive: bool,
) -> Result<RegexSet, regex::Error> {
    RegexSetBuilder::new(sources)
        .case_insensitive(!case_sensitive)
        .size_limit(REGEX_BUDGET)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
}

/// The first regex with which the set goes over its budget. Each try stops building at the
/// limit, so the search costs about log2(rules) builds of the budget at most.
pub(super) fn first_over_budget(sources: &[String], case_sensitive: bool) -> usize {
    let too_big = |n: usize| {
        matches!(
            regex_set(&sources[..n], case_sensitive),
            Err(regex::Error::CompiledTooBig(_))
        )
    };
    // The first `n` regexes fit for n < answer + 1 and not beyond.
    let (mut fits, mut over) = (0, sources.len());
    while over - fits > 1 {
        let mid = fits + (over - fits) / 2;
        if too_big(mid) {
            over = mid;
        } else {
            fits = mid;
        }
    }
    over - 1
}
