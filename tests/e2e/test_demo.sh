#!/usr/bin/env bash
# make demo, non-interactively, in a scratch folder: it must show 4 Ready simulated GPU nodes,
# the TensorFlow and MPI examples Completed (and the PyTorch and MNIST ones), their pods placed,
# the webhook's defaults on a Job and a refusal with Volcano's message, and `demo --down` must
# leave no process behind.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_dir
export DEMO_DIR=$E2E_DIR/demo
out=$E2E_DIR/demo.out
step "scripts/demo.sh"
"$E2E_ROOT/scripts/demo.sh" >"$out" 2>&1 || fail "the demo failed" "$(tail -30 "$out")"
# So the harness tears it down even if a check below fails.
touch "$DEMO_DIR/.caldera-cluster"
for want in "gpu-node-3   Ready" \
	"pod tensorflow-benchmark-ps-0 " "pod lm-mpi-job-mpimaster-0 " \
	"queue=default schedulerName=volcano maxRetry=3 minAvailable=1" \
	'admission webhook "validatejob.volcano.sh" denied the request: duplicated task name worker' \
	"make demo-down"; do
	grep -qF "$want" "$out" || fail "the demo's output lacks '$want'" "$(cat "$out")"
done
for job in tensorflow-benchmark lm-mpi-job pytorch-mnist tf-mnist; do
	grep -qE "job +$job +Completed" "$out" || fail "the demo did not show $job Completed" "$(cat "$out")"
done
pass "the demo ran the examples to Completed and showed defaults and a refusal"

step "scripts/demo.sh --down"
pids=$(cat "$DEMO_DIR"/demo/*.pid "$DEMO_DIR"/run/*.pid 2>/dev/null | awk '{ print $1 }' || true)
[ -n "$pids" ] || fail "no PID files in $DEMO_DIR"
"$E2E_ROOT/scripts/demo.sh" --down >/dev/null 2>&1 || fail "demo --down failed"
alive() { # the PID is a live process, not a zombie waiting to be reaped (one read of stat:
	# a process that exits between two reads must not look alive)
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}
for p in $pids; do
	# demo --down waits for each process; allow a few seconds more for a loaded machine's exit.
	for _ in $(seq 50); do alive "$p" || break; sleep 0.2; done
	if alive "$p"; then
		fail "process $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)) is still running after demo --down"
	fi
done
pass "demo --down stopped $(echo "$pids" | wc -w) processes"
