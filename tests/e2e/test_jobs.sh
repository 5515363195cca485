#!/usr/bin/env bash
# The Job controller end to end, part 1: the examples and the plugins' objects. vc-controller
# (every controller, the bundled scheduler), vc-webhook and vc-nodesim on the local cluster,
# driven by kubectl:
#
#   tensorflow-benchmark  examples/tensorflow-benchmark.yaml runs to Completed; while it runs its
#                         pods carry the labels, annotations, VK_TASK_INDEX / VC_TASK_INDEX, the
#                         hosts ConfigMap mounted at /etc/volcano, hostname and subdomain; the
#                         headless Service, the ConfigMap and the PodGroup exist; afterwards the
#                         ps is stopped and the plugin objects and the PodGroup are gone
#   mpi                   examples/mpi.yaml: the ssh Secret exists and is mounted, the host
#                         file lists the workers, Completed when the master completes; with the
#                         mpi plugin MPI_HOST lists the workers
#   tensorflow, pytorch   examples/tf-mnist.yaml: TF_CONFIG per pod; examples/pytorch.yaml:
#                         MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK
#   delete                deleting a running job removes its pods, PodGroup, Service, ConfigMap
#                         and Secret
#   ttl                   ttlSecondsAfterFinished deletes the finished job
#
# Jobs run in seconds: vc-nodesim honours the sandbox.caldera.dev/* annotations. Every failed
# check prints the namespace's jobs, pods, PodGroups, events and vc-controller's last lines.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup

SNAP= # the JSON of a snapshot
# snap: jobs, pods, services, configmaps, secrets and podgroups of the namespace in one request, so
# that checks of a short-lived state all see the same moment.
snap() {
	SNAP=$(k get jobs.batch.volcano.sh,pods,services,configmaps,secrets,podgroups.scheduling.volcano.sh -o json) ||
		fail "kubectl get (snapshot) failed"
}
# sq JQ: a jq query on the snapshot (raw output).
sq() { jq -r "$1" <<<"$SNAP"; }
# obj KIND NAME: the object of the snapshot, or empty.
obj() { sq ".items[] | select(.kind == \"$1\" and .metadata.name == \"$2\")"; }
has_obj() { [ -n "$(obj "$1" "$2")" ]; }
# of KIND NAME JQ: a field of one object.
of() { jq -r "$3" <<<"$(obj "$1" "$2")"; }

# --- tensorflow-benchmark -------------------------------------------------------------------------

step "examples/tensorflow-benchmark.yaml"
ns tf
apply_job "$E2E_ROOT/examples/tensorflow-benchmark.yaml"
J=tensorflow-benchmark
wait_phase $J Running 60
snap
uid=$(jfield $J '{.metadata.uid}')
for p in $J-ps-0 $J-worker-0 $J-worker-1; do
	has_obj Pod "$p" || fail "pod $p is missing while the job runs"
done
eq "pods of $J" "$(sq '[.items[] | select(.kind == "Pod") | .metadata.name] | sort | join(" ")')" \
	"$J-ps-0 $J-worker-0 $J-worker-1"
P=$J-worker-1
eq "labels of $P" "$(of Pod $P '.metadata.labels | [."volcano.sh/job-name", ."volcano.sh/job-namespace", ."volcano.sh/task-spec", ."volcano.sh/task-index", ."volcano.sh/queue-name"] | join(" ")')" \
	"$J tf worker 1 default"
eq "annotations of $P" "$(of Pod $P '.metadata.annotations | [."scheduling.k8s.io/group-name", ."volcano.sh/job-name", ."volcano.sh/task-spec", ."volcano.sh/task-index", ."volcano.sh/job-version", ."volcano.sh/job-retry-count", ."volcano.sh/template-uid", ."volcano.sh/queue-name"] | join(" ")')" \
	"$J-$uid $J worker 1 0 0 $J-worker default"
eq "controller of $P" "$(of Pod $P '.metadata.ownerReferences[] | select(.controller) | "\(.kind) \(.name) \(.uid)"')" "Job $J $uid"
eq "env of $P" "$(of Pod $P '[.spec.containers[0].env[] | select(.value != null) | "\(.name)=\(.value)"] | join(" ")')" \
	"VK_TASK_INDEX=1 VC_TASK_INDEX=1"
eq "VK_TASK_INDEX of $J-ps-0" "$(of Pod $J-ps-0 '.spec.containers[0].env[] | select(.name == "VK_TASK_INDEX") | .value')" 0
eq "hosts env of $P" "$(of Pod $P '[.spec.containers[0].env[] | select(.valueFrom) | "\(.name)<-\(.valueFrom.configMapKeyRef.name)/\(.valueFrom.configMapKeyRef.key)"] | join(" ")')" \
	"VC_PS_HOSTS<-$J-svc/VC_PS_HOSTS VC_PS_NUM<-$J-svc/VC_PS_NUM VC_WORKER_HOSTS<-$J-svc/VC_WORKER_HOSTS VC_WORKER_NUM<-$J-svc/VC_WORKER_NUM"
eq "/etc/volcano mount of $P" "$(of Pod $P '.spec.containers[0].volumeMounts[] | select(.mountPath == "/etc/volcano") | .name')" "$J-svc"
eq "volume $J-svc of $P" "$(of Pod $P ".spec.volumes[] | select(.name == \"$J-svc\") | .configMap.name")" "$J-svc"
eq "hostname.subdomain of $P" "$(of Pod $P '"\(.spec.hostname).\(.spec.subdomain)"')" "$J-worker-1.$J"
eq "schedulerName and node of $P" "$(of Pod $P '"\(.spec.schedulerName) \(.spec.nodeName | startswith("node-"))"')" "volcano true"
has_obj ConfigMap $J-svc || fail "ConfigMap $J-svc is missing while the job runs"
eq "ps.host" "$(of ConfigMap $J-svc '.data."ps.host"')" "$J-ps-0.$J"
eq "worker.host" "$(of ConfigMap $J-svc '.data."worker.host"')" "$J-worker-0.$J
$J-worker-1.$J"
eq "VC_WORKER_HOSTS" "$(of ConfigMap $J-svc '.data.VC_WORKER_HOSTS')" "$J-worker-0.$J,$J-worker-1.$J"
eq "VC_WORKER_NUM" "$(of ConfigMap $J-svc '.data.VC_WORKER_NUM')" 2
has_obj Service $J || fail "Service $J is missing while the job runs"
eq "Service $J" "$(of Service $J '"\(.spec.clusterIP) \(.spec.selector."volcano.sh/job-name") \(.spec.selector."volcano.sh/job-namespace") \(.metadata.ownerReferences[0].uid)"')" \
	"None $J tf $uid"
eq "PodGroup" "$(of PodGroup $J-$uid '"\(.spec.minMember) \(.spec.queue) \(.spec.minTaskMember.ps) \(.spec.minTaskMember.worker) \(.metadata.ownerReferences[0].uid)"')" \
	"3 default 1 2 $uid"
eq "status while running" "$(of Job $J '.status | "\(.state.phase) \(.minAvailable) \(.running) \(.controlledResources."plugin-svc") \(.controlledResources."plugin-env")"')" "Running 3 3 svc env"
pass "$J Running: pods with labels, annotations, env, /etc/volcano; Service, ConfigMap, PodGroup"

# The workers succeed after 5 s: TaskCompleted -> CompleteJob; the ps is stopped.
wait_phase $J Completed 60
no_ps() { gone pod -n tf $J-ps-0; }
wait_for "the ps to be stopped" 30 no_ps
eq "worker phases" "$(k get pods -l volcano.sh/task-spec=worker -o jsonpath='{.items[*].status.phase}')" "Succeeded Succeeded"
plugin_objects_gone() { gone service -n tf $J && gone configmap -n tf $J-svc && gone podgroup -n tf $J-$uid; }
wait_for "the Service, the ConfigMap and the PodGroup to be deleted" 30 plugin_objects_gone
k get events --field-selector "involvedObject.name=$J" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' |
	grep -qxF 'ExecuteAction: Start to execute action CompleteJob ' ||
	fail "no ExecuteAction event for CompleteJob on $J"
pass "$J Completed via TaskCompleted -> CompleteJob; ps stopped; Service, ConfigMap, PodGroup deleted"

# --- mpi --------------------------------------------------------------------------------------------

step "examples/mpi.yaml"
ns mpi
apply_job "$E2E_ROOT/examples/mpi.yaml"
J=lm-mpi-job
wait_phase $J Running 60
snap
has_obj Secret $J-ssh || fail "Secret $J-ssh is missing while the job runs"
eq "Secret keys" "$(of Secret $J-ssh '.data | keys | join(" ")')" "authorized_keys config id_rsa id_rsa.pub"
of Secret $J-ssh '.data.config' | base64 -d | grep -qxF "  HostName $J-mpiworker-2.$J" ||
	fail "the ssh config lacks mpiworker-2" "$(of Secret $J-ssh '.data.config' | base64 -d)"
[ "$(of Secret $J-ssh '.data."id_rsa.pub"' | base64 -d | cut -c1-8)" = "ssh-rsa " ] || fail "id_rsa.pub is not an ssh-rsa key"
for p in $J-mpimaster-0 $J-mpiworker-0; do
	eq "ssh mount of $p" "$(of Pod $p ".spec.containers[0].volumeMounts[] | select(.name == \"$J-ssh\") | \"\(.mountPath) \(.subPath)\"")" "/root/.ssh .ssh"
	eq "ssh volume of $p" "$(of Pod $p ".spec.volumes[] | select(.name == \"$J-ssh\") | \"\(.secret.secretName) \(.secret.defaultMode)\"")" "$J-ssh 384"
done
eq "mpiworker.host" "$(of ConfigMap $J-svc '.data."mpiworker.host"')" "$J-mpiworker-0.$J
$J-mpiworker-1.$J
$J-mpiworker-2.$J"
pass "$J Running: Secret $J-ssh with the keys and config, mounted at /root/.ssh; host file lists 3 workers"
wait_phase $J Completed 60
workers_gone() { [ "$(npods $J)" = 1 ]; }
wait_for "the workers to be stopped" 30 workers_gone
eq "master phase" "$(pfield $J-mpimaster-0 '{.status.phase}')" Succeeded
wait_for "Secret $J-ssh to be deleted" 30 gone secret -n mpi $J-ssh
pass "$J Completed when the master completed; workers stopped; Secret deleted"

step "the mpi plugin: MPI_HOST"
ns mpi-plugin
sed 's/^    ssh: \[\]$/    ssh: []\n    mpi: ["--master=mpimaster", "--worker=mpiworker"]/' \
	"$E2E_ROOT/examples/mpi.yaml" >"$E2E_DIR/mpi-plugin.yaml"
grep -q -- '--master=mpimaster' "$E2E_DIR/mpi-plugin.yaml" || fail "could not add the mpi plugin"
apply_job "$E2E_DIR/mpi-plugin.yaml"
wait_for "pod $J-mpimaster-0" 60 k get pod $J-mpimaster-0
eq "MPI_HOST" "$(env_of $J-mpimaster-0 0 MPI_HOST)" "$J-mpiworker-0.$J,$J-mpiworker-1.$J,$J-mpiworker-2.$J"
eq "MPI_HOST on a worker" "$(env_of $J-mpiworker-0 0 MPI_HOST)" ""
eq "mpijob-port" "$(pfield $J-mpiworker-1 '{.spec.containers[0].ports[?(@.containerPort==22)].name}')" mpijob-port
wait_phase $J Completed 60
pass "MPI_HOST on the master lists the 3 workers"

# --- tensorflow and pytorch plugins -----------------------------------------------------------------

step "examples/tf-mnist.yaml: TF_CONFIG"
ns tf-mnist
apply_job "$E2E_ROOT/examples/tf-mnist.yaml"
J=tf-mnist
wait_for "the pods of $J" 60 pods_are $J 3
ps0='"ps":["tf-mnist-ps-0.tf-mnist:2222"]'
wk='"worker":["tf-mnist-worker-0.tf-mnist:2222","tf-mnist-worker-1.tf-mnist:2222"]'
eq "TF_CONFIG of ps-0" "$(env_of $J-ps-0 0 TF_CONFIG)" "{\"cluster\":{$ps0,$wk},\"task\":{\"type\":\"ps\",\"index\":0}}"
eq "TF_CONFIG of worker-1" "$(env_of $J-worker-1 0 TF_CONFIG)" "{\"cluster\":{$ps0,$wk},\"task\":{\"type\":\"worker\",\"index\":1}}"
eq "plugins after admission" "$(jfield $J '{.spec.plugins}')" '{"svc":[],"tensorflow":["--ps=ps","--worker=worker","--port=2222"]}'
wait_phase $J Completed 60
pass "TF_CONFIG per pod; $J Completed"

step "examples/pytorch.yaml: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK"
ns pytorch
apply_job "$E2E_ROOT/examples/pytorch.yaml"
J=pytorch-mnist
wait_for "the pods of $J" 60 pods_are $J 3
for p in master-0:0 worker-0:1 worker-1:2; do
	pod=$J-${p%%:*}
	eq "pytorch env of $pod" "$(env_of "$pod" 0 MASTER_ADDR) $(env_of "$pod" 0 MASTER_PORT) $(env_of "$pod" 0 WORLD_SIZE) $(env_of "$pod" 0 RANK)" \
		"$J-master-0.$J 23456 3 ${p#*:}"
done
eq "pytorchjob-port" "$(pfield $J-worker-0 '{.spec.containers[0].ports[?(@.name=="pytorchjob-port")].containerPort}')" 23456
wait_phase $J Completed 60
pass "pytorch env per pod (RANK 0, 1, 2); $J Completed"

# --- deletion and TTL ------------------------------------------------------------------------------

step "deleting a running job removes what it owns"
ns del
{
	job_yaml victim "  minAvailable: 3
  plugins: {ssh: [], svc: [], env: []}
  tasks:
$(task_yaml a 1 '')
$(task_yaml b 2 '')"
} | apply_job -
J=victim
wait_phase $J Running 60
uid=$(jfield $J '{.metadata.uid}')
check "the Secret, Service, ConfigMap and PodGroup exist" \
	k get secret/$J-ssh service/$J configmap/$J-svc podgroup.scheduling.volcano.sh/$J-$uid
k delete vcjob $J --wait=false >/dev/null || fail "kubectl delete vcjob $J failed"
all_gone() {
	local left
	left=$(k get pods,secrets,services,configmaps,podgroups.scheduling.volcano.sh -o name 2>&1 |
		grep -E "$J" || true)
	[ -z "$left" ] || { echo "$left"; return 1; }
}
wait_for "the pods, PodGroup, Service, ConfigMap and Secret of $J to go" 60 all_gone
wait_for "the job to go" 30 gone vcjob -n del $J
pass "pods, PodGroup, Service, ConfigMap and Secret deleted with the job"

step "ttlSecondsAfterFinished"
ns ttl
{
	job_yaml short "  minAvailable: 1
  ttlSecondsAfterFinished: 3
  tasks:
$(task_yaml a 1 1)"
} | apply_job -
wait_phase short Completed 60
t0=$SECONDS
wait_for "job short to be deleted after its TTL" 30 gone vcjob -n ttl short
[ $((SECONDS - t0)) -ge 1 ] || fail "job short was deleted before its TTL of 3 s"
pass "the Completed job was deleted after ttlSecondsAfterFinished (3 s)"
CUR_NS=
