//! Bounded retries with backoff that honours `Retry-After`, shared by every remote call.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

/// How long one request may take, reply body included: a server that drips bytes must
/// not keep a run alive (a read timeout alone restarts with every byte).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Every request and wait of a run ends before this much time has passed since it
/// started (SPEC.md: all waiting together stays under 5 minutes).
pub const RUN_BUDGET: Duration = Duration::from_secs(270);

/// How often and how long to retry. The defaults keep a failing call under about a
/// minute, and the deadline keeps a whole run under [`RUN_BUDGET`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub max_attempts: u32,
    /// First backoff (500 ms); doubled after every failed attempt, with up to 50 % jitter.
    pub base_delay: Duration,
    /// Longest single wait; a `Retry-After` beyond it ends the retries at once.
    pub max_delay: Duration,
    /// When the run's time is up: no request starts and no wait ends after it.
    pub deadline: Option<Instant>,
    /// How long one request may take, reply included ([`REQUEST_TIMEOUT`]).
    pub request_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
            deadline: None,
            request_timeout: REQUEST_TIMEOUT,
        }
    }
}

impl RetryPolicy {
    /// `COUNCIL_RETRY_BASE_MS` shortens the backoff (tests, impatient local runs).
    pub fn with_base_ms(base_ms: Option<u64>) -> Self {
        let mut policy = RetryPolicy::default();
        if let Some(ms) = base_ms {
            policy.base_delay = Duration::from_millis(ms);
        }
        policy
    }

    /// The same policy, ending `budget` from now.
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.deadline = Some(Instant::now() + budget);
        self
    }

    /// Time left before the deadline (`None`: no deadline).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// `COUNCIL_REQUEST_TIMEOUT_MS` shortens the per-request timeout (fault drills).
    pub fn with_request_timeout_ms(mut self, ms: Option<u64>) -> Self {
        if let Some(ms) = ms {
            self.request_timeout = Duration::from_millis(ms.max(1));
        }
        self
    }

    /// How long the next request may take: the request timeout, or less near the deadline.
    fn next_timeout(&self) -> Duration {
        self.remaining()
            .map_or(self.request_timeout, |left| left.min(self.request_timeout))
    }

    fn backoff(&self, failed_attempts: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(failed_attempts.saturating_sub(1)));
        let jitter = crate::jitter::in_range(0, 500) as f64 / 1000.0;
        exp.mul_f64(1.0 + jitter).min(self.max_delay)
    }
}

/// What one failed attempt means for the next one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub retryable: bool,
    /// Server-requested wait (`Retry-After`, or the rate-limit reset).
    pub retry_after: Option<Duration>,
    /// The HTTP status, when the failure was a reply rather than a transport error.
    pub status: Option<u16>,
    /// Nothing at the address could answer (connection refused, a name that does not
    /// resolve, no route): never retryable, since no wait changes it.
    pub unreachable: bool,
    pub message: String,
}

impl Failure {
    pub fn fatal(message: impl Into<String>) -> Self {
        Failure {
            retryable: false,
            retry_after: None,
            status: None,
            unreachable: false,
            message: message.into(),
        }
    }

    pub fn transient(message: impl Into<String>, retry_after: Option<Duration>) -> Self {
        Failure {
            retryable: true,
            retry_after,
            status: None,
            unreachable: false,
            message: message.into(),
        }
    }

    /// The server's address answers nothing: failing at once says so, where retrying
    /// would only wait and then blame the service.
    pub fn unreachable(message: impl Into<String>) -> Self {
        Failure {
            unreachable: true,
            ..Failure::fatal(message)
        }
    }
}

/// The last failure, and how many attempts were made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaveUp {
    pub attempts: u32,
    pub last: Failure,
}

/// Runs `op` until it succeeds, fails for good, or the policy is spent.
pub async fn retry<T, F, Fut>(policy: RetryPolicy, mut op: F) -> Result<T, GaveUp>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let mut attempt = 0;
    loop {
        if policy.remaining() == Some(Duration::ZERO) {
            return Err(GaveUp {
                attempts: attempt,
                last: Failure::transient(out_of_time(), None),
            });
        }
        attempt += 1;
        let timeout = policy.next_timeout();
        let failure = match tokio::time::timeout(timeout, op(attempt)).await {
            Ok(Ok(value)) => return Ok(value),
            Ok(Err(failure)) => failure,
            Err(_) => Failure::transient(
                format!("no complete reply within {:.1} s", timeout.as_secs_f64()),
                None,
            ),
        };
        if !failure.retryable || attempt >= policy.max_attempts {
            return Err(GaveUp {
                attempts: attempt,
                last: failure,
            });
        }
        let wait = match failure.retry_after {
            Some(after) if after > policy.max_delay => {
                return Err(GaveUp {
                    attempts: attempt,
                    last: Failure {
                        message: format!(
                            "{} (the server asked to wait {} s, longer than the {} s this run waits)",
                            failure.message,
                            after.as_secs(),
                            policy.max_delay.as_secs()
                        ),
                        ..failure
                    },
                });
            }
            Some(after) => after,
            None => policy.backoff(attempt),
        };
        if policy.remaining().is_some_and(|left| wait >= left) {
            return Err(GaveUp {
                attempts: attempt,
                last: Failure {
                    message: format!("{}; {}", failure.message, out_of_time()),
                    ..failure
                },
            });
        }
        tokio::time::sleep(wait).await;
    }
}

fn out_of_time() -> String {
    format!(
        "the run's {} s budget for waiting on remote services is spent",
        RUN_BUDGET.as_secs()
    )
}

/// Parses `Retry-After` in its delta-seconds form; GitHub never sends the date form.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn fast() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_secs(2),
            ..RetryPolicy::default()
        }
    }

    #[tokio::test]
    async fn retries_transient_failures_then_succeeds() {
        let calls = Cell::new(0);
        let out = retry(fast(), |_| {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move {
                if n < 3 {
                    Err(Failure::transient("503", None))
                } else {
                    Ok(n)
                }
            }
        })
        .await;
        assert_eq!(out, Ok(3));
    }

    #[tokio::test]
    async fn stops_at_the_attempt_limit() {
        let out: Result<(), _> =
            retry(fast(), |_| async { Err(Failure::transient("502", None)) }).await;
        let gave_up = out.unwrap_err();
        assert_eq!(gave_up.attempts, 4);
        assert_eq!(gave_up.last.message, "502");
    }

    #[tokio::test]
    async fn fatal_failures_are_not_retried() {
        let calls = Cell::new(0);
        let out: Result<(), _> = retry(fast(), |_| {
            calls.set(calls.get() + 1);
            async { Err(Failure::fatal("404")) }
        })
        .await;
        assert_eq!(out.unwrap_err().attempts, 1);
        assert_eq!(calls.get(), 1);
    }

    #[tokio::test]
    async fn a_retry_after_beyond_the_cap_ends_at_once() {
        let out: Result<(), _> = retry(fast(), |_| async {
            Err(Failure::transient("429", Some(Duration::from_secs(3600))))
        })
        .await;
        let gave_up = out.unwrap_err();
        assert_eq!(gave_up.attempts, 1);
        assert!(
            gave_up.last.message.contains("3600 s"),
            "{}",
            gave_up.last.message
        );
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
            ..RetryPolicy::default()
        };
        assert!(p.backoff(1) >= Duration::from_millis(100));
        assert!(p.backoff(1) <= Duration::from_millis(150));
        assert_eq!(p.backoff(8), Duration::from_millis(500));
    }

    #[tokio::test(start_paused = true)]
    async fn a_hanging_request_times_out_and_the_deadline_ends_the_retries() {
        let policy = RetryPolicy {
            max_attempts: 100,
            ..fast()
        }
        .with_budget(Duration::from_secs(95));
        let started = Instant::now();
        let out: Result<(), _> = retry(policy, |_| std::future::pending()).await;
        let gave_up = out.unwrap_err();
        let waited = started.elapsed();
        assert!(waited <= Duration::from_secs(95), "{waited:?}");
        assert_eq!(gave_up.attempts, 4, "30 + 30 + 30 + the 5 s left");
        assert!(
            gave_up.last.message.contains("budget"),
            "{}",
            gave_up.last.message
        );
    }

    #[test]
    fn retry_after_seconds() {
        assert_eq!(parse_retry_after(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
