//! The corpus (the RFC's own files and the cases its origins trip on), round trips that
//! prove the writer touches only the edited field, and hostile input.

use proptest::prelude::*;

use super::*;

const RFC_EXAMPLE: &str = include_str!("../../../../tests/data/assistant_context/rfc_example.md");
const RFC_TEMPLATE: &str = include_str!("../../../../tests/data/assistant_context/rfc_template.md");

/// Unknown fields of every shape, comments everywhere, several quoting styles.
const UNKNOWN_AND_COMMENTS: &str = "---\n\
# session file, hand edited\n\
id: ctx-7   # stable\n\
model: {name: claude, window: 200000}\n\
purpose: >-\n  Migrate the\n  auth module\n\
tags: [auth, 'migration']\n\
status: paused # waiting for review\n\
files_changed:\n  - src/auth.rs   # new\n  - 'docs/auth.md'\n\
extra:\n  nested:\n    - 1\n    - {a: b}\n\
next_steps: []\n\
---\n# Log\n\n- did things\n";

const CRLF: &str = "---\r\nid: crlf\r\nupdated_at: 2025-12-30T12:00:00Z\r\nnext_steps:\r\n  - one\r\n  - two\r\nnote: keep me\r\n---\r\nBody line 1\r\nBody line 2\r\n";

const NO_BODY: &str = "---\nid: nobody\nstatus: completed\n---";

const YAML_FILE: &str = "# ASSISTANT_CONTEXT.yaml\nid: yaml-ctx\nuser: 'Ada'\nfiles_changed: [a.rs, \"b c.rs\"]\nstatus: active\n";

fn ok(path: &str, text: &str) -> ContextFile {
    match validate(path, text) {
        Ok(file) => file,
        Err(problems) => panic!("{path} should be valid: {problems:#?}"),
    }
}

fn problems(path: &str, text: &str) -> Vec<String> {
    match validate(path, text) {
        Ok(_) => panic!("{path} should be invalid"),
        Err(problems) => problems.iter().map(Problem::to_string).collect(),
    }
}

/// The byte range of `old` that differs from `new` (common prefix and suffix removed).
fn changed_region(old: &str, new: &str) -> std::ops::Range<usize> {
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    prefix..old.len() - suffix
}

/// Where `field`'s entry sits in the file: from its key to the next key (or the end of
/// the YAML); `None` when the file does not set it.
fn entry_region(file: &ContextFile, field: Field) -> Option<std::ops::Range<usize>> {
    let entries = &file.doc.entries;
    let index = entries.iter().position(|e| e.key == field.name())?;
    let start = file.layout.yaml.start + entries[index].key_span.start;
    let end = entries.get(index + 1).map_or(file.layout.yaml.end, |e| {
        file.layout.yaml.start + e.key_span.start
    });
    Some(start..end)
}

/// Every other field, the unknown keys and the body read the same before and after.
fn assert_only_changed(before: &ContextFile, after: &ContextFile, field: Field) {
    let mut expected = before.fields().clone();
    let mut actual = after.fields().clone();
    clear(&mut expected, field);
    clear(&mut actual, field);
    assert_eq!(actual, expected);
    assert_eq!(after.unknown_fields(), before.unknown_fields());
    assert_eq!(after.body(), before.body());
}

fn clear(fields: &mut Fields, field: Field) {
    match field {
        Field::Id => fields.id = None,
        Field::CreatedAt => fields.created_at = None,
        Field::UpdatedAt => fields.updated_at = None,
        Field::User => fields.user = None,
        Field::Location => fields.location = None,
        Field::Purpose => fields.purpose = None,
        Field::FilesChanged => fields.files_changed = None,
        Field::NextSteps => fields.next_steps = None,
        Field::Status => fields.status = None,
    }
}

fn sample_edit(field: Field) -> Edit {
    match field {
        Field::FilesChanged | Field::NextSteps => Edit::list(
            field,
            vec![
                "src/new file.rs".into(),
                "it's: \"quoted\"".into(),
                "ünïcode".into(),
            ],
        ),
        Field::CreatedAt | Field::UpdatedAt => Edit::text(field, "2026-01-02T03:04:05+02:00"),
        Field::Status => Edit::text(field, "completed"),
        _ => Edit::text(field, "a new value: with # and 'quotes'"),
    }
}

/// Edits each field of `text` in turn and checks that only that field's entry changed
/// (or, for a field the file lacks, that the old text survives whole).
fn check_every_field_edit(path: &str, text: &str) {
    let before = ok(path, text);
    for field in Field::ALL {
        let edit = sample_edit(field);
        let written = before
            .edited(std::slice::from_ref(&edit))
            .unwrap_or_else(|e| panic!("{path}: editing {}: {e}", field.name()));
        let after = ok(path, &written);
        assert_only_changed(&before, &after, field);
        let region = changed_region(text, &written);
        match entry_region(&before, field) {
            Some(entry) => assert!(
                region.is_empty() || (entry.start <= region.start && region.end <= entry.end),
                "{path}: editing {} changed bytes {region:?} outside its entry {entry:?}:\n{written}",
                field.name()
            ),
            None => assert!(
                region.is_empty(),
                "{path}: adding {} changed old bytes",
                field.name()
            ),
        }
        if before.layout.newline == "\r\n" {
            assert!(
                !written.replace("\r\n", "").contains('\n'),
                "{path}: LF written into a CRLF file"
            );
        }
    }
}

#[test]
fn the_rfc_example_is_valid_and_typed() {
    let file = ok("tools/crontab-custom-ia/ASSISTANT_CONTEXT.md", RFC_EXAMPLE);
    let fields = file.fields();
    assert_eq!(fields.id.as_deref(), Some("crontab-custom-ia-2025-12-30"));
    assert_eq!(fields.location.as_deref(), Some("Valencia, España"));
    assert_eq!(fields.status, Some(Status::Active));
    assert_eq!(fields.files_changed.as_ref().map(Vec::len), Some(8));
    assert_eq!(
        fields.created_at.as_ref().map(|t| t.instant.to_rfc3339()),
        Some("2025-12-30T12:00:00+01:00".to_owned())
    );
    assert!(file.body().is_some_and(|b| b.starts_with("\nShort log:")));
    assert!(file.unknown_fields().is_empty());
    assert!(file.warnings().is_empty());
}

#[test]
fn the_rfc_template_is_refused_where_its_prose_breaks_the_yaml() {
    insta::assert_debug_snapshot!(problems("ASSISTANT_CONTEXT_TEMPLATE.md", RFC_TEMPLATE), @r#"
    [
        "ASSISTANT_CONTEXT_TEMPLATE.md:4:1: `front matter`: the YAML is a scalar, not a mapping of fields such as `id: …`",
    ]
    "#);
}

#[test]
fn corpus_round_trips_touch_only_the_edited_field() {
    for (path, text) in [
        ("ASSISTANT_CONTEXT.md", RFC_EXAMPLE),
        ("ASSISTANT_CONTEXT.md", UNKNOWN_AND_COMMENTS),
        ("ASSISTANT_CONTEXT.md", CRLF),
        ("ASSISTANT_CONTEXT.md", NO_BODY),
        ("ASSISTANT_CONTEXT.yaml", YAML_FILE),
        ("ASSISTANT_CONTEXT.yaml", "{id: flow, status: active}\n"),
        ("ASSISTANT_CONTEXT.yaml", ""),
        ("ASSISTANT_CONTEXT.md", "---\n---\n"),
        (
            "ASSISTANT_CONTEXT.md",
            "---\nid: x\npurpose: |\n  two\n  lines\n\nstatus: active\n---\n",
        ),
        (
            "ASSISTANT_CONTEXT.md",
            "---\n  id: indented\n  next_steps:\n  - a\n---\n",
        ),
        (
            "ASSISTANT_CONTEXT.md",
            "---\nid:\nnext_steps: ~\nuser: !!str 42\n---\n",
        ),
        ("ASSISTANT_CONTEXT.yaml", "id: no-final-newline"),
        ("ASSISTANT_CONTEXT.yaml", "id: ended\n...\n"),
    ] {
        check_every_field_edit(path, text);
    }
}

#[test]
fn an_edit_keeps_comments_style_and_unknown_fields_byte_for_byte() {
    let file = ok("ASSISTANT_CONTEXT.md", UNKNOWN_AND_COMMENTS);
    let written = file
        .edited(&[
            Edit::text(Field::Status, "active"),
            Edit::list(
                Field::FilesChanged,
                vec!["src/auth.rs".into(), "src/session.rs".into()],
            ),
            Edit::text(Field::Purpose, "Finish the migration"),
            Edit::text(Field::UpdatedAt, "2026-01-02T03:04:05Z"),
        ])
        .expect("edits apply");
    insta::assert_snapshot!(written, @r"
    ---
    # session file, hand edited
    id: ctx-7   # stable
    model: {name: claude, window: 200000}
    purpose: Finish the migration
    tags: [auth, 'migration']
    status: active # waiting for review
    files_changed:
      - src/auth.rs
      - src/session.rs
    extra:
      nested:
        - 1
        - {a: b}
    next_steps: []
    updated_at: 2026-01-02T03:04:05Z
    ---
    # Log

    - did things
    ");
}

#[test]
fn crlf_files_stay_crlf() {
    let file = ok("ASSISTANT_CONTEXT.md", CRLF);
    let written = file
        .edited(&[
            Edit::list(Field::NextSteps, vec!["three".into()]),
            Edit::text(Field::Purpose, "new purpose"),
        ])
        .expect("edits apply");
    assert_eq!(
        written,
        "---\r\nid: crlf\r\nupdated_at: 2025-12-30T12:00:00Z\r\nnext_steps:\r\n  - three\r\nnote: keep me\r\npurpose: new purpose\r\n---\r\nBody line 1\r\nBody line 2\r\n"
    );
}

#[test]
fn files_without_a_body_and_yaml_files() {
    let file = ok("ASSISTANT_CONTEXT.md", NO_BODY);
    assert_eq!(file.body(), Some(""));
    assert_eq!(file.fields().status, Some(Status::Completed));
    let yaml = ok("ctx/ASSISTANT_CONTEXT.yaml", YAML_FILE);
    assert_eq!(yaml.body(), None);
    assert_eq!(
        yaml.fields().files_changed,
        Some(vec!["a.rs".to_owned(), "b c.rs".to_owned()])
    );
    let written = yaml
        .edited(&[Edit::list(Field::FilesChanged, vec!["x, y".into()])])
        .expect("edit");
    assert_eq!(
        written,
        "# ASSISTANT_CONTEXT.yaml\nid: yaml-ctx\nuser: 'Ada'\nfiles_changed: [\"x, y\"]\nstatus: active\n"
    );
}

#[test]
fn missing_fields_are_tolerated_and_added_at_the_end() {
    let file = ok("ASSISTANT_CONTEXT.md", "---\n---\nbody\n");
    assert_eq!(file.fields(), &Fields::default());
    let written = file
        .edited(&[
            Edit::text(Field::Status, "paused"),
            Edit::list(Field::NextSteps, vec!["ask: the human".into()]),
        ])
        .expect("edit");
    assert_eq!(
        written,
        "---\nstatus: paused\nnext_steps:\n  - \"ask: the human\"\n---\nbody\n"
    );
}

#[test]
fn invalid_files_name_file_line_column_and_field() {
    let cases = [
        (
            "---\nid: [unclosed\nstatus: active\n---\n",
            "ASSISTANT_CONTEXT.md",
        ),
        (
            "---\nid: 42\ncreated_at: 2025-12-30\nupdated_at: yesterday\nstatus: done\nfiles_changed: src/a.rs\nnext_steps:\n  - ok\n  - [nested]\nanchor: &a x\nuser: *a\n---\n",
            "ASSISTANT_CONTEXT.md",
        ),
        (
            "---\nid: a\nid: b\n<<: {x: 1}\nlocation: !secret x\n---\n",
            "ASSISTANT_CONTEXT.md",
        ),
        ("# no front matter\n", "ASSISTANT_CONTEXT.md"),
        ("---\nid: a\n", "ASSISTANT_CONTEXT.md"),
        ("- a\n- b\n", "ASSISTANT_CONTEXT.yaml"),
        ("id: a\n---\nid: b\n", "ASSISTANT_CONTEXT.yaml"),
        ("? [complex]\n: key\n", "ASSISTANT_CONTEXT.yaml"),
    ];
    let shown: Vec<Vec<String>> = cases
        .iter()
        .map(|(text, path)| problems(path, text))
        .collect();
    insta::assert_debug_snapshot!(shown, @r#"
    [
        [
            "ASSISTANT_CONTEXT.md:3:7: `id`: invalid YAML: illegal placement of ':' indicator",
        ],
        [
            "ASSISTANT_CONTEXT.md:2:5: `id`: `id` must be a string, but `42` is read as a number; quote it",
            "ASSISTANT_CONTEXT.md:3:13: `created_at`: `created_at` has a date but no time and time zone; write e.g. 2025-12-30T10:00:00+01:00 (found `2025-12-30`)",
            "ASSISTANT_CONTEXT.md:4:13: `updated_at`: `updated_at` is not an ISO 8601 date and time with a time zone, such as 2025-12-30T10:00:00+01:00 or 2025-12-30T09:00:00Z (found `yesterday`)",
            "ASSISTANT_CONTEXT.md:5:9: `status`: `status` is `done`; use one of active, paused, completed",
            "ASSISTANT_CONTEXT.md:6:16: `files_changed`: `files_changed` must be a list of strings (`- item` lines or `[\"a\", \"b\"]`), but is a string",
            "ASSISTANT_CONTEXT.md:9:5: `next_steps`: item 2 is a list; each item must be a string",
            "ASSISTANT_CONTEXT.md:11:7: `user`: an alias (`*name`) is not allowed for a known field; write the value out",
        ],
        [
            "ASSISTANT_CONTEXT.md:3:1: `id`: `id` appears more than once (first on line 2); keep one",
            "ASSISTANT_CONTEXT.md:4:1: `<<`: a merge key (`<<`) is not allowed at the top level; write the fields out",
            "ASSISTANT_CONTEXT.md:5:19: `location`: the tag `!secret` is not allowed here; remove it (values are plain YAML)",
        ],
        [
            "ASSISTANT_CONTEXT.md:1:1: `front matter`: no YAML front matter: an ASSISTANT_CONTEXT.md starts with a line `---`, then the fields, then a closing line `---`",
        ],
        [
            "ASSISTANT_CONTEXT.md:1:1: `front matter`: the front matter is not closed: add a line `---` after the fields",
        ],
        [
            "ASSISTANT_CONTEXT.yaml:1:1: `document`: the YAML is a list, not a mapping of fields such as `id: …`",
        ],
        [
            "ASSISTANT_CONTEXT.yaml:2:1: `document`: the file holds more than one YAML document; keep one mapping of fields",
        ],
        [
            "ASSISTANT_CONTEXT.yaml:1:3: `document`: a key must be a plain name such as `purpose`, not a list or mapping",
        ],
    ]
    "#);
}

#[test]
fn a_secret_is_named_by_field_and_line_never_by_value() {
    let token = format!("ghp_{}", "a1B2".repeat(9));
    let text = format!(
        "---\nid: ctx\nnext_steps:\n  - \"use token {token}\"\n---\nLog: exported AWS key AKIA{}\n",
        "Q4TJ7WRX2MZK5LBN"
    );
    let found = problems("ASSISTANT_CONTEXT.md", &text);
    assert_eq!(
        found,
        [
            "ASSISTANT_CONTEXT.md:4:16: `next_steps`: holds a plaintext secret (GitHub token); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store",
            "ASSISTANT_CONTEXT.md:6:23: `body`: holds a plaintext secret (AWS access key ID); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store",
        ]
    );
    assert!(
        found
            .iter()
            .all(|p| !p.contains(&token) && !p.contains("AKIAQ4TJ"))
    );
    // An edit that would write a secret is refused the same way.
    let file = ok("ASSISTANT_CONTEXT.md", RFC_EXAMPLE);
    let refused = file.edited(&[Edit::text(Field::Purpose, format!("password={token}"))]);
    let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("`purpose`: holds a plaintext secret (GitHub token)"),
        "{message}"
    );
    assert!(!message.contains(&token));
}

#[test]
fn updated_before_created_is_a_warning() {
    let file = ok(
        "ASSISTANT_CONTEXT.md",
        "---\ncreated_at: 2025-12-30T12:00:00Z\nupdated_at: 2025-12-30T11:00:00Z\n---\n",
    );
    let warnings: Vec<String> = file.warnings().iter().map(Problem::to_string).collect();
    assert_eq!(
        warnings,
        [
            "ASSISTANT_CONTEXT.md:3:13: `updated_at`: `updated_at` (2025-12-30T11:00:00Z) is earlier than `created_at` (2025-12-30T12:00:00Z)"
        ]
    );
}

#[test]
fn edits_are_checked_before_writing() {
    let file = ok("ASSISTANT_CONTEXT.md", RFC_EXAMPLE);
    let errors: Vec<String> = [
        vec![Edit::text(Field::Status, "done")],
        vec![Edit::text(Field::UpdatedAt, "now")],
        vec![Edit::text(Field::FilesChanged, "a.rs")],
        vec![Edit::list(Field::Id, vec![])],
        vec![Edit::text(Field::Id, "a"), Edit::text(Field::Id, "b")],
    ]
    .iter()
    .map(|edits| {
        file.edited(edits)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    })
    .collect();
    insta::assert_debug_snapshot!(errors, @r#"
    [
        "`status`: use one of active, paused, completed",
        "`updated_at`: is not an ISO 8601 date and time with a time zone, such as 2025-12-30T10:00:00+01:00 or 2025-12-30T09:00:00Z",
        "`files_changed` takes a list of strings",
        "`id` takes a string",
        "`id` is given more than once",
    ]
    "#);
}

#[test]
fn huge_and_deep_documents_are_refused_quickly() {
    let huge = "x".repeat(MAX_FILE_BYTES + 1);
    assert!(problems("ASSISTANT_CONTEXT.md", &huge)[0].contains("more than the"));
    let deep = |n: usize| format!("---\nextra: {}{}\n---\n", "[".repeat(n), "]".repeat(n));
    assert!(problems("ASSISTANT_CONTEXT.md", &deep(100))[0].contains("nests deeper than 64"));
    // The parser's own limit stops far deeper input before any walk.
    assert!(problems("ASSISTANT_CONTEXT.md", &deep(100_000))[0].contains("recursion limit"));
    // Reading stops at the values budget, wherever the values are.
    let many = |n: usize| format!("---\nid: a\nextra: [{}]\n---\n", "b,".repeat(n));
    assert!(ok("ASSISTANT_CONTEXT.md", &many(MAX_NODES - 5)).unknown_fields() == ["extra"]);
    assert_eq!(
        problems("ASSISTANT_CONTEXT.md", &many(MAX_NODES - 4)),
        [format!(
            "ASSISTANT_CONTEXT.md:3:{}: `extra`: the YAML holds more than {MAX_NODES} values \
             (keys, values and list items), the limit for a context file; keep it to the \
             session's context and link to bulk data",
            9 + 2 * (MAX_NODES - 5)
        )]
    );
}

/// A front matter made of known and unknown entries in random styles.
fn document() -> impl Strategy<Value = (String, &'static str)> {
    let text_value = prop_oneof![
        "[a-z][a-z0-9 _./-]{0,12}[a-z]",
        "[ -~]{0,16}".prop_map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))),
        "[ -~]{0,16}".prop_map(|s| format!("'{}'", s.replace('\'', "''"))),
        Just("|\n  block one\n  block two\n".to_owned()),
        Just("".to_owned()),
    ];
    let list_value = prop_oneof![
        Just("[]".to_owned()),
        prop::collection::vec("[a-z]{1,6}", 1..4).prop_map(|v| format!("[{}]", v.join(", "))),
        prop::collection::vec("[a-z./]{1,8}", 1..4)
            .prop_map(|v| v.iter().map(|i| format!("\n  - {i}")).collect::<String>()),
        prop::collection::vec("[a-z]{1,6}", 1..3)
            .prop_map(|v| v.iter().map(|i| format!("\n- {i} # c")).collect::<String>()),
    ];
    let entry = prop_oneof![
        text_value.clone().prop_map(|v| format!("id: {v}")),
        text_value.clone().prop_map(|v| format!("purpose: {v}")),
        text_value.clone().prop_map(|v| format!("location: {v}")),
        Just("status: paused".to_owned()),
        Just("created_at: \"2025-12-30T12:00:00+01:00\"".to_owned()),
        list_value
            .clone()
            .prop_map(|v| format!("files_changed: {v}")),
        list_value.prop_map(|v| format!("next_steps: {v}")),
        "[a-z]{1,6}_x".prop_map(|k| format!("{k}: {{a: [1, 2], b: 'c'}}")),
        "[a-z]{1,6}_y".prop_map(|k| format!("{k}:\n  deep:\n    - x")),
        Just("# a comment line".to_owned()),
    ];
    (
        prop::collection::vec(entry, 0..8),
        any::<bool>(),
        "[ -~\n]{0,40}",
    )
        .prop_map(|(entries, crlf, body)| {
            let mut seen = std::collections::HashSet::new();
            let kept: Vec<String> = entries
                .into_iter()
                .filter(|e| {
                    e.starts_with('#') || seen.insert(e.split(':').next().unwrap_or("").to_owned())
                })
                .collect();
            let mut text = format!("---\n{}\n---\n{body}", kept.join("\n"));
            text = text.replace("\n\n---", "\n---");
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            (text, "ASSISTANT_CONTEXT.md")
        })
}

fn new_value() -> impl Strategy<Value = (Field, FieldValue)> {
    let text = prop_oneof![
        "[a-z0-9 ]{1,20}",
        any::<String>(),
        Just("a: b # c".to_owned()),
        Just("'\"\\\n\t".to_owned()),
        Just("42".to_owned()),
        Just("".to_owned()),
    ];
    prop_oneof![
        (
            prop::sample::select(vec![
                Field::Id,
                Field::User,
                Field::Location,
                Field::Purpose
            ]),
            text.clone()
        )
            .prop_map(|(f, t)| (f, FieldValue::Text(t))),
        prop::sample::select(vec!["active", "paused", "completed"])
            .prop_map(|s| (Field::Status, FieldValue::Text(s.to_owned()))),
        Just((
            Field::UpdatedAt,
            FieldValue::Text("2026-02-03T04:05:06.7-03:00".to_owned())
        )),
        (
            prop::sample::select(vec![Field::FilesChanged, Field::NextSteps]),
            prop::collection::vec(text, 0..4)
        )
            .prop_map(|(f, items)| (f, FieldValue::List(items))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn changing_one_field_keeps_every_other_byte((text, path) in document(), (field, value) in new_value()) {
        let Ok(before) = validate(path, &text) else {
            // The generator makes valid files; any that is not is someone else's bug.
            return Err(TestCaseError::reject("invalid generated document"));
        };
        let edit = Edit { field, value };
        match before.edited(std::slice::from_ref(&edit)) {
            Err(EditError::Invalid(problems)) => {
                // Only a value that holds a secret may be refused.
                prop_assert!(problems.iter().all(|p| p.message.contains("plaintext")), "{problems:?}");
            }
            Err(other) => prop_assert!(false, "{other}"),
            Ok(written) => {
                let after = validate(path, &written).map_err(|p| TestCaseError::fail(format!("{p:?}")))?;
                assert_only_changed(&before, &after, field);
                let region = changed_region(&text, &written);
                match entry_region(&before, field) {
                    Some(entry) => prop_assert!(region.is_empty() || (entry.start <= region.start && region.end <= entry.end),
                        "changed {:?} outside {:?}:\n{}", region, entry, written),
                    None => prop_assert!(region.is_empty()),
                }
            }
        }
    }

    #[test]
    fn any_text_is_validated_without_panicking(text in any::<String>(), yaml in any::<bool>()) {
        let path = if yaml { "ASSISTANT_CONTEXT.yaml" } else { "ASSISTANT_CONTEXT.md" };
        let _ = validate(path, &text);
        let _ = validate(path, &format!("---\n{text}\n---\n"));
    }
}
