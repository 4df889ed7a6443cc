//! `created_at`/`updated_at`: ISO 8601 date and time with a time zone.
//!
//! Accepted: `YYYY-MM-DD`, then `T` (or `t`, or one space as RFC 3339 allows), then
//! `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction`, then `Z`/`z` or an offset `±HH:MM`,
//! `±HHMM` or `±HH`. The RFC's own example writes `+01:00`. A local time without a zone
//! is refused: the point of the field is to order sessions across machines.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeZone};

/// Parses a timestamp, or says what is wrong with it.
pub fn parse_timestamp(text: &str) -> Result<DateTime<FixedOffset>, &'static str> {
    const SHAPE: &str = "is not an ISO 8601 date and time with a time zone, such as \
                         2025-12-30T10:00:00+01:00 or 2025-12-30T09:00:00Z";
    let mut s = Cursor { rest: text };
    let year = s.digits(4).ok_or(SHAPE)?;
    s.expect('-').ok_or(SHAPE)?;
    let month = s.digits(2).ok_or(SHAPE)?;
    s.expect('-').ok_or(SHAPE)?;
    let day = s.digits(2).ok_or(SHAPE)?;
    let date = NaiveDate::from_ymd_opt(year as i32, month, day)
        .ok_or("names a date that does not exist")?;
    if s.rest.is_empty() {
        return Err("has a date but no time and time zone; write e.g. 2025-12-30T10:00:00+01:00");
    }
    if !(s.eat('T') || s.eat('t') || s.eat(' ')) {
        return Err(SHAPE);
    }
    let hour = s.digits(2).ok_or(SHAPE)?;
    s.expect(':').ok_or(SHAPE)?;
    let minute = s.digits(2).ok_or(SHAPE)?;
    let (mut second, mut nanos) = (0, 0);
    if s.eat(':') {
        second = s.digits(2).ok_or(SHAPE)?;
        if s.eat('.') || s.eat(',') {
            let digits: String = s.rest.chars().take_while(char::is_ascii_digit).collect();
            if digits.is_empty() {
                return Err(SHAPE);
            }
            s.rest = s.rest.trim_start_matches(|c: char| c.is_ascii_digit());
            let padded: String = digits
                .chars()
                .chain(std::iter::repeat('0'))
                .take(9)
                .collect();
            nanos = padded.parse().map_err(|_| SHAPE)?;
        }
    }
    let time = NaiveTime::from_hms_nano_opt(hour, minute, second, nanos)
        .ok_or("names a time of day that does not exist")?;
    let offset = if s.eat('Z') || s.eat('z') {
        0
    } else {
        let sign = if s.eat('+') {
            1
        } else if s.eat('-') {
            -1
        } else if s.rest.is_empty() {
            return Err("has no time zone; add `Z` for UTC or an offset such as +01:00");
        } else {
            return Err(SHAPE);
        };
        let hours = s.digits(2).ok_or(SHAPE)?;
        let minutes = if s.eat(':') {
            s.digits(2).ok_or(SHAPE)?
        } else {
            s.digits(2).unwrap_or(0)
        };
        if hours > 23 || minutes > 59 {
            return Err("has a time zone offset out of range");
        }
        sign * (hours * 3600 + minutes * 60) as i32
    };
    if !s.rest.is_empty() {
        return Err(SHAPE);
    }
    let zone = FixedOffset::east_opt(offset).ok_or("has a time zone offset out of range")?;
    zone.from_local_datetime(&date.and_time(time))
        .single()
        .ok_or(SHAPE)
}

struct Cursor<'a> {
    rest: &'a str,
}

impl Cursor<'_> {
    fn digits(&mut self, n: usize) -> Option<u32> {
        let (head, rest) = self.rest.split_at_checked(n)?;
        if !head.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        self.rest = rest;
        head.parse().ok()
    }

    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Option<()> {
        self.eat(c).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_forms() {
        for text in [
            "2025-12-30T10:00:00+01:00",
            "2025-12-30T09:00:00Z",
            "2025-12-30t09:00:00z",
            "2025-12-30 10:00:00+01:00",
            "2025-12-30T10:00+01:00",
            "2025-12-30T10:00:00.123456789-05:30",
            "2025-12-30T10:00:00,5+0100",
            "2025-12-30T10:00:00+01",
        ] {
            assert!(parse_timestamp(text).is_ok(), "{text}");
        }
        let a = parse_timestamp("2025-12-30T10:00:00+01:00").unwrap();
        let b = parse_timestamp("2025-12-30T09:00:00Z").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn refused_forms_say_why() {
        let why = |t: &str| parse_timestamp(t).unwrap_err();
        assert!(why("2025-12-30").contains("no time"));
        assert!(why("2025-12-30T10:00:00").contains("no time zone"));
        assert!(why("2025-02-30T10:00:00Z").contains("date that does not exist"));
        assert!(why("2025-12-30T25:00:00Z").contains("time of day"));
        assert!(why("2025-12-30T10:00:00+24:00").contains("offset"));
        for bad in [
            "",
            "yesterday",
            "30/12/2025 10:00",
            "2025-12-30T10:00:00Z junk",
            "２０２５-12-30T10:00Z",
        ] {
            assert!(parse_timestamp(bad).is_err(), "{bad}");
        }
    }
}
