#!/usr/bin/env bash
# Build bench/json_dump.c against this tree's library (make's rules) into build/bench/json_dump
# and run it with the arguments given (see that file's header):
#
#   bench/json_dump.sh [--rounds R] [--ms MS] [FILE...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
make --no-print-directory -j"$(nproc)" build/libcaldera.a >/dev/null
mkdir -p build/bench
read -r -a PKGS <<<"$(make -s --no-print-directory print-pkgs)" # the Makefile's list
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -O2 -g -D_GNU_SOURCE -Icommon -Wall -Wextra -Werror \
	$(pkg-config --cflags "${PKGS[@]}") bench/json_dump.c \
	build/libcaldera.a $(pkg-config --libs "${PKGS[@]}") -lpthread -lm \
	-o build/bench/json_dump
exec build/bench/json_dump "$@"
