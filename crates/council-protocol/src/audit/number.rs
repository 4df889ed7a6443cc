//! Numbers in the canonical form: integers exactly, floats as ECMAScript's
//! `Number::toString` (RFC 8785 section 3.2.2.3).

use std::fmt::Write as _;

use serde_json::Number;

/// Integers are written exactly, floats in ECMAScript form.
///
/// RFC 8785 treats every number as an IEEE double, which would print 2^53 + 1 as
/// 2^53 and let two different integers share one hash. serde_json (without
/// `arbitrary_precision`) holds integers as i64/u64, and those are written digit for
/// digit: identical to JCS within I-JSON's safe range (|n| <= 2^53), and never lossy.
pub(super) fn write_number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64() {
        write_u64(out, u);
    } else if let Some(i) = n.as_i64() {
        out.push('-');
        write_u64(out, i.unsigned_abs());
    } else if let Some(f) = n.as_f64() {
        write_f64(out, f);
    }
}

fn write_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &buf[i..] {
        out.push(char::from(d));
    }
}

/// ECMAScript Number::toString(x) (ECMA-262, 6.1.6.1.20) for a finite double.
fn write_f64(out: &mut String, f: f64) {
    if f == 0.0 || !f.is_finite() {
        // -0 is "0"; serde_json cannot hold NaN or infinities.
        out.push('0');
        return;
    }
    let Some((digits, n)) = shortest(f.abs()) else {
        out.push('0'); // unreachable for a finite non-zero double
        return;
    };
    if f < 0.0 {
        out.push('-');
    }
    layout(out, &digits, n);
}

/// The shortest round-tripping digits `s` and the exponent `n` with
/// value = 0.s x 10^n. Rust's `{:e}` finds the shortest digits and the closest of
/// them, but breaks an exact tie upwards where ECMAScript (and RFC 8785, appendix B:
/// 1424953923781206.25 -> "1424953923781206.2") takes the even one.
fn shortest(f: f64) -> Option<(String, i32)> {
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{f:e}");
    let (mantissa, exp) = sci.split_once('e')?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().ok()?;
    if digits.is_empty() {
        return None;
    }
    let k = digits.len() as i32;
    let q = exp + 1 - k; // value = s x 10^q
    let tie = digits
        .parse::<u64>()
        .ok()
        .and_then(|s| even_neighbour_on_tie(f, s, q));
    if let Some(even) = tie {
        let mut alt = even.to_string();
        let n = q + alt.len() as i32;
        while alt.ends_with('0') {
            alt.pop();
        }
        // Only if it still reads back as the same double (asymmetric intervals).
        if format!("{alt}e{}", n - alt.len() as i32)
            .parse::<f64>()
            .ok()
            == Some(f)
        {
            return Some((alt, n));
        }
    }
    Some((digits, exp + 1))
}

/// When `f` lies exactly halfway between `s` and `s +/- 1` (times 10^q), the even one.
fn even_neighbour_on_tie(f: f64, s: u64, q: i32) -> Option<u64> {
    if s.is_multiple_of(2) {
        return None;
    }
    [s - 1, s]
        .into_iter()
        .find(|&low| is_midpoint(f, low, q))
        .map(|low| if low.is_multiple_of(2) { low } else { low + 1 })
        .filter(|&even| even > 0)
}

/// Exactly f == (2·low + 1)/2 · 10^q, in integers: with f = m·2^e (m odd),
/// m·2^(e+1) == (2·low + 1)·5^q·2^q, and both sides' odd parts and powers of 2 agree.
fn is_midpoint(f: f64, low: u64, q: i32) -> bool {
    let bits = f.to_bits();
    let (exp_bits, frac) = ((bits >> 52) & 0x7ff, bits & ((1 << 52) - 1));
    let (mut m, mut e) = match exp_bits {
        0 => (frac, -1074i32),
        _ => (frac | (1 << 52), exp_bits as i32 - 1075),
    };
    if m == 0 {
        return false;
    }
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i32;
    let odd = u128::from(low) * 2 + 1;
    let pow5 = |p: u32| 5u128.checked_pow(p);
    e + 1 == q
        && match q {
            0.. => pow5(q.unsigned_abs()).and_then(|p| p.checked_mul(odd)) == Some(u128::from(m)),
            _ => pow5(q.unsigned_abs()).and_then(|p| p.checked_mul(u128::from(m))) == Some(odd),
        }
}

/// Places the digits as ECMAScript does: plain up to 21 integer digits or 6 leading
/// fraction zeros, otherwise `d.ddde+x`.
fn layout(out: &mut String, digits: &str, n: i32) {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if n - 1 > 0 { '+' } else { '-' });
        write_u64(out, u64::from((n - 1).unsigned_abs()));
    }
}
