//! The commit graph: commits with parents, a tree (path → file), who made them and
//! whether GitHub verified them. Additive to the world's shortcuts (`branches`, a pull
//! request's `head_sha` and `files`, `diffs`): a world that never builds a commit has an
//! empty graph and answers as before.
//!
//! Ancestry is answered in time proportional to the commits walked, never to the
//! square of the history: commits live in a vector indexed by position, each with its
//! generation number (1 for a root, else one more than its highest parent), and a walk
//! from a descendant stops at commits older (lower generation) than the one looked for.
//! So `is_ancestor(root, tip)` of a 10,000-commit chain walks 10,000 commits once, and a
//! merge base of two branches off a long history walks only what lies above it.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::sync::Arc;

use crate::world::fake_sha;

/// Path → file, sorted as git sorts a tree's paths (by bytes).
pub type Tree = BTreeMap<String, Blob>;

/// A file in a tree: its text, or an opaque blob named by its id (a binary file, whose
/// diff GitHub shows without a patch).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Blob {
    Text(String),
    Id(String),
}

impl Blob {
    /// The blob's SHA as the contents API names it (`fake_sha("blob <text>")`).
    pub fn sha(&self) -> String {
        match self {
            Blob::Text(text) => fake_sha(&format!("blob {text}")),
            Blob::Id(id) => id.clone(),
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Blob::Text(text) => Some(text),
            Blob::Id(_) => None,
        }
    }
}

impl From<&str> for Blob {
    fn from(text: &str) -> Blob {
        Blob::Text(text.to_string())
    }
}

/// The author or committer of a commit: git's name, email and date, and the GitHub
/// account it maps to (`None` when the email belongs to no account).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub login: Option<String>,
    pub name: String,
    pub email: String,
    /// ISO 8601 in UTC, as GitHub writes it.
    pub date: String,
}

impl Signature {
    /// An account's signature, with GitHub's no-reply address.
    pub fn of(login: &str, date: &str) -> Signature {
        Signature {
            login: Some(login.to_string()),
            name: login.to_string(),
            email: format!("{login}@users.noreply.github.com"),
            date: date.to_string(),
        }
    }

    /// GitHub itself as a committer (`web-flow`): what merges and API commits show.
    pub fn github(date: &str) -> Signature {
        Signature {
            login: Some("web-flow".to_string()),
            name: "GitHub".to_string(),
            email: "noreply@github.com".to_string(),
            date: date.to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    /// First parent first: a merge's is the base it was merged into.
    pub parents: Vec<String>,
    pub tree: Arc<Tree>,
    pub message: String,
    pub author: Signature,
    pub committer: Signature,
    /// GitHub's `verification.verified`: true for what GitHub made itself (merges,
    /// commits made through the API), false for pushed commits unless a test says so.
    pub verified: bool,
    /// Made up for a SHA the world named before it had a graph (a branch head or a pull
    /// request's head from the shortcuts): its tree is the files the shortcuts knew, and
    /// the lists of changed files keep coming from the shortcuts.
    pub shortcut: bool,
    /// 1 for a root, else one more than the highest parent's.
    pub generation: u32,
}

/// A commit to add: everything but its SHA (computed from the rest) and generation.
#[derive(Debug, Clone)]
pub struct NewCommit {
    pub parents: Vec<String>,
    pub tree: Arc<Tree>,
    pub message: String,
    pub author: Signature,
    pub committer: Signature,
    pub verified: bool,
    /// Its SHA, when the world already named it (a shortcut made real); else computed.
    pub sha: Option<String>,
    pub shortcut: bool,
}

/// Why a commit could not be added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    UnknownParent(String),
}

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphError::UnknownParent(sha) => write!(f, "no commit {sha} in the graph"),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Graph {
    commits: Vec<Commit>,
    /// Each commit's parents by position: walks never hash a SHA.
    parents: Vec<Vec<u32>>,
    index: HashMap<String, u32>,
}

/// Flags of a walk over two sides (`paint`).
const LEFT: u8 = 1;
const RIGHT: u8 = 2;
const STALE: u8 = 4;

impl Graph {
    pub fn len(&self) -> usize {
        self.commits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commits.is_empty()
    }

    pub fn contains(&self, sha: &str) -> bool {
        self.index.contains_key(sha)
    }

    pub fn get(&self, sha: &str) -> Option<&Commit> {
        self.position(sha).map(|i| &self.commits[i as usize])
    }

    /// Every commit, in the order they were added (parents before children).
    pub fn iter(&self) -> impl Iterator<Item = &Commit> {
        self.commits.iter()
    }

    fn position(&self, sha: &str) -> Option<u32> {
        self.index.get(sha).copied()
    }

    fn at(&self, i: u32) -> &Commit {
        &self.commits[i as usize]
    }

    fn parents_of(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        self.parents.get(i as usize).into_iter().flatten().copied()
    }

    /// Adds a commit whose parents are in the graph; its SHA is computed from its
    /// content (git's rule: the same content, parents and times make the same commit,
    /// which is then returned as it is).
    pub fn insert(&mut self, new: NewCommit) -> Result<String, GraphError> {
        let mut generation = 0;
        let mut positions = Vec::with_capacity(new.parents.len());
        for parent in &new.parents {
            let p = self
                .position(parent)
                .ok_or_else(|| GraphError::UnknownParent(parent.clone()))?;
            generation = generation.max(self.at(p).generation);
            positions.push(p);
        }
        let sha = new.sha.clone().unwrap_or_else(|| commit_sha(&new));
        if self.contains(&sha) {
            return Ok(sha);
        }
        let position = u32::try_from(self.commits.len()).unwrap_or(u32::MAX);
        self.commits.push(Commit {
            sha: sha.clone(),
            parents: new.parents,
            tree: new.tree,
            message: new.message,
            author: new.author,
            committer: new.committer,
            verified: new.verified,
            shortcut: new.shortcut,
            generation: generation.saturating_add(1),
        });
        self.parents.push(positions);
        self.index.insert(sha.clone(), position);
        Ok(sha)
    }

    /// Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor,
    /// as `git merge-base --is-ancestor` says). False when either is not in the graph.
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        let (Some(a), Some(d)) = (self.position(ancestor), self.position(descendant)) else {
            return false;
        };
        if a == d {
            return true;
        }
        let floor = self.at(a).generation;
        let mut seen = Bits::new(self.commits.len());
        let mut stack = vec![d];
        seen.set(d);
        while let Some(c) = stack.pop() {
            for p in self.parents_of(c) {
                if p == a {
                    return true;
                }
                // Below the ancestor's generation nothing can lead back up to it.
                if self.at(p).generation > floor && !seen.get(p) {
                    seen.set(p);
                    stack.push(p);
                }
            }
        }
        false
    }

    /// The best common ancestor of `a` and `b` (git's merge base): among the common
    /// ancestors that no other common ancestor descends from, the one with the highest
    /// generation (ties: the first found). `None` for unrelated histories or unknown
    /// commits. Criss-cross histories have several; git would merge them recursively,
    /// the fake picks one.
    pub fn merge_base(&self, a: &str, b: &str) -> Option<String> {
        let (a, b) = (self.position(a)?, self.position(b)?);
        let mut bases = self.paint(a, b).0;
        // Drop a base that another base descends from.
        let all = bases.clone();
        bases.retain(|&x| {
            !all.iter()
                .any(|&y| y != x && self.is_ancestor(&self.at(x).sha, &self.at(y).sha))
        });
        bases
            .into_iter()
            .max_by_key(|&x| (self.at(x).generation, Reverse(x)))
            .map(|x| self.at(x).sha.clone())
    }

    /// The commits reachable from `head` and not from `base` (`git log base..head`),
    /// oldest first; `None` when either is unknown.
    pub fn only_in(&self, head: &str, base: &str) -> Option<Vec<String>> {
        let (h, b) = (self.position(head)?, self.position(base)?);
        let mut only = self.paint(h, b).1;
        only.reverse();
        Some(only.into_iter().map(|i| self.at(i).sha.clone()).collect())
    }

    /// Walks down from `left` and `right` in generation order (children before parents),
    /// carrying which side reached each commit. Returns the commits both reach first
    /// (merge-base candidates) and the commits only `left` reaches, newest first. Stops
    /// when every commit still queued is reachable from `right`.
    fn paint(&self, left: u32, right: u32) -> (Vec<u32>, Vec<u32>) {
        let mut flags: HashMap<u32, u8> = HashMap::new();
        let mut queue: BinaryHeap<(u32, u32)> = BinaryHeap::new();
        let mut bases = Vec::new();
        let mut only_left = Vec::new();
        *flags.entry(left).or_default() |= LEFT;
        *flags.entry(right).or_default() |= RIGHT;
        queue.push((self.at(left).generation, left));
        if right != left {
            queue.push((self.at(right).generation, right));
        }
        // Commits queued without RIGHT: while there are none, nothing new is left-only.
        while queue.iter().any(|(_, c)| {
            flags
                .get(c)
                .is_some_and(|f| f & RIGHT == 0 || f & STALE == 0)
        }) {
            let Some((_, c)) = queue.pop() else { break };
            let mut f = flags.get(&c).copied().unwrap_or_default();
            if f & (LEFT | RIGHT) == LEFT | RIGHT {
                if f & STALE == 0 {
                    bases.push(c);
                    f |= STALE;
                    flags.insert(c, f);
                }
            } else if f & LEFT != 0 {
                only_left.push(c);
            }
            for p in self.parents_of(c) {
                let pf = flags.entry(p).or_default();
                if *pf & f == f {
                    continue;
                }
                let queued = *pf != 0;
                *pf |= f;
                if !queued {
                    queue.push((self.at(p).generation, p));
                }
            }
        }
        (bases, only_left)
    }
}

/// A fixed-size bit set over commit positions: a walk's `seen` costs n/64 words.
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn get(&self, i: u32) -> bool {
        let i = i as usize;
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn set(&mut self, i: u32) {
        let i = i as usize;
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
}

/// The tree's SHA: stable over its paths and blobs.
pub fn tree_sha(tree: &Tree) -> String {
    let mut text = String::from("tree\n");
    for (path, blob) in tree {
        text.push_str(&format!("{path}\0{}\n", blob.sha()));
    }
    fake_sha(&text)
}

/// A commit's SHA from everything git hashes: tree, parents, author, committer,
/// message.
fn commit_sha(new: &NewCommit) -> String {
    let sign = |s: &Signature| format!("{} <{}> {}", s.name, s.email, s.date);
    fake_sha(&format!(
        "commit\ntree {}\nparents {}\nauthor {}\ncommitter {}\n\n{}",
        tree_sha(&new.tree),
        new.parents.join(" "),
        sign(&new.author),
        sign(&new.committer),
        new.message
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn commit(graph: &mut Graph, parents: &[&str], message: &str) -> String {
        graph
            .insert(NewCommit {
                parents: parents.iter().map(|p| p.to_string()).collect(),
                tree: Arc::new(Tree::new()),
                message: message.to_string(),
                author: Signature::of("octocat", "2026-01-01T00:00:00Z"),
                committer: Signature::of("octocat", "2026-01-01T00:00:00Z"),
                verified: false,
                sha: None,
                shortcut: false,
            })
            .unwrap()
    }

    fn chain(graph: &mut Graph, from: Option<&str>, n: usize, tag: &str) -> Vec<String> {
        let mut shas = Vec::new();
        let mut last = from.map(str::to_string);
        for i in 0..n {
            let parents: Vec<&str> = last.iter().map(String::as_str).collect();
            let sha = commit(graph, &parents, &format!("{tag} {i}"));
            last = Some(sha.clone());
            shas.push(sha);
        }
        shas
    }

    #[test]
    fn ancestry_follows_every_parent_and_refuses_unknown_commits() {
        let mut g = Graph::default();
        let base = chain(&mut g, None, 3, "main");
        let left = chain(&mut g, Some(&base[2]), 2, "left");
        let right = chain(&mut g, Some(&base[1]), 4, "right");
        let merge = commit(&mut g, &[&left[1], &right[3]], "merge");
        assert!(g.is_ancestor(&base[0], &merge));
        assert!(
            g.is_ancestor(&right[0], &merge),
            "through the second parent"
        );
        assert!(g.is_ancestor(&merge, &merge));
        assert!(!g.is_ancestor(&merge, &base[0]));
        assert!(!g.is_ancestor(&left[0], &right[3]));
        assert!(!g.is_ancestor(&"0".repeat(40), &merge));
        assert!(!g.is_ancestor(&merge, "not a sha"));
        assert_eq!(g.get(&merge).unwrap().generation, 7);
        let unknown = g.insert(NewCommit {
            parents: vec!["f".repeat(40)],
            tree: Arc::new(Tree::new()),
            message: String::new(),
            author: Signature::of("a", "x"),
            committer: Signature::of("a", "x"),
            verified: false,
            sha: None,
            shortcut: false,
        });
        assert_eq!(unknown, Err(GraphError::UnknownParent("f".repeat(40))));
    }

    #[test]
    fn merge_base_and_log_range_as_git_answers_them() {
        let mut g = Graph::default();
        let base = chain(&mut g, None, 3, "main");
        let topic = chain(&mut g, Some(&base[1]), 2, "topic");
        assert_eq!(g.merge_base(&base[2], &topic[1]), Some(base[1].clone()));
        assert_eq!(g.merge_base(&topic[1], &base[2]), Some(base[1].clone()));
        assert_eq!(g.merge_base(&base[2], &base[0]), Some(base[0].clone()));
        assert_eq!(g.only_in(&topic[1], &base[2]), Some(topic.clone()));
        assert_eq!(g.only_in(&base[2], &topic[1]), Some(vec![base[2].clone()]));
        assert_eq!(g.only_in(&base[1], &base[2]), Some(vec![]));
        // After merging the topic in, the base contains it: nothing is left to merge.
        let merge = commit(&mut g, &[&base[2], &topic[1]], "merge");
        assert_eq!(g.merge_base(&merge, &topic[1]), Some(topic[1].clone()));
        assert_eq!(g.only_in(&topic[1], &merge), Some(vec![]));
        assert_eq!(
            g.only_in(&merge, &base[2]),
            Some(vec![topic[0].clone(), topic[1].clone(), merge.clone()])
        );
        let unrelated = chain(&mut g, None, 2, "orphan");
        assert_eq!(g.merge_base(&unrelated[1], &merge), None);
        assert_eq!(g.merge_base(&"0".repeat(40), &merge), None);
    }

    #[test]
    fn a_criss_cross_history_has_one_merge_base_picked() {
        let mut g = Graph::default();
        let root = chain(&mut g, None, 1, "root");
        let a = chain(&mut g, Some(&root[0]), 1, "a");
        let b = chain(&mut g, Some(&root[0]), 1, "b");
        let x = commit(&mut g, &[&a[0], &b[0]], "x");
        let y = commit(&mut g, &[&b[0], &a[0]], "y");
        let base = g.merge_base(&x, &y).unwrap();
        assert!(base == a[0] || base == b[0], "{base}");
    }

    #[test]
    fn ten_thousand_commits_answer_ancestry_a_thousand_times() {
        // O(depth) per question: 1,000 questions over a 10,000-commit chain walk 10^7
        // commits at most; a quadratic walk would take minutes.
        let mut g = Graph::default();
        let main = chain(&mut g, None, 10_000, "main");
        let topic = chain(&mut g, Some(&main[9_990]), 3, "topic");
        for i in 0..1_000 {
            assert!(g.is_ancestor(&main[i % 7], &main[9_999]));
            assert!(!g.is_ancestor(&topic[2], &main[9_999]));
        }
        for _ in 0..1_000 {
            assert_eq!(
                g.merge_base(&main[9_999], &topic[2]),
                Some(main[9_990].clone())
            );
            assert_eq!(g.only_in(&topic[2], &main[9_999]).unwrap().len(), 3);
        }
    }
}
