//! Every ASSISTANT_CONTEXT file of the repository: a walk of the workspace that never
//! follows a symbolic link, skips `.git`, and stops at a bound so a huge checkout cannot
//! stall a step.

use std::fs;
use std::path::Path;

use crate::app::workspace_file::WorkspacePath;

/// The file names RFC 0001 recommends (`.yml` is accepted as YAML too).
pub const NAMES: [&str; 3] = [
    "ASSISTANT_CONTEXT.md",
    "ASSISTANT_CONTEXT.yaml",
    "ASSISTANT_CONTEXT.yml",
];

/// Entries looked at before the walk gives up (with a warning).
pub const MAX_ENTRIES: usize = 200_000;

pub struct Found {
    pub files: Vec<WorkspacePath>,
    /// The walk stopped at [`MAX_ENTRIES`].
    pub capped: bool,
}

pub fn in_workspace(workspace: &Path) -> Found {
    let mut found = Found {
        files: Vec::new(),
        capped: false,
    };
    let mut pending = vec![(workspace.to_path_buf(), String::new())];
    let mut seen = 0usize;
    while let Some((dir, shown)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            seen += 1;
            if seen > MAX_ENTRIES {
                found.capped = true;
                return found;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if shown.is_empty() {
                name.clone()
            } else {
                format!("{shown}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && name != ".git" {
                pending.push((entry.path(), rel));
            } else if kind.is_file() && NAMES.contains(&name.as_str()) {
                found.files.push(WorkspacePath {
                    full: entry.path(),
                    shown: rel,
                });
            }
        }
    }
    found.files.sort_by(|a, b| a.shown.cmp(&b.shown));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_files_and_skips_git_and_links() {
        let ws = tempfile::tempdir().unwrap();
        for rel in [
            "ASSISTANT_CONTEXT.md",
            "tools/x/ASSISTANT_CONTEXT.yaml",
            ".git/ASSISTANT_CONTEXT.md",
            "docs/assistant_context.md",
            "docs/ASSISTANT_CONTEXT.md.bak",
        ] {
            let full = ws.path().join(rel);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, "---\n---\n").unwrap();
        }
        std::os::unix::fs::symlink(ws.path().join("tools"), ws.path().join("loop")).unwrap();
        let shown: Vec<String> = in_workspace(ws.path())
            .files
            .into_iter()
            .map(|f| f.shown)
            .collect();
        assert_eq!(
            shown,
            ["ASSISTANT_CONTEXT.md", "tools/x/ASSISTANT_CONTEXT.yaml"]
        );
    }
}
