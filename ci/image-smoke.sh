#!/usr/bin/env bash
# Image smoke test: builds the image the release publishes, ci/Containerfile.prebuilt
# (FROM scratch) holding the static musl binary of ci/build-static.sh, with buildah (vfs
# storage, chroot isolation: no Docker engine and no registry needed), then runs it the way
# the Actions runner runs a Docker action: inputs as INPUT_* variables, the workspace at
# /github/workspace, the event at /github/workflow/event.json, GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY under /github/file_commands, the GitHub API mocked on 127.0.0.1.
#
#   ci/image-smoke.sh                 skips (exit 0, a SKIP line) when buildah, podman or runc,
#                                     or the musl target, is missing
#   CI_INSTALL=1 ci/image-smoke.sh    first installs them (apt-get as root or sudo -n; rustup)
#   COUNCIL_STATIC_BIN=path ...       use that static binary instead of building it
#
# When the tools are there, any failure (build, run or check) exits non-zero. Honours
# CARGO_TARGET_DIR.
set -euo pipefail

SMOKE_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ci/smoke_lib.sh
source "$SMOKE_REPO/ci/smoke_lib.sh"
cd "$SMOKE_REPO"

IMAGE=localhost/agent-council:smoke
TOKEN="ghs_smoke${RANDOM}${RANDOM}ImageTokenValue0123456789"

echo "== image smoke test"

missing_tools() {
	local tool absent=()
	for tool in buildah podman runc; do
		command -v "$tool" >/dev/null || absent+=("$tool")
	done
	echo "${absent[*]}"
}

missing=$(missing_tools)
if [[ -n $missing && ${CI_INSTALL:-0} == 1 ]]; then
	echo "-- installing buildah podman runc (CI_INSTALL=1)"
	sudo_=()
	if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo_=(sudo -n)
	fi
	t0=$(now_ms)
	if "${sudo_[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq -o DPkg::Lock::Timeout=300 &&
		"${sudo_[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 buildah podman runc >/dev/null; then
		echo "   installed in $(($(now_ms) - t0)) ms"
	else
		echo "   apt-get install failed"
	fi
	missing=$(missing_tools)
fi
if [[ -n $missing ]]; then
	echo "SKIP  image smoke test: not installed: $missing (CI_INSTALL=1 installs them with apt-get)"
	exit 0
fi
echo "   $(buildah --version); $(podman --version); $(runc --version | head -n1)"

static_binary image
[[ -x $BIN ]] || {
	echo "FAIL  no static binary at $BIN"
	exit 1
}
file_out=$(file -b "$BIN")
echo "   binary: $file_out"
check "the image's binary is static (the musl build), not a dynamic one" \
	grep -Eq 'static-pie linked|statically linked' <<<"$file_out"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/council-image-smoke.XXXXXX")
STORE=(--root "$WORK/storage" --runroot "$WORK/run" --storage-driver vfs)
cleanup() {
	stop_mock
	podman "${STORE[@]}" rmi -f "$IMAGE" >/dev/null 2>&1 || true
	rm -rf -- "$WORK"
}
trap cleanup EXIT

echo "-- buildah bud -f ci/Containerfile.prebuilt (vfs, --isolation chroot)"
mkdir -p "$WORK/context"
cp "$BIN" "$WORK/context/council"
t0=$(now_ms)
buildah "${STORE[@]}" bud --isolation chroot --quiet \
	-f "$SMOKE_REPO/ci/Containerfile.prebuilt" -t "$IMAGE" "$WORK/context" >/dev/null
echo "   built in $(($(now_ms) - t0)) ms"

inspect=$(podman "${STORE[@]}" image inspect "$IMAGE")
read -r image_size layers entrypoint user < <(python3 -c '
import json, sys
i = json.load(sys.stdin)[0]
c = i.get("Config") or {}
print(i["Size"], len(i["RootFS"]["Layers"]), json.dumps(c.get("Entrypoint"), separators=(",", ":")), c.get("User") or "(default)")
' <<<"$inspect")
binary_size=$(stat -c %s "$BIN")
echo "   image: $image_size bytes ($(awk -v b="$image_size" 'BEGIN { printf "%.2f MiB", b / 1048576 }')), binary $binary_size bytes, $layers layer(s)"
check_eq "image: one layer" 1 "$layers"
check_eq "image: ENTRYPOINT" '["/council"]' "$entrypoint"
check_eq "image: user (root, so the runner's bind mounts are writable)" "(default)" "$user"
check "image: size within 64 KiB of the binary (the binary alone)" \
	test $((image_size - binary_size)) -lt 65536

# run_case NAME EVENT_FILE WANT_EXIT WANT_STATUS BASE_REF
run_case() {
	local name=$1 event=$2 want_exit=$3 want_status=$4 ref=$5
	local dir=$WORK/$name
	local gh=$dir/github
	local repo
	repo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["repository"]["full_name"])' "$event")
	# The runner's host folders: _github_workflow, _runner_file_commands, the workspace.
	mkdir -p "$gh/workflow" "$gh/workspace" "$gh/file_commands" "$gh/home"
	cp "$event" "$gh/workflow/event.json"
	: >"$gh/file_commands/set_output_smoke"
	: >"$gh/file_commands/step_summary_smoke"

	start_mock "$dir/requests.jsonl" "$dir/port"
	runner_env "$MOCK_PORT" "$TOKEN" "$repo"
	local env_flags=() kv
	for kv in "${RUNNER_ENV[@]}"; do
		env_flags+=(-e "$kv")
	done

	echo "-- $name: ${event#"$SMOKE_REPO"/}"
	local rc=0 t0
	t0=$(now_ms)
	podman "${STORE[@]}" --runtime runc --cgroup-manager cgroupfs --events-backend file \
		run --rm --network host \
		--ulimit nofile=20000:20000 --ulimit nproc=32768:32768 \
		--workdir /github/workspace \
		-v "$gh/workspace:/github/workspace" \
		-v "$gh/file_commands:/github/file_commands" \
		-v "$gh/workflow:/github/workflow" \
		-v "$gh/home:/github/home" \
		"${env_flags[@]}" \
		"$IMAGE" >"$dir/stdout" 2>"$dir/stderr" || rc=$?
	echo "   podman run took $(($(now_ms) - t0)) ms, exit $rc"
	stop_mock
	check_run_results "$name" "$dir" "$gh" "$want_exit" "$rc" "$want_status" "$repo" "$ref" "$TOKEN"
}

run_case a-pass examples/pull_request.opened.json 0 PASS develop
run_case b-fail tests/data/events/pull_request.opened.json 1 FAIL master

smoke_finish "image smoke"
