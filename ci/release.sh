#!/usr/bin/env bash
# The release workflow's steps that are not builds (.github/workflows/release.yml), kept
# here so they can be read, linted and tried locally.
#
#   ci/release.sh check TAG [BASE_REF]        TAG is vX.Y.Z, Cargo.toml says X.Y.Z, CHANGELOG.md
#                                             has `## [X.Y.Z]`, action.yml can be rewritten, and
#                                             (with BASE_REF) the commit is on that branch.
#                                             Prints version=, major=, image= for GITHUB_OUTPUT.
#   ci/release.sh rewrite IMAGE@DIGEST OWNER/REPO [DIR]
#                                             action.yml's `image: Dockerfile` becomes the image
#                                             by digest; OWNER/agent-council and
#                                             ghcr.io/OWNER/agent-council in the README, the
#                                             book (docs/) and examples become this
#                                             repository's names
#   ci/release.sh notes TAG IMAGE@DIGEST COMMIT   the release notes (CHANGELOG section + install)
#   ci/release.sh publish TAG MAJOR_TAG IMAGE@DIGEST DIST
#                                             the release commit, TAG moved onto it, the GitHub
#                                             release with DIST's files, then MAJOR_TAG moved
#                                             (needs GH_TOKEN with contents: write)
#   ci/release.sh selftest                    check + rewrite on a scratch copy (run by ci/lint.sh)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

# Files whose OWNER placeholders the release fills in, besides examples/*.yml and the
# book's chapters, docs/src/*.md (docs/SPEC.md, the contract, keeps its `<owner>`: it
# describes every fork alike; the book shows it as it is).
REWRITTEN=(action.yml README.md .github/zizmor.yml docs/book.toml Cargo.toml)
IMAGE_LINE='  image: Dockerfile'

die() {
	echo "release: $*" >&2
	exit 1
}

cargo_version() {
	# The first `version = "…"` of Cargo.toml is [package]'s.
	sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1
}

changelog_section() {
	local version=$1
	awk -v head="## [$version]" '
		index($0, head) == 1 { on = 1; next }
		on && /^## \[/ { exit }
		on { print }
	' CHANGELOG.md
}

cmd_check() {
	local tag=${1:?TAG} base=${2:-}
	[[ $tag =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "tag $tag is not vMAJOR.MINOR.PATCH"
	local version=${tag#v} major=${BASH_REMATCH[1]}
	[[ $(cargo_version) == "$version" ]] ||
		die "tag $tag but Cargo.toml says version $(cargo_version): bump Cargo.toml (and Cargo.lock) first"
	grep -q "^## \[$version\]" CHANGELOG.md || die "CHANGELOG.md has no section '## [$version]'"
	[[ -n $(changelog_section "$version" | tr -d '[:space:]') ]] || die "CHANGELOG.md's section for $version is empty"
	[[ $(grep -cxF "$IMAGE_LINE" action.yml) -eq 1 ]] ||
		die "action.yml must hold the line '$IMAGE_LINE' exactly once (the release replaces it)"
	if [[ -n $base ]]; then
		git merge-base --is-ancestor HEAD "$base" || die "$tag ($(git rev-parse HEAD)) is not on $base"
	fi
	local owner=${GITHUB_REPOSITORY_OWNER:-OWNER}
	echo "release: $tag checked: version $version, major tag v$major" >&2
	echo "version=$version"
	echo "major=$major"
	echo "image=ghcr.io/${owner,,}/agent-council"
}

cmd_rewrite() {
	local image=${1:?IMAGE@DIGEST} repository=${2:?OWNER/REPO} dir=${3:-.}
	[[ $image =~ ^ghcr\.io/([a-z0-9][a-z0-9._-]*)/agent-council@sha256:[0-9a-f]{64}$ ]] ||
		die "not an image pinned by digest: $image"
	local owner_lc=${BASH_REMATCH[1]}
	[[ $repository =~ ^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$ ]] || die "not OWNER/REPO: $repository"
	local repo_owner=${repository%%/*}
	[[ ${repo_owner,,} == "$owner_lc" ]] || die "image owner $owner_lc is not the owner of $repository"
	(
		cd "$dir"
		[[ $(grep -cxF "$IMAGE_LINE" action.yml) -eq 1 ]] || die "$dir/action.yml has no line '$IMAGE_LINE'"
		local files=("${REWRITTEN[@]}") f
		shopt -s nullglob
		files+=(examples/*.yml docs/src/*.md)
		for f in "${files[@]}"; do
			[[ -f $f ]] || continue
			sed -i \
				-e "s#^$IMAGE_LINE\$#  image: docker://$image#" \
				-e "s#ghcr\.io/OWNER/agent-council#ghcr.io/$owner_lc/agent-council#g" \
				-e "s#OWNER/agent-council#$repository#g" \
				"$f"
		done
		grep -qxF "  image: docker://$image" action.yml || die "action.yml was not rewritten"
		local stray
		stray=$(grep -nE '<owner>|OWNER/agent-council' "${files[@]}" || true)
		[[ -z $stray ]] || die "placeholders left after the rewrite:"$'\n'"$stray"
	)
}

cmd_notes() {
	local tag=${1:?TAG} image=${2:?IMAGE@DIGEST} commit=${3:?COMMIT}
	local version=${tag#v} repository=${GITHUB_REPOSITORY:-OWNER/agent-council}
	changelog_section "$version"
	cat <<EOF

## Install

The action, pinned to this release's commit (the image is pinned by digest inside it):

\`\`\`yaml
- uses: $repository@$commit # $tag
\`\`\`

The image: \`docker pull $image\`

The binary (static, Linux x86_64 or aarch64), checked against the sums and the build
provenance:

\`\`\`sh
gh release download $tag -R $repository -p "council-linux-\$(uname -m)" -p SHA256SUMS
sha256sum --check --ignore-missing SHA256SUMS
gh attestation verify "council-linux-\$(uname -m)" -R $repository
install -m 755 "council-linux-\$(uname -m)" ~/.local/bin/council
\`\`\`
EOF
}

cmd_publish() {
	local tag=${1:?TAG} major_tag=${2:?MAJOR_TAG} image=${3:?IMAGE@DIGEST} dist=${4:?DIST}
	local repository=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY} source_commit
	source_commit=$(git rev-parse HEAD)
	[[ -f $dist/SHA256SUMS ]] || die "$dist/SHA256SUMS is missing"
	(cd "$dist" && sha256sum --check --strict SHA256SUMS >&2)

	cmd_rewrite "$image" "$repository" .
	git -c user.name='github-actions[bot]' \
		-c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
		commit --quiet --all \
		-m "Release $tag" \
		-m "action.yml runs the prebuilt image $image (linux/amd64, linux/arm64) instead of building the Dockerfile, and the docs name $repository. Source: $source_commit."
	local release_commit
	release_commit=$(git rev-parse HEAD)
	git -c user.name='github-actions[bot]' \
		-c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
		tag --force --annotate "$tag" -m "agent-council $tag" "$release_commit"

	gh auth setup-git
	git push --force origin "refs/tags/$tag"

	local notes
	notes=$(mktemp)
	cmd_notes "$tag" "$image" "$release_commit" >"$notes"
	local assets=("$dist"/council-linux-* "$dist/SHA256SUMS")
	if gh release view "$tag" >/dev/null 2>&1; then
		gh release upload "$tag" "${assets[@]}" --clobber
		gh release edit "$tag" --title "agent-council $tag" --notes-file "$notes"
	else
		gh release create "$tag" "${assets[@]}" --verify-tag --title "agent-council $tag" --notes-file "$notes"
	fi

	git tag --force "$major_tag" "$release_commit"
	git push --force origin "refs/tags/$major_tag"
	echo "release: $tag and $major_tag → $release_commit (source $source_commit), image $image" >&2
	{
		echo "### agent-council $tag"
		echo
		echo "- release commit: \`$release_commit\` (source \`$source_commit\`)"
		echo "- image: \`$image\`"
		echo "- tags: \`$tag\`, \`$major_tag\`"
	} >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
}

cmd_selftest() {
	local work version
	work=$(mktemp -d "${TMPDIR:-/tmp}/council-release.XXXXXX")
	trap 'rm -rf -- "$work"' RETURN
	version=$(cargo_version)
	GITHUB_REPOSITORY_OWNER=Octo-Org cmd_check "v$version" >"$work/outputs"
	grep -qx "image=ghcr.io/octo-org/agent-council" "$work/outputs" || die "check: wrong image name"
	mkdir -p "$work/tree/.github" "$work/tree/examples" "$work/tree/docs/src"
	cp action.yml README.md Cargo.toml "$work/tree/"
	cp .github/zizmor.yml "$work/tree/.github/"
	cp examples/*.yml "$work/tree/examples/" 2>/dev/null || true
	cp docs/book.toml "$work/tree/docs/"
	cp docs/src/*.md "$work/tree/docs/src/"
	local digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	cmd_rewrite "ghcr.io/octo-org/agent-council@$digest" Octo-Org/agent-council "$work/tree"
	grep -q "uses: Octo-Org/agent-council@" "$work/tree/README.md" || die "README.md: uses: not rewritten"
	grep -q "uses: Octo-Org/agent-council@" "$work/tree/docs/src/release.md" || die "docs/src/release.md: uses: not rewritten"
	grep -q "ghcr.io/octo-org/agent-council:" "$work/tree/docs/src/install.md" || die "docs/src/install.md: the image not rewritten"
	grep -q "github.com/Octo-Org/agent-council" "$work/tree/docs/book.toml" || die "docs/book.toml: not rewritten"
	grep -q "github.com/Octo-Org/agent-council" "$work/tree/Cargo.toml" || die "Cargo.toml: repository not rewritten"
	cmd_notes "v$version" "ghcr.io/octo-org/agent-council@$digest" 0000000000000000000000000000000000000000 >"$work/notes"
	grep -q "sha256sum --check" "$work/notes" || die "notes: no install section"
	echo "release selftest: v$version checks; action.yml → ghcr.io/octo-org/agent-council@$digest; no placeholder left"
}

case ${1:-} in
check | rewrite | notes | publish | selftest)
	sub=$1
	shift
	"cmd_$sub" "$@"
	;;
*)
	sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
