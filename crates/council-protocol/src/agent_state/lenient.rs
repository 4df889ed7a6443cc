//! Lenient reading of text its writer forgot to escape.
//!
//! The origin project's writers paste values into a block as they are, so blocks such
//! as `<intent>Fix A & B</intent>` or `<next_action>retry if n < 5</next_action>` are
//! common, and a strict XML parser refuses them with an error that blames the XML.
//! Before the strict parse, such characters are escaped in place, and each kind is
//! reported as a [`Mend`] so the writer can be fixed.
//!
//! The rule, inside the text of any element below `<agent-state>` (a field, or an
//! element nested in an unknown one such as `<plan><item>`):
//! - a `&` that does not begin a reference is a literal `&`. A reference is `&`, an
//!   optional `#`, one or more name characters (ASCII letters and digits, `_ - . :`, any
//!   non-ASCII), then `;`. Anything shaped like a reference is left to the strict
//!   parser, which expands only the five XML entities and numeric references and
//!   refuses the rest (`&xxe;`, `&lol9;`, `&nbsp;`), as before;
//! - a `<` that cannot begin markup is a literal `<`: the character after it cannot
//!   begin a name (a space, a digit, `=`, `<`, the end…), or it begins a name but no
//!   `>` follows before the next `<` (`if n<limit`).
//!
//! Everything else is left to the strict parser as written: `<name …>` is an element
//! (an error inside a field), `</name>` must close the element it names, `<!…>` and
//! `<?…?>` are markup, and text directly inside `<agent-state>` is an error. Once the
//! lexer meets something it leaves to the parser and cannot step over, it stops
//! mending, and the parser reports that structure.
//!
//! Why this is safe: a mend only ever replaces `&` with `&amp;` or `<` with `&lt;`.
//! That turns markup into text and never text into markup, so no element, reference
//! or declaration can come out of a mend; the strict parse that follows applies every
//! rule it applied before (no DTD, no entities beyond the five, no element inside a
//! field). The renderer escapes every `&` and `<`, so a block the product wrote never
//! needs a mend.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use crate::chars::show_hidden;

/// One kind of character a block should have escaped, and the element whose text held
/// it; the block was read with the character as literal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mend {
    /// `&` or `<`.
    pub character: char,
    /// The innermost element around it, e.g. `intent` or `item`.
    pub element: String,
}

impl fmt::Display for Mend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let escape = match self.character {
            '&' => "&amp;",
            _ => "&lt;",
        };
        write!(
            f,
            "unescaped `{}` in <{}>; read as text — write `{escape}`",
            self.character,
            show_hidden(&self.element, 40)
        )
    }
}

/// `xml` (one LF-normalized, trimmed block) with every stray `&` and `<` escaped, and
/// one [`Mend`] per kind found, in document order.
pub(crate) fn mend(xml: &str) -> (Cow<'_, str>, Vec<Mend>) {
    let mut lexer = Lexer {
        xml,
        bytes: xml.as_bytes(),
        at: 0,
        open: Vec::new(),
        out: String::new(),
        copied: 0,
        mends: Vec::new(),
        seen: HashSet::new(),
    };
    // `None` means "left to the strict parser"; what was mended so far stands.
    let _ = lexer.run();
    if lexer.mends.is_empty() {
        return (Cow::Borrowed(xml), Vec::new());
    }
    let mut out = lexer.out;
    out.push_str(xml.get(lexer.copied..).unwrap_or(""));
    (Cow::Owned(out), lexer.mends)
}

struct Lexer<'a> {
    xml: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Names of the open elements, the root first.
    open: Vec<&'a str>,
    out: String,
    /// `xml[..copied]` is already in `out`.
    copied: usize,
    mends: Vec<Mend>,
    seen: HashSet<(u8, &'a str)>,
}

/// A start tag: its name, the offset after its `>`, and whether it ends in `/>`.
struct StartTag<'a> {
    name: &'a str,
    end: usize,
    empty: bool,
}

impl<'a> Lexer<'a> {
    fn run(&mut self) -> Option<()> {
        let root = self.start_tag(0)?;
        if root.empty {
            return None;
        }
        self.open.push(root.name);
        self.at = root.end;
        loop {
            let rest = self.bytes.get(self.at..)?;
            let i = self.at + rest.iter().position(|&b| b == b'<' || b == b'&')?;
            let in_child = self.open.len() >= 2;
            if self.bytes.get(i) == Some(&b'&') {
                if in_child && !is_reference(self.bytes, i) {
                    self.mend_at(i, b'&');
                }
                self.at = i + 1;
                continue;
            }
            let rest = self.bytes.get(i..)?;
            if rest.starts_with(b"<!--") {
                self.at = skip_past(self.bytes, i + 4, b"-->")?;
            } else if rest.starts_with(b"<![CDATA[") {
                self.at = skip_past(self.bytes, i + 9, b"]]>")?;
            } else {
                match rest.get(1) {
                    Some(b'/') => {
                        let (name, end) = end_tag(self.xml, i)?;
                        if self.open.last() != Some(&name) {
                            return None;
                        }
                        self.open.pop();
                        if self.open.is_empty() {
                            return Some(());
                        }
                        self.at = end;
                    }
                    Some(b'!' | b'?') => return None,
                    Some(&b) if is_name_start(b) => match self.start_tag(i) {
                        Some(tag) => {
                            if !tag.empty {
                                self.open.push(tag.name);
                            }
                            self.at = tag.end;
                        }
                        None if in_child => self.stray_lt(i),
                        None => return None,
                    },
                    _ if in_child => self.stray_lt(i),
                    _ => return None,
                }
            }
        }
    }

    fn stray_lt(&mut self, at: usize) {
        self.mend_at(at, b'<');
        self.at = at + 1;
    }

    fn mend_at(&mut self, at: usize, byte: u8) {
        let element = self.open.last().copied().unwrap_or("");
        self.out
            .push_str(self.xml.get(self.copied..at).unwrap_or(""));
        self.out
            .push_str(if byte == b'&' { "&amp;" } else { "&lt;" });
        self.copied = at + 1;
        if self.seen.insert((byte, element)) {
            self.mends.push(Mend {
                character: char::from(byte),
                element: element.to_owned(),
            });
        }
    }

    /// The start tag at `at`, if it is one: `<`, a name, then anything up to `>` with
    /// no `<` on the way (XML allows none, not even in quoted attribute values).
    fn start_tag(&self, at: usize) -> Option<StartTag<'a>> {
        if self.bytes.get(at) != Some(&b'<') || !is_name_start(*self.bytes.get(at + 1)?) {
            return None;
        }
        let name_end = name_end(self.bytes, at + 1);
        let name = self.xml.get(at + 1..name_end)?;
        let mut quote = None;
        let mut i = name_end;
        loop {
            let b = *self.bytes.get(i)?;
            match (quote, b) {
                (_, b'<') => return None,
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(b),
                (None, b'>') => {
                    let empty = i > name_end && self.bytes.get(i - 1) == Some(&b'/');
                    return Some(StartTag {
                        name,
                        end: i + 1,
                        empty,
                    });
                }
                (None, _) => {}
            }
            i += 1;
        }
    }
}

/// `</name>` at `at` (whitespace allowed before `>`): the name and the offset after it.
fn end_tag(xml: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = xml.as_bytes();
    let name_end = name_end(bytes, at + 2);
    let name = xml.get(at + 2..name_end).filter(|n| !n.is_empty())?;
    let mut i = name_end;
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    (bytes.get(i) == Some(&b'>')).then_some((name, i + 1))
}

/// Whether the `&` at `at` is shaped like a reference (see the module rule).
fn is_reference(bytes: &[u8], at: usize) -> bool {
    let start = match bytes.get(at + 1) {
        Some(b'#') => at + 2,
        _ => at + 1,
    };
    let end = name_end(bytes, start);
    end > start && bytes.get(end) == Some(&b';')
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':') || b >= 0x80
}

/// The end of the run of name bytes starting at `from`. Non-ASCII bytes count as name
/// bytes, so a run never ends inside a UTF-8 sequence.
fn name_end(bytes: &[u8], from: usize) -> usize {
    let run = bytes.get(from..).unwrap_or_default();
    from + run.iter().take_while(|&&b| is_name_byte(b)).count()
}

/// The offset after the first `pattern` at or after `from`.
fn skip_past(bytes: &[u8], from: usize, pattern: &[u8]) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let found = rest.windows(pattern.len()).position(|w| w == pattern)?;
    Some(from + found + pattern.len())
}

#[cfg(test)]
mod tests;
