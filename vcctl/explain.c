/*
 * explain.c - vcctl job explain: read the live objects of a job and explain them (vc_explain,
 * common/vc_explain.h, the reasoning the job controller's PodGroupPending warning shares).
 */
#include "vcctl.h"

#include "vc_alloc.h"
#include "vc_explain.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_str.h"
#include "vc_time.h"

static const char *meta_str(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(json_object_get(obj, "metadata"), key);

	return s ? s : "";
}

static bool blank(const char *s)
{
	return !s || !*s;
}

/* The job's PodGroup: <job>-<uid> (Volcano HEAD), else <job> (older releases). */
static const json_t *find_podgroup(const json_t *pgs, const json_t *job)
{
	const char *name = meta_str(job, "name"), *uid = meta_str(job, "uid");
	const json_t *pg, *legacy = NULL, *ref;
	size_t i, k;

	json_array_foreach (json_object_get(pgs, "items"), i, pg) {
		const char *n = meta_str(pg, "name");

		json_array_foreach (
			json_object_get(json_object_get(pg, "metadata"), "ownerReferences"), k,
			ref) {
			if (*uid && vc_str_eq(vc_json_get_str(ref, "uid"), uid))
				return pg;
		}
		if (!strcmp(n, name))
			legacy = pg;
	}
	return legacy;
}

int vcctl_job_explain(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		      struct vc_error *err)
{
	struct vc_explain_in in = { 0 };
	json_t *job = NULL, *queue = NULL, *pgs = NULL, *pods = NULL, *events = NULL;
	struct vc_list_opts lo = { 0 };
	struct vc_error sub;
	char *sel = NULL;
	const char *qname;
	int rc;

	in.ns = blank(o->namespace) ? "default" : o->namespace;
	in.name = o->name;
	vc_error_clear(&sub);
	rc = vc_kube_get(kube, &vc_gvr_jobs, in.ns, o->name, NULL, &job, &sub);
	if (rc == VC_ENOTFOUND) {
		vc_explain(&in, out, NULL, 0);
		return 0;
	}
	if (rc) {
		*err = sub;
		return rc;
	}
	in.job = job;
	qname = vc_json_get_str(json_object_get(job, "spec"), "queue");
	rc = vc_kube_get(kube, &vc_gvr_queues, NULL, blank(qname) ? "default" : qname, NULL, &queue,
			 &sub);
	if (rc && rc != VC_ENOTFOUND)
		goto fail;
	in.queue = queue;
	rc = vc_kube_list(kube, &vc_gvr_podgroups, in.ns, NULL, &pgs, &sub);
	if (rc)
		goto fail;
	in.podgroup = find_podgroup(pgs, job);
	sel = vc_asprintf("volcano.sh/job-name=%s", o->name);
	if (!sel) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	lo.label_selector = sel;
	rc = vc_kube_list(kube, &vc_gvr_pods, in.ns, &lo, &pods, &sub);
	if (rc)
		goto fail;
	in.pods = json_object_get(pods, "items");
	/* Events only add detail: without them the reasoning still stands. */
	if (vc_kube_list(kube, &vc_gvr_events, in.ns, NULL, &events, &sub))
		events = NULL;
	in.events = json_object_get(events, "items");
	in.now_ns = vc_time_now_ns();
	vc_explain(&in, out, NULL, 0);
	rc = 0;
	goto out;
fail:
	*err = sub;
out:
	vc_free(sel);
	json_decref(job);
	json_decref(queue);
	json_decref(pgs);
	json_decref(pods);
	json_decref(events);
	return rc;
}
