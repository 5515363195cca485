/*
 * jobs.c - /jobs/mutate and /jobs/validate (docs/volcano/webhooks.md §4-§6).
 *
 * Mutation adds Volcano's defaults as JSON Patch operations in Volcano's order. Validation on
 * CREATE concatenates every failing rule's text into one message, with each piece's own spacing
 * (docs/volcano/webhooks.md §0.2, §5.2); on UPDATE it stops at the first failing rule
 * (docs/volcano/webhooks.md §6). The Go webhook decodes the object into typed structs first;
 * jobs_gotypes.c provides that view (type errors, semantic equality) and jobs_podtemplate.c the
 * pod-template checks.
 */
#include "admission_internal.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_model.h"
#include "vc_str.h"
#include "vc_strconv.h"

#define JOB_GROUP    "batch.volcano.sh"
#define JOB_VERSION  "v1alpha1"
#define JOB_RESOURCE "jobs"

#define TOPOLOGY_BOTH \
	"must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"

/* ---- reading a decoded Job ---------------------------------------------------------------- */

/* A string field: "" when absent or null (Go's zero value). */
static const char *jstr(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : "";
}

/* An int32 field (the type check has bounded it): 0 when absent or null. */
static int32_t jint(const json_t *obj, const char *key)
{
	return (int32_t)vc_json_get_int(obj, key, 0);
}

/* A pointer field is set: present and not null. */
static bool jset(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return v && !json_is_null(v);
}

/* Go's int32 arithmetic wraps; C's would be undefined. */
static int32_t add32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

static int32_t mul32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a * (uint32_t)b);
}

/* A denial is not an error: map admission_deny's 0 to "denied" (1), keep VC_ENOMEM. */
static int denied(int rc)
{
	return rc ? rc : 1;
}

/* A networkTopology with both highestTierAllowed and a non-empty highestTierName. */
static bool topology_both(const json_t *nt)
{
	return jset(nt, "highestTierAllowed") && *jstr(nt, "highestTierName");
}

/*
 * DecodeJob (docs/volcano/webhooks.md §2.4): the GVR must be jobs, and request.object must decode
 * into a Job. Returns 0 when it does, 1 after denying into res, or VC_ENOMEM.
 */
static int job_decode(const struct admission_request *req, const json_t *obj,
		      struct admission_result *res)
{
	const char *key, *av = "", *kind = "", *slash;
	char *msg = NULL;
	json_t *v;
	int rc;

	rc = admission_check_resource(req, JOB_GROUP, JOB_VERSION, JOB_RESOURCE, res);
	if (rc)
		return rc;
	if (!obj)
		return 0; /* absent or null: the zero Job */
	/* The serializer first reads apiVersion and kind into an anonymous struct. */
	if (!json_is_object(obj))
		return denied(
			admission_deny(res,
				       "couldn't get version/kind; json parse error: json: "
				       "cannot unmarshal %s into Go value of type struct { "
				       "APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
				       "Kind string \"json:\\\"kind,omitempty\\\"\" }",
				       json_is_array(obj)     ? "array"
				       : json_is_string(obj)  ? "string"
				       : json_is_boolean(obj) ? "bool"
							      : "number"));
	json_object_foreach ((json_t *)obj, key, v) {
		if ((strcmp(key, "kind") && strcmp(key, "apiVersion")) || json_is_null(v))
			continue;
		if (!json_is_string(v))
			return denied(admission_deny(
				res,
				"couldn't get version/kind; json parse error: json: "
				"cannot unmarshal %s into Go struct field .%s of type "
				"string",
				json_is_object(v)    ? "object"
				: json_is_array(v)   ? "array"
				: json_is_boolean(v) ? "bool"
						     : "number",
				key));
		if (!strcmp(key, "kind"))
			kind = json_string_value(v);
		else
			av = json_string_value(v);
	}
	slash = strchr(av, '/');
	if (slash && strchr(slash + 1, '/'))
		return denied(admission_deny(res, "unexpected GroupVersion string: %s", av));
	/*
	 * An explicit other kind would make Go decode some other type and validate an empty Job;
	 * Caldera says what is wrong instead (docs/compatibility.md, Admission).
	 */
	if ((*av && strcmp(av, JOB_GROUP "/" JOB_VERSION)) || (*kind && strcmp(kind, "Job")))
		return denied(admission_deny(res,
					     "expect object to be %s/%s, Kind=Job, not %s, Kind=%s",
					     JOB_GROUP, JOB_VERSION, av, kind));
	rc = admit_job_typecheck(obj, &msg);
	if (rc == 1)
		return denied(admission_deny_take(res, msg));
	return rc;
}

/* ---- /jobs/mutate (docs/volcano/webhooks.md §4) ---------------------------------------------- */

/* Append {"op":op,"path":path,"value":value} to patch; value is stolen. */
static int patch_op(json_t *patch, const char *op, const char *path, json_t *value)
{
	json_t *o = json_object();

	if (!o || !value || json_object_set_new(o, "op", json_string(op)) ||
	    json_object_set_new(o, "path", json_string(path))) {
		json_decref(value);
		json_decref(o);
		return VC_ENOMEM;
	}
	if (json_object_set_new(o, "value", value)) {
		json_decref(o);
		return VC_ENOMEM;
	}
	return json_array_append_new(patch, o) ? VC_ENOMEM : 0;
}

/*
 * obj[key] replaced in obj by a shallow copy of itself (its members shared with the original),
 * so that members can be set on it without touching the original. Returns the copy (borrowed
 * from obj) or NULL when out of memory.
 */
static json_t *own_member(json_t *obj, const char *key)
{
	json_t *copy = json_copy(json_object_get(obj, key));

	return copy && !json_object_set_new(obj, key, copy) ? copy : NULL;
}

/*
 * Step 4: the tasks with their defaults, each task's own JSON with only the defaulted keys
 * added or overwritten. *changed tells whether any default applied. New reference or NULL.
 * The tasks share everything they do not change with the request's (a Job of 3 MiB is mostly
 * its templates, which a deep copy took a tenth of the review to duplicate): only a task's own
 * object, and its template and template spec when dnsPolicy is set, are copies.
 */
static json_t *default_tasks(const json_t *tasks, bool *changed)
{
	json_t *out = json_array(), *task, *t, *spec;
	char name[40];
	size_t i;

	*changed = false;
	if (!out)
		return NULL;
	json_array_foreach (tasks, i, task) {
		t = json_is_object(task) ? json_copy(task) : json_object();
		if (!t || json_array_append_new(out, t))
			goto fail;
		if (!*jstr(t, "name")) {
			snprintf(name, sizeof(name), "default%zu", i);
			if (json_object_set_new(t, "name", json_string(name)))
				goto fail;
			*changed = true;
		}
		spec = vc_json_get_obj(vc_json_get_obj(t, "template"), "spec");
		if (vc_json_get_bool(spec, "hostNetwork", false) && !*jstr(spec, "dnsPolicy")) {
			json_t *tmpl = own_member(t, "template");

			spec = tmpl ? own_member(tmpl, "spec") : NULL;
			if (!spec || json_object_set_new(spec, "dnsPolicy",
							 json_string("ClusterFirstWithHostNet")))
				goto fail;
			*changed = true;
		}
		if (!jset(t, "minAvailable")) {
			const json_t *pp = vc_json_get_obj(t, "partitionPolicy");
			int32_t min = jint(t, "replicas");

			if (pp && jint(pp, "minPartitions") > 0)
				min = mul32(jint(pp, "minPartitions"), jint(pp, "partitionSize"));
			if (json_object_set_new(t, "minAvailable", json_integer(min)))
				goto fail;
			*changed = true;
		}
		if (jint(t, "maxRetry") == 0) {
			if (json_object_set_new(t, "maxRetry", json_integer(3)))
				goto fail;
			*changed = true;
		}
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Step 6: a copy of the plugins map plus svc/ssh, keys sorted as Go marshals a map. */
static json_t *default_plugins(const json_t *plugins)
{
	static const char *const need_svc[] = { "tensorflow", "mpi", "pytorch", "ray" };
	json_t *all = json_deep_copy(plugins), *out = json_object(), *v;
	const char **keys = NULL, *key;
	bool svc = false;
	size_t i, n = 0;

	if (!all || !out)
		goto fail;
	for (i = 0; i < VC_ARRAY_SIZE(need_svc); i++)
		svc |= json_object_get(plugins, need_svc[i]) != NULL;
	if (svc && !json_object_get(all, "svc") && json_object_set_new(all, "svc", json_array()))
		goto fail;
	if (json_object_get(plugins, "mpi") && !json_object_get(all, "ssh") &&
	    json_object_set_new(all, "ssh", json_array()))
		goto fail;
	keys = vc_calloc(json_object_size(all) + 1, sizeof(*keys));
	if (!keys)
		goto fail;
	json_object_foreach (all, key, v) {
		keys[n++] = key;
	}
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 0; i < n; i++)
		if (json_object_set(out, keys[i], json_object_get(all, keys[i])))
			goto fail;
	vc_free(keys);
	json_decref(all);
	return out;
fail:
	vc_free(keys);
	json_decref(all);
	json_decref(out);
	return NULL;
}

static const char *default_scheduler(const struct admission_ctx *ctx)
{
	const struct admission_config *cfg = ctx ? ctx->config : NULL;

	if (cfg && cfg->scheduler_names && cfg->scheduler_names[0])
		return cfg->scheduler_names[0];
	return "volcano";
}

static int create_patch(const struct admission_ctx *ctx, const json_t *job, json_t **out)
{
	const json_t *spec = vc_json_get_obj(job, "spec"), *tasks = vc_json_get_arr(spec, "tasks");
	json_t *patch = json_array(), *defaulted = NULL, *t;
	bool changed;
	int32_t sum = 0;
	size_t i;
	int rc = VC_ENOMEM;

	*out = NULL;
	if (!patch)
		return VC_ENOMEM;
	if (!*jstr(spec, "queue") &&
	    (rc = patch_op(patch, "add", "/spec/queue", json_string("default"))))
		goto fail;
	if (!*jstr(spec, "schedulerName") && (rc = patch_op(patch, "add", "/spec/schedulerName",
							    json_string(default_scheduler(ctx)))))
		goto fail;
	if (jint(spec, "maxRetry") == 0 &&
	    (rc = patch_op(patch, "add", "/spec/maxRetry", json_integer(3))))
		goto fail;
	rc = VC_ENOMEM;
	defaulted = default_tasks(tasks, &changed);
	if (!defaulted)
		goto fail;
	if (changed && (rc = patch_op(patch, "replace", "/spec/tasks", json_incref(defaulted))))
		goto fail;
	if (jint(spec, "minAvailable") == 0) {
		json_array_foreach (defaulted, i, t) {
			sum = add32(sum, jint(t, "minAvailable"));
		}
		if ((rc = patch_op(patch, "add", "/spec/minAvailable", json_integer(sum))))
			goto fail;
	}
	if (vc_json_get_obj(spec, "plugins") &&
	    (rc = patch_op(patch, "replace", "/spec/plugins",
			   default_plugins(vc_json_get_obj(spec, "plugins")))))
		goto fail;
	json_decref(defaulted);
	/* Go marshals an empty slice of operations as null (docs/volcano/webhooks.md §2.5). */
	*out = admission_patch(patch);
	return 0;
fail:
	json_decref(defaulted);
	json_decref(patch);
	return rc;
}

int admit_jobs_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
		      struct admission_result *res)
{
	int rc = job_decode(req, req->object, res);

	if (rc)
		return rc < 0 ? rc : 0;
	if (strcmp(req->operation, "CREATE"))
		return admission_deny(res, "expect operation to be 'CREATE' ");
	return create_patch(ctx, req->object, &res->patch);
}

/* ---- lifecycle policies (docs/volcano/webhooks.md §5.4) -------------------------------------- */

static const char *const valid_events[] = { "*",	  "PodFailed",	"PodEvicted",
					    "PodPending", "Unknown",	"TaskCompleted",
					    "TaskFailed", "JobUpdated", NULL };
static const char *const valid_actions[] = { "AbortJob",    "RestartJob",	"RestartTask",
					     "RestartPod",  "RestartPartition", "TerminateJob",
					     "CompleteJob", "ResumeJob",	NULL };

static bool event_allowed(const char *e)
{
	enum vc_bus_event ev = vc_bus_event_parse(e);

	return ev != VC_EVENT_INVALID && vc_bus_event_is_user(ev);
}

static bool action_allowed(const char *a)
{
	enum vc_bus_action ac = vc_bus_action_parse(a);

	return ac != VC_ACTION_INVALID && vc_bus_action_is_external(ac);
}

/* One field error's text, «<path>: Invalid value: "<v>": <detail>», into errs. */
static int policy_invalid(struct vc_strlist *errs, const char *path, const char *value,
			  const char *detail)
{
	struct vc_field_path fp = vc_field_path_root(path);
	struct vc_field_errors fe;
	struct vc_buf b;
	char *text;
	int rc;

	vc_field_errors_init(&fe);
	vc_buf_init(&b, 0);
	rc = vc_field_invalid(&fe, &fp, vc_fv_named_str(value), detail);
	if (!rc)
		rc = vc_field_error_format(&fe.items[0], &b);
	vc_field_errors_release(&fe);
	if (!rc) {
		text = vc_buf_take(&b);
		rc = text ? vc_strlist_add(errs, text) : VC_ENOMEM;
		vc_free(text);
	}
	vc_buf_release(&b);
	return rc;
}

/* The members of policy.events then policy.event, without repeats ("" for null entries). */
static int policy_event_list(const json_t *policy, struct vc_strlist *out)
{
	struct vc_hmap seen;
	const char *event = jstr(policy, "event");
	const json_t *e;
	size_t i, n = json_array_size(vc_json_get_arr(policy, "events"));
	int rc = 0;

	vc_hmap_init_str(&seen);
	for (i = 0; i <= n && !rc; i++) {
		const char *s;

		if (i < n) {
			e = json_array_get(vc_json_get_arr(policy, "events"), i);
			s = json_is_string(e) ? json_string_value(e) : "";
		} else if (*event) {
			s = event;
		} else {
			break;
		}
		rc = admission_hmap_add(&seen, s, 0);
		if (rc == 1)
			rc = vc_strlist_add(out, s);
	}
	vc_hmap_release(&seen, NULL);
	return rc < 0 ? rc : 0;
}

/*
 * validatePolicies: append nothing when the policies are valid; otherwise the go-multierror
 * text of the errors found followed by the valid events and actions (docs/volcano/webhooks.md §5.2
 * b5/e). Returns 0 or VC_ENOMEM.
 */
static int check_policies(const json_t *policies, const char *path, struct vc_buf *msg)
{
	struct vc_hmap events, codes;
	struct vc_strlist errs, list;
	const json_t *p;
	char code[24];
	size_t i, k;
	int rc = 0;

	vc_strlist_init(&errs);
	vc_hmap_init_str(&events);
	vc_hmap_init_str(&codes);
	json_array_foreach (policies, i, p) {
		const char *event = jstr(p, "event");
		bool has_events = *event || json_array_size(vc_json_get_arr(p, "events"));
		bool has_code = jset(p, "exitCode");

		if (has_events && has_code) {
			rc = vc_strlist_add(&errs,
					    "must not specify event and exitCode simultaneously");
			break;
		}
		if (!has_events && !has_code) {
			rc = vc_strlist_add(&errs, "either event and exitCode should be specified");
			break;
		}
		if (has_events) {
			bool stop = false;

			vc_strlist_init(&list);
			rc = policy_event_list(p, &list);
			for (k = 0; !rc && !stop && k < list.len; k++) {
				const char *e = list.items[k];

				stop = true;
				if (!event_allowed(e))
					rc = policy_invalid(&errs, path, e, "invalid policy event");
				else if (!action_allowed(jstr(p, "action")))
					rc = policy_invalid(&errs, path, jstr(p, "action"),
							    "invalid policy action");
				else if ((rc = admission_hmap_add(&events, e, 0)) == 0)
					rc = vc_strlist_addf(&errs,
							     "duplicate event %s  across different "
							     "policy",
							     e);
				else
					stop = rc < 0;
				if (rc == 1)
					rc = 0;
			}
			vc_strlist_release(&list);
			if (rc || stop)
				break;
		} else {
			int32_t exit_code = jint(p, "exitCode");

			if (exit_code == 0) {
				rc = vc_strlist_add(&errs, "0 is not a valid error code");
				break;
			}
			snprintf(code, sizeof(code), "%" PRId32, exit_code);
			rc = admission_hmap_add(&codes, code, 0);
			if (rc == 0)
				rc = vc_strlist_addf(&errs, "duplicate exitCode %s", code);
			if (rc != 1)
				break;
			rc = 0;
		}
	}
	if (!rc && admission_hmap_get(&events, "*", NULL) && vc_hmap_count(&events) > 1)
		rc = vc_strlist_add(&errs, "if there's * here, no other policy should be here");
	if (!rc && errs.len) {
		/* go-multierror's ListFormatFunc */
		if (errs.len == 1)
			rc = vc_buf_addf(msg, "1 error occurred:\n\t* %s\n\n", errs.items[0]);
		else
			rc = vc_buf_addf(msg, "%zu errors occurred:", errs.len);
		for (i = 0; !rc && errs.len > 1 && i < errs.len; i++)
			rc = vc_buf_addf(msg, "\n\t* %s", errs.items[i]);
		if (!rc && errs.len > 1)
			rc = vc_buf_adds(msg, "\n\n");
		if (!rc)
			rc = vc_buf_adds(msg, " valid events are [");
		for (i = 0; !rc && valid_events[i]; i++)
			rc = vc_buf_addf(msg, "%s%s", i ? " " : "", valid_events[i]);
		if (!rc)
			rc = vc_buf_adds(msg, "], valid actions are [");
		for (i = 0; !rc && valid_actions[i]; i++)
			rc = vc_buf_addf(msg, "%s%s", i ? " " : "", valid_actions[i]);
		if (!rc)
			rc = vc_buf_adds(msg, "];");
	}
	vc_strlist_release(&errs);
	vc_hmap_release(&events, NULL);
	vc_hmap_release(&codes, NULL);
	return rc < 0 ? rc : 0;
}

/* ---- the other CREATE rules --------------------------------------------------------------- */

/*
 * Go's strconv.ParseInt(s, 0, 64) acceptance (flag's int parser), except that the sign does not
 * decide between INT64_MAX and INT64_MIN: any magnitude up to 2^63 is accepted.
 */
static bool go_parse_int(const char *s)
{
	uint64_t v;

	if (*s == '+' || *s == '-')
		s++;
	return vc_strconv_parse_uint(s, strlen(s), 0, &v) == 0 && v <= (uint64_t)INT64_MAX + 1;
}

/*
 * The mpi plugin's --master, parsed with Go's flag package semantics (docs/volcano/webhooks.md
 * §5.5): "-master=x",
 * "--master x"; stop at the first non-flag or "--"; an unknown flag or a bad --port value ends
 * parsing, keeping what was set before.
 */
static const char *mpi_master(const json_t *args)
{
	const char *master = "master";
	size_t i = 0, n = json_array_size(args);

	while (i < n) {
		const char *s = json_string_value(json_array_get(args, i)), *name, *eq, *value;
		size_t minus = 1, nlen;

		if (!s)
			s = "";
		if (strlen(s) < 2 || s[0] != '-')
			break;
		if (s[1] == '-') {
			minus = 2;
			if (!s[2])
				break;
		}
		name = s + minus;
		if (!*name || *name == '-' || *name == '=')
			break;
		i++;
		eq = strchr(name + 1, '=');
		nlen = eq ? (size_t)(eq - name) : strlen(name);
		if (!(nlen == 6 && !strncmp(name, "master", 6)) &&
		    !(nlen == 6 && !strncmp(name, "worker", 6)) &&
		    !(nlen == 4 && !strncmp(name, "port", 4)))
			break;
		if (eq) {
			value = eq + 1;
		} else if (i < n) {
			value = json_string_value(json_array_get(args, i++));
			if (!value)
				value = "";
		} else {
			break;
		}
		if (nlen == 4 && !go_parse_int(value))
			break;
		if (nlen == 6 && !strncmp(name, "master", 6))
			master = value;
	}
	return master;
}

/* docs/volcano/webhooks.md §5.2 b8: the first failing partition rule, then the nested topology
 * text, no separators. */
static int partition_text(const json_t *task, const char *tn, const char *jn, struct vc_buf *b)
{
	const json_t *pp = vc_json_get_obj(task, "partitionPolicy");
	int32_t total, size, minp;
	int rc = 0;

	if (!pp)
		return 0;
	total = jint(pp, "totalPartitions");
	size = jint(pp, "partitionSize");
	minp = jint(pp, "minPartitions");
	if (total <= 0)
		rc = vc_buf_addf(b, "'TotalPartitions' must be greater than 0 in task: %s, job: %s",
				 tn, jn);
	else if (size <= 0)
		rc = vc_buf_addf(b, "'PartitionSize' must be greater than 0 in task: %s, job: %s",
				 tn, jn);
	else if (jint(task, "replicas") != mul32(total, size))
		rc = vc_buf_addf(
			b,
			"'Replicas' are not equal to TotalPartitions*PartitionSize in task: "
			"%s, job: %s",
			tn, jn);
	else if (jset(task, "minAvailable") && minp > 0 &&
		 mul32(minp, size) != jint(task, "minAvailable"))
		rc = vc_buf_addf(b,
				 "'MinAvailable' is not equal to MinPartitions*PartitionSize in "
				 "task: %s, job: %s",
				 tn, jn);
	if (!rc && topology_both(vc_json_get_obj(pp, "networkTopology")))
		rc = vc_buf_adds(b, TOPOLOGY_BOTH);
	return rc;
}

/* IsQualifiedName's messages as Go's %v of the []string, or nothing for a valid name. */
static int qualified_name_msgs(const char *name, struct vc_strlist *msgs)
{
	int rc = vc_validate_qualified_name(name, msgs);

	return rc == VC_EINVALID ? 0 : rc;
}

/* validateIO: the first failing volume rule (docs/volcano/webhooks.md §5.2 g). */
static int check_volumes(const json_t *volumes, struct vc_buf *b)
{
	struct vc_hmap paths;
	struct vc_strlist msgs;
	const json_t *v;
	size_t i;
	int rc = 0;

	vc_hmap_init_str(&paths);
	json_array_foreach (volumes, i, v) {
		const char *mp = jstr(v, "mountPath"), *claim = jstr(v, "volumeClaimName");

		if (!*mp) {
			rc = vc_buf_adds(b, " mountPath is required;");
			break;
		}
		if (admission_hmap_get(&paths, mp, NULL)) {
			rc = vc_buf_addf(b, " duplicated mountPath: %s;", mp);
			break;
		}
		if (!jset(v, "volumeClaim") && !*claim) {
			rc = vc_buf_adds(
				b, " either VolumeClaim or VolumeClaimName must be specified;");
			break;
		}
		if (*claim) {
			if (jset(v, "volumeClaim")) {
				rc = vc_buf_adds(b, "conflict: If you want to use an existing PVC, "
						    "just specify VolumeClaimName.If you want to "
						    "create a new PVC, you do not need to specify "
						    "VolumeClaimName");
				break;
			}
			vc_strlist_init(&msgs);
			rc = vc_validate_dns1123_subdomain(claim, &msgs);
			if (rc == VC_EINVALID) {
				rc = vc_buf_addf(b, "invalid VolumeClaimName %s : ", claim);
				if (!rc)
					rc = vc_strlist_format_go(&msgs, b);
				vc_strlist_release(&msgs);
				break;
			}
			vc_strlist_release(&msgs);
			if (rc)
				break;
		}
		if ((rc = admission_hmap_add(&paths, mp, 0)) < 0)
			break;
		rc = 0;
	}
	vc_hmap_release(&paths, NULL);
	return rc;
}

/* The lister's NotFound text: queue.scheduling.volcano.sh "<q>" not found (%q-quoted). */
static int queue_not_found(const char *q, struct vc_buf *b)
{
	int rc = vc_buf_adds(b, "queue.scheduling.volcano.sh ");

	if (!rc)
		rc = vc_go_quote(q, b);
	if (!rc)
		rc = vc_buf_adds(b, " not found");
	return rc;
}

/* docs/volcano/webhooks.md §5.2 h: the queue exists, is Open, is not root and has no children. */
static int check_queue(const struct admission_ctx *ctx, const char *q, struct vc_buf *b)
{
	const struct admission_state *st = ctx ? ctx->state : NULL;
	json_t *queue = NULL, *children = NULL;
	struct vc_error err;
	const char *name, *state;
	int rc;

	vc_error_clear(&err);
	rc = st && st->get_queue ? st->get_queue(st->ctx, q, &queue, &err) : VC_ENOTFOUND;
	if (rc == VC_ENOMEM)
		return rc;
	if (rc == VC_ENOTFOUND) {
		rc = vc_buf_adds(b, " unable to find job queue: ");
		if (!rc)
			rc = queue_not_found(q, b);
		return rc ? rc : vc_buf_adds(b, ";");
	}
	if (rc)
		return vc_buf_addf(b, " unable to find job queue: %s;", err.text);
	name = jstr(vc_json_get_obj(queue, "metadata"), "name");
	if (!*name)
		name = q;
	state = jstr(vc_json_get_obj(queue, "status"), "state");
	rc = 0;
	if (strcmp(state, "Open"))
		rc = vc_buf_addf(
			b,
			" can only submit job to queue with state `Open`, queue `%s` status "
			"is `%s`;",
			name, state);
	if (!rc && !strcmp(name, "root")) {
		rc = vc_buf_adds(b, " can not submit job to root queue;");
	} else if (!rc && st->queue_children) {
		vc_error_clear(&err);
		rc = st->queue_children(st->ctx, name, &children, &err);
		if (rc == VC_ENOMEM)
			goto out;
		if (rc)
			rc = vc_buf_addf(b, "failed to get child queues for queue %s: %s;", name,
					 err.text);
		else if (json_array_size(children))
			rc = vc_buf_addf(b,
					 " can only submit job to leaf queue, queue `%s` has %zu "
					 "child queues;",
					 name, json_array_size(children));
	}
out:
	json_decref(children);
	json_decref(queue);
	return rc;
}

struct edge {
	size_t from, to;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/*
 * topoSort (docs/volcano/webhooks.md §5.2 i): whether Kahn's algorithm sorts every task. Names map
 * to nodes (a repeated task name resets its in-degree, as Go's map assignment does); each dependsOn
 * entry adds one to the in-degree, while repeated edges count once.
 */
static int tasks_form_dag(const json_t *tasks, bool *dag)
{
	struct vc_hmap nodes;
	struct edge *edges = NULL;
	size_t nedges = 0, cap = 0, i, k, node, top = 0, sorted = 0, *stack = NULL, *start = NULL;
	size_t ntask_nodes;
	long *indeg = NULL;
	const json_t *t, *dep;
	int rc = VC_ENOMEM;

	vc_hmap_init_str(&nodes);
	/* Nodes: task names first (indexes below ntasks mark real tasks), then other names. */
	json_array_foreach (tasks, i, t) {
		if (admission_hmap_add(&nodes, jstr(t, "name"), vc_hmap_count(&nodes)) < 0)
			goto out;
	}
	ntask_nodes = vc_hmap_count(&nodes);
	json_array_foreach (tasks, i, t) {
		size_t to;

		admission_hmap_get(&nodes, jstr(t, "name"), &to);
		json_array_foreach (vc_json_get_arr(vc_json_get_obj(t, "dependsOn"), "name"), k,
				    dep) {
			const char *d = json_is_string(dep) ? json_string_value(dep) : "";

			if (admission_hmap_add(&nodes, d, vc_hmap_count(&nodes)) < 0)
				goto out;
			if (nedges == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				struct edge *e = vc_realloc(edges, ncap * sizeof(*e));

				if (!e)
					goto out;
				edges = e;
				cap = ncap;
			}
			admission_hmap_get(&nodes, d, &edges[nedges].from);
			edges[nedges++].to = to;
		}
	}
	indeg = vc_calloc(vc_hmap_count(&nodes) + 1, sizeof(*indeg));
	stack = vc_calloc(vc_hmap_count(&nodes) + 1, sizeof(*stack));
	start = vc_calloc(vc_hmap_count(&nodes) + 2, sizeof(*start));
	if (!indeg || !stack || !start)
		goto out;
	/* In-degrees with Go's reset on a repeated name: count only the last task's entries. */
	json_array_foreach (tasks, i, t) {
		admission_hmap_get(&nodes, jstr(t, "name"), &node);
		indeg[node] = (long)json_array_size(
			vc_json_get_arr(vc_json_get_obj(t, "dependsOn"), "name"));
	}
	if (nedges)
		qsort(edges, nedges, sizeof(*edges), edge_cmp);
	for (i = 0, k = 0; i < nedges; i++)
		if (!k || edge_cmp(&edges[k - 1], &edges[i]))
			edges[k++] = edges[i];
	nedges = k;
	for (i = 0; i < nedges; i++)
		start[edges[i].from + 1]++;
	for (i = 0; i < vc_hmap_count(&nodes); i++)
		start[i + 1] += start[i];
	/* Only task names are in Go's inDegree map, so only they can start the sort. */
	for (i = 0; i < ntask_nodes; i++)
		if (indeg[i] == 0)
			stack[top++] = i;
	while (top) {
		node = stack[--top];
		sorted++;
		for (i = start[node]; edges && i < start[node + 1]; i++)
			if (--indeg[edges[i].to] == 0)
				stack[top++] = edges[i].to;
	}
	*dag = sorted == json_array_size(tasks);
	rc = 0;
out:
	vc_hmap_release(&nodes, NULL);
	vc_free(edges);
	vc_free(indeg);
	vc_free(stack);
	vc_free(start);
	return rc;
}

/* Go's strings.TrimSpace over a vc_malloc'd string, in place. */
static void trim_space(char *s)
{
	static const char *const uspace[] = {
		"\xc2\x85",	"\xc2\xa0",	"\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81",
		"\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85", "\xe2\x80\x86",
		"\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89", "\xe2\x80\x8a", "\xe2\x80\xa8",
		"\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80"
	};
	size_t len = strlen(s), start = 0, i, w;
	bool again = true;

	while (again) {
		again = false;
		if (start < len && s[start] && strchr(" \t\n\v\f\r", s[start])) {
			start++;
			again = true;
			continue;
		}
		for (i = 0; i < VC_ARRAY_SIZE(uspace); i++) {
			w = strlen(uspace[i]);
			if (len - start >= w && !memcmp(s + start, uspace[i], w)) {
				start += w;
				again = true;
				break;
			}
		}
	}
	again = true;
	while (again && len > start) {
		again = false;
		if (s[len - 1] && strchr(" \t\n\v\f\r", s[len - 1])) {
			len--;
			again = true;
			continue;
		}
		for (i = 0; i < VC_ARRAY_SIZE(uspace); i++) {
			w = strlen(uspace[i]);
			if (len - start >= w && !memcmp(s + len - w, uspace[i], w)) {
				len -= w;
				again = true;
				break;
			}
		}
	}
	memmove(s, s + start, len - start);
	s[len - start] = '\0';
}

/* validateJobCreate (docs/volcano/webhooks.md §5.1, §5.2); denies into res. */
static int validate_create(const struct admission_ctx *ctx, const json_t *job,
			   struct admission_result *res)
{
	const json_t *meta = vc_json_get_obj(job, "metadata");
	const json_t *spec = vc_json_get_obj(job, "spec");
	const json_t *tasks = vc_json_get_arr(spec, "tasks");
	const json_t *plugins = vc_json_get_obj(spec, "plugins"), *task, *mpi, *pv;
	const char *jn = jstr(meta, "name"), *ns = jstr(meta, "namespace"), *key;
	struct vc_hmap names;
	struct vc_strlist msgs;
	bool has_deps = false, dag = true, found;
	int32_t total = 0;
	struct vc_buf b;
	char *text;
	size_t i;
	int rc = 0;

	if (!json_array_size(tasks))
		return admission_deny(res, "No task specified in job spec");
	mpi = json_object_get(plugins, "mpi");
	if (mpi) {
		const char *master = mpi_master(json_is_array(mpi) ? mpi : NULL);

		found = false;
		json_array_foreach (tasks, i, task) {
			found |= !strcmp(jstr(task, "name"), master);
		}
		if (!found)
			return admission_deny(res, "The specified mpi master task was not found");
	}

	vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
	vc_hmap_init_str(&names);
	if (topology_both(vc_json_get_obj(spec, "networkTopology")))
		rc = vc_buf_adds(&b, TOPOLOGY_BOTH);
	json_array_foreach (tasks, i, task) {
		const char *tn = jstr(task, "name");
		char *pod;

		if (rc)
			break;
		if (jset(task, "dependsOn"))
			has_deps = true;
		if (jset(task, "minAvailable") &&
		    jint(task, "minAvailable") > jint(task, "replicas") &&
		    (rc = vc_buf_addf(
			     &b,
			     " 'minAvailable' is greater than 'replicas' in task: %s, job: "
			     "%s;",
			     tn, jn)))
			break;
		total = add32(total, jint(task, "replicas"));
		rc = admission_hmap_add(&names, tn, i);
		if (rc == 0) {
			rc = vc_buf_addf(&b, " duplicated task name %s;", tn);
			break;
		}
		if (rc < 0 || (rc = check_policies(vc_json_get_arr(task, "policies"),
						   "spec.tasks.policies", &b)))
			break;
		pod = vc_asprintf("%s-%s-%zu", jn, tn, i);
		vc_strlist_init(&msgs);
		rc = pod ? qualified_name_msgs(pod, &msgs) : VC_ENOMEM;
		if (!rc && msgs.len) {
			rc = vc_buf_addf(&b, "create pod with name %s validate failed ", pod);
			if (!rc)
				rc = vc_strlist_format_go(&msgs, &b);
			if (!rc)
				rc = vc_buf_adds(&b, ";");
		}
		vc_strlist_release(&msgs);
		vc_free(pod);
		if (!rc)
			rc = admit_job_task_template(ctx, task, i, tn, ns, &b);
		if (!rc)
			rc = partition_text(task, tn, jn, &b);
	}
	vc_strlist_init(&msgs);
	if (!rc && !(rc = qualified_name_msgs(jn, &msgs)) && msgs.len) {
		rc = vc_buf_addf(&b, "create job with name %s validate failed ", jn);
		if (!rc)
			rc = vc_strlist_format_go(&msgs, &b);
	}
	vc_strlist_release(&msgs);
	if (!rc && total < jint(spec, "minAvailable"))
		rc = vc_buf_adds(&b,
				 " job 'minAvailable' should not be greater than total replicas "
				 "in tasks;");
	if (!rc)
		rc = check_policies(vc_json_get_arr(spec, "policies"), "spec.policies", &b);
	json_object_foreach ((json_t *)plugins, key, pv) {
		if (rc)
			break;
		if (vc_job_plugin_parse(key) == VC_JOB_PLUGIN_INVALID)
			rc = vc_buf_addf(&b, " unable to find job plugin: %s;", key);
	}
	if (!rc)
		rc = check_volumes(vc_json_get_arr(spec, "volumes"), &b);
	if (!rc)
		rc = check_queue(ctx, jstr(spec, "queue"), &b);
	if (!rc && has_deps && !(rc = tasks_form_dag(tasks, &dag)) && !dag)
		rc = vc_buf_adds(&b, " job has dependencies between tasks, but doesn't form a "
				     "directed acyclic graph(DAG);");
	vc_hmap_release(&names, NULL);
	if (rc) {
		vc_buf_release(&b);
		return rc == VC_E2BIG ? VC_ENOMEM : rc;
	}
	if (!b.len) {
		vc_buf_release(&b);
		return 0;
	}
	text = vc_buf_take(&b);
	if (text)
		trim_space(text);
	return admission_deny_take(res, text);
}

/* ---- UPDATE (docs/volcano/webhooks.md §6) ---------------------------------------------------- */

/* Make to[key] what from[key] is, absent included (canonical forms omit zero values). */
static int copy_member(json_t *to, const json_t *from, const char *key)
{
	json_t *v = json_object_get(from, key);

	if (!v) {
		json_object_del(to, key); /* it may well be absent already */
		return 0;
	}
	return json_object_set(to, key, v) ? VC_ENOMEM : 0;
}

/* Clear volumeClaimName where volumeClaim is set, in a canonical spec (zero: absent). */
static void clear_claim_names(json_t *spec)
{
	json_t *v;
	size_t i;

	json_array_foreach (vc_json_get_arr(spec, "volumes"), i, v) {
		if (jset(v, "volumeClaim"))
			json_object_del(v, "volumeClaimName");
	}
}

static int validate_update(const struct admission_request *req, const json_t *job,
			   struct admission_result *res)
{
	const json_t *spec = vc_json_get_obj(job, "spec"), *old = req->old_object, *task;
	const json_t *old_spec, *tasks = vc_json_get_arr(spec, "tasks");
	const char *jn = jstr(vc_json_get_obj(job, "metadata"), "name");
	json_t *cnew = NULL, *cold = NULL, *nt, *ot;
	int32_t total = 0;
	struct vc_buf b;
	size_t i;
	int rc;

	rc = job_decode(req, old, res);
	if (rc)
		return rc < 0 ? rc : 0;
	old_spec = vc_json_get_obj(old, "spec");
	json_array_foreach (tasks, i, task) {
		const char *tn = jstr(task, "name");
		int32_t replicas = jint(task, "replicas");

		if (replicas < 0)
			return admission_deny(res, "'replicas' must be >= 0 in task: %s", tn);
		if (jset(task, "minAvailable")) {
			if (jint(task, "minAvailable") < 0)
				return admission_deny(
					res, "'minAvailable' must be >= 0 in task: %s", tn);
			if (jint(task, "minAvailable") > replicas)
				return admission_deny(
					res, "'minAvailable' must be <= 'replicas' in task: %s",
					tn);
		}
		vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
		if (partition_text(task, tn, jn, &b)) {
			vc_buf_release(&b);
			return VC_ENOMEM;
		}
		if (b.len)
			return admission_deny_take(res, vc_buf_take(&b));
		vc_buf_release(&b);
		total = add32(total, replicas);
	}
	if (jint(spec, "minAvailable") > total)
		return admission_deny(res, "job 'minAvailable' must not be greater than total "
					   "replicas");
	if (jint(spec, "minAvailable") < 0)
		return admission_deny(res, "job 'minAvailable' must be >= 0");
	if (topology_both(vc_json_get_obj(spec, "networkTopology")))
		return admission_deny(res, TOPOLOGY_BOTH);
	if (json_array_size(vc_json_get_arr(old_spec, "tasks")) != json_array_size(tasks))
		return admission_deny(res, "job updates may not add or remove tasks");

	if ((rc = admit_job_spec_canonical(spec, &cnew)) ||
	    (rc = admit_job_spec_canonical(old_spec, &cold)))
		goto out;
	rc = VC_ENOMEM;
	/* What may change: copy the old values over the new ones. */
	if (copy_member(cnew, cold, "minAvailable") || copy_member(cnew, cold, "priorityClassName"))
		goto out;
	json_array_foreach (vc_json_get_arr(cnew, "tasks"), i, nt) {
		ot = json_array_get(vc_json_get_arr(cold, "tasks"), i);
		if (copy_member(nt, ot, "replicas") || copy_member(nt, ot, "minAvailable"))
			goto out;
	}
	clear_claim_names(cnew);
	clear_claim_names(cold);
	rc = 0;
	if (!vc_json_equal(cnew, cold))
		rc = admission_deny(res, "job updates may not change fields other than "
					 "`minAvailable`, `tasks[*].replicas under spec` and "
					 "`PriorityClassName`");
out:
	json_decref(cnew);
	json_decref(cold);
	return rc;
}

int admit_jobs_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			struct admission_result *res)
{
	int rc = job_decode(req, req->object, res);

	if (rc)
		return rc < 0 ? rc : 0;
	if (!strcmp(req->operation, "CREATE"))
		return validate_create(ctx, req->object, res);
	if (!strcmp(req->operation, "UPDATE"))
		return validate_update(req, req->object, res);
	return admission_deny(res, "expect operation to be 'CREATE' or 'UPDATE'");
}
