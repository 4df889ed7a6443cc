//! Files the user names inside the workspace (`context-file`, `context validate PATH`):
//! resolved to a path that cannot leave the workspace, read with a size bound, and
//! written without following a symbolic link anywhere on the way (a checkout may plant
//! one pointing at the runner's own files).

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Component, Path, PathBuf};

use council_protocol::error::{Error, Result};

/// A path inside the workspace: the full path, and how messages show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspacePath {
    pub full: PathBuf,
    /// Relative to the workspace, `/`-separated.
    pub shown: String,
}

/// `given` (relative to the workspace, or absolute inside it) as a [`WorkspacePath`];
/// `..` and paths outside the workspace are refused (exit 2) naming `input`.
pub fn resolve(workspace: &Path, input: &str, given: &Path) -> Result<WorkspacePath> {
    let relative = if given.is_absolute() {
        given.strip_prefix(workspace).map_err(|_| {
            Error::Usage(format!(
                "{input}: `{}` is outside the workspace; name a file inside it",
                given.display()
            ))
        })?
    } else {
        given
    };
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => {
                return Err(Error::Usage(format!(
                    "{input}: `{}` leaves the workspace; name a file inside it",
                    given.display()
                )));
            }
        }
    }
    if parts.is_empty() {
        return Err(Error::Usage(format!("{input}: the path is empty")));
    }
    Ok(WorkspacePath {
        full: parts
            .iter()
            .fold(workspace.to_path_buf(), |p, part| p.join(part)),
        shown: parts.join("/"),
    })
}

/// The file's text, `None` when it does not exist. A link (the file or a folder on the
/// way), a directory, more than `max` bytes or text that is not UTF-8 is an error naming
/// the path.
pub fn read(workspace: &Path, path: &WorkspacePath, max: u64) -> Result<Option<String>> {
    match fs::symlink_metadata(&path.full) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("ASSISTANT_CONTEXT file", &path.shown, e)),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(Error::Input(format!(
                "{} is a symbolic link; ASSISTANT_CONTEXT files are read and written only as \
                 regular files",
                path.shown
            )));
        }
        Ok(meta) if !meta.is_file() => {
            return Err(Error::Input(format!(
                "{} is not a regular file",
                path.shown
            )));
        }
        Ok(_) => {}
    }
    let inside = match (fs::canonicalize(&path.full), fs::canonicalize(workspace)) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        _ => false,
    };
    if !inside {
        return Err(Error::Input(format!(
            "{} leads outside the workspace through a symbolic link",
            path.shown
        )));
    }
    match crate::app::read_text(&path.full, max) {
        Ok(text) => Ok(Some(text)),
        Err(crate::app::ReadError::Io(e)) => {
            Err(Error::io("ASSISTANT_CONTEXT file", &path.shown, e))
        }
        Err(crate::app::ReadError::TooLarge) => Err(Error::Input(format!(
            "{} is larger than {max} bytes",
            path.shown
        ))),
        Err(crate::app::ReadError::NotUtf8) => {
            Err(Error::Input(format!("{} is not UTF-8 text", path.shown)))
        }
    }
}

/// Writes `text` to `path`, creating missing folders; no link is followed on the way.
pub fn write(workspace: &Path, path: &WorkspacePath, text: &str) -> Result<()> {
    let failed = |why: String| Error::Input(format!("cannot write {}: {why}", path.shown));
    let relative = path
        .full
        .strip_prefix(workspace)
        .map_err(|_| failed("outside the workspace".into()))?;
    let mut dir = workspace.to_path_buf();
    let parents: Vec<_> = relative
        .parent()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    for part in parents {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(failed(format!("{} is a symbolic link", dir.display())));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(failed(format!("{} is not a folder", dir.display()))),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                fs::create_dir(&dir).or_else(|e| match e.kind() {
                    ErrorKind::AlreadyExists => Ok(()),
                    _ => Err(failed(e.to_string())),
                })?;
            }
            Err(e) => return Err(failed(e.to_string())),
        }
    }
    if let Ok(meta) = fs::symlink_metadata(&path.full)
        && (meta.file_type().is_symlink() || !meta.is_file())
    {
        return Err(failed("it is a symbolic link or not a regular file".into()));
    }
    // A fresh name opened with O_EXCL cannot be a planted link; a rename replaces
    // whatever sits at the target instead of following it.
    let tmp = dir.join(format!(
        ".council-{}.tmp",
        hex::encode(&council_github::jitter::bytes()[..8])
    ));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| failed(e.to_string()))?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, &path.full)) {
        let _ = fs::remove_file(&tmp);
        return Err(failed(e.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn paths_stay_inside_the_workspace() {
        let ws = Path::new("/github/workspace");
        let p = resolve(ws, "context-file", Path::new("./docs/ASSISTANT_CONTEXT.md")).unwrap();
        assert_eq!(p.shown, "docs/ASSISTANT_CONTEXT.md");
        let p = resolve(ws, "context-file", Path::new("/github/workspace/a.md")).unwrap();
        assert_eq!(p.full, PathBuf::from("/github/workspace/a.md"));
        for bad in ["../x.md", "/etc/passwd", "a/../../x", "", "."] {
            let e = resolve(ws, "context-file", Path::new(bad)).unwrap_err();
            assert_eq!(crate::exit::code(&e), 2, "{bad}");
        }
    }

    #[test]
    fn writes_create_folders_and_never_follow_links() {
        let ws = tempfile::tempdir().unwrap();
        let path = resolve(ws.path(), "f", Path::new("a/b/C.md")).unwrap();
        write(ws.path(), &path, "x").unwrap();
        assert_eq!(read(ws.path(), &path, 10).unwrap().as_deref(), Some("x"));
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("victim"), "precious").unwrap();
        symlink(outside.path().join("victim"), ws.path().join("link.md")).unwrap();
        symlink(outside.path(), ws.path().join("dir")).unwrap();
        for rel in ["link.md", "dir/victim"] {
            let path = resolve(ws.path(), "f", Path::new(rel)).unwrap();
            assert!(write(ws.path(), &path, "overwritten").is_err(), "{rel}");
        }
        for rel in ["link.md", "dir/victim"] {
            let path = resolve(ws.path(), "f", Path::new(rel)).unwrap();
            assert!(read(ws.path(), &path, 100).is_err(), "{rel}");
        }
        assert_eq!(
            fs::read_to_string(outside.path().join("victim")).unwrap(),
            "precious"
        );
        let none = resolve(ws.path(), "f", Path::new("none.md")).unwrap();
        assert_eq!(read(ws.path(), &none, 10).unwrap(), None);
    }
}
