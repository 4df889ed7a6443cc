//! What is wrong with an ASSISTANT_CONTEXT file, in the terms a reader fixes it by: the
//! file, the 1-based line and column, the field, and what to change. A problem never
//! quotes a value that could be a secret; messages about values quote only values whose
//! type or format is wrong, never a text field's content, and whatever they quote (keys
//! included) is redacted ([`crate::redact::shown`]) on the way out.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt;

use serde::Serialize;

use crate::redact::shown;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    /// 1-based line in the file (front matter lines count from the file's first line).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The top-level key (`files_changed`, an unknown key), or `front matter`, `body`,
    /// `document` for problems that belong to no key.
    pub field: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: `{}`: {}",
            self.file, self.line, self.column, self.field, self.message
        )
    }
}

/// A position in the file, before the file name is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct At {
    pub line: usize,
    pub column: usize,
}

/// Problems listed per file. A file of 200,000 bad lines is still one page of problems
/// (and of annotations, summary lines and gate text); the rest are counted.
pub const MAX_PROBLEMS: usize = 100;

/// Problems of one file: the first [`MAX_PROBLEMS`] in reading order, and a count of
/// the others.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    file: String,
    /// A max-heap on position, so the problem furthest down is the one given up when a
    /// problem further up arrives late (secrets are found after the fields).
    kept: BinaryHeap<Kept>,
    /// Problems past the first [`MAX_PROBLEMS`]: how many, and the first one's place.
    dropped: usize,
    first_dropped: Option<(At, String)>,
    pushed: usize,
}

#[derive(Debug)]
struct Kept {
    /// Position, then arrival: equal positions keep their order.
    key: (At, usize),
    field: String,
    message: String,
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Kept {}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

impl Problems {
    pub fn new(file: &str) -> Problems {
        Problems {
            file: file.to_owned(),
            ..Problems::default()
        }
    }

    pub fn push(&mut self, at: At, field: &str, message: impl Into<String>) {
        self.push_with(at, field, || message.into());
    }

    /// Like [`Problems::push`], building the message only when it is kept: a file can
    /// hold hundreds of thousands of problems, and only a page of them is shown.
    pub fn push_with(&mut self, at: At, field: &str, message: impl FnOnce() -> String) {
        let at = At {
            line: at.line.max(1),
            column: at.column.max(1),
        };
        let key = (at, self.pushed);
        self.pushed += 1;
        if self.kept.len() == MAX_PROBLEMS {
            let furthest = self.kept.peek().map(|k| k.key);
            if furthest.is_none_or(|furthest| key > furthest) {
                self.drop_one(at, field);
                return;
            }
            if let Some(evicted) = self.kept.pop() {
                self.drop_one(evicted.key.0, &evicted.field);
            }
        }
        self.kept.push(Kept {
            key,
            field: field.to_owned(),
            message: message(),
        });
    }

    fn drop_one(&mut self, at: At, field: &str) {
        self.dropped += 1;
        if self
            .first_dropped
            .as_ref()
            .is_none_or(|(first, _)| at < *first)
        {
            self.first_dropped = Some((at, field.to_owned()));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// In reading order, the count of the unlisted ones last. Fields and messages are
    /// redacted here, once per listed problem: keys and values are quoted into them, and
    /// a key can be a token.
    pub fn into_vec(self) -> Vec<Problem> {
        let file = self.file;
        let mut list: Vec<Problem> = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|k| Problem {
                file: file.clone(),
                line: k.key.0.line,
                column: k.key.0.column,
                field: shown(&k.field).into_owned(),
                message: shown(&k.message).into_owned(),
            })
            .collect();
        if let Some((at, field)) = self.first_dropped {
            list.push(Problem {
                file,
                line: at.line,
                column: at.column,
                field: shown(&field).into_owned(),
                message: format!(
                    "and {} more problem{} from here on, not listed (a file lists at most \
                     {MAX_PROBLEMS}); fix these and validate again",
                    self.dropped,
                    if self.dropped == 1 { "" } else { "s" }
                ),
            });
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_problems_in_the_file_are_listed_whatever_order_they_come_in() {
        let mut problems = Problems::new("f");
        // Fields first, secrets later: the later ones may sit further up the file.
        for line in (1..=MAX_PROBLEMS + 50).rev() {
            problems.push(At { line, column: 1 }, &format!("k{line}"), "bad");
        }
        problems.push(At { line: 1, column: 1 }, "k1", "second on line 1");
        let list = problems.into_vec();
        assert_eq!(list.len(), MAX_PROBLEMS + 1);
        assert_eq!(list[1].message, "second on line 1");
        assert_eq!(list[MAX_PROBLEMS - 1].line, MAX_PROBLEMS - 1);
        let rest = &list[MAX_PROBLEMS];
        assert_eq!((rest.line, rest.field.as_str()), (MAX_PROBLEMS, "k100"));
        assert!(
            rest.message
                .starts_with("and 51 more problems from here on"),
            "{rest}"
        );
    }

    #[test]
    fn a_page_of_problems_is_listed_whole() {
        let mut problems = Problems::new("f");
        for line in 1..=MAX_PROBLEMS {
            problems.push(At { line, column: 0 }, "k", "bad");
        }
        let list = problems.into_vec();
        assert_eq!(list.len(), MAX_PROBLEMS);
        assert_eq!((list[0].line, list[0].column), (1, 1));
    }
}
