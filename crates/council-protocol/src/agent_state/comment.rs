//! The comment `state put` posts: a human summary first, then the block in a fenced
//! `xml` code block, then a hidden marker with the caller's run key so that a re-run
//! can find its own comment instead of posting twice.
//!
//! The comment never exceeds GitHub's 65,536 code points: the caller's summary is cut
//! first (to [`SUMMARY_MAX_CHARS`]), then `memory` is compacted (see
//! [`crate::agent_state::compact`]: key fields of every item first, no value shortened,
//! what was left out counted) and the summary says what was left out. Other
//! fields are never altered; if they alone are too long the caller gets an error.
//!
//! The fence is a run of backticks longer than any run inside the block, so no line
//! of the block can close it; tildes cannot close a backtick fence.

use serde_json::Value;

use crate::agent_state::compact::{Compaction, compact_json_with, thousands};
use crate::agent_state::model::{AgentState, Memory};
use crate::agent_state::render::render_block;
use crate::agent_state::xml::escaped_len;
use crate::render::text::{escape_inline, escape_lines};

/// GitHub's comment limit, in Unicode code points.
pub const COMMENT_CHAR_LIMIT: usize = 65_536;
/// The caller's summary is cut to this many characters before escaping.
pub const SUMMARY_MAX_CHARS: usize = 4_000;
pub const RUN_KEY_MAX_CHARS: usize = 256;
/// Header values are previews; the block holds the full text.
const HEADER_VALUE_CHARS: usize = 80;
const MARKER_PREFIX: &str = "<!-- agent-state:v1 run=";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommentError {
    #[error("the run key is empty; pass a key that identifies the workflow run")]
    EmptyRunKey,
    #[error("the run key is {chars} characters long; at most {limit} are allowed")]
    RunKeyTooLong { chars: usize, limit: usize },
    #[error(
        "the comment would be {chars} characters, more than GitHub's limit of {limit}; `{field}` alone is {field_chars} characters, shorten it"
    )]
    TooLarge {
        chars: usize,
        limit: usize,
        field: &'static str,
        field_chars: usize,
    },
    #[error("memory could not be compacted: {detail}")]
    Memory { detail: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct RenderedComment {
    pub body: String,
    /// Code points of `body`.
    pub chars: usize,
    /// The state as written, with compacted memory if it had to shrink.
    pub state: AgentState,
    pub compaction: Option<Compaction>,
    pub summary_truncated: bool,
}

/// Renders the comment for `state put`.
pub fn render_comment(
    state: &AgentState,
    summary: Option<&str>,
    run_key: &str,
) -> Result<RenderedComment, CommentError> {
    let marker = run_marker(run_key)?;
    let (summary, summary_truncated) = match summary {
        Some(text) => {
            let (cut, truncated) = cut_summary(text);
            (Some(cut), truncated)
        }
        None => (None, false),
    };
    let summary = summary.as_deref();
    let body = assemble(state, summary, None, &marker);
    let chars = body.chars().count();
    if chars <= COMMENT_CHAR_LIMIT {
        return Ok(RenderedComment {
            body,
            chars,
            state: state.clone(),
            compaction: None,
            summary_truncated,
        });
    }
    let Some(memory) = &state.memory else {
        return Err(too_large(state, chars));
    };
    let value = memory.to_value().map_err(|error| CommentError::Memory {
        detail: error.to_string(),
    })?;
    let mut written = state.clone();
    written.memory = Some(Memory::from_value(&Value::Null));
    let fixed = assemble(&written, summary, Some(&placeholder_note()), &marker)
        .chars()
        .count()
        .saturating_sub(4);
    let mut budget = COMMENT_CHAR_LIMIT.saturating_sub(fixed);
    while budget >= 4 {
        // Weighted as the block escapes it, so the first budget is nearly always right.
        let compaction = compact_json_with(&value, budget, &escaped_len);
        written.memory = Some(Memory::from_value(&compaction.value));
        let note = compaction_note(&compaction);
        let body = assemble(&written, summary, Some(&note), &marker);
        let chars = body.chars().count();
        if chars <= COMMENT_CHAR_LIMIT {
            let first = RenderedComment {
                body,
                chars,
                state: written,
                compaction: Some(compaction),
                summary_truncated,
            };
            // The first budget assumed the longest notice; give the slack back once.
            let slack = COMMENT_CHAR_LIMIT - chars;
            if slack > 256 {
                let second = compact_json_with(&value, budget + slack - 64, &escaped_len);
                let mut state = first.state.clone();
                state.memory = Some(Memory::from_value(&second.value));
                let body = assemble(&state, summary, Some(&compaction_note(&second)), &marker);
                let chars = body.chars().count();
                if chars <= COMMENT_CHAR_LIMIT {
                    return Ok(RenderedComment {
                        body,
                        chars,
                        state,
                        compaction: Some(second),
                        summary_truncated,
                    });
                }
            }
            return Ok(first);
        }
        // Escaping makes memory longer in the block than in JSON; shrink at least
        // geometrically so the loop ends quickly.
        let over = chars - COMMENT_CHAR_LIMIT;
        budget = budget.saturating_sub(over.max(budget / 8).max(1));
    }
    Err(too_large(state, chars))
}

/// The run key of a comment written by [`render_comment`], if it holds one.
pub fn find_run_key(body: &str) -> Option<String> {
    let start = body.rfind(MARKER_PREFIX)? + MARKER_PREFIX.len();
    let rest = body.get(start..)?;
    let encoded = rest.split([' ', '\t', '\r', '\n']).next()?;
    let after = rest.get(encoded.len()..)?.trim_start_matches([' ', '\t']);
    if encoded.is_empty() || !after.starts_with("-->") {
        return None;
    }
    percent_decode(encoded)
}

fn run_marker(run_key: &str) -> Result<String, CommentError> {
    let chars = run_key.chars().count();
    if chars == 0 {
        return Err(CommentError::EmptyRunKey);
    }
    if chars > RUN_KEY_MAX_CHARS {
        return Err(CommentError::RunKeyTooLong {
            chars,
            limit: RUN_KEY_MAX_CHARS,
        });
    }
    Ok(format!("{MARKER_PREFIX}{} -->", percent_encode(run_key)))
}

/// Keeps the key readable while making `-->`, whitespace and markup impossible.
fn percent_encode(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for byte in key.bytes() {
        if byte.is_ascii_alphanumeric() || b"._:/@+=-".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn percent_decode(encoded: &str) -> Option<String> {
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'%' {
            let hex = encoded.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn cut_summary(text: &str) -> (String, bool) {
    match text.char_indices().nth(SUMMARY_MAX_CHARS) {
        Some((end, _)) => {
            let kept = text.get(..end).unwrap_or(text);
            (
                format!("{kept}… (summary cut to {SUMMARY_MAX_CHARS} characters)"),
                true,
            )
        }
        None => (text.to_owned(), false),
    }
}

fn assemble(state: &AgentState, summary: Option<&str>, note: Option<&str>, marker: &str) -> String {
    let mut out = header(state);
    if let Some(summary) = summary.filter(|s| !s.trim().is_empty()) {
        out.push_str("\n\n");
        out.push_str(&escape_lines(summary.trim()));
    }
    if let Some(note) = note {
        out.push_str("\n\n");
        out.push_str(note);
    }
    let block = render_block(state);
    let fence = "`".repeat(longest_backtick_run(&block).max(2) + 1);
    out.push_str(&format!("\n\n{fence}xml\n{block}\n{fence}\n\n{marker}\n"));
    out
}

fn header(state: &AgentState) -> String {
    let mut parts = Vec::new();
    let mut push = |label: &str, value: Option<String>| {
        if let Some(value) = value {
            parts.push(format!("{label}: {}", escape_inline(&preview(&value))));
        }
    };
    push("intent", state.intent.clone());
    push("step", state.step.clone());
    push(
        "progress",
        state.progress.map(|p| format!("{}%", p.value())),
    );
    push("next action", state.next_action.clone());
    push("agent", state.agent.clone());
    if parts.is_empty() {
        return "**Agent state**".to_owned();
    }
    format!("**Agent state** — {}", parts.join(" · "))
}

fn preview(value: &str) -> String {
    match value.char_indices().nth(HEADER_VALUE_CHARS) {
        Some((end, _)) => format!("{}…", value.get(..end).unwrap_or(value)),
        None => value.to_owned(),
    }
}

fn compaction_note(compaction: &Compaction) -> String {
    let mut note = format!(
        "_Memory was compacted to fit GitHub's {}-character comment limit ({} → {} characters):_",
        thousands(COMMENT_CHAR_LIMIT),
        thousands(compaction.original_chars),
        thousands(compaction.compacted_chars),
    );
    for line in &compaction.notes {
        note.push_str("\n- ");
        note.push_str(&escape_inline(line));
    }
    note
}

/// As long as any real note can be, so the first budget is not too generous.
fn placeholder_note() -> String {
    "x".repeat(2_000)
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn too_large(state: &AgentState, chars: usize) -> CommentError {
    let fields = [
        ("agent", state.agent.as_deref().map_or(0, count)),
        ("intent", state.intent.as_deref().map_or(0, count)),
        ("step", state.step.as_deref().map_or(0, count)),
        ("next_action", state.next_action.as_deref().map_or(0, count)),
        (
            "memory",
            state.memory.as_ref().map_or(0, |m| count(m.as_str())),
        ),
        (
            "unknown elements",
            state.unknown.iter().map(|u| count(u.xml())).sum(),
        ),
    ];
    let (field, field_chars) = fields
        .into_iter()
        .max_by_key(|&(_, n)| n)
        .unwrap_or(("memory", 0));
    CommentError::TooLarge {
        chars,
        limit: COMMENT_CHAR_LIMIT,
        field,
        field_chars,
    }
}

fn count(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_state::model::{Progress, UnknownElement};
    use crate::agent_state::trust::{IssueComment, TrustConfig, select_latest};
    use proptest::prelude::*;
    use serde_json::json;

    fn sample() -> AgentState {
        AgentState {
            agent: Some("claude".into()),
            intent: Some("implement_feature".into()),
            step: Some("waiting_for_review".into()),
            progress: Progress::new(60),
            memory: Memory::from_json_text(r#"{"files_changed": ["auth.ts"], "attempts": 2}"#).ok(),
            next_action: Some("run_tests_again".into()),
            unknown: UnknownElement::from_xml("<metrics><tool_calls>3</tool_calls></metrics>")
                .into_iter()
                .collect(),
            ..AgentState::default()
        }
    }

    fn read_back(body: &str) -> AgentState {
        let comment = IssueComment {
            id: 1,
            author: "github-actions[bot]",
            association: "NONE",
            body,
            html_url: "https://github.com/o/r/issues/1#issuecomment-1",
            created_at: "2025-01-01T00:00:00Z",
        };
        let trust = TrustConfig {
            token_login: Some("github-actions[bot]".into()),
            ..TrustConfig::default()
        };
        select_latest(&[comment], &trust).state
    }

    #[test]
    fn renders_summary_then_block_then_marker() {
        let rendered = render_comment(
            &sample(),
            Some("Auth works; *integration* tests next."),
            "123-1",
        );
        let rendered = rendered.expect("fits");
        insta::assert_snapshot!(rendered.body, @r#"
        **Agent state** — intent: implement&#95;feature · step: waiting&#95;for&#95;review · progress: 60% · next action: run&#95;tests&#95;again · agent: claude

        Auth works; &#42;integration&#42; tests next.

        ```xml
        <agent-state>
          <agent>claude</agent>
          <intent>implement_feature</intent>
          <step>waiting_for_review</step>
          <progress>60</progress>
          <memory>{"files_changed": ["auth.ts"], "attempts": 2}</memory>
          <next_action>run_tests_again</next_action>
          <metrics><tool_calls>3</tool_calls></metrics>
        </agent-state>
        ```

        <!-- agent-state:v1 run=123-1 -->
        "#);
        assert_eq!(read_back(&rendered.body), sample());
    }

    #[test]
    fn hostile_text_gets_a_longer_fence_and_escaped_summary() {
        let state = AgentState {
            intent: Some("a\n```\n````\n~~~\n</agent-state>".into()),
            ..AgentState::default()
        };
        let rendered = render_comment(
            &state,
            Some("<agent-state>\n> quote\n    code"),
            "run 7/“x”",
        );
        let rendered = rendered.expect("fits");
        insta::assert_snapshot!(rendered.body, @"
        **Agent state** — intent: a &#96;&#96;&#96; &#96;&#96;&#96;&#96; &#126;&#126;&#126; &lt;/agent-state&gt;

        &lt;agent-state&gt;
        &gt; quote
        code

        `````xml
        <agent-state>
          <intent>a
        ```
        ````
        ~~~
        &lt;/agent-state&gt;</intent>
        </agent-state>
        `````

        <!-- agent-state:v1 run=run%207/%E2%80%9Cx%E2%80%9D -->
        ");
        assert_eq!(read_back(&rendered.body), state);
        assert_eq!(find_run_key(&rendered.body).as_deref(), Some("run 7/“x”"));
    }

    #[test]
    fn oversized_memory_is_compacted_and_reported() {
        let files: Vec<String> = (0..20_000)
            .map(|i| format!("src/module_{i}/file.rs"))
            .collect();
        let state = AgentState {
            step: Some("coding".into()),
            memory: Some(Memory::from_value(
                &json!({"touched": files, "title": "Fix <auth> & login"}),
            )),
            ..AgentState::default()
        };
        let rendered = render_comment(&state, None, "9").expect("fits after compaction");
        assert!(rendered.chars <= COMMENT_CHAR_LIMIT);
        assert!(
            rendered.chars * 10 >= COMMENT_CHAR_LIMIT * 9,
            "{}",
            rendered.chars
        );
        assert_eq!(rendered.chars, rendered.body.chars().count());
        let compaction = rendered.compaction.as_ref().expect("compacted");
        insta::assert_debug_snapshot!(compaction.notes, @r#"
        [
            "$.touched: 2,538 of 20,000 items kept",
            "key fields: 1 of 1 kept, exact (shallow ones first)",
            "other values: 2,538 of 20,000 kept",
            "17,462 of 20,001 values left out, counted in \"(omitted)\"; nothing kept was shortened",
        ]
        "#);
        assert!(rendered.body.contains("_Memory was compacted"));
        let back = read_back(&rendered.body);
        assert_eq!(back, rendered.state);
        let memory = back
            .memory
            .and_then(|m| m.to_value().ok())
            .unwrap_or_default();
        assert_eq!(memory["title"], json!("Fix <auth> & login"));
        assert_eq!(memory["touched"][0], json!("src/module_0/file.rs"));
    }

    #[test]
    fn the_280_repositories_keep_every_name_in_the_posted_comment() {
        let text = include_str!("../../../../tests/data/github/repos-280.json");
        let repos: Value = serde_json::from_str(text).expect("fixture");
        let state = AgentState {
            memory: Some(Memory::from_value(&repos)),
            ..AgentState::default()
        };
        let rendered = render_comment(&state, Some("Listed the repositories."), "r").expect("fits");
        assert!(rendered.chars <= COMMENT_CHAR_LIMIT);
        assert!(
            rendered.chars * 10 >= COMMENT_CHAR_LIMIT * 9,
            "{}",
            rendered.chars
        );
        let memory = read_back(&rendered.body)
            .memory
            .and_then(|m| m.to_value().ok())
            .unwrap_or_default();
        for (kept, original) in memory
            .as_array()
            .into_iter()
            .flatten()
            .zip(repos.as_array().into_iter().flatten())
        {
            assert_eq!(kept["name"], original["name"]);
            assert_eq!(kept["full_name"], original["full_name"]);
        }
        assert_eq!(memory.as_array().map(Vec::len), Some(281));
    }

    #[test]
    fn a_huge_text_field_is_an_error_naming_it() {
        let state = AgentState {
            intent: Some("i".repeat(70_000)),
            ..AgentState::default()
        };
        let error = render_comment(&state, None, "1").err();
        assert_eq!(
            error.map(|e| e.to_string()),
            Some("the comment would be 70200 characters, more than GitHub's limit of 65536; `intent` alone is 70000 characters, shorten it".to_owned())
        );
    }

    #[test]
    fn a_long_summary_is_cut() {
        let rendered = render_comment(&AgentState::default(), Some(&"s".repeat(10_000)), "1");
        let rendered = rendered.expect("fits");
        assert!(rendered.summary_truncated);
        assert!(rendered.body.contains("… (summary cut to 4000 characters)"));
    }

    #[test]
    fn run_keys() {
        assert_eq!(
            render_comment(&AgentState::default(), None, "").err(),
            Some(CommentError::EmptyRunKey)
        );
        let long = "k".repeat(RUN_KEY_MAX_CHARS + 1);
        assert!(matches!(
            render_comment(&AgentState::default(), None, &long),
            Err(CommentError::RunKeyTooLong { .. })
        ));
        assert_eq!(
            find_run_key("<!-- agent-state:v1 run=a%2D-b -->").as_deref(),
            Some("a--b")
        );
        assert_eq!(find_run_key("<!-- agent-state:v1 run=a%zz -->"), None);
        assert_eq!(find_run_key("<!-- agent-state:v1 run=abc"), None);
        assert_eq!(find_run_key("no marker"), None);
    }

    proptest! {
        #[test]
        fn any_state_survives_the_whole_comment(
            state in crate::agent_state::testing::agent_state(),
            summary in crate::agent_state::testing::hostile_text(),
            key in "\\PC{1,40}",
        ) {
            let rendered = render_comment(&state, Some(&summary), &key);
            prop_assert!(rendered.is_ok());
            let rendered = rendered.unwrap_or_else(|_| unreachable!());
            prop_assert_eq!(read_back(&rendered.body), state);
            prop_assert_eq!(find_run_key(&rendered.body), Some(key));
        }
    }
}
