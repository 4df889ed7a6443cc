//! Diffs and merges over trees, as GitHub shows and makes them: a file's unified diff
//! (`patch`, three lines of context, git's hunk headers, `\ No newline at end of file`),
//! its `additions` and `deletions`, the files two trees differ by, and the three-way
//! merge of two trees from their merge base.
//!
//! A merge is decided per path: a path changed on one side only takes that side; changed
//! the same way on both, that change; changed differently on both, a conflict (GitHub
//! would also merge two edits of different lines of one file; the fake is stricter, so a
//! conflict it reports may be one GitHub resolves, never the other way round). Renames
//! are not detected: a moved file is one removed and one added.

use crate::graph::{Blob, Tree};
use crate::world::PrFile;

/// Lines of context around each change, as git and GitHub show them.
const CONTEXT: usize = 3;

/// Above this many line pairs the middle of two files is shown as replaced whole rather
/// than aligned (the alignment costs their product in time and memory).
const MAX_ALIGNED: usize = 4_000_000;

/// The files `new` differs from `old` by, sorted by path.
pub fn trees(old: &Tree, new: &Tree) -> Vec<PrFile> {
    let mut paths: Vec<&String> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| file(path, old.get(path), new.get(path)))
        .collect()
}

/// One file's change; `None` when it did not change.
pub fn file(path: &str, old: Option<&Blob>, new: Option<&Blob>) -> Option<PrFile> {
    let status = match (old, new) {
        (None, None) => return None,
        (Some(a), Some(b)) if a == b => return None,
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        (Some(_), Some(_)) => "modified",
    };
    fn text(b: Option<&Blob>) -> Option<&str> {
        match b {
            None => Some(""),
            Some(blob) => blob.text(),
        }
    }
    let (patch, additions, deletions) = match (text(old), text(new)) {
        // A binary side: GitHub lists the file without a patch or line counts.
        (None, _) | (_, None) => (None, 0, 0),
        (Some(a), Some(b)) => unified(a, b),
    };
    Some(PrFile {
        filename: path.to_string(),
        status: status.to_string(),
        previous_filename: None,
        additions,
        deletions,
        patch,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Ins,
}

/// The unified diff of two texts (`None` when no line differs: an empty file added),
/// with the lines added and removed.
pub fn unified(old: &str, new: &str) -> (Option<String>, u64, u64) {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = script(&a, &b);
    let additions = ops.iter().filter(|(op, _, _)| *op == Op::Ins).count() as u64;
    let deletions = ops.iter().filter(|(op, _, _)| *op == Op::Del).count() as u64;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _, _))| *op != Op::Same)
        .map(|(i, _)| i)
        .collect();
    if changed.is_empty() {
        return (None, 0, 0);
    }
    // Hunks: runs of changes whose context overlaps or touches.
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &i in &changed {
        let start = i.saturating_sub(CONTEXT);
        let end = (i + CONTEXT + 1).min(ops.len());
        match hunks.last_mut() {
            Some((_, last_end)) if start <= *last_end => *last_end = end,
            _ => hunks.push((start, end)),
        }
    }
    let mut patch = String::new();
    for (start, end) in hunks {
        let body = &ops[start..end];
        let old_len = body.iter().filter(|(op, _, _)| *op != Op::Ins).count();
        let new_len = body.iter().filter(|(op, _, _)| *op != Op::Del).count();
        // The position before the hunk's first line on each side (git numbers an empty
        // side by the line it follows).
        let (_, old_at, new_at) = ops[start];
        if !patch.is_empty() {
            patch.push('\n');
        }
        patch.push_str(&format!(
            "@@ -{} +{} @@",
            range(old_at, old_len),
            range(new_at, new_len)
        ));
        for &(op, i, j) in body {
            let (mark, line) = match op {
                Op::Same => (' ', a[i]),
                Op::Del => ('-', a[i]),
                Op::Ins => ('+', b[j]),
            };
            patch.push('\n');
            patch.push(mark);
            match line.strip_suffix('\n') {
                Some(line) => patch.push_str(line),
                None => {
                    patch.push_str(line);
                    patch.push_str("\n\\ No newline at end of file");
                }
            }
        }
    }
    (Some(patch), additions, deletions)
}

/// git's hunk range: `start,len`, `start` alone when the length is 1, and for an empty
/// side the line before it.
fn range(at: usize, len: usize) -> String {
    match len {
        0 => format!("{at},0"),
        1 => format!("{}", at + 1),
        _ => format!("{},{len}", at + 1),
    }
}

/// The edit script turning `a` into `b`: each step with the positions in `a` and `b`
/// it stands at (for an insertion, the `a` position it comes before, and vice versa).
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<(Op, usize, usize)> = (0..prefix).map(|i| (Op::Same, i, i)).collect();
    let (n, m) = (a_mid.len(), b_mid.len());
    if n.saturating_mul(m) > MAX_ALIGNED || n == 0 || m == 0 {
        ops.extend((0..n).map(|i| (Op::Del, prefix + i, prefix)));
        ops.extend((0..m).map(|j| (Op::Ins, prefix + n, prefix + j)));
    } else {
        // Longest common subsequence, from the end: lcs[i][j] for a_mid[i..], b_mid[j..].
        let width = m + 1;
        let mut lcs = vec![0u32; (n + 1) * width];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i * width + j] = if a_mid[i] == b_mid[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && a_mid[i] == b_mid[j] {
                ops.push((Op::Same, prefix + i, prefix + j));
                i += 1;
                j += 1;
            } else if j < m && (i == n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j]) {
                ops.push((Op::Ins, prefix + i, prefix + j));
                j += 1;
            } else {
                ops.push((Op::Del, prefix + i, prefix + j));
                i += 1;
            }
        }
    }
    // Deletions before insertions within a change, as git prints them.
    let mut k = prefix;
    while k < ops.len() {
        let end = ops[k..]
            .iter()
            .position(|(op, _, _)| *op == Op::Same)
            .map_or(ops.len(), |p| k + p);
        ops[k..end].sort_by_key(|(op, _, _)| *op == Op::Ins);
        k = end + 1;
    }
    ops.extend((0..suffix).map(|_| (Op::Same, 0, 0)));
    // Positions again, now that the order within each change is final.
    let (mut i, mut j) = (0, 0);
    for (op, at_a, at_b) in &mut ops {
        (*at_a, *at_b) = (i, j);
        match op {
            Op::Same => (i, j) = (i + 1, j + 1),
            Op::Del => i += 1,
            Op::Ins => j += 1,
        }
    }
    ops
}

/// Paths changed differently on both sides of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub paths: Vec<String>,
}

/// The three-way merge of `ours` and `theirs` from their merge base `base` (an empty
/// tree for unrelated histories).
pub fn merge(base: &Tree, ours: &Tree, theirs: &Tree) -> Result<Tree, Conflict> {
    let mut paths: Vec<&String> = base
        .keys()
        .chain(ours.keys())
        .chain(theirs.keys())
        .collect();
    paths.sort();
    paths.dedup();
    let mut merged = Tree::new();
    let mut conflicts = Vec::new();
    for path in paths {
        let (b, o, t) = (base.get(path), ours.get(path), theirs.get(path));
        let chosen = if o == t || t == b {
            o
        } else if o == b {
            t
        } else {
            conflicts.push(path.clone());
            continue;
        };
        if let Some(blob) = chosen {
            merged.insert(path.clone(), blob.clone());
        }
    }
    match conflicts.is_empty() {
        true => Ok(merged),
        false => Err(Conflict { paths: conflicts }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn tree(files: &[(&str, &str)]) -> Tree {
        files
            .iter()
            .map(|(p, t)| (p.to_string(), Blob::from(*t)))
            .collect()
    }

    #[test]
    fn a_patch_is_gits_with_three_lines_of_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
        let new = "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\nthirteen\n";
        let (patch, additions, deletions) = unified(old, new);
        assert_eq!((additions, deletions), (2, 1));
        assert_eq!(
            patch.unwrap(),
            "@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n\
             @@ -10,3 +10,4 @@\n 10\n 11\n 12\n+thirteen"
        );
    }

    #[test]
    fn added_removed_and_one_line_files_use_gits_ranges() {
        assert_eq!(unified("", "a\nb\n").0.unwrap(), "@@ -0,0 +1,2 @@\n+a\n+b");
        assert_eq!(unified("a\n", "").0.unwrap(), "@@ -1 +0,0 @@\n-a");
        assert_eq!(unified("a\n", "b\n").0.unwrap(), "@@ -1 +1 @@\n-a\n+b");
        assert_eq!(
            unified("a\n", "a").0.unwrap(),
            "@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file"
        );
        assert_eq!(unified("same\n", "same\n"), (None, 0, 0));
        assert_eq!(unified("", ""), (None, 0, 0));
    }

    #[test]
    fn multibyte_and_crlf_text_diffs_by_line() {
        let (patch, additions, deletions) = unified("é\r\nß\r\n", "é\r\n😀\r\n");
        assert_eq!((additions, deletions), (1, 1));
        assert_eq!(patch.unwrap(), "@@ -1,2 +1,2 @@\n é\r\n-ß\r\n+😀\r");
    }

    #[test]
    fn huge_files_are_replaced_whole_without_aligning_them() {
        let old: String = (0..3_000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..3_000).map(|i| format!("new {i}\n")).collect();
        let (_, additions, deletions) = unified(&old, &new);
        assert_eq!((additions, deletions), (3_000, 3_000));
    }

    #[test]
    fn tree_diffs_name_each_path_once_and_binary_files_have_no_patch() {
        let mut old = tree(&[("a.rs", "a\n"), ("gone.rs", "x\n"), ("same.rs", "s\n")]);
        old.insert("logo.png".into(), Blob::Id("1".repeat(40)));
        let mut new = tree(&[("a.rs", "b\n"), ("new.rs", "n\n"), ("same.rs", "s\n")]);
        new.insert("logo.png".into(), Blob::Id("2".repeat(40)));
        let files = trees(&old, &new);
        let summary: Vec<(&str, &str, u64, u64, bool)> = files
            .iter()
            .map(|f| {
                (
                    f.filename.as_str(),
                    f.status.as_str(),
                    f.additions,
                    f.deletions,
                    f.patch.is_some(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("a.rs", "modified", 1, 1, true),
                ("gone.rs", "removed", 0, 1, true),
                ("logo.png", "modified", 0, 0, false),
                ("new.rs", "added", 1, 0, true),
            ]
        );
    }

    #[test]
    fn a_merge_takes_each_sides_change_and_refuses_two_different_ones() {
        let base = tree(&[("a", "1\n"), ("b", "1\n"), ("c", "1\n"), ("d", "1\n")]);
        let ours = tree(&[
            ("a", "ours\n"),
            ("b", "1\n"),
            ("c", "same\n"),
            ("e", "new\n"),
        ]);
        let theirs = tree(&[
            ("a", "1\n"),
            ("b", "theirs\n"),
            ("c", "same\n"),
            ("d", "1\n"),
        ]);
        let merged = merge(&base, &ours, &theirs).unwrap();
        assert_eq!(
            merged,
            tree(&[
                ("a", "ours\n"),
                ("b", "theirs\n"),
                ("c", "same\n"),
                ("e", "new\n")
            ]),
            "d removed by ours, e added by ours"
        );
        let clash = tree(&[
            ("a", "theirs\n"),
            ("b", "1\n"),
            ("c", "other\n"),
            ("d", "1\n"),
        ]);
        assert_eq!(
            merge(&base, &ours, &clash),
            Err(Conflict {
                paths: vec!["a".into(), "c".into()]
            })
        );
        // Added on both sides differently, or removed on one and changed on the other.
        let added = tree(&[("e", "theirs\n")]);
        assert!(merge(&Tree::new(), &ours, &added).is_err());
        let changed_d = tree(&[("a", "1\n"), ("b", "1\n"), ("c", "1\n"), ("d", "2\n")]);
        assert!(merge(&base, &ours, &changed_d).is_err());
    }
}
