//! Path globs of the `review:` policy section. `*` stays inside one `/` segment, `**`
//! crosses segments, `?` is one character; a glob without `/` matches a file name at
//! any depth (`*.md` is every Markdown file), as in `.gitignore`.

use regex::RegexSet;

use crate::policy::glob::to_regex_source;

#[derive(Debug, Clone)]
pub struct PathGlobs {
    anywhere: RegexSet,
    rooted: RegexSet,
}

impl PathGlobs {
    pub fn new(globs: &[String]) -> Result<PathGlobs, regex::Error> {
        let (names, paths): (Vec<&String>, Vec<&String>) =
            globs.iter().partition(|g| !g.contains('/'));
        Ok(PathGlobs {
            anywhere: RegexSet::new(names.iter().map(|g| to_regex_source(g)))?,
            rooted: RegexSet::new(
                paths
                    .iter()
                    .map(|g| to_regex_source(g.trim_start_matches('/'))),
            )?,
        })
    }

    pub fn matches(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.rooted.is_match(path) || self.anywhere.is_match(name)
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
}
