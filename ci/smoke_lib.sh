# shellcheck shell=bash
# Helpers shared by ci/static-smoke.sh and ci/image-smoke.sh (sourced, not run).
#
# Every check prints one line, `PASS  what` or `FAIL  what`; `smoke_finish` prints the
# totals and returns non-zero when any check failed.

SMOKE_PASSED=0
SMOKE_FAILED=0
MOCK_PID=""
MOCK_PORT=""

smoke_pass() {
	printf 'PASS  %s\n' "$*"
	SMOKE_PASSED=$((SMOKE_PASSED + 1))
}

smoke_fail() {
	printf 'FAIL  %s\n' "$*"
	SMOKE_FAILED=$((SMOKE_FAILED + 1))
}

# check "what is checked" command args...: PASS when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then
		smoke_pass "$what"
	else
		smoke_fail "$what"
	fi
}

# check_eq "what" expected actual
check_eq() {
	if [[ $2 == "$3" ]]; then
		smoke_pass "$1 ($3)"
	else
		smoke_fail "$1: expected '$2', got '$3'"
	fi
}

smoke_finish() {
	local name=$1
	printf '%s: %d checks passed, %d checks failed\n' "$name" "$SMOKE_PASSED" "$SMOKE_FAILED"
	[[ $SMOKE_FAILED -eq 0 ]]
}

# The value of one output in a GITHUB_OUTPUT file (both `name=value` and the
# `name<<DELIMITER` heredoc form); the last write wins, as on the runner.
output_value() {
	local file=$1 name=$2
	awk -v name="$name" '
		mode == "heredoc" {
			if ($0 == delim) { mode = ""; value = acc; found = 1 }
			else { acc = (lines++ ? acc "\n" : "") $0 }
			next
		}
		index($0, name "<<") == 1 {
			delim = substr($0, length(name) + 3); mode = "heredoc"; acc = ""; lines = 0; next
		}
		index($0, name "=") == 1 { value = substr($0, length(name) + 2); found = 1 }
		END { if (found) print value }
	' "$file"
}

# Sets BIN to the static binary under test: $COUNCIL_STATIC_BIN when set (.ci/run builds
# it once for both smoke tests), else a build by ci/build-static.sh. Ends the script with
# a SKIP line naming the $1 smoke test where no musl toolchain exists (the build's exit
# 3), and with a FAIL line when the build failed.
# shellcheck disable=SC2034 # BIN is the caller's
static_binary() {
	if [[ -n ${COUNCIL_STATIC_BIN:-} ]]; then
		BIN=$COUNCIL_STATIC_BIN
		return
	fi
	local rc=0
	BIN=$(ci/build-static.sh) || rc=$?
	if [[ $rc -eq 3 ]]; then
		echo "SKIP  $1 smoke test: no musl toolchain here (see above; CI_INSTALL=1 adds it)"
		exit 0
	elif [[ $rc -ne 0 ]]; then
		echo "FAIL  the static build failed (exit $rc)"
		exit 1
	fi
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# start_mock LOG PORT_FILE [mock_github.py args...]: starts the mock in the background on a
# free port of 127.0.0.1; sets MOCK_PID and MOCK_PORT.
start_mock() {
	local log=$1 port_file=$2
	shift 2
	python3 "$SMOKE_REPO/ci/mock_github.py" --log "$log" --port-file "$port_file" "$@" 2>>"$log.stderr" &
	MOCK_PID=$!
	local _
	for _ in $(seq 100); do
		[[ -s $port_file ]] && break
		sleep 0.1
	done
	if [[ ! -s $port_file ]]; then
		echo "the mock GitHub did not start" >&2
		return 1
	fi
	# shellcheck disable=SC2034 # read by the scripts that source this file
	MOCK_PORT=$(cat "$port_file")
}

stop_mock() {
	if [[ -n $MOCK_PID ]]; then
		kill "$MOCK_PID" 2>/dev/null || true
		wait "$MOCK_PID" 2>/dev/null || true
		MOCK_PID=""
	fi
}

# mock_report LOG: one line per request the mock saw.
mock_report() {
	python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    print(f"      {r['method']} {r['path']} auth={r['auth_scheme']} ua={r['user_agent']}")
PY
}

# mock_only_policy_read LOG OWNER/REPO REF NUMBER [POLICY_PATH]: the guard's own reads are
# exactly one GET of the policy at REF (with a Bearer token and a User-Agent); the review
# (after a passing guard) reads the diff (the compare of the base and head SHAs; earlier,
# the pull request's files, then the pull request once more for its head); the rest are the
# ledger's reads (identity, the PR's comments, earlier artifacts); a dry run writes nothing.
mock_only_policy_read() {
	python3 - "$@" <<'PY'
import json, sys
log, repo, ref, number = sys.argv[1:5]
path = sys.argv[5] if len(sys.argv) > 5 else ".github/council.yml"
rows = [json.loads(l) for l in open(log, encoding="utf-8")]
want = f"/repos/{repo}/contents/{path}?ref={ref}"
policy = [r for r in rows if "/contents/" in r["path"]]
known = (
    "/graphql",
    "/user",
    f"/repos/{repo}/issues/",
    f"/repos/{repo}/actions/artifacts",
    f"/repos/{repo}/pulls/{number}/files",
    f"/repos/{repo}/compare/",
)
pull = f"/repos/{repo}/pulls/{number}"
others = [
    r for r in rows
    if "/contents/" not in r["path"] and not r["path"].startswith(known) and r["path"] != pull
]
writes = [r for r in rows if r["method"] != "GET" and r["path"] != "/graphql"]
ok = (
    len(policy) == 1
    and policy[0]["method"] == "GET"
    and policy[0]["path"] == want
    and policy[0]["auth_scheme"] == "Bearer"
    and bool(policy[0]["user_agent"])
    and not others
    and not writes
)
if not ok:
    print(f"      expected: one GET {want} with a Bearer token, the review's and the ledger's reads only, no writes", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# no_secret_in SECRET FILE|DIR...: the secret appears in none of the files, except in the
# `::add-mask::` command that tells the runner to hide it.
no_secret_in() {
	local secret=$1 hits
	shift
	hits=$(grep -rhF -- "$secret" "$@" || true)
	hits=$(grep -v '^::add-mask::' <<<"$hits" || true)
	[[ -z $hits ]]
}

# runner_env PORT TOKEN REPO: fills RUNNER_ENV with what the runner gives a Docker action
# on a pull_request event: the GITHUB_* variables (paths as inside the container) and every
# input of action.yml at its default (read from action.yml, as the runner does), except the
# token, a dry run and no artifact upload (the smoke tests mock the REST API, not the
# artifact service). Names keep their hyphens (`INPUT_GITHUB-TOKEN`): fine for `env` and
# `-e`, impossible for a shell `export`.
runner_env() {
	local port=$1 token=$2 repo=$3 line
	local inputs=()
	while IFS= read -r line; do
		inputs+=("$line")
	done < <(action_input_defaults "$SMOKE_REPO/action.yml" \
		"GITHUB-TOKEN=$token" DRY-RUN=true UPLOAD-ARTIFACT=false)
	((${#inputs[@]})) || {
		echo "runner_env: no inputs read from action.yml" >&2
		return 1
	}
	# shellcheck disable=SC2034 # read by the scripts that source this file
	RUNNER_ENV=(
		GITHUB_ACTIONS=true
		CI=true
		GITHUB_EVENT_NAME=pull_request
		GITHUB_EVENT_PATH=/github/workflow/event.json
		GITHUB_WORKSPACE=/github/workspace
		GITHUB_OUTPUT=/github/file_commands/set_output_smoke
		GITHUB_STEP_SUMMARY=/github/file_commands/step_summary_smoke
		"GITHUB_REPOSITORY=$repo"
		GITHUB_RUN_ID=4242
		GITHUB_RUN_ATTEMPT=1
		GITHUB_JOB=smoke
		GITHUB_SERVER_URL=https://github.com
		"GITHUB_API_URL=http://127.0.0.1:$port"
		"GITHUB_GRAPHQL_URL=http://127.0.0.1:$port/graphql"
		HOME=/github/home
		"${inputs[@]}"
	)
}

# action_input_defaults ACTION_YML [NAME=VALUE...]: one `INPUT_<NAME>=<default>` line per
# input of action.yml (name upper-cased, hyphens kept, as the runner sets them), with the
# given values instead of the defaults. A small reader for this file's layout (two-space
# input names, four-space `default:`), so no YAML library is needed.
action_input_defaults() {
	python3 - "$@" <<'PY'
import re, sys
path, overrides = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
inputs, name, section = {}, None, None
for line in open(path, encoding="utf-8"):
    if re.match(r"^\S", line):
        section = line.split(":", 1)[0]
        continue
    if section != "inputs":
        continue
    m = re.match(r"^  ([A-Za-z0-9_-]+):\s*$", line)
    if m:
        name = m.group(1)
        inputs[name] = ""
        continue
    m = re.match(r"^    default:\s*(.*?)\s*$", line)
    if m and name:
        value = m.group(1)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        inputs[name] = value
for key in overrides:
    if key.lower() not in inputs:
        sys.exit(f"action_input_defaults: {key} is not an input of {path}")
if len(inputs) < 10:
    sys.exit(f"action_input_defaults: only {len(inputs)} inputs read from {path}")
for name, value in inputs.items():
    value = overrides.get(name.upper(), value)
    print(f"INPUT_{name.upper()}={value}")
PY
}

# check_run_results NAME DIR GITHUB_DIR WANT_EXIT GOT_EXIT WANT_STATUS REPO REF TOKEN:
# the checks both smoke tests make on one run. GITHUB_DIR holds workflow/, workspace/
# and file_commands/ as the container saw them; DIR holds stdout, stderr, requests.jsonl.
check_run_results() {
	local name=$1 dir=$2 gh=$3 want_exit=$4 got_exit=$5 want_status=$6 repo=$7 ref=$8 token=$9
	local number failed_before=$SMOKE_FAILED
	number=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["number"])' \
		"$gh/workflow/event.json")
	local out=$gh/file_commands/set_output_smoke summary=$gh/file_commands/step_summary_smoke
	local audit=$gh/workspace/out/audit/PR-$number.json

	check_eq "$name: exit code" "$want_exit" "$got_exit"
	check_eq "$name: guard-status in GITHUB_OUTPUT" "$want_status" "$(output_value "$out" guard-status)"
	check_eq "$name: audit-path output" "out/audit/PR-$number.json" "$(output_value "$out" audit-path)"
	check "$name: audit file out/audit/PR-$number.json written" test -s "$audit"
	if [[ -s $audit ]]; then
		check_eq "$name: audit file state.guard_status" "$want_status" \
			"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"]["guard_status"])' "$audit")"
	fi
	check "$name: step summary written" test -s "$summary"
	# The review stage runs once the guard passed: on the mock's empty diff it approves.
	local want_review=PENDING
	[[ $want_status == PASS ]] && want_review=APPROVED
	check_eq "$name: review-status in GITHUB_OUTPUT" "$want_review" "$(output_value "$out" review-status)"
	check "$name: the guard read only GET contents/.github/council.yml?ref=$ref (Bearer); no write" \
		mock_only_policy_read "$dir/requests.jsonl" "$repo" "$ref" "$number"
	check "$name: the token appears in no output, summary, audit file or log" \
		no_secret_in "$token" "$out" "$summary" "$gh/workspace" "$dir/stdout" "$dir/stderr"
	if [[ $SMOKE_FAILED -ne $failed_before ]]; then
		echo "      --- requests ---"
		mock_report "$dir/requests.jsonl"
		echo "      --- stdout ---"
		sed 's/^/      /' "$dir/stdout"
		echo "      --- stderr ---"
		sed 's/^/      /' "$dir/stderr"
		echo "      --- GITHUB_OUTPUT ---"
		sed 's/^/      /' "$out"
	fi
}
