//! The world's record of every request it answered: what was asked, with which token,
//! with what body, and what it answered. Tests assert "exactly these calls", "this call
//! used the release token", and, at the end, that no write went unnoticed.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub method: String,
    /// `/path?query`, as sent.
    pub path: String,
    /// The token from `Authorization`, `None` for an anonymous request.
    pub token: Option<String>,
    /// The JSON body (`Null` when there was none or it was not JSON).
    pub body: Value,
    /// The GraphQL operation (its name, or the root field of an anonymous query).
    pub operation: Option<String>,
    /// Changes the world, or would have: REST methods other than GET, and mutations.
    pub write: bool,
    /// The status the world answered (a fault's, when one was queued).
    pub status: u16,
}

impl Call {
    /// `METHOD /path?query`.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} → {}", self.line(), self.status)?;
        if let Some(op) = &self.operation {
            write!(f, " ({op})")?;
        }
        Ok(())
    }
}
