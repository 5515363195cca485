#!/usr/bin/env bash
# Kubeconfig users that log in through credential plugins, against the local cluster:
#   - exec: a kubeconfig whose user is an exec plugin (client.authentication.k8s.io/v1, a
#     relative command, env, provideClusterInfo) that prints the admin token; the real kubectl
#     accepts the same kubeconfig; `vcctl job run` and `job list` work through it, the plugin
#     running once per vcctl process and getting KUBERNETES_EXEC_INFO; vc-controller works
#     through it (opens the default queue, makes a Job's PodGroup);
#   - a plugin that fails: vcctl and vc-controller say which plugin failed and how, the
#     plugin's stderr shows, and vc-controller keeps running and recovers once the plugin works;
#   - oidc: a kubeconfig with the oidc auth-provider whose id-token is caldera-oidc's token
#     (cluster/up.sh makes it JWT-shaped) lists jobs; gcp gets kubectl's removal message.
# The expectations follow client-go, and kubectl (v1.32) reads the same kubeconfig. Checked by
# hand against Volcano v1.7's binaries (client-go 0.25) on the same kind of cluster and
# kubeconfigs: its vcctl lists jobs through the exec plugin and through the oidc id-token,
# prints the plugin's stderr and "getting credentials: exec: executable .../fail.sh failed with
# exit code 3", refuses v1alpha1 ("exec plugin: invalid apiVersion ...") and a v1 plugin without
# interactiveMode with the same words; its vc-scheduler and vc-controller-manager work through
# the plugin, running it once per process. (Not run under E2E_IMPL: this scenario is not built on
# jobs_lib.sh, and Volcano's vc-controller-manager has no oidc auth-provider.)
#
# VCCTL and VC_CONTROLLER (default build/vcctl, build/vc-controller) are the binaries to run.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

VCCTL=${VCCTL:-${E2E_BIN_DIR:-$E2E_ROOT/build}/vcctl}
CTRL=${VC_CONTROLLER:-${E2E_BIN_DIR:-$E2E_ROOT/build}/vc-controller}
for b in "$VCCTL" "$CTRL"; do
	[ -x "$b" ] || fail "$b is missing: run make build (or set VCCTL / VC_CONTROLLER)"
done

# shellcheck disable=SC2119 # no up.sh flags
e2e_cluster_up

step "CRDs"
kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
wait_for "Jobs to be served" 30 kube get jobs.batch.volcano.sh
pass "Volcano's CRDs established"

token_of() { awk -F, -v u="$1" '$2 == u { print $1 }' "$E2E_CLUSTER/tokens.csv"; }
ADMIN_TOKEN=$(token_of admin)
OIDC_TOKEN=$(token_of caldera-oidc)
[ -n "$ADMIN_TOKEN" ] || fail "no admin token in $E2E_CLUSTER/tokens.csv"
[ -n "$OIDC_TOKEN" ] || fail "no caldera-oidc token in $E2E_CLUSTER/tokens.csv (cluster/up.sh makes it)"
SERVER=$(kube config view --raw -o jsonpath='{.clusters[0].cluster.server}')
CA_DATA=$(kube config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')

# kubeconfig FILE LINE...: a kubeconfig for the cluster whose user is the LINEs of YAML (each
# goes under "user:", indented by 4 spaces).
kubeconfig() {
	local f=$1 line
	shift
	cat >"$f" <<-EOF
		apiVersion: v1
		kind: Config
		clusters:
		- name: caldera
		  cluster:
		    server: $SERVER
		    certificate-authority-data: $CA_DATA
		    extensions:
		    - name: client.authentication.k8s.io/exec
		      extension: {audience: caldera-e2e}
		contexts:
		- name: caldera
		  context: {cluster: caldera, user: plugin, namespace: default}
		current-context: caldera
		users:
		- name: plugin
		  user:
	EOF
	for line in "$@"; do
		printf '    %s\n' "$line" >>"$f"
	done
}

# The plugin: a script beside the kubeconfig, named relative to it, that notes each run and the
# KUBERNETES_EXEC_INFO it got, then is tests/data/exec/token.sh with EXEC_TOKEN from the
# kubeconfig's env.
KC_DIR=$E2E_DIR/kc
mkdir -p "$KC_DIR/bin"
cat >"$KC_DIR/bin/admin-token" <<EOF
#!/bin/sh
echo run >>"$KC_DIR/runs"
printf '%s' "\$KUBERNETES_EXEC_INFO" >"$KC_DIR/exec-info.json"
exec "$E2E_ROOT/tests/data/exec/token.sh"
EOF
chmod +x "$KC_DIR/bin/admin-token"
EXEC_KC=$KC_DIR/exec.kubeconfig
kubeconfig "$EXEC_KC" "exec:" \
	"  apiVersion: client.authentication.k8s.io/v1" \
	"  command: bin/admin-token" \
	"  env: [{name: EXEC_TOKEN, value: '$ADMIN_TOKEN'}]" \
	"  provideClusterInfo: true" \
	"  interactiveMode: IfAvailable" \
	"  installHint: install bin/admin-token"
runs() { if [ -f "$KC_DIR/runs" ]; then wc -l <"$KC_DIR/runs"; else echo 0; fi; }

# stdin is not a terminal: the plugin is never interactive here, whoever runs the test.
vc() { "$VCCTL" "$@" --kubeconfig "$EXEC_KC" </dev/null; }

step "kubectl accepts the exec kubeconfig (client-go's own reading of it)"
# The plugin's stderr ("token.sh: run 1") goes to the program's: keep it apart from the output.
ERRS=$KC_DIR/stderr
out=$(kubectl --kubeconfig "$EXEC_KC" get namespace default -o name 2>"$ERRS") ||
	fail "kubectl with the exec kubeconfig failed" "$out" "$(cat "$ERRS")"
[ "$out" = namespace/default ] || fail "kubectl: unexpected output" "$out"
rm -f "$KC_DIR/runs"
pass "kubectl logs in through bin/admin-token"

step "vcctl through the exec plugin"
out=$(vc job list 2>"$ERRS") || fail "vcctl job list with an exec plugin failed" "$(cat "$ERRS")"
[ "$out" = "No resources found" ] || fail "vcctl job list: unexpected output" "$out"
grep -qx 'token.sh: run 1' "$ERRS" || fail "the plugin's stderr did not show" "$(cat "$ERRS")"
out=$(vc job run -N exec-job -r 1 -m 1 2>"$ERRS") || fail "vcctl job run with an exec plugin failed" "$(cat "$ERRS")"
[ "$out" = "run job exec-job successfully" ] || fail "vcctl job run: unexpected output" "$out"
out=$(vc job list 2>"$ERRS") || fail "vcctl job list with an exec plugin failed" "$(cat "$ERRS")"
grep -q '^exec-job ' <<<"$out" || fail "vcctl job list does not show exec-job" "$out"
[ "$(runs)" = 3 ] || fail "the plugin ran $(runs) times for 3 vcctl commands, want one per process"
info=$(cat "$KC_DIR/exec-info.json")
for want in '"kind":"ExecCredential"' '"apiVersion":"client.authentication.k8s.io/v1"' \
	"\"server\":\"$SERVER\"" '"config":{"audience":"caldera-e2e"}' '"interactive":false' \
	'"certificate-authority-data":"'; do
	grep -qF "$want" <<<"$info" || fail "KUBERNETES_EXEC_INFO lacks $want" "$info"
done
pass "vcctl job run/list work through the plugin (one run per command, cluster info passed)"

step "vcctl with a plugin that fails, one that is missing, bad JSON"
FAIL_KC=$KC_DIR/fail.kubeconfig
kubeconfig "$FAIL_KC" "exec:" \
	"  apiVersion: client.authentication.k8s.io/v1beta1" \
	"  command: $E2E_ROOT/tests/data/exec/fail.sh"
if out=$("$VCCTL" job list --kubeconfig "$FAIL_KC" </dev/null 2>&1); then
	fail "vcctl with a failing plugin succeeded" "$out"
fi
grep -qF "getting credentials: exec: executable $E2E_ROOT/tests/data/exec/fail.sh failed with exit code 3" <<<"$out" ||
	fail "vcctl does not say which plugin failed and how" "$out"
grep -qF "fail.sh: no credentials for you" <<<"$out" || fail "the plugin's stderr did not show" "$out"
MISSING_KC=$KC_DIR/missing.kubeconfig
kubeconfig "$MISSING_KC" "exec:" \
	"  apiVersion: client.authentication.k8s.io/v1" \
	"  command: caldera-no-such-plugin" \
	"  interactiveMode: Never" \
	"  installHint: Install it with apt-get install caldera-plugin"
if out=$("$VCCTL" job list --kubeconfig "$MISSING_KC" 2>&1); then
	fail "vcctl with a missing plugin succeeded" "$out"
fi
if ! grep -qF "exec: executable caldera-no-such-plugin not found" <<<"$out" ||
	! grep -qF "Install it with apt-get install caldera-plugin" <<<"$out"; then
	fail "vcctl does not name the missing plugin with its install hint" "$out"
fi
BAD_KC=$KC_DIR/bad.kubeconfig
kubeconfig "$BAD_KC" "exec:" \
	"  apiVersion: client.authentication.k8s.io/v1" \
	"  command: $E2E_ROOT/tests/data/exec/bad-json.sh" \
	"  interactiveMode: Never"
if out=$("$VCCTL" job list --kubeconfig "$BAD_KC" 2>&1); then
	fail "vcctl with a plugin printing bad JSON succeeded" "$out"
fi
grep -qF "bad-json.sh: decoding stdout:" <<<"$out" || fail "vcctl does not say the plugin's output is bad" "$out"
pass "plugin failures are reported with the plugin's name"

step "vc-controller through the exec plugin"
rm -f "$KC_DIR/runs"
HEALTHZ_PORT=$(free_port)
start_daemon vc-controller "$CTRL" --kubeconfig "$EXEC_KC" --leader-elect=false \
	--controllers='*' --enable-healthz=true --healthz-address "127.0.0.1:$HEALTHZ_PORT" \
	--listen-address "127.0.0.1:$(free_port)"
healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$HEALTHZ_PORT/healthz"; }
wait_for "vc-controller healthy" 30 healthy
queue_open() { [ "$(kube get queue default -o jsonpath='{.status.state}')" = Open ]; }
wait_for "vc-controller to open the default queue" 30 queue_open
has_podgroup() { [ -n "$(kube get podgroups.scheduling.volcano.sh -o name 2>/dev/null)" ]; }
wait_for "vc-controller to make exec-job's PodGroup" 30 has_podgroup
# Many threads (informers, workers, the scheduler), one credential: the token has no expiry.
[ "$(runs)" = 1 ] || fail "the plugin ran $(runs) times for one vc-controller, want 1"
stop_daemon vc-controller
pass "vc-controller lists, watches and writes through the plugin (one run)"

step "vc-controller with a failing plugin says why, and keeps running"
start_daemon vc-controller-fail "$CTRL" --kubeconfig "$FAIL_KC" --leader-elect=false \
	--controllers='*' --enable-healthz=true --healthz-address "127.0.0.1:$(free_port)" \
	--listen-address "127.0.0.1:$(free_port)"
said_why() { grep -qF "exec: executable $E2E_ROOT/tests/data/exec/fail.sh failed with exit code 3" "$E2E_DIR/daemons/vc-controller-fail.log"; }
wait_for "vc-controller to log the plugin's failure" 30 said_why
grep -qF "fail.sh: no credentials for you" "$E2E_DIR/daemons/vc-controller-fail.log" ||
	fail "the plugin's stderr is not in vc-controller's log"
daemon_running vc-controller-fail || fail "vc-controller exited when its plugin failed"
stop_daemon vc-controller-fail
pass "vc-controller reports the failing plugin and stays up"

step "oidc auth-provider: the id-token is the bearer token"
OIDC_KC=$KC_DIR/oidc.kubeconfig
kubeconfig "$OIDC_KC" "auth-provider:" \
	"  name: oidc" \
	"  config:" \
	"    idp-issuer-url: https://idp.invalid" \
	"    client-id: caldera" \
	"    id-token: $OIDC_TOKEN" \
	"    refresh-token: unused"
out=$("$VCCTL" job list --kubeconfig "$OIDC_KC" 2>"$ERRS") || fail "vcctl with an oidc id-token failed" "$(cat "$ERRS")"
grep -q '^exec-job ' <<<"$out" || fail "vcctl job list (oidc) does not show exec-job" "$out"
GCP_KC=$KC_DIR/gcp.kubeconfig
kubeconfig "$GCP_KC" "auth-provider: {name: gcp}"
if out=$("$VCCTL" job list --kubeconfig "$GCP_KC" 2>&1); then
	fail "vcctl with the gcp auth-provider succeeded" "$out"
fi
if ! grep -qF 'The gcp auth plugin has been removed.' <<<"$out" ||
	! grep -qF 'gke-gcloud-auth-plugin' <<<"$out"; then
	fail "vcctl does not point gcp users at gke-gcloud-auth-plugin" "$out"
fi
pass "oidc id-tokens work; gcp users are told to switch to the exec plugin"
