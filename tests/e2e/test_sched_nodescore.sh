#!/usr/bin/env bash
# nodeorder's NodeAffinity (preferred terms) and TaintToleration (PreferNoSchedule) scores and
# scheduling gates, end to end on the stack of jobs_lib.sh with 4 vc-nodesim nodes of
# 4 CPU / 16 Gi and the default scheduler configuration. node-2 is labelled zone=a and node-3
# tainted dedicated=batch:PreferNoSchedule with kubectl (vc-nodesim's --labels and --taints give
# every node of an instance the same ones; it keeps what kubectl adds):
#
#   prefer     a gang of 3 pods (500m, 2Gi each) preferring zone=a with weight 100: all on node-2,
#              where least-requested alone would spread them over the four nodes
#   avoid      then a gang of 6 such pods: none on node-3 while the other three have room
#   tolerate   then one pod tolerating the taint: it takes node-3, the emptiest node (its
#              PreferNoSchedule taint no longer counts against it)
#   gates      a gang of 2 pods whose template has spec.schedulingGates: never bound while
#              gated; bound once the gates are removed
#
# Checked against Volcano v1.7 (E2E_IMPL=volcano): prefer, avoid and tolerate hold there too.
# v1.7 adds the raw sum of the preferred weights (not normalised) and the taint score with
# weights 1 and 1, Caldera the normalised scores with weights 2 and 3 (the spec's, Volcano
# HEAD's); the scenario's margins hold for both. The gates check needs an API server that keeps
# spec.schedulingGates (Kubernetes ≥ 1.26): the local cluster's v1.20 drops the field, so the
# check is skipped there (say so), and v1.7 has no scheduling gates (skipped under volcano).
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup "4:cpu=4,memory=16Gi,pods=110"
kube label node node-2 zone=a >/dev/null || fail "cannot label node-2"
kube taint node node-3 dedicated=batch:PreferNoSchedule >/dev/null || fail "cannot taint node-3"

# job NAME REPLICAS [POD_SPEC_EXTRA]: a gang of REPLICAS pods of 500m / 2Gi running until
# deleted; POD_SPEC_EXTRA is YAML at the pod spec's indentation.
job() {
	job_yaml "$1" "  schedulerName: volcano
  minAvailable: $2
  tasks:
  - name: w
    replicas: $2
    template:
      spec:
        restartPolicy: Never
        terminationGracePeriodSeconds: 1
${3:+$3
}        containers:
        - name: main
          image: busybox
          resources:
            requests: {cpu: 500m, memory: 2Gi}" | apply_job -
}
running_is() { pods_are "$1" "$2" Running; }
# nodes_of JOB: the nodes of the job's pods, one per pod, sorted.
nodes_of() { k get pods -l "volcano.sh/job-name=$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort; }

step "prefer: preferred node affinity steers the gang to node-2"
ns nodescore-prefer
job prefer 3 "        affinity:
          nodeAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              preference:
                matchExpressions: [{key: zone, operator: In, values: [a]}]"
wait_for "job prefer's 3 pods Running" 90 running_is prefer 3
eq "nodes of job prefer" "$(nodes_of prefer | uniq -c | awk '{print $1, $2}')" "3 node-2"
pass "prefer: 3/3 pods on the preferred node"

step "avoid: PreferNoSchedule steers the gang away from node-3"
ns nodescore-avoid
job avoid 6
wait_for "job avoid's 6 pods Running" 90 running_is avoid 6
got=$(nodes_of avoid)
! grep -qx node-3 <<<"$got" || fail "a pod of job avoid is on the PreferNoSchedule node-3" "$got"
pass "avoid: 6 pods on node-0..node-2, none on node-3"

step "tolerate: a pod tolerating the taint takes the emptiest node, node-3"
job tolerate 1 "        tolerations: [{key: dedicated, operator: Equal, value: batch, effect: PreferNoSchedule}]"
wait_for "job tolerate's pod Running" 60 running_is tolerate 1
eq "node of job tolerate" "$(nodes_of tolerate)" node-3
pass "tolerate: on node-3"

step "gates: a gated gang is never bound until its gates are removed"
ns nodescore-gates
# Does the API server keep spec.schedulingGates? (v1.20 drops the unknown field.)
probe=$(printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: probe, namespace: %s}\nspec:\n  schedulerName: not-scheduled\n  schedulingGates: [{name: example.com/probe}]\n  containers: [{name: main, image: busybox}]\n' "$CUR_NS" |
	kube create --dry-run=server -o jsonpath='{.spec.schedulingGates[0].name}' -f - 2>&1) || true
if ! is_caldera; then
	skip "gates: Volcano v1.7 has no scheduling gates"
elif [ "$probe" != example.com/probe ]; then
	skip "gates: this API server drops spec.schedulingGates (Kubernetes < 1.26); checked by the unit tests only"
else
	job gated 2 "        schedulingGates: [{name: example.com/wait}]"
	wait_for "job gated's 2 pods" 60 pods_are gated 2
	# unbound: no pod of the job has a node (for at least a few cycles of 500 ms).
	unbound() { [ -z "$(nodes_of gated | tr -d '\n')" ] || { nodes_of gated; return 1; }; }
	for _ in 1 2 3 4 5 6; do
		check "gated pods stay unbound" unbound
		sleep 1
	done
	for p in $(pods_of gated); do
		k patch pod "$p" --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]' >/dev/null ||
			fail "cannot remove the gates of $p"
	done
	wait_for "job gated's 2 pods Running once ungated" 60 running_is gated 2
	pass "gates: unbound while gated, Running once ungated"
fi
