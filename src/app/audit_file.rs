//! `out/audit/PR-<n>.json` under the workspace, written without following a symbolic
//! link anywhere on the way: a checkout of the pull request may plant `out`,
//! `out/audit` or the file itself as a link to the runner's own files.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::Path;

/// The audit file's path relative to the workspace.
pub fn relative_path(context_id: &str) -> String {
    format!("out/audit/{context_id}.json")
}

/// Writes `text` as the audit file; returns its workspace-relative path, or a message
/// naming the (relative) path that stopped the write.
pub fn write(workspace: &Path, context_id: &str, text: &str) -> Result<String, String> {
    let relative = relative_path(context_id);
    let mut dir = workspace.to_path_buf();
    let mut shown = String::new();
    for part in ["out", "audit"] {
        dir.push(part);
        shown = if shown.is_empty() {
            part.to_string()
        } else {
            format!("{shown}/{part}")
        };
        real_dir(&dir, &shown)?;
    }
    let path = workspace.join(&relative);
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(format!(
                "{relative} is a symbolic link; the audit file is never written through one \
                 (remove it: it did not come from council)"
            ));
        }
        Ok(meta) if !meta.is_file() => {
            return Err(format!("{relative} exists and is not a regular file"));
        }
        _ => {}
    }
    // A fresh name opened with O_CREAT|O_EXCL cannot be a planted link, and a rename
    // replaces whatever sits at the target instead of following it.
    let tmp_name = format!(
        "{context_id}.json.{}.tmp",
        hex::encode(&council_github::jitter::bytes()[..8])
    );
    let tmp = dir.join(&tmp_name);
    let failed = |what: &str, e: std::io::Error| format!("{what} out/audit/{tmp_name}: {e}");
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| failed("cannot create", e))?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, &path)) {
        let _ = fs::remove_file(&tmp);
        return Err(format!("cannot write {relative}: {e}"));
    }
    Ok(relative)
}

/// `path` is a directory that is not a link, created when missing.
fn real_dir(path: &Path, shown: &str) -> Result<(), String> {
    for _ in 0..2 {
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{shown} is a symbolic link; the audit file is never written through one"
                ));
            }
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => return Err(format!("{shown} exists and is not a directory")),
            Err(e) if e.kind() == ErrorKind::NotFound => match fs::create_dir(path) {
                // Another run may create it between our look and our create: look again.
                Ok(()) | Err(_) => continue,
            },
            Err(e) => return Err(format!("{shown}: {e}")),
        }
    }
    Err(format!("{shown} could not be created"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn writes_the_file_and_replaces_an_old_one() {
        let ws = tempfile::tempdir().unwrap();
        assert_eq!(
            write(ws.path(), "PR-2", "{}\n").unwrap(),
            "out/audit/PR-2.json"
        );
        write(ws.path(), "PR-2", "{\"a\":1}\n").unwrap();
        let text = fs::read_to_string(ws.path().join("out/audit/PR-2.json")).unwrap();
        assert_eq!(text, "{\"a\":1}\n");
        let leftovers = fs::read_dir(ws.path().join("out/audit")).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file left behind");
    }

    #[test]
    fn a_link_anywhere_on_the_way_is_a_failed_write_naming_it() {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("victim");
        fs::write(&target, "precious").unwrap();
        for planted in ["out", "out/audit", "out/audit/PR-2.json"] {
            let ws = tempfile::tempdir().unwrap();
            let link = ws.path().join(planted);
            fs::create_dir_all(link.parent().unwrap()).unwrap();
            let pointee = if planted.ends_with(".json") {
                target.clone()
            } else {
                outside.path().to_path_buf()
            };
            symlink(&pointee, &link).unwrap();
            let err = write(ws.path(), "PR-2", "{}").unwrap_err();
            assert!(
                err.starts_with(&format!("{planted} is a symbolic link")),
                "{err}"
            );
            assert_eq!(fs::read_to_string(&target).unwrap(), "precious");
            assert_eq!(
                fs::read_dir(outside.path()).unwrap().count(),
                1,
                "{planted}"
            );
        }
    }
}
