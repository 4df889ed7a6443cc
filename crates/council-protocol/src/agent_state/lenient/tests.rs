//! The lenient rule, on the mended text and end to end through [`read_block`].

use super::*;
use crate::agent_state::model::AgentState;
use crate::agent_state::parse::read_block;
use crate::agent_state::testing::hostile_text;
use crate::chars::is_ignorable_space;
use proptest::prelude::*;

fn mended(xml: &str) -> (String, Vec<String>) {
    let (text, mends) = mend(xml);
    (
        text.into_owned(),
        mends.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn stray_ampersands_and_less_thans_are_escaped_and_named() {
    let (text, mends) = mended(
        "<agent-state><intent>Fix A & B</intent><step>R&D</step>\
         <next_action>retry if n < 5 && n<limit</next_action></agent-state>",
    );
    insta::assert_snapshot!(text, @"<agent-state><intent>Fix A &amp; B</intent><step>R&amp;D</step><next_action>retry if n &lt; 5 &amp;&amp; n&lt;limit</next_action></agent-state>");
    insta::assert_snapshot!(mends.join("\n"), @"
    unescaped `&` in <intent>; read as text — write `&amp;`
    unescaped `&` in <step>; read as text — write `&amp;`
    unescaped `<` in <next_action>; read as text — write `&lt;`
    unescaped `&` in <next_action>; read as text — write `&amp;`
    ");
}

#[test]
fn well_formed_blocks_are_untouched() {
    for xml in [
        "<agent-state/>",
        "<agent-state version=\"a&amp;b\"><intent>a &amp; b &lt; c &#x26; &#60;</intent></agent-state>",
        "<agent-state><memory><![CDATA[a < b & c]]></memory><!-- x < y & z --></agent-state>",
        "<agent-state><plan><item status='done'>a &gt; b</item><item/></plan></agent-state>",
    ] {
        let (text, mends) = mend(xml);
        assert!(matches!(text, Cow::Borrowed(_)), "{xml}");
        assert_eq!(mends, [], "{xml}");
    }
}

#[test]
fn text_in_unknown_elements_is_mended_too() {
    let (text, mends) =
        mended("<agent-state><plan><item status=\"done\">R&D</item></plan></agent-state>");
    assert_eq!(
        text,
        "<agent-state><plan><item status=\"done\">R&amp;D</item></plan></agent-state>"
    );
    assert_eq!(
        mends,
        ["unescaped `&` in <item>; read as text — write `&amp;`"]
    );
}

#[test]
fn markup_and_references_are_left_to_the_strict_parser() {
    for xml in [
        // Shaped like references: expanded or refused by the parser, never text.
        "<agent-state><intent>&xxe; &lol9; &#xD800; &nbsp;</intent></agent-state>",
        // Shaped like tags: elements, which the parser refuses inside a field.
        "<agent-state><intent>a <memory>{\"x\":1}</memory></intent></agent-state>",
        "<agent-state><intent>a <b/></intent></agent-state>",
        // Structure: wrong closing order, unclosed root, declarations.
        "<agent-state><intent>x</agent-state>",
        "<agent-state><intent>x</intent>",
        "<agent-state><intent><!DOCTYPE x></intent></agent-state>",
        "<agent-state><intent><?php x ?></intent></agent-state>",
        // Directly inside the root, a stray character is the parser's to report.
        "<agent-state>a & b</agent-state>",
        "<agent-state>< 5</agent-state>",
        // Not a block at all.
        "intent & b",
    ] {
        assert_eq!(mended(xml), (xml.to_owned(), Vec::new()), "{xml}");
    }
}

#[test]
fn mending_stops_where_structure_breaks() {
    // The `&` before the broken structure is mended; after it, nothing is.
    let (text, mends) = mended("<agent-state><intent>A & B</step> C & D</agent-state>");
    assert_eq!(
        text,
        "<agent-state><intent>A &amp; B</step> C & D</agent-state>"
    );
    assert_eq!(mends.len(), 1);
}

#[test]
fn memory_json_with_operators_is_mended_as_text() {
    let (text, _) =
        mended(r#"<agent-state><memory>{"cmp": "a < b && c", "t": "x<y"}</memory></agent-state>"#);
    assert_eq!(
        text,
        r#"<agent-state><memory>{"cmp": "a &lt; b &amp;&amp; c", "t": "x&lt;y"}</memory></agent-state>"#
    );
}

#[test]
fn each_kind_is_reported_once_per_element() {
    let (_, mends) = mended("<agent-state><intent>& & < <</intent></agent-state>");
    assert_eq!(mends.len(), 2);
}

#[test]
fn careless_blocks_read_as_written() {
    let xml = "<agent-state>\n  <intent>Fix A & B</intent>\n  <step>R&D</step>\n  \
               <memory>{\"cmp\": \"a < b && c\"}</memory>\n  \
               <next_action>retry if n < 5</next_action>\n</agent-state>";
    let read = read_block(xml).expect("read leniently");
    let state = read.state;
    assert_eq!(state.intent.as_deref(), Some("Fix A & B"));
    assert_eq!(state.step.as_deref(), Some("R&D"));
    assert_eq!(state.next_action.as_deref(), Some("retry if n < 5"));
    let memory = state.memory.and_then(|m| m.to_value().ok());
    assert_eq!(memory, Some(serde_json::json!({"cmp": "a < b && c"})));
    let mends: Vec<_> = read.mends.iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(mends.join("\n"), @"
    unescaped `&` in <intent>; read as text — write `&amp;`
    unescaped `&` in <step>; read as text — write `&amp;`
    unescaped `<` in <memory>; read as text — write `&lt;`
    unescaped `&` in <memory>; read as text — write `&amp;`
    unescaped `<` in <next_action>; read as text — write `&lt;`
    ");
}

#[test]
fn text_never_becomes_an_element_or_an_entity() {
    let refused = |xml: &str| read_block(xml).err().map(|e| e.to_string());
    assert_eq!(
        refused("<agent-state><intent>a <memory>{\"x\":1}</memory></intent></agent-state>"),
        Some("`<intent>` must hold plain text but contains the element `<memory>`".into())
    );
    assert_eq!(
        refused("<agent-state><intent>a < memory>{\"x\":1}</memory></intent></agent-state>"),
        Some("the block is not well-formed XML: ill-formed document: expected `</intent>`, but `</memory>` was found".into())
    );
    assert_eq!(
        refused("<agent-state><memory>{\"a\": \"&xxe;\"}</memory></agent-state>"),
        Some("the entity `&xxe;` is not allowed; use `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` or a numeric reference such as `&#60;`".into())
    );
    assert_eq!(
        refused("<agent-state><intent>A & B</intent>"),
        Some("the block is not closed: no `</agent-state>` follows `<agent-state>`".into())
    );
    assert_eq!(
        refused("<agent-state><intent>A & B</agent-state>"),
        Some("the block is not well-formed XML: ill-formed document: expected `</intent>`, but `</agent-state>` was found".into())
    );
}

/// Text as a writer that escapes nothing would leave it: `&` and `<` where they
/// cannot be read as a reference or a tag, and no `;`, `>` or `\r`, which could
/// complete one or be normalized away.
fn careless_text() -> impl Strategy<Value = String> {
    let plain = any::<String>().prop_map(|s| s.replace(['<', '>', '&', ';', '\r'], ""));
    let piece = prop_oneof![
        plain,
        Just("&".to_owned()),
        Just(" & ".to_owned()),
        Just("&&".to_owned()),
        Just("R&D".to_owned()),
        Just("&#".to_owned()),
        Just(" < ".to_owned()),
        Just("<5".to_owned()),
        Just("<=".to_owned()),
        Just("n<limit".to_owned()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

/// Raw text in `<intent>`, including pieces that spell out other fields.
fn raw_field_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        hostile_text(),
        Just("<memory>".to_owned()),
        Just("{\"x\":1}".to_owned()),
        Just("</memory>".to_owned()),
        Just("< memory>".to_owned()),
        Just("<step/>".to_owned()),
        Just("<plan>".to_owned()),
        Just("&lt;memory>".to_owned()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn careless_text_reads_back_as_written(text in careless_text()) {
        let memory = serde_json::json!({"cmp": text}).to_string();
        let xml = format!("<agent-state><intent>{text}</intent><memory>{memory}</memory></agent-state>");
        let read = read_block(&xml);
        prop_assert!(read.is_ok(), "{xml}: {read:?}");
        let read = read.unwrap_or_else(|_| unreachable!());
        prop_assert_eq!(read.state.intent, Some(text.trim_matches(is_ignorable_space).to_owned()));
        prop_assert_eq!(read.state.memory.map(|m| m.as_str().to_owned()), Some(memory));
        prop_assert_eq!(read.mends.is_empty(), !text.contains(['&', '<']));
    }

    #[test]
    fn raw_text_in_a_field_creates_no_other_field(text in raw_field_text()) {
        let xml = format!("<agent-state><intent>{text}</intent></agent-state>");
        if let Ok(read) = read_block(&xml) {
            let only_intent = AgentState { intent: read.state.intent.clone(), ..AgentState::default() };
            prop_assert_eq!(read.state, only_intent, "{}", xml);
        }
    }

    #[test]
    fn mending_never_panics_and_only_escapes(text in hostile_text()) {
        let unescape = |s: &str| s.replace("&amp;", "&").replace("&lt;", "<");
        for xml in [format!("<agent-state><intent>{text}</intent></agent-state>"), text.clone()] {
            let (mended, mends) = mend(&xml);
            prop_assert_eq!(unescape(&mended), unescape(&xml));
            prop_assert_eq!(mends.is_empty(), mended == xml);
        }
    }
}
