//! The shape of a document's top level, from the YAML event stream with byte spans
//! (granit-parser, the parser under serde-saphyr). Only what validation and a
//! byte-preserving edit need is kept: each top-level key with its value's kind, text
//! and exact source range. Values of unknown keys are walked without being built, so a
//! hostile document costs time linear in its size and no recursion.

use std::ops::Range;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, ScanError, Span, StructureStyle};

use super::problem::At;

/// Nesting deeper than this is refused (a hand-written context file nests two levels).
pub(crate) const MAX_DEPTH: usize = 64;

/// More YAML values than this (keys, values and list items, at any depth) are refused,
/// and reading stops there. The parser's time grows with their number, not with bytes:
/// 1 MiB of `a:` lines is 700,000 values, which took twice the 100 ms a file may take.
/// A hand-written file holds dozens; a `files_changed` of 90,000 paths still fits.
pub const MAX_NODES: usize = 100_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scalar {
    pub value: String,
    pub style: ScalarStyle,
    /// `Some(suffix)` for a core-schema tag (`!!str` → `str`); `Some("!custom")` style
    /// text for any other tag.
    pub tag: Option<Tag>,
    /// The scalar's source bytes (for block scalars: the content lines, without the
    /// `|`/`>` indicator, up to and including the final line breaks).
    pub span: Range<usize>,
    pub at: At,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tag {
    Core(String),
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    Scalar(Scalar),
    /// A nested sequence, mapping or alias, named for messages.
    Other {
        at: At,
        what: &'static str,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seq {
    pub flow: bool,
    /// The `[` or the first item's `-`.
    pub start: usize,
    /// After `]`, or after the last item (trailing comments are not part of it).
    pub end: usize,
    /// Column (0-based) of a block sequence's `-` (0 for a flow sequence).
    pub indent: usize,
    pub items: Vec<Item>,
    pub at: At,
}

/// A top-level value. Scalars and lists are boxed: a file can hold 200,000 entries,
/// most of them small, and an entry as large as its largest kind of value made their
/// list the biggest allocation of a validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    Scalar(Box<Scalar>),
    Seq(Box<Seq>),
    Map {
        at: At,
    },
    Alias {
        at: At,
    },
    /// The value of a key nobody reads (see [`read`]'s `kept`): walked, not built.
    Unread {
        at: At,
    },
}

impl Node {
    pub fn at(&self) -> At {
        match self {
            Node::Scalar(s) => s.at,
            Node::Seq(seq) => seq.at,
            Node::Map { at } | Node::Alias { at } | Node::Unread { at } => *at,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: String,
    pub key_span: Range<usize>,
    pub key_at: At,
    pub value: Node,
}

/// What holds the top-level entries, which decides where a new key is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Root {
    /// No document, an empty one, or a null (`---` alone).
    Empty,
    /// `key: value` lines; `indent` is the column of the first key.
    Block { indent: usize },
    /// `{key: value}`; `close` is the offset of `}`.
    Flow { close: usize },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Doc {
    pub root: Root,
    pub entries: Vec<Entry>,
    /// The offset of an explicit end marker `...`, before which a new key must go.
    pub end_marker: Option<usize>,
}

/// Why a document could not be read as a top-level mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadError {
    pub at: At,
    pub field: Option<String>,
    pub message: String,
}

/// Positions: `first_line` is the file line of the text's first line. Only the values
/// of keys for which `kept` holds are built; the others are walked (still checked as
/// YAML and for depth) and kept as [`Node::Unread`].
pub(crate) fn read(
    yaml: &str,
    first_line: usize,
    kept: impl Fn(&str) -> bool,
) -> Result<Doc, ReadError> {
    let mut events = Events {
        yaml,
        parser: Parser::new_from_str(yaml),
        first_line,
        last: At {
            line: first_line,
            column: 1,
        },
        last_end: 0,
        nodes: 0,
    };
    let mut doc = Doc {
        root: Root::Empty,
        entries: Vec::new(),
        end_marker: None,
    };
    // StreamStart, then at most one document.
    events.next()?;
    match events.next()? {
        (Event::StreamEnd, _) => return Ok(doc),
        (Event::DocumentStart(..), _) => {}
        (_, span) => return Err(events.error(span, "expected a YAML document")),
    }
    let (event, span) = events.next()?;
    match event {
        Event::MappingStart(style, ..) => {
            let flow = style == StructureStyle::Flow;
            doc.root = if flow {
                Root::Flow { close: 0 }
            } else {
                Root::Block {
                    indent: span.start.col(),
                }
            };
            let close = read_entries(&mut events, &mut doc.entries, &kept)?;
            if let Root::Flow { close: c } = &mut doc.root {
                *c = close;
            }
        }
        Event::Scalar(value, ScalarStyle::Plain, _, None) if is_null(&value) => {}
        Event::DocumentEnd => {}
        other => {
            let what = describe(&other);
            return Err(events.error(
                span,
                &format!("the YAML is {what}, not a mapping of fields such as `id: …`"),
            ));
        }
    }
    loop {
        match events.next()? {
            (Event::DocumentEnd, span) => {
                if span.end.byte_offset() > span.start.byte_offset() {
                    doc.end_marker = span.start.byte_offset();
                }
            }
            (Event::StreamEnd, _) => return Ok(doc),
            (Event::DocumentStart(..), span) => {
                return Err(events.error(
                    span,
                    "the file holds more than one YAML document; keep one mapping of fields",
                ));
            }
            (_, span) => return Err(events.error(span, "unexpected content after the fields")),
        }
    }
}

/// Reads `key: value` pairs up to the mapping's end; returns the end's offset.
fn read_entries(
    events: &mut Events<'_>,
    entries: &mut Vec<Entry>,
    kept: &impl Fn(&str) -> bool,
) -> Result<usize, ReadError> {
    loop {
        let (event, span) = events.next()?;
        let (key, key_span) = match event {
            Event::MappingEnd => return Ok(offset(span.start)),
            Event::Scalar(key, ..) => (key.into_owned(), span),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                return Err(ReadError {
                    at: events.at(span),
                    field: None,
                    message: "a key must be a plain name such as `purpose`, not a list or mapping"
                        .to_owned(),
                });
            }
            other => {
                return Err(events.error(
                    span,
                    &format!(
                        "a key must be a plain name such as `purpose`, not {}",
                        describe(&other)
                    ),
                ));
            }
        };
        let key_at = events.at(key_span);
        let value = if kept(&key) {
            read_value(events)
        } else {
            skip_value(events)
        };
        let value = value.map_err(|mut e| {
            e.field.get_or_insert_with(|| key.clone());
            e
        })?;
        entries.push(Entry {
            key,
            key_span: offset(key_span.start)..offset(key_span.end),
            key_at,
            value,
        });
    }
}

fn read_value(events: &mut Events<'_>) -> Result<Node, ReadError> {
    let (event, span) = events.next()?;
    let at = events.at(span);
    match event {
        Event::Scalar(value, style, _, tag) => Ok(Node::Scalar(Box::new(Scalar {
            value: value.into_owned(),
            style,
            tag: tag.map(|t| classify_tag(&t)),
            span: offset(span.start)..offset(span.end),
            at,
        }))),
        Event::SequenceStart(style, ..) => {
            let flow = style == StructureStyle::Flow;
            let start = offset(span.start);
            let mut items = Vec::new();
            let mut end = start;
            loop {
                let (event, span) = events.next()?;
                let item_at = events.at(span);
                match event {
                    Event::SequenceEnd => {
                        if flow {
                            end = offset(span.end);
                        }
                        break;
                    }
                    Event::Scalar(value, style, _, tag) => {
                        end = offset(span.end);
                        items.push(Item::Scalar(Scalar {
                            value: value.into_owned(),
                            style,
                            tag: tag.map(|t| classify_tag(&t)),
                            span: offset(span.start)..offset(span.end),
                            at: item_at,
                        }));
                    }
                    Event::Alias(_) => {
                        end = offset(span.end);
                        items.push(Item::Other {
                            at: item_at,
                            what: "an alias",
                        });
                    }
                    Event::SequenceStart(..) | Event::MappingStart(..) => {
                        let what = if matches!(event, Event::SequenceStart(..)) {
                            "a list"
                        } else {
                            "a mapping"
                        };
                        events.skip_open(1)?;
                        end = events.last_end;
                        items.push(Item::Other { at: item_at, what });
                    }
                    other => {
                        return Err(events
                            .error(span, &format!("unexpected {} in a list", describe(&other))));
                    }
                }
            }
            // A block sequence's event points at its first `-`, or, for a sequence at the
            // key's own indentation, at the first item's content: step back to the dash.
            // Only a block list has an indentation (the writer keeps it); a flow list may
            // share one long line with thousands of others, and a search back to the
            // line's start for each of them was quadratic.
            let (start, indent) = if flow {
                (start, 0)
            } else {
                let dash = dash_before(events.yaml, start);
                let line_start = events
                    .yaml
                    .get(..dash)
                    .and_then(|head| head.rfind('\n'))
                    .map_or(0, |i| i + 1);
                (dash, dash - line_start)
            };
            Ok(Node::Seq(Box::new(Seq {
                flow,
                start,
                end,
                indent,
                items,
                at,
            })))
        }
        Event::MappingStart(..) => {
            events.skip_open(1)?;
            Ok(Node::Map { at })
        }
        Event::Alias(_) => Ok(Node::Alias { at }),
        other => Err(events.error(
            span,
            &format!("expected a value but found {}", describe(&other)),
        )),
    }
}

/// Walks one value without building it.
fn skip_value(events: &mut Events<'_>) -> Result<Node, ReadError> {
    let (event, span) = events.next()?;
    let at = events.at(span);
    match event {
        Event::Scalar(..) | Event::Alias(_) => {}
        Event::SequenceStart(..) | Event::MappingStart(..) => events.skip_open(1)?,
        other => {
            return Err(events.error(
                span,
                &format!("expected a value but found {}", describe(&other)),
            ));
        }
    }
    Ok(Node::Unread { at })
}

/// The `-` at or before `offset`, past spaces (the offset itself when there is none).
fn dash_before(yaml: &str, offset: usize) -> usize {
    let head = yaml.get(..offset).unwrap_or("");
    let trimmed = head.trim_end_matches([' ', '\t']);
    if yaml.get(offset..).is_some_and(|rest| rest.starts_with('-')) {
        offset
    } else if trimmed.ends_with('-') {
        trimmed.len() - 1
    } else {
        offset
    }
}

fn classify_tag(tag: &serde_saphyr::granit_parser::Tag) -> Tag {
    if tag.is_yaml_core_schema() {
        Tag::Core(tag.suffix().to_owned())
    } else {
        Tag::Other(format!("{}{}", tag.handle(), tag.suffix()))
    }
}

/// YAML 1.2 core schema nulls.
pub(crate) fn is_null(plain: &str) -> bool {
    matches!(plain, "" | "~" | "null" | "Null" | "NULL")
}

fn describe(event: &Event<'_>) -> String {
    match event {
        Event::Scalar(value, ..) if value.chars().count() <= 40 => {
            format!("the scalar `{}`", crate::chars::show_hidden(value, 40))
        }
        Event::Scalar(..) => "a scalar".to_owned(),
        Event::SequenceStart(..) => "a list".to_owned(),
        Event::MappingStart(..) => "a mapping".to_owned(),
        Event::Alias(_) => "an alias".to_owned(),
        _ => "other YAML".to_owned(),
    }
}

fn offset(marker: serde_saphyr::granit_parser::Marker) -> usize {
    // Parsing from a `&str` always records byte offsets.
    marker.byte_offset().unwrap_or(0)
}

/// Events without comments, with positions mapped to file lines.
struct Events<'a> {
    yaml: &'a str,
    parser: Parser<'a, serde_saphyr::granit_parser::StrInput<'a>>,
    first_line: usize,
    last: At,
    /// Where the last event read ends.
    last_end: usize,
    /// Values read so far, against [`MAX_NODES`].
    nodes: usize,
}

impl<'a> Events<'a> {
    fn next(&mut self) -> Result<(Event<'a>, Span), ReadError> {
        loop {
            match self.parser.next_event() {
                None => {
                    return Err(ReadError {
                        at: self.last,
                        field: None,
                        message: "the YAML ends unexpectedly".to_owned(),
                    });
                }
                Some(Err(error)) => return Err(self.scan_error(&error)),
                Some(Ok((Event::Comment(..), _))) => continue,
                Some(Ok((event, span))) => {
                    self.last = self.at(span);
                    self.last_end = offset(span.end);
                    if matches!(
                        event,
                        Event::Scalar(..)
                            | Event::Alias(_)
                            | Event::SequenceStart(..)
                            | Event::MappingStart(..)
                    ) {
                        self.nodes += 1;
                        if self.nodes > MAX_NODES {
                            return Err(self.error(
                                span,
                                &format!(
                                    "the YAML holds more than {MAX_NODES} values (keys, values \
                                     and list items), the limit for a context file; keep it to \
                                     the session's context and link to bulk data"
                                ),
                            ));
                        }
                    }
                    return Ok((event, span));
                }
            }
        }
    }

    fn at(&self, span: Span) -> At {
        At {
            line: self.first_line + span.start.line().saturating_sub(1),
            column: span.start.col() + 1,
        }
    }

    fn error(&self, span: Span, message: &str) -> ReadError {
        ReadError {
            at: self.at(span),
            field: None,
            message: message.to_owned(),
        }
    }

    fn scan_error(&self, error: &ScanError) -> ReadError {
        let marker = error.marker();
        ReadError {
            at: At {
                line: self.first_line + marker.line().saturating_sub(1),
                column: marker.col() + 1,
            },
            field: None,
            message: format!("invalid YAML: {}", error.info()),
        }
    }

    /// Skips to the end of a collection whose start was just read (`depth` open).
    fn skip_open(&mut self, mut depth: usize) -> Result<(), ReadError> {
        while depth > 0 {
            let (event, span) = self.next()?;
            match event {
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(self.error(
                            span,
                            &format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                        ));
                    }
                }
                Event::SequenceEnd | Event::MappingEnd => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }
}
