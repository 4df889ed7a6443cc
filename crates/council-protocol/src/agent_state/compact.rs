//! Deterministic, JSON-aware shrinking of `memory` so a comment fits GitHub's limit,
//! keeping as much as fits.
//!
//! The memory is taken apart into values (scalars, empty containers, and key-field
//! members, which are kept or left out whole) and the output is filled in priority order
//! until the budget is used:
//! 1. key fields (`name`, `full_name`, `id`, … — [`KEY_FIELDS`]) before anything else,
//!    shallow before deep, in the list's order, so `name` of every item of an array is
//!    kept before `full_name` of any, and both before any other field of any item;
//! 2. then every other value, shallow before deep, the first field of each object
//!    before the second of any, in document order.
//!
//! A value that does not fit is left out and the next one tried, so the comment uses
//! nearly all of its budget (at least 90 % whenever no single value is larger than a
//! tenth of it). Once a key field of that size has to be left out for lack of room,
//! no other field is added in the gaps: key fields come first, strictly. Nothing is ever replaced or shortened: every value in the output is the
//! original value, byte for byte, at the place it had (objects keep their key order;
//! arrays keep the order of the items kept). What was left out is counted in one marker
//! at the top (`"(omitted)": {"left_out": …, "of": …, "original_chars": …}`, appended as
//! the last item when the memory is an array) and described in the comment's notice.
//!
//! Sizes are code points of the compact serialization, optionally weighted per
//! character by the caller (the comment escapes `<`, `&`, `>` and hidden characters).

use serde_json::{Map, Value, json};

/// Fields whose values are identifiers an agent needs verbatim (SPEC's list).
pub const KEY_FIELDS: [&str; 12] = [
    "name",
    "full_name",
    "id",
    "number",
    "title",
    "url",
    "html_url",
    "path",
    "sha",
    "status",
    "state",
    "files_changed",
];

/// The key of the marker that counts what was left out.
pub const OMITTED_KEY: &str = "(omitted)";

/// Arrays named in the notes, largest first, when they hold at least this many items.
const ARRAYS_NOTED: usize = 3;
const ARRAY_NOTED_FROM: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    pub value: Value,
    pub original_chars: usize,
    pub compacted_chars: usize,
    /// What was kept and left out, for the comment's notice.
    pub notes: Vec<String>,
    /// Some key-field values did not fit and were left out.
    pub truncated: bool,
    /// Values (scalars, empty containers, key-field members) in the memory.
    pub values: usize,
    /// Of those, how many were left out.
    pub left_out: usize,
}

impl Compaction {
    pub fn changed(&self) -> bool {
        self.left_out > 0
    }
}

/// Code points of the compact serialization, the unit GitHub's limit counts.
pub fn json_chars(value: &Value) -> usize {
    value.to_string().chars().count()
}

/// Shrinks `value` to at most `max_chars` code points (for `max_chars` ≥ 4, the size of
/// `null`, the last resort); the same input always gives the same output.
pub fn compact_json(value: &Value, max_chars: usize) -> Compaction {
    compact_json_with(value, max_chars, &|_| 1)
}

/// [`compact_json`] where each character of the serialization costs `weight(c)`.
pub fn compact_json_with(
    value: &Value,
    max_chars: usize,
    weight: &dyn Fn(char) -> usize,
) -> Compaction {
    let measure = |text: &str| text.chars().map(weight).sum::<usize>();
    let original_text = value.to_string();
    let original_chars = original_text.chars().count();
    let tree = Tree::of(value, &measure);
    if measure(&original_text) <= max_chars {
        return Compaction {
            value: value.clone(),
            original_chars,
            compacted_chars: original_chars,
            notes: Vec::new(),
            truncated: false,
            values: tree.units.len(),
            left_out: 0,
        };
    }
    let total = tree.units.len();
    let marker_at_most = marker(total, total, original_chars);
    let with_marker = tree.fill(max_chars, Some(&marker_at_most), &measure);
    let (present, kept, marked) = match with_marker {
        Some((present, kept)) => (present, kept, true),
        // Too small a budget even for the marker: keep what fits without it.
        None => match tree.fill(max_chars, None, &measure) {
            Some((present, kept)) => (present, kept, false),
            None => {
                return Compaction {
                    value: Value::Null,
                    original_chars,
                    compacted_chars: 4,
                    notes: vec![format!(
                        "memory left out: {} characters did not fit at all",
                        thousands(original_chars)
                    )],
                    truncated: true,
                    values: total,
                    left_out: total,
                };
            }
        },
    };
    let left_out = total - kept;
    let mut output = tree.render(&present);
    if marked {
        add_marker(&mut output, marker(left_out, total, original_chars));
    }
    let truncated = tree
        .units
        .iter()
        .any(|&u| tree.nodes[u].key_field && !present[u]);
    Compaction {
        compacted_chars: json_chars(&output),
        notes: tree.notes(&present, left_out, total),
        value: output,
        original_chars,
        truncated,
        values: total,
        left_out,
    }
}

fn marker(left_out: usize, of: usize, original_chars: usize) -> Value {
    json!({"left_out": left_out, "of": of, "original_chars": original_chars})
}

/// Adds the marker at the top: a member of an object (under a free name), the last item
/// of an array, or in place of a scalar that did not fit.
fn add_marker(output: &mut Value, marker: Value) {
    match output {
        Value::Object(map) => {
            let mut key = OMITTED_KEY.to_owned();
            let mut n = 2;
            while map.contains_key(&key) {
                key = format!("(omitted {n})");
                n += 1;
            }
            map.insert(key, marker);
        }
        Value::Array(items) => {
            let mut wrapper = Map::new();
            wrapper.insert(OMITTED_KEY.to_owned(), marker);
            items.push(Value::Object(wrapper));
        }
        other => {
            let mut wrapper = Map::new();
            wrapper.insert(OMITTED_KEY.to_owned(), marker);
            *other = Value::Object(wrapper);
        }
    }
}

/// One node of the memory: a value and where it sits.
struct Node<'a> {
    value: &'a Value,
    parent: Option<usize>,
    /// The member's key (`None` for array items and the root).
    key: Option<&'a str>,
    /// Containers above it.
    depth: usize,
    /// For a key field, its place in [`KEY_FIELDS`]; else its place among its siblings.
    rank: usize,
    /// A member whose key is a key field: kept or left out whole.
    key_field: bool,
    /// A unit of the fill (kept or left out whole) rather than a container.
    unit: bool,
    /// The cost of `"key":` (or nothing), and of the value when it is a unit.
    key_cost: usize,
    value_cost: usize,
    children: Vec<usize>,
}

/// A node met but not numbered yet, during the walk.
struct Pending<'a> {
    value: &'a Value,
    parent: Option<usize>,
    key: Option<&'a str>,
    depth: usize,
    rank: usize,
    key_field: bool,
}

struct Tree<'a> {
    nodes: Vec<Node<'a>>,
    /// Unit node ids in fill order.
    units: Vec<usize>,
}

impl<'a> Tree<'a> {
    fn of(root: &'a Value, measure: &dyn Fn(&str) -> usize) -> Tree<'a> {
        let mut nodes: Vec<Node<'a>> = Vec::new();
        // (value, parent, key, depth, rank, key_field)
        let mut stack = vec![Pending {
            value: root,
            parent: None,
            key: None,
            depth: 0,
            rank: 0,
            key_field: false,
        }];
        while let Some(Pending {
            value,
            parent,
            key,
            depth,
            rank,
            key_field,
        }) = stack.pop()
        {
            let id = nodes.len();
            let container = matches!(value, Value::Object(m) if !m.is_empty())
                || matches!(value, Value::Array(a) if !a.is_empty());
            let unit = key_field || !container;
            let key_cost = key.map_or(0, |k| measure(&Value::String(k.to_owned()).to_string()) + 1);
            let value_cost = if unit { measure(&value.to_string()) } else { 0 };
            nodes.push(Node {
                value,
                parent,
                key,
                depth,
                rank,
                key_field,
                unit,
                key_cost,
                value_cost,
                children: Vec::new(),
            });
            if let Some(p) = parent {
                nodes[p].children.push(id);
            }
            if unit {
                continue;
            }
            // Pushed in reverse so that children are numbered in document order.
            match value {
                Value::Object(map) => {
                    for (index, (k, v)) in map.iter().enumerate().rev() {
                        let position = KEY_FIELDS.iter().position(|f| f == k);
                        let rank = position.unwrap_or(index);
                        stack.push(Pending {
                            value: v,
                            parent: Some(id),
                            key: Some(k.as_str()),
                            depth: depth + 1,
                            rank,
                            key_field: position.is_some(),
                        });
                    }
                }
                Value::Array(items) => {
                    for (index, v) in items.iter().enumerate().rev() {
                        stack.push(Pending {
                            value: v,
                            parent: Some(id),
                            key: None,
                            depth: depth + 1,
                            rank: index,
                            key_field: false,
                        });
                    }
                }
                _ => {}
            }
        }
        let mut units: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].unit && i != 0)
            .collect();
        if nodes[0].unit {
            units.push(0);
        }
        units.sort_by_key(|&i| {
            let n = &nodes[i];
            (!n.key_field, n.depth, n.rank, i)
        });
        Tree { nodes, units }
    }

    /// Greedy fill; `None` when not even the root (and the marker) fits. Returns which
    /// nodes are present and how many units were kept.
    fn fill(
        &self,
        max: usize,
        marker: Option<&Value>,
        measure: &dyn Fn(&str) -> usize,
    ) -> Option<(Vec<bool>, usize)> {
        let root = &self.nodes[0];
        let mut present = vec![false; self.nodes.len()];
        let mut members = vec![0usize; self.nodes.len()];
        let mut remaining = max;
        let mut kept = 0;
        if !root.unit {
            remaining = remaining.checked_sub(2)?;
            present[0] = true;
        }
        if let Some(marker) = marker {
            let cost = match root.value {
                Value::Object(_) => measure(&format!(",\"{OMITTED_KEY}\":{marker}")),
                Value::Array(_) if !root.unit => {
                    measure(&format!(",{{\"{OMITTED_KEY}\":{marker}}}"))
                }
                _ => measure(&format!("{{\"{OMITTED_KEY}\":{marker}}}")),
            };
            remaining = remaining.checked_sub(cost)?;
        }
        // A small key field skipped for lack of room means the budget is spent on key
        // fields: nothing else may then take a gap (no item keeps another field while
        // an item misses a key field that could have fit). Key fields larger than a
        // tenth of the budget never block the rest.
        let small = max / 10;
        let mut saturated = false;
        for &unit in &self.units {
            if saturated && !self.nodes[unit].key_field {
                break;
            }
            let mut cost = self.nodes[unit].key_cost + self.nodes[unit].value_cost;
            let mut top = unit;
            while let Some(parent) = self.nodes[top].parent {
                if present[parent] {
                    break;
                }
                cost += self.nodes[parent].key_cost + 2;
                top = parent;
            }
            match self.nodes[top].parent {
                Some(parent) if members[parent] > 0 => cost += 1,
                Some(_) => {}
                // The root itself is a unit (a scalar): it replaces the marker.
                None => {}
            }
            if cost > remaining {
                saturated |= self.nodes[unit].key_field && cost <= small;
                continue;
            }
            remaining -= cost;
            kept += 1;
            let mut node = unit;
            loop {
                present[node] = true;
                match self.nodes[node].parent {
                    Some(parent) => {
                        members[parent] += 1;
                        if present[parent] {
                            break;
                        }
                        node = parent;
                    }
                    None => break,
                }
            }
        }
        Some((present, kept))
    }

    fn render(&self, present: &[bool]) -> Value {
        if !present[0] {
            return Value::Null;
        }
        self.render_node(0, present)
    }

    fn render_node(&self, id: usize, present: &[bool]) -> Value {
        let node = &self.nodes[id];
        if node.unit {
            return node.value.clone();
        }
        let kept = node.children.iter().copied().filter(|&c| present[c]);
        match node.value {
            Value::Object(_) => {
                let mut map = Map::new();
                for child in kept {
                    let key = self.nodes[child].key.unwrap_or("").to_owned();
                    map.insert(key, self.render_node(child, present));
                }
                Value::Object(map)
            }
            _ => Value::Array(kept.map(|c| self.render_node(c, present)).collect()),
        }
    }

    fn notes(&self, present: &[bool], left_out: usize, total: usize) -> Vec<String> {
        let mut arrays: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].unit && self.nodes[i].value.is_array())
            .filter(|&i| self.nodes[i].children.len() >= ARRAY_NOTED_FROM)
            .collect();
        arrays.sort_by_key(|&i| (std::cmp::Reverse(self.nodes[i].children.len()), i));
        let mut notes = Vec::new();
        for &array in arrays.iter().take(ARRAYS_NOTED) {
            let items = self.nodes[array].children.len();
            let kept = self.nodes[array]
                .children
                .iter()
                .filter(|&&c| present[c])
                .count();
            notes.push(format!(
                "{}: {} of {} items kept",
                self.path(array),
                thousands(kept),
                thousands(items)
            ));
        }
        let (keys, keys_kept) = self.count(present, true);
        let (others, others_kept) = self.count(present, false);
        if keys > 0 {
            notes.push(format!(
                "key fields: {} of {} kept, exact (shallow ones first)",
                thousands(keys_kept),
                thousands(keys)
            ));
        }
        notes.push(format!(
            "other values: {} of {} kept",
            thousands(others_kept),
            thousands(others)
        ));
        notes.push(format!(
            "{} of {} values left out, counted in \"{OMITTED_KEY}\"; nothing kept was shortened",
            thousands(left_out),
            thousands(total)
        ));
        notes
    }

    /// Units that are (or are not) key fields, and how many of them are present.
    fn count(&self, present: &[bool], key_fields: bool) -> (usize, usize) {
        let units = self
            .units
            .iter()
            .filter(|&&u| self.nodes[u].key_field == key_fields);
        units.fold((0, 0), |(all, kept), &u| {
            (all + 1, kept + usize::from(present[u]))
        })
    }

    /// `$`, `$.items`, `$[3].labels`, for notes.
    fn path(&self, mut id: usize) -> String {
        let mut parts = Vec::new();
        while let Some(parent) = self.nodes[id].parent {
            let part = match self.nodes[id].key {
                Some(key) if is_plain(key) => format!(".{key}"),
                Some(key) => format!("[{}]", Value::String(key.to_owned())),
                None => {
                    let index = self.nodes[parent]
                        .children
                        .iter()
                        .position(|&c| c == id)
                        .unwrap_or(0);
                    format!("[{index}]")
                }
            };
            parts.push(part);
            id = parent;
        }
        parts.reverse();
        format!("${}", parts.concat())
    }
}

fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit())
}

/// `12345` as `12,345`, for summaries people read.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;
