//! Branch globs: `*` stays inside one `/` segment, `**` crosses segments, `?` is one
//! character other than `/`; everything else is literal.

use regex::{Regex, RegexBuilder};

/// The anchored regex source for a glob.
pub fn to_regex_source(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() + 8);
    out.push_str("^(?:");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push_str(".*");
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            c => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out.push_str(")$");
    out
}

/// A full-match regex from a user regex (anchoring it without changing its meaning).
pub fn anchored(user_regex: &str) -> String {
    format!("^(?:{user_regex})$")
}

pub fn compile(source: &str, case_sensitive: bool) -> Result<Regex, regex::Error> {
    RegexBuilder::new(source)
        .case_insensitive(!case_sensitive)
        // Policies are small; a cap keeps a hostile pattern from eating memory.
        .size_limit(1 << 20)
        .build()
}

/// How a glob reads in advice: `release/*` → `release/<name>`.
pub fn template(glob: &str) -> String {
    glob.replace("**", "<path>").replace('*', "<name>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, name: &str) -> bool {
        compile(&to_regex_source(glob), true)
            .unwrap()
            .is_match(name)
    }

    #[test]
    fn single_star_stays_in_one_segment() {
        assert!(m("release/*", "release/v1"));
        assert!(!m("release/*", "release/v1/hotfix"));
        assert!(!m("release/*", "xrelease/v1"));
        assert!(m("feature/*/PBI-*", "feature/devops/PBI-12-login"));
        assert!(!m("feature/*/PBI-*", "feature/a/b/PBI-12-login"));
    }

    #[test]
    fn double_star_crosses_segments() {
        assert!(m("dependabot/**", "dependabot/npm_and_yarn/lodash-4.17.21"));
        assert!(m("**", "any/thing"));
        assert!(!m("dependabot/**", "renovate/x"));
    }

    #[test]
    fn everything_else_is_literal() {
        assert!(m("v1.0", "v1.0"));
        assert!(!m("v1.0", "v1x0"));
        assert!(m("a+b(c)", "a+b(c)"));
        assert!(m("re?", "rel"));
        assert!(!m("re?", "re/"));
    }

    #[test]
    fn case_sensitivity_is_a_switch() {
        let re = compile(&to_regex_source("Feature/*"), false).unwrap();
        assert!(re.is_match("feature/x"));
        let re = compile(&to_regex_source("Feature/*"), true).unwrap();
        assert!(!re.is_match("feature/x"));
    }

    #[test]
    fn user_regexes_must_match_the_whole_name() {
        let re = compile(&anchored("release/v\\d+|main"), true).unwrap();
        assert!(re.is_match("release/v2"));
        assert!(re.is_match("main"));
        assert!(!re.is_match("release/v2-x"));
        assert!(!re.is_match("xmain"));
    }

    #[test]
    fn templates_for_advice() {
        assert_eq!(template("feature/*/PBI-*"), "feature/<name>/PBI-<name>");
        assert_eq!(template("bots/**"), "bots/<path>");
    }
}
