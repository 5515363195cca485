#!/usr/bin/env bash
# bench_admission.sh - admission throughput and latency: vc-webhook next to Volcano v1.7.0's
# vc-webhook-manager, in one run, on one local cluster, both serving the same certificate (made
# by `vc-webhook --generate-certs`) with the same client limits.
#
#   (a) direct: a fixed mix of seven AdmissionReviews, one for each path a Volcano install
#       serves (Job mutate and validate, PodGroup mutate, Pod mutate and validate, Queue mutate
#       and validate; all CREATE), sent over HTTPS by wrk at 1, 4, 16 and 64 connections. The
#       bodies are what the API server itself sent: at start-up a small capture server takes
#       vc-webhook's registered URL and records the reviews of a Job, a PodGroup, a Pod and a
#       Queue created with kubectl. Reported: reviews/s, p50/p99/p99.9 latency, CPU seconds
#       (and CPU µs per review) and peak RSS of the webhook during the run (VmHWM reset at its
#       start, so it includes what earlier runs left allocated: min–max over the repetitions).
#   (b) through kube-apiserver: Volcano Jobs created per second by wrk's parallel clients
#       (POST, the admin token, unique names) with vc-webhook registered, with Volcano's
#       vc-webhook-manager in its place (same URL, same port), and with no webhook registered
#       (the API server's own rate, the baseline). Also the webhook's and the API server's CPU.
#   (c) direct, Job mutate and validate only, with bodies of 1 KiB, 100 KiB and 3 MiB (the
#       captured Job review with its pod template's env list grown to the size).
#   (d) direct, open loop: the captured Job mutate, then Job validate review at a fixed rate
#       (BENCH_RATE, 1,000/s) for BENCH_PACED_SECONDS (10) by bench/admission_paced.c (libcurl
#       multi, keep-alive connections opened as needed up to 64); each latency runs from the
#       moment the request was due, so a webhook that falls behind pays for the queue.
#
# Every figure is the median of BENCH_REPEAT runs of BENCH_SECONDS each; within a repetition
# the implementations take turns, so a burst of load from another process of this shared machine
# falls on both. The ratio column is Caldera / Volcano of those medians. Before measuring, each
# review of the mix is sent once to each webhook and their answers (allowed, the patch) are
# compared (less the template's "creationTimestamp": null of Go's Job patch); a difference is
# printed, not fatal. The bench exits 0 whichever is faster.
#
#   bench/bench_admission.sh [--only a,b,c,d]
#   BENCH_SECONDS (5) BENCH_REPEAT (3) BENCH_CONC ("1 4 16 64", parts a and c)
#   BENCH_CLIENTS ("1 4 16", part b) BENCH_SIZES ("1024 102400 3145728", part c)
#   BENCH_LARGE_SECONDS (15): the length of part c's runs with bodies of 1 MiB and more
#   BENCH_QPS (1000): --kube-api-qps and --kube-api-burst of both webhooks. Volcano's
#     handlers GET the Queue (Job validate), the PodGroup (Pod validate) or the Namespace
#     (PodGroup mutate) from the API server for each review, through that limiter; its default
#     (50/100) would cap those paths at 50 reviews/s, which is a setting, not the code.
#   VC_WEBHOOK (build/vc-webhook); VOLCANO_BIN (default the cache of ../shared/volcano/build.sh:
#     ~/.cache/caldera/volcano-1.7.0/bin); without its vc-webhook-manager, Caldera runs alone.
#   BENCH_PERF=DIR: `perf record -g` each webhook during part a's runs at 16 connections
#     (DIR/caldera.data, DIR/volcano.data).
# Needs wrk (Debian's package `wrk`), curl, python3, a C compiler and libcurl's headers (part d)
# and the local cluster (cluster/build.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ONLY=a,b,c,d
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=$2; shift 2 ;;
	--only=*) ONLY=${1#--only=}; shift ;;
	*) echo "usage: bench/bench_admission.sh [--only a,b,c,d]" >&2; exit 2 ;;
	esac
done
part() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
SECONDS_=${BENCH_SECONDS:-5}
REPEAT=${BENCH_REPEAT:-3}
CONC=${BENCH_CONC:-1 4 16 64}
CLIENTS=${BENCH_CLIENTS:-1 4 16}
SIZES=${BENCH_SIZES:-1024 102400 3145728}
LARGE_SECONDS=${BENCH_LARGE_SECONDS:-15}
QPS=${BENCH_QPS:-1000}
RATE=${BENCH_RATE:-1000}
PACED_SECONDS=${BENCH_PACED_SECONDS:-10}
HOOK=${VC_WEBHOOK:-$ROOT/build/vc-webhook}
CACHE=${CALDERA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}
VBIN=${VOLCANO_BIN:-$CACHE/volcano-1.7.0/bin}
[ -x "$HOOK" ] || { echo "bench: $HOOK is missing: run make first" >&2; exit 1; }
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
IMPLS="caldera volcano"
if ! [ -x "$VBIN/vc-webhook-manager" ]; then
	IMPLS=caldera
	echo "volcano: skipped, no vc-webhook-manager in $VBIN (run ../shared/volcano/build.sh or set VOLCANO_BIN)"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench_admission.XXXXXX")
cluster=$scratch/cluster
certs=$scratch/certs
declare -A PID=() # running webhooks by name: caldera, volcano, capture
stop() { # NAME
	local p=${PID[$1]:-}
	[ -n "$p" ] || return 0
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	PID[$1]=
}
cleanup() {
	local n
	for n in "${!PID[@]}"; do stop "$n"; done
	"$ROOT/cluster/down.sh" "$cluster" --purge >/dev/null 2>&1 || true
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
say() { printf '%s\n' "$*" >&2; }

# --- the cluster ------------------------------------------------------------------------------
"$ROOT/cluster/up.sh" "$cluster" >/dev/null 2>"$scratch/up.log" || {
	cat "$scratch/up.log" >&2
	exit 1
}
export KUBECONFIG=$cluster/kubeconfig
k() { kubectl "$@"; }
APORT=$(sed -n 's/^APISERVER_PORT=//p' "$cluster/cluster.env")
TOKEN=$(awk -F, '$2 == "admin" { print $1 }' "$cluster/tokens.csv")
api() { # METHOD PATH [BODY] (merge patch for PATCH)
	curl -fsS --cacert "$cluster/pki/ca.crt" -H "Authorization: Bearer $TOKEN" -X "$1" \
		-H "Content-Type: $([ "$1" = PATCH ] && echo application/merge-patch+json || echo application/json)" \
		${3:+--data-binary "$3"} "https://127.0.0.1:$APORT$2"
}
k apply -f "$ROOT/crds/" >/dev/null
for _ in $(seq 60); do
	k wait --for condition=established --timeout=5s crd --all >/dev/null 2>&1 && break
	sleep 1
done
k create namespace bench >/dev/null
k apply -f - >/dev/null <<'Q'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1, reclaimable: true}
Q
# No controller runs: open the queue by hand (Job validate admits only Open queues).
api PATCH /apis/scheduling.volcano.sh/v1beta1/queues/default/status '{"status":{"state":"Open"}}' >/dev/null
for _ in $(seq 60); do # pods need the namespace's default ServiceAccount
	k -n bench get serviceaccount default >/dev/null 2>&1 && break
	sleep 0.5
done

# --- the webhooks -------------------------------------------------------------------------------
"$HOOK" --generate-certs "$certs" --webhook-service-name volcano-admission-service \
	--webhook-namespace volcano-system >/dev/null
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		[ -n "$(ss -Htln "sport = :$p" 2>/dev/null)" ] || { echo "$p"; return; }
	done
}
P1=$(free_port) # vc-webhook, registered; in part b whichever webhook is measured
P2=$(free_port) # Volcano's vc-webhook-manager in parts a and c
while [ "$P2" = "$P1" ]; do P2=$(free_port); done
answers() { curl -sS -o /dev/null --cacert "$certs/ca.crt" "https://127.0.0.1:$1/healthz"; }
wait_serving() { # NAME PORT
	local _i
	for _i in $(seq 150); do
		answers "$2" 2>/dev/null && return 0
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.2
	done
	say "bench: $1 did not serve on 127.0.0.1:$2"
	tail -20 "$scratch/$1.log" >&2
	exit 1
}
registered() { # PORT: every configuration's URL is on PORT
	[ "$(k get validatingwebhookconfiguration volcano-admission-service-jobs-validate \
		-o jsonpath='{.webhooks[0].clientConfig.url}' 2>/dev/null)" = "https://127.0.0.1:$1/jobs/validate" ]
}
start_caldera() { # PORT
	"$HOOK" --kubeconfig "$KUBECONFIG" --listen-address 127.0.0.1 --port "$1" \
		--tls-cert-file "$certs/tls.crt" --tls-private-key-file "$certs/tls.key" \
		--ca-cert-file "$certs/ca.crt" --webhook-url "https://127.0.0.1:$1" \
		--kube-api-qps "$QPS" --kube-api-burst "$QPS" >>"$scratch/caldera.log" 2>&1 &
	PID[caldera]=$!
	wait_serving caldera "$1"
	for _ in $(seq 100); do
		registered "$1" && return 0
		sleep 0.2
	done
	say "bench: vc-webhook did not register https://127.0.0.1:$1"
	exit 1
}
# Volcano v1.7 only fills in the caBundle of configurations that exist (vc-webhook's).
start_volcano() { # PORT
	"$VBIN/vc-webhook-manager" --kubeconfig "$KUBECONFIG" --listen-address 127.0.0.1 \
		--port "$1" --tls-cert-file "$certs/tls.crt" --tls-private-key-file "$certs/tls.key" \
		--ca-cert-file "$certs/ca.crt" --webhook-url "https://127.0.0.1:$1" \
		--kube-api-qps "$QPS" --kube-api-burst "$QPS" >>"$scratch/volcano.log" 2>&1 &
	PID[volcano]=$!
	wait_serving volcano "$1"
}

# --- the captured reviews ---------------------------------------------------------------------
# A stand-in webhook on vc-webhook's URL that admits everything and keeps the first body of
# each path: the AdmissionReviews exactly as this API server sends them.
capture() { # PORT DIR
	python3 - "$1" "$2" "$certs" <<'PY' >>"$scratch/capture.log" 2>&1 &
import http.server, json, os, ssl, sys
port, out, certs = int(sys.argv[1]), sys.argv[2], sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
        self.wfile.write(b"ok")
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        f = os.path.join(out, self.path.split("?")[0].strip("/").replace("/", "_") + ".json")
        if not os.path.exists(f):
            open(f, "wb").write(body)
        uid = json.loads(body)["request"]["uid"]
        resp = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "response": {"uid": uid, "allowed": True}}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(resp))); self.end_headers()
        self.wfile.write(resp)
srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(os.path.join(certs, "tls.crt"), os.path.join(certs, "tls.key"))
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
	PID[capture]=$!
	wait_serving capture "$1"
}
# The objects: fully specified, so that the mutations have little to add and the validating
# webhooks see what a client sent.
JOB_SPEC='"minAvailable": 1, "schedulerName": "volcano", "queue": "default", "maxRetry": 3,
  "tasks": [{"name": "worker", "replicas": 1, "minAvailable": 1, "template": {
    "metadata": {"labels": {"app": "bench"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox:1.36",
      "command": ["sh", "-c", "sleep 1"],
      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}}]'
job() { # NAME -> a Volcano Job
	printf '{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "%s", "namespace": "bench"}, "spec": {%s}}\n' "$1" "$JOB_SPEC"
}
reviews=$scratch/reviews
mkdir -p "$reviews"
start_caldera "$P1" # registers every path on P1
stop caldera
capture "$P1" "$reviews"
job captured-job | k create -f - >/dev/null
k create -f - >/dev/null <<'OBJ'
{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
 "metadata": {"name": "captured-pg", "namespace": "bench"},
 "spec": {"minMember": 1, "queue": "default", "minResources": {"cpu": "100m"}}}
OBJ
k create -f - >/dev/null <<'OBJ'
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "captured-pod", "namespace": "bench", "labels": {"app": "bench"},
  "annotations": {"scheduling.k8s.io/group-name": "captured-pg"}},
 "spec": {"schedulerName": "volcano", "restartPolicy": "Never",
  "containers": [{"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 1"],
   "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
OBJ
k create -f - >/dev/null <<'OBJ'
{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "captured-q"},
 "spec": {"weight": 2, "reclaimable": true, "capability": {"cpu": "8", "memory": "16Gi"}}}
OBJ
stop capture
MIX="jobs/mutate jobs/validate podgroups/mutate pods/mutate pods/validate queues/mutate queues/validate"
for p in $MIX; do
	[ -s "$reviews/${p/\//_}.json" ] || { say "bench: the API server sent no review to /$p"; exit 1; }
done
# The objects stay: the reviews are CREATEs all the same, and the Pod's PodGroup exists, as it
# does for a Job's pods (Volcano's Pod validate reads it, and its Queue, from the API server).
start_caldera "$P1"
# Part c's bodies: the Job review with the template's env list grown to SIZE bytes.
for size in $SIZES; do
	python3 - "$reviews/jobs_validate.json" "$size" >"$reviews/job-$size.json" <<'PY'
import json, sys
review, size = json.load(open(sys.argv[1])), int(sys.argv[2])
obj = review["request"]["object"]
obj["metadata"].pop("managedFields", None)
env = obj["spec"]["tasks"][0]["template"]["spec"]["containers"][0].setdefault("env", [])
dump = lambda o: json.dumps(o, separators=(",", ":"))
# The first variable costs its own text and the list's brackets ("env":[] is there already);
# each next one its text and a comma.
total, i = len(dump(review)), 0
while True:
    var = {"name": "BENCH_VAR_%06d" % i, "value": "v" * 64}
    cost = len(dump(var)) + (1 if env else 0)
    if total + cost > size:
        break
    env.append(var)
    total += cost
    i += 1
if env:  # the last value pads the body to exactly SIZE bytes
    env[-1]["value"] += "v" * (size - total)
sys.stdout.write(dump(review))
PY
done

# --- measuring --------------------------------------------------------------------------------
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)
# settle PID: wait (at most 30 s) until the process stops using CPU: a webhook goes on with the
# reviews in flight when wrk stops, which would fall on the next run.
settle() {
	local a b
	for _ in $(seq 100); do
		a=$(cpu_ticks "$1")
		sleep 0.3
		b=$(cpu_ticks "$1")
		[ $((b - a)) -gt 2 ] || return 0
	done
}
reset_peak() { echo 5 >"/proc/$1/clear_refs" 2>/dev/null || true; }
peak_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# The wrk script: the requests of LIST ("path<TAB>file" lines) in turn, each thread from its
# own offset; at the end one line "wrkres requests seconds errors p50 p99 p99.9" (µs).
cat >"$scratch/cycle.lua" <<'LUA'
local bodies, reqs, n, i = {}, {}, 0, 0
for line in io.lines(os.getenv("BENCH_LIST")) do
	local path, file = line:match("^(%S+)\t(%S+)$")
	local f = assert(io.open(file, "rb"))
	n = n + 1
	bodies[n] = { path, f:read("*a") }
	f:close()
end
next_tid = 0
function setup(thread)
	thread:set("tid", next_tid)
	next_tid = next_tid + 1
end
-- The requests are made here, not above: wrk.host (the Host header) is not known yet there.
function init(args)
	for k, b in ipairs(bodies) do
		reqs[k] = wrk.format("POST", b[1], { ["Content-Type"] = "application/json" }, b[2])
	end
	bodies = nil
	i = (tonumber(tid) or 0) % n
end
function request()
	i = i % n + 1
	return reqs[i]
end
function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("wrkres %d %.6f %d %d %d %d\n", summary.requests,
		summary.duration / 1e6, e.connect + e.read + e.write + e.status + e.timeout,
		latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
LUA
# Part b's script: POST a Job with a unique name (PREFIX-thread-counter).
cat >"$scratch/create.lua" <<'LUA'
local f = assert(io.open(os.getenv("BENCH_JOB"), "rb"))
local tmpl = f:read("*a")
f:close()
local prefix, count = os.getenv("BENCH_PREFIX"), 0
local headers = { ["Content-Type"] = "application/json",
	["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN") }
next_tid = 0
function setup(thread) -- each thread's names have its number (the global tid)
	thread:set("tid", next_tid)
	next_tid = next_tid + 1
end
function request()
	count = count + 1
	local body = tmpl:gsub("@NAME@", prefix .. "-" .. tid .. "-" .. count)
	return wrk.format("POST", os.getenv("BENCH_PATH"), headers, body)
end
function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("wrkres %d %.6f %d %d %d %d\n", summary.requests,
		summary.duration / 1e6, e.connect + e.read + e.write + e.status + e.timeout,
		latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
LUA
results=$scratch/results.tsv
: >"$results"
# run_wrk PART IMPL CONC LABEL URL SCRIPT: one measured run; appends a line to results.tsv:
# part impl conc label rep requests seconds errors p50 p99 p999 hook_cpu_s hook_peak_kib api_cpu_s
run_wrk() {
	local part=$1 impl=$2 conc=$3 label=$4 url=$5 script=$6 pid=${PID[$2]:-} t0 a0 out perf=
	local threads=$((conc < 2 ? conc : 2)) apid
	apid=$(cat "$cluster/run/kube-apiserver.pid")
	local p
	for p in "${PID[@]}"; do [ -z "$p" ] || settle "$p"; done
	[ -n "$pid" ] && reset_peak "$pid"
	t0=$([ -n "$pid" ] && cpu_ticks "$pid" || echo 0)
	a0=$(cpu_ticks "$apid")
	if [ -n "${BENCH_PERF:-}" ] && [ "$part" = a ] && [ "$conc" = 16 ] && [ -n "$pid" ] &&
		[ ! -e "$BENCH_PERF/$impl.data" ]; then
		mkdir -p "$BENCH_PERF"
		perf record -g -o "$BENCH_PERF/$impl.data" -p "$pid" >/dev/null 2>&1 &
		perf=$!
	fi
	local secs=$SECONDS_
	# Part c's largest bodies take a good part of a second each: longer runs.
	[ "$part" = c ] && [ "$label" -ge 1048576 ] && secs=$LARGE_SECONDS
	out=$(wrk -t "$threads" -c "$conc" -d "${secs}s" --timeout 60s -s "$script" "$url" 2>&1) || {
		say "bench: wrk failed: $out"
		exit 1
	}
	[ -z "$perf" ] || { kill -INT "$perf"; wait "$perf" 2>/dev/null || true; }
	local res cpu_end peak
	cpu_end=$([ -n "$pid" ] && cpu_ticks "$pid" || echo 0)
	peak=$([ -n "$pid" ] && peak_kib "$pid" || echo 0)
	res=$(grep '^wrkres ' <<<"$out") || { say "bench: no result from wrk: $out"; exit 1; }
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$part" "$impl" "$conc" "$label" "$REP" \
		"$(awk '{ print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' <<<"$res")" \
		"$(awk -v a="$t0" -v b="$cpu_end" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')" "$peak" \
		"$(awk -v a="$a0" -v b="$(cpu_ticks "$apid")" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')" >>"$results"
}
port_of() { [ "$1" = caldera ] && echo "$P1" || echo "$P2"; }

# --- agreement: each review once to each webhook ------------------------------------------------
if part a || part c; then
	[ "$IMPLS" = caldera ] || start_volcano "$P2"
	say "bench: answers to the captured reviews (allowed, patch):"
	for p in $MIX; do
		line="  /$p ($(stat -c %s "$reviews/${p/\//_}.json") B):"
		first=
		for impl in $IMPLS; do
			a=$(curl -sS --cacert "$certs/ca.crt" -H 'Content-Type: application/json' \
				--data-binary "@$reviews/${p/\//_}.json" "https://127.0.0.1:$(port_of "$impl")/$p" |
				python3 -c '
import base64, json, sys
r = json.load(sys.stdin).get("response", {})
p = r.get("patch")
p = json.loads(base64.b64decode(p)) if p else None
# Go re-serialises a task template with "creationTimestamp": null in its metadata, Caldera
# echoes the task (docs/volcano/webhooks.md §4 step 4): the same to the API server.
def norm(v):
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items() if not (k == "creationTimestamp" and x is None)}
    return [norm(x) for x in v] if isinstance(v, list) else v
p = norm(p)
print("allowed" if r.get("allowed") else "DENIED %r" % r.get("status", {}).get("message"),
      "patch %s" % json.dumps(p, sort_keys=True) if p else "no patch")')
			line+=" $impl: $a;"
			if [ -z "$first" ]; then
				first=$a
			elif [ "$a" != "$first" ]; then
				line+=" (DIFFERENT)"
			fi
		done
		say "$line"
	done
fi

# --- part a -------------------------------------------------------------------------------------
if part a; then
	: >"$scratch/mix.list"
	# The query the API server adds (timeoutSeconds of the registration) is part of the request.
	for p in $MIX; do
		printf '/%s?timeout=10s\t%s\n' "$p" "$reviews/${p/\//_}.json" >>"$scratch/mix.list"
	done
	for REP in $(seq "$REPEAT"); do
		for c in $CONC; do
			for impl in $IMPLS; do
				BENCH_LIST=$scratch/mix.list run_wrk a "$impl" "$c" mix \
					"https://127.0.0.1:$(port_of "$impl")" "$scratch/cycle.lua"
			done
		done
		say "bench: part a, repetition $REP done"
	done
fi

# --- part c -------------------------------------------------------------------------------------
if part c; then
	for size in $SIZES; do
		printf '/jobs/mutate?timeout=10s\t%s\n/jobs/validate?timeout=10s\t%s\n' "$reviews/job-$size.json" \
			"$reviews/job-$size.json" >"$scratch/size-$size.list"
	done
	# Sizes in increasing order, each with all its repetitions: memory that a larger body's run
	# left with the process (malloc's free lists, Go's heap) does not show as a smaller one's peak.
	for size in $SIZES; do
		for REP in $(seq "$REPEAT"); do
			for c in $CONC; do
				for impl in $IMPLS; do
					BENCH_LIST=$scratch/size-$size.list run_wrk c "$impl" "$c" "$size" \
						"https://127.0.0.1:$(port_of "$impl")" "$scratch/cycle.lua"
				done
			done
		done
		say "bench: part c, $size B done"
	done
fi

# --- part d -------------------------------------------------------------------------------------
# run_paced IMPL PATH: one open-loop run of the captured review of PATH (jobs/mutate) at RATE/s;
# appends a line to results.tsv as run_wrk does (conns: the rate; label: the path).
run_paced() {
	local impl=$1 path=$2 pid=${PID[$1]} t0 a0 out res p apid
	apid=$(cat "$cluster/run/kube-apiserver.pid")
	for p in "${PID[@]}"; do [ -z "$p" ] || settle "$p"; done
	reset_peak "$pid"
	t0=$(cpu_ticks "$pid")
	a0=$(cpu_ticks "$apid")
	out=$("$scratch/admission_paced" "https://127.0.0.1:$(port_of "$impl")/$path?timeout=10s" \
		"$reviews/${path/\//_}.json" "$RATE" "$PACED_SECONDS" "$certs/ca.crt" 2>&1) || {
		say "bench: admission_paced failed: $out"
		exit 1
	}
	res=$(grep '^paced ' <<<"$out") || { say "bench: no result from admission_paced: $out"; exit 1; }
	# paced rate seconds sent answered errors late p50 p99 p999 max conns (µs)
	say "bench: part d $impl /$path: $res"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' d "$impl" "$RATE" "$path" "$REP" \
		"$(awk '{ print $5 "\t" $3 "\t" $6 "\t" $8 "\t" $9 "\t" $10 }' <<<"$res")" \
		"$(awk -v a="$t0" -v b="$(cpu_ticks "$pid")" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')" \
		"$(peak_kib "$pid")" \
		"$(awk -v a="$a0" -v b="$(cpu_ticks "$apid")" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')" >>"$results"
}
if part d; then
	cc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror "$ROOT/bench/admission_paced.c" \
		-o "$scratch/admission_paced" $(pkg-config --cflags --libs libcurl) || exit 1
	[ -n "${PID[caldera]:-}" ] || start_caldera "$P1"
	[ "$IMPLS" = caldera ] || [ -n "${PID[volcano]:-}" ] || start_volcano "$P2"
	for REP in $(seq "$REPEAT"); do
		for path in jobs/mutate jobs/validate; do
			for impl in $IMPLS; do
				run_paced "$impl" "$path"
			done
		done
		say "bench: part d, repetition $REP done"
	done
fi

# --- part b -------------------------------------------------------------------------------------
if part b; then
	stop volcano
	stop caldera
	job @NAME@ >"$scratch/job.tmpl"
	# use VARIANT: vc-webhook, Volcano's or no webhook behind the registered URL on P1.
	use() {
		stop caldera
		stop volcano
		case $1 in
		caldera) start_caldera "$P1" ;;
		volcano)
			registered "$P1" || start_caldera "$P1"
			stop caldera
			start_volcano "$P1"
			;;
		none)
			k delete mutatingwebhookconfiguration,validatingwebhookconfiguration \
				-l app.kubernetes.io/managed-by=vc-webhook >/dev/null
			;;
		esac
		# The API server picks up a configuration change from its informer: let it settle,
		# then warm up (the connections, Go's and our first-request paths).
		sleep 2
		BENCH_PATH=/apis/batch.volcano.sh/v1alpha1/namespaces/bench/jobs BENCH_JOB=$scratch/job.tmpl \
			BENCH_TOKEN=$TOKEN BENCH_PREFIX="warm-$1-$REP" \
			wrk -t 1 -c 4 -d 1s -s "$scratch/create.lua" "https://127.0.0.1:$APORT" >/dev/null 2>&1
	}
	variants="none caldera"
	[ "$IMPLS" = caldera ] || variants="none caldera volcano"
	for REP in $(seq "$REPEAT"); do
		for v in $variants; do
			use "$v"
			for c in $CLIENTS; do
				BENCH_PATH=/apis/batch.volcano.sh/v1alpha1/namespaces/bench/jobs \
					BENCH_JOB=$scratch/job.tmpl BENCH_TOKEN=$TOKEN BENCH_PREFIX="$v-$REP-$c" \
					run_wrk b "$v" "$c" jobs "https://127.0.0.1:$APORT" "$scratch/create.lua"
			done
		done
		say "bench: part b, repetition $REP done"
	done
	stop caldera
	stop volcano
fi

# --- the report ---------------------------------------------------------------------------------
echo "bench_admission: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), ${SECONDS_} s runs, median of $REPEAT"
echo "vc-webhook: $HOOK; Volcano: $([ "$IMPLS" = caldera ] && echo skipped || echo "$VBIN/vc-webhook-manager"); client limits qps=burst=$QPS"
python3 - "$results" "$reviews" "$MIX" <<'PY'
import os, statistics, sys
from collections import defaultdict
rows = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    part, impl, conc, label, rep = f[:5]
    req, sec, err, p50, p99, p999, cpu, peak, api = f[5:]
    rows[(part, label, int(conc), impl)].append(dict(
        rps=int(req) / float(sec), req=int(req), err=int(err), p50=int(p50) / 1e3,
        p99=int(p99) / 1e3, p999=int(p999) / 1e3, cpu=float(cpu), peak=int(peak) / 1024,
        api=float(api)))
med = lambda k, xs: statistics.median(x[k] for x in xs)
def size_name(label):
    n = int(label)
    return "%d MiB" % (n >> 20) if n % (1 << 20) == 0 else "%d KiB" % (n >> 10) if n % 1024 == 0 else "%d B" % n
# VmHWM after a reset at the run's start: it counts what earlier runs left with the process
# (malloc's free lists, Go's heap), so the range over the repetitions is shown.
def peak_range(xs):
    lo, hi = min(x["peak"] for x in xs), max(x["peak"] for x in xs)
    return "%.0f" % hi if round(lo) == round(hi) else "%.0f–%.0f" % (lo, hi)
def table(part, label, title, unit):
    keys = sorted({(c, i) for (p, l, c, i) in rows if p == part and l == label},
                  key=lambda k: (k[0], {"none": 0, "caldera": 1, "volcano": 2}[k[1]]))
    if not keys:
        return
    def ratio(c, impl, other):
        if impl == other or (part, label, c, other) not in rows:
            return ""
        d = med("rps", rows[(part, label, c, other)])
        return "%.2f" % (med("rps", rows[(part, label, c, impl)]) / d) if d > 0 else "∞"
    print()
    print(title)
    print("| %s | impl | %s/s | × Volcano |%s p50 ms | p99 ms | p99.9 ms | errors | webhook CPU s | µs CPU/%s | peak RSS MiB | apiserver CPU s |"
          % ({"b": "clients", "d": "rate/s"}.get(part, "conns"), unit, " × no webhook |" if part == "b" else "",
             unit.rstrip("s")))
    print("|---:|---|---:|---:|%s---:|---:|---:|---:|---:|---:|---:|---:|" % ("---:|" if part == "b" else ""))
    for c, impl in keys:
        xs = rows[(part, label, c, impl)]
        cpu = med("cpu", xs)
        hook = impl != "none"
        print("| %d | %s | %.0f | %s |%s %.2f | %.2f | %.2f | %d | %s | %s | %s | %.2f |" % (
            c, impl, med("rps", xs), ratio(c, impl, "volcano") if hook else "",
            " %s |" % ratio(c, impl, "none") if part == "b" else "",
            med("p50", xs), med("p99", xs), med("p999", xs), sum(x["err"] for x in xs),
            "%.2f" % cpu if hook else "–",
            "%.0f" % (cpu * 1e6 / max(1, med("req", xs))) if hook else "–",
            peak_range(xs) if hook else "–", med("api", xs)))
sizes = {p: os.path.getsize(os.path.join(sys.argv[2], p.replace("/", "_") + ".json"))
         for p in sys.argv[3].split()}
table("a", "mix", "(a) direct, the captured mix (%s)" % ", ".join("/%s %d B" % kv for kv in sizes.items()),
      "reviews")
table("b", "jobs", "(b) Volcano Jobs created through kube-apiserver (POST, wrk's clients; errors: not 201)", "jobs")
for label in sorted({l for (p, l, c, i) in rows if p == "c"}, key=int):
    real = os.path.getsize(os.path.join(sys.argv[2], "job-%s.json" % label))
    table("c", label, "(c) direct, Job mutate + validate, %s bodies (%d B)" % (size_name(label), real),
          "reviews")
for label in sorted({l for (p, l, c, i) in rows if p == "d"}):
    table("d", label, "(d) direct, open loop: /%s at a fixed rate (latency from each request's due time; × Volcano: answered/s)" % label,
          "reviews")
PY
