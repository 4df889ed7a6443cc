//! Path globs of the `review:` policy section. `*` stays inside one `/` segment, `**`
//! crosses segments, `?` is one character; a glob without `/` matches a file name at
//! any depth (`*.md` is every Markdown file), as in `.gitignore`.

use regex::RegexSet;

use crate::policy::glob::to_regex_source;

#[derive(Debug, Clone)]
pub struct PathGlobs {
    anywhere: RegexSet,
    rooted: RegexSet,
    /// Each set's regexes, by their index in the list the globs were given in.
    anywhere_index: Vec<usize>,
    rooted_index: Vec<usize>,
}

impl PathGlobs {
    pub fn new(globs: &[String]) -> Result<PathGlobs, regex::Error> {
        // Each glob with its place in the list, split by whether it names a file anywhere.
        type Placed<'a> = Vec<(usize, &'a String)>;
        let (names, paths): (Placed, Placed) = globs
            .iter()
            .enumerate()
            .partition(|(_, g)| !g.contains('/'));
        Ok(PathGlobs {
            anywhere: RegexSet::new(names.iter().map(|(_, g)| to_regex_source(g)))?,
            rooted: RegexSet::new(
                paths
                    .iter()
                    .map(|(_, g)| to_regex_source(g.trim_start_matches('/'))),
            )?,
            anywhere_index: names.iter().map(|(i, _)| *i).collect(),
            rooted_index: paths.iter().map(|(i, _)| *i).collect(),
        })
    }

    pub fn matches(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.rooted.is_match(path) || self.anywhere.is_match(name)
    }

    /// The index (in the list given to [`PathGlobs::new`]) of the first glob that
    /// matches `path`, to name it in a message.
    pub fn first_match(&self, path: &str) -> Option<usize> {
        if !self.matches(path) {
            return None;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        let rooted = self
            .rooted
            .matches(path)
            .into_iter()
            .map(|i| self.rooted_index[i]);
        let anywhere = self
            .anywhere
            .matches(name)
            .into_iter()
            .map(|i| self.anywhere_index[i]);
        rooted.chain(anywhere).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(g: &[&str]) -> PathGlobs {
        PathGlobs::new(&g.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn segments_names_and_deep_globs() {
        let g = globs(&["docs/**", "*.md", "src/*.rs"]);
        for yes in [
            "docs/a/b.txt",
            "README.md",
            "deep/down/notes.md",
            "src/lib.rs",
            "/x.md",
        ] {
            assert!(g.matches(yes), "{yes}");
        }
        for no in ["src/a/lib.rs", "docsx/a", "src/lib.rsx", "md"] {
            assert!(!g.matches(no), "{no}");
        }
        assert!(!globs(&[]).matches("anything"));
    }

    #[test]
    fn the_first_matching_glob_is_named_by_its_place_in_the_list() {
        let g = globs(&["docs/**", "*.md", "CODEOWNERS", ".github/CODEOWNERS"]);
        assert_eq!(g.first_match("docs/a.md"), Some(0));
        assert_eq!(g.first_match("x/README.md"), Some(1));
        assert_eq!(g.first_match(".github/CODEOWNERS"), Some(2));
        assert_eq!(g.first_match("src/lib.rs"), None);
    }
}
