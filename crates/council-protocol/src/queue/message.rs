//! The message of each merge council makes into a queue commit: a title for `git log`,
//! and trailers that say which pull request it merged and what the queue plans after
//! this commit. The queue reads them back from a commit made by the release token's
//! identity only, and only as hints: which pull request a merge names is checked against
//! the merge's own second parent, and the plan after it only sizes the next queue
//! commits (landing always needs green checks read now).
//!
//! ```text
//! Merge #12 into main (merge queue)
//!
//! Council-Queue-Pull: 12
//! Council-Queue-Base: 1a2b3c4d…
//! Council-Queue-Rest: 2 4
//! ```
//!
//! `Council-Queue-Rest` is the stateless part of bisection: after a red batch is split,
//! the sizes of the batches still to test before the queue goes back to `batch_size`
//! (the current commit's size is its number of merges).

use crate::policy::queue::MAX_BATCH;

const PULL: &str = "Council-Queue-Pull";
const BASE: &str = "Council-Queue-Base";
const REST: &str = "Council-Queue-Rest";

/// Sizes planned after a queue commit, at most: bisecting a batch of 16 leaves 4 (8, 4,
/// 2, 1); more is not a message council wrote.
pub const MAX_REST: usize = 8;
/// A message longer than this is not one council wrote; it is not read.
const MAX_MESSAGE_BYTES: usize = 4096;

/// What a queue merge's message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeNote {
    /// The pull request the merge says it merged.
    pub pull: u64,
    /// The base commit the queue commit was built on, as the message says.
    pub base_sha: String,
    /// Sizes of the queue commits planned after this one (bisection); empty = the
    /// policy's `batch_size` again.
    pub rest: Vec<u32>,
}

/// The message of the merge of `pull` into a queue commit of `base` built on `base_sha`.
pub fn write(pull: u64, base: &str, base_sha: &str, rest: &[u32]) -> String {
    let mut out =
        format!("Merge #{pull} into {base} (merge queue)\n\n{PULL}: {pull}\n{BASE}: {base_sha}\n");
    if !rest.is_empty() {
        let sizes: Vec<String> = rest.iter().map(u32::to_string).collect();
        out.push_str(&format!("{REST}: {}\n", sizes.join(" ")));
    }
    out
}

/// The note of a queue merge's message; `None` when the message is not one council
/// writes. Only the last paragraph is read (git's trailer rule).
pub fn read(message: &str) -> Option<MergeNote> {
    if message.len() > MAX_MESSAGE_BYTES {
        return None;
    }
    let message = message.replace("\r\n", "\n");
    let last = message.trim_end().rsplit("\n\n").next().unwrap_or_default();
    let mut pull = None;
    let mut base_sha = None;
    let mut rest = Vec::new();
    for line in last.lines() {
        let (key, value) = line.split_once(": ")?;
        let value = value.trim();
        match key {
            PULL if pull.is_none() => pull = Some(value.parse::<u64>().ok().filter(|n| *n > 0)?),
            BASE if base_sha.is_none() => {
                if value.is_empty()
                    || value.len() > 64
                    || !value.bytes().all(|b| b.is_ascii_hexdigit())
                {
                    return None;
                }
                base_sha = Some(value.to_ascii_lowercase());
            }
            REST if rest.is_empty() => {
                for size in value.split(' ').filter(|s| !s.is_empty()) {
                    let size = size.parse::<u32>().ok()?;
                    if size == 0 || u64::from(size) > MAX_BATCH || rest.len() == MAX_REST {
                        return None;
                    }
                    rest.push(size);
                }
            }
            // Another trailer (a sign-off a tool adds) is allowed; a repeated one is not.
            PULL | BASE | REST => return None,
            _ => {}
        }
    }
    Some(MergeNote {
        pull: pull?,
        base_sha: base_sha?,
        rest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE_SHA: &str = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";

    #[test]
    fn written_notes_read_back() {
        let m = write(12, "main", BASE_SHA, &[2, 4]);
        insta::assert_snapshot!(m, @r"
        Merge #12 into main (merge queue)

        Council-Queue-Pull: 12
        Council-Queue-Base: 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d
        Council-Queue-Rest: 2 4
        ");
        assert_eq!(
            read(&m),
            Some(MergeNote {
                pull: 12,
                base_sha: BASE_SHA.into(),
                rest: vec![2, 4]
            })
        );
        let plain = write(3, "develop", BASE_SHA, &[]);
        assert_eq!(read(&plain).unwrap().rest, Vec::<u32>::new());
        assert_eq!(read(&plain.replace('\n', "\r\n")).unwrap().pull, 3);
        let signed = format!("{plain}Signed-off-by: A <a@b>\n");
        assert_eq!(read(&signed).unwrap().pull, 3);
    }

    #[test]
    fn anything_else_is_not_a_note() {
        for message in [
            "",
            "Merge pull request #12 from o/feature\n\nAdd login",
            "Council-Queue-Pull: 12",
            "x\n\nCouncil-Queue-Pull: 12\n",
            "x\n\nCouncil-Queue-Base: abc\n",
            "x\n\nCouncil-Queue-Pull: 0\nCouncil-Queue-Base: abc\n",
            "x\n\nCouncil-Queue-Pull: -1\nCouncil-Queue-Base: abc\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: xyz\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Pull: 2\nCouncil-Queue-Base: abc\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: abc\nCouncil-Queue-Rest: 17\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: abc\nCouncil-Queue-Rest: 0\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: abc\nCouncil-Queue-Rest: 1 1 1 1 1 1 1 1 1\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: abc\nCouncil-Queue-Rest: 2,2\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: abc\nnot a trailer\n",
            "x\n\nCouncil-Queue-Pull: １\nCouncil-Queue-Base: abc\n",
            "x\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: ａｂｃ\n",
        ] {
            assert_eq!(read(message), None, "{message:?}");
        }
        let long = format!(
            "{}\n\nCouncil-Queue-Pull: 1\nCouncil-Queue-Base: abc\n",
            "é".repeat(3000)
        );
        assert_eq!(read(&long), None);
    }

    proptest::proptest! {
        /// Any text, multi-byte included, reads as a note or as nothing: never a panic.
        #[test]
        fn any_message_reads_without_panicking(text in "\\PC{0,300}", pull in 1u64..1000) {
            let _ = read(&text);
            let framed = format!("{text}\n\nCouncil-Queue-Pull: {pull}\nCouncil-Queue-Base: {BASE_SHA}\n");
            if let Some(note) = read(&framed) {
                proptest::prop_assert_eq!(note.pull, pull);
            }
        }
    }
}
