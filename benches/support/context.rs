//! Worst-case ASSISTANT_CONTEXT files of (nearly) the 1 MiB a context file may be, shared
//! by the `context` benchmark and the test that checks what each one is judged (the
//! test asserts verdicts, never times). benches/context_worst.py writes the same shapes to
//! disk to time the release binary.

/// The size every case fills up to; the validator refuses anything larger unread.
pub const LIMIT: usize = 1 << 20;

/// A realistic-looking (fake) GitHub token, so the secret scanner treats it as one.
pub const TOKEN: &str = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";

/// One case: its name, the path it is validated under (which decides `.md` or `.yaml`)
/// and its text.
pub struct Case {
    pub name: String,
    pub path: &'static str,
    pub text: String,
}

/// Every shape, once as YAML and once as the front matter of a Markdown file (plus a
/// huge Markdown body, which only Markdown has).
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (name, build) in SHAPES {
        for (format, path) in [
            ("yaml", "ASSISTANT_CONTEXT.yaml"),
            ("md", "ASSISTANT_CONTEXT.md"),
        ] {
            // The front matter's two delimiter lines take their bytes from the budget.
            let (head, tail, budget) = match format {
                "md" => ("---\n", "---\n", LIMIT - 8),
                _ => ("", "", LIMIT),
            };
            let mut text = String::with_capacity(LIMIT);
            text.push_str(head);
            text.push_str(&build(budget));
            text.push_str(tail);
            out.push(Case {
                name: format!("{name}.{format}"),
                path,
                text,
            });
        }
    }
    let mut text = String::from("---\nid: ctx-1\nstatus: active\n---\n");
    let line = "- 2026-01-01: looked at `src/a.rs`, see <https://example.com> | a | b |\n";
    while text.len() + line.len() <= LIMIT {
        text.push_str(line);
    }
    out.push(Case {
        name: "huge_body.md".to_owned(),
        path: "ASSISTANT_CONTEXT.md",
        text,
    });
    out
}

type Shape = fn(usize) -> String;

pub const SHAPES: [(&str, Shape); 12] = [
    ("distinct_keys", distinct_keys),
    ("duplicate_keys", duplicate_keys),
    ("flow_sequence", flow_sequence),
    ("block_list", block_list),
    ("flow_mapping_of_lists", flow_mapping_of_lists),
    ("deep_flow", deep_flow),
    ("deep_block", deep_block),
    ("long_line", long_line),
    ("every_line_a_secret", every_line_a_secret),
    ("every_line_invalid", every_line_invalid),
    ("duplicates_up_to_the_budget", duplicates_up_to_the_budget),
    (
        "files_changed_up_to_the_budget",
        files_changed_up_to_the_budget,
    ),
];

/// Lines from `line(i)` while they fit in `budget` bytes.
fn fill(budget: usize, head: &str, line: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(budget);
    out.push_str(head);
    for i in 0.. {
        let next = line(i);
        if out.len() + next.len() > budget {
            break;
        }
        out.push_str(&next);
    }
    out
}

/// A short distinct key for `i`: letters and digits, shortest first.
pub fn key(mut i: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut out = String::new();
    loop {
        out.push(char::from(ALPHABET[i % ALPHABET.len()]));
        i /= ALPHABET.len();
        if i == 0 {
            return out;
        }
        i -= 1;
    }
}

/// ~209,000 unknown keys, all different, with null values: past the values budget.
fn distinct_keys(budget: usize) -> String {
    fill(budget, "", |i| format!("{}:\n", key(i)))
}

/// One key ~350,000 times: past the values budget.
fn duplicate_keys(budget: usize) -> String {
    fill(budget, "", |_| "a:\n".to_owned())
}

/// `files_changed` as one flow sequence of ~350,000 items on one line: past the budget.
fn flow_sequence(budget: usize) -> String {
    let mut out = fill(budget - 2, "files_changed: [a", |_| ", a".to_owned());
    out.push_str("]\n");
    out
}

/// `files_changed` as a block list of ~260,000 items: past the budget.
fn block_list(budget: usize) -> String {
    fill(budget, "files_changed:\n", |_| "- a\n".to_owned())
}

/// One flow mapping on one line whose ~100,000 values are lists: past the budget.
fn flow_mapping_of_lists(budget: usize) -> String {
    let mut out = fill(budget - 2, "{", |i| format!("x{}: [a], ", key(i)));
    out.push_str("}\n");
    out
}

/// `purpose` nested ~500,000 lists deep: refused at the depth limit, never recursed.
fn deep_flow(budget: usize) -> String {
    let depth = (budget - "purpose: \n".len()) / 2;
    format!("purpose: {}{}\n", "[".repeat(depth), "]".repeat(depth))
}

/// Block mappings nested as deep as indentation allows in the budget (~1,400 levels).
fn deep_block(budget: usize) -> String {
    let mut out = String::with_capacity(budget);
    for depth in 0.. {
        let line = format!("{}a:\n", " ".repeat(depth));
        if out.len() + line.len() > budget {
            break;
        }
        out.push_str(&line);
    }
    out
}

/// `purpose` as one line of ~1 MiB: valid.
fn long_line(budget: usize) -> String {
    let words = "lorem ipsum dolor sit amet ".repeat(budget / 27 + 1);
    let purpose = words
        .get(..budget - "purpose: \n".len())
        .unwrap_or("")
        .trim_end();
    format!("purpose: {purpose}\n")
}

/// Every line a distinct key holding a token: one problem per line.
fn every_line_a_secret(budget: usize) -> String {
    fill(budget, "", |i| format!("{}: {TOKEN}\n", key(i)))
}

/// Every line `status` with a value that is none of the three: the first line is a
/// wrong value, every later one a repeated key; past the budget.
fn every_line_invalid(budget: usize) -> String {
    fill(budget, "", |i| format!("status: s{i}\n"))
}

/// As many repeated keys as the values budget allows (one problem each), then one long
/// value up to the size limit: the most problems and the most text at once.
fn duplicates_up_to_the_budget(budget: usize) -> String {
    // The root mapping, each key and its value, and `z` with its value: all within.
    let keys = council_protocol::assistant_context::MAX_NODES / 2 - 2;
    padded("a:\n".repeat(keys), budget)
}

/// A valid `files_changed` of as many items as the values budget allows, then one long
/// value up to the size limit.
fn files_changed_up_to_the_budget(budget: usize) -> String {
    // The root mapping, the key, the list, and `z` with its value: all within.
    let items = council_protocol::assistant_context::MAX_NODES - 5;
    padded(format!("files_changed:\n{}", "- a\n".repeat(items)), budget)
}

/// `head` and then `z:` with a plain text that fills the file up to `budget` bytes.
fn padded(mut head: String, budget: usize) -> String {
    let room = budget.saturating_sub(head.len() + "z: \n".len());
    head.push_str("z: ");
    head.push_str(&"lorem ipsum ".repeat(room / 12 + 1)[..room]);
    head.push('\n');
    head
}
