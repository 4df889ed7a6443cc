//! Unpredictable-enough numbers for backoff jitter and output delimiters, without an OS
//! entropy source: a static binary in an empty root may have no `/dev/urandom`, and
//! none of these uses needs cryptographic randomness.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// 32 bytes from the clock, the process id and a counter, mixed by SHA-256.
pub fn bytes() -> [u8; 32] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut hasher = Sha256::new();
    hasher.update(nanos.to_le_bytes());
    hasher.update(std::process::id().to_le_bytes());
    hasher.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    hasher.finalize().into()
}

/// A number in `[low, high)` (`low` when the range is empty).
pub fn in_range(low: u64, high: u64) -> u64 {
    if high <= low {
        return low;
    }
    let b = bytes();
    let n = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    low + n % (high - low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_in_range_and_vary() {
        let values: Vec<u64> = (0..100).map(|_| in_range(10, 20)).collect();
        assert!(values.iter().all(|v| (10..20).contains(v)));
        assert!(values.iter().any(|v| *v != values[0]));
        assert_eq!(in_range(5, 5), 5);
        assert_ne!(bytes(), bytes());
    }
}
