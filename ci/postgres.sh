#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a cluster of its own (never Debian's
# default cluster), on loopback, with trust authentication, TLS from a CA made here, and
# fsync off. The store's tests start it themselves (crates/council-store/tests/support).
#
#   ci/postgres.sh start   ensures Debian's server binaries (as root: apt-get installs the
#                          `postgresql` package), creates the cluster, starts the server or
#                          reuses the one running there; prints one line on stdout, its URL:
#                          postgres://postgres@127.0.0.1:PORT/postgres
#   ci/postgres.sh stop    stops it
#   ci/postgres.sh ca      prints the path of the CA certificate the server's is signed by
#                          (its certificate names localhost and 127.0.0.1)
#
# Exit status 3 (with a one-line reason on stderr): there is no server and it cannot be
# installed here (not root, no apt-get, the install failed): the tests SKIP. Any other
# failure is 1, and fails the tests.
#
#   COUNCIL_PG_DIR   the cluster's folder (default ${TMPDIR:-/tmp}/council-pg; as root, when
#                    the postgres user cannot reach it, /tmp/council-pg; not as root, when
#                    another user's, that name followed by -USER)
#   COUNCIL_PG_PORT  the port to start on (default 54329, or the next free one); a server
#                    already running is reused on its own port
#
# Calls are serialised by a lock in the folder (test processes run in parallel), and
# `start` recovers by itself from a stale postmaster.pid (a machine restarted under it), a
# half-made cluster (a killed initdb) and one made by another PostgreSQL version or user.
set -euo pipefail

DEFAULT_PORT=54329
PROG=ci/postgres.sh

die() {
	echo "$PROG: $1" >&2
	exit "${2:-1}"
}

# cannot REASON: the server cannot be had here; the tests skip.
cannot() {
	die "$1" 3
}

# The server's binaries: Debian's newest version (/usr/lib/postgresql/N/bin), else the
# PATH's. Empty when there are none.
find_bindir() {
	local dir best=""
	shopt -s nullglob
	for dir in /usr/lib/postgresql/*/bin; do
		[[ -x $dir/postgres && -x $dir/initdb && -x $dir/pg_ctl ]] || continue
		if [[ -z $best ]] || [[ $(printf '%s\n%s\n' "$best" "$dir" | sort -V | tail -n1) == "$dir" ]]; then
			best=$dir
		fi
	done
	shopt -u nullglob
	if [[ -z $best ]] && command -v postgres >/dev/null && command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
		best=$(dirname "$(command -v pg_ctl)")
	fi
	printf '%s' "$best"
}

ensure_binaries() {
	BIN=$(find_bindir)
	[[ -n $BIN ]] && return
	if [[ $EUID -ne 0 ]]; then
		cannot "no PostgreSQL server here (/usr/lib/postgresql/*/bin/postgres), and installing it needs root: apt-get install postgresql, or point COUNCIL_TEST_DATABASE_URL at a server"
	fi
	command -v apt-get >/dev/null || cannot "no PostgreSQL server here and no apt-get to install it"
	# One install at a time (the tests start in parallel); the others then find it there.
	exec 8>>"${TMPDIR:-/tmp}/council-pg.install.lock"
	flock -w 900 8 || die "another $PROG was installing PostgreSQL for 15 minutes"
	BIN=$(find_bindir)
	if [[ -z $BIN ]]; then
		apt_install
		BIN=$(find_bindir)
		[[ -n $BIN ]] || cannot "apt-get installed postgresql, but there is no /usr/lib/postgresql/*/bin/postgres"
	fi
	exec 8>&-
}

# apt-get install postgresql, apt-get update first only when it fails without. Its output
# goes to a log: the package starts Debian's own cluster, which must not hold our caller's
# pipes (nor our locks) open for as long as it runs.
apt_install() {
	local log=${TMPDIR:-/tmp}/council-pg.apt.log started=$EPOCHREALTIME
	echo "$PROG: installing PostgreSQL (apt-get install postgresql; log: $log)" >&2
	: >"$log"
	if ! apt_get install -y --no-install-recommends postgresql; then
		echo "$PROG: apt-get install failed; apt-get update, then again" >&2
		apt_get update || true
		if ! apt_get install -y --no-install-recommends postgresql; then
			tail -n 5 -- "$log" >&2
			cannot "apt-get install postgresql failed: $(grep -m1 '^E:' "$log" || echo "see $log")"
		fi
	fi
	echo "$PROG: installed PostgreSQL in $(since "$started")" >&2
}

apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 "$@" \
		</dev/null >>"${TMPDIR:-/tmp}/council-pg.apt.log" 2>&1 8>&- 9>&-
}

# The server runs as the postgres user when we are root (it refuses to run as root),
# else as ourselves.
server_user() {
	if [[ $EUID -eq 0 ]]; then
		echo postgres
	else
		id -un
	fi
}

# as_server CMD...: CMD as the server's user, from the cluster's folder (the caller's
# working directory may be closed to that user). CMD inherits the lock: a command left
# running by a killed call (initdb) still holds it, and the next call waits for it.
as_server() {
	if [[ $EUID -ne 0 ]]; then
		(cd "$DIR" && "$@")
	elif command -v runuser >/dev/null; then
		(cd "$DIR" && runuser -u postgres -- "$@")
	else
		(cd "$DIR" && su -s /bin/bash postgres -c "$(printf '%q ' "$@")")
	fi
}

# The cluster's folder. As root, the server's user must reach it: a TMPDIR closed to it
# (root's own, 0700) gives way to /tmp. Not as root, a folder another user made (a run as
# root) gives way to one named for us. COUNCIL_PG_DIR is taken as it is.
resolve_dir() {
	DIR=${COUNCIL_PG_DIR:-${TMPDIR:-/tmp}/council-pg}
	[[ $DIR == /* ]] || DIR=$PWD/$DIR
	while [[ $DIR == *//* ]]; do DIR=${DIR//\/\//\/}; done
	DIR=${DIR%/}
	if [[ -z ${COUNCIL_PG_DIR:-} ]]; then
		if [[ $EUID -eq 0 ]]; then
			if [[ $DIR != /tmp/council-pg ]] && id postgres >/dev/null 2>&1 &&
				! runuser -u postgres -- test -x "$(dirname "$DIR")" 2>/dev/null; then
				DIR=/tmp/council-pg
			fi
		elif [[ -e $DIR && ! -O $DIR ]]; then
			DIR=$DIR-$(id -un)
		fi
	fi
	DATA=$DIR/data
	STAMP=$DIR/initialised
}

# The folder, ours (or the server user's): created, not a symlink, writable.
prepare_dir() {
	local user
	user=$(server_user)
	if [[ $EUID -eq 0 ]]; then
		id postgres >/dev/null 2>&1 || cannot "running as root, and there is no postgres user to run the server as"
	fi
	[[ -L $DIR ]] && die "$DIR is a symbolic link: refusing to use it (set COUNCIL_PG_DIR)"
	mkdir -p -- "$DIR"
	if [[ $EUID -eq 0 ]]; then
		chown -- postgres: "$DIR"
		chmod 0755 -- "$DIR"
		as_server test -w "$DIR" ||
			die "the postgres user cannot write $DIR (a parent folder is closed to it): set COUNCIL_PG_DIR to a folder it can reach"
	else
		[[ $(stat -c %U -- "$DIR") == "$user" && -w $DIR ]] ||
			die "$DIR belongs to $(stat -c %U -- "$DIR"), not $user: stop its server there, or set COUNCIL_PG_DIR"
	fi
}

lock() {
	exec 9>>"$DIR/lock"
	flock -w 900 9 || die "another $PROG held $DIR/lock for 15 minutes"
}

# The PID of the server running on this cluster, if one is: postmaster.pid names a live
# process whose working directory is the data folder (the postmaster's always is). A PID
# left over from before a restart, now another process's, is not it.
running_pid() {
	local pid cwd
	[[ -r $DATA/postmaster.pid ]] || return 1
	pid=$(head -n1 "$DATA/postmaster.pid" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null) || return 1
	[[ $cwd == "$(realpath -- "$DATA")" ]] || return 1
	echo "$pid"
}

# Line N of postmaster.pid (4: the port, 8: the status).
pid_line() {
	sed -n "${1}p" "$DATA/postmaster.pid" 2>/dev/null
}

# A port nothing listens on: COUNCIL_PG_PORT, else 54329 or the next free one.
free_port() {
	if [[ -n ${COUNCIL_PG_PORT:-} ]]; then
		[[ $COUNCIL_PG_PORT =~ ^[0-9]+$ ]] || die "COUNCIL_PG_PORT=$COUNCIL_PG_PORT is not a port number"
		echo "$COUNCIL_PG_PORT"
		return
	fi
	local port
	for ((port = DEFAULT_PORT; port < DEFAULT_PORT + 100; port++)); do
		if ! (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	die "no free port in $DEFAULT_PORT-$((DEFAULT_PORT + 99)): set COUNCIL_PG_PORT"
}

# A value for postgresql.conf: quoted, a quote doubled.
conf_quote() {
	printf "'%s'" "${1//\'/\'\'}"
}

# The CA (ca.pem, its key thrown away) and the server's certificate, for localhost and
# 127.0.0.1: what a client checks with sslmode=verify-full&sslrootcert=ca.pem.
make_certificates() {
	local tmp
	if ! command -v openssl >/dev/null; then
		if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null ||
			! apt_get install -y --no-install-recommends openssl; then
			cannot "openssl is not installed, and the server's certificate is made with it (apt-get install openssl)"
		fi
	fi
	tmp=$(mktemp -d "$DIR/certs.XXXXXX")
	openssl req -x509 -new -nodes -sha256 -days 3650 \
		-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$tmp/ca.key" -out "$tmp/ca.pem" -subj "/CN=council test CA" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
	openssl req -new -nodes -sha256 \
		-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$tmp/server.key" -out "$tmp/server.csr" -subj "/CN=localhost" 2>/dev/null
	printf '%s\n' "subjectAltName=DNS:localhost,IP:127.0.0.1" "basicConstraints=critical,CA:FALSE" \
		"keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$tmp/server.ext"
	openssl x509 -req -sha256 -days 3650 -in "$tmp/server.csr" \
		-CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -set_serial "0x1$(openssl rand -hex 8)" \
		-extfile "$tmp/server.ext" -out "$tmp/server.crt" 2>/dev/null
	install -m 0644 -- "$tmp/ca.pem" "$DIR/ca.pem"
	install -m 0644 -- "$tmp/server.crt" "$DIR/server.crt"
	install -m 0600 -- "$tmp/server.key" "$DIR/server.key"
	[[ $EUID -eq 0 ]] && chown -- postgres: "$DIR/server.key" "$DIR/server.crt" "$DIR/ca.pem"
	rm -rf -- "$tmp"
}

# A new cluster in $DATA, replacing whatever is there (a half-made one, another version's).
init_cluster() {
	local socket_dir
	rm -f -- "$STAMP"
	rm -rf -- "$DATA"
	if ! as_server "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C -N >"$DIR/initdb.log" 2>&1; then
		cat -- "$DIR/initdb.log" >&2
		die "initdb failed (above; the log is $DIR/initdb.log)"
	fi
	make_certificates
	# A Unix socket path is limited to 107 bytes: a deep folder gets none (TCP only).
	socket_dir=$DIR
	((${#DIR} + 20 < 107)) || socket_dir=""
	cat >>"$DATA/postgresql.conf" <<EOF

# ci/postgres.sh: a throwaway server for the tests.
listen_addresses = '127.0.0.1'
unix_socket_directories = $(conf_quote "$socket_dir")
ssl = on
ssl_cert_file = $(conf_quote "$DIR/server.crt")
ssl_key_file = $(conf_quote "$DIR/server.key")
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
shared_buffers = 32MB
timezone = 'UTC'
EOF
	# Trust on loopback only, TLS or not (the server listens on nothing else).
	cat >"$DATA/pg_hba.conf" <<EOF
# ci/postgres.sh: a throwaway server for the tests.
local all all trust
host all all 127.0.0.1/32 trust
EOF
	version >"$STAMP"
}

# The binaries' major version (15 of "postgres (PostgreSQL) 15.18 (Debian …)").
version() {
	"$BIN/postgres" -V | sed -n 's/^[^0-9]*\([0-9][0-9]*\).*/\1/p'
}

# The time since $EPOCHREALTIME was START, in seconds to a tenth.
since() {
	local us=$((${EPOCHREALTIME/./} - ${1/./}))
	printf '%d.%d s' $((us / 1000000)) $((us / 100000 % 10))
}

url() {
	echo "postgres://postgres@127.0.0.1:$1/postgres"
}

start() {
	ensure_binaries
	resolve_dir
	prepare_dir
	lock
	local pid port _ logged started=$EPOCHREALTIME
	if pid=$(running_pid); then
		port=$(pid_line 4)
		if [[ $(pid_line 8 | tr -d ' ') == ready && $port =~ ^[0-9]+$ ]]; then
			url "$port"
			return
		fi
		# Running but not ready (starting, stopping, wedged): start it over.
		as_server "$BIN/pg_ctl" -D "$DATA" -m immediate -w -t 30 stop >&2 || kill -9 "$pid" 2>/dev/null || true
	fi
	# A cluster is usable when it was finished, by this major version, and is the server
	# user's: any other (a killed initdb, another version's, another user's) is made
	# again; it holds nothing but the tests' throwaway databases.
	if [[ ! -f $STAMP || $(cat -- "$STAMP") != "$(version)" || ! -f $DATA/PG_VERSION ||
		$(stat -c %U -- "$DATA") != "$(server_user)" ]]; then
		init_cluster
	fi
	# Not running, so a postmaster.pid or socket lock left is stale: postgres itself would
	# trust one whose PID another process of its user has since been given.
	for _ in 1 2 3; do
		rm -f -- "$DATA/postmaster.pid" "$DIR"/.s.PGSQL.*
		port=$(free_port)
		logged=$(stat -c %s -- "$DIR/log" 2>/dev/null || echo 0)
		# Without the lock's descriptor: the server would hold the lock as long as it runs.
		if as_server "$BIN/pg_ctl" -D "$DATA" -l "$DIR/log" -w -t 60 -o "-p $port" start >"$DIR/pg_ctl.log" 2>&1 9>&-; then
			echo "$PROG: PostgreSQL $(version) started on 127.0.0.1:$port in $(since "$started") ($DIR)" >&2
			url "$port"
			return
		fi
		# Another process may have taken the port since it was free: another, unless chosen.
		if [[ -n ${COUNCIL_PG_PORT:-} ]] || ! tail -c "+$((logged + 1))" -- "$DIR/log" 2>/dev/null | grep -q 'could not bind'; then
			break
		fi
		echo "$PROG: port $port was taken meanwhile; another" >&2
	done
	cat -- "$DIR/pg_ctl.log" >&2 || true
	tail -c "+$((logged + 1))" -- "$DIR/log" 2>/dev/null | tail -n 20 >&2 || true
	die "the server did not start on port $port (above, the end of its log $DIR/log)"
}

stop() {
	resolve_dir
	[[ -d $DIR ]] || return 0
	lock
	local pid i
	if pid=$(running_pid); then
		BIN=$(find_bindir)
		if [[ -n $BIN ]]; then
			as_server "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >&2 ||
				die "pg_ctl stop failed (server PID $pid)"
		else
			# SIGINT is a fast shutdown; pg_ctl is not there to send it.
			kill -INT "$pid"
			for ((i = 0; i < 600; i++)); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
		fi
	fi
	rm -f -- "$DATA/postmaster.pid" "$DIR"/.s.PGSQL.*
}

ca() {
	resolve_dir
	[[ -f $DIR/ca.pem ]] || die "no $DIR/ca.pem: run $PROG start first"
	echo "$DIR/ca.pem"
}

case ${1:-} in
start) start ;;
stop) stop ;;
ca) ca ;;
*)
	echo "usage: $PROG start|stop|ca" >&2
	exit 2
	;;
esac
