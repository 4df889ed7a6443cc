//! JSON as agents write it in reports, read strictly: `//` and `/* */` comments (the
//! protocol's own example carries `// HOT | WARM | COLD`) are allowed and become
//! whitespace, so line and column numbers in errors stay true; a member name that
//! appears twice in one object is an error (readers disagree on which one counts).

pub use crate::json::JsonError;
use crate::json::Strings;
use serde_json::Value;

/// Parses `text` (comments allowed, duplicate member names refused).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    crate::json::from_str(&strip_comments(text)?)
}

/// `//` to the end of the line and `/* … */` outside strings become spaces (line
/// breaks inside a block comment are kept).
fn strip_comments(text: &str) -> Result<String, JsonError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut line, mut column) = (1usize, 1usize);
    let mut strings = Strings::default();
    while let Some(c) = chars.next() {
        let (start_line, start_column) = (line, column);
        let mut advance = |c: char| {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        };
        advance(c);
        if strings.inside(c) {
            out.push(c);
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                out.push(' ');
                while let Some(&next) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    chars.next();
                    advance(next);
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                advance('*');
                out.push_str("  ");
                let mut closed = false;
                while let Some(next) = chars.next() {
                    advance(next);
                    if next == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        advance('/');
                        out.push_str("  ");
                        closed = true;
                        break;
                    }
                    out.push(if next == '\n' { '\n' } else { ' ' });
                }
                if !closed {
                    return Err(JsonError {
                        line: start_line,
                        column: start_column,
                        message: "a `/*` comment is not closed".to_owned(),
                    });
                }
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comments_are_whitespace_and_strings_are_untouched() {
        let text = "{\n  \"a\": \"http://x/*y*/\", // note\n  /* block\n  comment */ \"b\": [1, 2] // end\n}";
        assert_eq!(parse(text), Ok(json!({"a": "http://x/*y*/", "b": [1, 2]})));
        assert_eq!(parse("\"a\\\"//b\""), Ok(json!("a\"//b")));
    }

    #[test]
    fn errors_keep_their_true_position() {
        let error = parse("{ // c\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert_eq!((error.line, error.column), (3, 5));
        assert_eq!(error.message, "the member `a` appears twice in one object");
        let error = parse("{\n  /* open\n").unwrap_err();
        assert_eq!(
            (error.line, error.column, error.message.as_str()),
            (2, 3, "a `/*` comment is not closed")
        );
        let error = parse("{\"a\": 1} trailing").unwrap_err();
        assert_eq!(error.line, 1);
        assert!(parse("[1, 2,]").is_err());
    }
}
