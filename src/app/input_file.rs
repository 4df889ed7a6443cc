//! `@path` inputs (`memory`, `plan`, `report`): a file inside the workspace. The path is
//! resolved with every symlink followed and must stay under the workspace, so that a
//! workflow input (which an issue author may influence) cannot make the action post
//! `/etc/passwd` or a file holding the runner's credentials.

use std::io::Read;
use std::path::Path;

use council_protocol::error::{Error, Result, io_reason};

/// Larger files are refused; memory is compacted to fit a 65,536-character comment, so
/// megabytes of it would only be cut away.
pub const MAX_MEMORY_FILE_BYTES: u64 = 4 << 20;

/// The value of `input`: `raw` itself, or the contents of the file `@path` names.
pub fn resolve_input(workspace: &Path, input: &str, raw: &str) -> Result<String> {
    let Some(rel) = raw.trim().strip_prefix('@') else {
        return Ok(raw.to_string());
    };
    let bad = |why: String| Error::Input(format!("input `{input}`: {why}"));
    let rel = rel.trim();
    if rel.is_empty() {
        return Err(bad(
            "`@` must be followed by a path inside the workspace, e.g. `@out/memory.json`".into(),
        ));
    }
    let root = workspace
        .canonicalize()
        .map_err(|e| Error::io("workspace", workspace, e))?;
    let full = root
        .join(rel)
        .canonicalize()
        .map_err(|e| bad(format!("cannot read `@{rel}`: {}", io_reason(&e))))?;
    if !full.starts_with(&root) {
        return Err(bad(format!(
            "`@{rel}` resolves to {}, outside the workspace {}; a memory file must be inside it",
            full.display(),
            root.display()
        )));
    }
    if !full.is_file() {
        return Err(bad(format!("`@{rel}` is not a regular file")));
    }
    let file = std::fs::File::open(&full)
        .map_err(|e| bad(format!("cannot read `@{rel}`: {}", io_reason(&e))))?;
    let mut bytes = Vec::new();
    file.take(MAX_MEMORY_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| bad(format!("cannot read `@{rel}`: {}", io_reason(&e))))?;
    if bytes.len() as u64 > MAX_MEMORY_FILE_BYTES {
        return Err(bad(format!(
            "`@{rel}` is larger than {} MiB",
            MAX_MEMORY_FILE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| bad(format!("`@{rel}` is not UTF-8 text")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(workspace: &Path, raw: &str) -> Result<String> {
        resolve_input(workspace, "memory", raw)
    }

    #[test]
    fn inline_memory_is_returned_as_is() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(resolve(dir.path(), " {\"a\":1}").unwrap(), " {\"a\":1}");
    }

    #[test]
    fn files_inside_the_workspace_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        std::fs::write(dir.path().join("out/m.json"), "[1]").unwrap();
        assert_eq!(resolve(dir.path(), "@out/m.json").unwrap(), "[1]");
        assert_eq!(resolve(dir.path(), "@ ./out/../out/m.json").unwrap(), "[1]");
        let absolute = format!("@{}", dir.path().join("out/m.json").display());
        assert_eq!(resolve(dir.path(), &absolute).unwrap(), "[1]");
    }

    #[test]
    fn paths_leaving_the_workspace_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.json"), dir.path().join("link"))
            .unwrap();
        let escape = format!("@{}", outside.path().join("secret.json").display());
        for raw in [
            "@../x.json",
            "@/etc/hostname",
            "@link",
            escape.as_str(),
            "@",
            "@missing",
        ] {
            let error = resolve(dir.path(), raw).unwrap_err();
            assert_eq!(crate::exit::code(&error), 2, "{raw}");
            assert!(error.to_string().starts_with("input `memory`"), "{error}");
        }
        assert_eq!(
            resolve(dir.path(), "@missing").unwrap_err().to_string(),
            "input `memory`: cannot read `@missing`: no such file or directory"
        );
        std::fs::create_dir(dir.path().join("d")).unwrap();
        assert!(resolve(dir.path(), "@d").is_err());
    }

    #[test]
    fn oversized_and_binary_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b' '; (MAX_MEMORY_FILE_BYTES + 1) as usize];
        std::fs::write(dir.path().join("big.json"), big).unwrap();
        assert!(resolve(dir.path(), "@big.json").is_err());
        std::fs::write(dir.path().join("bin.json"), [0xff, 0xfe]).unwrap();
        assert!(resolve(dir.path(), "@bin.json").is_err());
    }
}
