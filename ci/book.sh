#!/usr/bin/env bash
# Builds the book in docs/ with mdBook and checks every link in it (ci/book_links.py).
#
# mdBook: the `mdbook` on PATH when there is one, else the pinned version from the CI
# tools venv (ci/lint-requirements.txt: a wheel from PyPI, seconds to install), else
# $MDBOOK_ROOT/bin/mdbook (default ${CARGO_HOME:-~/.cargo}, cargo's own install root),
# built there with `cargo install --locked` when PyPI cannot be reached: the pinned
# version, without default features (no server, no file watcher, no search index: none is
# needed to build the pages), its build kept under the target folder for the next
# install. When none can be had (no route to PyPI nor crates.io, no compiler) the step
# prints `SKIP  book: …` and exits 0, as the other optional steps do (BOOK_REQUIRED=1
# makes that a failure); a book that does not build, or a broken link, fails (exit 1).
# The output, docs/book/, is ignored by git. Honours CARGO_TARGET_DIR.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

MDBOOK_VERSION=0.5.4
MDBOOK_ROOT=${MDBOOK_ROOT:-${CARGO_HOME:-$HOME/.cargo}}

# shellcheck source=ci/lint-venv.sh
source "$REPO/ci/lint-venv.sh"

if mdbook=$(command -v mdbook); then
	:
elif ensure_lint_venv && [[ -x $LINT_VENV/bin/mdbook ]]; then
	mdbook=$LINT_VENV/bin/mdbook
elif [[ -x $MDBOOK_ROOT/bin/mdbook ]]; then
	mdbook=$MDBOOK_ROOT/bin/mdbook
else
	echo "-- installing mdbook $MDBOOK_VERSION into $MDBOOK_ROOT (cargo install, no default features)"
	started=$SECONDS
	if ! CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}/mdbook-install" \
		timeout 900 cargo install --locked --quiet mdbook --version "$MDBOOK_VERSION" \
		--no-default-features --root "$MDBOOK_ROOT"; then
		# The GitHub workflow sets BOOK_REQUIRED=1: crates.io is reachable there, and a skip
		# would hide a book nobody built.
		[[ -z ${BOOK_REQUIRED:-} ]] || {
			echo "book: mdbook $MDBOOK_VERSION could not be installed" >&2
			exit 1
		}
		echo "SKIP  book: cannot install mdbook $MDBOOK_VERSION (neither from PyPI nor with cargo install)"
		exit 0
	fi
	echo "   installed in $((SECONDS - started)) s"
	mdbook=$MDBOOK_ROOT/bin/mdbook
fi
echo "   $("$mdbook" --version) ($mdbook)"

started=$SECONDS
rm -rf -- docs/book
"$mdbook" build docs
python3 ci/book_links.py docs/book
echo "   built and checked in $((SECONDS - started)) s"
