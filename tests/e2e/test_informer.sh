#!/usr/bin/env bash
# The informer (common/vc_informer.c) against the local cluster's kube-apiserver, through
# tests/integration/itest_informer.c: an informer on labelled ConfigMaps must see every create,
# update and delete once and in order per object while it watches, across a forced watch expiry
# (410 "too old resource version": a relist with adds, updates and tombstones for what the watch
# missed), and across a restart of kube-apiserver (cluster/restart-apiserver.sh, with a write to
# etcd while the server is down so that its watch cache restarts past the informer's version).
#
# ITEST_INFORMER (default build/itest/itest_informer, made by `make build`) is the program to
# run; point it at an ASan build to check the informer for leaks against the real server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

ITEST=${ITEST_INFORMER:-$E2E_ROOT/build/itest/itest_informer}
[ -x "$ITEST" ] || fail "$ITEST is missing: run make build (or set ITEST_INFORMER)"

e2e_cluster_up

step "itest_informer (kubeconfig $KUBECONFIG)"
restart="$E2E_ROOT/cluster/restart-apiserver.sh $E2E_CLUSTER --bump-etcd --down-seconds 3"
out=$("$ITEST" --kubeconfig "$KUBECONFIG" --namespace itest-informer \
	--restart-cmd "$restart 2>>$E2E_DIR/restart.log" 2>&1) ||
	fail "itest_informer failed" "$out"
printf '%s\n' "$out" | grep -v '^ts=' | sed 's/^/     /'
for want in "ok   live:" "ok   restart:" "ok   after the restart:" "ok   expiry:" \
	"ok   all checks passed"; do
	grep -qF -- "$want" <<<"$out" || fail "itest_informer did not report '$want'" "$out"
done
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' <<<"$out"; then
	fail "itest_informer logged a sanitizer report" "$out"
fi
pass "every change seen once and in order: live, across a forced 410, across an API server restart"

step "the restarted kube-apiserver is the cluster's"
grep -q 'started kube-apiserver again' "$E2E_DIR/restart.log" ||
	fail "restart-apiserver.sh did not restart the server" "$(cat "$E2E_DIR/restart.log")"
[ "$(kube get --raw /readyz)" = ok ] || fail "kube-apiserver is not ready after the test"
n=$(kube get configmaps -n itest-informer -l caldera.dev/itest=informer -o name | wc -l)
[ "$n" -gt 0 ] || fail "kubectl sees none of the test's ConfigMaps"
pass "kubectl sees $n labelled ConfigMaps after the restart; down.sh will stop the new server"
