//! Where the YAML of a file is: the whole file for `.yaml`/`.yml`, the front matter
//! between the first two delimiter lines for anything else (`ASSISTANT_CONTEXT.md`).
//!
//! Rules where RFC 0001 is silent:
//! - Front matter starts on the file's first line (after an optional BOM) with `---`
//!   and ends at the next line that is `---` or `...`; trailing spaces and tabs on
//!   either delimiter are allowed, and lines may end in LF or CRLF. Finding the end by
//!   searching for `"\n---\n"` (as the origin's tools did) breaks on CRLF.
//! - A Markdown file without front matter is a problem, not an empty context: the RFC's
//!   own template starts with prose, and calling that "no fields" would hide it.

use std::ops::Range;

use super::problem::At;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// YAML front matter, then a Markdown body.
    Markdown,
    /// The whole file is YAML.
    Yaml,
}

impl Format {
    pub fn of_path(path: &str) -> Format {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Format::Yaml
        } else {
            Format::Markdown
        }
    }
}

/// The parts of a file, as byte ranges of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub yaml: Range<usize>,
    /// The file line (1-based) on which `yaml` starts.
    pub yaml_first_line: usize,
    /// Everything after the closing delimiter line (Markdown only).
    pub body: Option<Range<usize>>,
    /// The file's line ending: the first one it uses, LF when it has none.
    pub newline: &'static str,
}

pub(crate) fn split(text: &str, format: Format) -> Result<Layout, (At, String)> {
    let newline = newline_of(text);
    match format {
        Format::Yaml => Ok(Layout {
            yaml: 0..text.len(),
            yaml_first_line: 1,
            body: None,
            newline,
        }),
        Format::Markdown => front_matter(text, newline),
    }
}

fn front_matter(text: &str, newline: &'static str) -> Result<Layout, (At, String)> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lines = Lines {
        text,
        offset: start,
    };
    let no_front_matter = || {
        (
            At { line: 1, column: 1 },
            "no YAML front matter: an ASSISTANT_CONTEXT.md starts with a line `---`, then the \
             fields, then a closing line `---`"
                .to_owned(),
        )
    };
    let Some((first, _, after_first)) = lines.next() else {
        return Err(no_front_matter());
    };
    if !is_delimiter(first, "---") {
        return Err(no_front_matter());
    }
    for (line, line_start, after) in lines {
        if is_delimiter(line, "---") || is_delimiter(line, "...") {
            return Ok(Layout {
                yaml: after_first..line_start,
                yaml_first_line: 2,
                body: Some(after..text.len()),
                newline,
            });
        }
    }
    Err((
        At { line: 1, column: 1 },
        "the front matter is not closed: add a line `---` after the fields".to_owned(),
    ))
}

fn is_delimiter(line: &str, mark: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r']) == mark
}

fn newline_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes().get(i - 1) == Some(&b'\r') => "\r\n",
        _ => "\n",
    }
}

/// Lines with the offset of their start and of the next line; the line's text keeps a
/// trailing `\r`.
struct Lines<'a> {
    text: &'a str,
    offset: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (&'a str, usize, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.offset..)?;
        if rest.is_empty() {
            return None;
        }
        let start = self.offset;
        let (line, advance) = match rest.find('\n') {
            Some(i) => (rest.get(..i).unwrap_or(""), i + 1),
            None => (rest, rest.len()),
        };
        self.offset += advance;
        Some((line, start, self.offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Result<(String, Option<String>), String> {
        split(text, Format::Markdown)
            .map(|l| {
                (
                    text[l.yaml.clone()].to_owned(),
                    l.body.map(|b| text[b].to_owned()),
                )
            })
            .map_err(|(_, m)| m)
    }

    #[test]
    fn front_matter_and_body() {
        assert_eq!(
            parts("---\nid: a\n---\n# Log\n"),
            Ok(("id: a\n".into(), Some("# Log\n".into())))
        );
        assert_eq!(
            parts("\u{feff}--- \r\nid: a\r\n...\r\nbody"),
            Ok(("id: a\r\n".into(), Some("body".into())))
        );
        assert_eq!(parts("---\n---"), Ok((String::new(), Some(String::new()))));
        assert!(parts("# Title\n---\nid: a\n---\n").is_err());
        assert!(parts("---\nid: a\n").unwrap_err().contains("not closed"));
        assert!(parts("").is_err());
        assert!(parts("----\nid: a\n---\n").is_err());
    }

    #[test]
    fn formats_and_newlines() {
        assert_eq!(Format::of_path("a/ASSISTANT_CONTEXT.yml"), Format::Yaml);
        assert_eq!(Format::of_path("ASSISTANT_CONTEXT.YAML"), Format::Yaml);
        assert_eq!(Format::of_path("ASSISTANT_CONTEXT.md"), Format::Markdown);
        assert_eq!(newline_of("a\r\nb\n"), "\r\n");
        assert_eq!(newline_of("a\nb\r\n"), "\n");
        assert_eq!(newline_of("\n"), "\n");
        assert_eq!(newline_of(""), "\n");
    }
}
