#!/usr/bin/env bash
# The one entry point of the measurements: builds the release binary, installs the Node
# action it is compared with (benches/node-guard, from the npm registry), and prints one
# table (benches/table.py): per command wall time, CPU time, peak RSS and API requests
# against a fake GitHub on 127.0.0.1, and `council guard` next to the Node action on the
# same event. A report, not a gate.
#
#   benches/table.sh [--runs N] [--scaling]
#
#   --runs N     runs per row (default 7)
#   --scaling    then the long measurements: `council verify` on 10^4..10^6 entries
#                (benches/verify_rss.py), `state get` on issues of 10..10,000 comments
#                (benches/state_get_rss.py), release on 10/100/1,000 checks
#                (benches/release.sh, through the Rust test world). Minutes, not seconds.
#
# Without Node.js or npm (or when the install fails) the Node row is skipped with a
# message; COUNCIL_BIN=path uses that binary and skips the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs=7
scaling=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--runs)
		runs=$2
		shift 2
		;;
	--scaling)
		scaling=1
		shift
		;;
	*)
		echo "usage: benches/table.sh [--runs N] [--scaling]" >&2
		exit 2
		;;
	esac
done

if [[ ! -x /usr/bin/time ]]; then
	echo "SKIP  bench: /usr/bin/time (GNU time) is not installed (apt-get install time)"
	exit 0
fi

binary=${COUNCIL_BIN:-}
if [[ -z $binary ]]; then
	echo "-- nice cargo build --release --locked -p agent-council --bin council"
	nice cargo build --release --locked --quiet -p agent-council --bin council
	binary=${CARGO_TARGET_DIR:-$PWD/target}/release/council
fi

node_args=()
node_dir=benches/node-guard
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "SKIP  Node action row: node or npm is not installed"
elif [[ -f $node_dir/dist/index.js && $node_dir/dist/index.js -nt $node_dir/src/index.js &&
	$node_dir/dist/index.js -nt $node_dir/package-lock.json ]]; then
	node_args=(--node-action "$node_dir")
else
	echo "-- npm ci && npm run build in $node_dir (@actions/core, @actions/github, esbuild)"
	if (cd "$node_dir" && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null &&
		npm run --silent build); then
		node_args=(--node-action "$node_dir")
	else
		echo "SKIP  Node action row: installing it from the npm registry failed"
	fi
fi

echo "-- node $(node --version 2>/dev/null || echo none), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 benches/table.py --binary "$binary" --runs "$runs" "${node_args[@]}"

if [[ $scaling == 1 ]]; then
	echo
	echo "-- council verify on large files"
	python3 benches/verify_rss.py --binary "$binary" 10000 100000 1000000
	echo
	echo "-- state get on long issues"
	python3 benches/state_get_rss.py "$binary"
	echo
	echo "-- release on many checks"
	benches/release.sh
fi
