/*
 * kubelet.h - vc-nodesim's model of a kubelet running one pod.
 *
 * The simulator keeps one struct sim_pod per pod bound to its nodes. sim_pod_step() looks at
 * the pod as the API server has it and at the clock, advances the simulated containers
 * (start, run for the pod's run time, exit with its exit code, restart per restartPolicy), and
 * says what to write back: a new status, a final delete, or nothing, and when to look again.
 * No I/O happens here, so the whole life cycle is unit-tested with a fake clock: the clock is
 * the `now` every step is given, and every event is placed at the time it was due, not at the
 * time of the step that notices it.
 *
 * Restarts follow the kubelet's CrashLoopBackOff (Kubernetes 1.20, pkg/kubelet: kubelet.go
 * backOffPeriod and MaxContainerBackOff, kuberuntime_manager.go doBackOff, client-go's
 * flowcontrol.Backoff keyed by pod and container): the first exit of a container restarts it at
 * once and starts a back-off of 10 s; each later exit waits out the back-off, in state
 * waiting.reason CrashLoopBackOff, and the restart doubles it, up to 5 minutes. An exit more than
 * 2 x the maximum (10 minutes) after the last restart starts over: at once, then 10 s.
 *
 * Per-pod control through annotations (documented in cluster/README.md):
 *   sandbox.caldera.dev/run-seconds  decimal seconds each container runs before it exits;
 *                                    default from --default-run-seconds; when neither is set the
 *                                    containers run until the pod is deleted.
 *   sandbox.caldera.dev/exit-code    the exit code: an integer for every container, or
 *                                    `name=code,...` per container (others exit 0). Setting or
 *                                    changing it on a running pod ends its containers at once
 *                                    with that code.
 */
#ifndef VC_NODESIM_KUBELET_H
#define VC_NODESIM_KUBELET_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_time.h"

#define SIM_ANN_RUN_SECONDS "sandbox.caldera.dev/run-seconds"
#define SIM_ANN_EXIT_CODE   "sandbox.caldera.dev/exit-code"

/* The exit code of a container under an exit-code annotation (0 when it names others). */
int sim_exit_code_for(const char *annotation, const char *container, int *code,
		      struct vc_error *err);

/* The run time under the annotation, else default_ns; -1 = until deleted. */
int sim_run_ns(const char *annotation, int64_t default_ns, int64_t *out, struct vc_error *err);

enum sim_state {
	SIM_NEW = 0,  /* bound, nothing written yet */
	SIM_RUNNING,  /* containers running */
	SIM_FINISHED, /* terminal phase written (Succeeded or Failed) */
	SIM_DELETING, /* deletionTimestamp seen; waiting for the grace period */
	SIM_GONE,     /* final delete sent */
};

/* The kubelet's restart back-off: backOffPeriod and MaxContainerBackOff (kubelet.go). */
#define SIM_BACKOFF_DEFAULT_NS	   (10 * VC_NSEC_PER_SEC)
#define SIM_BACKOFF_MAX_DEFAULT_NS (300 * VC_NSEC_PER_SEC)

struct sim_container {
	char *name;
	int restart_count;
	int64_t started_ns; /* realtime ns of the current run */
	bool has_last;	    /* lastState.terminated is set */
	int last_exit;
	int64_t last_started_ns, last_finished_ns;
	bool terminated; /* the current run has ended and will not restart */
	int exit_code;
	int64_t finished_ns;
	bool waiting; /* exited, backing off: restarts at restart_at_ns (CrashLoopBackOff) */
	int64_t restart_at_ns; /* when waiting: last_finished_ns + backoff_ns */
	/* flowcontrol.Backoff's entry for this container: the current back-off (0: no entry yet)
	 * and its lastUpdate, the time of the restart that set it. */
	int64_t backoff_ns;
	int64_t backoff_updated_ns;
};

struct sim_pod {
	char *key; /* "ns/name" */
	char *uid;
	char *node; /* node name */
	char pod_ip[32];
	char host_ip[32];
	enum sim_state state;
	int64_t start_ns;      /* realtime ns the pod started (startTime) */
	int64_t run_ns;	       /* per-container run time, -1 = forever */
	char *exit_annotation; /* the exit-code annotation the current runs were started with */
	struct sim_container *containers;
	size_t ncontainers;
	struct sim_container *inits;
	size_t ninits;
	bool succeeded;	      /* the terminal phase written */
	int64_t delete_at_ns; /* SIM_DELETING: when the final delete is due */
	bool ready_known;     /* a Ready condition was written: ready, since ready_since_ns */
	bool ready;
	int64_t ready_since_ns; /* lastTransitionTime of Ready and ContainersReady */
};

/* What sim_pod_step asks the caller to do. */
struct sim_action {
	json_t *status;	 /* new reference: the pod status to write, or NULL */
	bool delete_now; /* send the final delete (grace period 0, uid precondition) */
	int64_t wake_ns; /* realtime ns at which to step again; 0 = only on a pod change */
};

struct sim_config {
	int64_t default_run_ns; /* -1 = run until deleted */
	bool fast_delete;	/* delete at once instead of after the grace period */
	int64_t backoff_ns;	/* first restart back-off; 0 = SIM_BACKOFF_DEFAULT_NS */
	int64_t backoff_max_ns; /* its cap; 0 = SIM_BACKOFF_MAX_DEFAULT_NS (reset after 2 x this) */
};

/* A new simulated pod for a pod object bound to node; ips are the addresses to report. */
int sim_pod_new(const json_t *pod, const char *node, const char *pod_ip, const char *host_ip,
		struct sim_pod **out, struct vc_error *err);
void sim_pod_free(struct sim_pod *p);

/*
 * Advance p given the pod as the API server now has it (borrowed) and the current realtime
 * clock. Fills *act (act->status is a new reference the caller writes and releases). Returns
 * 0, VC_ENOMEM, or VC_EINVALID when the pod's annotations do not parse (the pod then runs with
 * the defaults and the error is for the log).
 */
int sim_pod_step(struct sim_pod *p, const struct sim_config *cfg, const json_t *pod, int64_t now,
		 struct sim_action *act, struct vc_error *err);

#endif /* VC_NODESIM_KUBELET_H */
