"""Caldera's compact description of the Volcano API types that get a CustomResourceDefinition.

This is the input of gen_crds.py. It describes, field by field, the schema that Volcano's
published CRDs (config/crd/volcano/bases/*.yaml, controller-gen v0.20 output) carry for the
four kinds Caldera serves: Job and Command (v1alpha1), PodGroup and Queue (v1beta1). It is
written from the facts in docs/volcano/ (job-controller.md section 1, scheduler.md "CRD facts",
webhooks.md section 12.4) and from reading Volcano's Go markers; nothing here is copied from
Volcano's YAML.

Conventions:
  * Every helper returns a plain dict in OpenAPI v3 structural-schema form; gen_crds.py sorts
    keys when it writes YAML, so the order of keyword arguments does not matter.
  * k8s("io.k8s.api.core.v1.PodTemplateSpec") stands for an embedded Kubernetes type; the
    generator replaces it with the schema converted from Kubernetes v1.20.2's swagger.json.
  * No descriptions: Volcano builds its CRDs with maxDescLen=0, so kubectl explain shows none
    there either. The comments below say what the fields are for.
  * Go "int" fields (no format) and int32 fields (format int32) are kept apart, as
    controller-gen does.
"""

# --- Building blocks -------------------------------------------------------------------------


def string(**kw):
    return dict(type="string", **kw)


def int32(**kw):
    return dict(type="integer", format="int32", **kw)


def integer(**kw):
    """A Go int: controller-gen gives it no format."""
    return dict(type="integer", **kw)


def boolean(**kw):
    return dict(type="boolean", **kw)


def obj(properties, required=None, **kw):
    node = dict(type="object", properties=properties, **kw)
    if required:
        node["required"] = sorted(required)
    return node


def array(items, **kw):
    return dict(type="array", items=items, **kw)


def map_of(values):
    return dict(type="object", additionalProperties=values)


def k8s(definition):
    """An embedded Kubernetes type, resolved from swagger.json by the generator."""
    return {"$k8s": definition}


def duration():
    # metav1.Duration marshals as a Go duration string such as "1h30m".
    return string()


def time():
    return string(format="date-time")


def quantity():
    return {"$k8s": "io.k8s.apimachinery.pkg.api.resource.Quantity"}


def resource_list():
    return map_of(quantity())


def typed_root(properties):
    """The top level of every CRD schema: TypeMeta, ObjectMeta and the kind's own fields."""
    root = dict(apiVersion=string(), kind=string(), metadata=dict(type="object"))
    root.update(properties)
    return obj(root)


# DNS-1123 label (task names) and subdomain (queue, priority class, parent queue names).
DNS1123_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS1123_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"

# --- bus.volcano.sh/v1alpha1 -----------------------------------------------------------------

# Every bus Event, in the order Volcano declares them; the enum on policy events.
EVENTS = [
    "*",
    "PodPending",
    "PodRunning",
    "PodFailed",
    "PodEvicted",
    "Unknown",
    "TaskCompleted",
    "OutOfSync",
    "CommandIssued",
    "JobUpdated",
    "TaskFailed",
]

COMMAND = typed_root(
    dict(
        action=string(),  # an Action name such as AbortJob; no enum in the schema
        target=k8s("io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"),
        reason=string(),
        message=string(),
    )
)

# --- batch.volcano.sh/v1alpha1 ---------------------------------------------------------------


def network_topology():
    # Job level and partitionPolicy level; highestTierAllowed is a Go *int.
    return obj(
        dict(
            mode=string(default="hard", enum=["hard", "soft"]),
            highestTierAllowed=integer(minimum=0),
            highestTierName=string(maxLength=253),
        )
    )


def lifecycle_policy():
    return obj(
        dict(
            action=string(),
            event=string(enum=EVENTS),
            events=array(string(enum=EVENTS)),
            exitCode=int32(),
            timeout=duration(),
        )
    )


TASK = obj(
    dict(
        name=string(maxLength=63, pattern=DNS1123_LABEL),
        replicas=int32(minimum=0),
        minAvailable=int32(minimum=0),
        template=k8s("io.k8s.api.core.v1.PodTemplateSpec"),
        policies=array(lifecycle_policy()),
        topologyPolicy=string(enum=["none", "best-effort", "restricted", "single-numa-node"]),
        maxRetry=int32(minimum=0),
        dependsOn=obj(dict(name=array(string()), iteration=string())),
        partitionPolicy=obj(
            dict(
                totalPartitions=int32(minimum=1),
                partitionSize=int32(minimum=1),
                networkTopology=network_topology(),
                minPartitions=int32(default=0, minimum=0),
            ),
            required=["totalPartitions", "partitionSize"],
        ),
    )
)

VOLUME = obj(
    dict(
        mountPath=string(minLength=1, pattern="^[^:]+$"),
        volumeClaimName=string(maxLength=253),
        volumeClaim=k8s("io.k8s.api.core.v1.PersistentVolumeClaimSpec"),
    ),
    required=["mountPath"],
)

JOB_PHASES = [
    "Pending",
    "Aborting",
    "Aborted",
    "Running",
    "Restarting",
    "Completing",
    "Completed",
    "Terminating",
    "Terminated",
    "Failed",
]

JOB = typed_root(
    dict(
        spec=obj(
            dict(
                schedulerName=string(maxLength=63),
                minAvailable=int32(minimum=0),
                volumes=array(VOLUME),
                tasks=array(TASK, minItems=1),
                policies=array(lifecycle_policy()),
                plugins=map_of(array(string())),
                runningEstimate=duration(),
                queue=string(default="default", maxLength=253, pattern=DNS1123_SUBDOMAIN),
                maxRetry=int32(default=3, minimum=0),
                ttlSecondsAfterFinished=int32(minimum=0),
                priorityClassName=string(maxLength=253, pattern=DNS1123_SUBDOMAIN),
                minSuccess=int32(minimum=1),
                networkTopology=network_topology(),
            )
        ),
        status=obj(
            dict(
                state=obj(
                    dict(
                        phase=string(enum=JOB_PHASES),
                        reason=string(),
                        message=string(),
                        lastTransitionTime=time(),
                    )
                ),
                minAvailable=int32(minimum=0),
                # task name -> {phase: pod phase -> count}
                taskStatusCount=map_of(obj(dict(phase=map_of(int32())))),
                pending=int32(minimum=0),
                running=int32(minimum=0),
                succeeded=int32(minimum=0),
                failed=int32(minimum=0),
                terminating=int32(minimum=0),
                unknown=int32(minimum=0),
                version=int32(minimum=0),
                retryCount=int32(minimum=0),
                runningDuration=duration(),
                controlledResources=map_of(string()),
                # JobCondition: status is a JobPhase but carries no enum of its own.
                conditions=array(
                    obj(dict(status=string(), lastTransitionTime=time()), required=["status"])
                ),
            )
        ),
    )
)

# --- scheduling.volcano.sh/v1beta1 -----------------------------------------------------------

QUEUE = typed_root(
    dict(
        spec=obj(
            dict(
                weight=int32(default=1, minimum=1, maximum=65535),
                capability=resource_list(),
                reclaimable=boolean(),  # the webhook defaults it to true
                extendClusters=array(
                    obj(dict(name=string(), weight=int32(), capacity=resource_list()))
                ),
                guarantee=obj(dict(resource=resource_list())),
                affinity=obj(
                    dict(
                        nodeGroupAffinity=obj(
                            dict(
                                requiredDuringSchedulingIgnoredDuringExecution=array(string()),
                                preferredDuringSchedulingIgnoredDuringExecution=array(string()),
                            )
                        ),
                        nodeGroupAntiAffinity=obj(
                            dict(
                                requiredDuringSchedulingIgnoredDuringExecution=array(string()),
                                preferredDuringSchedulingIgnoredDuringExecution=array(string()),
                            )
                        ),
                    )
                ),
                type=string(maxLength=253),
                parent=string(maxLength=253, pattern=DNS1123_SUBDOMAIN),
                deserved=resource_list(),
                priority=int32(minimum=0),
                dequeueStrategy=string(default="traverse", enum=["fifo", "traverse"]),
            )
        ),
        status=obj(
            dict(
                state=string(enum=["Open", "Closed", "Closing", "Unknown"]),
                unknown=int32(minimum=0),
                pending=int32(minimum=0),
                running=int32(minimum=0),
                inqueue=int32(minimum=0),
                completed=int32(minimum=0),
                reservation=obj(dict(nodes=array(string()), resource=resource_list())),
                allocated=resource_list(),
            )
        ),
    )
)

PODGROUP = typed_root(
    dict(
        spec=obj(
            dict(
                minMember=int32(minimum=0),
                minTaskMember=map_of(int32()),
                queue=string(default="default"),
                priorityClassName=string(),
                minResources=resource_list(),
                networkTopology=network_topology(),
                subGroupPolicy=array(
                    obj(
                        dict(
                            name=string(),
                            networkTopology=network_topology(),
                            subGroupSize=int32(default=1),
                            minSubGroups=int32(default=0),
                            labelSelector=k8s("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
                            matchLabelKeys=array(string(), **{"x-kubernetes-list-type": "atomic"}),
                        )
                    )
                ),
            )
        ),
        status=obj(
            dict(
                # Pending, Running, Unknown, Inqueue, Completed; no enum in the schema.
                phase=string(),
                conditions=array(
                    obj(
                        dict(
                            type=string(),
                            status=string(),
                            transitionID=string(),
                            lastTransitionTime=time(),
                            reason=string(),
                            message=string(),
                        )
                    )
                ),
                running=int32(),
                succeeded=int32(),
                failed=int32(),
            )
        ),
    )
)

# --- The CRDs --------------------------------------------------------------------------------


def column(name, type_, json_path, priority=None):
    col = dict(name=name, type=type_, jsonPath=json_path)
    if priority is not None:
        col["priority"] = priority
    return col


# Columns shared by vcjob and podgroup listings.
AGE = column("AGE", "date", ".metadata.creationTimestamp")
QUEUE_WIDE = column("QUEUE", "string", ".spec.queue", priority=1)

CRDS = [
    dict(
        file="batch.volcano.sh_jobs.yaml",
        group="batch.volcano.sh",
        kind="Job",
        plural="jobs",
        singular="job",
        short_names=["vcjob", "vj"],
        scope="Namespaced",
        version="v1alpha1",
        columns=[
            column("STATUS", "string", ".status.state.phase"),
            column("minAvailable", "integer", ".status.minAvailable"),
            column("RUNNINGS", "integer", ".status.running"),
            AGE,
            QUEUE_WIDE,
        ],
        subresources=dict(status={}),
        schema=JOB,
    ),
    dict(
        file="bus.volcano.sh_commands.yaml",
        group="bus.volcano.sh",
        kind="Command",
        plural="commands",
        singular="command",
        short_names=[],
        scope="Namespaced",
        version="v1alpha1",
        columns=[],
        subresources=None,
        schema=COMMAND,
    ),
    dict(
        file="scheduling.volcano.sh_podgroups.yaml",
        group="scheduling.volcano.sh",
        kind="PodGroup",
        plural="podgroups",
        singular="podgroup",
        short_names=["pg", "podgroup-v1beta1"],
        scope="Namespaced",
        version="v1beta1",
        columns=[
            column("STATUS", "string", ".status.phase"),
            column("minMember", "integer", ".spec.minMember"),
            column("RUNNINGS", "integer", ".status.running"),
            AGE,
            QUEUE_WIDE,
        ],
        # No status subresource: the scheduler writes PodGroup status with a full PUT.
        subresources={},
        schema=PODGROUP,
    ),
    dict(
        file="scheduling.volcano.sh_queues.yaml",
        group="scheduling.volcano.sh",
        kind="Queue",
        plural="queues",
        singular="queue",
        short_names=["q", "queue-v1beta1"],
        scope="Cluster",
        version="v1beta1",
        columns=[column("PARENT", "string", ".spec.parent")],
        subresources=dict(status={}),
        schema=QUEUE,
    ),
]

# --- Facts about the embedded Kubernetes types -----------------------------------------------

# Defaults that current Kubernetes declares with +default markers on core/v1 fields that
# already exist in v1.20, and that Volcano's CRDs therefore carry; v1.20's swagger.json has
# none of them. ContainerPort.protocol is also needed for the API server to accept the CRD at
# all: it is an x-kubernetes-list-map-keys entry of containers[].ports, and such keys must be
# required or defaulted. Keys are (swagger definition, property).
K8S_DEFAULTS = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    # LocalObjectReference.name (+default=""), wherever the reference is inlined.
    ("io.k8s.api.core.v1.LocalObjectReference", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapKeySelector", "name"): "",
    ("io.k8s.api.core.v1.SecretKeySelector", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapEnvSource", "name"): "",
    ("io.k8s.api.core.v1.SecretEnvSource", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapVolumeSource", "name"): "",
    ("io.k8s.api.core.v1.ConfigMapProjection", "name"): "",
    ("io.k8s.api.core.v1.SecretProjection", "name"): "",
    ("io.k8s.api.core.v1.ISCSIVolumeSource", "iscsiInterface"): "default",
    ("io.k8s.api.core.v1.AzureDiskVolumeSource", "fsType"): "ext4",
    ("io.k8s.api.core.v1.AzureDiskVolumeSource", "readOnly"): False,
    ("io.k8s.api.core.v1.RBDVolumeSource", "pool"): "rbd",
    ("io.k8s.api.core.v1.RBDVolumeSource", "user"): "admin",
    ("io.k8s.api.core.v1.RBDVolumeSource", "keyring"): "/etc/ceph/keyring",
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", "fsType"): "xfs",
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", "storageMode"): "ThinProvisioned",
}
