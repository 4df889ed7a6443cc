//! `out/audit/PR-<n>.json` under the workspace, written without following a symbolic
//! link anywhere on the way: a checkout of the pull request may plant `out`,
//! `out/audit` or the file itself as a link to the runner's own files.
//!
//! A file already there is replaced only when the new Context Object holds every entry
//! it holds (it continues the chain), and that is said in a notice. Any other file (a
//! longer chain, another chain, an edited one, text that is not a Context Object) is
//! kept, and the new object is written beside it as `PR-<n>.<chain head>.json`, with a
//! warning: nothing is lost.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::Path;

use super::{ReadError, read_open};
use crate::runner::Level;
use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::Stored;
use council_protocol::audit::supersede::{Existing, compare};
use council_protocol::error::io_reason;

/// An existing audit file larger than this is not read: it is kept, unread.
const MAX_EXISTING_BYTES: u64 = 64 << 20;

/// The audit file's path relative to the workspace.
pub fn relative_path(context_id: &str) -> String {
    format!("out/audit/{context_id}.json")
}

/// Where the Context Object was written, and what to tell about a file that was there.
#[derive(Debug, PartialEq, Eq)]
pub struct Written {
    /// Relative to the workspace: `out/audit/PR-<n>.json`, or the name beside it.
    pub path: String,
    /// A notice (the file was replaced) or a warning (it was kept).
    pub said: Option<(Level, String)>,
}

/// Writes `context` as the audit file, or beside a file it may not replace; a message
/// naming the (relative) path that stopped the write.
pub fn write(workspace: &Path, context: &ContextObject) -> Result<Written, String> {
    let text = context.to_pretty_json();
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
    let name = format!("{}.json", context.context_id);
    let relative = relative_path(&context.context_id);
    let kept = match existing(&dir.join(&name), &relative, context)? {
        None => None,
        Some(found) if found.may_replace() => {
            put(&dir, &name, &relative, &text)?;
            let said = format!("replaced {relative}: {}", found.describe());
            return Ok(Written {
                path: relative,
                said: Some((Level::Notice, said)),
            });
        }
        Some(found) => Some(found),
    };
    let Some(kept) = kept else {
        put(&dir, &name, &relative, &text)?;
        return Ok(Written {
            path: relative,
            said: None,
        });
    };
    // Beside it, named after this chain's head: a file already there holds this chain
    // (an earlier write of it), or was planted, and is not replaced.
    let beside_name = format!("{}.{}.json", context.context_id, head_tag(context));
    let beside = format!("out/audit/{beside_name}");
    if let Some(there) = existing(&dir.join(&beside_name), &beside, context)?
        && !there.may_replace()
    {
        return Err(format!(
            "kept {relative} ({}) and {beside} ({}); move them away for the audit file to be \
             written",
            kept.describe(),
            there.describe()
        ));
    }
    put(&dir, &beside_name, &beside, &text)?;
    let said = format!(
        "kept {relative}: {}; this run's Context Object was written to {beside} instead \
         (move {relative} away for the next run to write it there)",
        kept.describe()
    );
    Ok(Written {
        path: beside,
        said: Some((Level::Warning, said)),
    })
}

/// The first 12 hex digits of the chain head's hash: a name beside the audit file that
/// is this chain's own.
fn head_tag(context: &ContextObject) -> String {
    let stored = Stored::from_file(context.clone());
    let hash = stored.last_hash();
    let hex = hash.strip_prefix("sha256:").unwrap_or(hash);
    hex.chars()
        .filter(char::is_ascii_hexdigit)
        .take(12)
        .collect()
}

/// The file at `path`: `None` when there is none, else what it is to `new`. A link, or
/// anything but a regular file, is an error naming it.
fn existing(path: &Path, shown: &str, new: &ContextObject) -> Result<Option<Existing>, String> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{shown}: {}", io_reason(&e))),
        Ok(meta) if meta.file_type().is_symlink() => Err(format!(
            "{shown} is a symbolic link; the audit file is never written through one \
             (remove it: it did not come from council)"
        )),
        Ok(meta) if !meta.is_file() => Err(format!("{shown} exists and is not a regular file")),
        Ok(_) => Ok(Some(match read_existing(path) {
            Ok(text) => compare(&text, new),
            Err(why) => Existing::Unreadable(why),
        })),
    }
}

/// An existing audit file's text, bounded; what it is when it is not text to compare.
fn read_existing(path: &Path) -> Result<String, String> {
    let file = File::open(path).map_err(|e| io_reason(&e))?;
    // What was opened, not what the name pointed at a moment ago (a link swapped in).
    match file.metadata() {
        Ok(meta) if meta.is_file() => {}
        _ => return Err("not a regular file".to_string()),
    }
    read_open(file, MAX_EXISTING_BYTES).map_err(|e| match e {
        ReadError::Io(e) => io_reason(&e),
        ReadError::TooLarge => format!("larger than {} MiB, not read", MAX_EXISTING_BYTES >> 20),
        ReadError::NotUtf8 => "not UTF-8 text".to_string(),
    })
}

/// Writes `text` as `dir/name` (shown as `shown`). A fresh name opened with
/// O_CREAT|O_EXCL cannot be a planted link, and a rename replaces whatever sits at the
/// target instead of following it.
fn put(dir: &Path, name: &str, shown: &str, text: &str) -> Result<(), String> {
    let tmp_name = format!(
        "{name}.{}.tmp",
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
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, dir.join(name))) {
        let _ = fs::remove_file(&tmp);
        return Err(format!("cannot write {shown}: {e}"));
    }
    Ok(())
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
    use council_protocol::audit::stored::merge;
    use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
    use council_protocol::event::Event;
    use std::os::unix::fs::symlink;

    /// PR 2's sealed Context Object with the first `n` of one chain's entries.
    fn object(n: usize) -> ContextObject {
        let payload = include_str!("../../tests/data/events/pull_request.opened.json");
        let pr = Event::parse("pull_request", payload, "e.json")
            .and_then(|e| e.pull_request())
            .unwrap();
        let now = "2026-01-01T00:00:00Z";
        let mut ours = ContextObject::new("o/r", &pr, "webhook:pull_request.opened", now);
        for i in 0..n {
            let record = Record {
                stage: "guard",
                agent: "agent_guard",
                action: format!("check:{i}"),
                result: "PASS".into(),
                message: format!("m{i}"),
            };
            let entry = new_entry(&RunInfo::local(), &record, &pr.head_sha, now);
            ours.timeline.push(entry);
        }
        merge(None, &ours, None).unwrap().file_context()
    }

    fn files(ws: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(ws.join("out/audit"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_the_file_and_replaces_one_whose_chain_it_continues() {
        let ws = tempfile::tempdir().unwrap();
        let written = write(ws.path(), &object(2)).unwrap();
        assert_eq!(
            written,
            Written {
                path: "out/audit/PR-2.json".into(),
                said: None
            }
        );
        let written = write(ws.path(), &object(3)).unwrap();
        assert_eq!(written.path, "out/audit/PR-2.json");
        assert_eq!(
            written.said,
            Some((
                Level::Notice,
                "replaced out/audit/PR-2.json: this run's Context Object (3 entries) \
                 continues its chain of 2 entries"
                    .into()
            ))
        );
        let text = fs::read_to_string(ws.path().join("out/audit/PR-2.json")).unwrap();
        assert_eq!(text, object(3).to_pretty_json());
        assert_eq!(
            files(ws.path()),
            ["PR-2.json"],
            "no temporary file left behind"
        );
    }

    #[test]
    fn a_longer_chain_is_kept_and_the_new_one_written_beside_it() {
        let ws = tempfile::tempdir().unwrap();
        write(ws.path(), &object(3)).unwrap();
        let shorter = object(2);
        let written = write(ws.path(), &shorter).unwrap();
        let tag = &shorter.timeline[1].hash["sha256:".len()..][..12];
        let beside = format!("out/audit/PR-2.{tag}.json");
        assert_eq!(written.path, beside);
        assert_eq!(
            written.said,
            Some((
                Level::Warning,
                format!(
                    "kept out/audit/PR-2.json: its chain has 3 entries, this run's only 2; \
                     this run's Context Object was written to {beside} instead (move \
                     out/audit/PR-2.json away for the next run to write it there)"
                )
            ))
        );
        let kept = fs::read_to_string(ws.path().join("out/audit/PR-2.json")).unwrap();
        assert_eq!(kept, object(3).to_pretty_json());
        // The same chain again goes to the same name beside it.
        assert_eq!(write(ws.path(), &shorter).unwrap().path, beside);
        assert_eq!(files(ws.path()).len(), 2);
        // A planted file under that name is not replaced either: a failed write.
        fs::write(ws.path().join(&beside), "planted").unwrap();
        let err = write(ws.path(), &shorter).unwrap_err();
        assert!(err.contains("move them away"), "{err}");
        assert_eq!(
            fs::read_to_string(ws.path().join(&beside)).unwrap(),
            "planted"
        );
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
            let err = write(ws.path(), &object(1)).unwrap_err();
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
