/*
 * itest_events - the Event recorder against a real API server, for
 * tests/e2e/test_leader_events.sh.
 *
 *   itest_events --kubeconfig FILE --configmap NAME [--namespace NS] [--count N] [--similar M]
 *
 * It reads the ConfigMap, records one identical event N times (reason ItestRepeat) and M events
 * that differ only in their message (reason ItestSimilar, "similar 1".."similar M"), waits for
 * the sender, prints the recorder's counters and exits 0 when they are what client-go's
 * correlation gives: one Event created for the repeats and N-1 count patches; for the similar
 * ones, min(M, 9) plain Events, then one "(combined from similar events): ..." Event patched for
 * every further message.
 */
#include "vc_prelude.h"

#include "vc_alloc.h"
#include "vc_events.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

struct opts {
	const char *kubeconfig;
	const char *master;
	const char *ns;
	const char *configmap;
	const char *component;
	int count;
	int similar;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, kubeconfig),
	  "Path to kubeconfig file" },
	{ "master", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, master),
	  "The address of the Kubernetes API server" },
	{ "namespace", VC_FLAG_STRING, "default", 0, 0, offsetof(struct opts, ns),
	  "Namespace of the ConfigMap" },
	{ "configmap", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, configmap),
	  "The ConfigMap the events are about" },
	{ "component", VC_FLAG_STRING, "itest-events", 0, 0, offsetof(struct opts, component),
	  "source.component of the events" },
	{ "count", VC_FLAG_INT, "5", 1, 25, offsetof(struct opts, count),
	  "How many times the identical event is recorded" },
	{ "similar", VC_FLAG_INT, "0", 0, 20, offsetof(struct opts, similar),
	  "How many events differing only in their message are recorded" },
};

int main(int argc, char **argv)
{
	struct vc_kube_config kcfg = { 0 };
	struct vc_events_config ecfg = { 0 };
	struct vc_events_stats st;
	struct vc_events *rec = NULL;
	struct vc_kube *kube = NULL;
	uint64_t want_created, want_patched;
	json_t *cm = NULL;
	struct vc_error err;
	struct opts o;
	int first, rc, i, status = 2;

	vc_alloc_install_json();
	vc_log_set_component("itest-events");
	rc = vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &o, argc, argv, &first, &err);
	if (rc == VC_FLAGS_HELP) {
		vc_flags_usage(flags, VC_ARRAY_SIZE(flags), argv[0], stdout);
		return 0;
	}
	if (rc || first != argc || !o.configmap[0]) {
		fprintf(stderr, "itest_events: %s\n",
			rc ? err.text : "usage: itest_events --kubeconfig FILE --configmap NAME");
		return 2;
	}
	if (o.count + o.similar > 25) {
		fprintf(stderr, "itest_events: more than 25 events would meet the spam filter\n");
		return 2;
	}
	if (vc_kube_config_from_flags(o.kubeconfig, o.master, &kcfg, &err) ||
	    vc_kube_new(&kcfg, &kube, &err)) {
		VC_ERROR("cannot make the client", "err=\"%s\"", err.text);
		goto out;
	}
	if (vc_kube_get(kube, &vc_gvr_configmaps, o.ns, o.configmap, NULL, &cm, &err)) {
		VC_ERROR("cannot read the configmap", "configmap=%s/%s err=\"%s\"", o.ns,
			 o.configmap, err.text);
		goto out;
	}
	ecfg.component = o.component;
	if (vc_events_new(kube, &ecfg, &rec, &err) || vc_events_start(rec)) {
		VC_ERROR("cannot start the event recorder", "err=\"%s\"", err.text);
		goto out;
	}
	for (i = 0; i < o.count; i++) {
		if (vc_event_record(rec, cm, "Normal", "ItestRepeat",
				    "the same thing happened again"))
			VC_ERROR("record refused", "i=%d", i);
	}
	for (i = 1; i <= o.similar; i++) {
		if (vc_event_record(rec, cm, "Warning", "ItestSimilar", "similar %d", i))
			VC_ERROR("record refused", "i=%d", i);
	}
	if (vc_events_flush(rec, 60 * VC_NSEC_PER_SEC)) {
		VC_ERROR("events not written within 60s", "");
		goto out;
	}
	vc_events_get_stats(rec, &st);
	printf("queued=%" PRIu64 " created=%" PRIu64 " patched=%" PRIu64 " filtered=%" PRIu64
	       " dropped=%" PRIu64 " failed=%" PRIu64 "\n",
	       st.queued, st.created, st.patched, st.filtered, st.dropped, st.failed);
	want_created = 1 + (uint64_t)VC_MIN(o.similar, 10);
	want_patched = (uint64_t)(o.count - 1) + (uint64_t)VC_MAX(o.similar - 10, 0);
	if (st.created != want_created || st.patched != want_patched || st.failed || st.dropped ||
	    st.filtered) {
		fprintf(stderr,
			"itest_events: expected created=%" PRIu64 " patched=%" PRIu64
			" and no failure\n",
			want_created, want_patched);
		status = 1;
	} else {
		status = 0;
	}
out:
	vc_events_free(rec);
	json_decref(cm);
	vc_kube_free(kube);
	vc_kube_config_release(&kcfg);
	return status;
}
