/*
 * plugin_predicates.c - the predicates plugin: node filters (docs/volcano/scheduler.md §4.7) with
 * Kubernetes' failure reasons. The resource fit on FutureIdle is the node search's own
 * (sched_select.c); this plugin adds the pod number and the pod-spec filters, and, when some pod
 * has inter-pod terms, InterPodAffinity and PodTopologySpread (sched_podaff.c).
 */
#include "plugins.h"

#include "sched_framework.h"
#include "sched_podaff.h"
#include "sched_volume.h"
#include "vc_selector.h"

static void pass(struct pred_result *out)
{
	out->fit = true;
	out->reason[0] = '\0';
}

static void fail(struct pred_result *out, const char *reason)
{
	out->fit = false;
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
}

static const json_t *pod_spec(const struct sched_task_info *t)
{
	return t->pod ? json_object_get(t->pod->obj, "spec") : NULL;
}

static const char *str_or(const json_t *obj, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : dflt;
}

bool pred_tolerates(const json_t *toleration, const json_t *taint)
{
	const char *teffect = str_or(toleration, "effect", "");
	const char *tkey = str_or(toleration, "key", "");
	const char *op = str_or(toleration, "operator", "");

	if (teffect[0] && strcmp(teffect, str_or(taint, "effect", "")) != 0)
		return false;
	if (tkey[0] && strcmp(tkey, str_or(taint, "key", "")) != 0)
		return false;
	if (strcmp(op, "Exists") == 0)
		return true;
	if (op[0] == '\0' || strcmp(op, "Equal") == 0)
		return strcmp(str_or(toleration, "value", ""), str_or(taint, "value", "")) == 0;
	return false;
}

static bool tolerated(const json_t *spec, const json_t *taint)
{
	const json_t *tols = json_object_get(spec, "tolerations");
	size_t i;

	for (i = 0; i < json_array_size(tols); i++)
		if (pred_tolerates(json_array_get(tols, i), taint))
			return true;
	return false;
}

void pred_node_unschedulable(const struct sched_task_info *t, const struct sched_node_info *n,
			     struct pred_result *out)
{
	json_t *taint;

	pass(out);
	if (!n->unschedulable)
		return;
	taint = json_pack("{s:s, s:s}", "key", "node.kubernetes.io/unschedulable", "effect",
			  "NoSchedule");
	/* Without memory for the probe, treat the node as not tolerated: the safe answer. */
	if (!taint || !tolerated(pod_spec(t), taint))
		fail(out, PRED_REASON_UNSCHEDULABLE);
	json_decref(taint);
}

int pred_node_affinity(const struct sched_task_info *t, const struct sched_node_info *n,
		       struct pred_result *out)
{
	const json_t *spec = pod_spec(t), *sel, *req, *v;
	const char *key;
	bool matched;
	int rc;

	pass(out);
	sel = json_object_get(spec, "nodeSelector");
	json_object_foreach ((json_t *)sel, key, v) {
		const char *want = json_string_value(v);
		const char *have = json_string_value(json_object_get(n->labels, key));

		if (!want || !have || strcmp(want, have) != 0) {
			fail(out, PRED_REASON_NODE_AFFINITY);
			return 0;
		}
	}
	req = json_object_get(json_object_get(json_object_get(spec, "affinity"), "nodeAffinity"),
			      "requiredDuringSchedulingIgnoredDuringExecution");
	if (!json_is_object(req))
		return 0;
	rc = vc_node_selector_match(req, n->labels, n->name, NULL, &matched, NULL);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc < 0 || !matched)
		fail(out, PRED_REASON_NODE_AFFINITY);
	return 0;
}

static bool ports_conflict(const json_t *a, const json_t *b)
{
	const char *ipa = str_or(a, "hostIP", ""), *ipb = str_or(b, "hostIP", "");

	if (json_integer_value(json_object_get(a, "hostPort")) !=
	    json_integer_value(json_object_get(b, "hostPort")))
		return false;
	if (strcmp(str_or(a, "protocol", "TCP"), str_or(b, "protocol", "TCP")) != 0)
		return false;
	if (!ipa[0])
		ipa = "0.0.0.0";
	if (!ipb[0])
		ipb = "0.0.0.0";
	return strcmp(ipa, "0.0.0.0") == 0 || strcmp(ipb, "0.0.0.0") == 0 || strcmp(ipa, ipb) == 0;
}

static bool conflicts_with(const json_t *port, const void *ctx)
{
	return ports_conflict(port, ctx);
}

static bool port_taken(const json_t *port, const void *ctx)
{
	const struct sched_node_info *n = ctx;
	size_t i;

	for (i = 0; i < n->ntasks; i++) {
		const struct sched_task_info *x = n->tasks[i];

		if (x->pod && sched_pod_each_host_port(json_object_get(x->pod->obj, "spec"),
						       conflicts_with, port))
			return true;
	}
	return false;
}

void pred_node_ports(const struct sched_task_info *t, const struct sched_node_info *n,
		     struct pred_result *out)
{
	if (sched_pod_each_host_port(pod_spec(t), port_taken, n))
		fail(out, PRED_REASON_NODE_PORTS);
	else
		pass(out);
}

void pred_taint_toleration(const struct sched_task_info *t, const struct sched_node_info *n,
			   struct pred_result *out)
{
	const json_t *spec = pod_spec(t);
	size_t i;

	pass(out);
	for (i = 0; i < json_array_size(n->taints); i++) {
		const json_t *taint = json_array_get(n->taints, i);
		const char *effect = str_or(taint, "effect", "");

		if (strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "NoExecute") != 0)
			continue;
		if (tolerated(spec, taint))
			continue;
		out->fit = false;
		snprintf(out->reason, sizeof(out->reason), "node(s) had untolerated taint {%s: %s}",
			 str_or(taint, "key", ""), str_or(taint, "value", ""));
		return;
	}
}

static int predicates_cb(void *st, const struct sched_ssn_task *t, const struct sched_ssn_node *n,
			 struct pred_result *out, bool *unresolvable)
{
	int rc;

	(void)st;
	out->fit = true;
	/* Pods evicted in this session have left the count (docs/volcano/scheduler.md §3.4). */
	if (n->max_pods > 0 && (int64_t)(n->n->ntasks - n->nevicted) >= n->max_pods) {
		out->fit = false;
		snprintf(out->reason, sizeof(out->reason), "%s", PRED_REASON_POD_NUMBER);
		return 0;
	}
	if (!t->t->pod || (n->plain && !t->constrained))
		return 0;
	pred_node_unschedulable(t->t, n->n, out);
	if (!out->fit) {
		*unresolvable = true;
		return 0;
	}
	rc = pred_node_affinity(t->t, n->n, out);
	if (rc < 0)
		return rc;
	if (!out->fit) {
		*unresolvable = true;
		return 0;
	}
	pred_node_ports(t->t, n->n, out);
	if (!out->fit)
		return 0;
	pred_taint_toleration(t->t, n->n, out);
	if (!out->fit)
		*unresolvable = true;
	return 0;
}

/*
 * InterPodAffinity and PodTopologySpread (DoNotSchedule), then NodeVolumeLimits and
 * VolumeBinding (sched_volume.c): docs/volcano/scheduler.md §4.7. st is the session.
 */
static int predicates_pods_cb(void *st, const struct sched_ssn_task *t,
			      const struct sched_ssn_node *n, struct pred_result *out,
			      bool *unresolvable)
{
	struct sched_podaff *pa = sched_ssn_podaff(st);
	struct sched_vol *vol = sched_ssn_vol(st);
	int rc;

	if (pa && ((rc = sched_podaff_filter(pa, t, n, out, unresolvable)) < 0 || !out->fit))
		return rc;
	if (vol)
		return sched_vol_filter(vol, t, n, out, unresolvable);
	pass(out);
	return 0;
}

static int predicates_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			   struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	(void)conf;
	(void)err;
	cb->predicate = predicates_cb;
	cb->predicate_by_class = true;
	/* The filters that depend on other nodes' pods (or on the session's volume
	 * reservations), only when some pod has such terms or claims. */
	*state = ssn;
	if (sched_podaff_filters(sched_ssn_podaff(ssn)) || sched_ssn_vol(ssn))
		cb->predicate_pods = predicates_pods_cb;
	return 0;
}

const struct sched_plugin sched_plugin_predicates = {
	.name = "predicates",
	.on_session_open = predicates_open,
};
