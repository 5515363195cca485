#!/usr/bin/env bash
# Run the end-to-end tests: every tests/e2e/test_*.sh, or those named (smoke, test_smoke or
# tests/e2e/test_smoke.sh). Each runs with a time limit, E2E_JOBS at a time; prints PASS or FAIL
# with the duration per test and the end of a failing test's log; exits non-zero on any failure.
#
#   E2E_JOBS=2       tests run at the same time (each on its own cluster)
#   E2E_TIMEOUT=600  seconds a test may take before it is stopped and fails
#   E2E_KEEP=1       keep every test's folder and log, not only the failing ones'
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JOBS=${E2E_JOBS:-2}
TIMEOUT=${E2E_TIMEOUT:-600}
cd "$ROOT" || exit 1

tests=()
if [ $# -eq 0 ]; then
	for t in tests/e2e/test_*.sh; do
		[ -e "$t" ] && tests+=("$t")
	done
else
	for a in "$@"; do
		n=$(basename "$a" .sh)
		n=${n#test_}
		t=tests/e2e/test_$n.sh
		[ -f "$t" ] || {
			echo "e2e: no test '$a' ($t does not exist)" >&2
			exit 2
		}
		case " ${tests[*]} " in
		*" $t "*) ;; # once: a test's folder and log are named after it
		*) tests+=("$t") ;;
		esac
	done
fi
[ ${#tests[@]} -gt 0 ] || {
	echo "e2e: no tests/e2e/test_*.sh found" >&2
	exit 2
}

# The control plane is built once per machine into a cache (minutes the first time).
bin=$(cluster/build.sh | tail -n 1)
if ! [ -x "$bin/kube-apiserver" ]; then
	echo "e2e: cluster/build.sh failed" >&2
	exit 1
fi
export CALDERA_KUBE_BIN=$bin

# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
set +e +o pipefail

mkdir -p build/e2e
RUNDIR=$(mktemp -d "$ROOT/build/e2e/run.XXXXXX")
declare -A name_of=() began=()
running=0
failed=()

# start TEST: run it under `timeout`, which puts it in a process group of its own.
start() {
	local t=$1 n
	n=$(basename "$t" .sh)
	E2E_WORKDIR=$RUNDIR/$n timeout -k 20 "$TIMEOUT" bash "$t" >"$RUNDIR/$n.log" 2>&1 &
	name_of[$!]=$n
	began[$!]=$SECONDS
	running=$((running + 1))
}

# finish: wait for any test to end and report it.
finish() {
	local pid rc n took
	wait -n -p pid
	rc=$?
	[ -n "${pid:-}" ] || return 0
	n=${name_of[$pid]}
	took=$((SECONDS - ${began[$pid]}))
	running=$((running - 1))
	# A test that was killed could not stop its cluster and daemons.
	e2e_reap "$RUNDIR/$n"
	if [ $rc -eq 0 ]; then
		printf 'PASS %-30s %4ss\n' "$n" "$took"
		[ "${E2E_KEEP:-0}" = 1 ] || rm -rf "${RUNDIR:?}/$n" "$RUNDIR/$n.log"
		return 0
	fi
	local why="exit status $rc"
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timed out after ${TIMEOUT}s"
	printf 'FAIL %-30s %4ss  (%s)\n' "$n" "$took" "$why"
	# The test's own output, then the daemons' logs as lib.sh printed them.
	printf '     output of %s (last 40 lines before the logs):\n' "$RUNDIR/$n.log"
	awk '/^===== last [0-9]+ lines of /{ exit } { print }' "$RUNDIR/$n.log" | tail -n 40 |
		sed 's/^/     | /'
	sed -n '/^===== last [0-9]* lines of /,$p' "$RUNDIR/$n.log" | sed 's/^/     | /'
	failed+=("$n")
}

stop_all() {
	local pid
	for pid in "${!name_of[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	while [ $running -gt 0 ]; do finish; done
	exit 130
}
trap stop_all INT TERM

t0=$SECONDS
echo "e2e: ${#tests[@]} test(s), $JOBS at a time, ${TIMEOUT}s each; logs in $RUNDIR"
for t in "${tests[@]}"; do
	while [ $running -ge "$JOBS" ]; do finish; done
	start "$t"
done
while [ $running -gt 0 ]; do finish; done

if [ ${#failed[@]} -ne 0 ]; then
	echo "e2e: FAILED ${#failed[@]} of ${#tests[@]} in $((SECONDS - t0))s: ${failed[*]} (logs and state in $RUNDIR)" >&2
	exit 1
fi
[ "${E2E_KEEP:-0}" = 1 ] || rmdir "$RUNDIR" 2>/dev/null
echo "e2e: all ${#tests[@]} passed in $((SECONDS - t0))s"
