/*
 * bench_informer - time an informer's initial sync and measure what its cache costs per object.
 *
 *   bench_informer --kubeconfig FILE [--namespace NS] [--expect N] [--qps Q] [--burst B]
 *                  [--page-size P]
 *
 * In one process: warm the client up (one GET, so TLS and libcurl are loaded), read VmRSS, start
 * an informer on the pods of NS with the indexes a controller uses (namespace, the
 * volcano.sh/job-name label, spec.nodeName), wait for has_synced, read VmRSS again; then, as a
 * second figure, time a bare paged list through the same client. Prints one key=value line.
 * --strip-managed-fields caches the pods without metadata.managedFields; --packed keeps them
 * serialized (VC_CACHE_PACKED).
 * --qps 0 turns the client-side rate limit off; a negative value keeps the kubeconfig loader's
 * default (client-go's 5 qps, burst 10). Run by bench/bench_informer.sh.
 */
#include "vc_prelude.h"

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_flags.h"
#include "vc_informer.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

struct opts {
	const char *kubeconfig;
	const char *namespace;
	int expect;
	double qps;
	int burst;
	int page_size;
	bool strip;
	bool packed;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, kubeconfig),
	  "Path to kubeconfig file" },
	{ "namespace", VC_FLAG_STRING, "bench", 0, 0, offsetof(struct opts, namespace),
	  "The namespace whose pods are listed" },
	{ "expect", VC_FLAG_INT, "0", 0, 10000000, offsetof(struct opts, expect),
	  "Fail unless the cache ends up with this many pods (0: any)" },
	{ "qps", VC_FLAG_DOUBLE, "-1", -1, 1e6, offsetof(struct opts, qps),
	  "Client-side rate limit (0: none; -1: the default of 5)" },
	{ "burst", VC_FLAG_INT, "-1", -1, 1000000, offsetof(struct opts, burst),
	  "Client-side burst (-1: the default of 10)" },
	{ "page-size", VC_FLAG_INT, "500", 0, 1000000, offsetof(struct opts, page_size),
	  "Items per list page (0: no paging)" },
	{ "strip-managed-fields", VC_FLAG_BOOL, "false", 0, 0, offsetof(struct opts, strip),
	  "Cache pods without metadata.managedFields (vc_informer_strip_managed_fields)" },
	{ "packed", VC_FLAG_BOOL, "false", 0, 0, offsetof(struct opts, packed),
	  "Keep the cached pods serialized (VC_CACHE_PACKED), as vc-controller does" },
};

/* VmRSS of this process in KiB, or -1. */
static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

int main(int argc, char **argv)
{
	static const struct vc_cache_index idx[] = {
		{ "namespace", vc_cache_index_by_namespace, NULL },
		{ "job", vc_cache_index_by_label, "volcano.sh/job-name" },
		{ "node", vc_cache_index_by_field, "spec.nodeName" },
	};
	struct vc_informer_opts io = {
		.resource = &vc_gvr_pods,
		.indexes = idx,
		.nindexes = VC_ARRAY_SIZE(idx),
	};
	struct vc_kube_config kcfg = { 0 };
	struct vc_list_opts lo = { 0 };
	struct vc_informer *inf = NULL;
	struct vc_kube *kube = NULL;
	struct vc_error err;
	struct vc_objs objs = { 0 };
	struct opts o;
	json_t *list = NULL, *ns = NULL;
	int64_t t0, t_sync, t_list;
	long rss0, rss1;
	size_t n, i, json_bytes = 0;
	int first, rc, status = 1;

	vc_alloc_install_json();
	vc_log_set_component("bench-informer");
	rc = vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &o, argc, argv, &first, &err);
	if (rc == VC_FLAGS_HELP) {
		vc_flags_usage(flags, VC_ARRAY_SIZE(flags), argv[0], stdout);
		return 0;
	}
	if (rc || first != argc) {
		fprintf(stderr, "bench_informer: %s\n", rc ? err.text : "unexpected argument");
		return 2;
	}
	if (vc_kube_config_from_flags(o.kubeconfig, "", &kcfg, &err)) {
		fprintf(stderr, "bench_informer: %s\n", err.text);
		return 2;
	}
	if (o.qps >= 0)
		kcfg.qps = o.qps;
	if (o.burst >= 0)
		kcfg.burst = o.burst;
	if (vc_kube_new(&kcfg, &kube, &err)) {
		fprintf(stderr, "bench_informer: %s\n", err.text);
		goto out;
	}
	/* Warm up: TLS, libcurl and the connection exist before the first RSS reading. */
	if (vc_kube_get(kube, &vc_gvr_namespaces, NULL, o.namespace, NULL, &ns, &err)) {
		fprintf(stderr, "bench_informer: get namespace %s: %s\n", o.namespace, err.text);
		goto out;
	}
	json_decref(ns);

	rss0 = rss_kib();
	io.namespace = o.namespace;
	io.page_size = o.page_size ? o.page_size : -1;
	if (o.strip)
		io.transform = vc_informer_strip_managed_fields;
	if (o.packed)
		io.cache_flags = VC_CACHE_PACKED;
	t0 = vc_time_mono_ns();
	if (vc_informer_new(kube, &io, &inf, &err) || vc_informer_start(inf)) {
		fprintf(stderr, "bench_informer: cannot start the informer: %s\n", err.text);
		goto out;
	}
	if (vc_informer_wait_synced(inf, 600 * VC_NSEC_PER_SEC)) {
		fprintf(stderr, "bench_informer: no sync within 600 s\n");
		goto out;
	}
	t_sync = vc_time_mono_ns() - t0;
	rss1 = rss_kib();
	n = vc_cache_count(vc_informer_cache(inf));
	if (o.expect && n != (size_t)o.expect) {
		fprintf(stderr, "bench_informer: the cache has %zu pods, expected %d\n", n,
			o.expect);
		goto out;
	}
	/* For scale: how big the cached objects are as compact JSON. */
	if (vc_cache_list(vc_informer_cache(inf), &objs) == 0) {
		for (i = 0; i < objs.count; i++) {
			char *s = json_dumps(objs.items[i], JSON_COMPACT);

			json_bytes += s ? strlen(s) : 0;
			free(s);
		}
		vc_objs_release(&objs);
	}
	vc_informer_free(inf);
	inf = NULL;

	/* The same list without an informer: the client's share of the sync time. */
	lo.limit = o.page_size;
	t0 = vc_time_mono_ns();
	if (vc_kube_list(kube, &vc_gvr_pods, o.namespace, &lo, &list, &err)) {
		fprintf(stderr, "bench_informer: list: %s\n", err.text);
		goto out;
	}
	t_list = vc_time_mono_ns() - t0;

	printf("pods=%zu sync_s=%.3f list_only_s=%.3f rss_before_kib=%ld rss_after_kib=%ld "
	       "rss_per_pod_bytes=%.0f json_per_pod_bytes=%.0f qps=%g burst=%d page_size=%d "
	       "strip=%d packed=%d\n",
	       n, secs(t_sync), secs(t_list), rss0, rss1,
	       n ? (double)(rss1 - rss0) * 1024.0 / (double)n : 0.0,
	       n ? (double)json_bytes / (double)n : 0.0, kcfg.qps, kcfg.burst, o.page_size, o.strip,
	       o.packed);
	status = 0;
out:
	json_decref(list);
	vc_informer_free(inf);
	vc_kube_free(kube);
	vc_kube_config_release(&kcfg);
	return status;
}
