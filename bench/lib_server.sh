# shellcheck shell=bash
# lib_server.sh - what the local cluster's API server and etcd did between two points of a
# benchmark: their CPU seconds and the API requests by verb and resource. Sourced by
# bench_controller.sh and bench_sched_e2e.sh; kubectl talks to the cluster of $KUBECONFIG.

# proc_cpu_s PID: user + system CPU seconds of a process (2 decimals).
proc_cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' \
		"/proc/$1/stat"
}
# server_cpu CLUSTER_DIR: "apiserver etcd", the CPU seconds of each so far.
server_cpu() {
	echo "$(proc_cpu_s "$(cat "$1/run/kube-apiserver.pid")") $(proc_cpu_s "$(cat "$1/run/etcd.pid")")"
}
# server_requests FILE: the API server's request counters (apiserver_request_total) into FILE.
server_requests() { kubectl get --raw /metrics 2>/dev/null | grep '^apiserver_request_total{' >"$1" || true; }
# server_request_diff BEFORE AFTER [PER]: the requests made between two snapshots of
# server_requests, most first, "VERB RESOURCE N" (at least 10 of a kind); with PER, each count
# is also given per PER (for example per pod bound: "VERB RESOURCE N (X)").
server_request_diff() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import re, sys
def load(path):
    out = {}
    for line in open(path):
        m = re.match(r'apiserver_request_total\{(.*)\} (\S+)', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        res = labels.get("resource", "")
        if labels.get("subresource"):
            res += "/" + labels["subresource"]
        key = (labels.get("verb", ""), res)
        out[key] = out.get(key, 0) + float(m.group(2))
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
per = float(sys.argv[3]) if sys.argv[3] else 0
d = sorted(((v - a.get(k, 0), k) for k, v in b.items() if v - a.get(k, 0) >= 10), reverse=True)
print("  ".join("%s %s %d%s" % (k[0], k[1], n, " (%.2f)" % (n / per) if per else "")
                for n, k in d))
PY
}
