//! Which tasks and projects an issue is, for `canStartImmediately` and `loadedProjects`.
//!
//! The seed matched a task id against its own task table; an issue has no such id, so:
//! - an issue's task ids are `#N` and `N` (its number), the `<id>` of every label
//!   `task:<id>`, and the ticket id its title starts with (`T011: …`, `[PBI-12] …`: a
//!   first word of letters, digits, `.`, `_`, `-` that holds a digit);
//! - its project ids are the `<id>` of every label `project:<id>`, the repository's name
//!   and its `owner/name`.
//!
//! Ids compare without ASCII letter case and surrounding spaces.

/// What assignment knows about the issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueFacts {
    pub number: u64,
    pub title: String,
    pub labels: Vec<String>,
    /// `owner/name`.
    pub repository: String,
}

pub fn task_ids(issue: &IssueFacts) -> Vec<String> {
    let mut ids = vec![format!("#{}", issue.number), issue.number.to_string()];
    ids.extend(prefixed(&issue.labels, "task:"));
    ids.extend(title_ticket(&issue.title));
    ids
}

pub fn project_ids(issue: &IssueFacts) -> Vec<String> {
    let mut ids = prefixed(&issue.labels, "project:");
    ids.push(issue.repository.clone());
    if let Some((_, name)) = issue.repository.split_once('/') {
        ids.push(name.to_owned());
    }
    ids
}

/// The first of `candidates` that is one of `ids`.
pub fn first_match<'a>(candidates: &'a [String], ids: &[String]) -> Option<&'a str> {
    candidates
        .iter()
        .find(|c| {
            ids.iter()
                .any(|id| id.trim().eq_ignore_ascii_case(c.trim()))
        })
        .map(String::as_str)
}

fn prefixed(labels: &[String], prefix: &str) -> Vec<String> {
    labels
        .iter()
        .filter_map(|l| {
            let (head, id) = l.split_at_checked(prefix.len())?;
            head.eq_ignore_ascii_case(prefix)
                .then(|| id.trim().to_owned())
        })
        .filter(|id| !id.is_empty())
        .collect()
}

fn title_ticket(title: &str) -> Option<String> {
    let title = title.trim_start();
    let word = match title.strip_prefix('[') {
        Some(rest) => rest.split(']').next()?,
        None => title.split([':', ' ', '\t']).next()?,
    };
    let ticket = !word.is_empty()
        && word.len() <= 40
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && word.chars().any(|c| c.is_ascii_digit());
    ticket.then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(title: &str, labels: &[&str]) -> IssueFacts {
        IssueFacts {
            number: 42,
            title: title.to_owned(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
            repository: "octo/brain".to_owned(),
        }
    }

    #[test]
    fn task_ids_come_from_the_number_labels_and_title() {
        assert_eq!(
            task_ids(&issue("T011: React Query + SSR", &["task:T014", "bug"])),
            ["#42", "42", "T014", "T011"]
        );
        assert_eq!(
            task_ids(&issue("[PBI-12] add auth", &[])),
            ["#42", "42", "PBI-12"]
        );
        assert_eq!(
            task_ids(&issue("Fix the login", &["Task: X1 "])),
            ["#42", "42", "X1"]
        );
        assert_eq!(task_ids(&issue("v2 release", &[])), ["#42", "42", "v2"]);
        assert_eq!(task_ids(&issue("   ", &["task:"])), ["#42", "42"]);
    }

    #[test]
    fn project_ids_come_from_labels_and_the_repository() {
        assert_eq!(
            project_ids(&issue("x", &["project:LocalBrain"])),
            ["LocalBrain", "octo/brain", "brain"]
        );
    }

    proptest::proptest! {
        #[test]
        fn any_title_and_labels_give_ids_without_panicking(
            title in proptest::prelude::any::<String>(),
            labels in proptest::collection::vec(proptest::prelude::any::<String>(), 0..4),
        ) {
            let facts = IssueFacts { number: 1, title, labels, repository: "o/r".into() };
            let ids = task_ids(&facts);
            proptest::prop_assert!(ids.len() >= 2);
            let _ = project_ids(&facts);
        }
    }

    #[test]
    fn matching_ignores_case_and_spaces() {
        let ids = task_ids(&issue("T011: x", &[]));
        let claims = vec!["t011 ".to_owned(), "T014".to_owned()];
        assert_eq!(first_match(&claims, &ids), Some("t011 "));
        assert_eq!(first_match(&["T0111".to_owned()], &ids), None);
    }
}
