use proptest::prelude::*;

use super::*;
use crate::agent_state::model::UnknownElement;
use crate::agent_state::parse::parse_block;
use crate::agent_state::render::render_block;

/// Shaped like a real classic token (the scanner rightly skips `ghp_xxxx…`).
const TOKEN: &str = "ghp_Tq7Lx2Vb9Nc4Wz8Hd1Rk6Mp3Js5Gf0Ya7Eu2";

/// A block with the usual fields, `element` in place of the field of its name (or
/// added), and `root` as the attributes of its tag.
fn block(root: &str, element: &str) -> String {
    let mut fields = vec![
        "<agent>claude</agent>".to_owned(),
        "<intent>ship_it</intent>".to_owned(),
        "<step>coding</step>".to_owned(),
        "<progress>40</progress>".to_owned(),
        r#"<memory>{"files": ["a.rs"]}</memory>"#.to_owned(),
        "<next_action>run_tests</next_action>".to_owned(),
        r#"<plan><item status="done">read</item></plan>"#.to_owned(),
    ];
    let name = element
        .trim_start_matches('<')
        .split(['>', ' '])
        .next()
        .unwrap_or("");
    match fields
        .iter_mut()
        .find(|f| !name.is_empty() && f.starts_with(&format!("<{name}>")))
    {
        Some(field) => *field = element.to_owned(),
        None => fields.push(element.to_owned()),
    }
    format!("<agent-state{root}>{}</agent-state>", fields.concat())
}

fn names(withheld: &[Withheld]) -> Vec<&str> {
    withheld.iter().map(|w| w.element.as_str()).collect()
}

/// One case per place a token can sit, in every element of the protocol, as written
/// and hidden behind a reference, CDATA or a JSON escape.
fn cases() -> Vec<(&'static str, String, String)> {
    let t = TOKEN;
    let referenced = format!("{}&#x{:X};{}", &t[..8], u32::from(t.as_bytes()[8]), &t[9..]);
    let json_escaped = format!("\\u00{:x}{}", t.as_bytes()[0], &t[1..]);
    let el = |name: &'static str, xml: String| (name, String::new(), xml);
    vec![
        el("agent", format!("<agent>{t}</agent>")),
        el("intent", format!("<intent>deploy with {t}</intent>")),
        el("intent", format!("<intent><![CDATA[{t}]]></intent>")),
        el("intent", format!("<intent>{referenced}</intent>")),
        el("step", format!("<step>{t}</step>")),
        el(
            "next_action",
            format!("<next_action>push with {t}</next_action>"),
        ),
        el(
            "memory",
            format!(r#"<memory>{{"notes": "use {t}"}}</memory>"#),
        ),
        el(
            "memory",
            format!(r#"<memory>{{"notes": "{json_escaped}"}}</memory>"#),
        ),
        el(
            "memory",
            r#"<memory>{"password": "hunter2-correct-horse"}</memory>"#.to_owned(),
        ),
        el(
            "plan",
            format!(
                r#"<plan><item status="done">read</item><item status="pending">export GH={t}</item></plan>"#
            ),
        ),
        el(
            "plan",
            format!(r#"<plan><item status="{t}">x</item></plan>"#),
        ),
        el(
            "plan",
            format!(r#"<plan><item status="done">{referenced}</item></plan>"#),
        ),
        el(
            "input_request",
            format!(
                "<input_request><status>waiting</status><question>Is {t} right?</question></input_request>"
            ),
        ),
        el(
            "input_request",
            format!(
                "<input_request><status>{t}</status><question>Which region?</question></input_request>"
            ),
        ),
        el(
            "input_request",
            format!("<input_request><question><![CDATA[{t}]]></question></input_request>"),
        ),
        el(
            "metrics",
            format!(
                "<metrics><tool_calls>3</tool_calls><generated_at>{t}</generated_at></metrics>"
            ),
        ),
        el(
            "reviewer_notes",
            format!("<reviewer_notes>{t}</reviewer_notes>"),
        ),
        el(
            "reviewer_notes",
            format!(r#"<reviewer_notes by="{referenced}"/>"#),
        ),
        (
            "agent-state",
            format!(r#" version="2.1" origin="{t}""#),
            String::new(),
        ),
        (
            "agent-state",
            format!(r#" origin="{referenced}""#),
            String::new(),
        ),
    ]
}

#[test]
fn a_secret_in_any_element_withholds_that_element_and_keeps_the_rest() {
    for (element, root, xml) in cases() {
        let source = block(&root, &xml);
        let mut state = parse_block(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let clean = parse_block(&block("", "")).unwrap();
        let found: Vec<String> = state.find_secrets().into_iter().map(|(f, _)| f).collect();
        assert_eq!(found.first().map(String::as_str), Some(element), "{source}");
        let withheld = state.withhold_secrets();
        assert_eq!(names(&withheld), [element], "{source}");
        assert!(state.find_secrets().is_empty(), "{source}");
        assert!(!render_block(&state).contains(&TOKEN[9..]), "{source}");
        // Everything else is as it was.
        let kept = |s: &AgentState| {
            let mut s = s.clone();
            match element {
                "agent" => s.agent = None,
                "intent" => s.intent = None,
                "step" => s.step = None,
                "next_action" => s.next_action = None,
                "memory" => s.memory = None,
                "agent-state" => {}
                name => s.unknown.retain(|u| u.name() != name),
            }
            s
        };
        assert_eq!(kept(&state), kept(&clean), "{source}");
        assert_eq!(state.progress, clean.progress);
    }
}

#[test]
fn the_warning_material_names_the_kind_never_the_value() {
    let mut state = parse_block(&block(
        "",
        &format!("<input_request><question>{TOKEN}</question></input_request>"),
    ))
    .unwrap();
    state.intent = Some(format!("use {TOKEN}"));
    let withheld = state.withhold_secrets();
    assert_eq!(
        withheld,
        [
            Withheld {
                element: "intent".into(),
                kind: "GitHub token"
            },
            Withheld {
                element: "input_request".into(),
                kind: "GitHub token"
            },
        ]
    );
    let json = serde_json::to_string(&withheld).unwrap_or_default();
    assert!(!json.contains(&TOKEN[4..]), "{json}");
}

#[test]
fn only_the_element_that_holds_it_goes_of_two_with_one_name() {
    let unknown = [
        "<note>fine</note>".to_owned(),
        format!("<note>{TOKEN}</note>"),
        "<note>also fine</note>".to_owned(),
    ]
    .iter()
    .filter_map(|xml| UnknownElement::from_xml(xml).ok())
    .collect();
    let mut state = AgentState {
        unknown,
        ..AgentState::default()
    };
    assert_eq!(names(&state.withhold_secrets()), ["note"]);
    let left: Vec<&str> = state.unknown.iter().map(UnknownElement::xml).collect();
    assert_eq!(left, ["<note>fine</note>", "<note>also fine</note>"]);
}

#[test]
fn secrets_are_found_in_any_field_as_state_put_names_them() {
    let state = AgentState {
        memory: Memory::from_json_text("{\"password\": \"hunter2\"}").ok(),
        ..AgentState::default()
    };
    let found: Vec<_> = state.find_secrets().into_iter().map(|(f, _)| f).collect();
    assert_eq!(found, ["memory"]);
    let state = AgentState {
        unknown: UnknownElement::from_xml(&format!(
            "<input_request><question>use {TOKEN}</question></input_request>"
        ))
        .into_iter()
        .collect(),
        ..AgentState::default()
    };
    let found: Vec<_> = state
        .find_secrets()
        .into_iter()
        .map(|(f, m)| (f, m.line, m.column))
        .collect();
    // Positions are those of the text as written, where it holds the token.
    assert_eq!(found, [("input_request".to_owned(), 1, 30)]);
}

#[test]
fn text_without_secrets_is_left_alone_whatever_it_holds() {
    let xml = "<agent-state version=\"2.1\"><intent>日本語 &amp; émoji 😀 &#x202E;</intent>\
               <memory>{\"k\": \"\\u00e9 \\\"q\\\"\"}</memory>\
               <plan><item status=\"done\">a &lt; b</item></plan><x a=\"&quot;\"><![CDATA[<y>]]></x>\
               </agent-state>";
    let state = parse_block(xml).unwrap();
    let mut withheld = state.clone();
    assert!(withheld.withhold_secrets().is_empty());
    assert_eq!(withheld, state);
}

#[test]
fn decoded_text_reads_references_cdata_and_attributes() {
    let text = decoded_text("<a k=\"v&amp;w\">x&#x41;y<![CDATA[<z>]]><!-- c --><b/>tail</a>");
    assert_eq!(text, "a\nk\nv&w\nxAy<z>\nb\ntail\n");
    // Malformed: what was read up to the error, and no panic.
    assert_eq!(decoded_text("<a>x&bogus;y</b>"), "a\nxy\n");
    assert_eq!(decoded_text(""), "");
}

proptest! {
    /// Whatever a state holds, nothing a scan finds is left after withholding, and
    /// only parts with a finding go.
    #[test]
    fn withholding_leaves_nothing_to_find(
        state in crate::agent_state::testing::agent_state(),
        secret in prop::sample::select(vec!["", TOKEN, "password=hunter2-correct"]),
        at in 0usize..4,
    ) {
        let mut state = state;
        let slot = match at {
            0 => &mut state.intent,
            1 => &mut state.step,
            2 => &mut state.agent,
            _ => &mut state.next_action,
        };
        *slot = Some(format!("{} {secret}", slot.clone().unwrap_or_default()));
        let before = state.find_secrets().len();
        let withheld = state.withhold_secrets();
        prop_assert!(state.find_secrets().is_empty());
        prop_assert_eq!(withheld.is_empty(), before == 0);
    }
}
