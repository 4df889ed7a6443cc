//! Every user-facing cut and parser of user text with multi-byte input (issue 25: a label
//! `docs 📝` sliced at byte 6 panicked `assign`). Text is built from characters of 2, 3
//! and 4 bytes, invisible and bidi ones, and the ASCII delimiters the code searches for,
//! with a run of ASCII before it so that each limit falls at every offset of a character.

use proptest::prelude::*;

use crate::agent_state::comment::{COMMENT_CHAR_LIMIT, SUMMARY_MAX_CHARS, render_comment};
use crate::agent_state::testing::text_state;
use crate::audit::stored::{self, Links};
use crate::audit::timeline::{MAX_MESSAGE_CHARS, Record, RunInfo, new_entry};
use crate::chars;

/// Multi-byte characters and the delimiters that parsers find, in any order.
fn multibyte_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("é"),
        Just("€"),
        Just("📝"),
        Just("👩‍💻"),
        Just("e\u{301}"),
        Just("\u{202e}"),
        Just("\u{200b}"),
        Just("agent:"),
        Just("<"),
        Just(">"),
        Just("&"),
        Just(";"),
        Just(":"),
        Just("/"),
        Just("-"),
        Just("_"),
        Just(" "),
        Just("\n"),
        Just("\r\n"),
        Just("```"),
        Just("~~~"),
        Just("- [ ] "),
        Just("@@ -1 +"),
        Just("<context-report>"),
        Just("</context-report>"),
        Just("password = \""),
        Just("ghp_"),
        Just("-----BEGIN PRIVATE KEY-----"),
        Just("-----END"),
    ];
    let pieces = prop::collection::vec(
        prop_oneof![4 => piece.prop_map(str::to_owned), 1 => any::<char>().prop_map(String::from)],
        0..40,
    );
    (0usize..12, pieces).prop_map(|(ascii, pieces)| "a".repeat(ascii) + &pieces.concat())
}

/// `multibyte_text` after `lead` ASCII characters, less or more: a text whose limit
/// `lead` falls inside or near its multi-byte part.
fn around(lead: usize) -> impl Strategy<Value = String> {
    (lead.saturating_sub(30)..lead + 10, multibyte_text())
        .prop_map(|(ascii, tail)| "x".repeat(ascii) + &tail)
}

proptest! {
    #[test]
    fn cut_keeps_a_prefix_of_at_most_the_limit(text in multibyte_text(), max in 0usize..60) {
        let count = text.chars().count();
        match chars::cut(&text, max) {
            Some(head) => {
                prop_assert!(text.starts_with(head));
                prop_assert_eq!(head.chars().count(), max);
                prop_assert!(count > max);
            }
            None => prop_assert!(count <= max),
        }
    }

    #[test]
    fn show_hidden_cuts_by_characters_and_hides_nothing(text in multibyte_text(), max in 0usize..60) {
        let shown = chars::show_hidden(&text, max);
        prop_assert!(!shown.chars().any(chars::is_hidden_char), "{shown:?}");
        let redacted = crate::redact::shown(&text);
        prop_assert_eq!(shown.ends_with('…'), redacted.chars().count() > max, "{:?}", shown);
    }

    #[test]
    fn a_timeline_message_is_capped_by_characters(message in around(MAX_MESSAGE_CHARS)) {
        let record = Record {
            stage: "guard",
            agent: "agent_guard",
            action: "check:branch-name".into(),
            result: "FAIL".into(),
            message: message.clone(),
        };
        let entry = new_entry(&RunInfo::local(), &record, "0", "2026-01-01T00:00:00Z");
        if message.chars().count() <= MAX_MESSAGE_CHARS {
            prop_assert_eq!(entry.message, message);
        } else {
            let kept: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
            prop_assert_eq!(
                entry.message,
                format!("{kept}… (cut at {MAX_MESSAGE_CHARS} characters)")
            );
        }
    }

    #[test]
    fn the_ledger_comment_shows_any_finding_and_reads_back(message in around(600)) {
        let mut context = crate::audit::context::ContextObject::new(
            "o/r",
            &crate::event::sample_pull_request(),
            "webhook:pull_request.opened",
            "2026-01-01T00:00:00Z",
        );
        let record = Record {
            stage: "guard",
            agent: "agent_guard",
            action: "check:branch-name".into(),
            result: "FAIL".into(),
            message,
        };
        context.timeline = vec![new_entry(&RunInfo::local(), &record, "0", "2026-01-01T00:00:00Z")];
        let merged = stored::merge(None, &context, None);
        prop_assert!(merged.is_ok());
        let merged = merged.unwrap_or_else(|_| unreachable!());
        let body = stored::render(&merged, &Links::default());
        let back = stored::parse(&body);
        prop_assert!(back.is_ok(), "{:?}", back.err());
        prop_assert_eq!(
            back.unwrap_or_else(|_| unreachable!()).context.timeline,
            merged.context.timeline
        );
    }

    #[test]
    fn the_state_comment_cuts_summary_and_header_by_characters(
        summary in around(SUMMARY_MAX_CHARS),
        value in around(80),
    ) {
        let rendered = render_comment(&text_state(&value), Some(&summary), "run");
        prop_assert!(rendered.is_ok());
        let rendered = rendered.unwrap_or_else(|_| unreachable!());
        prop_assert!(rendered.body.chars().count() <= COMMENT_CHAR_LIMIT);
        prop_assert_eq!(
            rendered.summary_truncated,
            summary.chars().count() > SUMMARY_MAX_CHARS
        );
    }

    #[test]
    fn a_report_block_is_a_part_of_its_comment(body in multibyte_text()) {
        if let Some(block) = crate::context_report::comment::last_block(&body) {
            prop_assert!(body.contains(block));
            let _ = crate::context_report::comment::claimed_agent(block);
        }
    }

    #[test]
    fn labels_and_titles_give_ids(
        title in multibyte_text(),
        labels in prop::collection::vec(
            (prop_oneof![Just(""), Just("task:"), Just("TASK:"), Just("project:")], multibyte_text())
                .prop_map(|(prefix, rest)| format!("{prefix}{rest}")),
            0..6,
        ),
    ) {
        use crate::context_report::matching::{IssueFacts, project_ids, task_ids};
        let issue = IssueFacts { number: 1, title, labels, repository: "o/r".into() };
        for id in task_ids(&issue).into_iter().chain(project_ids(&issue)) {
            prop_assert!(!id.is_empty());
        }
    }

    #[test]
    fn rendering_user_text_never_panics(text in multibyte_text()) {
        use crate::render::text;
        let _ = (
            text::visible(&text),
            text::literal(&text),
            text::escape_inline(&text),
            text::escape_lines(&text),
            text::cell(&text),
            text::shell_word(&text),
            text::Message::new().text(text.clone()).value(text.clone()).markdown(),
        );
        for task in crate::markdown::open_tasks(&text) {
            prop_assert!(text.contains(task.text.as_str()));
        }
    }

    #[test]
    fn parsers_of_user_text_never_panic(text in multibyte_text()) {
        let _ = crate::secrets::find_secrets(&text);
        let _ = crate::redact::shown(&text);
        let _ = crate::review::diff::added_lines(&text).count();
        let _ = stored::parse(&text);
        let names: Vec<String> = text.split('\n').map(str::to_owned).collect();
        let _ = crate::policy::propose::propose(&names, Some("main"));
    }
}
