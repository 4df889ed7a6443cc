//! The answers as a terminal table or CSV: one header row, then one row per record.
//! CSV quotes as RFC 4180 says, and a text cell that a spreadsheet would run as a formula
//! (`=`, `+`, `-`, `@`, tab, carriage return first) is prefixed with `'`: branch names
//! and messages come from users.

/// A table: column names, then rows of cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Text(String),
    Number(String),
    Empty,
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    pub fn number(n: impl ToString) -> Cell {
        Cell::Number(n.to_string())
    }

    pub fn opt_text(s: Option<impl Into<String>>) -> Cell {
        s.map_or(Cell::Empty, |s| Cell::Text(s.into()))
    }

    pub fn opt_number(n: Option<impl ToString>) -> Cell {
        n.map_or(Cell::Empty, |n| Cell::Number(n.to_string()))
    }

    fn shown(&self) -> String {
        match self {
            // A terminal shows text as text: line breaks, control and bidi characters
            // visibly, so that a cell cannot break its row.
            Cell::Text(t) => council_protocol::chars::show_hidden(t, 80)
                .chars()
                .map(|c| match c.is_control() {
                    true => format!("<U+{:04X}>", u32::from(c)),
                    false => c.to_string(),
                })
                .collect(),
            Cell::Number(n) => n.clone(),
            Cell::Empty => "-".to_string(),
        }
    }

    fn csv(&self) -> String {
        match self {
            Cell::Text(t) => {
                let safe = if t.starts_with(['=', '+', '-', '@', '\t', '\r']) {
                    format!("'{t}")
                } else {
                    t.clone()
                };
                if safe.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", safe.replace('"', "\"\""))
                } else {
                    safe
                }
            }
            Cell::Number(n) => n.clone(),
            Cell::Empty => String::new(),
        }
    }
}

impl Table {
    pub fn csv(&self) -> String {
        let mut out = self.columns.join(",");
        out.push_str("\r\n");
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(Cell::csv).collect();
            out.push_str(&cells.join(","));
            out.push_str("\r\n");
        }
        out
    }

    /// Columns padded to their widest cell (in characters); numbers right-aligned.
    pub fn plain(&self) -> String {
        let mut rows = vec![self.columns.iter().map(|c| c.to_string()).collect()];
        let mut right = vec![Vec::new()];
        for row in &self.rows {
            rows.push(row.iter().map(Cell::shown).collect());
            right.push(row.iter().map(|c| matches!(c, Cell::Number(_))).collect());
        }
        crate::app::columns::aligned_with(&rows, "", &right)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            columns: vec!["agent", "prs", "rule"],
            rows: vec![
                vec![
                    Cell::text("agent-1"),
                    Cell::number(12),
                    Cell::text("check:branch-name"),
                ],
                vec![
                    Cell::text("=HYPERLINK(\"x\")"),
                    Cell::number(3),
                    Cell::Empty,
                ],
                vec![
                    Cell::text("a,b\u{202e}"),
                    Cell::number(100),
                    Cell::text("line\nbreak"),
                ],
            ],
        }
    }

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        let csv = table().csv().replace('\u{202e}', "<bidi>");
        insta::assert_snapshot!(csv.replace("\r\n", "⏎\n"), @r#"
        agent,prs,rule⏎
        agent-1,12,check:branch-name⏎
        "'=HYPERLINK(""x"")",3,⏎
        "a,b<bidi>",100,"line
        break"⏎
        "#);
    }

    #[test]
    fn plain_tables_align_and_show_hidden_characters() {
        insta::assert_snapshot!(table().plain(), @r#"
        agent            prs  rule
        agent-1           12  check:branch-name
        =HYPERLINK("x")    3  -
        a,b<U+202E>      100  line<U+000A>break
        "#);
    }
}
