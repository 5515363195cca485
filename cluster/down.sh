#!/usr/bin/env bash
# Stop the local cluster in DIR (started by cluster/up.sh) by the PIDs it recorded.
#
#   cluster/down.sh DIR [--purge]
#
# Each daemon gets SIGTERM, then SIGKILL after CLUSTER_DOWN_TIMEOUT seconds (default 15). Exits
# non-zero if a process of this cluster is still alive afterwards. State (etcd data,
# certificates, logs) is kept for the next cluster/up.sh DIR unless --purge is given, which
# removes DIR. Running it again, or on a DIR with no cluster, does nothing and succeeds.
set -euo pipefail

TIMEOUT=${CLUSTER_DOWN_TIMEOUT:-15}
# shellcheck source=cluster/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { printf 'cluster/down: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() {
	echo "usage: cluster/down.sh DIR [--purge]" >&2
	exit 2
}

DIR=
PURGE=0
for arg in "$@"; do
	case $arg in
	--purge) PURGE=1 ;;
	-h | --help) usage ;;
	-*) say "unknown option '$arg'" && usage ;;
	*)
		[ -z "$DIR" ] || usage
		DIR=$arg
		;;
	esac
done
[ -n "$DIR" ] || usage

if ! [ -d "$DIR" ]; then
	say "$DIR does not exist: nothing to stop"
	exit 0
fi
DIR=$(cd "$DIR" && pwd -P)
[ -f "$DIR/.caldera-cluster" ] || die "$DIR is not a cluster folder made by cluster/up.sh (no .caldera-cluster)"
RUN=$DIR/run

exec 8>"$DIR/.lock"
flock -w 60 8 || die "another cluster/up.sh or cluster/down.sh holds $DIR/.lock"

# stop NAME...: TERM all, wait for all up to TIMEOUT, then KILL the rest.
stopped=0
stop() {
	local name pid
	for name in "$@"; do
		if pid=$(pid_of "$name"); then
			say "stopping $name (PID $pid)"
			stopped=$((stopped + 1))
			kill -TERM "$pid" 2>/dev/null || true
		fi
	done
	wait_gone $((TIMEOUT * 10)) "$@" && return 0
	for name in "$@"; do
		if pid=$(pid_of "$name"); then
			say "$name (PID $pid) ignored SIGTERM for ${TIMEOUT}s: sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	wait_gone 50 "$@" || true
}

# The clients of kube-apiserver first, then kube-apiserver, then its storage.
stop kube-scheduler kube-controller-manager
stop kube-apiserver
stop etcd

remaining=
for name in kube-scheduler kube-controller-manager kube-apiserver etcd; do
	if pid=$(pid_of "$name"); then
		remaining="$remaining $name(PID $pid)"
	else
		rm -f "$RUN/$name.pid"
	fi
done
[ -z "$remaining" ] || die "still running after SIGKILL:$remaining"

what=stopped
[ $stopped -gt 0 ] || what="nothing was running"
if [ $PURGE = 1 ]; then
	rm -rf "$DIR"
	say "$what; removed $DIR"
else
	say "$what; state kept in $DIR (cluster/up.sh $DIR restarts it, --purge removes it)"
fi
