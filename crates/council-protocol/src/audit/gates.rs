//! A Context Object's `gates`: each gate's newest verdict, derived from the timeline
//! (never stored on its own), in the seed's order first (`naming_convention`,
//! `target_policy`, `doc_coverage`, `pipeline_green`), then the others as the timeline
//! first names them. A gate that did not run, or that waits, is `null`.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A gate's verdict in `gates`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum GateValue {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "FAIL")]
    Fail,
    /// A verdict this build does not know (a newer version's), kept as written.
    #[serde(untagged)]
    Other(String),
}

impl GateValue {
    pub fn as_str(&self) -> &str {
        match self {
            GateValue::Pass => "PASS",
            GateValue::Fail => "FAIL",
            GateValue::Other(text) => text,
        }
    }
}

/// `gates`, in order; `None` is `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gates(Vec<(String, Option<GateValue>)>);

impl Gates {
    /// Each of `names` not run yet.
    pub fn not_run(names: &[&str]) -> Gates {
        Gates(names.iter().map(|n| (n.to_string(), None)).collect())
    }

    /// Sets `gate`'s verdict, keeping its place (a new gate goes last).
    pub fn set(&mut self, gate: String, value: Option<GateValue>) {
        match self.0.iter_mut().find(|(name, _)| *name == gate) {
            Some((_, slot)) => *slot = value,
            None => self.0.push((gate, value)),
        }
    }

    /// `gate`'s verdict: `None` when the object does not name it, `Some(None)` for `null`.
    pub fn get(&self, gate: &str) -> Option<Option<&GateValue>> {
        self.0
            .iter()
            .find(|(name, _)| name == gate)
            .map(|(_, value)| value.as_ref())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&GateValue>)> {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_ref()))
    }
}

impl Serialize for Gates {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Gates {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Gates, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Gates;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of gate names to \"PASS\", \"FAIL\" or null")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Gates, A::Error> {
                let mut gates = Vec::new();
                while let Some((name, value)) = map.next_entry::<String, Option<GateValue>>()? {
                    gates.push((name, value));
                }
                Ok(Gates(gates))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_keep_their_order_and_read_back_as_written() {
        let mut gates = Gates::not_run(&["naming_convention", "target_policy"]);
        gates.set("secret_scan".into(), Some(GateValue::Fail));
        gates.set("naming_convention".into(), Some(GateValue::Pass));
        let text = serde_json::to_string(&gates).unwrap();
        assert_eq!(
            text,
            r#"{"naming_convention":"PASS","target_policy":null,"secret_scan":"FAIL"}"#
        );
        let back: Gates = serde_json::from_str(&text).unwrap();
        assert_eq!(back, gates);
        assert_eq!(back.get("target_policy"), Some(None));
        assert_eq!(back.get("nope"), None);
        let newer: Gates = serde_json::from_str(r#"{"x":"MAYBE"}"#).unwrap();
        assert_eq!(
            newer.get("x"),
            Some(Some(&GateValue::Other("MAYBE".into())))
        );
        assert!(serde_json::from_str::<Gates>(r#"{"x":5}"#).is_err());
    }
}
