//! `ASSISTANT_CONTEXT.md` / `.yaml` (RFC 0001): a parser, validator and byte-preserving
//! writer. Pure: text in, a [`ContextFile`] or the [`Problem`]s out, and edited text
//! back; reading files and walking the repository live in `app::context`.
//!
//! [`validate`] is the one entry point (the review gate and `council context` call it).
//! A file is valid when its YAML reads as one mapping, every known field has the RFC's
//! type, and no part of it (front matter or body) holds a plaintext secret as
//! [`crate::secrets`] detects them. Missing fields are tolerated; unknown fields, comments,
//! key order, line endings and the body are never touched by [`ContextFile::edited`],
//! which splices new values into the exact source ranges of the old ones instead of
//! serializing the document again.
//!
//! Modules, each depending only on those before it: `problem` (what is wrong, where),
//! `split` (front matter and body), `yaml` (the top level with byte spans), `time`
//! (ISO 8601 with a zone), `fields` (types), `edit` (the writer), `sync` (the mapping to
//! and from `<agent-state>`).
//!
//! ```
//! use council_protocol::assistant_context::validate;
//!
//! let good = "---\nid: ctx-7\nstatus: paused\nnext_steps: [run the e2e suite]\nowner: bob\n---\nNotes.\n";
//! let file = validate("ASSISTANT_CONTEXT.md", good).expect("valid");
//! assert_eq!(file.unknown_fields(), ["owner"]); // kept byte for byte on rewrite
//! assert_eq!(file.body(), Some("Notes.\n"));
//!
//! let bad = "---\nid: ctx-7\nstatus: sleeping\n---\n";
//! let problems = validate("ASSISTANT_CONTEXT.md", bad).unwrap_err();
//! assert_eq!((problems[0].line, problems[0].field.as_str()), (3, "status"));
//! ```

mod edit;
mod fields;
mod problem;
mod split;
pub mod sync;
mod time;
mod yaml;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::ops::Range;

pub use edit::{Edit, EditError, FieldValue};
pub use fields::{Field, Fields, Status, Timestamp};
pub use problem::{MAX_PROBLEMS, Problem};
pub use split::Format;
pub use time::parse_timestamp;
pub use yaml::MAX_NODES;

use crate::secrets::find_secrets;
use problem::{At, Problems};
use split::Layout;
use yaml::{Doc, Root};

/// Files larger than this are refused unread (a context file is a page or two).
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// A valid ASSISTANT_CONTEXT file: its typed fields, and what the writer needs to edit
/// it in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    path: String,
    text: String,
    format: Format,
    layout: Layout,
    doc: Doc,
    fields: Fields,
    warnings: Vec<Problem>,
}

impl ContextFile {
    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The file's text, exactly as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// Top-level keys the RFC does not define, in file order.
    pub fn unknown_fields(&self) -> Vec<&str> {
        self.doc
            .entries
            .iter()
            .map(|e| e.key.as_str())
            .filter(|k| Field::from_name(k).is_none())
            .collect()
    }

    /// The Markdown after the front matter (`None` for a `.yaml` file).
    pub fn body(&self) -> Option<&str> {
        self.layout.body.clone().and_then(|r| self.text.get(r))
    }

    /// Things worth a look that do not make the file invalid (e.g. `updated_at`
    /// before `created_at`).
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// The text of a new, empty file at `path`: front matter delimiters for Markdown,
    /// nothing for YAML. Its [`validate`] is a file without fields.
    pub fn empty_text(path: &str) -> &'static str {
        match Format::of_path(path) {
            Format::Markdown => "---\n---\n",
            Format::Yaml => "",
        }
    }
}

/// Reads and checks one file. `path` is only used in problems (and to tell `.yaml`
/// from Markdown); `text` is the whole file. Every problem names the file, line, column
/// and field; a secret is named by its kind, field and line, never by its value.
pub fn validate(path: &str, text: &str) -> Result<ContextFile, Vec<Problem>> {
    let mut problems = Problems::new(path);
    if text.len() > MAX_FILE_BYTES {
        problems.push(
            At { line: 1, column: 1 },
            "document",
            format!(
                "the file is {} bytes, more than the {MAX_FILE_BYTES} bytes a context file may be",
                text.len()
            ),
        );
        return Err(problems.into_vec());
    }
    let format = Format::of_path(path);
    let container = match format {
        Format::Markdown => "front matter",
        Format::Yaml => "document",
    };
    let layout = match split::split(text, format) {
        Ok(layout) => layout,
        Err((at, message)) => {
            problems.push(at, container, message);
            report_secrets(&mut problems, text, None, None);
            return Err(problems.into_vec());
        }
    };
    let yaml = text.get(layout.yaml.clone()).unwrap_or("");
    // Only the RFC's fields are typed; the values of other keys are walked, not built.
    let doc = match yaml::read(yaml, layout.yaml_first_line, |key| {
        Field::from_name(key).is_some()
    }) {
        Ok(doc) => Some(doc),
        Err(error) => {
            let field = error.field.as_deref().unwrap_or(container);
            problems.push(error.at, field, error.message);
            None
        }
    };
    let mut fields = Fields::default();
    if let Some(doc) = &doc {
        check_entries(doc, &mut fields, &mut problems);
    }
    report_secrets(&mut problems, text, Some(&layout), doc.as_ref());
    let (Some(doc), true) = (doc, problems.is_empty()) else {
        return Err(problems.into_vec());
    };
    let warnings = warnings(path, &fields, &doc);
    Ok(ContextFile {
        path: path.to_owned(),
        text: text.to_owned(),
        format,
        layout,
        doc,
        fields,
        warnings,
    })
}

fn check_entries(doc: &Doc, fields: &mut Fields, problems: &mut Problems) {
    // The line each key is first seen on: one lookup per entry, where a search of the
    // entries before it made 180,000 keys take two minutes.
    let mut first_line: HashMap<&str, usize> = HashMap::with_capacity(doc.entries.len());
    for entry in &doc.entries {
        if let Some(&first) = first_line.get(entry.key.as_str()) {
            problems.push_with(entry.key_at, &entry.key, || {
                format!(
                    "`{}` appears more than once (first on line {first}); keep one",
                    entry.key
                )
            });
            continue;
        }
        first_line.insert(&entry.key, entry.key_at.line);
        if entry.key == "<<" {
            problems.push(
                entry.key_at,
                "<<",
                "a merge key (`<<`) is not allowed at the top level; write the fields out",
            );
            continue;
        }
        if let Some(field) = Field::from_name(&entry.key)
            && let Err(problem) = fields::set(fields, field, &entry.value)
        {
            problems.push(problem.at, field.name(), problem.message);
        }
    }
}

/// One problem per secret, named by the field whose text holds it.
fn report_secrets(problems: &mut Problems, text: &str, layout: Option<&Layout>, doc: Option<&Doc>) {
    for found in find_secrets(text) {
        let field = field_at(found.range.start, layout, doc);
        problems.push_with(
            At {
                line: found.line,
                column: found.column,
            },
            field,
            || {
                format!(
                    "holds a plaintext secret ({}); RFC 0001 forbids secrets in \
                     ASSISTANT_CONTEXT files: point to an environment variable or a secret store",
                    found.kind
                )
            },
        );
    }
}

/// The top-level key whose entry holds byte `offset` of the file, or `body`/`front
/// matter`/`document` outside any entry.
fn field_at<'d>(offset: usize, layout: Option<&Layout>, doc: Option<&'d Doc>) -> &'d str {
    let Some(layout) = layout else {
        return "document";
    };
    if layout.body.as_ref().is_some_and(|b| b.contains(&offset)) {
        return "body";
    }
    let container = if layout.body.is_some() {
        "front matter"
    } else {
        "document"
    };
    let Some(doc) = doc else {
        return container;
    };
    if !layout.yaml.contains(&offset) {
        return container;
    }
    let local = offset - layout.yaml.start;
    // Entries are in file order: a binary search, where a scan per secret made a file
    // of one secret per line quadratic.
    let after = doc.entries.partition_point(|e| e.key_span.start <= local);
    after
        .checked_sub(1)
        .and_then(|i| doc.entries.get(i))
        .map_or(container, |e| e.key.as_str())
}

fn warnings(path: &str, fields: &Fields, doc: &Doc) -> Vec<Problem> {
    let mut warnings = Problems::new(path);
    if let (Some(created), Some(updated)) = (&fields.created_at, &fields.updated_at)
        && updated.instant < created.instant
    {
        let at = doc
            .entries
            .iter()
            .find(|e| e.key == "updated_at")
            .map_or(At::default(), |e| e.value.at());
        warnings.push(
            at,
            "updated_at",
            format!(
                "`updated_at` ({}) is earlier than `created_at` ({})",
                updated.text, created.text
            ),
        );
    }
    warnings.into_vec()
}

/// Where a top-level entry's value sits in the file, for the writer.
pub(crate) fn file_range(layout: &Layout, local: Range<usize>) -> Range<usize> {
    layout.yaml.start + local.start..layout.yaml.start + local.end
}

impl Root {
    fn is_flow(&self) -> bool {
        matches!(self, Root::Flow { .. })
    }
}
