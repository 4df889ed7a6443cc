//! RFC 8785 vectors and properties of the canonical form.

use proptest::prelude::*;
use serde_json::{Number, Value, json};

use crate::audit::canonical::{CanonError, MAX_DEPTH, cmp_utf16, to_canonical_string};

fn canon(v: &Value) -> String {
    to_canonical_string(v).expect("canonicalizes")
}

fn number(bits: u64) -> String {
    let f = f64::from_bits(bits);
    canon(&Value::Number(Number::from_f64(f).expect("finite")))
}

/// RFC 8785 appendix B (all finite samples), cross-checked with node's JSON.stringify.
#[test]
fn appendix_b_numbers() {
    let cases: [(u64, &str); 24] = [
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
    ];
    for (bits, expected) in cases {
        assert_eq!(number(bits), expected, "bits {bits:016x}");
    }
}

/// RFC 8785 section 3.2.3, plus "</script>" (must not be escaped, sorts after "1").
#[test]
fn rfc_sorting_example() {
    let input = r#"{
        "\u20ac": "Euro Sign", "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis", "</script>": "Browser Challenge"
    }"#;
    let value: Value = serde_json::from_str(input).expect("valid JSON");
    let expected = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"</script>\":\"Browser Challenge\",\
        \"\u{80}\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\
        \"😀\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}";
    assert_eq!(canon(&value), expected);
}

/// RFC 8785 section 3.2.2 (numbers, string escapes, literals). The numbers are read
/// with Rust's correctly rounded parser: see `serde_json_float_parsing_round_trips`.
#[test]
fn rfc_primitives_example() {
    let input = r#"{
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]
    }"#;
    let mut value: Value = serde_json::from_str(input).expect("valid JSON");
    let numbers = [
        "333333333.33333329",
        "1E30",
        "4.50",
        "2e-3",
        "0.000000000000000000000000001",
    ]
    .map(|n| json!(n.parse::<f64>().expect("number")));
    value["numbers"] = Value::Array(numbers.to_vec());
    let expected = r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#;
    assert_eq!(canon(&value), expected);
}

/// A float must read back as the same double, or an entry holding one would fail its
/// hash after a write and a read. serde_json's default float parser is not exact (about
/// 30% of random doubles come back one ulp off, e.g. 333333333.33333329 reads as
/// 0x41b3de4355555554); its `float_roundtrip` feature, enabled in Cargo.toml, fixes that.
#[test]
fn serde_json_float_parsing_round_trips() {
    for text in ["333333333.33333329", "1.0715660391465826e-75"] {
        let exact: f64 = text.parse().expect("number");
        let parsed: f64 = serde_json::from_str(text).expect("number");
        assert_eq!(parsed.to_bits(), exact.to_bits(), "{text}");
    }
}

#[test]
fn escapes_only_what_json_requires() {
    let s: String =
        (0u8..0x20).map(char::from).collect::<String>() + "\"\\/\u{7f}\u{2028}\u{2029}\u{fffd}😀é";
    let expected = r#""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\"\\/"#
        .to_owned()
        + "\u{7f}\u{2028}\u{2029}\u{fffd}😀é\"";
    assert_eq!(canon(&Value::String(s)), expected);
}

#[test]
fn integers_are_exact_and_nesting_is_sorted() {
    let value = json!({"b": [u64::MAX, i64::MIN, 0, -1, {"z": 1, "a": 2}], "a": {}, "": []});
    assert_eq!(
        canon(&value),
        r#"{"":[],"a":{},"b":[18446744073709551615,-9223372036854775808,0,-1,{"a":2,"z":1}]}"#
    );
}

#[test]
fn insertion_order_does_not_matter() {
    let a: Value = serde_json::from_str(r#"{"x":1,"y":{"q":1,"p":2}}"#).expect("json");
    let b: Value = serde_json::from_str(r#"{"y":{"p":2,"q":1},"x":1}"#).expect("json");
    assert_eq!(canon(&a), canon(&b));
}

#[test]
fn too_deep_is_an_error_not_a_stack_overflow() {
    let mut deep = json!(1);
    for _ in 0..=MAX_DEPTH {
        deep = json!([deep]);
    }
    assert_eq!(to_canonical_string(&deep), Err(CanonError::TooDeep));
    let mut ok = json!(1);
    for _ in 0..MAX_DEPTH {
        ok = json!({ "k": ok });
    }
    assert!(to_canonical_string(&ok).is_ok());
}

proptest! {
    #[test]
    fn key_order_is_utf16_order(a in "\\PC{0,6}", b in "\\PC{0,6}",
                                c in prop::char::range('\u{e000}', '\u{ffff}'),
                                d in prop::char::range('\u{10000}', '\u{10ffff}')) {
        for (x, y) in [(a.clone(), b.clone()), (format!("{a}{c}"), format!("{a}{d}")),
                       (format!("{c}{b}"), format!("{d}{a}"))] {
            prop_assert_eq!(cmp_utf16(&x, &y), x.encode_utf16().cmp(y.encode_utf16()));
        }
    }

    #[test]
    fn floats_round_trip(bits in any::<u64>()) {
        let f = f64::from_bits(bits);
        prop_assume!(f.is_finite());
        let text = number(bits);
        let back: f64 = text.parse().expect("a number");
        prop_assert_eq!(back, f);
        prop_assert!(!text.contains('E') && !text.starts_with('+') && !text.ends_with('.'));
    }

    #[test]
    fn canonical_form_parses_back_to_the_same_value(s in "\\PC*", c in "[\\x00-\\x20\"\\\\]*",
                                                     n in any::<i64>(), u in any::<u64>()) {
        let value = json!({"s": s, "c": c, "n": n, "u": u, "nested": [{"s": s}]});
        let text = canon(&value);
        let back: Value = serde_json::from_str(&text).expect("canonical form is JSON");
        prop_assert_eq!(&back, &value);
        prop_assert_eq!(canon(&back), text);
    }
}
