//! Tests of the audit ledger core. Kept beside the code so the folder copies verbatim.

mod canonical;
mod chain;
mod forgery;
mod stream;
mod support;
mod tamper;
mod vector;
