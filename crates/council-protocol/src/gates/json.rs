//! A gate's verdict as JSON: one shape wherever a verdict is printed (a run's `--json`,
//! `policy check --json`, `policy simulate --json`, MCP `check_branch`), versioned so
//! that a consumer can rely on it. Within a version a field is never renamed, removed or
//! given another type; a new version is a new module beside [`v1`].

pub mod v1;
