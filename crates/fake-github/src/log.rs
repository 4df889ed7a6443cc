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

/// How many requests a world answered: in all, and by route (`GET
/// /repos/{owner}/{repo}/issues/{n}/comments`, `POST /graphql (PullRequestRollup)`),
/// so a benchmark can say "one list page per 100 pull requests plus one read per
/// changed one". Faults and errors count too: each is a request `council` made.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RequestCounts {
    pub total: u64,
    pub by_route: std::collections::BTreeMap<String, u64>,
}

impl RequestCounts {
    pub fn add(&mut self, route: String) {
        self.total += 1;
        *self.by_route.entry(route).or_default() += 1;
    }
}

/// A request's route: its method and path with the repository, numbers, SHAs, refs,
/// label names and file paths replaced by placeholders, the query left out; GraphQL
/// requests name their operation.
pub fn route(method: &str, segments: &[String], operation: Option<&str>) -> String {
    let mut parts: Vec<&str> = Vec::with_capacity(segments.len());
    let repos = segments.first().is_some_and(|s| s == "repos");
    let mut previous = "";
    for (i, segment) in segments.iter().enumerate() {
        let shown = match (i, previous) {
            (1, _) if repos => "{owner}",
            (2, _) if repos => "{repo}",
            (_, "contents") => {
                parts.push("{path}");
                break;
            }
            // A ref may hold slashes: what follows it is the last segment, if any.
            (_, "commits") => {
                parts.push("{ref}");
                let last = segments.last().map(String::as_str);
                if let Some(tail @ ("check-runs" | "status" | "pulls")) = last
                    && segments.len() > i + 1
                {
                    parts.push(tail);
                }
                break;
            }
            // A branch name may hold slashes: the rest of the path is the ref.
            (_, "ref" | "refs" | "matching-refs") if parts.get(3) == Some(&"git") => {
                parts.push("{ref}");
                break;
            }
            (_, "labels") => "{name}",
            (_, "comments" | "runs" | "artifacts" | "jobs")
                if segment.bytes().all(|b| b.is_ascii_digit()) =>
            {
                "{id}"
            }
            _ if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) => "{n}",
            _ => segment.as_str(),
        };
        parts.push(shown);
        previous = segment.as_str();
    }
    let mut route = format!("{method} /{}", parts.join("/"));
    if let Some(op) = operation {
        route.push_str(&format!(" ({op})"));
    }
    route
}

#[cfg(test)]
mod tests {
    use super::route;

    fn of(method: &str, path: &str, op: Option<&str>) -> String {
        let segments: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        route(method, &segments, op)
    }

    #[test]
    fn routes_name_their_shape_not_their_values() {
        assert_eq!(
            of("GET", "/repos/o/r/issues/12/comments", None),
            "GET /repos/{owner}/{repo}/issues/{n}/comments"
        );
        assert_eq!(
            of("PATCH", "/repos/o/r/issues/comments/5001", None),
            "PATCH /repos/{owner}/{repo}/issues/comments/{id}"
        );
        assert_eq!(
            of("GET", "/repos/o/r/contents/.github/council.yml", None),
            "GET /repos/{owner}/{repo}/contents/{path}"
        );
        assert_eq!(
            of("GET", "/repos/o/r/commits/main/check-runs", None),
            "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
        );
        assert_eq!(
            of("DELETE", "/repos/o/r/issues/7/labels/bot-approved", None),
            "DELETE /repos/{owner}/{repo}/issues/{n}/labels/{name}"
        );
        assert_eq!(
            of("POST", "/graphql", Some("PullRequestRollup")),
            "POST /graphql (PullRequestRollup)"
        );
        assert_eq!(
            of("GET", "/repos/o/r/pulls", None),
            "GET /repos/{owner}/{repo}/pulls"
        );
        assert_eq!(
            of(
                "PATCH",
                "/repos/o/r/git/refs/heads/council/queue/main",
                None
            ),
            "PATCH /repos/{owner}/{repo}/git/refs/{ref}"
        );
        assert_eq!(
            of(
                "GET",
                "/repos/o/r/git/matching-refs/heads/council/queue/",
                None
            ),
            "GET /repos/{owner}/{repo}/git/matching-refs/{ref}"
        );
        assert_eq!(
            of(
                "GET",
                "/repos/o/r/commits/council/queue/main/check-runs",
                None
            ),
            "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
        );
        assert_eq!(
            of("GET", "/repos/o/r/commits/feature/x", None),
            "GET /repos/{owner}/{repo}/commits/{ref}"
        );
        assert_eq!(
            of("POST", "/repos/o/r/git/refs", None),
            "POST /repos/{owner}/{repo}/git/refs"
        );
    }
}
