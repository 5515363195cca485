/*
 * sched_objects.c - namespaces' labels and Kubernetes' DefaultSelector over the informer caches
 * (docs/volcano/scheduler.md §4.8). Our own code after Kubernetes' semantics
 * (pkg/scheduler/framework/plugins/helper/spread.go).
 */
#include "sched_objects.h"

#include "vc_json.h"
#include "vc_selector.h"
#include "vc_str.h"

json_t *sched_objects_ns_labels(const struct sched_objects *o, const char *ns)
{
	json_t *obj, *labels;

	if (!o || !o->namespaces || !ns)
		return NULL;
	obj = vc_cache_get(o->namespaces, ns);
	labels = json_incref(json_object_get(json_object_get(obj, "metadata"), "labels"));
	json_decref(obj);
	return labels;
}

bool sched_objects_selecting_owner(const json_t *owners, const json_t **ref)
{
	const json_t *r;
	size_t i;

	json_array_foreach (owners, i, r) {
		const char *api = vc_json_get_str(r, "apiVersion"),
			   *kind = vc_json_get_str(r, "kind");

		/* metav1.GetControllerOf: the first reference with controller true. */
		if (!json_is_true(json_object_get(r, "controller")))
			continue;
		if (ref)
			*ref = r;
		return (vc_str_eq(api, "v1") && vc_str_eq(kind, "ReplicationController")) ||
		       (vc_str_eq(api, "apps/v1") &&
			(vc_str_eq(kind, "ReplicaSet") || vc_str_eq(kind, "StatefulSet")));
	}
	return false;
}

/* Copy every member of the string map set into dst (labels.Merge: later values win). */
static int merge_set(json_t *dst, const json_t *set)
{
	const char *k;
	json_t *v;

	json_object_foreach ((json_t *)set, k, v)
		if (json_is_string(v) && json_object_set(dst, k, v) < 0)
			return VC_ENOMEM;
	return 0;
}

/* GetPodServices: the services of ns whose (non-nil) selector matches labels, merged into set. */
static int merge_services(const struct sched_objects *o, const char *ns, const json_t *labels,
			  json_t *set)
{
	struct vc_objs svcs = { 0 };
	size_t i;
	int rc;

	if (!o->services || vc_cache_index_count(o->services, SCHED_OBJECTS_NS_INDEX, ns) == 0)
		return 0;
	rc = vc_cache_by_index(o->services, SCHED_OBJECTS_NS_INDEX, ns, &svcs);
	if (rc == VC_ENOMEM)
		return rc;
	for (i = 0; !rc && i < svcs.count; i++) {
		const json_t *sel =
			json_object_get(json_object_get(svcs.items[i], "spec"), "selector");
		struct vc_selector *s = NULL;

		/* Services with nil selectors match nothing, not everything. */
		if (!json_is_object(sel))
			continue;
		rc = vc_selector_from_set(sel, &s, NULL);
		if (rc == VC_ENOMEM)
			break;
		if (rc == 0 && vc_selector_matches(s, labels))
			rc = merge_set(set, sel);
		else
			rc = 0;
		vc_selector_free(s);
	}
	vc_objs_release(&svcs);
	return rc == VC_ENOMEM ? rc : 0;
}

/* The controller ns/name from cache c as a new reference, or NULL. */
static json_t *get_owner(struct vc_cache *c, const char *ns, const char *name)
{
	char key[512];

	if (!c || !name || snprintf(key, sizeof(key), "%s/%s", ns, name) >= (int)sizeof(key))
		return NULL;
	return vc_cache_get(c, key);
}

/*
 * Add the requirements of the metav1.LabelSelector sel (when it parses) to expr, as In
 * expressions for its matchLabels and its matchExpressions as they are.
 */
static int add_requirements(json_t *expr, const json_t *sel)
{
	struct vc_selector *s = NULL;
	const json_t *ml = json_object_get(sel, "matchLabels"), *e;
	const char *k;
	json_t *v;
	size_t i;
	int rc = vc_label_selector_from_json(sel, &s, NULL);

	vc_selector_free(s);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc < 0)
		return 0; /* an invalid selector adds nothing */
	json_object_foreach ((json_t *)ml, k, v)
		if (json_array_append_new(expr, json_pack("{s:s,s:s,s:[O]}", "key", k, "operator",
							  "In", "values", v)) < 0)
			return VC_ENOMEM;
	json_array_foreach (json_object_get(sel, "matchExpressions"), i, e)
		if (json_array_append(expr, (json_t *)e) < 0)
			return VC_ENOMEM;
	return 0;
}

int sched_objects_default_selector(const struct sched_objects *o, const char *ns,
				   const json_t *labels, const json_t *owners, json_t **out)
{
	const json_t *ref = NULL;
	json_t *set = NULL, *expr = NULL, *owner = NULL, *sel = NULL;
	bool has_owner = sched_objects_selecting_owner(owners, &ref);
	int rc = VC_ENOMEM;

	*out = NULL;
	if (!o || !ns)
		return 0;
	if (!has_owner &&
	    (!o->services || vc_cache_index_count(o->services, SCHED_OBJECTS_NS_INDEX, ns) == 0))
		return 0;
	set = json_object();
	expr = json_array();
	if (!set || !expr)
		goto out;
	if (merge_services(o, ns, labels, set) < 0)
		goto out;
	if (has_owner) {
		const char *kind = vc_json_get_str(ref, "kind"),
			   *name = vc_json_get_str(ref, "name");

		if (vc_str_eq(kind, "ReplicationController")) {
			owner = get_owner(o->rcs, ns, name);
			sel = json_object_get(json_object_get(owner, "spec"), "selector");
			if (json_is_object(sel) && merge_set(set, sel) < 0)
				goto out;
		} else {
			owner = get_owner(vc_str_eq(kind, "ReplicaSet") ? o->replicasets
									: o->statefulsets,
					  ns, name);
			sel = json_object_get(json_object_get(owner, "spec"), "selector");
			if (json_is_object(sel) && add_requirements(expr, sel) < 0)
				goto out;
		}
	}
	rc = 0;
	if (json_object_size(set) == 0 && json_array_size(expr) == 0)
		goto out; /* selector.Empty(): no default constraint */
	*out = json_object();
	if (!*out || (json_object_size(set) && json_object_set(*out, "matchLabels", set) < 0) ||
	    (json_array_size(expr) && json_object_set(*out, "matchExpressions", expr) < 0)) {
		json_decref(*out);
		*out = NULL;
		rc = VC_ENOMEM;
	}
out:
	json_decref(owner);
	json_decref(set);
	json_decref(expr);
	return rc;
}
