//! Finding `<agent-state>` blocks in a Markdown comment body.
//!
//! Rules:
//! - A block counts when its opening tag sits in prose (a "bare" block) or inside a
//!   fenced code block of any info string. It does not count inside a blockquote
//!   (a quote reply is someone else's stale state), an indented code block, an HTML
//!   comment or an inline code span (`` `<agent-state>` `` is a mention).
//! - A fenced block must close inside its fence; a bare block must close before the
//!   next fence. Otherwise it is reported as unclosed.
//! - `&lt;agent-state&gt;` is a mention, not a block, and is not reported.
//! - A tag name must be followed by `>`, `/` or whitespace: `<agent-state\u{200b}>`
//!   and `<agent\u{200b}-state>` are not tags.
//! - Several blocks in one comment: the last valid one wins. Candidates are parsed
//!   from the last one backwards and the scan stops at the first valid one, so a
//!   comment stuffed with blocks costs one pass plus the blocks after the winner.
//!
//! The scan first looks for the literal `<agent-state` with a plain substring search
//! (`str::contains`, vectorized by `core` on x86-64) and classifies Markdown lines
//! only in the rare comments that contain it.
//!
//! Also decided here: a quote's lazy continuation (a line right after a `>` line,
//! without a blank line) is part of the quote, as on GitHub; a bare block whose
//! closing tag sits inside an HTML comment within the block reads as malformed.

use std::borrow::Cow;
use std::ops::Range;

use crate::agent_state::error::{BlockError, MAX_BLOCK_BYTES};
use crate::agent_state::lenient::Mend;
use crate::agent_state::model::AgentState;
use crate::agent_state::parse::read_block;
use crate::chars::normalize_newlines;
use crate::markdown::{Context, Layout, strip_bom};

const OPEN: &str = "<agent-state";
const CLOSE: &str = "</agent-state";

/// A block found in a comment, or the reason it can never parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockSpan {
    /// Byte range in the normalized body (see [`normalize_body`]).
    pub range: Range<usize>,
    pub fenced: bool,
    pub defect: Option<BlockError>,
}

/// What one comment holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommentScan {
    /// The last valid block.
    pub state: Option<AgentState>,
    /// Blocks found (valid or not) in places that count.
    pub blocks: usize,
    /// Malformed blocks after the chosen one (or all of them when none is valid).
    pub skipped: usize,
    /// The error of the last skipped block in document order.
    pub newest_error: Option<BlockError>,
    /// What the chosen block left unescaped and was read as text anyway.
    pub mends: Vec<Mend>,
}

/// A cheap test that rules out almost every comment.
pub fn may_hold_block(body: &str) -> bool {
    body.contains(OPEN)
}

/// Drops a leading BOM and turns CRLF/CR into LF; offsets in [`BlockSpan`] refer to this.
pub fn normalize_body(body: &str) -> Cow<'_, str> {
    normalize_newlines(strip_bom(body))
}

/// Reads the last valid block of a comment.
pub fn scan_comment(body: &str) -> CommentScan {
    let mut scan = CommentScan::default();
    if !may_hold_block(body) {
        return scan;
    }
    let text = normalize_body(body);
    let spans = locate_blocks(&text);
    scan.blocks = spans.len();
    for span in spans.iter().rev() {
        let parsed = match &span.defect {
            Some(defect) => Err(defect.clone()),
            None => text
                .get(span.range.clone())
                .ok_or(BlockError::Unclosed)
                .and_then(read_block),
        };
        match parsed {
            Ok(read) => {
                scan.state = Some(read.state);
                scan.mends = read.mends;
                break;
            }
            Err(error) => {
                scan.skipped += 1;
                scan.newest_error.get_or_insert(error);
            }
        }
    }
    scan
}

/// Blocks in places that count, without parsing them (for untrusted comments).
pub fn count_blocks(body: &str) -> usize {
    if !may_hold_block(body) {
        return 0;
    }
    locate_blocks(&normalize_body(body)).len()
}

#[derive(Clone, Copy)]
struct Tag {
    at: usize,
    open: bool,
}

/// Every block whose opening tag counts, in document order. `text` must be normalized.
pub fn locate_blocks(text: &str) -> Vec<BlockSpan> {
    let tags = tags(text);
    if !tags.iter().any(|t| t.open) {
        return Vec::new();
    }
    let layout = Layout::of(text);
    let mut spans = Vec::new();
    let mut index = 0;
    while let Some(tag) = tags.get(index).copied() {
        index += 1;
        if !tag.open {
            continue;
        }
        let (fenced, container_end) = match layout.context_at(tag.at) {
            Context::Prose => (false, layout.prose_end(tag.at)),
            Context::Fenced { content } => (true, content.end),
            _ => continue,
        };
        let span = match close_block(text, &tags, &mut index, tag.at, container_end) {
            Ok(end) => BlockSpan {
                range: tag.at..end,
                fenced,
                defect: (end - tag.at > MAX_BLOCK_BYTES).then_some(BlockError::TooLarge {
                    bytes: end - tag.at,
                    limit: MAX_BLOCK_BYTES,
                }),
            },
            Err(defect) => BlockSpan {
                range: tag.at..container_end,
                fenced,
                defect: Some(defect),
            },
        };
        spans.push(span);
    }
    spans
}

/// Every `<agent-state` and `</agent-state` that is a real tag name, in order.
fn tags(text: &str) -> Vec<Tag> {
    let is_tag_end = |at: usize| {
        matches!(
            text.as_bytes().get(at),
            Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
        )
    };
    let opens = text
        .match_indices(OPEN)
        .map(|(at, _)| Tag { at, open: true })
        .filter(|t| is_tag_end(t.at + OPEN.len()));
    let closes = text
        .match_indices(CLOSE)
        .map(|(at, _)| Tag { at, open: false })
        .filter(|t| is_tag_end(t.at + CLOSE.len()));
    let mut tags: Vec<Tag> = opens.chain(closes).collect();
    tags.sort_by_key(|t| t.at);
    tags
}

/// Finds the end of the block opened at `start`, consuming the tags inside it.
fn close_block(
    text: &str,
    tags: &[Tag],
    index: &mut usize,
    start: usize,
    container_end: usize,
) -> Result<usize, BlockError> {
    let skip_to = |index: &mut usize, end: usize| {
        while tags.get(*index).is_some_and(|t| t.at < end) {
            *index += 1;
        }
    };
    let Some((open_end, self_closing)) = open_tag_end(text, start, container_end) else {
        skip_to(index, container_end);
        return Err(BlockError::Unclosed);
    };
    skip_to(index, open_end);
    if self_closing {
        return Ok(open_end);
    }
    let (mut depth, mut nested) = (1usize, false);
    while let Some(tag) = tags.get(*index).copied() {
        if tag.at >= container_end {
            break;
        }
        *index += 1;
        if tag.open {
            nested = true;
            match open_tag_end(text, tag.at, container_end) {
                Some((end, true)) => skip_to(index, end),
                Some((end, false)) => {
                    skip_to(index, end);
                    depth += 1;
                }
                None => break,
            }
            continue;
        }
        depth -= 1;
        if depth == 0 {
            let end = text
                .get(tag.at..container_end)
                .and_then(|rest| rest.find('>'))
                .map_or(container_end, |gt| tag.at + gt + 1);
            skip_to(index, end);
            return if nested {
                Err(BlockError::Nested)
            } else {
                Ok(end)
            };
        }
    }
    skip_to(index, container_end);
    Err(BlockError::Unclosed)
}

/// The offset after the `>` of the tag starting at `start`, and whether it is `/>`.
/// Quoted attribute values may hold `>`.
fn open_tag_end(text: &str, start: usize, limit: usize) -> Option<(usize, bool)> {
    let bytes = text.as_bytes().get(..limit)?;
    let mut quote = None;
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some((i + 1, bytes.get(i - 1) == Some(&b'/'))),
            (None, b'<') => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "<agent-state><step>coding</step></agent-state>";

    fn step_of(body: &str) -> Option<String> {
        scan_comment(body).state.and_then(|s| s.step)
    }

    #[test]
    fn a_bare_block_counts() {
        assert_eq!(
            step_of(&format!("Summary\n\n{BLOCK}\n")),
            Some("coding".into())
        );
        assert_eq!(
            step_of(&format!("inline {BLOCK} text")),
            Some("coding".into())
        );
    }

    #[test]
    fn fenced_blocks_count_with_any_fence() {
        for (open, close) in [
            ("```xml", "```"),
            ("```", "````"),
            ("~~~", "~~~"),
            ("````xml", "````"),
            ("~~~ xml", "~~~~"),
        ] {
            let body = format!("Text\n{open}\n{BLOCK}\n{close}\nafter");
            assert_eq!(step_of(&body), Some("coding".into()), "{body}");
        }
    }

    #[test]
    fn quoted_indented_commented_and_code_span_blocks_do_not_count() {
        for body in [
            format!("> {BLOCK}"),
            format!("> ```xml\n> {BLOCK}\n> ```"),
            format!("intro\n\n    {BLOCK}"),
            format!("<!--\n{BLOCK}\n-->"),
            format!("text <!-- {BLOCK} -->"),
            format!("use `{BLOCK}`"),
            "&lt;agent-state&gt;&lt;step&gt;x&lt;/step&gt;&lt;/agent-state&gt;".to_owned(),
        ] {
            assert_eq!(scan_comment(&body), CommentScan::default(), "{body}");
        }
    }

    #[test]
    fn the_last_valid_block_wins() {
        let body = "<agent-state><step>one</step></agent-state>\n\
                    <agent-state><step>two</step></agent-state>\n\
                    <agent-state><progress>x</progress></agent-state>";
        let scan = scan_comment(body);
        assert_eq!(scan.state.and_then(|s| s.step), Some("two".into()));
        assert_eq!((scan.blocks, scan.skipped), (3, 1));
        assert!(matches!(
            scan.newest_error,
            Some(BlockError::Progress { .. })
        ));
    }

    #[test]
    fn crlf_bom_and_nbsp_are_tolerated() {
        let body = "\u{feff}Done.\r\n\r\n```xml\r\n<agent-state>\r\n\u{a0}\u{a0}<step>\u{a0}coding\r\n</step>\r\n\
                    <memory>{\"a\":\r\n 1}</memory>\r\n</agent-state>\r\n```\r\n";
        let state = scan_comment(body).state.expect("valid");
        assert_eq!(state.step.as_deref(), Some("coding"));
        assert_eq!(
            state.memory.map(|m| m.as_str().to_owned()),
            Some("{\"a\":\n 1}".into())
        );
    }

    #[test]
    fn a_block_must_close_inside_its_fence() {
        let body = "```xml\n<agent-state><step>x</step>\n```\n</agent-state>";
        let scan = scan_comment(body);
        assert_eq!(
            (scan.state, scan.newest_error),
            (None, Some(BlockError::Unclosed))
        );
    }

    #[test]
    fn nested_blocks_are_one_malformed_block() {
        let body =
            format!("<agent-state><agent-state><step>x</step></agent-state></agent-state>{BLOCK}");
        let spans = locate_blocks(&body);
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[0].defect, Some(BlockError::Nested));
        assert_eq!(step_of(&body), Some("coding".into()));
    }

    #[test]
    fn tags_need_a_real_name_boundary() {
        for body in [
            "<agent-state\u{200b}><step>x</step></agent-state>",
            "<agent\u{200b}-state><step>x</step></agent-state>",
            "<agent-states><step>x</step></agent-states>",
        ] {
            assert_eq!(scan_comment(body).blocks, 0, "{body}");
        }
        assert_eq!(
            step_of("<agent-state version=\"a>b\"><step>x</step></agent-state >"),
            Some("x".into())
        );
        assert_eq!(
            scan_comment("<agent-state/>").state,
            Some(AgentState::default())
        );
    }

    #[test]
    fn counting_skips_places_that_do_not_count() {
        assert_eq!(count_blocks(&format!("{BLOCK}\n> {BLOCK}\n\n{BLOCK}")), 2);
        // Without a blank line the last block continues the quoted paragraph.
        assert_eq!(count_blocks(&format!("{BLOCK}\n> {BLOCK}\n{BLOCK}")), 1);
        assert_eq!(count_blocks("no block"), 0);
    }

    #[test]
    fn the_chosen_block_reports_what_it_left_unescaped() {
        let body = "<agent-state><step>a & b</step></agent-state>\n\
                    <agent-state><step>c & d</step></agent-state>\n\
                    <agent-state><step>x</step><progress>x < y</progress></agent-state>";
        let scan = scan_comment(body);
        assert_eq!(scan.state.and_then(|s| s.step), Some("c & d".into()));
        assert_eq!(scan.mends.len(), 1);
        assert_eq!(scan.mends[0].element, "step");
        assert!(matches!(
            scan.newest_error,
            Some(BlockError::Progress { .. })
        ));
        assert_eq!(scan_comment(BLOCK).mends, []);
    }

    #[test]
    fn a_cut_open_tag_is_unclosed() {
        let scan = scan_comment("text <agent-state version=\"1");
        assert_eq!(scan.newest_error, Some(BlockError::Unclosed));
        let scan = scan_comment("<agent-state <step>");
        assert_eq!(scan.newest_error, Some(BlockError::Unclosed));
    }

    proptest::proptest! {
        #[test]
        fn scanning_never_panics(body in crate::agent_state::testing::hostile_text()) {
            let _ = scan_comment(&body);
            let _ = scan_comment(&format!("```\n{body}\n```\n{BLOCK}{body}"));
        }
    }
}
