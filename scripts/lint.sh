#!/usr/bin/env bash
# make lint: clang-tidy (.clang-tidy) and cppcheck over all product C sources. Tests and
# fuzzers are checked by the compiler's warnings and the sanitizers instead.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files -co --exclude-standard -- 'common/*.c' 'controller/*.c' \
	'controller/**/*.c' 'webhook/*.c' 'cluster/nodesim/*.c' 'vcctl/*.c' | sort -u)
[ ${#files[@]} -gt 0 ] || { echo "lint: no sources"; exit 0; }

pkgs="libmicrohttpd jansson yaml-0.1 libcurl openssl"
# shellcheck disable=SC2046
flags=(-std=c11 -D_GNU_SOURCE -Icommon -Icontroller -Iwebhook -Icluster/nodesim $(pkg-config --cflags $pkgs))

status=0
echo "lint: clang-tidy on ${#files[@]} files"
# Two at a time: clang-tidy is slow and these machines have two cores.
export LINT_FLAGS="${flags[*]}"
printf '%s\0' "${files[@]}" |
	xargs -0 -P 2 -n 1 sh -c 'clang-tidy --quiet "$1" -- $LINT_FLAGS 2>/dev/null' lint || status=1

echo "lint: cppcheck"
cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability,performance \
	--inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -Icommon \
	"${files[@]}" || status=1

[ $status -eq 0 ] && echo "lint: clean"
exit $status
