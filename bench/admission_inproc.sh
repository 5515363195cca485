#!/usr/bin/env bash
# Build bench/admission_inproc.c against this tree's webhook objects (make's rules) into
# build/bench/admission_inproc and run it with the arguments given (see that file's header):
#
#   bench/admission_inproc.sh [--reps N] [--rounds R] [--dump DIR] PATH=FILE...
#   BENCH_KEEP=1 bench/bench_admission.sh --only d   # keeps its scratch folder: reviews/*.json
#   bench/admission_inproc.sh --reps 2000 /jobs/mutate=SCRATCH/reviews/jobs_mutate.json ...
#
# To compare two builds, run each tree's copy on the same files, alternating, and cmp the
# --dump folders.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
HOOK_OBJS=()
for s in admission jobs jobs_gotypes jobs_podtemplate podgroups pods queues; do
	HOOK_OBJS+=("build/obj/webhook/$s.o")
done
make --no-print-directory -j"$(nproc)" build/libcaldera.a "${HOOK_OBJS[@]}" >/dev/null
mkdir -p build/bench
read -r -a PKGS <<<"$(make -s --no-print-directory print-pkgs)" # the Makefile's list
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -O2 -g -D_GNU_SOURCE -Icommon -Iwebhook -Wall -Wextra -Werror \
	$(pkg-config --cflags "${PKGS[@]}") bench/admission_inproc.c "${HOOK_OBJS[@]}" \
	build/libcaldera.a $(pkg-config --libs "${PKGS[@]}") -lpthread -lm \
	-o build/bench/admission_inproc
exec build/bench/admission_inproc "$@"
