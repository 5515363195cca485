/*
 * nodesim.h - vc-nodesim: simulated nodes and the kubelet for the pods bound to them.
 *
 * It creates Node objects with the configured capacity, keeps them Ready (status written once,
 * heartbeats through Leases in kube-node-lease), removes the not-ready taint that the API
 * server's TaintNodesByCondition admission puts on every new Node (no node-lifecycle
 * controller runs locally to do it), and takes over any Node labelled
 * caldera.dev/simulated=true. For every pod bound to one of its nodes it runs the kubelet model
 * of kubelet.h and writes the pod's status, and deletes pods whose grace period is over.
 *
 * Threads: a pod informer and a node informer feed a work queue keyed by pod; --workers threads
 * step pods and write statuses; one thread renews Leases. Everything the informers' handlers do
 * is enqueue.
 */
#ifndef VC_NODESIM_H
#define VC_NODESIM_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_kube.h"

#define SIM_LABEL "caldera.dev/simulated"

/* One --nodes COUNT:RESOURCES group. */
struct sim_node_group {
	int count;
	json_t *resources; /* owned ResourceList object, canonical quantities */
};

struct sim_options {
	struct sim_node_group *groups;
	size_t ngroups;
	const char *prefix;	/* node names are <prefix>-<i> */
	json_t *labels;		/* owned object of extra node labels, may be empty */
	json_t *taints;		/* owned array of extra taints, may be empty */
	int64_t default_run_ns; /* -1 = containers run until deleted */
	bool fast_delete;
	bool delete_nodes_on_exit;
	int64_t backoff_ns;	/* first restart back-off (CrashLoopBackOff); 0 = the kubelet's */
	int64_t backoff_max_ns; /* its cap; 0 = the kubelet's */
	int64_t heartbeat_ns;	/* Lease renewal period */
	int workers;
};

/* Parse "COUNT:RESOURCES" ("4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110"). */
int sim_parse_node_group(const char *s, struct sim_node_group *g, struct vc_error *err);
/* Parse "k=v,k2=v2" into a labels object (new reference). */
int sim_parse_labels(const char *s, json_t **out, struct vc_error *err);
/* Parse "k=v:Effect,k2:Effect" into an array of taints (new reference). */
int sim_parse_taints(const char *s, json_t **out, struct vc_error *err);
void sim_options_release(struct sim_options *o);

/* The Node object for node number index of group g (new reference). */
json_t *sim_node_object(const struct sim_options *o, const struct sim_node_group *g,
			const char *name, int index);
/* The Ready node status for a node with this capacity (new reference). */
json_t *sim_node_status(const json_t *capacity, const char *name, int index, int64_t now_ns);
/* The addresses handed out: pod IPs from 10.64.0.0/10 by node, host IP per node. */
void sim_pod_ip(int node_index, unsigned seq, char *buf, size_t len);
void sim_host_ip(int node_index, char *buf, size_t len);

struct nodesim;

int nodesim_new(struct vc_kube *kube, struct sim_options *opts, struct nodesim **out,
		struct vc_error *err);
/* Create or take over the nodes, start informers and threads. */
int nodesim_start(struct nodesim *s, struct vc_error *err);
/* Stop threads and informers; delete the nodes if the options say so. */
void nodesim_stop(struct nodesim *s);
void nodesim_free(struct nodesim *s);
/* How many nodes are Ready and how many pods are simulated (for logs and tests). */
void nodesim_counts(struct nodesim *s, size_t *nodes, size_t *pods);

#endif /* VC_NODESIM_H */
