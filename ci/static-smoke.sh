#!/usr/bin/env bash
# Static-binary smoke test: the binary that ships (the static musl release build of
# ci/build-static.sh), checked to be static, then run as a Docker action in an EMPTY root
# (no /etc, no libc, no CA files; a stand-in for the FROM scratch image) against a mock
# GitHub API on 127.0.0.1.
#
#   ci/static-smoke.sh                           build (ci/build-static.sh), check, run
#   CI_INSTALL=1 ci/static-smoke.sh              the build may add the musl target and musl-gcc
#   COUNCIL_STATIC_BIN=path ci/static-smoke.sh   check and run that binary, no build
#
# Without the musl target (and CI_INSTALL unset or unable to add it) the test is skipped
# with a SKIP line. The root holds only the binary, the event file, the (empty) places the
# runner mounts and the five device nodes any container runtime provides (/dev/null, zero,
# full, random, urandom); SMOKE_NO_DEV=1 leaves /dev out too. The runs need `unshare
# --mount --root` (root, or passwordless sudo); where neither is allowed they are skipped
# with a message. Honours CARGO_TARGET_DIR. Exit 0 when every check passed.
set -euo pipefail

SMOKE_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ci/smoke_lib.sh
source "$SMOKE_REPO/ci/smoke_lib.sh"
cd "$SMOKE_REPO"

TOKEN="ghs_smoke${RANDOM}${RANDOM}StaticTokenValue0123456789"
# A ceiling against accidental bloat (a debug build, symbols, a second TLS stack), not a
# budget: the x86_64 musl binary was 7.05 MiB in November 2026, and arm64 code is larger.
MAX_BYTES=$((12 * 1024 * 1024))

PRIV=()
WORK=$(mktemp -d "${TMPDIR:-/tmp}/council-static-smoke.XXXXXX")
cleanup() {
	stop_mock
	"${PRIV[@]}" rm -rf -- "$WORK"
}
trap cleanup EXIT

echo "== static smoke test"
static_binary static
check "binary exists: $BIN" test -x "$BIN"
[[ -x $BIN ]] || {
	smoke_finish "static smoke"
	exit 1
}

echo "-- static linking"
file_out=$(file -b "$BIN")
echo "   file: $file_out"
check "file says statically linked" grep -Eq 'static-pie linked|statically linked' <<<"$file_out"
check "file says stripped" grep -Eq '(^|, )stripped' <<<"$file_out"
ldd_out=$(ldd "$BIN" 2>&1 || true)
echo "   ldd: $ldd_out"
check "ldd finds no shared library" grep -Eq 'statically linked|not a dynamic executable' <<<"$ldd_out"
headers=$(readelf -lW "$BIN")
check "readelf: no INTERP program header (no dynamic loader)" \
	test "$(grep -c INTERP <<<"$headers" || true)" -eq 0
dynamic=$(readelf -dW "$BIN" 2>&1 || true)
check "readelf: no NEEDED shared library" \
	test "$(grep -c '(NEEDED)' <<<"$dynamic" || true)" -eq 0
size=$(stat -c %s "$BIN")
echo "   size: $size bytes ($(awk -v b="$size" 'BEGIN { printf "%.2f MiB", b / 1048576 }'))"
check "stripped size under 12 MiB ($size bytes)" test "$size" -lt "$MAX_BYTES"

echo "-- empty-root runs (unshare --mount --pid --fork --root=DIR, env -i; /dev: $([[ ${SMOKE_NO_DEV:-0} == 1 ]] && echo none || echo null zero full random urandom))"
UNSHARE=$(command -v unshare || true)
if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
	PRIV=(sudo -n)
fi
probe=$WORK/probe
mkdir -p "$probe"
cp "$BIN" "$probe/council"
if [[ -z $UNSHARE ]] ||
	! "${PRIV[@]}" "$UNSHARE" --mount --pid --fork --root="$probe" /council --version >/dev/null 2>&1; then
	echo "SKIP  empty-root runs: \`unshare --mount --root\` is not permitted here (run as root or with passwordless sudo)"
	smoke_finish "static smoke"
	exit
fi

# run_case NAME EVENT_FILE WANT_EXIT WANT_STATUS BASE_REF [POLICY_FILE]
run_case() {
	local name=$1 event=$2 want_exit=$3 want_status=$4 ref=$5 policy=${6:-}
	local dir=$WORK/$name
	local root=$dir/root
	local repo
	repo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["repository"]["full_name"])' "$event")
	# Only the binary, the event, and the (empty) places the runner mounts.
	mkdir -p "$root/github/workflow" "$root/github/workspace" "$root/github/file_commands" "$root/github/home"
	cp "$BIN" "$root/council"
	cp "$event" "$root/github/workflow/event.json"
	: >"$root/github/file_commands/set_output_smoke"
	: >"$root/github/file_commands/step_summary_smoke"
	# The device nodes every OCI runtime creates in a container, FROM scratch included
	# (runtime-spec "Default Devices"). The musl build reads randomness with getrandom(2)
	# and needs none of them; SMOKE_NO_DEV=1 proves it by leaving /dev out.
	if [[ ${SMOKE_NO_DEV:-0} != 1 ]]; then
		mkdir -p "$root/dev"
		"${PRIV[@]}" mknod -m 666 "$root/dev/null" c 1 3
		"${PRIV[@]}" mknod -m 666 "$root/dev/zero" c 1 5
		"${PRIV[@]}" mknod -m 666 "$root/dev/full" c 1 7
		"${PRIV[@]}" mknod -m 666 "$root/dev/random" c 1 8
		"${PRIV[@]}" mknod -m 666 "$root/dev/urandom" c 1 9
	fi

	local mock_args=()
	[[ -n $policy ]] && mock_args=(--policy "$policy")
	start_mock "$dir/requests.jsonl" "$dir/port" "${mock_args[@]}"
	runner_env "$MOCK_PORT" "$TOKEN" "$repo"

	echo "-- $name: ${event#"$SMOKE_REPO"/}${policy:+ (policy served at $ref)}"
	local rc=0 t0
	t0=$(now_ms)
	"${PRIV[@]}" env -i "${RUNNER_ENV[@]}" \
		"$UNSHARE" --mount --pid --fork --root="$root" --wd=/github/workspace /council \
		>"$dir/stdout" 2>"$dir/stderr" || rc=$?
	echo "   ran in $(($(now_ms) - t0)) ms, exit $rc"
	stop_mock
	check_run_results "$name" "$dir" "$root/github" "$want_exit" "$rc" "$want_status" "$repo" "$ref" "$TOKEN"
}

# (a) a branch the default policy allows: feature/devops/PBI-001-login -> develop.
run_case a-pass examples/pull_request.opened.json 0 PASS develop
# (b) webhook example with head `changes` -> master: fails both guard gates.
run_case b-fail tests/data/events/pull_request.opened.json 1 FAIL master
# (c) the same event, with a policy on the base branch that allows it: the policy is read
#     from the API at the base ref (the empty root has no workspace copy of it).
cat >"$WORK/policy.yml" <<'YAML'
version: 1
branches:
  rules:
    - name: smoke
      pattern: "changes"
      targets: ["master"]
YAML
run_case c-policy tests/data/events/pull_request.opened.json 0 PASS master "$WORK/policy.yml"

smoke_finish "static smoke"
