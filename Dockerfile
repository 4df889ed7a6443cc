# agent-council: the `council` binary alone in an empty image.
#
# This file is what `uses: OWNER/agent-council@main` (or `uses: ./`) builds on every run.
# Releases do not use it: their action.yml names a prebuilt image by digest, made by the
# release workflow from the binary ci/build-static.sh builds, with ci/Containerfile.prebuilt
# (the same final stage as below). See docs/src/install.md, "main vs releases".
#
# Stage 1 builds a static musl binary for the architecture it runs on (amd64 or arm64
# runners); the release profile (Cargo.toml) already uses LTO, one codegen unit,
# panic=abort and strip. ring's C code needs musl-gcc, hence musl-tools.
# Pinned by tag; Dependabot (docker) proposes newer ones.
FROM rust:1.95.0-slim-bookworm AS builder

RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools=1.2.3-1 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# .dockerignore keeps target/, out/ and .git out of the context.
COPY . .
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# `council` alone: the workspace's fake GitHub (a development tool) stays out of the build.
RUN target="$(uname -m)-unknown-linux-musl" \
 && rustup target add "$target" \
 && env "CC_${target//-/_}=musl-gcc" cargo build --release --locked --target "$target" -p agent-council --bin council \
 && cp "target/$target/release/council" /council

# Stage 2: nothing but the binary. No CA bundle: the Mozilla roots are compiled in
# (rustls + webpki roots), and the runner puts /etc/hosts and /etc/resolv.conf into every
# container, scratch ones included, so name lookups work without /etc in the image.
FROM scratch

LABEL org.opencontainers.image.title="agent-council" \
      org.opencontainers.image.description="Guard, review and release gates for pull requests shared by AI agents and humans" \
      org.opencontainers.image.licenses="MIT OR Apache-2.0"

COPY --from=builder /council /council

# No USER instruction, on purpose: the image runs as the default user (root, uid 0).
# GitHub runs a Docker action with the workspace and the file-command files
# (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY under /github/file_commands) bind-mounted from the
# host, owned by the runner user (uid 1001 on hosted runners), and passes no --user. A
# non-root uid here such as 65534 gets "Permission denied" on those files and on
# out/audit/ in the workspace. GitHub's "Dockerfile support for GitHub Actions" says
# Docker actions must run as the default Docker user (root) and must not use USER; several
# actions that added a USER had to revert it. Root in this image holds no shell, no
# package manager and no other file, and the runner starts it without extra capabilities.
# hadolint's DL3002 fires only on an explicit `USER root`, so nothing is ignored here.
# To run the image outside Actions as another user: `docker run --user 65534:65534 ...`.
ENTRYPOINT ["/council"]
