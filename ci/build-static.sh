#!/usr/bin/env bash
# Builds the binary that ships: `council` for <arch>-unknown-linux-musl (static, no libc to
# find at run time), with the release profile of Cargo.toml. The release workflow, the
# image smoke test and the static smoke test all use this one build.
#
#   ci/build-static.sh              build for this machine's arch; print the binary's path last
#   CI_INSTALL=1 ci/build-static.sh first add what is missing: the rustup target and
#                                   musl-gcc (Debian/Ubuntu `musl-tools`, for ring's C code)
#   COUNCIL_TARGET=aarch64-unknown-linux-musl ...   another target (needs its own C cross compiler)
#
# Honours CARGO_TARGET_DIR. Exit 3 when the musl target or musl-gcc is missing and cannot
# be installed (callers may skip on that), any other non-zero on a failed build.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

TARGET=${COUNCIL_TARGET:-$(uname -m)-unknown-linux-musl}
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
case $TARGET_DIR in /*) ;; *) TARGET_DIR=$REPO/$TARGET_DIR ;; esac
BIN=$TARGET_DIR/$TARGET/release/council

as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 1
	fi
}

has_target() {
	rustup target list --installed 2>/dev/null | grep -qx "$TARGET"
}

if ! has_target; then
	if [[ ${CI_INSTALL:-0} == 1 ]] && command -v rustup >/dev/null; then
		echo "-- rustup target add $TARGET (CI_INSTALL=1)" >&2
		rustup target add "$TARGET" >&2 || true
	fi
	if ! has_target; then
		echo "build-static: the Rust target $TARGET is not installed (rustup target add $TARGET; CI_INSTALL=1 does it)" >&2
		exit 3
	fi
fi

# ring compiles C: for a musl target it needs a C compiler for musl. Natively that is
# musl-gcc, a wrapper around the system gcc (package musl-tools).
cc_var=CC_${TARGET//-/_}
if [[ -z ${!cc_var:-} ]]; then
	if ! command -v musl-gcc >/dev/null && [[ ${CI_INSTALL:-0} == 1 ]]; then
		echo "-- apt-get install musl-tools (CI_INSTALL=1)" >&2
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq -o DPkg::Lock::Timeout=300 >&2 || true
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 musl-tools >&2 || true
	fi
	if ! command -v musl-gcc >/dev/null; then
		echo "build-static: musl-gcc is missing (apt-get install musl-tools; CI_INSTALL=1 does it)" >&2
		exit 3
	fi
	export "$cc_var=musl-gcc"
fi

# `council` alone: the workspace's other default member, the fake GitHub, would add its
# own dependencies' features (tokio's multi-threaded runtime) to the shipped binary.
echo "-- cargo build --release --locked --target $TARGET -p agent-council --bin council ($cc_var=${!cc_var})" >&2
started=$SECONDS
cargo build --release --locked --target "$TARGET" -p agent-council --bin council >&2
echo "   built in $((SECONDS - started)) s: $BIN ($(stat -c %s "$BIN") bytes)" >&2
echo "$BIN"
