#!/usr/bin/env bash
# make demo / make demo-down.
#
# Brings up the local Kubernetes control plane with Volcano's CRDs, four simulated GPU nodes
# (vc-nodesim) and the admission webhook (vc-webhook, registered with the API server), then
# shows a Job getting Volcano's defaults and a bad Job refused with Volcano's message. The job
# controller and scheduler join when they land (see README.md): until then Jobs are admitted
# and stored but not run. Everything runs on 127.0.0.1; `make demo-down` stops it all by PID.
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

say "the default queue (its state is written by the queue controller, here by hand)"
k apply -f - <<'EOF'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: default
spec:
  reclaimable: true
EOF
k patch queue default --subresource=status --type=merge -p '{"status":{"state":"Open"}}'
k get queue default -o jsonpath='{.spec}{"\n"}'

say "a TensorFlow Job: the webhook fills in Volcano's defaults"
k apply -f - <<'EOF'
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: tensorflow-benchmark
spec:
  plugins:
    env: []
    svc: []
  tasks:
  - replicas: 1
    name: ps
    template:
      spec:
        containers:
        - name: tensorflow
          image: volcanosh/example-tf:0.0.1
          resources: {requests: {cpu: "1", memory: 2Gi}}
  - replicas: 2
    name: worker
    template:
      spec:
        containers:
        - name: tensorflow
          image: volcanosh/example-tf:0.0.1
          resources: {requests: {cpu: "2", memory: 4Gi, nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
EOF
k get vcjob tensorflow-benchmark -o \
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

The local cluster is up with Volcano's CRDs, 4 simulated GPU nodes and the admission webhook.
The job controller and the gang scheduler are not part of Caldera yet (README.md), so Jobs are
admitted and stored but not run; pods you bind yourself run on the simulated nodes.

Keep playing:
  export KUBECONFIG=$KUBECONFIG
  kubectl get vcjob,podgroup,queue -A
  kubectl describe vcjob tensorflow-benchmark
  kubectl get nodes -o wide
Logs: $RUN/nodesim.log, $RUN/webhook.log
Stop everything:
  make demo-down
EOT
