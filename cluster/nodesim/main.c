/* vc-nodesim: simulated nodes and kubelet for the local cluster. Flags and wiring only. */
#include "vc_prelude.h"

#include <signal.h>
#include <unistd.h>

#include "nodesim.h"
#include "vc_alloc.h"
#include "vc_daemon.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"

struct config {
	const char *kubeconfig;
	const char *master;
	struct vc_flag_list nodes;
	const char *prefix;
	const char *labels;
	const char *taints;
	const char *default_run_seconds;
	bool fast_delete;
	bool delete_nodes_on_exit;
	int64_t crash_backoff;
	int64_t crash_backoff_max;
	int64_t heartbeat;
	int workers;
	double qps;
	int burst;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, "", 0, 0, offsetof(struct config, kubeconfig),
	  "path to a kubeconfig file" },
	{ "master", VC_FLAG_STRING, "", 0, 0, offsetof(struct config, master),
	  "address of the Kubernetes API server (overrides the kubeconfig's)" },
	{ "nodes", VC_FLAG_LIST, NULL, 0, 0, offsetof(struct config, nodes),
	  "COUNT:RESOURCES node group, e.g. 4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110 "
	  "(repeatable)" },
	{ "node-prefix", VC_FLAG_STRING, "sim-node", 0, 0, offsetof(struct config, prefix),
	  "node names are <prefix>-<n>" },
	{ "labels", VC_FLAG_STRING, "", 0, 0, offsetof(struct config, labels),
	  "extra node labels, k=v,..." },
	{ "taints", VC_FLAG_STRING, "", 0, 0, offsetof(struct config, taints),
	  "node taints, key[=value]:Effect,..." },
	{ "default-run-seconds", VC_FLAG_STRING, "", 0, 0,
	  offsetof(struct config, default_run_seconds),
	  "how long containers run when a pod has no sandbox.caldera.dev/run-seconds "
	  "annotation (empty: until the pod is deleted)" },
	{ "fast-delete", VC_FLAG_BOOL, "false", 0, 0, offsetof(struct config, fast_delete),
	  "remove deleted pods at once instead of after their grace period" },
	{ "delete-nodes-on-exit", VC_FLAG_BOOL, "false", 0, 0,
	  offsetof(struct config, delete_nodes_on_exit), "delete the created nodes on exit" },
	{ "crash-backoff", VC_FLAG_DURATION, "10s", 0.001, 86400,
	  offsetof(struct config, crash_backoff),
	  "the kubelet's CrashLoopBackOff: how long a container that exited again after its "
	  "first restart waits before the next one; doubles per restart" },
	{ "crash-backoff-max", VC_FLAG_DURATION, "5m0s", 0.001, 86400,
	  offsetof(struct config, crash_backoff_max),
	  "the longest restart back-off; a container that ran more than twice this long since its "
	  "last restart starts over from --crash-backoff" },
	{ "heartbeat-period", VC_FLAG_DURATION, "10s", 1, 3600, offsetof(struct config, heartbeat),
	  "how often node Leases are renewed" },
	{ "workers", VC_FLAG_INT, "8", 1, 256, offsetof(struct config, workers),
	  "threads writing pod and node status" },
	{ "kube-api-qps", VC_FLAG_DOUBLE, "500", 0, 100000, offsetof(struct config, qps),
	  "client-side rate limit of API requests per second" },
	{ "kube-api-burst", VC_FLAG_INT, "1000", 1, 100000, offsetof(struct config, burst),
	  "client-side burst of API requests" },
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int build_options(const struct config *c, struct sim_options *o, struct vc_error *err)
{
	int i, rc;

	memset(o, 0, sizeof(*o));
	o->prefix = c->prefix;
	o->fast_delete = c->fast_delete;
	o->delete_nodes_on_exit = c->delete_nodes_on_exit;
	o->heartbeat_ns = c->heartbeat;
	if (c->crash_backoff_max < c->crash_backoff)
		return vc_error_set(err, VC_EINVAL,
				    "--crash-backoff-max must not be shorter than --crash-backoff");
	o->backoff_ns = c->crash_backoff;
	o->backoff_max_ns = c->crash_backoff_max;
	o->workers = c->workers;
	o->default_run_ns = -1;
	if (c->default_run_seconds && *c->default_run_seconds) {
		double d;

		if (vc_parse_double(c->default_run_seconds, &d) || d < 0)
			return vc_error_set(
				err, VC_EINVAL,
				"--default-run-seconds: \"%s\" is not a number of seconds",
				c->default_run_seconds);
		o->default_run_ns = (int64_t)(d * 1e9);
	}
	if (c->nodes.n) {
		o->groups = vc_calloc((size_t)c->nodes.n, sizeof(*o->groups));
		if (!o->groups)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	for (i = 0; i < c->nodes.n; i++) {
		rc = sim_parse_node_group(c->nodes.items[i], &o->groups[i], err);
		if (rc)
			return rc;
		o->ngroups++;
	}
	rc = sim_parse_labels(c->labels, &o->labels, err);
	if (!rc)
		rc = sim_parse_taints(c->taints, &o->taints, err);
	return rc;
}

int main(int argc, char **argv)
{
	struct vc_kube_config kc = { 0 };
	struct sim_options opts = { 0 };
	struct nodesim *sim = NULL;
	struct vc_kube *kube = NULL;
	struct vc_error err;
	struct config cfg;
	size_t nodes, pods, last_nodes = (size_t)-1, last_pods = (size_t)-1;
	int rc, first, status = 1;

	vc_log_set_component("vc-nodesim");
	vc_alloc_install_json();
	vc_error_clear(&err);
	rc = vc_daemon_parse_flags(flags, VC_ARRAY_SIZE(flags), &cfg, argc, argv, "vc-nodesim",
				   &first);
	if (rc >= 0)
		return rc;
	if (first != argc) {
		fprintf(stderr, "vc-nodesim: unexpected arguments\n");
		return 2;
	}
	vc_flags_dump(flags, VC_ARRAY_SIZE(flags), &cfg);
	rc = build_options(&cfg, &opts, &err);
	if (rc) {
		fprintf(stderr, "vc-nodesim: %s\n", err.text);
		goto out;
	}
	rc = vc_daemon_kube_new(cfg.kubeconfig, cfg.master, cfg.qps, cfg.burst, NULL, &kc, &kube,
				&err);
	if (rc) {
		VC_ERROR("cannot reach the API server", "err=\"%s\"", err.text);
		goto out;
	}
	rc = nodesim_new(kube, &opts, &sim, &err);
	if (!rc)
		rc = nodesim_start(sim, &err);
	if (rc) {
		VC_ERROR("cannot start", "err=\"%s\"", err.text);
		goto out;
	}

	vc_daemon_catch_stop(on_signal);
	VC_INFO("started", "groups=%zu prefix=%s", opts.ngroups, opts.prefix);
	while (!stop_signal) {
		nodesim_counts(sim, &nodes, &pods);
		if (nodes != last_nodes || pods != last_pods)
			VC_INFO("simulating", "ready_nodes=%zu pods=%zu", nodes, pods);
		last_nodes = nodes;
		last_pods = pods;
		sleep(1);
	}
	VC_INFO("stopping", "signal=%d", (int)stop_signal);
	status = 0;
out:
	nodesim_free(sim);
	vc_kube_free(kube);
	vc_kube_config_release(&kc);
	sim_options_release(&opts);
	return status;
}
