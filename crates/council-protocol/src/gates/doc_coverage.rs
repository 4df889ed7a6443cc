//! `doc_coverage`: a change under the `code` globs comes with a change under the `docs`
//! globs; each `map` pair is checked on its own.

use super::{Check, Fix, Gate, GateOutcome};
use crate::render::text::Message;
use crate::review::ReviewFacts;
use crate::review::paths::PathGlobs;

pub const GATE: Gate = Gate {
    name: "doc_coverage",
    action: "check:doc-coverage",
    config_key: "review.docs",
    check: Check::Review(check),
};

/// One `code` → `docs` pair as the diff meets it.
struct Pair<'a> {
    key: String,
    code_globs: &'a [String],
    docs_globs: &'a [String],
    code_changed: Vec<&'a str>,
    docs_changed: bool,
}

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    let config = facts.policy.docs.as_ref()?;
    if let Some(label) = facts.labelled(config.skip_label.as_ref()) {
        return Some(GATE.pass(skipped(label)));
    }
    let mut wanted = vec![("review.docs".to_string(), &config.code, &config.docs)];
    wanted.extend(
        config
            .map
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("review.docs.map[{i}]"), &p.code, &p.docs)),
    );
    let mut pairs = Vec::new();
    for (key, code, docs) in wanted {
        let (Ok(code_globs), Ok(doc_globs)) = (PathGlobs::new(code), PathGlobs::new(docs)) else {
            return Some(GATE.fail(
                Message::new().text(format!("{key}: a glob is too complex to match.")),
                None,
            ));
        };
        pairs.push(Pair {
            key,
            code_globs: code,
            docs_globs: docs,
            code_changed: facts.diff.paths().filter(|p| code_globs.matches(p)).collect(),
            docs_changed: facts.diff.paths().any(|p| doc_globs.matches(p)),
        });
    }
    let missing: Vec<&Pair> = pairs
        .iter()
        .filter(|p| !p.code_changed.is_empty() && !p.docs_changed)
        .collect();
    if !missing.is_empty() {
        let mut message = Message::new();
        for (i, pair) in missing.iter().enumerate() {
            if i > 0 {
                message = message.text(" ");
            }
            let n = pair.code_changed.len();
            message = message.text(format!(
                "{}: {n} file{} changed under ",
                pair.key,
                if n == 1 { "" } else { "s" }
            ));
            message = globs(message, pair.code_globs)
                .text(" (e.g. ")
                .value(pair.code_changed[0])
                .text("), but none under ");
            message = globs(message, pair.docs_globs).text(".");
        }
        return Some(GATE.fail(message, Some(fix(config.skip_label.as_deref()))));
    }
    let unproven: Vec<&Pair> = pairs.iter().filter(|p| !p.docs_changed).collect();
    if facts.diff.capped && !unproven.is_empty() {
        return Some(GATE.fail(
            Message::new().text(format!(
                "{}, and no docs change was among them: the {} files beyond may change code \
                 without docs, so {} cannot be shown to hold.",
                crate::review::diff::cap_note(),
                facts.diff.total_files.saturating_sub(facts.diff.files.len() as u64),
                unproven[0].key
            )),
            Some(fix(config.skip_label.as_deref())),
        ));
    }
    let with_code = pairs.iter().filter(|p| !p.code_changed.is_empty()).count();
    Some(GATE.pass(Message::new().text(match with_code {
        0 => "No file under the code globs changed.".to_string(),
        n => format!("Every code change comes with a docs change ({n} pair{} checked).", if n == 1 { "" } else { "s" }),
    })))
}

/// The globs as values (code in Markdown, quoted in plain text), comma separated.
fn globs(mut message: Message, globs: &[String]) -> Message {
    for (i, glob) in globs.iter().enumerate() {
        if i > 0 {
            message = message.text(", ");
        }
        message = message.value(glob);
    }
    message
}

fn skipped(label: &str) -> Message {
    Message::new()
        .text("Skipped: the pull request has the label ")
        .value(label)
        .text(" (review.docs.skip_label).")
}

fn fix(skip_label: Option<&str>) -> Fix {
    let mut advice = Message::new().text("update the docs that describe this change in the same pull request");
    if let Some(label) = skip_label {
        advice = advice
            .text(", or add the label ")
            .value(label)
            .text(" when no docs apply");
    }
    Fix {
        advice: advice.text("."),
        commands: Vec::new(),
    }
}
