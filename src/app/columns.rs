//! Text in columns for a terminal: the state table, the audit store's answers.

/// Rows as lines under `indent`, two spaces between columns, trailing spaces dropped.
/// Every column is as wide as its widest cell, counted in characters (what a terminal
/// shows of the names and origins, which are ASCII, and of any other text but the widest
/// scripts); a cell that ends a row shorter than the others does not widen its column.
/// `right[r][c]` aligns cell `c` of row `r` to the right (numbers); missing means left.
pub(crate) fn aligned_with(rows: &[Vec<String>], indent: &str, right: &[Vec<bool>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        let counted = if row.len() < columns {
            row.len().saturating_sub(1)
        } else {
            row.len()
        };
        for (i, cell) in row.iter().enumerate().take(counted) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let pad = " ".repeat(widths[i].saturating_sub(cell.chars().count()));
                match right.get(r).and_then(|flags| flags.get(i)) {
                    Some(true) => format!("{pad}{cell}"),
                    _ => format!("{cell}{pad}"),
                }
            })
            .collect();
        out.push_str(indent);
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// [`aligned_with`], every cell aligned to the left.
pub(crate) fn aligned(rows: &[Vec<String>], indent: &str) -> String {
    aligned_with(rows, indent, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_as_wide_as_their_widest_cell_in_characters() {
        let rows = vec![
            vec!["ä".to_string(), "x".to_string()],
            vec!["long_name".to_string(), "y".to_string()],
            vec!["é".to_string()],
        ];
        assert_eq!(aligned(&rows, ""), "ä          x\nlong_name  y\né\n");
    }
}
