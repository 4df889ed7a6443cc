//! Commit trailers as git reads them (`git log --format=%(trailers)`, git's trailer.c).
//!
//! The trailer block is the last paragraph of the message, after the title's paragraph
//! and a blank line, when it is made of trailers: either every line of it is one (or a
//! continuation of one), or, git's lenient rule, at least a quarter of its lines are and
//! one of them is git's own (`Signed-off-by: `, `(cherry picked from commit `). A
//! trailer is `Key: value` with a key of ASCII letters, digits and `-` (spaces or tabs
//! may stand before the `:`); a line that starts with a space or tab continues the
//! trailer above it, and the value is unfolded to one line. As git does for a commit
//! (no `---` divider), lines starting with `#` are comments, and trailing comments
//! and empty lines are not part of the message.
//!
//! Chosen over a stricter reading because it is what git, and the tools that write
//! trailers through it (`git commit --trailer`, `git interpret-trailers`), mean by a
//! trailer: a block that git lists is one we read. Two departures, both on input git
//! leaves alone: a CRLF line ending counts as LF (GitHub keeps what a client sent),
//! and at most [`MAX_TRAILERS`] trailers of a block are returned (the rest counted).
//! Not modelled: git's per-repository trailer configuration (`trailer.<key>.key`,
//! `trailer.separators`), the scissors line of `commit -v` and the old `Conflicts:`
//! block, none of which a commit read from GitHub carries.
//!
//! Every step is linear in the message: the title is read forward to its end, the
//! block backward from the end to its blank line, and each line once more.

use std::borrow::Cow;

/// Trailers returned per message; a block with more has the rest counted in
/// [`TrailerBlock::unread`] (honest messages carry a handful).
pub const MAX_TRAILERS: usize = 100;

/// One `Key: value` trailer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trailer<'a> {
    /// The key as written (`Co-Authored-By`).
    pub key: &'a str,
    /// The value, trimmed, continuation lines unfolded into one line with single spaces.
    pub value: Cow<'a, str>,
}

/// A message's trailers, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrailerBlock<'a> {
    pub trailers: Vec<Trailer<'a>>,
    /// Trailers past [`MAX_TRAILERS`], not returned.
    pub unread: usize,
}

/// git's `isspace`: space, tab, line feed and carriage return (not `\v` or `\f`).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| is_space(*b))
}

fn is_comment(line: &[u8]) -> bool {
    line.first() == Some(&b'#')
}

/// The lines git counts as trailers whatever their shape.
const GIT_PREFIXES: [&[u8]; 2] = [b"Signed-off-by: ", b"(cherry picked from commit "];

/// Where the `:` of a `Key: value` line is: after a key of letters, digits and `-`,
/// with spaces or tabs allowed between key and `:` (git's `find_separator`). A `:` first
/// is position 0, which is no trailer (its key would be empty).
fn separator(line: &[u8]) -> Option<usize> {
    let mut whitespace = false;
    for (i, &c) in line.iter().enumerate() {
        if c == b':' {
            return Some(i);
        }
        if !whitespace && (c.is_ascii_alphanumeric() || c == b'-') {
            continue;
        }
        if i != 0 && (c == b' ' || c == b'\t') {
            whitespace = true;
            continue;
        }
        break;
    }
    None
}

/// A line that opens a trailer: a key, then `:`.
fn opens_trailer(line: &[u8]) -> Option<usize> {
    separator(line).filter(|at| *at >= 1 && !line.first().is_some_and(|b| is_space(*b)))
}

/// The message's lines as byte ranges (without the line feed; a CR before it dropped).
struct Lines<'a> {
    text: &'a [u8],
}

impl<'a> Lines<'a> {
    /// The line starting at `start`: its content and where the next one starts.
    fn at(&self, start: usize, end: usize) -> (&'a [u8], usize) {
        let rest = &self.text[start..end];
        match rest.iter().position(|b| *b == b'\n') {
            Some(nl) => (strip_cr(&rest[..nl]), start + nl + 1),
            None => (strip_cr(rest), end),
        }
    }

    /// The start of the line before the one that starts at `start` (git's `last_line`:
    /// a line feed that ends the text belongs to the last line).
    fn before(&self, start: usize) -> Option<usize> {
        if start == 0 {
            return None;
        }
        let before = &self.text[..start - 1];
        Some(
            before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |nl| nl + 1),
        )
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The end of the log message: trailing empty and comment lines are not part of it
/// (git's `ignored_log_message_bytes`).
fn end_of_message(lines: &Lines) -> usize {
    let len = lines.text.len();
    let mut start = 0;
    let mut trailing: Option<usize> = None;
    while start < len {
        let (line, next) = lines.at(start, len);
        if line.is_empty() || is_comment(line) {
            trailing.get_or_insert(start);
        } else {
            trailing = None;
        }
        start = next;
    }
    trailing.unwrap_or(len)
}

/// Where the trailer block starts, if the message has one (git's
/// `find_trailer_block_start`).
fn block_start(lines: &Lines, end: usize) -> Option<usize> {
    // The first paragraph is the title and cannot hold trailers.
    let mut end_of_title = end;
    let mut start = 0;
    while start < end {
        let (line, next) = lines.at(start, end);
        if !is_comment(line) && is_blank(line) {
            end_of_title = start;
            break;
        }
        start = next;
    }
    let mut only_spaces = true;
    let mut recognized_prefix = false;
    let (mut trailer_lines, mut non_trailer_lines) = (0usize, 0usize);
    // Lines that start with whitespace: a trailer's continuation if one stands above
    // them, else lines of prose.
    let mut possible_continuation = 0usize;
    let mut at = (end > 0).then(|| last_line_start(lines.text, end));
    while let Some(l) = at.filter(|l| *l >= end_of_title) {
        let (line, _) = lines.at(l, end);
        if is_comment(line) {
            non_trailer_lines += possible_continuation;
            possible_continuation = 0;
        } else if is_blank(line) {
            if !only_spaces {
                non_trailer_lines += possible_continuation;
                let start = lines.at(l, end).1;
                if recognized_prefix && trailer_lines * 3 >= non_trailer_lines {
                    return Some(start);
                }
                if trailer_lines > 0 && non_trailer_lines == 0 {
                    return Some(start);
                }
                return None;
            }
        } else {
            only_spaces = false;
            if GIT_PREFIXES.iter().any(|p| line.starts_with(p)) {
                trailer_lines += 1;
                possible_continuation = 0;
                recognized_prefix = true;
            } else if opens_trailer(line).is_some() {
                trailer_lines += 1;
                possible_continuation = 0;
            } else if is_space(line[0]) {
                possible_continuation += 1;
            } else {
                non_trailer_lines += 1 + possible_continuation;
                possible_continuation = 0;
            }
        }
        at = lines.before(l);
    }
    None
}

/// The start of the last line of `text[..end]` (a final line feed belongs to it).
fn last_line_start(text: &[u8], end: usize) -> usize {
    if end <= 1 {
        return 0;
    }
    text[..end - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |nl| nl + 1)
}

/// The trailers of a commit message, by git's rule (see the module's documentation).
/// Never panics, whatever the text; linear in its length.
pub fn parse(message: &str) -> TrailerBlock<'_> {
    let lines = Lines {
        text: message.as_bytes(),
    };
    let end = end_of_message(&lines);
    let Some(start) = block_start(&lines, end) else {
        return TrailerBlock::default();
    };
    let mut block = TrailerBlock::default();
    // The open trailer: its key, its first line's value, and its continuation lines.
    let mut open: Option<(&str, &str, Vec<&str>)> = None;
    let mut at = start;
    while at < end {
        let (line, next) = lines.at(at, end);
        // A line's bounds are where `\n` bytes are (ASCII): char boundaries.
        let text = message.get(at..at + line.len()).unwrap_or_default();
        at = next;
        if open.is_some() && line.first().is_some_and(|b| is_space(*b)) {
            if let Some((_, _, more)) = open.as_mut() {
                more.push(text);
            }
            continue;
        }
        if let Some(done) = open.take() {
            push(&mut block, done);
        }
        if is_comment(line) {
            continue;
        }
        if let Some(sep) = opens_trailer(line) {
            // `sep` is where a `:` (or a configured ASCII separator) is: a char boundary.
            let (key, value) = text.split_at_checked(sep).unwrap_or((text, ""));
            open = Some((
                key.trim_end_matches([' ', '\t']),
                value.get(1..).unwrap_or_default(),
                Vec::new(),
            ));
        }
    }
    if let Some(done) = open.take() {
        push(&mut block, done);
    }
    block
}

fn push<'a>(block: &mut TrailerBlock<'a>, (key, first, more): (&'a str, &'a str, Vec<&'a str>)) {
    if block.trailers.len() == MAX_TRAILERS {
        block.unread += 1;
        return;
    }
    let value = if more.is_empty() {
        Cow::Borrowed(trim(first))
    } else {
        let mut joined = String::from(first);
        for line in more {
            joined.push('\n');
            joined.push_str(line);
        }
        Cow::Owned(unfold(trim(&joined)))
    };
    block.trailers.push(Trailer { key, value });
}

fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

/// git's `unfold_value`: each line break and the whitespace after it become one space.
fn unfold(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            while chars
                .next_if(|c| c.is_ascii() && is_space(*c as u8))
                .is_some()
            {}
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    trim(&out).to_string()
}

#[cfg(test)]
mod tests;
