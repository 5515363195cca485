#!/usr/bin/env bash
# The Job controller end to end, the ray and hcclrank job plugins (docs/volcano/job-controller.md
# §5.7, §5.8), on the stack of jobs_lib.sh (vc-controller with every controller and the
# scheduler, vc-webhook, vc-nodesim). vc-nodesim does not run the containers, so the test checks
# what the controller wrote: the pods' commands, ports, env and annotations, and the Services.
#
#   ray          ray: [] (admission adds svc: []): Service <job>-head-svc (ClusterIP, the head
#                task's pods, ports gcs 6379 / dashboard 8265 / client-server 10001 aimed at the
#                port names), the head container's ports and `ray start --head` command, the
#                worker containers' `ray start --address=<head-0 host>:6379`, marker plugin-ray;
#                a suspend (a kill) deletes the Service, a resume brings it back; deleting the
#                job deletes it (ownerReference)
#   ray-args     every ray argument: other task and container names, ports and the head's
#                fixed hostname
#   ray-no-head  no head task: no pod is ever created, the controller logs why
#   hcclrank     with pytorch: hccl/rankIndex is pytorch's RANK (0, 1, 2) whatever the order of
#                the plugins map; without pytorch: the master's index, replicas(master) + index
#                for workers, nothing for other tasks; no marker
#
# Volcano v1.7 has neither plugin (both came later), so these expectations follow the spec and
# could not be checked against Volcano v1.7: under E2E_IMPL=volcano its admission refuses the
# first job with "unable to find job plugin: ray;".
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

# shellcheck disable=SC2119 # no arguments: the default nodes
jobs_setup

# svc_field NAME JSONPATH
svc_field() { k get service "$1" -o jsonpath="$2"; }
# ctr POD NAME JSONPATH: a field of the pod's container NAME.
ctr() { pfield "$1" "{.spec.containers[?(@.name==\"$2\")]$3}"; }
# ports POD CONTAINER: "name=number" of the container's ports, one line each.
ports() { pfield "$1" "{range .spec.containers[?(@.name==\"$2\")].ports[*]}{.name}={.containerPort}{\"\\n\"}{end}"; }
rank_of() { pfield "$1" '{.metadata.annotations.hccl/rankIndex}'; }
# ray_task NAME REPLICAS CONTAINER: a task whose one container is named CONTAINER.
ray_task() {
	task_yaml "$1" "$2" '' | sed "s/- name: main/- name: $3/"
}

# --- ray ------------------------------------------------------------------------------------------

step "ray: the head Service, the head and worker pods"
ns ray
{
	job_yaml rj "  minAvailable: 3
  plugins:
    ray: []
  tasks:
$(ray_task head 1 head)
$(ray_task worker 2 worker)"
} | apply_job -
wait_phase rj Running 60
wait_for "3 running pods" 30 running_pods rj 3
eq "plugins after admission" "$(jfield rj '{.spec.plugins}')" '{"ray":[],"svc":[]}'
eq "marker" "$(jfield rj '{.status.controlledResources.plugin-ray}')" ray

eq "head Service type" "$(svc_field rj-head-svc '{.spec.type}')" ClusterIP
eq "head Service selector" "$(svc_field rj-head-svc '{.spec.selector}')" \
	'{"volcano.sh/job-name":"rj","volcano.sh/job-namespace":"ray","volcano.sh/task-spec":"head"}'
eq "head Service ports" \
	"$(svc_field rj-head-svc '{range .spec.ports[*]}{.name} {.port} {.targetPort} {.protocol};{end}')" \
	"gcs 6379 gcs TCP;dashboard 8265 dashboard TCP;client-server 10001 client-server TCP;"
eq "head Service owner" "$(svc_field rj-head-svc '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}')" "Job/rj/true"
eq "svc's headless Service is still <job>" "$(svc_field rj '{.spec.clusterIP}')" None
pass "Service rj-head-svc: ClusterIP, the head task's pods, gcs/dashboard/client-server by port name"

eq "head command" "$(ctr rj-head-0 head '.command')" \
	'["sh","-c","ray start --head --block --dashboard-host=0.0.0.0 --port=6379 --dashboard-port=8265 --ray-client-server-port=10001"]'
eq "head ports" "$(ports rj-head-0 head | tr '\n' ' ')" "gcs=6379 dashboard=8265 client-server=10001 "
for p in rj-worker-0 rj-worker-1; do
	eq "$p command" "$(ctr $p worker '.command')" \
		'["sh","-c","ray start --block --address=rj-head-0.rj:6379"]'
	eq "$p ports" "$(ports $p worker)" ""
done
pass "head: ports and ray start --head; workers: ray start --address=rj-head-0.rj:6379"

out=$("$VCCTL" job suspend -N rj -n ray --kubeconfig "$KUBECONFIG" 2>&1) || fail "vcctl job suspend failed" "$out"
wait_phase rj Aborted 60
wait_for "rj-head-svc to go with the kill" 30 gone service -n ray rj-head-svc
eq "marker after the kill" "$(jfield rj '{.status.controlledResources.plugin-ray}')" ""
out=$("$VCCTL" job resume -N rj -n ray --kubeconfig "$KUBECONFIG" 2>&1) || fail "vcctl job resume failed" "$out"
wait_for "3 running pods after resume" 60 running_pods rj 3
check "rj-head-svc back after resume" svc_field rj-head-svc '{.metadata.name}'
pass "a kill (suspend) deletes rj-head-svc, resume creates it again"

k delete vcjob rj --wait=false >/dev/null || fail "kubectl delete vcjob rj failed"
wait_for "the job to go" 30 gone vcjob -n ray rj
wait_for "rj-head-svc to go with the job" 60 gone service -n ray rj-head-svc
pass "deleting the job deletes rj-head-svc"

step "ray: every argument"
ns ray-args
{
	job_yaml ra "  minAvailable: 2
  plugins:
    ray: [--head=boss, --headContainer=ray, --worker=hand, --workerContainer=ray, --port=7000, --dashboardPort=7001, --clientPort=7002]
  tasks:
$(ray_task boss 1 ray | sed 's/^      spec:$/      spec:\n        hostname: chief\n        subdomain: ra/')
$(ray_task hand 1 ray)"
} | apply_job -
wait_for "2 running pods" 60 running_pods ra 2
eq "head command" "$(ctr ra-boss-0 ray '.command')" \
	'["sh","-c","ray start --head --block --dashboard-host=0.0.0.0 --port=7000 --dashboard-port=7001 --ray-client-server-port=7002"]'
eq "head ports" "$(ports ra-boss-0 ray | tr '\n' ' ')" "gcs=7000 dashboard=7001 client-server=7002 "
eq "worker command" "$(ctr ra-hand-0 ray '.command')" \
	'["sh","-c","ray start --block --address=chief.ra:7000"]'
eq "Service selector task" "$(svc_field ra-head-svc '{.spec.selector.volcano\.sh/task-spec}')" boss
eq "Service ports" "$(svc_field ra-head-svc '{range .spec.ports[*]}{.port}/{.targetPort} {end}')" \
	"7000/gcs 7001/dashboard 7002/client-server "
pass "task and container names, the three ports, the head's fixed hostname"

step "ray: no head task, no pod"
ns ray-no-head
{
	job_yaml rn "  minAvailable: 1
  plugins:
    ray: []
  tasks:
$(ray_task worker 1 worker)"
} | apply_job -
pg_inqueue() { [ "$(k get podgroups.scheduling.volcano.sh -o jsonpath='{.items[*].status.phase}')" = Inqueue ]; }
wait_for "rn's PodGroup Inqueue (pods may be created)" 30 pg_inqueue
logged() { grep -q "job rn doesn't have head task head" "$E2E_DIR/daemons/$CTRL_NAME.log"; }
wait_for "the controller to log the missing head task" 30 logged
eq "pods of rn" "$(npods rn)" 0
pass "PodGroup Inqueue but no pod created; the controller logs: job rn doesn't have head task head"

# --- hcclrank ------------------------------------------------------------------------------------

step "hcclrank after pytorch, and on its own"
ns hccl
{
	job_yaml hp "  minAvailable: 3
  plugins:
    hcclrank: []
    pytorch: []
  tasks:
$(task_yaml master 1 '')
$(task_yaml worker 2 '')"
} | apply_job -
{
	job_yaml hc "  minAvailable: 5
  plugins:
    hcclrank: [--master=m, --worker=w]
  tasks:
$(task_yaml m 2 '')
$(task_yaml w 2 '')
$(task_yaml other 1 '')"
} | apply_job -
wait_for "3 running pods of hp" 60 running_pods hp 3
wait_for "5 running pods of hc" 60 running_pods hc 5
for p in hp-master-0:0 hp-worker-0:1 hp-worker-1:2; do
	eq "RANK of ${p%:*}" "$(env_of "${p%:*}" 0 RANK)" "${p#*:}"
	eq "hccl/rankIndex of ${p%:*}" "$(rank_of "${p%:*}")" "${p#*:}"
done
for p in hc-m-0:0 hc-m-1:1 hc-w-0:2 hc-w-1:3 hc-other-0:; do
	eq "hccl/rankIndex of ${p%:*}" "$(rank_of "${p%:*}")" "${p#*:}"
done
eq "hcclrank marker" "$(jfield hc "{.status.controlledResources.plugin-hcclrank}")" ""
pass "hccl/rankIndex: pytorch's RANK; else the index, replicas(master) + index; no marker"

pass "all job plugin scenarios"
