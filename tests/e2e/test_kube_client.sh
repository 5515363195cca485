#!/usr/bin/env bash
# The Kubernetes REST client (common/vc_kube.c) against the local cluster's kube-apiserver:
# tests/integration/itest_kube.c pages through 2,000 ConfigMaps, checks the error mapping with
# the server's own messages (Conflict on a stale update, NotFound, AlreadyExists, Invalid),
# the three patch types, delete preconditions, a watch seeing create/update/delete in order,
# and pods/binding, pods/status and pods/eviction on a fake Node. Then the same client through
# in-cluster configuration (the service-account files and KUBERNETES_SERVICE_HOST/PORT).
#
# ITEST_KUBE (default build/itest/itest_kube, made by `make build`) is the program to run; point
# it at an ASan build to check the client for leaks against the real server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

ITEST=${ITEST_KUBE:-$E2E_ROOT/build/itest/itest_kube}
[ -x "$ITEST" ] || fail "$ITEST is missing: run make build (or set ITEST_KUBE)"

# shellcheck disable=SC2119 # no up.sh flags
e2e_cluster_up

step "Volcano's CRDs (for the custom-resource patch checks)"
# kubectl's discovery complains about the new groups while they appear: keep that in a log.
crds=$(kube apply -f "$E2E_ROOT/crds" -o name 2>"$E2E_DIR/crds.log") ||
	fail "kubectl apply -f crds failed" "$(cat "$E2E_DIR/crds.log")"
# kubectl wait can fail at once right after the apply (a CRD's discovery or watch not ready
# yet; a clean-clone run failed so within 13 s): ask again until 60 s are up.
# shellcheck disable=SC2086 # one argument per CRD
wait_for "the CRDs Established" 60 kube wait --for=condition=Established --timeout=30s $crds
pass "CRDs Established"

step "itest_kube test (kubeconfig $KUBECONFIG)"
out=$("$ITEST" --kubeconfig "$KUBECONFIG" test 2>&1) || fail "itest_kube test failed" "$out"
printf '%s\n' "$out" | sed 's/^/     /'
case $out in
*"ok   all checks passed"*) ;;
*) fail "itest_kube did not finish its checks" "$out" ;;
esac
if printf '%s\n' "$out" | grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:'; then
	fail "itest_kube logged a sanitizer report" "$out"
fi
pass "REST client checks against kube-apiserver"

step "kubectl sees what the client left"
gone node itest-node || fail "node itest-node is still there"
wait_for "namespace itest-kube to be deleted" 60 gone namespace itest-kube
pass "the test's node and namespace are gone"

step "in-cluster configuration"
# A service-account folder as the kubelet would mount it: the admin token, the CA, a namespace.
sa=$E2E_DIR/serviceaccount
mkdir -p "$sa"
awk -F, '$2 == "admin" { print $1 }' "$E2E_CLUSTER/tokens.csv" >"$sa/token"
cp "$E2E_CLUSTER/pki/ca.crt" "$sa/ca.crt"
printf 'default' >"$sa/namespace"
port=$(sed -n 's/^APISERVER_PORT=//p' "$E2E_CLUSTER/cluster.env")
if [ ! -s "$sa/token" ] || [ -z "$port" ]; then
	fail "no admin token or API server port in $E2E_CLUSTER"
fi
out=$(KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$port \
	"$ITEST" --in-cluster "$sa" bench --threads 2 --requests 200 2>&1) ||
	fail "in-cluster bench run failed" "$out"
printf '%s\n' "$out" | sed 's/^/     /'
case $out in
*"config=in-cluster namespace=default"*"failed=0"*) ;;
*) fail "the in-cluster run did not use the service account or had failures" "$out" ;;
esac
pass "200 GETs over 2 threads with the in-cluster configuration"
