# syntax=docker/dockerfile:1
#
# Caldera's image: vc-controller, vc-webhook and vcctl (plus kubectl-vc and Volcano's vsub, vjobs,
# vqueues, vcancel, vsuspend and vresume: the same program under other names) in
# /usr/local/bin of a slim Debian, running as the unprivileged user 65532. manifests/ uses it as
# caldera:latest. How to build and install: docs/install.md.
#
#   docker build -t caldera:latest .
#
# `make image` (scripts/image.sh) builds the same programs without Docker into three images
# with Volcano's names (vc-controller-manager, vc-scheduler, vc-webhook-manager) on a smaller
# base; the links and /gen-admission-secret.sh below are there too, so either image runs the
# same commands.

ARG DEBIAN_RELEASE=bookworm

# ---- build: the -dev packages and make --------------------------------------------------------
FROM debian:${DEBIAN_RELEASE}-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      gcc libc6-dev make pkg-config binutils \
      libmicrohttpd-dev libssl-dev libjansson-dev libyaml-dev libcurl4-openssl-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# Only the three programs and vcctl's links (not `make`, whose default target also installs the
# developer tools), gathered in /out: the links (kubectl-vc, vsub, vjobs, vqueues, vcancel,
# vsuspend, vresume; the Makefile's VCCTL_LINKS) stay links in the COPY below.
RUN make -j"$(nproc)" image-programs \
 && strip build/vc-controller build/vc-webhook build/vcctl \
 && mkdir /out \
 && cp -P build/vc-controller build/vc-webhook build/vcctl $(find build -maxdepth 1 -type l -lname vcctl) /out/

# ---- runtime: only the shared libraries the programs link -------------------------------------
FROM debian:${DEBIAN_RELEASE}-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd12 libjansson4 libyaml-0-2 libcurl4 libssl3 zlib1g ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /usr/local/bin/
# Volcano's entry points (the same program for now) and admission init script.
RUN ln -s vc-controller /usr/local/bin/vc-controller-manager \
 && ln -s vc-controller /usr/local/bin/vc-scheduler
COPY scripts/image/gen-admission-secret.sh /gen-admission-secret.sh
LABEL org.opencontainers.image.title="caldera" \
      org.opencontainers.image.description="Volcano-compatible batch controller, scheduler and admission webhook in C"
USER 65532:65532
CMD ["/usr/local/bin/vc-controller", "--help"]
