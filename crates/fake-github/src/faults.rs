//! Fault drills: answers queued per route (an outage, a rate limit, a slow reply, a reply
//! lost after the write happened), and one-shot hooks that change the world just before
//! or just after a request (a comment deleted between read and write, a head pushed
//! between the read and the merge). A route is named by method and a fragment of
//! `path?query` (or a GraphQL operation name), e.g. `("PUT", "/pulls/7/merge")`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::world::World;

/// Which requests a fault or hook applies to.
#[derive(Debug, Clone)]
pub struct Target {
    method: String,
    fragment: String,
}

impl Target {
    pub fn new(method: &str, fragment: &str) -> Target {
        Target {
            method: method.to_ascii_uppercase(),
            fragment: fragment.to_string(),
        }
    }

    /// Same method, and the fragment is in `path?query` or is the GraphQL operation.
    pub fn hits(&self, method: &str, path_query: &str, operation: Option<&str>) -> bool {
        self.method == method
            && (path_query.contains(&self.fragment) || operation == Some(self.fragment.as_str()))
    }
}

/// What a faulty request gets instead of (or on top of) the world's answer.
#[derive(Debug, Clone)]
pub struct Fault {
    /// `None`: the world's own answer (only delayed).
    pub(super) replace: Option<Replacement>,
    pub(super) delay: Option<Duration>,
    /// The world applies the request first (a write that happened, its reply lost).
    pub(super) after_applying: bool,
}

/// The answer a fault gives instead of the world's.
#[derive(Debug, Clone)]
pub struct Replacement {
    pub status: u16,
    pub body: Value,
    pub headers: Vec<(String, String)>,
}

impl Fault {
    /// Any status, with GitHub's `{"message": …}` body.
    pub fn status(status: u16, message: &str) -> Fault {
        Fault::json(status, json!({ "message": message }))
    }

    pub fn json(status: u16, body: Value) -> Fault {
        Fault {
            replace: Some(Replacement {
                status,
                body,
                headers: Vec::new(),
            }),
            delay: None,
            after_applying: false,
        }
    }

    /// 502 from GitHub's front end, as during an incident.
    pub fn bad_gateway() -> Fault {
        Fault::status(502, "Server Error")
    }

    /// The primary rate limit: 429 with `Retry-After` and an empty quota.
    pub fn rate_limited(retry_after_secs: u64) -> Fault {
        Fault::status(429, "API rate limit exceeded for installation ID 1.")
            .header("retry-after", &retry_after_secs.to_string())
            .header("x-ratelimit-remaining", "0")
    }

    /// The secondary (abuse) rate limit: a 403 that only the message and `Retry-After`
    /// tell apart from a missing permission.
    pub fn secondary_rate_limit(retry_after_secs: u64) -> Fault {
        Fault::status(
            403,
            "You have exceeded a secondary rate limit. Please wait a few minutes before you \
             try again.",
        )
        .header("retry-after", &retry_after_secs.to_string())
    }

    /// The world's normal answer, `delay` late.
    pub fn slow(delay: Duration) -> Fault {
        Fault {
            replace: None,
            delay: Some(delay),
            after_applying: false,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Fault {
        if let Some(instead) = &mut self.replace {
            instead.headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// Also late.
    pub fn delayed(mut self, delay: Duration) -> Fault {
        self.delay = Some(delay);
        self
    }

    /// The world does the write, then the client sees this answer instead of the real
    /// one: a merge that happened behind a 502.
    pub fn after_applying(mut self) -> Fault {
        self.after_applying = true;
        self
    }
}

/// A fault waiting for the next `remaining` requests to its target.
pub(super) struct QueuedFault {
    pub target: Target,
    pub remaining: usize,
    pub fault: Fault,
}

pub type HookFn = Box<dyn FnOnce(&mut World) + Send>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Before the world answers (the request sees the change).
    Before,
    /// After the world answered (the next request sees the change).
    After,
}

/// A one-shot change of the world, run at the first request that hits its target.
pub struct Hook {
    pub(super) target: Target,
    pub(super) when: When,
    pub(super) run: HookFn,
}

/// The first queued fault for this request, counted down (and dropped when spent).
pub(super) fn take_fault(
    world: &mut World,
    method: &str,
    path_query: &str,
    operation: Option<&str>,
) -> Option<Fault> {
    let index = world
        .faults
        .iter()
        .position(|f| f.remaining > 0 && f.target.hits(method, path_query, operation))?;
    let queued = &mut world.faults[index];
    queued.remaining -= 1;
    let fault = queued.fault.clone();
    if queued.remaining == 0 {
        world.faults.remove(index);
    }
    Some(fault)
}

/// Runs (and removes) the first hook of this moment that this request hits: hooks queued
/// for the same route take turns, one request each.
pub(super) fn run_hook(
    world: &mut World,
    when: When,
    method: &str,
    path_query: &str,
    operation: Option<&str>,
) {
    let due = world
        .hooks
        .iter()
        .position(|h| h.when == when && h.target.hits(method, path_query, operation));
    if let Some(index) = due {
        let hook = world.hooks.remove(index);
        (hook.run)(world);
    }
}
