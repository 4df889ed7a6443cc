//! What is wrong with an ASSISTANT_CONTEXT file, in the terms a reader fixes it by: the
//! file, the 1-based line and column, the field, and what to change. A problem never
//! quotes a value that could be a secret; messages about values quote only values whose
//! type or format is wrong, never a text field's content.

use std::fmt;

use serde::Serialize;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct At {
    pub line: usize,
    pub column: usize,
}

/// Problems of one file, collected in reading order.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    file: String,
    list: Vec<Problem>,
}

impl Problems {
    pub fn new(file: &str) -> Problems {
        Problems {
            file: file.to_owned(),
            list: Vec::new(),
        }
    }

    pub fn push(&mut self, at: At, field: &str, message: impl Into<String>) {
        self.list.push(Problem {
            file: self.file.clone(),
            line: at.line.max(1),
            column: at.column.max(1),
            field: field.to_owned(),
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn into_vec(mut self) -> Vec<Problem> {
        self.list.sort_by_key(|p| (p.line, p.column));
        self.list
    }
}
