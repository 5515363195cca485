# shellcheck shell=bash
# Helpers for the tests of manifests/ (test_manifests*.sh); source after lib.sh.
#
#   as_list                        stdin: kubectl's JSON (objects, Lists); stdout: one List
#   render DIR OUT                 kubectl kustomize DIR into OUT.yaml and, as a List, OUT.json
#   install_overlay DIR JSON       CRDs, the namespace, `kubectl apply -k DIR` for real; the
#                                  rendering in JSON
#   sa_dir SA                      the ServiceAccount's token, ca.crt and namespace as the
#                                  kubelet mounts them, in $E2E_DIR/sa/SA (Kubernetes 1.20
#                                  makes a token Secret per ServiceAccount)
#   kubeconfig_of SA               prints a kubeconfig file with that token (calls sa_dir)
# NS is volcano-system; SERVER the API server's URL (set by install_overlay).

NS=volcano-system
SERVER=

as_list() { jq -s '{kind: "List", items: [.[] | if .kind == "List" then .items[] else . end]}'; }

render() {
	local out
	out=$(kube kustomize "$1" 2>&1 >"$2.yaml") || fail "kubectl kustomize $1 failed" "$out"
	kube create --dry-run=client -f "$2.yaml" -o json | as_list >"$2.json" ||
		fail "the rendering of $1 does not parse"
}

install_overlay() {
	local out
	kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
	wait_for "the CRDs to be established" 60 kube wait --for condition=established --timeout=5s crd --all
	render "$1" "${2%.json}"
	# A namespaced object needs its namespace for real.
	kube apply -f "$E2E_ROOT/manifests/base/00-namespace.yaml" >/dev/null || fail "cannot create the namespace"
	wait_for "the namespace's default ServiceAccount" 30 kube -n $NS get serviceaccount default
	out=$(kube apply -k "$1" 2>&1) || fail "kubectl apply -k $1 failed" "$out"
	SERVER=$(kube config view --minify -o jsonpath='{.clusters[0].cluster.server}')
}

_sa_secret() { kube -n $NS get serviceaccount "$1" -o jsonpath='{.secrets[0].name}' | grep .; }
sa_dir() {
	local d=$E2E_DIR/sa/$1 secret k
	[ ! -s "$d/token" ] || return 0
	wait_for "the token Secret of ServiceAccount $1" 30 _sa_secret "$1"
	secret=$(_sa_secret "$1")
	mkdir -p "$d"
	for k in token ca.crt namespace; do
		kube -n $NS get secret "$secret" -o jsonpath="{.data.${k//./\\.}}" | base64 -d >"$d/$k"
	done
	[ -s "$d/token" ] || fail "the Secret $secret has no token"
}

kubeconfig_of() {
	local f=$E2E_DIR/sa/$1.kubeconfig
	sa_dir "$1"
	KUBECONFIG=$f kubectl config set-cluster c --server="${SERVER:?install_overlay first}" \
		--certificate-authority="$E2E_DIR/sa/$1/ca.crt" --embed-certs >/dev/null
	KUBECONFIG=$f kubectl config set-credentials u --token="$(cat "$E2E_DIR/sa/$1/token")" >/dev/null
	KUBECONFIG=$f kubectl config set-context c --cluster=c --user=u >/dev/null
	KUBECONFIG=$f kubectl config use-context c >/dev/null
	echo "$f"
}
