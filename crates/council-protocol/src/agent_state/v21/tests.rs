//! The origin project's own v2.1 examples, each rule of the three elements, and round
//! trips through the writer.

use proptest::prelude::*;

use super::*;
use crate::agent_state::parse::parse_block;
use crate::agent_state::render::render_block;
use crate::agent_state::testing::hostile_text;

/// Git-Core-Protocol `docs/agent-docs/CONTEXT_PROTOCOL.md` (v2.1, d916c04), section 2.
const ORIGIN_FULL: &str = r#"<agent-state>
  <!-- 1. INTENCIÓN Y ESTADO -->
  <intent>implement_auth_flow</intent>
  <step>waiting_for_input</step>
  <progress>45</progress>

  <!-- 2. PLANIFICACIÓN DINÁMICA (Dynamic Workflow) -->
  <plan>
    <item status="done">Analizar requisitos de OAuth</item>
    <item status="done">Crear estructura de base de datos</item>
    <item status="in_progress">Implementar endpoints de API</item>
    <item status="pending">Crear frontend de login</item>
    <item status="pending">Tests de integración</item>
  </plan>

  <!-- 3. HUMAN AS A TOOL (Input Request) -->
  <!-- Usar cuando se necesita información específica, no solo aprobación -->
  <input_request>
    <status>waiting</status> <!-- waiting | received | none -->
    <question>¿Cuál es el Client ID de Google para el entorno de staging?</question>
  </input_request>

  <!-- 4. OBSERVABILIDAD (Metrics) -->
  <!-- Para detectar bucles o consumo excesivo -->
  <metrics>
    <tool_calls>12</tool_calls>
    <errors>0</errors>
    <cost_estimate>0.15</cost_estimate>
  </metrics>

  <!-- 5. MEMORIA TÉCNICA -->
  <memory>
    {
      "last_file_edited": "src/auth/router.ts",
      "db_migration_applied": "20251203_init_users",
      "blockers": []
    }
  </memory>

  <next_action>check_user_response</next_action>
</agent-state>"#;

/// The same document, section 4: the agent's answer after the human replied.
const ORIGIN_RECEIVED: &str = r#"<agent-state>
  <step>coding</step>
  <input_request>
    <status>received</status>
  </input_request>
  <plan>
    <item status="in_progress">Configurar servicio de email</item>
  </plan>
</agent-state>"#;

fn v21_of(xml: &str) -> V21 {
    read(&parse_block(xml).expect("the block parses"))
}

#[test]
fn the_origin_full_example_reads_every_element() {
    let v21 = v21_of(ORIGIN_FULL);
    assert_eq!(v21.warnings, Vec::<String>::new());
    let plan = v21.plan.clone().unwrap_or_default();
    assert_eq!(plan.len(), 5);
    assert_eq!(
        plan[2],
        PlanItem {
            status: PlanStatus::InProgress,
            text: "Implementar endpoints de API".into()
        }
    );
    assert_eq!(
        v21.open_question(),
        Some("¿Cuál es el Client ID de Google para el entorno de staging?")
    );
    assert_eq!(
        v21.metrics,
        Some(Metrics {
            tool_calls: Some(12),
            errors: Some(0),
            cost_estimate: Some(0.15),
            generated_at: None
        })
    );
    insta::assert_json_snapshot!(v21, @r#"
    {
      "plan": [
        {
          "status": "done",
          "text": "Analizar requisitos de OAuth"
        },
        {
          "status": "done",
          "text": "Crear estructura de base de datos"
        },
        {
          "status": "in_progress",
          "text": "Implementar endpoints de API"
        },
        {
          "status": "pending",
          "text": "Crear frontend de login"
        },
        {
          "status": "pending",
          "text": "Tests de integración"
        }
      ],
      "input_request": {
        "status": "waiting",
        "question": "¿Cuál es el Client ID de Google para el entorno de staging?",
        "open": true
      },
      "metrics": {
        "tool_calls": 12,
        "errors": 0,
        "cost_estimate": 0.15,
        "generated_at": null
      }
    }
    "#);
}

#[test]
fn any_status_but_answered_is_open_and_kept_as_written() {
    for (status, open) in [
        ("open", true),
        ("Pending", true),
        ("needs-human", true),
        ("waiting", true),
        ("received", true),
        ("\n      needs-human\n    ", true),
        ("answered", false),
        ("Answered", false),
        (" ANSWERED ", false),
    ] {
        let v21 = v21_of(&format!(
            "<agent-state><input_request><status>{status}</status>\
             <question>Which region?</question></input_request></agent-state>"
        ));
        assert_eq!(v21.warnings, Vec::<String>::new(), "{status:?}");
        let request = v21.input_request.clone().expect("request");
        assert_eq!(request.status.as_deref(), Some(status.trim()));
        assert_eq!(request.is_open(), open, "{status:?}");
        assert_eq!(
            v21.open_question(),
            open.then_some("Which region?"),
            "{status:?}"
        );
    }
}

#[test]
fn an_answered_request_needs_no_question_but_an_open_one_does() {
    let answered = v21_of(
        "<agent-state><input_request><status>Answered</status></input_request></agent-state>",
    );
    assert_eq!(answered.warnings, Vec::<String>::new());
    assert_eq!(answered.open_question(), None);
    // The origin's "the human replied" example: `received` is not `answered`, so the
    // agent is told which word closes a request rather than silently left open.
    let received = v21_of(ORIGIN_RECEIVED);
    insta::assert_debug_snapshot!(received.warnings, @r#"
    [
        "`<input_request>` was not read: the request is open (status `received`; only `answered` closes it) but has no `<question>` for the human",
    ]
    "#);
    assert_eq!(received.input_request, None);
    assert_eq!(received.plan.map(|p| p.len()), Some(1));
}

#[test]
fn a_status_is_written_escaped_and_reads_back_as_given() {
    let request = InputRequest::new(
        Some("needs <human> & \"more\"".to_owned()),
        Some("q".to_owned()),
    );
    let xml = render_input_request(&request);
    assert!(
        xml.contains("<status>needs &lt;human&gt; &amp; &quot;more&quot;</status>"),
        "{xml}"
    );
    let mut state = AgentState::default();
    replace_element(&mut state, UnknownElement::from_xml(&xml).expect("valid"));
    let back = read(&parse_block(&render_block(&state)).expect("parses"));
    assert_eq!(back.input_request, Some(request));
}

#[test]
fn a_bad_element_is_a_warning_and_the_rest_still_counts() {
    let xml = "<agent-state><step>coding</step>\
        <plan><item status=\"blocked\">x</item></plan>\
        <input_request><status>waiting</status></input_request>\
        <metrics><tool_calls>-3</tool_calls></metrics></agent-state>";
    let state = parse_block(xml).expect("the block still parses");
    assert_eq!(state.step.as_deref(), Some("coding"));
    let v21 = read(&state);
    assert_eq!(
        (v21.plan, v21.input_request, v21.metrics),
        (None, None, None)
    );
    insta::assert_debug_snapshot!(v21.warnings, @r#"
    [
        "`<plan>` was not read: item 1 has status `blocked`; use pending, in_progress or done",
        "`<input_request>` was not read: the request is open (status `waiting`; only `answered` closes it) but has no `<question>` for the human",
        "`<metrics>` was not read: `<tool_calls>` is `-3`; expected a whole number ≥ 0",
    ]
    "#);
}

#[test]
fn each_rule_has_its_message() {
    let cases = [
        "<plan><step>x</step></plan>",
        "<plan><item>no status</item></plan>",
        "<plan><item status=\"done\">  </item></plan>",
        "<plan>loose text</plan>",
        "<plan><item status=\"done\">a<b/></item></plan>",
        "<input_request><status>maybe</status></input_request>",
        "<input_request><question>a</question><question>b</question></input_request>",
        "<input_request><answer>x</answer></input_request>",
        "<metrics><tool_calls>1.5</tool_calls></metrics>",
        "<metrics><cost_estimate>$3</cost_estimate></metrics>",
        "<metrics><cost_estimate>-0.1</cost_estimate></metrics>",
        "<metrics><generated_at>2025-12-03T10:00:00</generated_at></metrics>",
        "<metrics><toolcalls>3</toolcalls></metrics>",
        "<metrics><errors>1</errors><errors>2</errors></metrics>",
        "<plan/><plan/>",
    ];
    let warnings: Vec<String> = cases
        .iter()
        .map(|inner| {
            v21_of(&format!("<agent-state>{inner}</agent-state>"))
                .warnings
                .join(" | ")
        })
        .collect();
    insta::assert_debug_snapshot!(warnings, @r#"
    [
        "`<plan>` was not read: `<step>` is not allowed in `<plan>`; write each step as `<item status=\"pending\">…</item>`",
        "`<plan>` was not read: item 1 has no `status`; use pending, in_progress or done",
        "`<plan>` was not read: item 1 has no text",
        "`<plan>` was not read: text `loose text` sits directly inside `<plan>`; put it in a child element",
        "`<plan>` was not read: `<item>` must hold plain text but contains the element `<b>`",
        "`<input_request>` was not read: the request is open (status `maybe`; only `answered` closes it) but has no `<question>` for the human",
        "`<input_request>` was not read: `<question>` appears more than once",
        "`<input_request>` was not read: `<answer>` is not allowed in `<input_request>`; it holds `<status>` and `<question>`",
        "`<metrics>` was not read: `<tool_calls>` is `1.5`; expected a whole number ≥ 0",
        "`<metrics>` was not read: `<cost_estimate>` is `$3`; expected a number ≥ 0 such as 0.15",
        "`<metrics>` was not read: `<cost_estimate>` is `-0.1`; expected a number ≥ 0 such as 0.15",
        "`<metrics>` was not read: `<generated_at>` has no time zone; add `Z` for UTC or an offset such as +01:00 (found `2025-12-03T10:00:00`)",
        "`<metrics>` was not read: `<toolcalls>` is not a metric; use tool_calls, errors, cost_estimate or generated_at",
        "`<metrics>` was not read: `<errors>` appears more than once",
        "`<plan>` appears 2 times; keep one (none of them was read)",
    ]
    "#);
}

#[test]
fn the_loop_threshold_is_the_callers() {
    let metrics = |calls| Metrics {
        tool_calls: calls,
        ..Metrics::default()
    };
    assert_eq!(metrics(Some(5)).too_many_tool_calls(3), Some(5));
    assert_eq!(metrics(Some(20)).too_many_tool_calls(50), None);
    assert_eq!(metrics(Some(16)).too_many_tool_calls(15), Some(16));
    assert_eq!(metrics(Some(15)).too_many_tool_calls(15), None);
    assert_eq!(metrics(Some(1)).too_many_tool_calls(0), Some(1));
    assert_eq!(metrics(None).too_many_tool_calls(0), None);
}

#[test]
fn empty_and_missing_elements() {
    let v21 = v21_of("<agent-state><plan/><input_request/><metrics/></agent-state>");
    assert_eq!(v21.warnings, Vec::<String>::new());
    assert_eq!(v21.plan, Some(vec![]));
    assert_eq!(v21.input_request.map(|r| r.open), Some(false));
    assert_eq!(v21.metrics, Some(Metrics::default()));
    assert_eq!(v21_of("<agent-state/>"), V21::default());
}

#[test]
fn replacing_an_element_keeps_its_place_and_drops_copies() {
    let mut state = parse_block(
        "<agent-state><plan/><friction>kept</friction><plan><item status=\"done\">old</item></plan></agent-state>",
    )
    .expect("parses");
    let plan = render_plan(&[PlanItem {
        status: PlanStatus::Pending,
        text: "new".into(),
    }]);
    replace_element(&mut state, UnknownElement::from_xml(&plan).expect("valid"));
    let names: Vec<&str> = state.unknown.iter().map(UnknownElement::name).collect();
    assert_eq!(names, ["plan", "friction"]);
    assert_eq!(
        read(&state).plan.map(|p| p[0].text.clone()),
        Some("new".to_owned())
    );
}

fn plan_status() -> impl Strategy<Value = PlanStatus> {
    prop::sample::select(vec![
        PlanStatus::Pending,
        PlanStatus::InProgress,
        PlanStatus::Done,
    ])
}

proptest! {
    #[test]
    fn written_elements_read_back(
        items in prop::collection::vec((plan_status(), hostile_text()), 0..5),
        question in hostile_text(),
        status in hostile_text(),
        tool_calls in any::<u64>(),
        cost in 0.0f64..1e9,
    ) {
        let items: Vec<PlanItem> = items
            .into_iter()
            .filter(|(_, t)| !t.trim().is_empty())
            .map(|(status, text)| PlanItem { status, text })
            .collect();
        let question = (!question.trim().is_empty()).then_some(question);
        let status = (!status.trim().is_empty()).then(|| status.trim().to_owned());
        let request = InputRequest::new(status, question.clone());
        let metrics = Metrics { tool_calls: Some(tool_calls), errors: Some(0), cost_estimate: Some(cost), generated_at: Some("2025-12-03T10:00:00Z".into()) };
        let mut state = AgentState::default();
        for xml in [render_plan(&items), render_input_request(&request), render_metrics(&metrics)] {
            let element = UnknownElement::from_xml(&xml);
            prop_assert!(element.is_ok(), "{xml}");
            replace_element(&mut state, element.unwrap_or_else(|_| unreachable!()));
        }
        let back = read(&parse_block(&render_block(&state)).map_err(|e| TestCaseError::fail(e.to_string()))?);
        prop_assert_eq!(back.plan, Some(items));
        prop_assert_eq!(back.metrics, Some(metrics));
        if !(request.open && request.question.is_none()) {
            prop_assert_eq!(back.warnings, Vec::<String>::new());
            prop_assert_eq!(back.input_request, Some(request));
        }
    }

    #[test]
    fn any_element_content_is_read_without_panicking(inner in hostile_text()) {
        for name in ELEMENTS {
            if let Ok(state) = parse_block(&format!("<agent-state><{name}>{inner}</{name}></agent-state>")) {
                let _ = read(&state);
            }
        }
    }
}
