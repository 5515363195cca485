#!/usr/bin/env bash
# bench_sched_e2e.sh - scheduling throughput through the local kube-apiserver, end to end.
#
#   bench/bench_sched_e2e.sh [--pods N] [--nodes M] [--group-size G] [--runs R]
#                            [--variants "raw kube volcano caldera"] [--bind-threads T]
#                            [--volcano-seconds S] [--stream-pods P] [--stream-rate R]
#                            [--deadlock-rounds K] [--only throughput|deadlock] [--keep]
#
# Throughput (defaults: 10,000 pods, 500 nodes, one-pod groups, 1 run). For each variant, in
# this order, a fresh cluster (cluster/up.sh, no kube-scheduler) gets M vc-nodesim nodes (8 CPU,
# 32 GiB, 110 pods; vc-nodesim is stopped once they are Ready, so no pod status write competes
# with the binds: the nodes stay Ready, nothing marks them otherwise) and N pending pods
# (100m CPU, 64 Mi each, created by build/bench/bind_raw with 16 threads; creation is not timed).
# Then the binder starts while `bind_raw watch` watches the pods; the rate is (N - 1) / (time
# the watch saw the last pod get spec.nodeName - time it saw the first):
#
#   raw      bind_raw bind: T threads POSTing pods/<name>/binding round robin over the nodes
#            (qps 2000, burst 2000), no decisions, no other writes: the server's bind rate
#   kube     kube-scheduler v1.20.2, default-scheduler pods, --kube-api-qps 2000
#            --kube-api-burst 2000 (its defaults are 50 and 100)
#   volcano  Volcano v1.7.0's vc-scheduler (VOLCANO_BIN, default what ../shared/volcano/build.sh
#            builds), its default configuration (no --scheduler-conf), --kube-api-qps 2000
#            --kube-api-burst 2000, the same pods and PodGroups as caldera; the cluster also gets
#            Volcano's numatopologies CRD (v1.7 waits for that informer) and the default queue.
#            Volcano binds ~24 pods/s here: its run stops after S seconds (--volcano-seconds,
#            default 120) and the report says how many pods it had bound by then
#   caldera  build/vc-controller, scheduler only, Volcano's default configuration, pods with
#            schedulerName volcano in PodGroups of G (minMember G, queue default, created first),
#            --kube-api-qps 2000 --kube-api-burst 2000, plus BENCH_VC_ARGS (e.g. "--bind-workers 32")
#
# Then, for the variants that bound all N pods, a stream: P more pods (--stream-pods, default
# 2000, in their own PodGroups of G) created at R pods/s (--stream-rate, default the raw rate
# measured in the same run, else 250) while the scheduler runs. `bind_raw watch` timestamps each
# pod's ADDED event and the event that shows it bound (its own clock, ms resolution: the API's
# creationTimestamp and PodScheduled lastTransitionTime are whole seconds), and the report gives
# p50/p99 of that creation -> bind latency and the rate the pods were actually created at (the
# API server may not keep up with R). For raw, the stream has the same pods and PodGroups as
# caldera's (schedulerName volcano, groups of G), asked at the raw rate it just measured, and
# `bind_raw bind --follow P` binds each pod as soon as its ADDED event arrives (T threads, round
# robin, qps/burst 2000): what the API server sustains for create + bind, no decisions.
#
# The report gives pods/s, the ratio to raw and to Volcano, the time from the binder's start to
# its first bind, p50/p99 creation -> bind of the stream, the binder's peak RSS (over both
# phases) and its CPU seconds (throughput phase), the API server's and etcd's CPU seconds in
# the throughput phase ("server s"; the log also gives the requests by verb and resource and
# per pod bound), then checks the floors (PASS/FAIL): Caldera's start -> first bind <= 1 s,
# stream p99 <= 2 s with pods created at >= 0.95 x the raw bind rate, stream p99 <= 2 s with
# pods created at >= 0.95 x the rate the raw stream's pods were created at, >= 0.95 x raw,
# >= 10 x Volcano, peak RSS <= 128 MiB. With raw and caldera, a "ceiling" line gives per run the
# most that any binder sending Caldera's requests could reach against raw on this machine if it
# took no CPU itself, and if it took only bind_raw's (the server's and the benchmark's watch's CPU
# seconds for Caldera's binds over every CPU). With --runs R each variant is measured R times
# (medians; ratios of medians of the same invocation).
#
# Gang deadlock (--deadlock-rounds K, default 10): one cluster with kube-scheduler, 2 nodes x 2
# GPUs; K rounds of two PodGroups a and b (minMember 4) whose 4 one-GPU pods each are created
# interleaved a-0 b-0 a-1 b-1 ..., run until deleted; after the binds settle, the split of bound
# pods is recorded. First with kube-scheduler (default-scheduler pods), then the same rounds with
# Caldera (schedulerName volcano).
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

PODS=10000 NODES=500 GROUP=1 RUNS=1 VARIANTS="raw kube volcano caldera" BIND_THREADS=16
ROUNDS=10 ONLY="" KEEP=0 VOLCANO_SECONDS=120 STREAM_PODS=2000 STREAM_RATE=
while [ $# -gt 0 ]; do
	case $1 in
	--pods) PODS=$2 && shift ;;
	--nodes) NODES=$2 && shift ;;
	--group-size) GROUP=$2 && shift ;;
	--runs) RUNS=$2 && shift ;;
	--variants) VARIANTS=$2 && shift ;;
	--bind-threads) BIND_THREADS=$2 && shift ;;
	--volcano-seconds) VOLCANO_SECONDS=$2 && shift ;;
	--stream-pods) STREAM_PODS=$2 && shift ;;
	--stream-rate) STREAM_RATE=$2 && shift ;;
	--deadlock-rounds) ROUNDS=$2 && shift ;;
	--only) ONLY=$2 && shift ;;
	--keep) KEEP=1 ;;
	*) echo "usage: bench/bench_sched_e2e.sh [--pods N] [--nodes M] [--group-size G] [--runs R] [--variants LIST] [--bind-threads T] [--volcano-seconds S] [--stream-pods P] [--stream-rate R] [--deadlock-rounds K] [--only throughput|deadlock] [--keep]" >&2 && exit 2 ;;
	esac
	shift
done

# --variants takes spaces or commas ("raw,caldera"); an unknown name is refused before any
# cluster starts (a variant that matched no binder used to wait out the whole watch timeout).
VARIANTS=${VARIANTS//,/ }
for v in $VARIANTS; do
	case $v in raw | kube | volcano | caldera) ;;
	*) echo "bench: unknown variant '$v' (raw, kube, volcano, caldera)" >&2 && exit 2 ;;
	esac
done

BUILD=${BENCH_BUILD:-build}
LIB=${BENCH_LIB:-$BUILD/libcaldera.a}
SIM=$BUILD/vc-nodesim
CTRL=${BENCH_CONTROLLER:-$BUILD/vc-controller}
BIND=build/bench/bind_raw
WORK=build/bench/sched_e2e
mkdir -p "$WORK" build/bench
if ! [ -f "$LIB" ] || ! [ -x "$SIM" ]; then
	echo "bench: $LIB or $SIM is missing: run make build" >&2
	exit 1
fi
if [ "$ONLY" != deadlock ] && [[ " $VARIANTS " == *" caldera "* ]] && ! [ -x "$CTRL" ]; then
	echo "bench: $CTRL is missing: run make build (or --variants \"raw kube\")" >&2
	exit 1
fi
if [ "$ONLY" != deadlock ] && [[ " $VARIANTS " == *" volcano "* ]]; then
	# ../shared/volcano beside the checkout (for a worktree: beside the main checkout)
	if [ -z "${VOLCANO_SHARED:-}" ]; then
		VOLCANO_SHARED=$ROOT/../shared/volcano
		[ -d "$VOLCANO_SHARED" ] ||
			VOLCANO_SHARED=$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir)/../../shared/volcano
	fi
	[ -n "${VOLCANO_BIN:-}" ] || VOLCANO_BIN=$("$VOLCANO_SHARED/build.sh" | tail -n 1)
	if ! [ -x "$VOLCANO_BIN/vc-scheduler" ] || ! [ -f "$VOLCANO_SHARED/volcano-development.yaml" ]; then
		echo "bench: Volcano's vc-scheduler ($VOLCANO_BIN) or $VOLCANO_SHARED/volcano-development.yaml is missing (set VOLCANO_BIN, VOLCANO_SHARED)" >&2
		exit 1
	fi
fi
read -r -a PKGS <<<"$(make -s --no-print-directory print-pkgs)" # the Makefile's list
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -O2 -g -D_GNU_SOURCE -Icommon -Wall -Wextra -Werror \
	$(pkg-config --cflags "${PKGS[@]}") bench/bind_raw.c "$LIB" \
	$(pkg-config --libs "${PKGS[@]}") -lpthread -lm -o "$BIND"
CALDERA_KUBE_BIN=$(cluster/build.sh | tail -n 1)
export CALDERA_KUBE_BIN

# --- processes we start, stopped by PID on exit ---------------------------------------------------
PIDS=()
CLUSTERS=()
stop_pid() { # PID: TERM, wait up to 10 s, KILL
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
cleanup() {
	local p c
	for p in "${PIDS[@]}"; do stop_pid "$p"; done
	for c in "${CLUSTERS[@]}"; do
		if [ "$KEEP" = 1 ]; then
			cluster/down.sh "$c" >/dev/null 2>&1 || true
		else
			cluster/down.sh "$c" --purge >/dev/null 2>&1 || true
		fi
	done
}
trap cleanup EXIT
trap 'echo "bench: line $LINENO failed: $BASH_COMMAND" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM
start() { # LOG CMD...: run CMD in the background (own session), output to LOG; sets $LAST_PID
	local log=$1
	shift
	setsid "$@" </dev/null >"$log" 2>&1 &
	LAST_PID=$!
	PIDS+=("$LAST_PID")
}
forget() { # PID: stop it and drop it from PIDS
	local p keep=()
	stop_pid "$1"
	for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
say() { printf '%s  %s\n' "$(date +%T)" "$*" >&2; }
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 10000))
		[ -n "$(ss -Htln "sport = :$p" 2>/dev/null)" ] || { echo "$p"; return; }
	done
}
peak_rss_mib() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "?"; }
# shellcheck source=bench/lib_server.sh
. "$ROOT/bench/lib_server.sh"
# cpu_s PID: user + system CPU seconds of the process so far (1 decimal), "?" once it is gone.
cpu_s() {
	local c
	c=$(proc_cpu_s "$1" 2>/dev/null) || { echo "?"; return 0; }
	calc %.1f "$c"
}

# cluster DIR [up.sh flags]: a fresh cluster with the CRDs; exports KUBECONFIG.
cluster() {
	local dir=$1
	shift
	[ ! -f "$dir/.caldera-cluster" ] || cluster/down.sh "$dir" --purge >/dev/null 2>&1 || true
	CLUSTERS+=("$dir")
	cluster/up.sh "$dir" "$@" >/dev/null 2>"$dir.up.log" || { cat "$dir.up.log" >&2; exit 1; }
	export KUBECONFIG=$dir/kubeconfig KUBECACHEDIR=$dir/kubectl-cache
	local crds out
	crds=$(kubectl apply -f crds/ -o name) || { echo "bench: kubectl apply -f crds/ failed" >&2; exit 1; }
	# A CRD without status yet makes kubectl wait fail at once ("accessor error"): retry.
	for _ in $(seq 1 30); do
		# shellcheck disable=SC2086 # one argument per CRD
		out=$(kubectl wait --for=condition=Established --timeout=60s $crds 2>&1) && return 0
		sleep 1
	done
	echo "bench: CRDs not Established: $out" >&2
	exit 1
}
# sim_nodes LOG COUNT RESOURCES [flags]: vc-nodesim until COUNT nodes are Ready; sets SIM_PID.
sim_nodes() {
	local log=$1 count=$2 res=$3
	shift 3
	start "$log" "$SIM" --kubeconfig "$KUBECONFIG" --nodes "$count:$res" --workers 8 \
		--heartbeat-period 600s "$@"
	SIM_PID=$LAST_PID
	until grep -qs "ready_nodes=$count " "$log"; do
		kill -0 "$SIM_PID" 2>/dev/null || { tail "$log" >&2; exit 1; }
		sleep 0.5
	done
}
# caldera DIR LOG: start vc-controller, scheduler only; sets LAST_PID.
caldera() {
	# No --scheduler-conf: the built-in default is Volcano's (test_sched_conf checks it).
	start "$2" "$CTRL" --kubeconfig "$KUBECONFIG" --kube-api-qps 2000 --kube-api-burst 2000 \
		--leader-elect=false --controllers=-job-controller,-pg-controller,-gc-controller \
		--enable-scheduler=true --scheduler-name volcano \
		--schedule-period 1s --enable-healthz=true --healthz-address "127.0.0.1:$(free_port)" \
		--listen-address "127.0.0.1:$(free_port)" ${BENCH_VC_ARGS:-}
}

# volcano_setup: what Volcano's own install has and vc-scheduler v1.7 needs on the cluster: the
# numatopologies CRD (it waits for that informer) and the default queue (Caldera's scheduler
# creates it itself).
volcano_setup() {
	awk -v RS='\n---\n' '/name: numatopologies.nodeinfo.volcano.sh/' \
		"$VOLCANO_SHARED/volcano-development.yaml" | kubectl apply -f - >/dev/null
	kubectl wait --for=condition=Established --timeout=60s crd/numatopologies.nodeinfo.volcano.sh >/dev/null
	printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: default}\nspec: {weight: 1, reclaimable: true}\n' |
		kubectl apply -f - >/dev/null
}
# volcano LOG: start Volcano's vc-scheduler with its default configuration; sets LAST_PID.
volcano() {
	start "$1" "$VOLCANO_BIN/vc-scheduler" --kubeconfig "$KUBECONFIG" --leader-elect=false \
		--kube-api-qps 2000 --kube-api-burst 2000 --schedule-period 1s \
		--enable-healthz --healthz-address "127.0.0.1:$(free_port)" \
		--listen-address "127.0.0.1:$(free_port)"
}

# --- throughput ----------------------------------------------------------------------------------

# measure VARIANT RUN: one measurement; sets RESULT="rate first_latency peak_rss cpu_seconds
# bound timed_out stream_p50 stream_p99 stream_rate server_cpu_seconds watch_cpu_seconds" (- where
# not measured; the watch's CPU is its last sample, up to 0.5 s before it ended).
measure() {
	local v=$1 run=$2 dir sched=default-scheduler group=0 t0 line rate first rss cpu pid tmo=900
	local bound timedout p50=- p99=- srate=- sline a0 e0 a1 e1 server wcpu=- w
	dir=$ROOT/$WORK/$v-$run
	rm -rf "$dir" && mkdir -p "$dir"
	say "$v run $run: cluster"
	cluster "$dir/cluster"
	[ "$v" != volcano ] || volcano_setup
	say "$v run $run: $NODES nodes"
	sim_nodes "$dir/nodesim.log" "$NODES" cpu=8,memory=32Gi,pods=110
	forget "$SIM_PID"
	case $v in caldera | volcano) sched=volcano && group=$GROUP ;; esac
	[ "$v" != volcano ] || tmo=$VOLCANO_SECONDS
	kubectl create namespace bench >/dev/null
	say "$v run $run: creating $PODS pods"
	"$BIND" create --kubeconfig "$KUBECONFIG" --namespace bench --count "$PODS" --threads 16 \
		--scheduler-name "$sched" --group-size "$group" >"$dir/create.out" 2>&1 ||
		{ cat "$dir/create.out" >&2; exit 1; }
	watch_start "$dir/watch.out" "$PODS" p "$tmo"
	local wpid=$LAST_PID
	read -r a0 e0 < <(server_cpu "$dir/cluster")
	server_requests "$dir/requests.0"
	say "$v run $run: binding"
	t0=$(now)
	case $v in
	raw)
		start "$dir/binder.log" "$BIND" bind --kubeconfig "$KUBECONFIG" --namespace bench \
			--nodes "$NODES" --threads "$BIND_THREADS" --qps 2000 --burst 2000 ;;
	kube)
		start "$dir/binder.log" "$CALDERA_KUBE_BIN/kube-scheduler" \
			--kubeconfig="$dir/cluster/kube-scheduler.kubeconfig" --leader-elect=false \
			--secure-port=0 --port=0 --kube-api-qps=2000 --kube-api-burst=2000 ;;
	volcano) volcano "$dir/binder.log" ;;
	caldera) caldera "$dir" "$dir/binder.log" ;;
	esac
	pid=$LAST_PID
	rss='?' cpu='?'
	sample() { # while the watch WPID runs: the binder's peak RSS and CPU, the watch's CPU
		while kill -0 "$1" 2>/dev/null; do
			[ "$v" = raw ] || kill -0 "$pid" 2>/dev/null ||
				{ echo "bench: the $v binder died:" >&2; tail -n 20 "$dir/binder.log" >&2; exit 1; }
			rss=$(peak_rss_mib "$pid")
			cpu=$(cpu_s "$pid")
			w=$(cpu_s "$1")
			[ "$w" = '?' ] || wcpu=$w
			sleep 0.5
		done
	}
	sample "$wpid"
	# The raw binder may have exited by now: then the last sample stands.
	line=$(cpu_s "$pid" 2>/dev/null)
	[ "$line" = '?' ] || cpu=$line
	wait "$wpid" 2>/dev/null || true
	read -r a1 e1 < <(server_cpu "$dir/cluster")
	server_requests "$dir/requests.1"
	line=$(grep '^bound=' "$dir/watch.out") ||
		{ echo "bench: $v: $(tail -n 1 "$dir/watch.out")" >&2; tail -n 20 "$dir/binder.log" >&2; exit 1; }
	say "$v run $run: $line"
	rate=$(field rate "$line")
	first=$(field first "$line")
	bound=$(field bound "$line")
	server=$(calc %.1f "$a1 - $a0 + $e1 - $e0")
	say "$v run $run: API server $(calc %.1f "$a1 - $a0") + etcd $(calc %.1f "$e1 - $e0") CPU s;" \
		"requests (per pod bound): $(server_request_diff "$dir/requests.0" "$dir/requests.1" "$bound")"
	timedout=$(field timeout "$line")
	if [ "$timedout" = 0 ] && [ "$STREAM_PODS" -gt 0 ]; then
		srate=${STREAM_RATE:-${RAW_RATE:-250}}
		local fpid=
		if [ "$v" = raw ]; then
			# The same pods and PodGroups as caldera's stream, at the rate just measured,
			# bound by bind_raw bind --follow as soon as the watch sees each one.
			srate=${STREAM_RATE:-$rate} sched=volcano group=$GROUP
			start "$dir/stream-binder.log" "$BIND" bind --kubeconfig "$KUBECONFIG" \
				--namespace bench --nodes "$NODES" --threads "$BIND_THREADS" --qps 2000 \
				--burst 2000 --follow "$STREAM_PODS" --timeout-seconds 300
			fpid=$LAST_PID
			until grep -qs '^following' "$dir/stream-binder.log"; do
				kill -0 "$fpid" 2>/dev/null || { cat "$dir/stream-binder.log" >&2; exit 1; }
				sleep 0.2
			done
		fi
		say "$v run $run: stream of $STREAM_PODS pods at $srate pods/s"
		watch_start "$dir/stream-watch.out" "$STREAM_PODS" s 300
		wpid=$LAST_PID
		start "$dir/stream-create.out" "$BIND" create --kubeconfig "$KUBECONFIG" --namespace bench \
			--count "$STREAM_PODS" --threads 64 --prefix s --rate "$srate" \
			--scheduler-name "$sched" --group-size "$group"
		local cpid=$LAST_PID
		local cpu1=$cpu
		sample "$wpid"
		cpu=$cpu1
		wait "$cpid" 2>/dev/null || true
		wait "$wpid" 2>/dev/null || true
		[ -z "$fpid" ] || forget "$fpid"
		sline=$(grep '^bound=' "$dir/stream-watch.out") || sline=""
		say "$v run $run: stream: $sline; $(tail -n 1 "$dir/stream-create.out")"
		if [ -n "$sline" ] && [ "$(field timeout "$sline")" = 0 ]; then
			p50=$(field p50 "$sline")
			p99=$(field p99 "$sline")
			# The rate the pods were created at (the API server may not keep up with R).
			srate=$(sed -n 's/.* pods in \([^ ]*\) s .*/\1/p' "$dir/stream-create.out" | head -n 1)
			srate=$(calc %.0f "$STREAM_PODS / $srate")
		else
			srate=-
		fi
	fi
	[ "$v" != raw ] || rss=-
	forget "$pid"
	first=$([ "$bound" -gt 0 ] && calc %.2f "$first - $t0" || echo -)
	RESULT="$rate $first $rss $cpu $bound $timedout $p50 $p99 $srate $server $wcpu"
	if [ "$KEEP" = 1 ]; then
		cluster/down.sh "$dir/cluster" >/dev/null 2>&1 || true
	else
		cluster/down.sh "$dir/cluster" --purge >/dev/null 2>&1 || true
	fi
}
field() { echo "$2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p;s/^$1=\([^ ]*\).*/\1/p" | head -n 1; }
# watch_start LOG COUNT PREFIX TIMEOUT: bind_raw watch until it lists; sets LAST_PID.
watch_start() {
	start "$1" "$BIND" watch --kubeconfig "$KUBECONFIG" --namespace bench --count "$2" \
		--prefix "$3" --timeout-seconds "$4"
	until grep -qs '^watching' "$1"; do
		kill -0 "$LAST_PID" 2>/dev/null || { cat "$1" >&2; exit 1; }
		sleep 0.2
	done
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

throughput() {
	local v r i raw_rate="" vol_rate="" med label
	declare -A result
	local -A meds
	for ((r = 1; r <= RUNS; r++)); do
		RAW_RATE=""
		for v in $VARIANTS; do
			measure "$v" "$r"
			result[$v,$r]=$RESULT
			[ "$v" != raw ] || RAW_RATE=${RESULT%% *}
		done
	done
	# col V I: the median over the runs of field I (1-based) of V's results.
	col() {
		for ((r = 1; r <= RUNS; r++)); do
			read -r -a f <<<"${result[$1,$r]}"
			echo "${f[$(($2 - 1))]}"
		done | { grep -v '^[-?]$' || true; } | median
	}
	echo
	echo "== scheduling throughput: $PODS pods, $NODES nodes (8 CPU, 32 GiB, 110 pods), Volcano's and Caldera's in PodGroups of $GROUP, $RUNS run(s), medians"
	[[ " $VARIANTS " != *" raw "* ]] || raw_rate=$(col raw 1)
	[[ " $VARIANTS " != *" volcano "* ]] || vol_rate=$(col volcano 1)
	printf '%-42s %8s %6s %6s %10s %15s %10s %9s %6s %8s\n' "binder" "pods/s" "x raw" "x Volc" \
		"1st bind" "stream p50/p99" "at pods/s" "peak RSS" "CPU s" "server s"
	for v in $VARIANTS; do
		for i in 1 2 3 4 5 6 7 8 9 10; do meds[$v,$i]=$(col "$v" "$i"); done
		med=${meds[$v,1]}
		case $v in
		raw) label="bind_raw, $BIND_THREADS threads (API server)" ;;
		kube) label="kube-scheduler v1.20.2 (qps/burst 2000)" ;;
		volcano) label="Volcano v1.7.0 vc-scheduler (qps/burst 2000)" ;;
		caldera) label="Caldera vc-controller (qps/burst 2000)" ;;
		esac
		printf '%-42s %8.1f %6s %6s %9ss %15s %10s %9s %6s %8s\n' "$label" "$med" \
			"$([ -n "$raw_rate" ] && calc %.2f "$med / $raw_rate" || echo -)" \
			"$([ -n "$vol_rate" ] && calc %.1f "$med / $vol_rate" || echo -)" \
			"${meds[$v,2]}" "${meds[$v,7]:--}/${meds[$v,8]:--} s" "${meds[$v,9]:--}" \
			"${meds[$v,3]:--}$([ -z "${meds[$v,3]}" ] || echo ' MiB')" "${meds[$v,4]}" "${meds[$v,10]:--}"
		printf '   runs (pods/s, bound, timed out):'
		for ((r = 1; r <= RUNS; r++)); do
			read -r -a f <<<"${result[$v,$r]}"
			printf ' %s (%s%s)' "${f[0]}" "${f[4]}" "$([ "${f[5]}" = 0 ] || echo ", stopped after ${VOLCANO_SECONDS} s")"
		done
		echo
		if [ "$v" != raw ] && [ -n "$raw_rate" ]; then
			printf '   per run, x that run'"'"'s raw rate:'
			for ((r = 1; r <= RUNS; r++)); do
				printf ' %s' "$(calc %.2f "${result[$v,$r]%% *} / ${result[raw,$r]%% *}")"
			done
			echo
		fi
	done
	if [[ " $VARIANTS " == *" caldera "* ]]; then
		local c=caldera
		floor() { # TEXT CONDITION VALUE
			if awk "BEGIN { exit !($2) }" 2>/dev/null; then
				echo "floor: $1: PASS ($3)"
			else
				echo "floor: $1: FAIL ($3)"
			fi
		}
		floor "Caldera start -> first bind <= 1 s" "${meds[$c,2]} <= 1" "${meds[$c,2]} s"
		if [ -n "${meds[$c,8]}" ]; then
			floor "Caldera p99 creation -> bind <= 2 s at the raw rate" \
				"${meds[$c,8]} <= 2 && ${meds[$c,9]} >= 0.95 * ${raw_rate:-0}" \
				"p99 ${meds[$c,8]} s with pods created at ${meds[$c,9]}/s, raw ${raw_rate:-?}/s"
		else
			echo "floor: Caldera p99 creation -> bind <= 2 s at the raw rate: FAIL (not measured)"
		fi
		local sustained="Caldera p99 creation -> bind <= 2 s at the rate the API server sustained for create+bind (raw stream)"
		if [ -n "${meds[$c,8]}" ] && [ -n "${meds[raw,9]:-}" ]; then
			floor "$sustained" "${meds[$c,8]} <= 2 && ${meds[$c,9]} >= 0.95 * ${meds[raw,9]}" \
				"p99 ${meds[$c,8]} s with pods created at ${meds[$c,9]}/s, raw stream created at ${meds[raw,9]}/s with p50/p99 ${meds[raw,7]}/${meds[raw,8]} s"
		else
			echo "floor: $sustained: FAIL (not measured)"
		fi
		[ -z "$raw_rate" ] || floor "Caldera >= 0.95 x raw bind rate" \
			"${meds[$c,1]} >= 0.95 * $raw_rate" "$(calc %.2f "${meds[$c,1]} / $raw_rate")"
		[ -z "$raw_rate" ] || ceiling
		[ -z "$vol_rate" ] || floor "Caldera >= 10 x Volcano pods/s" \
			"${meds[$c,1]} >= 10 * $vol_rate" "$(calc %.1f "${meds[$c,1]} / $vol_rate")"
		floor "Caldera peak RSS <= 128 MiB ($PODS pods and PodGroups cached)" \
			"${meds[$c,3]:-999999} <= 128" "${meds[$c,3]} MiB"
	fi
}

# ceiling: per run, the most a binder with Caldera's API traffic could reach against that run's raw
# rate on this machine: the API server's and etcd's CPU seconds for Caldera's binds plus the
# benchmark's own watch, spread over every CPU, against the raw phase's time; first for a binder
# that took no CPU itself, then for one that took only what bind_raw took for the same binds (its
# TLS requests, no watches, no decisions). The kernel's share is left out: the true ceilings are
# lower.
ceiling() {
	local r ncpu out="" raw_s need need1
	ncpu=$(nproc)
	for ((r = 1; r <= RUNS; r++)); do
		read -r -a fr <<<"${result[raw,$r]}"
		read -r -a fc <<<"${result[caldera,$r]}"
		if [ "${fc[9]:--}" = - ] || [ "${fc[10]:--}" = - ] || [ "${fr[4]:-0}" = 0 ] ||
			[ "${fr[3]:-?}" = '?' ]; then
			out+=" -"
			continue
		fi
		raw_s=$(calc %.3f "${fr[4]} / ${fr[0]}")
		need=$(calc %.3f "(${fc[9]} + ${fc[10]}) / $ncpu")
		need1=$(calc %.3f "(${fc[9]} + ${fc[10]} + ${fr[3]}) / $ncpu")
		out+=" $(calc %.2f "$raw_s / $need") / $(calc %.2f "$raw_s / $need1") (server ${fc[9]}, watch ${fc[10]}, bind_raw ${fr[3]} CPU s, $ncpu CPUs; raw ${raw_s} s)"
	done
	echo "ceiling: x raw for a binder of no CPU / of bind_raw's CPU, per run:$out"
}

# --- gang deadlock rounds ------------------------------------------------------------------------

round_yaml() { # NS SCHED
	local i g
	for g in a b; do
		printf -- '---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: %s, namespace: %s}\nspec: {minMember: 4, queue: default}\n' "$g" "$1"
	done
	for i in 0 1 2 3; do
		for g in a b; do
			printf -- '---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s-%d\n  namespace: %s\n  labels: {group: %s}\n  annotations: {scheduling.k8s.io/group-name: %s}\n' "$g" "$i" "$1" "$g" "$g"
			printf 'spec:\n  schedulerName: %s\n  terminationGracePeriodSeconds: 0\n  containers:\n  - name: main\n    image: busybox\n    resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}\n' "$2"
		done
	done
}
n_bound() { # NS SELECTOR
	kubectl get pods -n "$1" -l "$2" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c . || true
}
# rounds SCHED LABEL: K rounds; prints one summary line.
rounds() {
	local sched=$1 label=$2 k ns t0 t4 a b splits=() times=() waited
	for ((k = 1; k <= ROUNDS; k++)); do
		ns=$sched-$k
		kubectl create namespace "$ns" >/dev/null
		t0=$(now)
		round_yaml "$ns" "$sched" | kubectl create -f - >/dev/null
		waited=0
		until [ "$(n_bound "$ns" group)" -ge 4 ] || [ $waited -ge 300 ]; do
			sleep 0.1
			waited=$((waited + 1))
		done
		t4=$(now)
		sleep 3 # settle: several scheduling cycles / retries
		a=$(n_bound "$ns" group=a)
		b=$(n_bound "$ns" group=b)
		splits+=("$a+$b")
		times+=("$(calc %.1f "$t4 - $t0")")
		kubectl delete namespace "$ns" --wait=true --timeout=60s >/dev/null
	done
	printf '%-26s' "$label"
	printf '%s\n' "${splits[@]}" | sort | uniq -c | awk '{ printf " %s in %d/'"$ROUNDS"' rounds;", $2, $1 }'
	printf ' time to 4 bound: %s s\n' "$(printf '%s\n' "${times[@]}" | median)"
	echo "   rounds (a+b bound): ${splits[*]}"
}

deadlock() {
	local dir=$ROOT/$WORK/deadlock pid
	rm -rf "$dir" && mkdir -p "$dir"
	say "deadlock: cluster with kube-scheduler, 2 nodes x 2 GPUs"
	cluster "$dir/cluster" --with-kube-scheduler
	sim_nodes "$dir/nodesim.log" 2 cpu=8,memory=32Gi,nvidia.com/gpu=2 --node-prefix dl --fast-delete
	echo
	echo "== gang deadlock: PodGroups a and b (minMember 4, 4 x 1 GPU each, created interleaved) on 2 nodes x 2 GPUs, $ROUNDS rounds"
	rounds default-scheduler "kube-scheduler v1.20.2:"
	if [ -x "$CTRL" ]; then
		caldera "$dir" "$dir/vc-controller.log"
		pid=$LAST_PID
		sleep 3
		rounds volcano "Caldera:"
		forget "$pid"
	else
		echo "Caldera: $CTRL is missing"
	fi
}

case $ONLY in
"") throughput && deadlock ;;
throughput) throughput ;;
deadlock) deadlock ;;
*) echo "bench: --only throughput or deadlock" >&2 && exit 2 ;;
esac
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
