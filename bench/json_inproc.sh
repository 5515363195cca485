#!/usr/bin/env bash
# Build a JSON micro-benchmark against this tree's library (make's rules) into build/bench/ and
# run it with the arguments given (see each program's header):
#
#   bench/json_inproc.sh [--mb M] [--rounds R] [--write DIR] [FILE...]   # parsing: json_inproc.c
#   bench/json_dump.sh [--rounds R] [--ms MS] [FILE...]                  # serialising: json_dump.c
#
# json_dump.sh is this script under another name: the name picks the program.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOL=$(basename "${BASH_SOURCE[0]}" .sh)
cd "$ROOT"
make --no-print-directory -j"$(nproc)" build/libcaldera.a >/dev/null
mkdir -p build/bench
read -r -a PKGS <<<"$(make -s --no-print-directory print-pkgs)" # the Makefile's list
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -O2 -g -D_GNU_SOURCE -Icommon -Wall -Wextra -Werror \
	$(pkg-config --cflags "${PKGS[@]}") "bench/$TOOL.c" \
	build/libcaldera.a $(pkg-config --libs "${PKGS[@]}") -lpthread -lm \
	-o "build/bench/$TOOL"
exec "build/bench/$TOOL" "$@"
