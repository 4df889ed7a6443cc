#!/usr/bin/env bash
# `cargo install agent-council` must work from the registry: every crate packages, and its
# package builds on its own, its dependencies on the other crates of this workspace taken
# from their packages (`cargo publish --workspace --dry-run`: cargo overlays a local
# registry of the new packages on crates.io).
#
# In the workspace's target folder, so that what the tests built (the dependencies, where a
# package alone asks for the same features) is reused instead of built again cold. Cargo
# takes a registry version as immutable, and the overlaid council-* 0.1.0 look like
# crates.io's: it unpacks each once into $CARGO_HOME/registry/src/-<hash>/ (a local
# registry's folder) and keeps it, and every file of a package carries the same fixed
# mtime, so its build in the target folder stays "fresh" whatever the sources became. A
# later dry run would check the old sources. So an earlier dry run's copies go first: the
# unpacked council-* packages of local registries, and the target folder's builds of
# council-* whose sources were such a copy (found by rustc's dep-info, deps/*.d). The
# builds of the workspace's own council-* (from crates/) stay.
#
# Honours CARGO_TARGET_DIR. Arguments go to cargo publish (e.g. --allow-dirty; with -p
# or --package, only those packages instead of the whole workspace).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
case $TARGET_DIR in /*) ;; *) TARGET_DIR=$REPO/$TARGET_DIR ;; esac
REGISTRY_SRC=${CARGO_HOME:-$HOME/.cargo}/registry/src

# The workspace's packages that others depend on through the registry.
crates=(council-protocol council-github council-store)

forget_earlier_dry_runs() {
	local crate version unpacked dep_info hash stem forgotten=0
	version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
	shopt -s nullglob
	for crate in "${crates[@]}"; do
		# A local registry's folder is named "-<hash>" (no host in a file:// URL).
		for unpacked in "$REGISTRY_SRC"/-*/"$crate-$version"; do
			rm -rf -- "$unpacked"
			forgotten=$((forgotten + 1))
		done
		stem=${crate//-/_}
		for dep_info in "$TARGET_DIR"/debug/deps/"$stem"-*.d; do
			grep -qF "$REGISTRY_SRC/" "$dep_info" || continue
			hash=${dep_info##*-}
			hash=${hash%.d}
			rm -rf -- "$TARGET_DIR/debug/.fingerprint/$crate-$hash" "$dep_info" \
				"$TARGET_DIR/debug/deps/lib$stem-$hash".*
			forgotten=$((forgotten + 1))
		done
	done
	shopt -u nullglob
	echo "   forgot $forgotten unpacked copies and builds of council-* $version from earlier dry runs"
}

# cargo publishes the root package's [profile] sections only: the libraries' packages,
# built alone, would get cargo's default dev profile (full debug info everywhere) and share
# no unit with the tests' build. The workspace's dev profile, given as configuration,
# applies to every package verified.
mapfile -t profile < <(python3 - <<'PY'
import json, sys, tomllib

def flat(prefix, table):
    for key, value in table.items():
        name = f'{prefix}."{key}"' if key == "*" else f"{prefix}.{key}"
        if isinstance(value, dict):
            yield from flat(name, value)
        else:
            yield "--config"
            yield f"{name}={json.dumps(value)}"

with open("Cargo.toml", "rb") as f:
    dev = tomllib.load(f).get("profile", {}).get("dev", {})
sys.stdout.write("".join(arg + "\n" for arg in flat("profile.dev", dev)))
PY
)

forget_earlier_dry_runs
args=("${profile[@]}" "$@")
[[ " $* " == *" -p "* || " $* " == *" --package "* ]] || args=(--workspace "${args[@]}")
echo "   cargo publish --dry-run --locked ${args[*]}"
cargo publish --dry-run --locked "${args[@]}"
