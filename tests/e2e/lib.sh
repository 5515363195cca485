# shellcheck shell=bash
# Helpers for the end-to-end tests: source this from tests/e2e/test_*.sh.
#
#   e2e_cluster_up [up.sh flags]   fresh cluster in a new scratch folder; exports KUBECONFIG
#   e2e_cluster_down               stop it (tests that check the teardown itself)
#   kube ARGS...                   kubectl against that cluster
#   gone RESOURCE [flags]          the object does not exist (for wait_for)
#   wait_for WHAT TIMEOUT_S CMD... poll CMD until it succeeds, or fail
#   expect_fail_with TEXT CMD...   CMD must fail with TEXT in its output
#   start_daemon NAME CMD...       run CMD in the background, logging to daemons/NAME.log
#   stop_daemon NAME               stop it by PID (TERM, then KILL)
#   step / pass / skip / fail      report progress; fail exits the test
#
# On exit the scratch folder's daemons and cluster are stopped; on failure the logs are printed
# and the folder is kept (E2E_KEEP=1 keeps it on success too). Scratch folders live under
# E2E_WORKDIR (run.sh sets it per test; default build/e2e/<test name>).
set -euo pipefail

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E_NAME=$(basename "$0" .sh)
: "${E2E_WORKDIR:=$E2E_ROOT/build/e2e/$E2E_NAME}"
E2E_DIR=     # this test's scratch folder, made on first use
E2E_CLUSTER= # its cluster folder while one is up
E2E_T0=$SECONDS
# The test's own stdout and stderr, for the exit handler: a signal can arrive while a function
# such as `kube ... >/dev/null` has them redirected.
exec {E2E_OUT}>&1 {E2E_ERR}>&2

step() { printf -- '--- %s\n' "$*"; }
pass() { printf 'ok   %s  [%ss]\n' "$*" $((SECONDS - E2E_T0)); }
skip() { printf '\n*** SKIP: %s ***\n\n' "$*"; }
# fail MESSAGE [DETAIL]: report and exit 1; DETAIL (e.g. a command's output) is printed as is.
E2E_FAILED= # the first failure's message
# A test that defines diag() has it print the state worth seeing, once, before the first FAIL
# (in a subshell: a failure inside diag cannot cut the report short).
fail() {
	if [ -z "$E2E_FAILED" ] && declare -F diag >/dev/null; then
		E2E_FAILED=$1
		(diag) >&2 || true
	fi
	[ -n "$E2E_FAILED" ] || E2E_FAILED=$1
	printf 'FAIL %s\n' "$1" >&2
	[ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/     | /' >&2
	exit 1
}

# free_port: a TCP port nothing listens on now (for a daemon of the test, on 127.0.0.1).
in_use() { [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]; }
free_port() {
	local p
	for _ in $(seq 1 200); do
		p=$((10000 + (RANDOM * 32768 + RANDOM) % 22000))
		in_use "$p" || {
			echo "$p"
			return 0
		}
	done
	fail "found no free port"
}

# e2e_dir: make this test's scratch folder and install the exit handler, once.
e2e_dir() {
	[ -z "$E2E_DIR" ] || return 0
	mkdir -p "$E2E_WORKDIR"
	E2E_DIR=$(mktemp -d "$E2E_WORKDIR/run.XXXXXX")
	mkdir -p "$E2E_DIR/daemons"
	trap _e2e_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# On exit: a daemon that died on its own or logged a sanitizer report fails the test; on
# failure the logs' tails are printed (before the teardown, so they show the failing state);
# then every daemon and the cluster are stopped.
_e2e_exit() {
	local rc=$? f n why
	set +e
	exec 1>&"$E2E_OUT" 2>&"$E2E_ERR"
	[ $rc -eq 0 ] || [ -n "$E2E_FAILED" ] || E2E_FAILED="exit status $rc"
	trap - EXIT INT TERM
	for f in "$E2E_DIR"/daemons/*.pid; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .pid)
		why=
		if ! _daemon_alive "$f"; then
			why="exited on its own with status $(_daemon_stop "$f")"
		elif grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "${f%.pid}.log"; then
			why="logged a sanitizer report"
		fi
		if [ -n "$why" ]; then
			printf 'FAIL daemon %s %s (log: %s)\n' "$n" "$why" "${f%.pid}.log" >&2
			[ -n "$E2E_FAILED" ] || E2E_FAILED="daemon $n $why"
			[ $rc -ne 0 ] || rc=1
		fi
	done
	if [ $rc -ne 0 ]; then
		for f in "$E2E_DIR"/up.log "$E2E_DIR"/cluster/logs/{etcd,kube-*}.log "$E2E_DIR"/daemons/*.log; do
			[ -s "$f" ] || continue
			printf '\n===== last 25 lines of %s\n' "$f" >&2
			tail -n 25 "$f" >&2
		done
	fi
	e2e_reap "$E2E_DIR"
	if [ $rc -ne 0 ]; then
		printf '\n%s: FAILED after %ss (%s); state and logs kept in %s\n' "$E2E_NAME" \
			$((SECONDS - E2E_T0)) "${E2E_FAILED%:}" "$E2E_DIR" >&2
	elif [ "${E2E_KEEP:-0}" = 1 ]; then
		printf '%s: passed in %ss; kept %s\n' "$E2E_NAME" $((SECONDS - E2E_T0)) "$E2E_DIR"
	else
		rm -rf "$E2E_DIR"
		printf '%s: passed in %ss\n' "$E2E_NAME" $((SECONDS - E2E_T0))
	fi
	exit $rc
}

# e2e_reap DIR: stop every daemon and cluster recorded under DIR (a scratch folder, or a
# folder of them). Safe to repeat; run.sh calls it after a test that was killed.
e2e_reap() {
	local f
	[ -n "${1:-}" ] && [ -d "$1" ] || return 0
	while IFS= read -r f; do
		_daemon_stop "$f" >/dev/null 2>&1
	done < <(find "$1" -path '*/daemons/*.pid' 2>/dev/null)
	while IFS= read -r f; do
		"$E2E_ROOT/cluster/down.sh" "$(dirname "$f")" >/dev/null 2>&1 ||
			echo "e2e: cluster/down.sh $(dirname "$f") failed" >&2
	done < <(find "$1" -name .caldera-cluster 2>/dev/null)
}

# --- the cluster -------------------------------------------------------------------------------

e2e_cluster_up() {
	local t0=$SECONDS
	command -v kubectl >/dev/null || fail "kubectl is missing (on Debian: apt-get install kubernetes-client)"
	e2e_dir
	E2E_CLUSTER=$E2E_DIR/cluster
	"$E2E_ROOT/cluster/up.sh" "$E2E_CLUSTER" "$@" >/dev/null 2>"$E2E_DIR/up.log" ||
		fail "cluster/up.sh $E2E_CLUSTER $* failed"
	export KUBECONFIG=$E2E_CLUSTER/kubeconfig
	# A private discovery cache: ports are reused by later clusters with other CRDs.
	export KUBECACHEDIR=$E2E_CLUSTER/kubectl-cache
	pass "cluster up in $((SECONDS - t0))s ($KUBECONFIG)"
}

e2e_cluster_down() {
	[ -n "$E2E_CLUSTER" ] || fail "e2e_cluster_down: no cluster is up"
	"$E2E_ROOT/cluster/down.sh" "$E2E_CLUSTER" 2>>"$E2E_DIR/up.log" ||
		fail "cluster/down.sh $E2E_CLUSTER failed"
}

# kube ARGS...: kubectl against the test's cluster.
kube() {
	kubectl --kubeconfig="${KUBECONFIG:?call e2e_cluster_up first}" "$@"
}

# gone RESOURCE [kubectl get flags]: the object does not exist (an API error is not "gone").
gone() {
	local out
	out=$(kube get "$@" --ignore-not-found -o name) && [ -z "$out" ]
}

# --- waiting and asserting -----------------------------------------------------------------------

# wait_for WHAT TIMEOUT_S CMD...: run CMD every E2E_POLL seconds (default 0.5) until it exits 0;
# after TIMEOUT_S fail with WHAT and CMD's last output. CMD may be a shell function.
wait_for() {
	local what=$1 timeout=$2 out
	shift 2
	local deadline=$((SECONDS + timeout))
	while :; do
		out=$("$@" 2>&1) && return 0
		[ $SECONDS -lt $deadline ] ||
			fail "timed out after ${timeout}s waiting for $what; last output of '$*':" "$out"
		sleep "${E2E_POLL:-0.5}"
	done
}

# expect_fail_with TEXT CMD...: CMD must exit non-zero and print TEXT (stdout or stderr).
expect_fail_with() {
	local text=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "'$*' succeeded but was expected to fail with '$text'; output:" "$out"
	fi
	case $out in
	*"$text"*) ;;
	*) fail "'$*' failed, but its output lacks '$text':" "$out" ;;
	esac
}

# --- daemons -----------------------------------------------------------------------------------

# _proc_stat PID: "STATE START" of process PID from one read of /proc/PID/stat (a zombie
# reaped between two reads must not look alive); START, in clock ticks since boot, names one
# process for good with the PID, so a recycled PID is never signalled.
_proc_stat() {
	local stat fields
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) } # the command name may hold spaces and parentheses
	read -ra fields <<<"$stat"
	echo "${fields[0]} ${fields[19]}" # fields 3 and 22 of proc_pid_stat(5)
}
_proc_start() {
	local st
	st=$(_proc_stat "$1") || return 1
	echo "${st#* }"
}

# _daemon_alive PIDFILE: its process is alive (not a zombie) and is the one that was started.
_daemon_alive() {
	local pid start st
	read -r pid start <"$1" 2>/dev/null || return 1
	st=$(_proc_stat "$pid") || return 1
	[ "${st#* }" = "$start" ] && [ "${st%% *}" != Z ]
}

# _daemon_stop PIDFILE: TERM, wait up to 10 s, KILL; prints and returns the exit status when it
# is known (the daemon is our child), 0 otherwise.
_daemon_stop() {
	local f=$1 pid start rc=0
	read -r pid start <"$f" 2>/dev/null || return 0
	if _daemon_alive "$f"; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			_daemon_alive "$f" || break
			sleep 0.1
		done
		! _daemon_alive "$f" || kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || rc=$?
	rm -f "$f"
	echo $rc
}

# start_daemon NAME CMD...: start CMD in the background with its output in
# $E2E_DIR/daemons/NAME.log; stopped by stop_daemon or when the test exits.
start_daemon() {
	local name=$1
	shift
	e2e_dir
	local f=$E2E_DIR/daemons/$name.pid
	_daemon_alive "$f" 2>/dev/null && fail "start_daemon: $name is already running"
	# A session of its own: a signal to the test's process group (Ctrl-C, run.sh's timeout) must
	# not kill it behind the test's back; the test stops it, and run.sh if the test was killed.
	(
		for fd in "/proc/$BASHPID/fd"/*; do # keep no descriptor of the test's but 0-2
			fd=${fd##*/}
			[ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null
		done
		exec setsid "$@" </dev/null >"$E2E_DIR/daemons/$name.log" 2>&1
	) &
	echo "$! $(_proc_start $!)" >"$f"
}

# daemon_running NAME: the daemon started as NAME is still running.
daemon_running() { _daemon_alive "$E2E_DIR/daemons/$1.pid"; }

# stop_daemon NAME: stop it. Fails the test if it had already exited on its own with a non-zero
# status (a crash nobody noticed) or if its log holds a sanitizer report.
stop_daemon() {
	local f=$E2E_DIR/daemons/$1.pid log=$E2E_DIR/daemons/$1.log rc=0
	[ -f "$f" ] || fail "stop_daemon: no daemon named $1"
	if _daemon_alive "$f"; then
		_daemon_stop "$f" >/dev/null
	else
		rc=$(_daemon_stop "$f")
	fi
	[ "$rc" = 0 ] || fail "daemon $1 had exited with status $rc (log: $log)"
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
		fail "daemon $1 logged a sanitizer report (log: $log)"
	fi
}
