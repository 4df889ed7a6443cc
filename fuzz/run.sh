#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for a fixed time each and prints one line
# per target: seconds, executions, corpus size, result.
#
#   fuzz/run.sh [--seconds N] [--smoke] [TARGET...]
#
#   --seconds N   budget per target (default 60)
#   --smoke       CI: 5 s per target unless --seconds is given, on a debug build (half
#                 the build time of the optimised one, and debug assertions on); skips (exit 0) with a
#                 message when cargo-fuzz cannot be installed or built here, and counts a
#                 libFuzzer timeout (a slow machine) as a warning. A crash still fails.
#
# Seeds: tests/data/fuzz/<target>/ (read only); what the fuzzer adds goes to
# fuzz/corpus/<target>/ (not committed). A crash is written to fuzz/artifacts/<target>/;
# commit it as tests/data/fuzz/<target>/crash-<what> with the fix: the test
# `fuzz_seeds` replays it on every `cargo test`.
#
# One stable toolchain is enough: cargo-fuzz passes `-Z` flags (sanitizer coverage),
# which a stable rustc accepts with RUSTC_BOOTSTRAP=1. No sanitizer is used (`-s none`):
# the crate has no `unsafe`, and panics, overflow checks and debug assertions abort.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

seconds=""
smoke=0
targets=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--seconds)
		seconds=$2
		shift 2
		;;
	--smoke)
		smoke=1
		shift
		;;
	-*)
		echo "usage: fuzz/run.sh [--seconds N] [--smoke] [TARGET...]" >&2
		exit 2
		;;
	*)
		targets+=("$1")
		shift
		;;
	esac
done
seconds=${seconds:-$([[ $smoke == 1 ]] && echo 5 || echo 60)}
build=(-s none)
[[ $smoke == 1 ]] && build+=(--dev)

skip() {
	echo "SKIP  fuzz: $*"
	exit 0
}

# cargo-fuzz: the installed one, else the pinned wheel of the CI tools venv (PyPI,
# seconds), else `cargo install` (minutes of compiling).
if ! cargo fuzz --version >/dev/null 2>&1; then
	# shellcheck source=ci/lint-venv.sh
	source ../ci/lint-venv.sh
	if ! ensure_lint_venv || ! cargo fuzz --version >/dev/null 2>&1; then
		echo "-- cargo install --locked cargo-fuzz"
		if ! nice cargo install --locked cargo-fuzz >/tmp/cargo-fuzz-install.log 2>&1; then
			tail -5 /tmp/cargo-fuzz-install.log
			[[ $smoke == 1 ]] && skip "cargo-fuzz could not be installed (log: /tmp/cargo-fuzz-install.log)"
			echo "cargo-fuzz could not be installed" >&2
			exit 1
		fi
	fi
fi
if ! rustc --version | grep -q nightly; then
	export RUSTC_BOOTSTRAP=1
fi
[[ ${#targets[@]} -gt 0 ]] || mapfile -t targets < <(cargo fuzz list)

echo "-- $(cargo fuzz --version), $(rustc --version)${RUSTC_BOOTSTRAP:+ with RUSTC_BOOTSTRAP=1}"
build_log=$(mktemp)
if ! nice cargo fuzz build "${build[@]}" >"$build_log" 2>&1; then
	tail -20 "$build_log"
	[[ $smoke == 1 ]] && skip "the fuzz targets did not build with this toolchain (see above)"
	exit 1
fi

printf '%-18s %8s %12s %8s  %s\n' target seconds executions corpus result
failed=0
for target in "${targets[@]}"; do
	corpus=corpus/$target
	seeds=../tests/data/fuzz/$target
	mkdir -p "$corpus" "artifacts/$target"
	log=$(mktemp)
	rc=0
	nice cargo fuzz run "${build[@]}" "$target" "$corpus" "$seeds" -- \
		-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="artifacts/$target/" >"$log" 2>&1 || rc=$?
	execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
	size=$(find "$corpus" -type f | wc -l)
	result=ok
	if [[ $rc -ne 0 ]]; then
		artifact=$(grep -oE 'artifacts/[^ ]+' "$log" | tail -1 || true)
		if grep -q 'ALARM: working on the last Unit' "$log" && [[ $smoke == 1 ]]; then
			result="slow input (warning): $artifact"
		else
			result="CRASH (exit $rc): $artifact"
			failed=1
			grep -E 'panicked|ERROR: libFuzzer|SUMMARY' "$log" | head -5 | sed 's/^/      /'
		fi
	fi
	printf '%-18s %8s %12s %8s  %s\n' "$target" "$seconds" "$execs" "$size" "$result"
	rm -f "$log"
done
rm -f "$build_log"
if [[ $failed -ne 0 ]]; then
	echo "a fuzz target crashed: reproduce with \`RUSTC_BOOTSTRAP=1 cargo fuzz run -s none TARGET fuzz/ARTIFACT\`, fix, and commit the artifact as tests/data/fuzz/TARGET/crash-<what>"
	exit 1
fi
