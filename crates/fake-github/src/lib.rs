//! A fake GitHub: one repository as plain data ([`world::World`]: branches, files at
//! refs, issues and comments, pull requests with their files, reviews and checks,
//! tokens and what each may do; and, when a test builds one, a commit graph with trees,
//! three-way merges, protected refs and a CI model), served over HTTP by one wiremock responder that answers
//! the REST and GraphQL requests `council` makes with GitHub's own shapes, and changes
//! the world on writes, so a merge or a comment is seen by every later request.
//!
//! The integration tests set a scene with builders ([`fake_github::FakeGitHub`]), drill
//! faults and check every write.
//!
//! A development tool: `council` never depends on it.

#![allow(clippy::string_slice)] // a test tool, never part of `council`: its panics fail a test

pub mod accounts;
pub mod artifacts;
pub mod builders;
pub mod ci;
pub mod diff;
pub mod fake_github;
pub mod faults;
pub mod fixture;
pub mod generate;
pub mod git;
pub mod graph;
pub mod graphql;
pub mod log;
pub mod protection;
pub mod routes;
pub mod standalone;
pub mod tokens;
pub mod world;

/// The repository of a world a test starts ([`fake_github::FakeGitHub::start`]): the
/// one GitHub's webhook examples (and so the bundled event payloads) name.
pub const REPO: &str = "Codertocat/Hello-World";
/// [`REPO`]'s numeric id, as the bundled payloads name it (`repository.id`).
pub const REPO_ID: u64 = 186_853_002;
