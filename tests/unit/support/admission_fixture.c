/* The state.json of an admission test case as an admission context (admission_fixture.h). */
#include "admission_fixture.h"

#include "vc_err.h"
#include "vc_json.h"

static bool name_listed(const json_t *list, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach (list, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return true;
	return false;
}

static const json_t *find_named(const json_t *list, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach (list, i, v) {
		const char *n = vc_json_get_str(vc_json_get_obj(v, "metadata"), "name");

		if (n && !strcmp(n, name))
			return v;
	}
	return NULL;
}

static int fx_get_queue(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	const json_t *doc = ctx, *q;

	*out = NULL;
	if (name_listed(vc_json_get_arr(doc, "failing_queues"), name))
		return vc_error_set(err, VC_EIO, "injected failure");
	q = find_named(vc_json_get_arr(doc, "queues"), name);
	if (!q)
		return VC_ENOTFOUND;
	*out = json_incref((json_t *)q);
	return 0;
}

static int fx_queue_children(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	const json_t *doc = ctx, *q;
	json_t *arr;
	size_t i;

	*out = NULL;
	if (name_listed(vc_json_get_arr(doc, "failing_queues"), name) ||
	    name_listed(vc_json_get_arr(doc, "failing_children"), name))
		return vc_error_set(err, VC_EIO, "injected failure");
	arr = json_array();
	if (!arr)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_array_foreach (vc_json_get_arr(doc, "queues"), i, q) {
		const char *p = vc_json_get_str(vc_json_get_obj(q, "spec"), "parent");

		/* The informer's index keys a queue without a parent under "". */
		if (!strcmp(p ? p : "", name) && json_array_append(arr, (json_t *)q)) {
			json_decref(arr);
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		}
	}
	*out = arr;
	return 0;
}

static int fx_get_namespace(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	const json_t *doc = ctx, *ns;

	*out = NULL;
	if (name_listed(vc_json_get_arr(doc, "failing_namespaces"), name))
		return vc_error_set(err, VC_EIO, "injected failure");
	ns = find_named(vc_json_get_arr(doc, "namespaces"), name);
	if (!ns)
		return VC_ENOTFOUND;
	*out = json_incref((json_t *)ns);
	return 0;
}

int admission_fixture_init(struct admission_fixture *f, json_t *doc)
{
	const json_t *cfg = vc_json_get_obj(doc, "config"), *names, *v;
	size_t i, n = 0;

	memset(f, 0, sizeof(*f));
	f->doc = doc ? doc : json_object();
	if (!f->doc)
		return VC_ENOMEM;
	names = vc_json_get_arr(cfg, "scheduler_names");
	if (names) {
		json_array_foreach (names, i, v)
			if (json_is_string(v) && n + 1 < VC_ARRAY_SIZE(f->names))
				f->names[n++] = json_string_value(v);
	} else {
		f->names[n++] = "volcano";
	}
	f->names[n] = NULL;
	admission_config_init(&f->config);
	f->config.scheduler_names = f->names;
	f->config.pod_config = vc_json_get_obj(cfg, "pod_config");
	f->config.scheduling_gates_queue_admission =
		vc_json_get_bool(cfg, "scheduling_gates_queue_admission", false);
	f->config.pod_level_resources = vc_json_get_bool(cfg, "pod_level_resources", false);
	f->config.max_queue_depth =
		(int)vc_json_get_int(cfg, "max_queue_depth", ADMISSION_MAX_QUEUE_DEPTH);
	f->config.queue_allocated_pods_check =
		vc_json_get_bool(cfg, "queue_allocated_pods_check", false);
	f->config.root_queue_protection = vc_json_get_bool(cfg, "root_queue_protection", true);
	f->state.get_queue = fx_get_queue;
	f->state.queue_children = fx_queue_children;
	f->state.get_namespace = fx_get_namespace;
	f->state.ctx = f->doc;
	f->ctx.config = &f->config;
	f->ctx.state = &f->state;
	return 0;
}

void admission_fixture_release(struct admission_fixture *f)
{
	json_decref(f->doc);
	f->doc = NULL;
}
