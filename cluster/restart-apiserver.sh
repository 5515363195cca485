#!/usr/bin/env bash
# Restart the kube-apiserver of the local cluster in DIR (started by cluster/up.sh) with the very
# same command line, and wait until it is ready again. Clients see their connections and watches
# break and must reconnect: the e2e tests use it to check that they do.
#
#   cluster/restart-apiserver.sh DIR [--bump-etcd] [--down-seconds S]
#
# --bump-etcd      while the server is down, write a key straight into etcd (outside /registry,
#                  so no API object changes): the revision moves on, and the restarted server's
#                  watch cache starts past every resourceVersion its clients hold, so their
#                  re-watches get 410 "too old resource version", as after a real outage during
#                  which other clients wrote.
# --down-seconds S keep the server down S seconds (default 2) before starting it again.
#
# The server gets SIGTERM (SIGKILL after CLUSTER_DOWN_TIMEOUT seconds, default 15); the new one
# is started in its own session like up.sh starts it, logs to DIR/logs/kube-apiserver.log after
# a "=== <time>: <command line>" line, and gets its PID in DIR/run/kube-apiserver.pid, so
# cluster/down.sh stops it as usual. Exits non-zero when the server is not running, does not
# stop, or is not ready within CLUSTER_UP_TIMEOUT seconds (default 120).
set -euo pipefail

TIMEOUT=${CLUSTER_UP_TIMEOUT:-120}
DOWN_TIMEOUT=${CLUSTER_DOWN_TIMEOUT:-15}
# shellcheck source=cluster/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { printf 'cluster/restart-apiserver: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() {
	echo "usage: cluster/restart-apiserver.sh DIR [--bump-etcd] [--down-seconds S]" >&2
	exit 2
}

DIR=
BUMP=0
DOWN=2
while [ $# -gt 0 ]; do
	case $1 in
	--bump-etcd) BUMP=1 ;;
	--down-seconds)
		[ $# -ge 2 ] || usage
		DOWN=$2
		shift
		;;
	-h | --help) usage ;;
	-*) say "unknown option '$1'" && usage ;;
	*)
		[ -z "$DIR" ] || usage
		DIR=$1
		;;
	esac
	shift
done
[ -n "$DIR" ] || usage
[[ $DOWN =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--down-seconds wants a number of seconds, not '$DOWN'"
[ -d "$DIR" ] || die "$DIR does not exist"
DIR=$(cd "$DIR" && pwd -P)
[ -f "$DIR/.caldera-cluster" ] || die "$DIR is not a cluster folder made by cluster/up.sh (no .caldera-cluster)"
RUN=$DIR/run
LOG=$DIR/logs/kube-apiserver.log

exec 8>"$DIR/.lock"
flock -w 60 8 || die "another cluster script holds $DIR/.lock"

pid=$(pid_of kube-apiserver) || die "kube-apiserver of $DIR is not running"
# The command line exactly as it was started (arguments may not hold NUL bytes, so this is
# lossless).
mapfile -d '' argv <"/proc/$pid/cmdline"
[ ${#argv[@]} -gt 0 ] || die "cannot read the command line of PID $pid"
# shellcheck disable=SC1091
. "$DIR/cluster.env"
if [ -z "${APISERVER_PORT:-}" ] || [ -z "${ETCD_PORT:-}" ]; then
	die "no ports in $DIR/cluster.env"
fi
TOKEN=$(awk -F, '$2 == "admin" { print $1 }' "$DIR/tokens.csv")

say "stopping kube-apiserver (PID $pid)"
kill -TERM "$pid" 2>/dev/null || true
if ! wait_gone $((DOWN_TIMEOUT * 10)) kube-apiserver; then
	say "kube-apiserver ignored SIGTERM for ${DOWN_TIMEOUT}s: sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
	wait_gone 50 kube-apiserver || die "kube-apiserver (PID $pid) survived SIGKILL"
fi
rm -f "$RUN/kube-apiserver.pid"

if [ $BUMP = 1 ]; then
	# etcd v3's JSON gateway: keys and values are base64.
	key=$(printf '/caldera/restart-apiserver' | base64 -w0)
	val=$(date -u +%FT%T.%NZ | base64 -w0)
	out=$(curl -fsS --max-time 5 -X POST "http://127.0.0.1:$ETCD_PORT/v3/kv/put" \
		-d "{\"key\":\"$key\",\"value\":\"$val\"}") || die "cannot write to etcd on port $ETCD_PORT"
	rev=$(printf '%s' "$out" | sed -n 's/.*"revision":"\([0-9]*\)".*/\1/p')
	say "wrote to etcd while kube-apiserver was down (revision ${rev:-?})"
fi
sleep "$DOWN"

# Started as up.sh's launch() does: its own session, no descriptor of ours beyond 0-2.
printf '=== %s: %s\n' "$(date -u +%FT%TZ)" "${argv[*]}" >>"$LOG"
(
	for fd in "/proc/$BASHPID/fd"/*; do
		fd=${fd##*/}
		[ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null
	done
	exec setsid "${argv[@]}" </dev/null >>"$LOG" 2>&1
) &
newpid=$!
echo "$newpid" >"$RUN/kube-apiserver.pid"
say "started kube-apiserver again (PID $newpid)"

deadline=$((SECONDS + TIMEOUT))
until [ "$(curl -fsS --max-time 5 --cacert "$DIR/pki/ca.crt" -H "Authorization: Bearer $TOKEN" \
	"https://127.0.0.1:$APISERVER_PORT/readyz" 2>/dev/null)" = ok ]; do
	pid_of kube-apiserver >/dev/null || die "kube-apiserver exited during start-up (log: $LOG)"
	[ $SECONDS -lt $deadline ] || die "kube-apiserver not ready after ${TIMEOUT}s (log: $LOG)"
	sleep 0.2
done
say "kube-apiserver ready on https://127.0.0.1:$APISERVER_PORT after ${SECONDS}s"
