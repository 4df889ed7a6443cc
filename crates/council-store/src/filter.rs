//! Which contexts and entries a question, the report or `verify` looks at: a module of
//! its own, so that the questions (`query`) and the report (`report`), which reads the
//! questions' rows, both take it without depending on each other both ways.

/// Which contexts and entries a question looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this repository (`owner/name`).
    pub repository: Option<String>,
    /// Only entries from this time on (Unix seconds), and pull requests with one.
    pub since_unix: Option<i64>,
}
