//! The byte-preserving writer: each changed field's value is spliced into the exact
//! source range of the old value, a missing field is added as one new line at the end
//! of the mapping, and every other byte (unknown fields, comments, key order, quoting
//! of other fields, line endings, the body) stays as it was. The document is never
//! serialized again.
//!
//! A new value keeps the old one's style when it can (plain stays plain, single quotes
//! stay single, a block list stays a block list at the same indentation) and falls back
//! to a double-quoted scalar or a flow list otherwise. The result is read back with
//! [`super::validate`] before it is returned: an edit that would not read back as the
//! value given is an error, never a silently different file.

use serde_saphyr::granit_parser::ScalarStyle;

use super::fields::{Field, Kind, Status, resolve_plain};
use super::time::parse_timestamp;
use super::yaml::{Node, Root, Scalar, Seq};
use super::{ContextFile, Problem, file_range, validate};

/// A field's new value: lists for `files_changed`/`next_steps`, text for the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    Text(String),
    List(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub field: Field,
    pub value: FieldValue,
}

impl Edit {
    pub fn text(field: Field, value: impl Into<String>) -> Edit {
        Edit {
            field,
            value: FieldValue::Text(value.into()),
        }
    }

    pub fn list(field: Field, items: Vec<String>) -> Edit {
        Edit {
            field,
            value: FieldValue::List(items),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("`{field}` takes {expected}")]
    WrongShape {
        field: &'static str,
        expected: &'static str,
    },
    #[error("`{field}` is given more than once")]
    Repeated { field: &'static str },
    #[error("`{field}`: {why}")]
    BadValue { field: &'static str, why: String },
    #[error("the edited file would not be valid: {}", join(.0))]
    Invalid(Vec<Problem>),
    #[error("`{field}` could not be written so that it reads back as given")]
    NotRoundTrip { field: &'static str },
}

fn join(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(Problem::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A change of the file's text: `range` replaced by `text`.
struct Splice {
    range: std::ops::Range<usize>,
    text: String,
}

impl ContextFile {
    /// The file's text with `edits` applied, everything else byte for byte as it was.
    pub fn edited(&self, edits: &[Edit]) -> Result<String, EditError> {
        for (index, edit) in edits.iter().enumerate() {
            check_value(edit)?;
            if edits[..index].iter().any(|e| e.field == edit.field) {
                return Err(EditError::Repeated {
                    field: edit.field.name(),
                });
            }
        }
        let mut splices = Vec::new();
        let mut inserted = String::new();
        for edit in edits {
            let entry = self.doc.entries.iter().find(|e| e.key == edit.field.name());
            match entry {
                Some(entry) => splices.push(self.replace(entry, &edit.value)),
                None => inserted.push_str(&self.new_entry(edit, inserted.is_empty())),
            }
        }
        if !inserted.is_empty() {
            let at = self.insertion_point();
            let needs_break = matches!(self.doc.root, Root::Empty | Root::Block { .. })
                && at > 0
                && self.text.as_bytes().get(at - 1) != Some(&b'\n');
            if needs_break {
                inserted.insert_str(0, self.layout.newline);
            }
            splices.push(Splice {
                range: at..at,
                text: inserted,
            });
        }
        splices.sort_by_key(|s| std::cmp::Reverse(s.range.start));
        let mut text = self.text.clone();
        for splice in splices {
            text.replace_range(splice.range, &splice.text);
        }
        let written = validate(&self.path, &text).map_err(EditError::Invalid)?;
        for edit in edits {
            if read_back(written.fields(), edit.field) != Some(edit.value.clone()) {
                return Err(EditError::NotRoundTrip {
                    field: edit.field.name(),
                });
            }
        }
        Ok(text)
    }

    fn replace(&self, entry: &super::yaml::Entry, value: &FieldValue) -> Splice {
        let flow_context = self.doc.root.is_flow();
        match (&entry.value, value) {
            (Node::Scalar(scalar), FieldValue::Text(new)) => {
                let text = render_scalar(new, Some(scalar.style), flow_context);
                self.replace_scalar(entry, scalar, text)
            }
            (Node::Scalar(scalar), FieldValue::List(items)) => {
                self.replace_scalar(entry, scalar, render_flow_list(items))
            }
            (Node::Seq(seq), FieldValue::List(items)) => {
                let Seq {
                    flow,
                    start,
                    end,
                    indent,
                    ..
                } = &**seq;
                if *flow {
                    return Splice {
                        range: file_range(&self.layout, *start..*end),
                        text: render_flow_list(items),
                    };
                }
                if items.is_empty() {
                    // `[]` where the first `-` was could sit at the key's own column,
                    // which YAML reads as something else: it goes after the colon.
                    let colon = self.after_colon(entry);
                    return Splice {
                        range: file_range(&self.layout, colon..*end),
                        text: " []".to_owned(),
                    };
                }
                Splice {
                    range: file_range(&self.layout, *start..*end),
                    text: render_block_items(items, *indent, self.layout.newline),
                }
            }
            // A valid file has the field's type; other shapes were refused by validate,
            // and the read-back check would refuse whatever this wrote.
            (_, value) => {
                let text = match value {
                    FieldValue::Text(t) => render_scalar(t, None, flow_context),
                    FieldValue::List(items) => render_flow_list(items),
                };
                let at = self.after_colon(entry);
                Splice {
                    range: file_range(&self.layout, at..at),
                    text: format!(" {text}"),
                }
            }
        }
    }

    /// Replaces a scalar's source: a null written as nothing gets the value after its
    /// colon; a block scalar is replaced from its `|`/`>` indicator; the line breaks
    /// that ended the old value are kept.
    fn replace_scalar(&self, entry: &super::yaml::Entry, scalar: &Scalar, text: String) -> Splice {
        let yaml = self.text.get(self.layout.yaml.clone()).unwrap_or("");
        if scalar.span.is_empty() {
            let colon = self.after_colon(entry);
            return Splice {
                range: file_range(&self.layout, colon..colon),
                text: format!(" {text}"),
            };
        }
        let mut start = scalar.span.start;
        if matches!(scalar.style, ScalarStyle::Literal | ScalarStyle::Folded) {
            start = block_indicator(yaml, entry.key_span.end, scalar.span.start).unwrap_or(start);
        }
        let old = yaml.get(start..scalar.span.end).unwrap_or("");
        let trailing = old.strip_prefix(old.trim_end()).unwrap_or("");
        Splice {
            range: file_range(&self.layout, start..scalar.span.end),
            text: format!("{text}{trailing}"),
        }
    }

    /// Just after the `:` that follows a key (a null written as nothing sits there).
    fn after_colon(&self, entry: &super::yaml::Entry) -> usize {
        let yaml = self.text.get(self.layout.yaml.clone()).unwrap_or("");
        yaml.get(entry.key_span.end..)
            .and_then(|rest| rest.find(':'))
            .map_or(entry.key_span.end, |i| entry.key_span.end + i + 1)
    }

    /// One new `key: value` line (or `, key: value` in a flow mapping).
    fn new_entry(&self, edit: &Edit, first: bool) -> String {
        let name = edit.field.name();
        match self.doc.root {
            Root::Flow { .. } => {
                let value = match &edit.value {
                    FieldValue::Text(t) => render_scalar(t, None, true),
                    FieldValue::List(items) => render_flow_list(items),
                };
                let separator = if first && self.doc.entries.is_empty() {
                    ""
                } else {
                    ", "
                };
                format!("{separator}{name}: {value}")
            }
            Root::Empty | Root::Block { .. } => {
                let indent = match self.doc.root {
                    Root::Block { indent } => indent,
                    _ => 0,
                };
                let pad = " ".repeat(indent);
                let nl = self.layout.newline;
                match &edit.value {
                    FieldValue::Text(t) => {
                        format!("{pad}{name}: {}{nl}", render_scalar(t, None, false))
                    }
                    FieldValue::List(items) if items.is_empty() => format!("{pad}{name}: []{nl}"),
                    FieldValue::List(items) => format!(
                        "{pad}{name}:{nl}{}{}{nl}",
                        " ".repeat(indent + 2),
                        render_block_items(items, indent + 2, nl)
                    ),
                }
            }
        }
    }

    /// Where new keys go: before an explicit `...`, before a flow mapping's `}`, else at
    /// the end of the YAML.
    fn insertion_point(&self) -> usize {
        match (&self.doc.root, self.doc.end_marker) {
            (Root::Flow { close }, _) => self.layout.yaml.start + close,
            (_, Some(marker)) => self.layout.yaml.start + marker,
            _ => self.layout.yaml.end,
        }
    }
}

fn check_value(edit: &Edit) -> Result<(), EditError> {
    let name = edit.field.name();
    match (&edit.value, edit.field.is_list()) {
        (FieldValue::List(_), false) => Err(EditError::WrongShape {
            field: name,
            expected: "a string",
        }),
        (FieldValue::Text(_), true) => Err(EditError::WrongShape {
            field: name,
            expected: "a list of strings",
        }),
        (FieldValue::Text(t), false) => match edit.field {
            Field::Status if Status::parse(t).is_none() => Err(EditError::BadValue {
                field: name,
                why: "use one of active, paused, completed".to_owned(),
            }),
            Field::CreatedAt | Field::UpdatedAt => {
                parse_timestamp(t)
                    .map(|_| ())
                    .map_err(|why| EditError::BadValue {
                        field: name,
                        why: why.to_owned(),
                    })
            }
            _ => Ok(()),
        },
        (FieldValue::List(_), true) => Ok(()),
    }
}

fn read_back(fields: &super::Fields, field: Field) -> Option<FieldValue> {
    let text = |v: &Option<String>| v.clone().map(FieldValue::Text);
    match field {
        Field::Id => text(&fields.id),
        Field::User => text(&fields.user),
        Field::Location => text(&fields.location),
        Field::Purpose => text(&fields.purpose),
        Field::CreatedAt => fields
            .created_at
            .as_ref()
            .map(|t| FieldValue::Text(t.text.clone())),
        Field::UpdatedAt => fields
            .updated_at
            .as_ref()
            .map(|t| FieldValue::Text(t.text.clone())),
        Field::Status => fields.status.map(|s| FieldValue::Text(s.name().to_owned())),
        Field::FilesChanged => fields.files_changed.clone().map(FieldValue::List),
        Field::NextSteps => fields.next_steps.clone().map(FieldValue::List),
    }
}

/// The offset of a block scalar's `|` or `>` between the key's end and the content.
fn block_indicator(yaml: &str, key_end: usize, content: usize) -> Option<usize> {
    let between = yaml.get(key_end..content)?;
    let colon = between.find(':')?;
    let mut offset = key_end + colon + 1;
    for token in yaml.get(offset..content)?.split_inclusive([' ', '\t']) {
        let word = token.trim_end_matches([' ', '\t']);
        if word.starts_with(['|', '>']) {
            return Some(offset);
        }
        if !(word.is_empty() || word.starts_with(['!', '&'])) {
            return None;
        }
        offset += token.len();
    }
    None
}

/// `- a⏎  - b` for a block list whose first `-` is already in place at `indent`.
fn render_block_items(items: &[String], indent: usize, newline: &str) -> String {
    let pad = " ".repeat(indent);
    items
        .iter()
        .map(|item| format!("- {}", render_scalar(item, None, false)))
        .collect::<Vec<_>>()
        .join(&format!("{newline}{pad}"))
}

fn render_flow_list(items: &[String]) -> String {
    let items: Vec<String> = items
        .iter()
        .map(|item| render_scalar(item, None, true))
        .collect();
    format!("[{}]", items.join(", "))
}

/// A scalar that reads back as `value`, in `preferred` style when that style can hold it.
pub(crate) fn render_scalar(value: &str, preferred: Option<ScalarStyle>, flow: bool) -> String {
    match preferred {
        Some(ScalarStyle::SingleQuoted) if single_ok(value) => {
            format!("'{}'", value.replace('\'', "''"))
        }
        Some(ScalarStyle::DoubleQuoted) => double_quoted(value),
        _ if plain_ok(value, flow) => value.to_owned(),
        _ => double_quoted(value),
    }
}

/// YAML's printable characters, less line breaks and the BOM.
fn printable_inline(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
        && c != '\u{2028}'
        && c != '\u{2029}'
}

fn single_ok(value: &str) -> bool {
    value.chars().all(printable_inline)
}

/// Conservative: a plain scalar that no YAML reader could take for anything else.
fn plain_ok(value: &str, flow: bool) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let safe_char = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '_' | '.' | '/' | '-' | '+' | '@' | '(' | ')' | ' ' | ':' | '~'
            )
            || (!c.is_ascii() && printable_inline(c) && !c.is_whitespace())
    };
    let flow_safe = !flow || !value.contains([':', ',', '[', ']', '{', '}']);
    (first.is_ascii_alphanumeric() || first == '_' || first == '/' || first == '.')
        && value.chars().all(safe_char)
        && !value.ends_with([' ', ':'])
        && !value.contains(": ")
        && !value.contains("  ")
        && flow_safe
        && resolve_plain(value) == Kind::Str
}

fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if printable_inline(c) => out.push(c),
            c if u32::from(c) <= 0xff => out.push_str(&format!("\\x{:02X}", u32::from(c))),
            c if u32::from(c) <= 0xffff => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_plain_only_when_unambiguous() {
        let plain = |v: &str| render_scalar(v, None, false);
        assert_eq!(plain("active"), "active");
        assert_eq!(plain("src/auth.ts"), "src/auth.ts");
        assert_eq!(
            plain("2025-12-30T10:00:00+01:00"),
            "2025-12-30T10:00:00+01:00"
        );
        assert_eq!(plain("Run the tests again"), "Run the tests again");
        for quoted in [
            "", "42", "true", "null", "~", "a: b", "#x", "- x", " a", "a ", "a #b", "x\ny", "[x]",
            "'q'", "*a", "&a", "!t", "%p", "@x", "`x`",
        ] {
            assert!(
                plain(quoted).starts_with('"'),
                "{quoted:?} → {}",
                plain(quoted)
            );
        }
        assert_eq!(render_scalar("a:b", None, true), "\"a:b\"");
        assert_eq!(render_scalar("a,b", None, true), "\"a,b\"");
    }

    #[test]
    fn styles_are_kept_when_they_can_hold_the_value() {
        assert_eq!(
            render_scalar("it's", Some(ScalarStyle::SingleQuoted), false),
            "'it''s'"
        );
        assert_eq!(
            render_scalar("a\nb", Some(ScalarStyle::SingleQuoted), false),
            "\"a\\nb\""
        );
        assert_eq!(
            render_scalar("plain", Some(ScalarStyle::DoubleQuoted), false),
            "\"plain\""
        );
        assert_eq!(render_scalar("x", Some(ScalarStyle::Literal), false), "x");
    }

    #[test]
    fn double_quoting_escapes_what_yaml_cannot_show() {
        assert_eq!(
            double_quoted("q\"\\\u{0}\u{7f}\u{85}\u{2028}\u{feff}é😀"),
            "\"q\\\"\\\\\\x00\\x7F\\x85\\u2028\\uFEFFé😀\""
        );
    }

    #[test]
    fn block_indicators_are_found_past_tags_and_anchors() {
        let yaml = "k: !!str &a |+ # c\n  x\n";
        let content = yaml.find("  x").unwrap() + 2;
        assert_eq!(
            block_indicator(yaml, 1, content),
            Some(yaml.find('|').unwrap())
        );
        assert_eq!(block_indicator("k: x\n", 1, 3), None);
    }
}
