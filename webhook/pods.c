/*
 * pods.c - /pods/mutate and /pods/validate (docs/volcano/webhooks.md §11).
 *
 * Mutation applies the first matching resource group of the admission configuration (node
 * selector labels, affinity, tolerations, scheduler name) and, behind the
 * SchedulingGatesQueueAdmission feature gate, the queue-allocation scheduling gate. Validation
 * checks the job-disruption-budget annotations of pods for our schedulers.
 */
#include "admission_internal.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_strconv.h"
#include "vc_validate.h"
#include "vc_yaml.h"

#define GATE_NAME	     "scheduling.volcano.sh/queue-allocation-gate"
#define DEFAULT_GROUP_KEY    "volcano.sh/resource-group"
#define JDB_MIN_AVAILABLE    "volcano.sh/jdb-min-available"
#define JDB_MAX_UNAVAILABLE  "volcano.sh/jdb-max-unavailable"
#define POD_SCHEME	     "volcano.sh/volcano/pkg/webhooks/schema/schema.go:37"
#define GROUP_VALUE_YAML_MAX ((size_t)64 << 10)

/* ---- decoding the request's object as Go's decoder would -------------------------------- */

/* A map[string]string member: an object whose values are strings (or null). */
static int check_string_map(struct admission_result *res, const json_t *obj, const char *key,
			    const char *where)
{
	const char *k;
	json_t *v;
	int rc = admission_check_field(res, obj, key, ADMISSION_WANT_OBJECT, where,
				       "map[string]string");

	json_object_foreach (rc ? NULL : vc_json_get_obj(obj, key), k, v) {
		rc = admission_check_value(res, v, ADMISSION_WANT_STRING, where, "string");
		if (rc)
			break;
	}
	return rc;
}

/*
 * Decode a Pod review object as DecodePod does: the kind and apiVersion, when given, must be
 * Pod and v1; members of the wrong type deny. Returns 1 when it denied, 0, or VC_ENOMEM.
 */
static int pod_decode(struct admission_result *res, const json_t *obj)
{
	const json_t *meta = vc_json_get_obj(obj, "metadata"), *spec = vc_json_get_obj(obj, "spec");
	const char *kind = vc_json_get_str(obj, "kind"),
		   *version = vc_json_get_str(obj, "apiVersion");
	int rc;

	if (obj && !json_is_null(obj) && !json_is_object(obj))
		return admission_check_value(res, obj, ADMISSION_WANT_OBJECT, "Pod", "v1.Pod");
	if ((rc = admission_check_field(res, obj, "kind", ADMISSION_WANT_STRING, "TypeMeta.kind",
					"string")) ||
	    (rc = admission_check_field(res, obj, "apiVersion", ADMISSION_WANT_STRING,
					"TypeMeta.apiVersion", "string")))
		return rc;
	if ((kind && kind[0] && strcmp(kind, "Pod") != 0) ||
	    (version && version[0] && strcmp(version, "v1") != 0)) {
		rc = admission_deny(res,
				    "no kind \"%s\" is registered for version \"%s\" in scheme "
				    "\"" POD_SCHEME "\"",
				    kind && kind[0] ? kind : "Pod",
				    version && version[0] ? version : "v1");
		return rc ? VC_ENOMEM : 1;
	}
	if ((rc = admission_check_field(res, obj, "metadata", ADMISSION_WANT_OBJECT, "Pod.metadata",
					"v1.ObjectMeta")) ||
	    (rc = admission_check_field(res, meta, "namespace", ADMISSION_WANT_STRING,
					"ObjectMeta.metadata.namespace", "string")) ||
	    (rc = check_string_map(res, meta, "annotations", "ObjectMeta.metadata.annotations")) ||
	    (rc = admission_check_field(res, obj, "spec", ADMISSION_WANT_OBJECT, "Pod.spec",
					"v1.PodSpec")) ||
	    (rc = check_string_map(res, spec, "nodeSelector", "PodSpec.spec.nodeSelector")) ||
	    (rc = admission_check_field(res, spec, "schedulerName", ADMISSION_WANT_STRING,
					"PodSpec.spec.schedulerName", "string")) ||
	    (rc = admission_check_field(res, spec, "affinity", ADMISSION_WANT_OBJECT,
					"PodSpec.spec.affinity", "v1.Affinity")) ||
	    (rc = admission_check_field(res, spec, "tolerations", ADMISSION_WANT_ARRAY,
					"PodSpec.spec.tolerations", "[]v1.Toleration")) ||
	    (rc = admission_check_field(res, spec, "schedulingGates", ADMISSION_WANT_ARRAY,
					"PodSpec.spec.schedulingGates", "[]v1.PodSchedulingGate")))
		return rc;
	return 0;
}

/* The resource check and the decode both handlers start with; 1 = denied. */
static int pod_prologue(const struct admission_request *req, struct admission_result *res)
{
	int rc = admission_check_resource(req, "", "v1", "pods", res);

	if (rc)
		return rc;
	return pod_decode(res, req->object);
}

/* The pod annotation key: 1 with its value in *value ("" for null), 0 when absent. */
static bool pod_annotation(const json_t *pod, const char *key, const char **value)
{
	const json_t *v = json_object_get(
		vc_json_get_obj(vc_json_get_obj(pod, "metadata"), "annotations"), key);

	*value = json_is_string(v) ? json_string_value(v) : "";
	return v != NULL;
}

/* ---- /pods/mutate (docs/volcano/webhooks.md §11.1) ------------------------------------------- */

/* A config string: the value of a YAML scalar decoded into a Go string, NULL otherwise. */
static const char *config_str(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	return NULL;
}

/* The namespace resource group: the pod's namespace is one of object.value. */
static bool in_namespace_group(const json_t *object, const char *ns)
{
	const json_t *v;
	char buf[32];
	size_t i;

	json_array_foreach (vc_json_get_arr(object, "value"), i, v) {
		const char *s = config_str(v, buf, sizeof(buf));

		if (s && strcmp(s, ns) == 0)
			return true;
	}
	return false;
}

/*
 * Merge the YAML maps of object.value into want (mergo.Merge: a key keeps its first non-empty
 * value). An entry that is not a map of scalars is skipped, as yaml.Unmarshal fails on it.
 */
static int group_annotations(const json_t *object, json_t *want)
{
	const json_t *entry;
	size_t i;

	json_array_foreach (vc_json_get_arr(object, "value"), i, entry) {
		const char *text = json_string_value(entry), *k;
		json_t *map = NULL, *v;
		char buf[32];
		int rc;

		if (!text || json_string_length(entry) > GROUP_VALUE_YAML_MAX)
			continue;
		rc = vc_yaml_load_one(text, json_string_length(entry), &map, NULL);
		if (rc == VC_ENOMEM)
			return rc;
		if (rc || !json_is_object(map)) {
			json_decref(map);
			continue;
		}
		json_object_foreach (map, k, v) {
			if (!json_is_null(v) && !config_str(v, buf, sizeof(buf)))
				break;
		}
		if (k) { /* a value that is no scalar: the whole entry fails */
			json_decref(map);
			continue;
		}
		rc = 0;
		json_object_foreach (map, k, v) {
			const char *s = json_is_null(v) ? "" : config_str(v, buf, sizeof(buf));
			const char *have = json_string_value(json_object_get(want, k));

			if (have && have[0])
				continue;
			rc = json_object_set_new(want, k, json_string(s));
			if (rc)
				break;
		}
		json_decref(map);
		if (rc)
			return VC_ENOMEM;
	}
	return 0;
}

/* Whether the pod belongs to the resource group (IsBelongResGroup of its kind). */
static int in_group(const json_t *group, const json_t *pod, const char *ns, bool *belongs)
{
	const json_t *object = vc_json_get_obj(group, "object");
	const char *key = vc_json_get_str(object, "key"), *k, *have;
	const char *name = vc_json_get_str(group, "resourceGroup");
	json_t *want, *v;
	int rc;

	*belongs = false;
	if (json_object_get(object, "key") && !key)
		return 0; /* not a string: the config would not have loaded */
	key = key ? key : "";
	if (strcmp(key, "namespace") == 0) {
		*belongs = in_namespace_group(object, ns);
		return 0;
	}
	if (key[0] && strcmp(key, "annotation") != 0)
		return 0;
	want = json_object();
	if (!want)
		return VC_ENOMEM;
	rc = group_annotations(object, want);
	json_object_foreach (rc ? NULL : want, k, v) {
		pod_annotation(pod, k, &have);
		if (strcmp(have, json_string_value(v)) == 0) {
			*belongs = true;
			break;
		}
	}
	json_decref(want);
	if (!rc && !*belongs && !key[0]) {
		pod_annotation(pod, DEFAULT_GROUP_KEY, &have);
		*belongs = strcmp(have, name ? name : "") == 0;
	}
	return rc;
}

/* Append {"op":"add","path":path,"value":value} to patch; value is stolen. */
static int add_op_new(json_t *patch, const char *path, json_t *value)
{
	if (!value)
		return VC_ENOMEM;
	return json_array_append_new(patch, json_pack("{s:s, s:s, s:o}", "op", "add", "path", path,
						      "value", value))
		       ? VC_ENOMEM
		       : 0;
}

/* The scheduling gate op (patchSchedulingGates). */
static int gate_op(const struct admission_ctx *ctx, const json_t *pod, json_t *patch)
{
	const json_t *gates = json_object_get(vc_json_get_obj(pod, "spec"), "schedulingGates"), *g;
	const char *value;
	size_t i;

	if (!ctx->config || !ctx->config->scheduling_gates_queue_admission ||
	    !pod_annotation(pod, GATE_NAME, &value) || strcmp(value, "true") != 0)
		return 0;
	json_array_foreach ((json_t *)gates, i, g) {
		const char *name = vc_json_get_str(g, "name");

		if (name && strcmp(name, GATE_NAME) == 0)
			return 0;
	}
	if (!json_is_array(gates))
		return add_op_new(patch, "/spec/schedulingGates",
				  json_pack("[{s:s}]", "name", GATE_NAME));
	return add_op_new(patch, "/spec/schedulingGates/-", json_pack("{s:s}", "name", GATE_NAME));
}

/* The ops of the matched resource group: labels, affinity, tolerations, schedulerName. */
static int group_ops(const json_t *group, const json_t *pod, json_t *patch)
{
	const json_t *spec = vc_json_get_obj(pod, "spec");
	const json_t *labels = vc_json_get_obj(group, "labels");
	const json_t *tolerations = vc_json_get_arr(group, "tolerations");
	const char *affinity = vc_json_get_str(group, "affinity");
	const char *scheduler = vc_json_get_str(group, "schedulerName");
	json_t *value, *v;
	const char *k;
	char buf[32];
	int rc;

	if (json_object_size(labels)) {
		value = json_object();
		if (!value)
			return VC_ENOMEM;
		rc = 0;
		if (vc_json_get_obj(spec, "nodeSelector"))
			rc = json_object_update(value, vc_json_get_obj(spec, "nodeSelector"));
		json_object_foreach ((json_t *)labels, k, v) {
			const char *s = json_is_null(v) ? "" : config_str(v, buf, sizeof(buf));

			if (!rc && s)
				rc = json_object_set_new(value, k, json_string(s));
		}
		if (rc) {
			json_decref(value);
			return VC_ENOMEM;
		}
		if ((rc = add_op_new(patch, "/spec/nodeSelector", value)))
			return rc;
	}
	if (affinity && affinity[0] && !vc_json_get_obj(spec, "affinity")) {
		value = NULL;
		rc = vc_json_parse_flags(affinity, strlen(affinity), 0, VC_JSON_PARSE_ANY, &value,
					 NULL);
		if (rc == VC_ENOMEM)
			return rc;
		if (!rc && json_is_null(value)) { /* Go unmarshals null into a zero Affinity */
			json_decref(value);
			value = json_object();
			if (!value)
				return VC_ENOMEM;
		}
		if (!rc && json_is_object(value)) {
			if ((rc = add_op_new(patch, "/spec/affinity", value)))
				return rc;
		} else {
			json_decref(value);
		}
	}
	if (json_array_size(tolerations)) {
		value = json_array();
		if (!value)
			return VC_ENOMEM;
		rc = 0;
		if (vc_json_get_arr(spec, "tolerations"))
			rc = json_array_extend(value, vc_json_get_arr(spec, "tolerations"));
		if (!rc)
			rc = json_array_extend(value, (json_t *)tolerations);
		if (rc) {
			json_decref(value);
			return VC_ENOMEM;
		}
		if ((rc = add_op_new(patch, "/spec/tolerations", value)))
			return rc;
	}
	if (scheduler && scheduler[0])
		return add_op_new(patch, "/spec/schedulerName", json_string(scheduler));
	return 0;
}

int admit_pods_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
		      struct admission_result *res)
{
	const json_t *pod = req->object, *config, *group;
	const char *ns;
	json_t *patch;
	size_t i;
	int rc;

	rc = pod_prologue(req, res);
	if (rc)
		return rc < 0 ? rc : 0;
	if (strcmp(req->operation, "CREATE") != 0)
		return admission_deny(res, "expect operation to be 'CREATE' ");
	config = ctx && ctx->config ? ctx->config->pod_config : NULL;
	if (!config) /* no admission configuration loaded: no patch at all */
		return 0;
	ns = vc_json_get_str(vc_json_get_obj(pod, "metadata"), "namespace");
	if (!ns || !ns[0])
		ns = req->ns ? req->ns : "";

	patch = json_array();
	if (!patch)
		return VC_ENOMEM;
	rc = gate_op(ctx, pod, patch);
	json_array_foreach (rc ? NULL : vc_json_get_arr(config, "resourceGroups"), i, group) {
		bool belongs;

		rc = in_group(group, pod, ns, &belongs);
		if (rc || !belongs)
			continue;
		rc = group_ops(group, pod, patch);
		break;
	}
	if (rc) {
		json_decref(patch);
		return rc;
	}
	json_decref(res->patch);
	res->patch = admission_patch(patch); /* Go marshals the nil slice: `null` */
	return 0;
}

/* ---- /pods/validate (docs/volcano/webhooks.md §11.2) ----------------------------------------- */

/*
 * Go's strconv.Atoi: an optional sign and decimal digits, nothing else. 0 with *out set,
 * VC_EINVAL ("invalid syntax") or VC_ERANGE ("value out of range"). Unlike Go, digits past
 * 2^64 followed by a non-digit read as "invalid syntax" (Go stops at the overflow: "value out of
 * range"); kept as it was.
 */
static int go_atoi(const char *s, int64_t *out)
{
	size_t n = strlen(s), sign = *s == '+' || *s == '-';
	int rc = vc_strconv_parse_int(s, n, 10, out);

	if (rc == VC_ERANGE && strspn(s + sign, "0123456789") != n - sign)
		rc = VC_EINVAL;
	return rc;
}

/* validateIntPercentageStr: 0 when valid, 1 with the reason in msg, or VC_ENOMEM. */
static int check_int_or_percent(const char *key, const char *value, struct vc_buf *msg)
{
	char *digits, *w;
	const char *p;
	int64_t v;
	int rc;

	if (!go_atoi(value, &v)) { /* intstr.Parse: an int32, wrapping */
		if ((int32_t)(uint32_t)(uint64_t)v > 0)
			return 0;
		rc = vc_buf_adds(msg, "invalid value <");
		if (!rc)
			rc = vc_go_quote(value, msg);
		if (!rc)
			rc = vc_buf_addf(msg, "> for %s, it must be a positive integer", key);
		return rc ? rc : 1;
	}
	digits = vc_strdup(value);
	if (!digits)
		return VC_ENOMEM;
	for (p = value, w = digits; *p; p++) {
		if (*p != '%')
			*w++ = *p;
	}
	*w = '\0';
	rc = go_atoi(digits, &v);
	if (rc) {
		rc = vc_buf_adds(msg, "invalid value strconv.Atoi: parsing ");
		if (!rc)
			rc = vc_go_quote(digits, msg);
		if (!rc)
			rc = vc_buf_addf(msg, ": %s for %s",
					 go_atoi(digits, &v) == VC_ERANGE ? "value out of range"
									  : "invalid syntax",
					 key);
		vc_free(digits);
		return rc ? rc : 1;
	}
	vc_free(digits);
	if (v >= 1 && v <= 99)
		return 0;
	rc = vc_buf_adds(msg, "invalid value <");
	if (!rc)
		rc = vc_go_quote(value, msg);
	if (!rc)
		rc = vc_buf_addf(msg,
				 "> for %s, it must be a valid percentage which between 1%% ~ 99%%",
				 key);
	return rc ? rc : 1;
}

/* Whether the pod's scheduler is one of --scheduler-name (default volcano). */
static bool our_scheduler(const struct admission_ctx *ctx, const char *name)
{
	static const char *const defaults[] = { "volcano", NULL };
	const char *const *names = ctx && ctx->config && ctx->config->scheduler_names
					   ? ctx->config->scheduler_names
					   : defaults;

	for (; *names; names++) {
		if (strcmp(*names, name) == 0)
			return true;
	}
	return false;
}

int admit_pods_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			struct admission_result *res)
{
	static const char *const keys[] = { JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE };
	const char *scheduler, *value;
	struct vc_buf msg;
	int rc = 0, found = 0;
	size_t i;

	rc = pod_prologue(req, res);
	if (rc)
		return rc < 0 ? rc : 0;
	if (strcmp(req->operation, "CREATE") != 0)
		return admission_deny(res, "expect operation to be 'CREATE'");
	scheduler = vc_json_get_str(vc_json_get_obj(req->object, "spec"), "schedulerName");
	if (!our_scheduler(ctx, scheduler ? scheduler : ""))
		return 0;

	vc_buf_init(&msg, VC_BUF_DEFAULT_MAX);
	for (i = 0; !rc && i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!pod_annotation(req->object, keys[i], &value))
			continue;
		found++;
		rc = check_int_or_percent(keys[i], value, &msg);
	}
	if (!rc && found > 1)
		rc = vc_buf_addf(&msg,
				 "not allow configure multiple annotations <[%s %s]> at same "
				 "time",
				 keys[0], keys[1])
			     ? VC_ENOMEM
			     : 1;
	if (rc == 1)
		rc = admission_deny(res, "%s", vc_buf_str(&msg));
	vc_buf_release(&msg);
	return rc;
}
