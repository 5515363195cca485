#!/usr/bin/env bash
# make demo / make demo-down.
#
# Brings up the local Kubernetes control plane with Volcano's CRDs, four simulated GPU nodes
# (vc-nodesim), the admission webhook (vc-webhook, registered with the API server) and
# vc-controller (job controller + gang scheduler); applies the examples and shows, as it
# happens, the jobs moving through their phases and their pods being placed, then a summary.
# It also shows a Job getting Volcano's defaults and a bad Job refused with Volcano's message.
# Everything runs on 127.0.0.1; `make demo-down` stops it all by PID.
# DEMO_TIMEOUT (seconds, default 180) bounds the wait for the jobs to finish.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${DEMO_DIR:-$ROOT/build/demo}
RUN=$DIR/demo
BUILD=${DEMO_BUILD:-$ROOT/build}

stop_pidfile() { # NAME: TERM the process in $RUN/NAME.pid, wait, KILL if needed
	local f=$RUN/$1.pid pid
	[ -f "$f" ] || return 0
	read -r pid <"$f"
	if kill -0 "$pid" 2>/dev/null && grep -q "$BUILD/" "/proc/$pid/cmdline" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -f "$f"
}

if [ "${1:-}" = "--down" ]; then
	stop_pidfile controller
	stop_pidfile webhook
	stop_pidfile nodesim
	[ -d "$DIR" ] && cluster/down.sh "$DIR"
	exit 0
fi

say() { if [ -t 1 ]; then printf '\n\033[1m== %s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }
k() { kubectl "$@" 2>&1 | grep -v 'version difference' || true; }

say "control plane (built once, about 6 minutes the first time; cached afterwards)"
cluster/build.sh >/dev/null
if [ -f "$DIR/kubeconfig" ] && KUBECONFIG=$DIR/kubeconfig kubectl get --raw /readyz >/dev/null 2>&1; then
	echo "reusing the cluster already running in $DIR"
else
	cluster/up.sh "$DIR"
fi
export KUBECONFIG=$DIR/kubeconfig
mkdir -p "$RUN"

say "Volcano's CRDs"
k apply -f crds/
# A CRD has no conditions for a moment after creation; kubectl wait fails on that, so retry.
for _ in $(seq 60); do
	kubectl wait --for condition=established --timeout=5s crd --all >/dev/null 2>&1 && break
	sleep 1
done

say "vc-nodesim: 4 simulated nodes, each 8 CPU, 32 GiB, 4 GPUs"
stop_pidfile nodesim
"$BUILD/vc-nodesim" --kubeconfig "$KUBECONFIG" --node-prefix gpu-node \
	--nodes 4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110 --default-run-seconds 30 \
	--fast-delete >"$RUN/nodesim.log" 2>&1 &
echo $! >"$RUN/nodesim.pid"
for _ in $(seq 60); do
	[ "$(kubectl get nodes --no-headers 2>/dev/null | grep -c ' Ready ')" -ge 4 ] && break
	sleep 0.5
done
k get nodes -o wide

say "vc-webhook: certificates, HTTPS on 127.0.0.1, registered with the API server"
stop_pidfile webhook
[ -f "$RUN/certs/tls.crt" ] || "$BUILD/vc-webhook" --generate-certs "$RUN/certs" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BUILD/vc-webhook" --kubeconfig "$KUBECONFIG" --listen-address 127.0.0.1 --port "$port" \
	--tls-cert-file "$RUN/certs/tls.crt" --tls-private-key-file "$RUN/certs/tls.key" \
	--ca-cert-file "$RUN/certs/ca.crt" --webhook-url "https://127.0.0.1:$port" \
	>"$RUN/webhook.log" 2>&1 &
echo $! >"$RUN/webhook.pid"
for _ in $(seq 100); do
	kubectl get validatingwebhookconfiguration -o name 2>/dev/null | grep -q . && break
	sleep 0.2
done
k get mutatingwebhookconfigurations,validatingwebhookconfigurations

say "vc-controller: the job, queue, podgroup and gc controllers and the gang scheduler"
stop_pidfile controller
"$BUILD/vc-controller" --kubeconfig "$KUBECONFIG" --leader-elect=false --kube-api-qps 200 \
	--kube-api-burst 400 >"$RUN/controller.log" 2>&1 &
echo $! >"$RUN/controller.pid"
for _ in $(seq 100); do
	kubectl get queue default >/dev/null 2>&1 && break
	sleep 0.2
done
k get queues

say "the examples: TensorFlow benchmark (ps + workers), MPI (ssh + svc), PyTorch, TF MNIST"
jobs="tensorflow-benchmark lm-mpi-job pytorch-mnist tf-mnist"
for f in tensorflow-benchmark mpi pytorch tf-mnist; do
	k apply -f "examples/$f.yaml"
done

say "watching: job phases and pod placements as they happen"
declare -A phase_of node_of
t0=$(date +%s)
deadline=$((t0 + ${DEMO_TIMEOUT:-180}))
finished=0
while [ "$(date +%s)" -lt "$deadline" ]; do
	while read -r name ph; do
		[ -n "$name" ] || continue
		if [ "${phase_of[$name]:-}" != "$ph" ]; then
			printf '%4ss  job %-22s %s\n' "$(($(date +%s) - t0))" "$name" "${ph:-(new)}"
			phase_of[$name]=$ph
		fi
	done < <(kubectl get vcjob -o jsonpath='{range .items[*]}{.metadata.name} {.status.state.phase}{"\n"}{end}' 2>/dev/null)
	while read -r pod node; do
		{ [ -n "$pod" ] && [ -n "$node" ]; } || continue
		if [ "${node_of[$pod]:-}" != "$node" ]; then
			printf '%4ss  pod %-32s -> %s\n' "$(($(date +%s) - t0))" "$pod" "$node"
			node_of[$pod]=$node
		fi
	done < <(kubectl get pods -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}' 2>/dev/null)
	finished=0
	for j in $jobs; do
		case ${phase_of[$j]:-} in Completed | Failed | Terminated | Aborted) finished=$((finished + 1)) ;; esac
	done
	[ "$finished" -eq 4 ] && break
	sleep 1
done
[ "$finished" -eq 4 ] || echo "not every job finished within ${DEMO_TIMEOUT:-180}s (see $RUN/controller.log)"

say "summary"
k get vcjob,podgroup,queue
"$BUILD/vcctl" job list 2>&1 || true

say "a Job without its defaults: the webhook fills them in"
k apply -f - <<'EOF'
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: defaults-demo
spec:
  tasks:
  - replicas: 1
    name: worker
    template:
      metadata:
        annotations: {sandbox.caldera.dev/run-seconds: "2"}
      spec:
        containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: 100m, memory: 64Mi}}
EOF
k get vcjob defaults-demo -o \
	jsonpath='queue={.spec.queue} schedulerName={.spec.schedulerName} maxRetry={.spec.maxRetry} minAvailable={.spec.minAvailable}{"\n"}'

say "a bad Job is refused at kubectl apply with Volcano's message"
k apply -f - <<'EOF'
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: duplicated
spec:
  minAvailable: 5
  tasks:
  - name: worker
    replicas: 2
    template: {spec: {containers: [{name: c, image: busybox}]}}
  - name: worker
    replicas: 2
    template: {spec: {containers: [{name: c, image: busybox}]}}
EOF

cat <<EOT

The local cluster runs Volcano's CRDs, 4 simulated GPU nodes, vc-webhook and vc-controller.
The kubeconfig is $KUBECONFIG.

Keep playing:
  export KUBECONFIG=$KUBECONFIG
  kubectl get vcjob,podgroup,queue -A
  kubectl describe vcjob tensorflow-benchmark
  kubectl get nodes -o wide
  $BUILD/vcctl job list          (Volcano's CLI; also kubectl vc with $BUILD on PATH)
  kubectl apply -f examples/queues.yaml; $BUILD/vcctl queue list
  kubectl apply -f examples/gang-deadlock.yaml   (see examples/README.md)
Logs: $RUN/controller.log, $RUN/nodesim.log, $RUN/webhook.log
Stop everything:
  make demo-down
EOT
