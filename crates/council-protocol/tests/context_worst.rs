//! The worst-case 1 MiB ASSISTANT_CONTEXT files of the `context` benchmark get the right
//! verdict: valid ones are read whole, ones past the values budget are one problem where
//! it is passed, invalid ones list the first problems and count the rest, a deep nest is
//! an error and never a stack overflow, and no problem quotes the token planted on every
//! line. What they cost is the benchmark's business (`cargo
//! bench --bench context`, in the workspace's root package, whose inputs this test
//! shares); nothing here is timed.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message
#![allow(clippy::string_slice)] // test code: a panic there is a failing test

#[allow(dead_code)]
#[path = "../../../benches/support/context.rs"]
mod inputs;

use council_protocol::assistant_context::{
    ContextFile, MAX_NODES, MAX_PROBLEMS, Problem, validate,
};

fn verdict(case: &inputs::Case) -> Result<ContextFile, Vec<Problem>> {
    assert!(case.text.len() <= inputs::LIMIT, "{}", case.name);
    validate(case.path, &case.text)
}

/// The problems of an invalid case: at most a page of them, then one counting the rest.
fn listed(case: &inputs::Case) -> Vec<Problem> {
    match verdict(case) {
        Ok(_) => panic!("{} should be invalid", case.name),
        Err(problems) => {
            assert!(problems.len() <= MAX_PROBLEMS + 1, "{}", case.name);
            problems
        }
    }
}

fn count_of_the_rest(problems: &[Problem]) -> usize {
    let last = problems.last().expect("problems");
    let count = last
        .message
        .strip_prefix("and ")
        .and_then(|m| m.split_once(' '))
        .and_then(|(n, _)| n.parse().ok());
    count.unwrap_or_else(|| panic!("no count of the rest: {last}"))
}

fn assert_past_the_budget(problem: &Problem) {
    assert!(
        problem
            .message
            .starts_with(&format!("the YAML holds more than {MAX_NODES} values")),
        "{problem}"
    );
}

/// Lines the YAML starts after: the `---` of a Markdown file's front matter.
fn offset(case: &inputs::Case) -> usize {
    usize::from(case.name.ends_with(".md"))
}

#[test]
fn every_worst_case_gets_its_verdict() {
    let cases = inputs::cases();
    assert_eq!(cases.len(), 2 * inputs::SHAPES.len() + 1);
    for case in &cases {
        let shape = case.name.split('.').next().unwrap_or_default();
        let lines = case.text.lines().count() - 2 * offset(case);
        match shape {
            // Past the values budget: one problem, where the value past it sits (the root
            // mapping is value 1, the key on line n is value 2n and its value 2n + 1).
            "distinct_keys" | "duplicate_keys" | "every_line_invalid" => {
                let problems = listed(case);
                assert_eq!(problems.len(), 1, "{}: {problems:?}", case.name);
                let line = MAX_NODES / 2 + offset(case);
                let field = match shape {
                    "distinct_keys" => inputs::key(MAX_NODES / 2 - 1),
                    "duplicate_keys" => "a".to_owned(),
                    _ => "status".to_owned(),
                };
                assert_eq!((problems[0].line, &problems[0].field), (line, &field));
                assert_past_the_budget(&problems[0]);
            }
            "flow_sequence" | "block_list" => {
                let problems = listed(case);
                assert_eq!(problems.len(), 1, "{}: {problems:?}", case.name);
                assert_eq!(problems[0].field, "files_changed");
                assert_past_the_budget(&problems[0]);
            }
            "flow_mapping_of_lists" => {
                let problems = listed(case);
                assert_eq!(problems.len(), 1, "{}: {problems:?}", case.name);
                assert_past_the_budget(&problems[0]);
            }
            "duplicates_up_to_the_budget" => {
                let problems = listed(case);
                assert_eq!(problems.len(), MAX_PROBLEMS + 1);
                assert_eq!(
                    problems[0].to_string(),
                    format!(
                        "{}:{}:1: `a`: `a` appears more than once (first on line {}); keep one",
                        case.path,
                        2 + offset(case),
                        1 + offset(case)
                    )
                );
                assert_eq!(
                    problems[MAX_PROBLEMS - 1].line,
                    MAX_PROBLEMS + 1 + offset(case)
                );
                let last = &problems[MAX_PROBLEMS];
                assert_eq!(
                    (last.line, last.field.as_str()),
                    (MAX_PROBLEMS + 2 + offset(case), "a")
                );
                // Every `a` after the first is a problem: the listed ones and the rest.
                let keys = MAX_NODES / 2 - 2;
                assert_eq!(MAX_PROBLEMS + count_of_the_rest(&problems), keys - 1);
            }
            "files_changed_up_to_the_budget" => {
                let file = verdict(case).unwrap_or_else(|p| panic!("{}: {:?}", case.name, &p[..1]));
                let items = file.fields().files_changed.as_ref().map_or(0, Vec::len);
                assert_eq!(items, MAX_NODES - 5, "{}", case.name);
            }
            "deep_flow" | "deep_block" => {
                let problems = listed(case);
                assert_eq!(problems.len(), 1, "{}: {problems:?}", case.name);
                let message = &problems[0].message;
                assert!(
                    message.contains("nests deeper than") || message.contains("recursion limit"),
                    "{}: {message}",
                    case.name
                );
            }
            "long_line" => {
                let file = verdict(case).unwrap_or_else(|p| panic!("{}: {:?}", case.name, &p[..1]));
                let purpose = file.fields().purpose.as_deref().unwrap_or_default();
                assert!(purpose.len() > 1_000_000, "{}", case.name);
            }
            "every_line_a_secret" => {
                let problems = listed(case);
                assert_eq!(MAX_PROBLEMS + count_of_the_rest(&problems), lines);
                for (i, p) in problems[..MAX_PROBLEMS].iter().enumerate() {
                    assert_eq!(p.field, inputs::key(i), "{p}");
                    assert_eq!(p.line, i + 1 + offset(case), "{p}");
                    assert!(
                        p.message
                            .starts_with("holds a plaintext secret (GitHub token)"),
                        "{p}"
                    );
                }
                assert!(
                    problems
                        .iter()
                        .all(|p| !p.to_string().contains(&inputs::TOKEN[..12])),
                    "{}",
                    case.name
                );
            }
            "huge_body" => {
                let file = verdict(case).unwrap_or_else(|p| panic!("{}: {:?}", case.name, &p[..1]));
                assert!(file.body().map_or(0, str::len) > 1_000_000);
            }
            other => panic!("no verdict written for {other}"),
        }
    }
}
