#!/usr/bin/env bash
# bench_api_cost.sh - what one request of each kind a job controller sends costs the API server
# and etcd, in CPU milliseconds, on a fresh local cluster: the price list behind
# bench_controller.sh's numbers (a controller whose requests cost the server more per pod
# cannot create pods faster on the same CPUs).
#
#   bench/bench_api_cost.sh [N] [THREADS]      (defaults 2000 8)
#
# For each kind, N requests from THREADS client threads (Python, persistent TLS connections;
# the client's own CPU is not counted) after the objects they need exist:
#   pod-create        POST pods: the pod bench_controller.sh's jobs make (10m CPU, 16Mi)
#   podgroup-create   POST podgroups (minMember 10, queue default)
#   podgroup-update   PUT podgroups with a new status (phase Inqueue <-> Pending)
#   vcjob-status      PUT jobs/status of a Volcano Job of 10 pods (phase Pending <-> Running)
#   batchjob-status   PUT jobs/status of a batch/v1 Job of 10 pods (active 0 <-> 10)
#   event-create      POST events about a Job
#   pod-status-patch  PATCH pods/status: the PodScheduled=False condition of a gang's pod
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-2000}
THREADS=${2:-8}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench_api_cost.XXXXXX")
cluster=$scratch/cluster
cleanup() {
	"$ROOT/cluster/down.sh" "$cluster" --purge >/dev/null 2>&1 || true
	rm -rf "$scratch"
}
trap cleanup EXIT
export KUBECONFIG=$cluster/kubeconfig
"$ROOT/cluster/up.sh" "$cluster" >/dev/null 2>"$scratch/up.log"
kubectl apply -f "$ROOT/crds/" >/dev/null
for _ in $(seq 60); do
	kubectl wait --for condition=established --timeout=5s crd --all >/dev/null 2>&1 && break
	sleep 1
done
kubectl create namespace cost >/dev/null

python3 - "$KUBECONFIG" "$cluster/run" "$N" "$THREADS" <<'PY'
import base64, http.client, json, os, ssl, sys, tempfile, threading, time

kubeconfig, rundir, n, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cfg = {}
for line in open(kubeconfig):
    line = line.strip()
    for key in ("server:", "certificate-authority-data:", "token:"):
        if line.startswith(key):
            cfg[key[:-1]] = line.split(None, 1)[1]
host, port = cfg["server"].split("//")[1].split(":")
ca = tempfile.NamedTemporaryFile(delete=False)
ca.write(base64.b64decode(cfg["certificate-authority-data"]))
ca.close()
tls = ssl.create_default_context(cafile=ca.name)
tls.check_hostname = False
headers = {"Authorization": "Bearer " + cfg["token"], "Content-Type": "application/json",
           "Accept": "application/json"}
local = threading.local()

def call(method, path, body=None, ctype="application/json"):
    conn = getattr(local, "conn", None)
    if conn is None:
        conn = local.conn = http.client.HTTPSConnection(host, int(port), context=tls)
    h = dict(headers)
    h["Content-Type"] = ctype
    conn.request(method, path, json.dumps(body) if body is not None else None, h)
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        raise RuntimeError("%s %s: %d %s" % (method, path, r.status, data[:300]))
    return json.loads(data)

def run(fn):  # fn(i) for i in 0..n-1 on `threads` threads
    errors = []
    def worker(t):
        try:
            for i in range(t, n, threads):
                fn(i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]

def cpu_ms(name):
    pid = open(os.path.join(rundir, name + ".pid")).read().strip()
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

NS = "/namespaces/cost"
POD_SPEC = {"containers": [{"name": "c", "image": "busybox",
                            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
            "restartPolicy": "Never"}
VC = "/apis/batch.volcano.sh/v1alpha1" + NS + "/jobs"
PG = "/apis/scheduling.volcano.sh/v1beta1" + NS + "/podgroups"
BJ = "/apis/batch/v1" + NS + "/jobs"

def vcjob(i):
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "vj-%d" % i},
            "spec": {"minAvailable": 10, "schedulerName": "volcano",
                     "tasks": [{"name": "w", "replicas": 10, "template": {"spec": POD_SPEC}}]}}

def podgroup(i):
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "pg-%d" % i},
            "spec": {"minMember": 10, "queue": "default",
                     "minResources": {"cpu": "100m", "memory": "160Mi"}},
            "status": {"phase": "Pending"}}

def batchjob(i):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bj-%d" % i},
            "spec": {"parallelism": 10, "completions": 10, "template": {"spec": POD_SPEC}}}

objs = {}
def keep(kind, i, obj):  # the object as last answered: the next PUT carries its version
    obj["metadata"].pop("managedFields", None)
    objs[(kind, i)] = obj

def pod_create(i):
    call("POST", "/api/v1" + NS + "/pods",
         {"metadata": {"name": "p-%d" % i, "labels": {"volcano.sh/job-name": "j"}},
          "spec": dict(POD_SPEC, schedulerName="volcano")})

def pg_update(i):
    o = objs[("pg", i)]
    o["status"] = {"phase": "Inqueue" if o["status"]["phase"] == "Pending" else "Pending"}
    keep("pg", i, call("PUT", PG + "/pg-%d" % i, o))

def vc_status(i):
    o = objs[("vj", i)]
    ph = "Running" if o.get("status", {}).get("state", {}).get("phase") == "Pending" else "Pending"
    o["status"] = {"state": {"phase": ph, "lastTransitionTime": "2026-01-01T00:00:00Z"},
                   "minAvailable": 10, "pending": 10 if ph == "Pending" else 0,
                   "running": 10 if ph == "Running" else 0,
                   "taskStatusCount": {"w": {"phase": {ph: 10}}},
                   "conditions": [{"status": ph,
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    keep("vj", i, call("PUT", VC + "/vj-%d/status" % i, o))

def bj_status(i):
    o = objs[("bj", i)]
    o["status"] = {"active": 0 if o.get("status", {}).get("active") else 10,
                   "startTime": "2026-01-01T00:00:00Z"}
    keep("bj", i, call("PUT", BJ + "/bj-%d/status" % i, o))

def event_create(i):
    call("POST", "/api/v1" + NS + "/events",
         {"metadata": {"name": "vj-%d.%x" % (i, i)},
          "involvedObject": {"kind": "Job", "namespace": "cost", "name": "vj-%d" % i,
                             "apiVersion": "batch.volcano.sh/v1alpha1"},
          "reason": "PodGroupPending", "type": "Warning",
          "message": "PodGroup cost:vj-%d unschedulable, reason: 10/10 tasks in gang "
                     "unschedulable: pod group is not ready, 10 Pending, 10 minAvailable" % i,
          "source": {"component": "vc-controller-manager"}, "count": 1,
          "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"})

def pod_patch(i):
    call("PATCH", "/api/v1" + NS + "/pods/p-%d/status" % i,
         {"status": {"conditions": [{"type": "PodScheduled", "status": "False",
                                     "reason": "Unschedulable",
                                     "message": "10/10 tasks in gang unschedulable: pod group "
                                                "is not ready, 10 Pending, 10 minAvailable",
                                     "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
         "application/strategic-merge-patch+json")

def setup_vc(i):
    keep("vj", i, call("POST", VC, vcjob(i)))

def setup_bj(i):
    keep("bj", i, call("POST", BJ, batchjob(i)))

def pg_create(i):
    keep("pg", i, call("POST", PG, podgroup(i)))

kinds = [("pod-create", None, pod_create), ("podgroup-create", None, pg_create),
         ("podgroup-update", None, pg_update), ("vcjob-status", setup_vc, vc_status),
         ("batchjob-status", setup_bj, bj_status), ("event-create", None, event_create),
         ("pod-status-patch", None, pod_patch)]
print("API server + etcd CPU per request, %d requests per kind, %d client threads" % (n, threads))
print("%-18s %10s %10s %10s %9s" % ("kind", "apiserver", "etcd", "total", "req/s"))
for name, setup, fn in kinds:
    if setup:
        run(setup)
    time.sleep(2)
    a0, e0, t0 = cpu_ms("kube-apiserver"), cpu_ms("etcd"), time.time()
    run(fn)
    t1 = time.time()
    time.sleep(1)  # the server's work after its answers (watch fan-out)
    a, e = (cpu_ms("kube-apiserver") - a0) / n, (cpu_ms("etcd") - e0) / n
    print("%-18s %7.2f ms %7.2f ms %7.2f ms %9.0f" % (name, a, e, a + e, n / (t1 - t0)))
PY
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
