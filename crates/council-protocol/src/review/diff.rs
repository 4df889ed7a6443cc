//! The diff as GitHub lists it: files with status, counts and (for text files under
//! GitHub's size limit) a unified patch; the lines a patch adds, with their line numbers
//! in the new file.

use crate::event::PullRequest;

/// GitHub's compare endpoint lists at most this many files of a diff read by commit
/// (all on its first page): a larger diff cannot be seen whole, so the gates that need
/// every file fail closed.
pub const LISTED_FILES_CAP: u64 = 300;

/// What a gate says when the diff was cut at [`LISTED_FILES_CAP`].
pub fn cap_note() -> String {
    format!("GitHub lists at most {LISTED_FILES_CAP} files of a diff read by commit")
}

/// One file of the pull request's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    /// `added`, `modified`, `removed`, `renamed`, `copied`, `changed` or `unchanged`.
    pub status: String,
    /// The old path of a renamed or copied file.
    pub previous_path: Option<String>,
    pub additions: u64,
    pub deletions: u64,
    /// `None` for binary files and diffs GitHub finds too large to show.
    pub patch: Option<String>,
}

impl FileChange {
    /// The paths this change touches: a rename changes its old path too.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.previous_path.as_deref())
    }

    pub fn is_removed(&self) -> bool {
        self.status == "removed"
    }
}

/// The whole diff a review decides on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffFacts {
    pub files: Vec<FileChange>,
    /// The read stopped at [`LISTED_FILES_CAP`]: some files were not seen.
    pub capped: bool,
    /// Files changed in all (GitHub's count when known, else those listed).
    pub total_files: u64,
    /// Lines added and deleted in all (GitHub's counts when known).
    pub additions: u64,
    pub deletions: u64,
}

impl DiffFacts {
    pub fn new(files: Vec<FileChange>, capped: bool, pr: &PullRequest) -> DiffFacts {
        let listed = files.len() as u64;
        let sum = |f: fn(&FileChange) -> u64| files.iter().map(f).sum::<u64>();
        DiffFacts {
            total_files: pr.changed_files.unwrap_or(listed).max(listed),
            additions: pr.additions.unwrap_or_else(|| sum(|f| f.additions)),
            deletions: pr.deletions.unwrap_or_else(|| sum(|f| f.deletions)),
            files,
            capped,
        }
    }

    /// Every path the diff touches (renames under both paths; removals too).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().flat_map(FileChange::paths)
    }
}

/// A line a patch adds: its number in the new file, and its text (without the `+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddedLine<'a> {
    pub line: u64,
    pub text: &'a str,
}

/// The added lines of a unified diff patch as GitHub sends it (hunks only, no file
/// headers). Malformed hunk headers restart numbering at 1 rather than fail: a wrong line
/// number in a finding is better than a finding missed.
pub fn added_lines(patch: &str) -> impl Iterator<Item = AddedLine<'_>> {
    let mut next = 1u64;
    patch.split('\n').filter_map(move |raw| {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.starts_with("@@") {
            next = hunk_start(line).unwrap_or(1);
            None
        } else if let Some(text) = line.strip_prefix('+') {
            let added = AddedLine { line: next, text };
            next = next.saturating_add(1);
            Some(added)
        } else if line.starts_with('-') || line.starts_with('\\') {
            None
        } else {
            next = next.saturating_add(1);
            None
        }
    })
}

/// `c` of `@@ -a,b +c,d @@ …`. Lines count from 1: `+0` only heads a hunk that adds
/// nothing (`+0,0`), so a `+0` hunk that does add lines is malformed.
fn hunk_start(header: &str) -> Option<u64> {
    let plus = header.split(' ').find_map(|part| part.strip_prefix('+'))?;
    let digits = plus.split(',').next()?;
    digits.parse().ok().filter(|start| *start >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_lines_carry_their_new_line_numbers() {
        let patch = "@@ -1,3 +1,4 @@\n context\n-old\n+new one\n+new two\n more\n@@ -20,2 +21,3 @@ fn x()\n keep\n+late\n\\ No newline at end of file";
        let added: Vec<_> = added_lines(patch).map(|a| (a.line, a.text)).collect();
        assert_eq!(added, [(2, "new one"), (3, "new two"), (22, "late")]);
    }

    #[test]
    fn hostile_patches_do_not_panic() {
        for patch in [
            "@@",
            "@@ +",
            "@@ -x +y @@\n+a",
            "+",
            "",
            "\r\n+\r",
            "@@ +99999999999999999999 @@\n+z",
        ] {
            let _ = added_lines(patch).count();
        }
        // Found by the `patch` fuzz target: a hunk at line 0 numbered its lines from 0,
        // and one at the largest line number overflowed on the next line.
        let lines = |patch| added_lines(patch).map(|a| a.line).collect::<Vec<_>>();
        assert_eq!(lines("@@ -1,3 +0,* @@\n+key\n+two"), [1, 2]);
        assert_eq!(
            lines("@@ -1 +18446744073709551615 @@\n+a\n b\n+c"),
            [u64::MAX, u64::MAX]
        );
        let lines: Vec<_> = added_lines("@@ -1 +7 @@\r\n+crlf\r\n").collect();
        assert_eq!(
            lines,
            [AddedLine {
                line: 7,
                text: "crlf"
            }]
        );
    }

    #[test]
    fn renames_count_under_both_paths() {
        let f = FileChange {
            path: "docs/new.md".into(),
            status: "renamed".into(),
            previous_path: Some("src/old.md".into()),
            additions: 0,
            deletions: 0,
            patch: None,
        };
        assert_eq!(f.paths().collect::<Vec<_>>(), ["docs/new.md", "src/old.md"]);
    }
}
