//! Markdown helpers shared by the `<agent-state>` reader, the review gate and the
//! ASSISTANT_CONTEXT validator.
//!
//! This is not a Markdown renderer. It classifies lines the way GitHub's CommonMark
//! would, closely enough to answer "is this offset inside code, a quote or an HTML
//! comment?", and it counts task-list items. Known simplifications: code spans and
//! HTML comments are recognised on prose lines only, code spans do not span lines,
//! and list nesting is approximated (an indented line inside a list is never code).

use std::collections::{HashMap, VecDeque};
use std::ops::Range;

// Kept under their old paths; the definitions live in `chars`, below this module and
// `render::text` alike.
pub use crate::chars::{is_hidden_char, normalize_newlines, show_hidden};

/// Drops a leading byte-order mark, which some editors and API clients keep.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// What a line is, for the purposes of finding blocks and counting tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Blank,
    /// Paragraph text, headings, list items, bare HTML.
    Text,
    /// A `>` line, or a lazy continuation of a quoted paragraph.
    Quote,
    IndentedCode,
    FenceOpen,
    FenceContent,
    FenceClose,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Byte range of the line, without its newline.
    pub range: Range<usize>,
    pub kind: LineKind,
    /// Index into [`Layout::fences`] for fence lines.
    pub fence: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// Where the opening line starts.
    pub opening: usize,
    /// Bytes between the opening line and the closing line (or the end of the text
    /// when the fence is never closed, as CommonMark does).
    pub content: Range<usize>,
}

/// Where an offset sits in a Markdown document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Context {
    Prose,
    Fenced { content: Range<usize> },
    FenceMarker,
    Quote,
    IndentedCode,
    HtmlComment,
    CodeSpan,
}

/// Line classification of one LF-normalized document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub lines: Vec<Line>,
    pub fences: Vec<Fence>,
    /// Sorted, non-overlapping byte ranges of `<!-- … -->` comments.
    pub html_comments: Vec<Range<usize>>,
    /// Sorted, non-overlapping byte ranges of inline code spans.
    pub code_spans: Vec<Range<usize>>,
    text_len: usize,
}

impl Layout {
    /// Classifies `text`, which should already be LF-normalized.
    pub fn of(text: &str) -> Layout {
        let mut builder = Builder {
            layout: Layout {
                text_len: text.len(),
                ..Layout::default()
            },
            ..Builder::default()
        };
        let mut start = 0usize;
        for line in text.split('\n') {
            let end = start + line.len();
            builder.push_line(text, start..end);
            start = end + 1;
        }
        builder.finish()
    }

    pub fn context_at(&self, offset: usize) -> Context {
        if contains(&self.html_comments, offset) {
            return Context::HtmlComment;
        }
        if contains(&self.code_spans, offset) {
            return Context::CodeSpan;
        }
        let Some(line) = self.line_at(offset) else {
            return Context::Prose;
        };
        match line.kind {
            LineKind::Blank | LineKind::Text => Context::Prose,
            LineKind::Quote => Context::Quote,
            LineKind::IndentedCode => Context::IndentedCode,
            LineKind::FenceOpen | LineKind::FenceClose => Context::FenceMarker,
            LineKind::FenceContent => match line.fence.and_then(|i| self.fences.get(i)) {
                Some(fence) => Context::Fenced {
                    content: fence.content.clone(),
                },
                None => Context::FenceMarker,
            },
        }
    }

    /// Where prose that contains `offset` stops: at the next fence, or the end.
    pub fn prose_end(&self, offset: usize) -> usize {
        let next = self.fences.partition_point(|f| f.opening <= offset);
        self.fences.get(next).map_or(self.text_len, |f| f.opening)
    }

    fn line_at(&self, offset: usize) -> Option<&Line> {
        let after = self.lines.partition_point(|l| l.range.start <= offset);
        after.checked_sub(1).and_then(|i| self.lines.get(i))
    }
}

fn contains(ranges: &[Range<usize>], offset: usize) -> bool {
    let after = ranges.partition_point(|r| r.start <= offset);
    after
        .checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|r| r.contains(&offset))
}

#[derive(Clone, Copy)]
struct OpenFence {
    marker: u8,
    len: usize,
    index: usize,
}

#[derive(Default)]
struct Builder {
    layout: Layout,
    open_fence: Option<OpenFence>,
    open_comment: Option<usize>,
    previous: Option<LineKind>,
    lazy_quote: bool,
    in_list: bool,
}

impl Builder {
    fn push_line(&mut self, text: &str, range: Range<usize>) {
        let line = text.get(range.clone()).unwrap_or("");
        let (kind, fence) = self.classify(text, line, range.clone());
        self.previous = Some(kind);
        self.layout.lines.push(Line { range, kind, fence });
    }

    fn classify(
        &mut self,
        text: &str,
        line: &str,
        range: Range<usize>,
    ) -> (LineKind, Option<usize>) {
        if let Some(start) = self.open_comment {
            if let Some(found) = line.find("-->") {
                let end = range.start + found + 3;
                self.layout.html_comments.push(start..end);
                self.open_comment = None;
                self.scan_inline(text, end..range.end);
            }
            return (LineKind::Text, None);
        }
        if let Some(open) = self.open_fence {
            if closes_fence(line, open) {
                self.open_fence = None;
                if let Some(fence) = self.layout.fences.get_mut(open.index) {
                    fence.content.end = range.start;
                }
                return (LineKind::FenceClose, Some(open.index));
            }
            return (LineKind::FenceContent, Some(open.index));
        }
        let (columns, rest) = indentation(line);
        if rest.is_empty() {
            self.lazy_quote = false;
            return (LineKind::Blank, None);
        }
        let previous = self.previous;
        if columns >= 4 {
            if previous == Some(LineKind::Quote) && self.lazy_quote {
                return (LineKind::Quote, None);
            }
            if previous != Some(LineKind::Text) && !self.in_list {
                return (LineKind::IndentedCode, None);
            }
        }
        if columns <= 3 {
            if let Some(after) = rest.strip_prefix('>') {
                self.in_list = false;
                self.lazy_quote = !after.trim().is_empty();
                return (LineKind::Quote, None);
            }
            if let Some((marker, len)) = opens_fence(rest) {
                if columns < 2 {
                    self.in_list = false;
                }
                let index = self.layout.fences.len();
                let content_start = (range.end + 1).min(self.layout.text_len);
                self.layout.fences.push(Fence {
                    opening: range.start,
                    content: content_start..self.layout.text_len,
                });
                self.open_fence = Some(OpenFence { marker, len, index });
                return (LineKind::FenceOpen, Some(index));
            }
        }
        let is_list_item = list_item_rest(rest).is_some();
        let interrupts = is_list_item || rest.starts_with('#');
        if previous == Some(LineKind::Quote) && self.lazy_quote && !interrupts {
            return (LineKind::Quote, None);
        }
        self.lazy_quote = false;
        if is_list_item {
            self.in_list = true;
        } else if columns == 0 && previous == Some(LineKind::Blank) {
            self.in_list = false;
        }
        self.scan_inline(text, range);
        (LineKind::Text, None)
    }

    /// Records code spans and HTML comments that start in `range` (one prose line).
    fn scan_inline(&mut self, text: &str, range: Range<usize>) {
        let bytes = text.as_bytes();
        let mut runs = BacktickRuns::of(bytes, range.clone());
        let mut i = range.start;
        while i < range.end {
            match bytes.get(i) {
                Some(b'`') => {
                    let run = run_length(bytes, i, b'`', range.end);
                    match runs.closer(i, run) {
                        Some(close) => {
                            self.layout.code_spans.push(i..close + run);
                            i = close + run;
                        }
                        None => i += run,
                    }
                }
                Some(b'<') if bytes.get(i + 1..i + 4) == Some(b"!--") => {
                    let body = i + 4;
                    // `<!-->` and `<!--->` are complete, empty comments.
                    let empty_end = if bytes.get(body) == Some(&b'>') {
                        Some(body + 1)
                    } else if bytes.get(body..body + 2) == Some(b"->") {
                        Some(body + 2)
                    } else {
                        None
                    };
                    if let Some(end) = empty_end {
                        self.layout.html_comments.push(i..end);
                        i = end;
                        continue;
                    }
                    match text.get(body..).and_then(|rest| rest.find("-->")) {
                        Some(found) if body + found < range.end => {
                            let end = body + found + 3;
                            self.layout.html_comments.push(i..end);
                            i = end;
                        }
                        _ => {
                            self.open_comment = Some(i);
                            return;
                        }
                    }
                }
                _ => i += 1,
            }
        }
    }

    fn finish(mut self) -> Layout {
        if let Some(start) = self.open_comment {
            self.layout.html_comments.push(start..self.layout.text_len);
        }
        self.layout
    }
}

fn run_length(bytes: &[u8], start: usize, byte: u8, limit: usize) -> usize {
    bytes
        .get(start..limit)
        .map_or(0, |rest| rest.iter().take_while(|&&b| b == byte).count())
}

/// Backtick runs of one line grouped by length, so that finding the closer of every
/// opener costs linear time even on a line of hostile, unmatched runs.
struct BacktickRuns {
    by_len: HashMap<usize, VecDeque<usize>>,
}

impl BacktickRuns {
    fn of(bytes: &[u8], range: Range<usize>) -> Self {
        let mut by_len: HashMap<usize, VecDeque<usize>> = HashMap::new();
        let mut i = range.start;
        while i < range.end {
            let run = run_length(bytes, i, b'`', range.end);
            if run > 0 {
                by_len.entry(run).or_default().push_back(i);
                i += run;
            } else {
                i += 1;
            }
        }
        BacktickRuns { by_len }
    }

    /// The start of the next run of exactly `len` backticks after the run at `start`.
    fn closer(&mut self, start: usize, len: usize) -> Option<usize> {
        let queue = self.by_len.get_mut(&len)?;
        while queue.front().is_some_and(|&at| at <= start) {
            queue.pop_front();
        }
        queue.front().copied()
    }
}

/// Leading indentation in columns (tabs stop every 4) and the rest of the line.
fn indentation(line: &str) -> (usize, &str) {
    let mut columns = 0;
    for (index, c) in line.char_indices() {
        match c {
            ' ' => columns += 1,
            '\t' => columns += 4 - columns % 4,
            _ => return (columns, line.get(index..).unwrap_or("")),
        }
    }
    (columns, "")
}

fn opens_fence(rest: &str) -> Option<(u8, usize)> {
    let marker = *rest.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let len = run_length(rest.as_bytes(), 0, marker, rest.len());
    if len < 3 {
        return None;
    }
    let info = rest.get(len..).unwrap_or("");
    if marker == b'`' && info.contains('`') {
        return None;
    }
    Some((marker, len))
}

fn closes_fence(line: &str, open: OpenFence) -> bool {
    let (columns, rest) = indentation(line);
    let len = run_length(rest.as_bytes(), 0, open.marker, rest.len());
    columns <= 3
        && len >= open.len
        && rest
            .get(len..)
            .is_some_and(|tail| tail.trim_matches([' ', '\t']).is_empty())
}

/// For a list item line (after indentation), the text after its marker.
fn list_item_rest(rest: &str) -> Option<&str> {
    let bytes = rest.as_bytes();
    let marker_len = match bytes.first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            match bytes.get(digits) {
                Some(b'.' | b')') if digits <= 9 => digits + 1,
                _ => return None,
            }
        }
        _ => return None,
    };
    let after = rest.get(marker_len..)?;
    let content = after.trim_start_matches([' ', '\t']);
    (content.len() < after.len() || after.is_empty()).then_some(content)
}

/// Checked and total task-list items of a Markdown document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskCount {
    pub checked: usize,
    pub total: usize,
}

impl TaskCount {
    /// `floor(100 × checked / total)`; 0 when there are no items.
    pub fn percent(self) -> u8 {
        if self.total == 0 {
            return 0;
        }
        let percent = self.checked.saturating_mul(100) / self.total;
        u8::try_from(percent.min(100)).unwrap_or(100)
    }
}

/// Counts `- [ ]`, `* [x]`, `+ [X]`, `1. [ ]`, `1) [x]` items, nested or quoted, but not
/// inside code blocks or HTML comments.
pub fn count_tasks(markdown: &str) -> TaskCount {
    let text = normalize_newlines(strip_bom(markdown));
    let layout = Layout::of(&text);
    let mut count = TaskCount::default();
    for line in &layout.lines {
        let content = match line.kind {
            LineKind::Text => text.get(line.range.clone()),
            LineKind::Quote => text.get(line.range.clone()).map(strip_quote_markers),
            _ => None,
        };
        let Some(content) = content else { continue };
        let (_, rest) = indentation(content);
        let marker_offset = line.range.end - rest.len();
        if contains(&layout.html_comments, marker_offset) {
            continue;
        }
        if let Some(checked) = list_item_rest(rest).and_then(task_box) {
            count.total += 1;
            count.checked += usize::from(checked);
        }
    }
    count
}

/// An open (`[ ]`) task-list item of the document itself: a real list item, not one in
/// a code block, a quote or an HTML comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTask {
    /// 1-based line number.
    pub line: usize,
    /// The item's text after the box.
    pub text: String,
}

pub fn open_tasks(markdown: &str) -> Vec<OpenTask> {
    let text = normalize_newlines(strip_bom(markdown));
    let layout = Layout::of(&text);
    let mut open = Vec::new();
    for (index, line) in layout.lines.iter().enumerate() {
        if line.kind != LineKind::Text {
            continue;
        }
        let Some(content) = text.get(line.range.clone()) else {
            continue;
        };
        let (_, rest) = indentation(content);
        if contains(&layout.html_comments, line.range.end - rest.len()) {
            continue;
        }
        if let Some(item) = list_item_rest(rest)
            && task_box(item) == Some(false)
        {
            open.push(OpenTask {
                line: index + 1,
                // `task_box` matched three ASCII bytes: `get` cannot fail.
                text: item.get(3..).unwrap_or_default().trim().to_string(),
            });
        }
    }
    open
}

fn strip_quote_markers(line: &str) -> &str {
    let mut rest = line;
    loop {
        let (columns, after) = indentation(rest);
        match after.strip_prefix('>') {
            Some(inner) if columns <= 3 => rest = inner.strip_prefix(' ').unwrap_or(inner),
            _ => return rest,
        }
    }
}

/// `Some(checked)` when the item text starts with a task box followed by a space or
/// the end of the line.
fn task_box(item: &str) -> Option<bool> {
    let bytes = item.as_bytes();
    let checked = match bytes.get(..3)? {
        b"[ ]" => false,
        b"[x]" | b"[X]" => true,
        _ => return None,
    };
    match bytes.get(3) {
        None | Some(b' ' | b'\t') => Some(checked),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_tasks_are_real_list_items_only() {
        let body = "- [ ] write tests\n- [x] done\n> - [ ] quoted\n```\n- [ ] code\n```\n<!-- - [ ] hidden -->\n1. [ ] numbered\n* [ ]\n";
        let open: Vec<(usize, String)> = open_tasks(body)
            .into_iter()
            .map(|t| (t.line, t.text))
            .collect();
        assert_eq!(
            open,
            [
                (1, "write tests".to_string()),
                (8, "numbered".to_string()),
                (9, String::new())
            ]
        );
    }

    fn context_of(text: &str, needle: &str) -> Context {
        let offset = text.find(needle).unwrap_or(usize::MAX);
        Layout::of(text).context_at(offset)
    }

    #[test]
    fn bom_is_stripped_once() {
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("x"), "x");
    }

    #[test]
    fn fences_are_found_with_backticks_and_tildes() {
        let text = "a\n```xml\nIN1\n```\n~~~~\nIN2\n~~~\nstill\n~~~~\nout";
        assert!(matches!(context_of(text, "IN1"), Context::Fenced { .. }));
        assert!(matches!(context_of(text, "IN2"), Context::Fenced { .. }));
        assert!(matches!(context_of(text, "still"), Context::Fenced { .. }));
        assert_eq!(context_of(text, "out"), Context::Prose);
    }

    #[test]
    fn a_longer_fence_is_not_closed_by_a_shorter_run() {
        let text = "````\n```\nIN\n````\nout";
        assert!(matches!(context_of(text, "IN"), Context::Fenced { .. }));
        assert_eq!(context_of(text, "out"), Context::Prose);
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let text = "```\nIN";
        let Context::Fenced { content } = context_of(text, "IN") else {
            panic!("not fenced");
        };
        assert_eq!(content, 4..6);
    }

    #[test]
    fn backtick_fence_info_may_not_hold_backticks() {
        assert_eq!(context_of("``` a`b\nIN", "IN"), Context::Prose);
    }

    #[test]
    fn quotes_and_lazy_continuations_are_quotes() {
        let text = "> quoted\nlazy\n\nfree";
        assert_eq!(context_of(text, "quoted"), Context::Quote);
        assert_eq!(context_of(text, "lazy"), Context::Quote);
        assert_eq!(context_of(text, "free"), Context::Prose);
        assert_eq!(context_of(">\nnot lazy", "not"), Context::Prose);
    }

    #[test]
    fn a_quote_inside_a_fence_is_fenced() {
        assert!(matches!(
            context_of("```\n> IN\n```", "IN"),
            Context::Fenced { .. }
        ));
    }

    #[test]
    fn indented_code_needs_a_blank_line_before_it() {
        assert_eq!(context_of("para\n\n    IN", "IN"), Context::IndentedCode);
        assert_eq!(context_of("    IN", "IN"), Context::IndentedCode);
        assert_eq!(context_of("para\n    IN", "IN"), Context::Prose);
        assert_eq!(context_of("\tIN", "IN"), Context::IndentedCode);
        assert_eq!(context_of("- item\n\n    IN", "IN"), Context::Prose);
    }

    #[test]
    fn html_comments_hide_text_across_lines() {
        let text = "a <!-- IN1 --> b\n<!--\nIN2\n-->\nout <!-- IN3";
        assert_eq!(context_of(text, "IN1"), Context::HtmlComment);
        assert_eq!(context_of(text, "IN2"), Context::HtmlComment);
        assert_eq!(context_of(text, "out"), Context::Prose);
        assert_eq!(context_of(text, "IN3"), Context::HtmlComment);
        assert_eq!(context_of("<!--> out", "out"), Context::Prose);
    }

    #[test]
    fn code_spans_are_found() {
        let text = "see `` IN ` `` and ` plain";
        assert_eq!(context_of(text, "IN"), Context::CodeSpan);
        assert_eq!(context_of(text, "plain"), Context::Prose);
    }

    #[test]
    fn unmatched_backtick_runs_stay_linear() {
        let line: String = (1..3_000).map(|n| "`".repeat(n) + "a").collect();
        let layout = Layout::of(&line);
        assert!(layout.code_spans.is_empty());
        // The first run pairs with its twin in the second copy and swallows the rest.
        let paired = format!("{line}{line}");
        assert_eq!(Layout::of(&paired).code_spans.len(), 1);
    }

    #[test]
    fn prose_ends_at_the_next_fence() {
        let text = "a\nb\n```\nc\n```";
        let layout = Layout::of(text);
        assert_eq!(layout.prose_end(0), 4);
        assert_eq!(layout.prose_end(13), text.len());
    }

    #[test]
    fn tasks_are_counted_outside_code() {
        let text = "- [ ] a\n* [x] b\n+ [X] c\n1. [ ] d\n2) [x] e\n  - [x] nested\n\
                    > - [ ] quoted\n```\n- [x] code\n```\n\n    - [x] indented code\n\
                    <!--\n- [x] hidden\n-->\n-[x] no space\n- [x]no space\n- [y] other\n- [ ]";
        assert_eq!(
            count_tasks(text),
            TaskCount {
                checked: 4,
                total: 8
            }
        );
    }

    #[test]
    fn task_percent_is_floored() {
        let percent = |checked, total| TaskCount { checked, total }.percent();
        assert_eq!(percent(0, 0), 0);
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(2, 3), 66);
        assert_eq!(percent(3, 3), 100);
        assert_eq!(count_tasks("no items").percent(), 0);
        assert_eq!(count_tasks("- [x] a\r\n- [ ] b\r\n- [ ] c").percent(), 33);
    }
}
