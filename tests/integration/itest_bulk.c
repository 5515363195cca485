/*
 * itest_bulk: create many pods quickly through the REST client, for benchmarks.
 *
 *   itest_bulk --kubeconfig FILE --count N [--threads T] [--namespace NS] [--prefix P]
 *              [--node-prefix NP --nodes M] [--run-seconds S]
 *
 * Pods are named P-<i>. With --nodes M they are created already bound (spec.nodeName =
 * NP-<i mod M>), so no scheduler is involved. Prints the creation rate on stdout.
 */
#include "vc_prelude.h"

#include <pthread.h>

#include "vc_alloc.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

struct config {
	const char *kubeconfig;
	int count;
	int threads;
	const char *ns;
	const char *prefix;
	const char *node_prefix;
	int nodes;
	const char *run_seconds;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, "", 0, 0, offsetof(struct config, kubeconfig),
	  "kubeconfig" },
	{ "count", VC_FLAG_INT, "1000", 1, 1000000, offsetof(struct config, count), "pods" },
	{ "threads", VC_FLAG_INT, "8", 1, 256, offsetof(struct config, threads), "threads" },
	{ "namespace", VC_FLAG_STRING, "default", 0, 0, offsetof(struct config, ns), "namespace" },
	{ "prefix", VC_FLAG_STRING, "bulk", 0, 0, offsetof(struct config, prefix),
	  "pod name prefix" },
	{ "node-prefix", VC_FLAG_STRING, "sim-node", 0, 0, offsetof(struct config, node_prefix),
	  "node name prefix" },
	{ "nodes", VC_FLAG_INT, "0", 0, 1000000, offsetof(struct config, nodes),
	  "bind round robin to this many nodes (0: leave unbound)" },
	{ "run-seconds", VC_FLAG_STRING, "", 0, 0, offsetof(struct config, run_seconds),
	  "sandbox.caldera.dev/run-seconds annotation" },
};

struct shared {
	struct config *cfg;
	struct vc_kube *kube;
	int next;
	int failed;
	pthread_mutex_t lock;
};

static void *creator(void *arg)
{
	struct shared *sh = arg;
	struct vc_error err;
	char name[128], node[128];

	for (;;) {
		json_t *pod;
		int i, rc;

		pthread_mutex_lock(&sh->lock);
		i = sh->next++;
		pthread_mutex_unlock(&sh->lock);
		if (i >= sh->cfg->count)
			return NULL;
		snprintf(name, sizeof(name), "%s-%d", sh->cfg->prefix, i);
		pod = json_pack("{s:s, s:s, s:{s:s, s:{}}, s:{s:s, s:[{s:s, s:s}]}}", "apiVersion",
				"v1", "kind", "Pod", "metadata", "name", name, "annotations",
				"spec", "restartPolicy", "Never", "containers", "name", "main",
				"image", "busybox");
		if (!pod)
			return NULL;
		if (sh->cfg->nodes > 0) {
			snprintf(node, sizeof(node), "%s-%d", sh->cfg->node_prefix,
				 i % sh->cfg->nodes);
			json_object_set_new(json_object_get(pod, "spec"), "nodeName",
					    json_string(node));
		}
		if (sh->cfg->run_seconds && *sh->cfg->run_seconds)
			json_object_set_new(
				json_object_get(json_object_get(pod, "metadata"), "annotations"),
				"sandbox.caldera.dev/run-seconds",
				json_string(sh->cfg->run_seconds));
		vc_error_clear(&err);
		rc = vc_kube_create(sh->kube, &vc_gvr_pods, sh->cfg->ns, NULL, NULL, pod, NULL,
				    &err);
		json_decref(pod);
		if (rc && rc != VC_EALREADYEXISTS) {
			fprintf(stderr, "itest_bulk: %s: %s\n", name, err.text);
			pthread_mutex_lock(&sh->lock);
			sh->failed++;
			pthread_mutex_unlock(&sh->lock);
		}
	}
}

int main(int argc, char **argv)
{
	struct vc_kube_config kc = { 0 };
	struct shared sh = { 0 };
	struct vc_error err;
	struct config cfg;
	pthread_t *tids;
	int64_t t0, t1;
	int i, rc;

	vc_log_set_component("itest_bulk");
	vc_error_clear(&err);
	if (vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &cfg, argc, argv, NULL, &err)) {
		fprintf(stderr, "itest_bulk: %s\n", err.text);
		return 2;
	}
	rc = vc_kube_config_from_flags(cfg.kubeconfig, "", &kc, &err);
	if (!rc) {
		kc.qps = 0; /* as fast as the server takes them */
		rc = vc_kube_new(&kc, &sh.kube, &err);
	}
	if (rc) {
		fprintf(stderr, "itest_bulk: %s\n", err.text);
		return 1;
	}
	sh.cfg = &cfg;
	pthread_mutex_init(&sh.lock, NULL);
	tids = vc_calloc((size_t)cfg.threads, sizeof(*tids));
	if (!tids)
		return 1;
	t0 = vc_time_mono_ns();
	for (i = 0; i < cfg.threads; i++)
		pthread_create(&tids[i], NULL, creator, &sh);
	for (i = 0; i < cfg.threads; i++)
		pthread_join(tids[i], NULL);
	t1 = vc_time_mono_ns();
	printf("created %d pods in %.3f s (%.0f/s) with %d threads, %d failed\n", cfg.count,
	       (double)(t1 - t0) / 1e9, cfg.count / ((double)(t1 - t0) / 1e9), cfg.threads,
	       sh.failed);
	vc_free(tids);
	vc_kube_free(sh.kube);
	vc_kube_config_release(&kc);
	return sh.failed ? 1 : 0;
}
