#!/usr/bin/env bash
# Checks that the crate builds with its minimum supported Rust version, Cargo.toml's
# `rust-version` (`cargo check --locked` with that toolchain: the workspace's default
# members, so the libraries, `council` and the fake GitHub, `fake-github`).
#
#   ci/msrv.sh                  skips (exit 0, a SKIP line) when that toolchain is missing
#   CI_INSTALL=1 ci/msrv.sh     first installs it with rustup (--profile minimal)
#   ci/msrv.sh --all-targets    also tests, examples and benches (the GitHub workflow)
#
# Its build goes to $CARGO_TARGET_DIR/msrv (default target/msrv), apart from the main
# toolchain's, so neither invalidates the other.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[[ -n $msrv ]] || {
	echo "FAIL  Cargo.toml has no rust-version"
	exit 1
}
if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
	if [[ ${CI_INSTALL:-0} == 1 ]]; then
		echo "-- rustup toolchain install $msrv --profile minimal (CI_INSTALL=1)"
		rustup toolchain install "$msrv" --profile minimal || true
	fi
	if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
		echo "SKIP  MSRV check: Rust $msrv is not installed (CI_INSTALL=1 installs it with rustup)"
		exit 0
	fi
fi
target_dir=${CARGO_TARGET_DIR:-$REPO/target}/msrv
echo "   MSRV $msrv: $(rustup run "$msrv" rustc --version)"
started=$SECONDS
CARGO_TARGET_DIR=$target_dir rustup run "$msrv" cargo check --locked "$@"
echo "PASS  builds with Rust $msrv (cargo check --locked${*:+ $*}, $((SECONDS - started)) s)"
