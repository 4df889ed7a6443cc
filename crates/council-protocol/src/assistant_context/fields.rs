//! The RFC's fields, their types, and how a top-level entry becomes a typed value.
//!
//! Rules where RFC 0001 is silent:
//! - Types follow the YAML 1.2 core schema: `id: 42` is a number, not a string, and is
//!   refused with a hint to quote it; a date is a string whose format is then checked.
//! - A field set to null (`purpose:`, `purpose: ~`) counts as missing: missing fields are
//!   tolerated.
//! - A known field may not be an alias or carry a tag other than the core ones: a
//!   reader without a YAML library (the origin's tools split lines) would misread it.
//! - A key that appears twice is a problem, whether known or not (YAML forbids it, and
//!   the two readers would disagree on which one counts).

use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use serde_saphyr::granit_parser::ScalarStyle;

use super::time::parse_timestamp;
use super::yaml::{Item, Node, Scalar, Tag, is_null};

/// A field of RFC 0001's front matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Id,
    CreatedAt,
    UpdatedAt,
    User,
    Location,
    Purpose,
    FilesChanged,
    NextSteps,
    Status,
}

impl Field {
    /// In the RFC's order.
    pub const ALL: [Field; 9] = [
        Field::Id,
        Field::CreatedAt,
        Field::UpdatedAt,
        Field::User,
        Field::Location,
        Field::Purpose,
        Field::FilesChanged,
        Field::NextSteps,
        Field::Status,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::CreatedAt => "created_at",
            Field::UpdatedAt => "updated_at",
            Field::User => "user",
            Field::Location => "location",
            Field::Purpose => "purpose",
            Field::FilesChanged => "files_changed",
            Field::NextSteps => "next_steps",
            Field::Status => "status",
        }
    }

    pub fn from_name(name: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.name() == name)
    }

    pub fn is_list(self) -> bool {
        matches!(self, Field::FilesChanged | Field::NextSteps)
    }
}

/// `status`: the RFC's enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Active,
    Paused,
    Completed,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Paused => "paused",
            Status::Completed => "completed",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        [Status::Active, Status::Paused, Status::Completed]
            .into_iter()
            .find(|s| s.name() == text)
    }
}

/// A timestamp as written, and the instant it names; serialized as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    pub text: String,
    pub instant: DateTime<FixedOffset>,
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// The fields a file sets; `None` = missing (or null).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fields {
    pub id: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub user: Option<String>,
    pub location: Option<String>,
    pub purpose: Option<String>,
    pub files_changed: Option<Vec<String>>,
    pub next_steps: Option<Vec<String>>,
    pub status: Option<Status>,
}

/// What a YAML scalar is under the core schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Int | Kind::Float => "a number",
            Kind::Str => "a string",
        }
    }
}

/// The core-schema type of a scalar: quoted and block scalars are strings, plain ones
/// are resolved, a core tag decides.
pub(crate) fn kind(scalar: &Scalar) -> Result<Kind, String> {
    match &scalar.tag {
        Some(Tag::Other(tag)) => {
            return Err(format!(
                "the tag `{tag}` is not allowed here; remove it (values are plain YAML)"
            ));
        }
        Some(Tag::Core(suffix)) => {
            return match suffix.as_str() {
                "str" => Ok(Kind::Str),
                "null" => Ok(Kind::Null),
                "bool" => Ok(Kind::Bool),
                "int" => Ok(Kind::Int),
                "float" => Ok(Kind::Float),
                other => Err(format!(
                    "the tag `!!{other}` is not allowed here; remove it"
                )),
            };
        }
        None => {}
    }
    if scalar.style != ScalarStyle::Plain {
        return Ok(Kind::Str);
    }
    Ok(resolve_plain(&scalar.value))
}

/// YAML 1.2 core schema resolution of a plain scalar.
pub(crate) fn resolve_plain(text: &str) -> Kind {
    if is_null(text) {
        return Kind::Null;
    }
    if matches!(text, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") {
        return Kind::Bool;
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if digits(unsigned, 10)
        || text.strip_prefix("0o").is_some_and(|s| digits(s, 8))
        || text.strip_prefix("0x").is_some_and(|s| digits(s, 16))
    {
        return Kind::Int;
    }
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return Kind::Float;
    }
    if is_float(unsigned) {
        return Kind::Float;
    }
    Kind::Str
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (text, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            whole.chars().all(|c| c.is_ascii_digit())
                && fraction.chars().all(|c| c.is_ascii_digit())
                && !(whole.is_empty() && fraction.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.chars().all(|c| c.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

/// A problem with one field, at the node it concerns.
pub(crate) struct FieldProblem {
    pub at: super::problem::At,
    pub message: String,
}

/// Reads a known field's value into `fields`.
pub(crate) fn set(fields: &mut Fields, field: Field, node: &Node) -> Result<(), FieldProblem> {
    let problem = |at, message: String| FieldProblem { at, message };
    let scalar = match node {
        Node::Alias { at } => {
            return Err(problem(
                *at,
                "an alias (`*name`) is not allowed for a known field; write the value out".into(),
            ));
        }
        Node::Map { at } => {
            return Err(problem(*at, expected(field, "a mapping")));
        }
        // Known fields are always read; a value left unread has no type to check.
        Node::Unread { .. } => return Ok(()),
        Node::Seq(seq) => {
            if !field.is_list() {
                return Err(problem(seq.at, expected(field, "a list")));
            }
            let mut values = Vec::with_capacity(seq.items.len());
            for (index, item) in seq.items.iter().enumerate() {
                match item {
                    Item::Other { at, what } => {
                        return Err(problem(
                            *at,
                            format!("item {} is {what}; each item must be a string", index + 1),
                        ));
                    }
                    Item::Scalar(s) => match kind(s) {
                        Ok(Kind::Str) => values.push(s.value.clone()),
                        Ok(other) => {
                            return Err(problem(
                                s.at,
                                format!(
                                    "item {} is {}; each item must be a string (quote it)",
                                    index + 1,
                                    other.describe()
                                ),
                            ));
                        }
                        Err(message) => return Err(problem(s.at, message)),
                    },
                }
            }
            match field {
                Field::FilesChanged => fields.files_changed = Some(values),
                _ => fields.next_steps = Some(values),
            }
            return Ok(());
        }
        Node::Scalar(scalar) => scalar,
    };
    let kind = kind(scalar).map_err(|message| problem(scalar.at, message))?;
    match kind {
        Kind::Null => return Ok(()),
        Kind::Str => {}
        other if field.is_list() => {
            return Err(problem(scalar.at, expected(field, other.describe())));
        }
        other => {
            return Err(problem(
                scalar.at,
                format!(
                    "`{}` must be a string, but `{}` is read as {}; quote it",
                    field.name(),
                    crate::chars::show_hidden(&scalar.value, 40),
                    other.describe()
                ),
            ));
        }
    }
    let text = scalar.value.clone();
    match field {
        Field::FilesChanged | Field::NextSteps => {
            return Err(problem(scalar.at, expected(field, "a string")));
        }
        Field::CreatedAt | Field::UpdatedAt => {
            let instant = parse_timestamp(&text).map_err(|why| {
                problem(
                    scalar.at,
                    format!(
                        "`{}` {why} (found `{}`)",
                        field.name(),
                        crate::chars::show_hidden(&text, 40)
                    ),
                )
            })?;
            let stamp = Some(Timestamp { text, instant });
            if field == Field::CreatedAt {
                fields.created_at = stamp;
            } else {
                fields.updated_at = stamp;
            }
        }
        Field::Status => {
            let status = Status::parse(&text).ok_or_else(|| {
                problem(
                    scalar.at,
                    format!(
                        "`status` is `{}`; use one of active, paused, completed",
                        crate::chars::show_hidden(&text, 40)
                    ),
                )
            })?;
            fields.status = Some(status);
        }
        Field::Id => fields.id = Some(text),
        Field::User => fields.user = Some(text),
        Field::Location => fields.location = Some(text),
        Field::Purpose => fields.purpose = Some(text),
    }
    Ok(())
}

fn expected(field: Field, found: &str) -> String {
    if field.is_list() {
        format!(
            "`{}` must be a list of strings (`- item` lines or `[\"a\", \"b\"]`), but is {found}",
            field.name()
        )
    } else {
        format!("`{}` must be a string, but is {found}", field.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_schema_resolution() {
        for (text, kind) in [
            ("", Kind::Null),
            ("~", Kind::Null),
            ("NULL", Kind::Null),
            ("True", Kind::Bool),
            ("yes", Kind::Str),
            ("42", Kind::Int),
            ("-7", Kind::Int),
            ("0x1F", Kind::Int),
            ("0o17", Kind::Int),
            ("3.14", Kind::Float),
            (".5", Kind::Float),
            ("1e3", Kind::Float),
            ("-.inf", Kind::Float),
            (".NaN", Kind::Float),
            ("1.2.3", Kind::Str),
            ("2025-12-30T10:00:00+01:00", Kind::Str),
            ("e3", Kind::Str),
            (".", Kind::Str),
            ("active", Kind::Str),
        ] {
            assert_eq!(resolve_plain(text), kind, "{text}");
        }
    }
}
