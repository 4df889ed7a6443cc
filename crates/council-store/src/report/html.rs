//! The page: a template with the data embedded as JSON, drawn by its own script.
//!
//! The template (`page.html`) holds every style and script inline and a policy that
//! forbids loading anything, so the one file works from disk, on GitHub Pages or as a CI
//! artifact, and a hostile string in the data can reach nothing outside the page.

use super::ReportData;

const TEMPLATE: &str = include_str!("page.html");

/// Where the data goes: the content of `<script type="application/json" id="council-data">`.
const DATA_MARK: &str = "{{COUNCIL_DATA}}";

/// The whole page, self-contained.
pub fn render_html(data: &ReportData) -> String {
    TEMPLATE.replacen(DATA_MARK, &embedded_json(data), 1)
}

/// The data as JSON that cannot end its script element.
fn embedded_json(data: &ReportData) -> String {
    // Serialising these plain structs cannot fail (serde_json writes a non-finite float
    // as null); were it to, `null` makes the page say that its data is missing.
    let json = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
    script_safe(&json)
}

/// Escapes `<`, `>` and `&` as JSON `\u` escapes. In a script element the HTML parser
/// looks only for `</script` and `<!--`, and these characters occur in JSON only inside
/// strings, where the escape means the same character to `JSON.parse`.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{PrRow, TimelineRow};

    const HOSTILE: &str = "</script><script>alert(1)</script><!-- &amp; \u{2028}\u{202e}";

    fn hostile() -> ReportData {
        ReportData {
            repositories: vec!["acme/web".into()],
            prs: vec![PrRow {
                repository: "acme/web".into(),
                pr: 7,
                title: Some(HOSTILE.into()),
                timeline: vec![TimelineRow {
                    message: "</SCRIPT >".into(),
                    ..TimelineRow::default()
                }],
                ..PrRow::default()
            }],
            ..ReportData::default()
        }
    }

    /// The text between the data block's opening tag and the first `</script`.
    fn data_block(page: &str) -> &str {
        let open = r#"<script type="application/json" id="council-data">"#;
        let start = page.find(open).unwrap() + open.len();
        let end = start + page[start..].to_ascii_lowercase().find("</script").unwrap();
        &page[start..end]
    }

    #[test]
    fn hostile_text_stays_inside_the_data_block() {
        let page = render_html(&hostile());
        let block = data_block(&page);
        assert!(!block.contains(['<', '>', '&']), "{block}");
        let back: serde_json::Value = serde_json::from_str(block).unwrap();
        assert_eq!(back["prs"][0]["title"], HOSTILE);
        assert_eq!(back["prs"][0]["timeline"][0]["message"], "</SCRIPT >");
        assert_eq!(back, serde_json::to_value(hostile()).unwrap());
        // The page goes on after the block: the script that draws it is intact.
        assert!(page[page.find(block).unwrap()..].contains("document.body.dataset.rendered"));
    }

    #[test]
    fn the_data_goes_in_one_place() {
        assert_eq!(TEMPLATE.matches(DATA_MARK).count(), 1);
        let page = render_html(&ReportData::default());
        assert!(!page.contains(DATA_MARK));
    }

    #[test]
    fn the_escape_is_exact() {
        insta::assert_snapshot!(
            script_safe(r#"{"t":"a<b>&c\u2028"}"#),
            @r#"{"t":"a\u003cb\u003e\u0026c\u2028"}"#
        );
    }

    #[test]
    fn the_page_loads_nothing() {
        assert!(TEMPLATE.contains(
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
        ));
        // The SVG namespace is a name, not something fetched; no other URL may appear.
        let without_namespace = TEMPLATE.replace("'http://www.w3.org/2000/svg'", "");
        for reference in ["http:", "https:", "ftp:", "\"//", "'//", "url(", "@import"] {
            assert!(!without_namespace.contains(reference), "{reference}");
        }
        for attribute in ["src=", "href=", "action=", "srcset=", "poster="] {
            for (at, _) in TEMPLATE.match_indices(attribute) {
                let value = &TEMPLATE[at + attribute.len()..];
                assert!(
                    value.starts_with("\"#") || value.starts_with("\"data:"),
                    "{attribute}{}",
                    &value[..40]
                );
            }
        }
    }

    #[test]
    fn the_template_stays_small() {
        assert!(TEMPLATE.len() < 40 * 1024, "{} bytes", TEMPLATE.len());
        let page = render_html(&ReportData::default());
        assert!(page.len() < TEMPLATE.len() + 1024, "{} bytes", page.len());
    }

    #[test]
    fn the_template_is_ascii() {
        // Non-ASCII in the script is written as `\u` escapes, so no editor or transfer
        // can change what the page shows.
        let odd: Vec<char> = TEMPLATE.chars().filter(|c| !c.is_ascii()).collect();
        assert!(odd.is_empty(), "{odd:?}");
    }
}
