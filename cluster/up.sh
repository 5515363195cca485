#!/usr/bin/env bash
# Start a local Kubernetes v1.20.2 control plane on 127.0.0.1 with everything inside DIR:
# etcd, kube-apiserver, kube-controller-manager and, when asked, kube-scheduler.
#
#   cluster/up.sh DIR [--with-kube-scheduler] [--rbac]
#   CALDERA_APISERVER_ARGS="...": more kube-apiserver flags (e.g. an audit log for a benchmark).
#
# Ports are picked at random among the free ones; a daemon that loses the race for its port to
# another process is restarted on new ports, so several clusters can start side by side. The
# kubeconfig path is printed on the last line of stdout; progress and errors go to stderr.
# See cluster/README.md for the layout of DIR.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KVER=1.20.2
CACHE=${CALDERA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}
KUBE_BIN=${CALDERA_KUBE_BIN:-$CACHE/kubernetes-$KVER/bin}
ETCD=${CALDERA_ETCD:-etcd}
TIMEOUT=${CLUSTER_UP_TIMEOUT:-120}
SERVICE_CIDR=10.96.0.0/12
SERVICE_IP=10.96.0.1 # the first address of SERVICE_CIDR: the `kubernetes` Service
ISSUER=https://kubernetes.default.svc.cluster.local
# shellcheck source=cluster/lib.sh
. "$HERE/lib.sh"

say() { printf 'cluster/up: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() {
	echo "usage: cluster/up.sh DIR [--with-kube-scheduler] [--rbac]" >&2
	exit 2
}

DIR=
WITH_SCHED=0
AUTHZ=AlwaysAllow
for arg in "$@"; do
	case $arg in
	--with-kube-scheduler) WITH_SCHED=1 ;;
	--rbac) AUTHZ=RBAC ;;
	-h | --help) usage ;;
	-*) say "unknown option '$arg'" && usage ;;
	*)
		[ -z "$DIR" ] || usage
		DIR=$arg
		;;
	esac
done
[ -n "$DIR" ] || usage

for b in kube-apiserver kube-controller-manager kube-scheduler; do
	[ -x "$KUBE_BIN/$b" ] || die "$KUBE_BIN/$b is missing: run cluster/build.sh first (make cluster-build)"
done
for tool in "$ETCD" openssl curl setsid flock ss base64; do
	command -v "$tool" >/dev/null || die "'$tool' is missing (make deps installs it)"
done

# DIR is new, empty, or a cluster folder from an earlier up.sh: never someone's other files.
if [ -e "$DIR" ] && ! [ -f "$DIR/.caldera-cluster" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
	die "$DIR exists and is not a cluster folder (no .caldera-cluster): choose a new or empty folder"
fi
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd -P)
PKI=$DIR/pki
LOGS=$DIR/logs
RUN=$DIR/run
mkdir -p "$PKI" "$LOGS" "$RUN"
chmod 700 "$DIR"
touch "$DIR/.caldera-cluster" # down.sh --purge only removes folders carrying this mark

# One up.sh or down.sh at a time per DIR.
exec 8>"$DIR/.lock"
flock -n 8 || die "another cluster/up.sh or cluster/down.sh is working on $DIR"

for name in etcd kube-apiserver kube-controller-manager kube-scheduler; do
	if alive "$name"; then
		die "$DIR already has a running cluster ($name is PID $(cat "$RUN/$name.pid")); stop it with cluster/down.sh $DIR"
	fi
	rm -f "$RUN/$name.pid"
done

started=()
ok=0
on_exit() {
	if [ "$ok" != 1 ] && [ ${#started[@]} -gt 0 ]; then
		say "stopping what was started (state and logs kept in $DIR)"
		flock -u 8
		"$HERE/down.sh" "$DIR" >&2 || true
	fi
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- certificates and credentials -------------------------------------------------------------
# Made once per DIR: a restarted cluster keeps its CA, so existing kubeconfigs stay valid.
gen_pki() {
	local tmp=$PKI/tmp
	rm -rf "$tmp" && mkdir -p "$tmp"
	(
		cd "$tmp"
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
			-keyout ca.key -out ca.crt -subj "/CN=caldera-local-ca" \
			-addext "basicConstraints=critical,CA:TRUE" \
			-addext "keyUsage=critical,keyCertSign,cRLSign"
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver"
		cat >apiserver.ext <<-EOF
			basicConstraints=critical,CA:FALSE
			keyUsage=critical,digitalSignature,keyEncipherment
			extendedKeyUsage=serverAuth
			subjectAltName=IP:127.0.0.1,IP:$SERVICE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
		EOF
		openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-days 3650 -extfile apiserver.ext -out apiserver.crt
		openssl genrsa -out sa.key 2048
		openssl rsa -in sa.key -pubout -out sa.pub
		chmod 600 ./*.key
	) >"$LOGS/pki.log" 2>&1 || die "openssl failed (log: $LOGS/pki.log)"
	mv "$tmp"/ca.crt "$tmp"/ca.key "$tmp"/apiserver.crt "$tmp"/apiserver.key "$tmp"/sa.key "$tmp"/sa.pub "$PKI/"
	rm -rf "$tmp"
}
if ! [ -s "$PKI/ca.crt" ] || ! [ -s "$PKI/apiserver.crt" ] || ! [ -s "$PKI/sa.key" ] || ! [ -s "$PKI/sa.pub" ]; then
	gen_pki
fi

# tokens.csv: token,user,uid,"groups". The controller manager runs every controller under its own
# identity (--use-service-account-credentials=false), so it needs system:masters under --rbac too;
# the scheduler's bootstrap ClusterRole is enough for it. caldera-oidc's token has the shape of an
# OIDC id-token (a JWT whose exp is 2100-01-01, unsigned: the API server only compares it), so
# a kubeconfig with the oidc auth-provider can use it (tests/e2e/test_kube_exec.sh).
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
if ! [ -s "$DIR/tokens.csv" ]; then
	umask_old=$(umask) && umask 077
	{
		echo "$(openssl rand -hex 24),admin,admin,\"system:masters\""
		echo "$(openssl rand -hex 24),system:kube-controller-manager,kube-controller-manager,\"system:masters\""
		echo "$(openssl rand -hex 24),system:kube-scheduler,kube-scheduler"
		printf '%s.%s.%s,caldera-oidc,caldera-oidc,"system:masters"\n' \
			"$(printf '{"alg":"none","typ":"JWT"}' | b64url)" \
			"$(printf '{"exp":4102444800,"jti":"%s"}' "$(openssl rand -hex 12)" | b64url)" \
			"$(openssl rand -hex 16)"
	} >"$DIR/tokens.csv"
	umask "$umask_old"
fi
token_of() { awk -F, -v u="$1" '$2 == u { print $1 }' "$DIR/tokens.csv"; }
ADMIN_TOKEN=$(token_of admin)
[ -n "$ADMIN_TOKEN" ] || die "no admin token in $DIR/tokens.csv"

# write_kubeconfig FILE USER PORT
write_kubeconfig() {
	local file=$1 user=$2 port=$3
	local tmp=$file.tmp
	(umask 077 && cat >"$tmp") <<-EOF
		apiVersion: v1
		kind: Config
		clusters:
		- name: caldera
		  cluster:
		    server: https://127.0.0.1:$port
		    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
		users:
		- name: $user
		  user:
		    token: $(token_of "$user")
		contexts:
		- name: caldera
		  context:
		    cluster: caldera
		    user: $user
		    namespace: default
		current-context: caldera
	EOF
	mv "$tmp" "$file"
}

# --- ports ----------------------------------------------------------------------------------------
# Below the kernel's ephemeral range so outgoing connections never hold one of our ports.
in_use() { ss -Htln 2>/dev/null | awk '{ print $4 }' | grep -q ":$1\$"; }
declare -A taken=()
# take_port VAR [OLD]: set VAR to OLD if it is still free (a restarted cluster keeps its ports,
# so kubeconfigs keep working), else to a random free port not taken by this script yet.
take_port() {
	local var=$1 p=${2:-}
	if [ -n "$p" ] && [ -z "${taken[$p]:-}" ] && ! in_use "$p"; then
		taken[$p]=1
		printf -v "$var" '%s' "$p"
		return 0
	fi
	for _ in $(seq 1 200); do
		p=$((10000 + (RANDOM * 32768 + RANDOM) % 22000))
		[ -z "${taken[$p]:-}" ] || continue
		in_use "$p" && continue
		taken[$p]=1
		printf -v "$var" '%s' "$p"
		return 0
	done
	die "found no free port after 200 tries"
}
ETCD_PORT='' ETCD_PEER_PORT='' APISERVER_PORT=''
# shellcheck disable=SC1091
[ -f "$DIR/cluster.env" ] && . "$DIR/cluster.env"

# --- daemons --------------------------------------------------------------------------------------
# launch NAME CMD...: run CMD in its own session, detached from this script, logging to
# logs/NAME.log and recording its PID in run/NAME.pid.
declare -A log_start=()
launch() {
	local name=$1
	shift
	log_start[$name]=$(($(stat -c %s "$LOGS/$name.log" 2>/dev/null || echo 0) + 1))
	printf '=== %s: %s\n' "$(date -u +%FT%TZ)" "$*" >>"$LOGS/$name.log"
	# The daemon keeps no descriptor of ours beyond 0-2: not the lock on DIR/.lock, nor a pipe of
	# the caller's (whose reader would wait for the daemon to exit).
	(
		for fd in "/proc/$BASHPID/fd"/*; do
			fd=${fd##*/}
			[ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null
		done
		exec setsid "$@" </dev/null >>"$LOGS/$name.log" 2>&1
	) &
	local pid=$! _ cmd
	echo "$pid" >"$RUN/$name.pid"
	started+=("$name")
	# Until the subshell has closed its descriptors and exec'd, its command line is this
	# script's, which alive (pid_of) does not take for the daemon: a loaded machine made the
	# first health poll see a live daemon as "exited during start-up". Wait for the exec.
	for _ in $(seq 1 200); do
		cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) && [[ $cmd == *"$1"* ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
}

# stop_one NAME: TERM then KILL the daemon in run/NAME.pid (used when retrying on new ports).
stop_one() {
	local pid
	pid=$(cat "$RUN/$1.pid" 2>/dev/null) || return 0
	if alive "$1"; then
		kill -TERM "$pid" 2>/dev/null || true
		wait_gone 50 "$1" || kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null || true
	rm -f "$RUN/$1.pid"
}

# lost_port_race NAME: the daemon died and what it logged since launch says it could not bind.
lost_port_race() {
	! alive "$1" && tail -c "+${log_start[$1]}" "$LOGS/$1.log" | grep -q 'address already in use'
}

# recent_log NAME: the last lines NAME logged since it was launched.
recent_log() { tail -c "+${log_start[$1]}" "$LOGS/$1.log" | tail -n 25 | sed 's/^/    /' >&2; }

died() {
	say "$1 exited during start-up; last lines of $LOGS/$1.log:"
	recent_log "$1"
	die "$1 did not start (full log: $LOGS/$1.log)"
}

# wait_until NAME WHAT CMD...: poll CMD until it succeeds while NAME stays alive; returns 1 if
# NAME lost a port race, dies with its log otherwise.
wait_until() {
	local name=$1 what=$2
	shift 2
	local deadline=$((SECONDS + TIMEOUT))
	# In a subshell: a signal trap must not run with this shell's stderr sent to /dev/null.
	while ! ("$@") >/dev/null 2>&1; do
		if ! alive "$name"; then
			lost_port_race "$name" && return 1
			died "$name"
		fi
		if [ $SECONDS -ge $deadline ]; then
			say "timed out after ${TIMEOUT}s waiting for $what; last lines of $LOGS/$name.log:"
			recent_log "$name"
			die "$what: not ready after ${TIMEOUT}s (full log: $LOGS/$name.log; CLUSTER_UP_TIMEOUT raises the limit)"
		fi
		sleep 0.2
	done
}

start_etcd() {
	launch etcd "$ETCD" --name=default --data-dir="$DIR/etcd" \
		--listen-client-urls="http://127.0.0.1:$ETCD_PORT" \
		--advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
		--listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-cluster="default=http://127.0.0.1:$ETCD_PEER_PORT" \
		--logger=zap --log-outputs=stderr --log-level=warn
}
etcd_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'; }

start_apiserver() {
	launch kube-apiserver "$KUBE_BIN/kube-apiserver" \
		--bind-address=127.0.0.1 --secure-port="$APISERVER_PORT" --insecure-port=0 \
		--cert-dir="$PKI" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
		--etcd-servers="http://127.0.0.1:$ETCD_PORT" \
		--token-auth-file="$DIR/tokens.csv" --authorization-mode="$AUTHZ" \
		--service-account-issuer="$ISSUER" --api-audiences="$ISSUER" \
		--service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
		--service-cluster-ip-range="$SERVICE_CIDR" \
		--disable-admission-plugins=ServiceAccount --endpoint-reconciler-type=none \
		--allow-privileged=true --profiling=false ${CALDERA_APISERVER_ARGS:-}
}
apiserver_get() {
	curl -fsS --max-time 5 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $ADMIN_TOKEN" \
		"https://127.0.0.1:$APISERVER_PORT$1"
}
apiserver_ready() { [ "$(apiserver_get /readyz)" = ok ]; }

# etcd, then kube-apiserver; a lost port race restarts the daemon on new ports.
attempt=0
while :; do
	attempt=$((attempt + 1))
	[ $attempt -le 5 ] || die "lost the race for free ports 5 times; giving up"
	take_port ETCD_PORT "$ETCD_PORT"
	take_port ETCD_PEER_PORT "$ETCD_PEER_PORT"
	say "starting etcd on 127.0.0.1:$ETCD_PORT"
	start_etcd
	if ! wait_until etcd "etcd on 127.0.0.1:$ETCD_PORT" etcd_healthy; then
		say "etcd lost its port to another process; retrying on new ports"
		stop_one etcd
		ETCD_PORT='' ETCD_PEER_PORT=''
		continue
	fi
	break
done
attempt=0
while :; do
	attempt=$((attempt + 1))
	[ $attempt -le 5 ] || die "lost the race for a free port 5 times; giving up"
	take_port APISERVER_PORT "$APISERVER_PORT"
	say "starting kube-apiserver on https://127.0.0.1:$APISERVER_PORT"
	start_apiserver
	if ! wait_until kube-apiserver "kube-apiserver /readyz" apiserver_ready; then
		say "kube-apiserver lost its port to another process; retrying on a new port"
		stop_one kube-apiserver
		APISERVER_PORT=''
		continue
	fi
	break
done
printf 'ETCD_PORT=%s\nETCD_PEER_PORT=%s\nAPISERVER_PORT=%s\n' \
	"$ETCD_PORT" "$ETCD_PEER_PORT" "$APISERVER_PORT" >"$DIR/cluster.env"
write_kubeconfig "$DIR/kubeconfig" admin "$APISERVER_PORT"
write_kubeconfig "$DIR/kube-controller-manager.kubeconfig" system:kube-controller-manager "$APISERVER_PORT"
write_kubeconfig "$DIR/kube-scheduler.kubeconfig" system:kube-scheduler "$APISERVER_PORT"

# Neither daemon listens on any port (--secure-port=0 --port=0): nothing to race for.
say "starting kube-controller-manager"
launch kube-controller-manager "$KUBE_BIN/kube-controller-manager" \
	--kubeconfig="$DIR/kube-controller-manager.kubeconfig" \
	--controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token \
	--service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
	--use-service-account-credentials=false --leader-elect=false --secure-port=0 --port=0
if [ $WITH_SCHED = 1 ]; then
	say "starting kube-scheduler"
	launch kube-scheduler "$KUBE_BIN/kube-scheduler" \
		--kubeconfig="$DIR/kube-scheduler.kubeconfig" --leader-elect=false \
		--secure-port=0 --port=0
fi

# The apiserver makes the `default` namespace; the controller manager's serviceaccount
# controller then makes its `default` ServiceAccount, which shows that it is running.
wait_until kube-apiserver "the default namespace" apiserver_get /api/v1/namespaces/default
wait_until kube-controller-manager "the default ServiceAccount (made by kube-controller-manager)" \
	apiserver_get /api/v1/namespaces/default/serviceaccounts/default
if [ $WITH_SCHED = 1 ]; then
	alive kube-scheduler || died kube-scheduler
fi

ok=1
extra=
[ $WITH_SCHED = 1 ] && extra=", kube-scheduler"
say "cluster up in $DIR (kube-apiserver https://127.0.0.1:$APISERVER_PORT, authorization $AUTHZ$extra) after ${SECONDS}s"
echo "$DIR/kubeconfig"
