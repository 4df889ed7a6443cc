#!/usr/bin/env bash
# Every council command that talks to GitHub, against the fake world of world.yml: the
# walkthrough of docs/src/try-offline.md, which shows these same commands in this order
# (an integration test runs this script and checks that they agree).
#
#   cargo run --locked -p council-fake-github -- --world examples/fake-world/world.yml
#   # in another shell, from the repository root:
#   export ...                          # the line fake-github printed
#   cargo build --locked && export PATH="$PWD/target/debug:$PATH"
#   examples/fake-world/walkthrough.sh
#
# It works in a scratch folder (WORK=dir picks one), never in the repository, and stops
# at the first command whose exit code is not the one the walkthrough expects. It merges
# pull request #1: restart fake-github to start over.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${GITHUB_API_URL:-} != http://127.0.0.1:* ]]; then
	echo "walkthrough: GITHUB_API_URL is '${GITHUB_API_URL:-}', not a fake-github on 127.0.0.1." >&2
	echo "  Start it (cargo run -p council-fake-github -- --world examples/fake-world/world.yml)" >&2
	echo "  and export the line it prints; this script merges, so never against GitHub." >&2
	exit 2
fi
if ! command -v council >/dev/null; then
	echo "walkthrough: no council on PATH: cargo build --locked && export PATH=\"\$PWD/target/debug:\$PATH\"" >&2
	exit 2
fi

WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/council-walkthrough.XXXXXX")}
mkdir -p "$WORK/.github"
# The CLI reads its policy from the working folder: the same file the world serves.
cp "$HERE/council.yml" "$WORK/.github/council.yml"
cp "$HERE/report.json" "$HERE/pull_request.opened.json" "$WORK/"
cd "$WORK"
echo "walkthrough: in $WORK, against $GITHUB_REPOSITORY at $GITHUB_API_URL"

# The command as the chapter writes it: a word with a space or a quote in quotes.
shown() {
	local out=() arg
	for arg in "$@"; do
		if [[ $arg =~ ^[-A-Za-z0-9_./@:=,+]+$ ]]; then
			out+=("$arg")
		else
			out+=("'$arg'")
		fi
	done
	echo "${out[*]}"
}

# step EXIT COMMAND...: shows the command, runs it, and stops unless it exits with EXIT.
step() {
	local expected=$1 rc=0
	shift
	printf '\n$ %s\n' "$(shown "$@")"
	"$@" || rc=$?
	if [[ $rc -ne $expected ]]; then
		echo "walkthrough: exit $rc, expected $expected" >&2
		exit 1
	fi
}

# Pull request #1: guard, review, release (a dry run, then the merge), the audit file.
step 0 council guard --pr 1
step 0 council review --pr 1
step 0 council release --pr 1 --dry-run
step 0 council release --pr 1
step 0 council verify out/audit/PR-1.json

# Pull request #2, as the action runs on its pull_request event: the guard fails (exit 1).
step 1 council run --event pull_request.opened.json --event-name pull_request

# Agent state on issue #3, and its ASSISTANT_CONTEXT file.
step 0 council state put --issue 3 --agent agent-a --intent 'document the offline world' --step coding --progress auto --next-action 'link it from the README' --memory '{"files_changed": ["examples/fake-world/world.yml"]}'
step 0 council state get --issue 3
step 0 council context sync --issue 3 --context-file ASSISTANT_CONTEXT.md

# Context reports on the registry issue #4, and an agent for the new issue #5.
step 0 council report --registry-issue 4 --report @report.json
step 0 council assign --issue 5 --registry-issue 4 --apply

# Every pull request's ledger and the registry's reports into an audit store (a SQLite
# file here), the common questions, and the report page.
step 0 council audit sync --registry-issue 4
step 0 council audit query agents
step 0 council audit report --html report

printf '\nwalkthrough: every command ran as expected; the files are in %s\n' "$WORK"
