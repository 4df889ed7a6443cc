#!/usr/bin/env bash
# Figures for the audit store (`council audit`), against the fake GitHub on 127.0.0.1:
#
#   1. `audit sync` of a generated world of N pull requests (12 entries each, as
#      examples/fake-world/bench.yml): wall time, API requests, peak RSS of `council`; then
#      a second sync with nothing changed.
#   2. A world of N pull requests of about M entries each (10,000 × 100: about 1M
#      timeline entries; the long comments are compacted and their older entries come
#      from the `audit-PR-<n>` artifacts), synced into SQLite and into PostgreSQL (the big
#      sync's figures), then every `audit query` question on each store, median of R runs.
#   3. `audit report --html` (its time and the page's size) and the time headless Chromium
#      takes to draw the page; `audit verify` over the whole store.
#   `policy simulate` runs over the first store (N pull requests): under the world's own
#   policy (nothing changes) and under one that lets every branch in (most verdicts flip,
#   each printed).
#
#   benches/audit.sh [--pulls N] [--entries M] [--runs R]
#
#   --pulls N     pull requests in each world (default 10000; --pulls 500 is a quick run)
#   --entries M   timeline entries per pull request in the big world (default 100)
#   --runs R      runs of each query, verify and report (default 5; the median is shown)
#
# Builds release `council` and `fake-github` (honours CARGO_TARGET_DIR) unless COUNCIL_BIN
# and FAKE_GITHUB_BIN name them. SQLite lives in a temporary folder; PostgreSQL is
# ci/postgres.sh's server (a database of its own, dropped at the end; the server stopped
# again when this script started it); without it the PostgreSQL rows say SKIP. Without
# Chromium the drawing row does. Queries are timed with hyperfine when installed, else
# a loop. Run by hand: not part of the tests. Minutes at full size. AUDIT_BENCH_KEEP=1
# keeps the stores (the temporary folder and the PostgreSQL database) to look into.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pulls=10000
entries=100
runs=5
while [[ $# -gt 0 ]]; do
	case $1 in
	--pulls)
		pulls=$2
		shift 2
		;;
	--entries)
		entries=$2
		shift 2
		;;
	--runs)
		runs=$2
		shift 2
		;;
	*)
		echo "usage: benches/audit.sh [--pulls N] [--entries M] [--runs R]" >&2
		exit 2
		;;
	esac
done
for n in "$pulls" "$entries" "$runs"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || {
		echo "benches/audit.sh: $n is not a positive number" >&2
		exit 2
	}
done
if [[ ! -x /usr/bin/time ]]; then
	echo "benches/audit.sh: /usr/bin/time (GNU time) is missing: apt-get install time" >&2
	exit 2
fi
for tool in curl jq; do
	command -v "$tool" >/dev/null || {
		echo "benches/audit.sh: $tool is missing: apt-get install $tool" >&2
		exit 2
	}
done

council=${COUNCIL_BIN:-}
fake=${FAKE_GITHUB_BIN:-}
if [[ -z $council || -z $fake ]]; then
	echo "-- cargo build --release --locked --bin council --bin fake-github"
	nice cargo build --release --locked --quiet -p agent-council --bin council \
		-p council-fake-github --bin fake-github
	target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
	council=${council:-$target/release/council}
	fake=${fake:-$target/release/fake-github}
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/council-audit-bench.XXXXXX")
fake_pid=""
pg_url=""
pg_admin=""
pg_started=0
pg_db=council_bench_$$
psql_bin=""

stop_fake() {
	if [[ -n $fake_pid ]]; then
		kill "$fake_pid" 2>/dev/null || true
		wait "$fake_pid" 2>/dev/null || true
		fake_pid=""
	fi
}

cleanup() {
	stop_fake
	if [[ -n ${AUDIT_BENCH_KEEP:-} ]]; then
		echo "-- kept (AUDIT_BENCH_KEEP): $work${pg_url:+ and $pg_url}"
		return
	fi
	if [[ -n $pg_url ]]; then
		"$psql_bin" "$pg_admin" -qc "DROP DATABASE IF EXISTS $pg_db" >/dev/null 2>&1 || true
	fi
	if [[ $pg_started == 1 ]]; then
		ci/postgres.sh stop >/dev/null 2>&1 || true
	fi
	rm -rf -- "$work"
}
trap cleanup EXIT

rows=()
# row FIGURE VALUE [AIM]: one line of the table printed at the end (and now, as it comes).
row() {
	rows+=("$1|$2|${3:-}")
	printf '   %-52s %s\n' "$1" "$2"
}

now_ns() { date +%s%N; }
ms_since() { echo $((($(now_ns) - $1) / 1000000)); }
# 1234 → "1.23 s"; below a second in ms.
shown() {
	if (($1 >= 1000)); then
		printf '%d.%02d s' $(($1 / 1000)) $(($1 % 1000 / 10))
	else
		printf '%d ms' "$1"
	fi
}

# world FILE PULLS ENTRIES: examples/fake-world/bench.yml with those sizes.
world() {
	sed -E -e "s/^(  pulls:) *[0-9]+/\1 $2/" -e "s/^(  entries_per_pull:) *[0-9]+/\1 $3/" \
		examples/fake-world/bench.yml >"$1"
	if ! grep -q "^  pulls: $2 " "$1" || ! grep -q "^  entries_per_pull: $3 " "$1"; then
		echo "benches/audit.sh: examples/fake-world/bench.yml no longer has the sizes to set" >&2
		exit 1
	fi
	cp examples/fake-world/council.yml "$(dirname "$1")/council.yml"
}

# start_fake FILE: serves the world in the background and exports what it prints.
start_fake() {
	"$fake" --world "$1" >"$work/fake.env" 2>"$work/fake.err" &
	fake_pid=$!
	local waited=0
	until grep -q '^export ' "$work/fake.env" 2>/dev/null; do
		if ! kill -0 "$fake_pid" 2>/dev/null || ((waited > 1200)); then
			echo "benches/audit.sh: fake-github did not start:" >&2
			cat "$work/fake.err" >&2
			exit 1
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
	local line vars
	line=$(grep -m1 '^export ' "$work/fake.env")
	read -ra vars <<<"${line#export }"
	export "${vars[@]}"
	sed -n 's/^fake-github: generated /   generated /p' "$work/fake.err"
}

# requests [reset]: the requests the fake answered since the last reset (GET or DELETE).
requests() {
	local method=GET
	[[ ${1:-} == reset ]] && method=DELETE
	curl -sf -X "$method" "$GITHUB_API_URL/_fake/requests"
}
total() { jq -r .total <<<"$1"; }
routes() {
	jq -r '.by_route | to_entries | map("\(.value) \(.key | sub(".*/\\{repo\\}/"; "") | sub("GET "; ""))") | join(", ")' <<<"$1"
}

# timed NAME CMD…: runs CMD once, output to $work/NAME.out (stdout) and .err; sets
# $ms (wall) and $rss_kb (peak resident set of CMD).
timed() {
	local name=$1 start
	shift
	start=$(now_ns)
	/usr/bin/time -f '%M' -o "$work/$name.rss" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
		echo "benches/audit.sh: $* failed:" >&2
		tail -n 20 "$work/$name.err" >&2
		exit 1
	}
	ms=$(ms_since "$start")
	rss_kb=$(tail -n1 "$work/$name.rss")
}

# median_ms CMD…: the median wall time of $runs runs of CMD (output discarded), in ms,
# after one run not counted. A shell function is timed by a loop, not by hyperfine.
median_ms() {
	if command -v hyperfine >/dev/null && ! declare -F "$1" >/dev/null; then
		hyperfine --runs "$runs" --warmup 1 -N --style none \
			--export-json "$work/hyperfine.json" -- "$(printf '%q ' "$@")" >/dev/null 2>&1 || {
			echo "benches/audit.sh: $* failed" >&2
			"$@" >/dev/null
			exit 1
		}
		jq '.results[0].median * 1000 | round' "$work/hyperfine.json"
		return
	fi
	"$@" >/dev/null
	local times=() start i
	for ((i = 0; i < runs; i++)); do
		start=$(now_ns)
		"$@" >/dev/null
		times+=("$(ms_since "$start")")
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

echo "-- $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $pulls pull requests, $entries entries each in the big world; medians of $runs runs ($(command -v hyperfine >/dev/null && echo hyperfine || echo a loop))"

# ---------------------------------------------------------------- 1. sync, 12 entries
echo "-- 1. audit sync of $pulls pull requests (12 entries each)"
mkdir -p "$work/sync"
world "$work/sync/world.yml" "$pulls" 12
start_fake "$work/sync/world.yml"
repo=$GITHUB_REPOSITORY
db="sqlite://$work/sync/audit.db"
requests reset >/dev/null
timed sync1 "$council" audit sync --repo "$repo" --database-url "$db"
counted=$(requests reset)
sed 's/^/   /' "$work/sync1.out"
pages=$(((pulls + 99) / 100))
row "sync $pulls PRs: wall time" "$(shown "$ms")"
row "sync $pulls PRs: requests" "$(total "$counted") ($(routes "$counted"))" "$pages + $pulls"
row "sync $pulls PRs: peak RSS of council" "$((rss_kb / 1024)) MiB"
timed sync2 "$council" audit sync --repo "$repo" --database-url "$db"
counted=$(requests reset)
row "second sync, nothing changed: wall time" "$(shown "$ms")"
row "second sync, nothing changed: requests" "$(total "$counted")" "1"
stop_fake

# policy simulate exits 1 when a verdict would change: that is its answer, not a failure.
simulate() {
	local code=0
	"$council" policy simulate "$@" --database-url "$db" >/dev/null 2>&1 || code=$?
	((code <= 1))
}
printf 'branches:\n  rules:\n    - {pattern: "**", targets: [main, develop]}\n' >"$work/sync/open.yml"
row "policy simulate $pulls PRs, nothing changes" "$(shown "$(median_ms simulate "$work/sync/council.yml")")" "< 1 s"
changed=$("$council" policy simulate "$work/sync/open.yml" --database-url "$db" --json 2>/dev/null | jq -r .counts.changed || true)
row "policy simulate $pulls PRs, $changed change" "$(shown "$(median_ms simulate "$work/sync/open.yml")")" "< 1 s"

# ---------------------------------------------------------------- 2. the big stores
echo "-- 2. a world of $pulls pull requests × about $entries entries into SQLite and PostgreSQL"
mkdir -p "$work/big"
world "$work/big/world.yml" "$pulls" "$entries"
start_fake "$work/big/world.yml"
repo=$GITHUB_REPOSITORY
# The questions are timed over the whole store, and again with --repo.
stores=("sqlite|sqlite://$work/big/audit.db")

if pg_out=$(ci/postgres.sh start 2>"$work/pg.err"); then
	grep -q ' started on ' "$work/pg.err" && pg_started=1
	psql_bin=$(command -v psql || true)
	for candidate in /usr/lib/postgresql/*/bin/psql; do
		[[ -n $psql_bin ]] || [[ ! -x $candidate ]] || psql_bin=$candidate
	done
	pg_admin=$pg_out
	if [[ -n $psql_bin ]] && "$psql_bin" "$pg_admin" -qc "CREATE DATABASE $pg_db" >/dev/null; then
		pg_url=${pg_admin%/*}/$pg_db
		stores+=("postgres|$pg_url")
	else
		row "PostgreSQL" "SKIP: psql is missing or CREATE DATABASE failed"
	fi
else
	row "PostgreSQL" "SKIP: $(tail -n1 "$work/pg.err")"
fi

# Each store is measured right after its sync, before the next sync loads the machine.
for store in "${stores[@]}"; do
	engine=${store%%|*}
	url=${store#*|}
	requests reset >/dev/null
	timed "big-$engine" "$council" audit sync --repo "$repo" --database-url "$url"
	counted=$(requests reset)
	sed 's/^/   /' "$work/big-$engine.out"
	row "$engine: sync $pulls PRs × ~$entries entries: wall time" "$(shown "$ms")"
	row "$engine: … requests" "$(total "$counted") ($(routes "$counted"))"
	row "$engine: … peak RSS of council" "$((rss_kb / 1024)) MiB"
	checked=$("$council" audit verify --json --database-url "$url")
	row "$engine: … stored" "$(jq -r '"\(.contexts) PRs, \(.entries) entries, \(.missing) missing, verified: \(.verified)"' <<<"$checked")"
	if [[ $engine == sqlite ]]; then
		row "sqlite: database file" "$(($(stat -c %s "$work/big/audit.db") / 1048576)) MiB"
	else
		size=$("$psql_bin" "$pg_url" -Atc "SELECT pg_database_size(current_database())")
		row "postgres: database size" "$((size / 1048576)) MiB"
		# What autovacuum does soon after a load this size: done now, so that it does not
		# run during the timings (and index-only scans find the pages all-visible).
		"$psql_bin" "$pg_url" -qc "VACUUM" >/dev/null
	fi

	echo "-- $engine: audit query, verify, report (median of $runs)"
	for question in agents findings merge-time rollbacks failures; do
		row "$engine: audit query $question" "$(shown "$(median_ms "$council" audit query "$question" --database-url "$url")")" "< 1 s"
	done
	row "$engine: audit query (all five)" "$(shown "$(median_ms "$council" audit query --database-url "$url")")" "< 1 s"
	row "$engine: audit query --repo (all five)" "$(shown "$(median_ms "$council" audit query --repo "$repo" --database-url "$url")")" "< 1 s"
	row "$engine: audit query --json (all five)" "$(shown "$(median_ms "$council" audit query --json --database-url "$url")")"
	row "$engine: audit verify" "$(shown "$(median_ms "$council" audit verify --database-url "$url")")"
	row "$engine: audit report --html" "$(shown "$(median_ms "$council" audit report --html "$work/site-$engine" --database-url "$url")")"
done
stop_fake

page=$work/site-sqlite/index.html
row "report page size" "$(($(stat -c %s "$page") / 1024)) KiB"
chromium_bin=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium_bin ]]; then
	row "Chromium: draw the report" "SKIP: chromium is not installed (apt-get install chromium)"
else
	# draw [FILE]: the DOM headless Chromium has once the page (the report) drew itself.
	draw() {
		local profile
		profile=$(mktemp -d "$work/chromium.XXXXXX")
		"$chromium_bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$profile" --virtual-time-budget=30000 --dump-dom "file://${1:-$page}" \
			2>/dev/null
		rm -rf -- "$profile"
	}
	echo '<!doctype html><title>empty</title><p>empty' >"$work/empty.html"
	row "Chromium: an empty page, for comparison" "$(shown "$(median_ms draw "$work/empty.html")")"
	draw >"$work/dom.html"
	# The page drew itself: a row per pull request it embeds, and no script error shown.
	drawn=$(grep -o 'class="pr"' "$work/dom.html" | wc -l)
	grep -q '<pre id="council-errors" hidden' "$work/dom.html" || drawn="$drawn, AND A SCRIPT ERROR"
	row "Chromium: draw the report (--dump-dom)" "$(shown "$(median_ms draw)") ($drawn pull requests drawn)"
fi

echo
echo "| figure | value | aim |"
echo "|---|---|---|"
for r in "${rows[@]}"; do
	IFS='|' read -r figure value aim <<<"$r"
	echo "| $figure | $value | $aim |"
done
