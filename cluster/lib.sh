# shellcheck shell=bash
# cluster/lib.sh - the process helpers shared by cluster/up.sh, cluster/down.sh and
# cluster/restart-apiserver.sh (sourced, not run). They read DIR (the cluster folder, absolute)
# and RUN (DIR/run, where each daemon's PID is recorded as NAME.pid) when called.

# pid_of NAME: the PID recorded for NAME if that process is alive and is this cluster's (its
# command line names DIR; a zombie's is empty), so a recycled PID is never touched.
pid_of() {
	local pid cmd
	pid=$(cat "$RUN/$1.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	# Read whole, then matched: "tr | grep -q" under pipefail fails when grep stops reading
	# before tr's last write (SIGPIPE), and a live daemon looked dead on a loaded machine.
	cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	[[ $cmd == *"$DIR/"* ]] || return 1
	echo "$pid"
}

# alive NAME: the process recorded for NAME is alive and is this cluster's (pid_of, silent).
alive() { pid_of "$1" >/dev/null; }

# any_alive NAME...: one of the NAMEs is alive.
any_alive() {
	local name
	for name in "$@"; do
		alive "$name" && return 0
	done
	return 1
}

# wait_gone TRIES NAME...: poll every 0.1 s, at most TRIES times, until no NAME is alive; fails
# when one still is after the last poll.
wait_gone() {
	local tries=$1 _
	shift
	for _ in $(seq 1 "$tries"); do
		any_alive "$@" || return 0
		sleep 0.1
	done
	! any_alive "$@"
}
