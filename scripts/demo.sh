#!/usr/bin/env bash
# make demo / make demo-down.
#
# Today the demo brings up the local Kubernetes control plane with Volcano's CRDs applied, so
# the real kubectl can be pointed at it. The daemons (vc-webhook, vc-controller with its
# scheduler, vc-nodesim) join it as they land; see README.md for the state of each part.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DEMO_DIR:-$PWD/build/demo}

if [ "${1:-}" = "--down" ]; then
	cluster/down.sh "$DIR"
	exit 0
fi

echo "demo: building the control plane if needed (about 6 minutes the first time)"
cluster/build.sh >/dev/null
if [ -f "$DIR/kubeconfig" ] && KUBECONFIG=$DIR/kubeconfig kubectl get --raw /readyz >/dev/null 2>&1; then
	echo "demo: reusing the cluster already running in $DIR"
else
	cluster/up.sh "$DIR"
fi
export KUBECONFIG=$DIR/kubeconfig
kubectl apply -f crds/ 2>&1 | grep -v 'version difference' || true
# A CRD has no conditions for a moment after creation; kubectl wait fails on that, so retry.
for _ in $(seq 60); do
	kubectl wait --for condition=established --timeout=5s crd --all >/dev/null 2>&1 && break
	sleep 1
done
echo
kubectl get crd 2>/dev/null
cat <<EOT

demo: the local cluster is up with Volcano's CRDs. The job controller, scheduler, webhook and
node simulator are not part of the demo yet (see README.md), so Jobs are stored and validated by
the API server's schema but not run.

Keep playing:
  export KUBECONFIG=$KUBECONFIG
  kubectl get vcjob,podgroup,queue -A
  kubectl apply -f your-job.yaml
Stop everything:
  make demo-down
EOT
