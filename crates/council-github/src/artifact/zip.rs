//! The artifact's zip: one deflated entry at the root, written with fixed metadata so that the
//! same audit file always gives the same bytes (and so the same `sha256:` digest), and read
//! back defensively because a downloaded archive is untrusted input.

use std::io::{Cursor, Read, Write};

use ::zip::write::SimpleFileOptions;
use ::zip::{CompressionMethod, DateTime, System, ZipArchive, ZipWriter};

/// More entries than this is not an archive council wrote; stop before walking them all.
const MAX_ENTRIES: usize = 1000;

/// A zip holding `name` at its root with `bytes` as content (deflate, level 6 like the
/// toolkit, mtime 1980-01-01, mode 0644, Unix "made by" on every platform).
pub fn zip_single(name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644)
        .system(System::Unix)
        .large_file(bytes.len() as u64 >= u64::from(u32::MAX));
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    writer
        .start_file(name, options)
        .map_err(|e| format!("zipping {name}: {e}"))?;
    writer
        .write_all(bytes)
        .map_err(|e| format!("zipping {name}: {e}"))?;
    let cursor = writer
        .finish()
        .map_err(|e| format!("zipping {name}: {e}"))?;
    Ok(cursor.into_inner())
}

/// The content of the root entry `name`, at most `max_bytes` of it (a zip bomb stops there).
/// Any entry whose name could escape a directory makes the whole archive suspect.
pub fn read_single(zip: &[u8], name: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
    let mut archive =
        ZipArchive::new(Cursor::new(zip)).map_err(|e| format!("not a readable zip: {e}"))?;
    if archive.len() > MAX_ENTRIES {
        return Err(format!(
            "{} entries, more than {MAX_ENTRIES}",
            archive.len()
        ));
    }
    let mut found = None;
    for index in 0..archive.len() {
        let mut file = archive
            .by_index(index)
            .map_err(|e| format!("entry {index}: {e}"))?;
        let entry = file
            .name()
            .map_err(|e| format!("entry {index}: {e}"))?
            .into_owned();
        check_entry_name(&entry, file.enclosed_name().is_some())?;
        if entry == name {
            found = Some(read_capped(&mut file, name, max_bytes)?);
        }
    }
    found.ok_or_else(|| format!("no `{name}` at the root of the archive"))
}

fn check_entry_name(entry: &str, enclosed: bool) -> Result<(), String> {
    let escapes = !enclosed
        || entry.starts_with(['/', '\\'])
        || entry.contains(':')
        || entry.split(['/', '\\']).any(|part| part == "..");
    if escapes {
        return Err(format!(
            "entry `{}` has an absolute or `..` path",
            entry.escape_debug()
        ));
    }
    Ok(())
}

fn read_capped(file: &mut impl Read, name: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading {name}: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("`{name}` unpacks to more than {max_bytes} bytes"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_determinism() {
        let json = br#"{"context_id":"PR-7","timeline":[]}"#;
        let a = zip_single("PR-7.json", json).unwrap();
        let b = zip_single("PR-7.json", json).unwrap();
        assert_eq!(a, b, "same input, same bytes");
        assert_eq!(read_single(&a, "PR-7.json", 1 << 20).unwrap(), json);
        let mut archive = ZipArchive::new(Cursor::new(&a[..])).unwrap();
        assert_eq!(archive.len(), 1);
        let entry = archive.by_index(0).unwrap();
        assert_eq!(entry.compression(), CompressionMethod::Deflated);
        assert_eq!(entry.unix_mode().map(|m| m & 0o777), Some(0o644));
    }

    #[test]
    fn missing_entry_and_garbage_are_errors() {
        let zip = zip_single("other.json", b"{}").unwrap();
        assert!(
            read_single(&zip, "PR-7.json", 100)
                .unwrap_err()
                .contains("no `PR-7.json`")
        );
        assert!(read_single(b"not a zip", "PR-7.json", 100).is_err());
        assert!(read_single(&[], "PR-7.json", 100).is_err());
        assert!(read_single(&zip[..zip.len() / 2], "other.json", 100).is_err());
    }

    #[test]
    fn escaping_names_are_rejected() {
        for bad in [
            "../PR-7.json",
            "a/../../PR-7.json",
            "/etc/PR-7.json",
            "C:/PR-7.json",
            "..\\x",
        ] {
            let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
            writer
                .start_file(bad, SimpleFileOptions::default())
                .unwrap();
            writer.write_all(b"{}").unwrap();
            writer
                .start_file("PR-7.json", SimpleFileOptions::default())
                .unwrap();
            writer.write_all(b"{}").unwrap();
            let zip = writer.finish().unwrap().into_inner();
            let err = read_single(&zip, "PR-7.json", 100).unwrap_err();
            assert!(err.contains("absolute or `..`"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_zip_bomb_stops_at_the_cap() {
        let big = vec![b' '; 4 << 20];
        let zip = zip_single("PR-7.json", &big).unwrap();
        assert!(zip.len() < 64 << 10, "compresses well: {}", zip.len());
        let err = read_single(&zip, "PR-7.json", 1 << 20).unwrap_err();
        assert!(err.contains("more than 1048576 bytes"), "{err}");
        assert_eq!(
            read_single(&zip, "PR-7.json", 4 << 20).unwrap().len(),
            4 << 20
        );
    }
}
