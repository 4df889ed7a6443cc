//! How a value follows its key, read by hand: a pattern with capture groups for these
//! forms cost more per key than the whole rest of the scan.
//!
//! Forms, tried in this order at the end of the key:
//! - call: `setenv("API_TOKEN", "v")` (the key's closing quote, `,`, a string literal)
//! - attribute: `key="ClearTextPassword" value="v"`
//! - element: `<password>v</password>`, the value possibly on the next line
//! - setter: `setPassword("v")`
//! - operator: `key = v`, `"key": "v"`, `KEY := v`, `$key .= 'v'`, `'key' => 'v'`,
//!   `var key string = "v"`, `const KEY: &str = "v"`

/// The forms a value can follow its key in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    Call,
    Attribute,
    Element,
    Setter,
    /// `op` is the operator; `gap` whether blanks separate it from the value.
    Operator {
        op: &'static str,
        gap: bool,
    },
}

/// A value found after a key; offsets are into the text after the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct After<'t> {
    pub form: Form,
    pub value: &'t str,
    /// Written without quotes (an element's text counts as quoted: its tags delimit it).
    pub bare: bool,
    /// Where the value ends.
    pub value_end: usize,
    /// Where the assignment ends (after a closing quote or parenthesis).
    pub end: usize,
}

/// Operators, longest first so that `:=` is not read as `:`.
const OPERATORS: &[&str] = &[":::=", "::=", ":=", "??=", "?=", ".=", "+=", "=>", "=", ":"];

/// Types written between a key and its operator.
const TYPES: &[&str] = &["string", "String", "str", "char*", "char *"];

/// Characters that end a bare value, or cannot start one (`=` of `==`, `:` of `::`,
/// `~` of `=~`).
fn ends_bare(c: u8) -> bool {
    c.is_ascii_whitespace()
        || matches!(
            c,
            b'"' | b'\''
                | b'`'
                | b','
                | b';'
                | b'('
                | b')'
                | b'{'
                | b'}'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'\\'
                | b'&'
        )
}

fn starts_bare(c: u8) -> bool {
    !ends_bare(c) && !matches!(c, b'=' | b':' | b'~')
}

/// The value after a key, when one of the forms follows it.
pub(super) fn after_key(rest: &str) -> Option<After<'_>> {
    let b = rest.as_bytes();
    match b.first()? {
        b'>' => return element(rest),
        b'(' => return setter(rest),
        _ => {}
    }
    if let Some(quote_end) = closing_quote(rest) {
        let next = skip_blanks(b, quote_end);
        if b.get(next) == Some(&b',') {
            return string_at(rest, skip_blanks(b, next + 1)).map(|s| s.with_form(Form::Call));
        }
        if next > quote_end && rest.get(next..).is_some_and(|r| r.starts_with("value")) {
            return attribute(rest, next + "value".len());
        }
    }
    operator(rest)
}

/// `"` or `'` (or `\"` in a string holding JSON) right after the key: its closing quote.
fn closing_quote(rest: &str) -> Option<usize> {
    if rest.starts_with("\\\"") {
        Some(2)
    } else if rest.starts_with(['"', '\'']) {
        Some(1)
    } else {
        None
    }
}

fn element(rest: &str) -> Option<After<'_>> {
    let b = rest.as_bytes();
    let start = 1 + b
        .get(1..)?
        .iter()
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    let len = b
        .get(start..)?
        .iter()
        .take_while(|&&c| c != b'<' && !c.is_ascii_whitespace())
        .count();
    let value = rest.get(start..start + len).filter(|v| !v.is_empty())?;
    Some(After {
        form: Form::Element,
        value,
        bare: false,
        value_end: start + len,
        end: start + len,
    })
}

fn setter(rest: &str) -> Option<After<'_>> {
    let b = rest.as_bytes();
    let literal = string_at(rest, skip_blanks(b, 1))?;
    let close = skip_blanks(b, literal.end);
    (b.get(close) == Some(&b')')).then(|| After {
        end: close + 1,
        ..literal.with_form(Form::Setter)
    })
}

fn attribute(rest: &str, after_word: usize) -> Option<After<'_>> {
    let b = rest.as_bytes();
    let equals = skip_blanks(b, after_word);
    if b.get(equals) != Some(&b'=') {
        return None;
    }
    string_at(rest, skip_blanks(b, equals + 1)).map(|s| s.with_form(Form::Attribute))
}

/// `key = v` and friends: the key's closing quote or bracket, an optional type, the
/// operator, the value.
fn operator(rest: &str) -> Option<After<'_>> {
    let b = rest.as_bytes();
    let mut at = closing_quote(rest).unwrap_or(0);
    if b.get(at) == Some(&b']') {
        at += 1;
    }
    let typed = after_type(rest, at).and_then(|t| operator_at(rest, t));
    let (op, op_end) = typed.or_else(|| operator_at(rest, at))?;
    let value_start = skip_blanks(b, op_end);
    let found = string_at(rest, value_start).or_else(|| bare_at(rest, value_start))?;
    Some(found.with_form(Form::Operator {
        op,
        gap: value_start > op_end,
    }))
}

/// After `: &'static str`, ` string`, `: String` and the blanks that follow, when a type
/// is written there.
fn after_type(rest: &str, at: usize) -> Option<usize> {
    let b = rest.as_bytes();
    let mut i = skip_blanks(b, at);
    let blanks = i > at;
    if b.get(i) == Some(&b':') {
        i = skip_blanks(b, i + 1);
    } else if !blanks {
        return None;
    }
    if b.get(i) == Some(&b'&') {
        i += 1;
    }
    let tail = rest.get(i..)?;
    if let Some(after) = tail.strip_prefix("'static") {
        i = skip_blanks(b, rest.len() - after.len());
    }
    let tail = rest.get(i..)?;
    let name = TYPES.iter().find(|t| tail.starts_with(**t))?;
    Some(skip_blanks(b, i + name.len()))
}

fn operator_at(rest: &str, at: usize) -> Option<(&'static str, usize)> {
    let start = skip_blanks(rest.as_bytes(), at);
    let tail = rest.get(start..)?;
    let op = OPERATORS.iter().find(|op| tail.starts_with(**op))?;
    Some((op, start + op.len()))
}

/// A string literal at `at`: `"v"`, `'v'`, `` `v` `` or `\"v\"`, on one line.
fn string_at(rest: &str, at: usize) -> Option<After<'_>> {
    let tail = rest.get(at..)?;
    let (open, close) = if tail.starts_with("\\\"") {
        ("\\\"", "\\\"")
    } else {
        let quote = tail.get(..1).filter(|q| matches!(*q, "\"" | "'" | "`"))?;
        (quote, quote)
    };
    let body = tail.get(open.len()..)?;
    let line = body.split(['\n', '\r']).next().unwrap_or(body);
    let (value, _) = line.split_once(close)?;
    let len = value.len();
    if open == "\\\"" && value.contains(['"', '\\']) {
        return None;
    }
    let value_start = at + open.len();
    Some(After {
        form: Form::Call,
        value,
        bare: false,
        value_end: value_start + len,
        end: value_start + len + close.len(),
    })
}

fn bare_at(rest: &str, at: usize) -> Option<After<'_>> {
    let b = rest.as_bytes();
    if !starts_bare(*b.get(at)?) {
        return None;
    }
    let len = b[at..].iter().take_while(|&&c| !ends_bare(c)).count();
    Some(After {
        form: Form::Call,
        value: rest.get(at..at + len)?,
        bare: true,
        value_end: at + len,
        end: at + len,
    })
}

fn skip_blanks(b: &[u8], at: usize) -> usize {
    at + b.get(at..).map_or(0, |t| {
        t.iter().take_while(|c| matches!(c, b' ' | b'\t')).count()
    })
}

impl<'t> After<'t> {
    fn with_form(self, form: Form) -> Self {
        After { form, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(rest: &str) -> Option<(&str, bool)> {
        after_key(rest).map(|a| (a.value, a.bare))
    }

    #[test]
    fn every_form_yields_its_value() {
        for (rest, expected) in [
            (" = hunter2", ("hunter2", true)),
            ("\": \"hunter2\",", ("hunter2", false)),
            (" := `hunter2`", ("hunter2", false)),
            (" ::= \"hunter2\"", ("hunter2", false)),
            (" :::= \"hunter2\"", ("hunter2", false)),
            (" ?= hunter2", ("hunter2", true)),
            (" .= 'hunter2';", ("hunter2", false)),
            ("' => 'hunter2',", ("hunter2", false)),
            ("\", \"hunter2\")", ("hunter2", false)),
            ("\" value=\"hunter2\" />", ("hunter2", false)),
            (">\n    hunter2\n</apiToken>", ("hunter2", false)),
            ("(\"hunter2\");", ("hunter2", false)),
            (" string = \"hunter2\"", ("hunter2", false)),
            (": &'static str = \"hunter2\";", ("hunter2", false)),
            ("\\\": \\\"hunter2\\\"}", ("hunter2", false)),
            ("=hunter2\\nDEBUG=true", ("hunter2", true)),
            ("'] = 'hunter2';", ("hunter2", false)),
        ] {
            assert_eq!(value(rest), Some(expected), "{rest:?}");
        }
    }

    #[test]
    fn comparisons_paths_and_types_are_not_assignments() {
        for rest in [
            " == other",
            " != other",
            "::verify",
            " handling",
            ": ",
            "(x)",
        ] {
            assert_eq!(value(rest), None, "{rest:?}");
        }
        assert_eq!(value(": str"), Some(("str", true)));
    }
}
