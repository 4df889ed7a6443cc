//! Secrets in a state. A block is public to everyone who can read the issue, and what
//! is read from it goes on to step outputs, the step summary, `--json`, MCP answers and
//! the next block `state put` writes. So every field and element is looked at, with
//! the product's one scanner ([`crate::secrets`]), as written and as a reader decodes
//! it (XML references and CDATA, JSON escapes): `state put` refuses what it would add
//! ([`AgentState::find_secrets`]), and a reader takes out what a block already holds
//! ([`AgentState::withhold_secrets`]).
//!
//! On read the element is withheld and the rest of the block counts, as with a bad
//! v2.1 element; the block is not skipped. A human who pastes a token into a question
//! has made a mistake in one element, and skipping would set the state back to
//! an older block (the agent would redo work it has done) while the token stays on the
//! issue all the same. Withheld means gone from the state: not in any output, and not
//! carried into the next block, which is written without it. The comment itself is
//! left as it is: only a human can edit it and revoke the secret, and the warning
//! names the comment and the element (never the value) so that they can.
//!
//! The unit is the element: a `<plan>` with one item that holds a token is withheld
//! whole, since its source is what would be written back.

use std::borrow::Cow;

use serde::Serialize;

use crate::agent_state::error::ROOT;
use crate::agent_state::model::{AgentState, Memory};
use crate::agent_state::xml::decoded_text;
use crate::secrets::{SecretMatch, find_secrets};

/// An element taken out of a state read from a block because it holds a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Withheld {
    /// The element's name (`memory`, `input_request`, …), or `agent-state` for the
    /// attributes of the block's own tag.
    pub element: String,
    /// What the scanner saw, e.g. `GitHub token`; never the value.
    pub kind: &'static str,
}

/// Where in a state a text sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Agent,
    Intent,
    Step,
    Memory,
    NextAction,
    /// `state.unknown[n]`.
    Element(usize),
    /// The attributes of `<agent-state …>`.
    Root,
}

impl AgentState {
    /// Token patterns in any field or element (named by its element name, e.g.
    /// `plan`), with where they were found: in the text as written when it holds one
    /// there, else in the text as a reader decodes it.
    pub fn find_secrets(&self) -> Vec<(String, SecretMatch)> {
        scan(self)
            .into_iter()
            .flat_map(|(part, found)| {
                let name = name(self, part).to_owned();
                found.into_iter().map(move |m| (name.clone(), m))
            })
            .collect()
    }

    /// Takes out every field and element that holds a secret (the whole element, and
    /// for the block's attributes all of them), and says what was taken out, in block
    /// order; the rest of the state is untouched.
    pub fn withhold_secrets(&mut self) -> Vec<Withheld> {
        let found = scan(self);
        let withheld = found
            .iter()
            .filter_map(|(part, found)| {
                let first = found.first()?;
                Some(Withheld {
                    element: name(self, *part).to_owned(),
                    kind: first.kind.label(),
                })
            })
            .collect();
        // Elements by index, last first, so that the indices stay right.
        for (part, _) in found.iter().rev() {
            match *part {
                Part::Agent => self.agent = None,
                Part::Intent => self.intent = None,
                Part::Step => self.step = None,
                Part::Memory => self.memory = None,
                Part::NextAction => self.next_action = None,
                Part::Element(n) => {
                    self.unknown.remove(n);
                }
                Part::Root => self.root_attributes = Default::default(),
            }
        }
        withheld
    }
}

/// Each part of `state` that holds a secret, with what was found in it.
fn scan(state: &AgentState) -> Vec<(Part, Vec<SecretMatch>)> {
    let mut parts: Vec<(Part, Vec<Cow<'_, str>>)> = Vec::new();
    parts.push((Part::Agent, text(&state.agent)));
    parts.push((Part::Intent, text(&state.intent)));
    parts.push((Part::Step, text(&state.step)));
    if let Some(memory) = &state.memory {
        parts.push((Part::Memory, memory_forms(memory)));
    }
    parts.push((Part::NextAction, text(&state.next_action)));
    for (n, element) in state.unknown.iter().enumerate() {
        let forms = vec![
            Cow::Borrowed(element.xml()),
            Cow::Owned(decoded_text(element.xml())),
        ];
        parts.push((Part::Element(n), forms));
    }
    let root = state.root_attributes.as_str();
    if !root.is_empty() {
        let decoded = decoded_text(&format!("<{ROOT} {root}/>"));
        parts.push((Part::Root, vec![Cow::Borrowed(root), Cow::Owned(decoded)]));
    }
    parts
        .into_iter()
        .filter_map(|(part, forms)| {
            forms
                .iter()
                .map(|text| find_secrets(text))
                .find(|found| !found.is_empty())
                .map(|found| (part, found))
        })
        .collect()
}

fn text(value: &Option<String>) -> Vec<Cow<'_, str>> {
    value
        .as_deref()
        .map(|v| vec![Cow::Borrowed(v)])
        .unwrap_or_default()
}

/// The memory as written, and as JSON text without escapes (`\u0067hp_…` reads
/// `ghp_…` to every consumer of the value).
fn memory_forms(memory: &Memory) -> Vec<Cow<'_, str>> {
    let mut forms = vec![Cow::Borrowed(memory.as_str())];
    if let Ok(value) = memory.to_value() {
        forms.push(Cow::Owned(value.to_string()));
    }
    forms
}

fn name(state: &AgentState, part: Part) -> &str {
    match part {
        Part::Agent => "agent",
        Part::Intent => "intent",
        Part::Step => "step",
        Part::Memory => "memory",
        Part::NextAction => "next_action",
        Part::Element(n) => state.unknown.get(n).map_or("", |u| u.name()),
        Part::Root => ROOT,
    }
}

#[cfg(test)]
mod tests;
