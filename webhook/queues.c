/*
 * queues.c - /queues/mutate and /queues/validate (docs/volcano/webhooks.md §7, §8, §9).
 *
 * Mutation adds Volcano's defaults (root of the hierarchy annotations, reclaimable, weight).
 * Validation checks a Queue on CREATE and UPDATE (quantities, state, hierarchy annotations,
 * the parent chain of spec.parent and the hierarchical resource sums) and guards DELETE. Every
 * message is Volcano's text; the Queues come from the informer cache behind ctx->state.
 */
#include "admission_internal.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_quantity.h"
#include "vc_resource.h"
#include "vc_str.h"
#include "vc_strconv.h"
#include "vc_validate.h"

#define QUEUE_GROUP   "scheduling.volcano.sh"
#define QUEUE_VERSION "v1beta1"

#define ANN_HIERARCHY	      "volcano.sh/hierarchy"
#define ANN_HIERARCHY_WEIGHTS "volcano.sh/hierarchy-weights"

/*
 * Volcano walks parent links and child lists of the cache without bounds, so a cycle that
 * slipped into the cache would hang it. These bounds end such walks; a real hierarchy is far
 * shallower (the depth check keeps it within --max-queue-depth).
 */
#define ANCESTOR_WALK_MAX 1024
#define SUBTREE_DEPTH_MAX 256
#define QUEUE_LIST_MAX	  100000

/* The fields of a Queue the handlers read; every pointer is borrowed from the object. */
struct queue {
	const char *name;	   /* "" when absent */
	const json_t *annotations; /* object or NULL */
	const char *parent;	   /* "" when absent */
	int64_t weight;		   /* 0 when absent */
	const json_t *reclaimable; /* the value, NULL when absent or null */
	const json_t *capability;  /* ResourceList objects, NULL when absent */
	const json_t *deserved;
	const json_t *guarantee; /* spec.guarantee.resource */
	const char *state;	 /* "" when absent */
	const json_t *allocated; /* status.allocated */
};

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* 1 when a denial reason was built, or the negative code that stopped it. */
static int denied(int rc)
{
	return rc ? rc : 1;
}

static const char *annotation(const struct queue *q, const char *key)
{
	return str_or_empty(vc_json_get_str(q->annotations, key));
}

/* Read a Queue leniently: a member of the wrong type reads as absent. obj may be NULL. */
static void queue_read(const json_t *obj, struct queue *q)
{
	const json_t *meta = vc_json_get_obj(obj, "metadata");
	const json_t *spec = vc_json_get_obj(obj, "spec");
	const json_t *status = vc_json_get_obj(obj, "status");

	memset(q, 0, sizeof(*q));
	q->name = str_or_empty(vc_json_get_str(meta, "name"));
	q->annotations = vc_json_get_obj(meta, "annotations");
	q->parent = str_or_empty(vc_json_get_str(spec, "parent"));
	q->weight = vc_json_get_int(spec, "weight", 0);
	q->reclaimable = json_object_get(json_is_object(spec) ? spec : NULL, "reclaimable");
	if (json_is_null(q->reclaimable))
		q->reclaimable = NULL;
	q->capability = vc_json_get_obj(spec, "capability");
	q->deserved = vc_json_get_obj(spec, "deserved");
	q->guarantee = vc_json_get_obj(vc_json_get_obj(spec, "guarantee"), "resource");
	q->state = str_or_empty(vc_json_get_str(status, "state"));
	q->allocated = vc_json_get_obj(status, "allocated");
}

/* ---- decoding the request's object as Go's decoder would -------------------------------- */

/* A map[string]string member: an object whose values are strings. */
static int check_string_map(struct admission_result *res, const json_t *obj, const char *key,
			    const char *where)
{
	const json_t *map;
	const char *k;
	json_t *v;
	int rc = admission_check_field(res, obj, key, ADMISSION_WANT_OBJECT, where,
				       "map[string]string");

	if (rc)
		return rc;
	map = vc_json_get_obj(obj, key);
	json_object_foreach ((json_t *)map, k, v) {
		if (!json_is_string(v) && !json_is_null(v)) {
			struct vc_buf b;

			vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
			rc = vc_buf_addf(
				&b,
				"json: cannot unmarshal %s into Go struct field %s of type string",
				admission_json_kind(v), where);
			if (!rc)
				rc = admission_deny(res, "%s", vc_buf_str(&b));
			vc_buf_release(&b);
			return rc ? VC_ENOMEM : 1;
		}
	}
	return 0;
}

/* A ResourceList member: an object of quantities; a bad quantity denies with its parse error. */
static int check_resource_list(struct admission_result *res, const json_t *obj, const char *key,
			       const char *where)
{
	const json_t *list;
	const char *k;
	json_t *v;
	int rc = admission_check_field(res, obj, key, ADMISSION_WANT_OBJECT, where,
				       "v1.ResourceList");

	if (rc)
		return rc;
	list = vc_json_get_obj(obj, key);
	json_object_foreach ((json_t *)list, k, v) {
		struct vc_quantity q;
		struct vc_error err;

		vc_error_clear(&err);
		rc = vc_quantity_parse_json(v, &q, &err);
		if (!rc)
			continue;
		/* Go hands any other JSON text to ParseQuantity, which rejects its shape. */
		rc = admission_deny(res, "%s", rc == VC_EINVAL ? VC_QUANTITY_ERR_FORMAT : err.text);
		return denied(rc);
	}
	return 0;
}

/*
 * Decode the object of a review as DecodeQueue does: absent or null is the zero Queue; members
 * of the wrong type deny with the decoder's text. Returns 1 when it denied, 0, or VC_ENOMEM.
 */
static int queue_decode(struct admission_result *res, const json_t *obj, struct queue *q)
{
	const json_t *meta, *spec, *status;
	int rc;

	memset(q, 0, sizeof(*q));
	if (obj && !json_is_null(obj) && !json_is_object(obj)) {
		struct vc_buf b;

		vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
		rc = vc_buf_addf(
			&b,
			"couldn't get version/kind; json parse error: json: cannot unmarshal %s",
			admission_json_kind(obj));
		if (!rc)
			rc = vc_buf_adds(&b, " into Go value of type struct { APIVersion string "
					     "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
					     "\"json:\\\"kind,omitempty\\\"\" }");
		if (!rc)
			rc = admission_deny(res, "%s", vc_buf_str(&b));
		vc_buf_release(&b);
		return rc ? VC_ENOMEM : 1;
	}
	meta = vc_json_get_obj(obj, "metadata");
	spec = vc_json_get_obj(obj, "spec");
	status = vc_json_get_obj(obj, "status");
	if ((rc = admission_check_field(res, obj, "metadata", ADMISSION_WANT_OBJECT,
					"Queue.metadata", "v1.ObjectMeta")) ||
	    (rc = admission_check_field(res, meta, "name", ADMISSION_WANT_STRING,
					"ObjectMeta.metadata.name", "string")) ||
	    (rc = check_string_map(res, meta, "annotations", "ObjectMeta.metadata.annotations")) ||
	    (rc = admission_check_field(res, obj, "spec", ADMISSION_WANT_OBJECT, "Queue.spec",
					"v1beta1.QueueSpec")) ||
	    (rc = admission_check_field(res, spec, "weight", ADMISSION_WANT_INT32,
					"QueueSpec.spec.weight", "int32")) ||
	    (rc = check_resource_list(res, spec, "capability", "QueueSpec.spec.capability")) ||
	    (rc = admission_check_field(res, spec, "reclaimable", ADMISSION_WANT_BOOL,
					"QueueSpec.spec.reclaimable", "bool")) ||
	    (rc = check_resource_list(res, spec, "deserved", "QueueSpec.spec.deserved")) ||
	    (rc = admission_check_field(res, spec, "guarantee", ADMISSION_WANT_OBJECT,
					"QueueSpec.spec.guarantee", "v1beta1.Guarantee")) ||
	    (rc = check_resource_list(res, vc_json_get_obj(spec, "guarantee"), "resource",
				      "Guarantee.spec.guarantee.resource")) ||
	    (rc = admission_check_field(res, spec, "parent", ADMISSION_WANT_STRING,
					"QueueSpec.spec.parent", "string")) ||
	    (rc = admission_check_field(res, obj, "status", ADMISSION_WANT_OBJECT, "Queue.status",
					"v1beta1.QueueStatus")) ||
	    (rc = admission_check_field(res, status, "state", ADMISSION_WANT_STRING,
					"QueueStatus.status.state", "v1beta1.QueueState")) ||
	    (rc = check_resource_list(res, status, "allocated", "QueueStatus.status.allocated")))
		return rc;
	queue_read(obj, q);
	return 0;
}

/* ---- the cluster state ------------------------------------------------------------------ */

/* Look a Queue up; 0 and a new reference, VC_ENOTFOUND, or another code with err set. */
static int state_get_queue(const struct admission_ctx *ctx, const char *name, json_t **out,
			   struct vc_error *err)
{
	int rc;

	*out = NULL;
	vc_error_clear(err);
	if (!ctx || !ctx->state || !ctx->state->get_queue)
		return vc_error_set(err, VC_ENOTFOUND, "not found");
	rc = ctx->state->get_queue(ctx->state->ctx, name, out, err);
	if (rc) {
		json_decref(*out);
		*out = NULL;
		if (rc != VC_ENOMEM && err->text[0] == '\0')
			vc_error_set(err, rc, "%s", vc_strerror(rc));
		return rc;
	}
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return vc_error_set(err, VC_ENOTFOUND, "not found");
	}
	return 0;
}

/* The Queues whose spec.parent is name: 0 and a new array (maybe empty), or a code. */
static int state_children(const struct admission_ctx *ctx, const char *name, json_t **out,
			  struct vc_error *err)
{
	int rc;

	*out = NULL;
	vc_error_clear(err);
	if (ctx && ctx->state && ctx->state->queue_children) {
		rc = ctx->state->queue_children(ctx->state->ctx, name, out, err);
		if (rc) {
			json_decref(*out);
			*out = NULL;
			if (rc != VC_ENOMEM && err->text[0] == '\0')
				vc_error_set(err, rc, "%s", vc_strerror(rc));
			return rc;
		}
		if (json_is_array(*out))
			return 0;
		json_decref(*out);
	}
	*out = json_array();
	return *out ? 0 : VC_ENOMEM;
}

/* The text of the lister's error for a failed lookup of name. */
static int lookup_error(int rc, const char *name, const struct vc_error *err, struct vc_buf *out)
{
	if (rc != VC_ENOTFOUND)
		return vc_buf_adds(out, err->text);
	if (vc_buf_adds(out, "queue.scheduling.volcano.sh ") || vc_go_quote(name, out))
		return VC_ENOMEM;
	return vc_buf_adds(out, " not found");
}

/* Append a formatted denial reason to msg: 1, or VC_ENOMEM. */
static int reason(struct vc_buf *msg, const char *fmt, ...) VC_PRINTF(2, 3);

static int reason(struct vc_buf *msg, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vc_buf_vaddf(msg, fmt, ap);
	va_end(ap);
	return denied(rc);
}

/* A formatted prefix followed by the lister's error for name: 1, or VC_ENOMEM. */
static int lookup_reason(struct vc_buf *msg, int code, const char *name, const struct vc_error *err,
			 const char *fmt, ...) VC_PRINTF(5, 6);

static int lookup_reason(struct vc_buf *msg, int code, const char *name, const struct vc_error *err,
			 const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vc_buf_vaddf(msg, fmt, ap);
	va_end(ap);
	if (!rc)
		rc = lookup_error(code, name, err, msg);
	return denied(rc);
}

/* Volcano's NewResource(list): a list that does not parse (never in the cache) counts as empty. */
static int resource_of(const json_t *list, struct vc_resource *r)
{
	int rc;

	vc_resource_clear(r);
	if (!list)
		return 0;
	rc = vc_resource_from_list(r, list, NULL);
	return rc == VC_ENOMEM ? rc : 0;
}

/* status.allocated.pods as Quantity.Value(), 0 when absent or zero. */
static int64_t allocated_pods(const struct queue *q)
{
	struct vc_quantity pods;

	if (vc_quantity_parse_json(json_object_get(q->allocated, "pods"), &pods, NULL) ||
	    vc_quantity_is_zero(&pods))
		return 0;
	return vc_quantity_value(&pods);
}

/* Append to all the children of name that seen does not hold yet (by name). */
static int add_children(const struct admission_ctx *ctx, const char *name, json_t *all,
			json_t *seen, struct vc_error *err)
{
	json_t *kids, *q;
	size_t i;
	int rc = state_children(ctx, name, &kids, err);

	if (rc)
		return rc;
	json_array_foreach (kids, i, q) {
		const char *qn = vc_json_get_str(vc_json_get_obj(q, "metadata"), "name");

		if (!qn || !qn[0] || json_object_get(seen, qn) ||
		    json_array_size(all) >= QUEUE_LIST_MAX)
			continue;
		if (json_object_set_new(seen, qn, json_true()) || json_array_append(all, q)) {
			rc = VC_ENOMEM;
			break;
		}
	}
	json_decref(kids);
	return rc;
}

/*
 * Every Queue of the cache, reached from the top (parents "" and "root") through the children
 * index: 0 and a new array, or a code. A Queue whose parent does not exist is not reached.
 */
static int all_queues(const struct admission_ctx *ctx, json_t **out, struct vc_error *err)
{
	json_t *all = json_array(), *seen = json_object();
	size_t next;
	int rc = VC_ENOMEM;

	*out = NULL;
	if (!all || !seen)
		goto fail;
	rc = add_children(ctx, "", all, seen, err);
	if (!rc)
		rc = add_children(ctx, "root", all, seen, err);
	for (next = 0; !rc && next < json_array_size(all); next++) {
		const char *name = vc_json_get_str(
			vc_json_get_obj(json_array_get(all, next), "metadata"), "name");

		if (strcmp(name, "root") != 0)
			rc = add_children(ctx, name, all, seen, err);
	}
	if (rc)
		goto fail;
	json_decref(seen);
	*out = all;
	return 0;
fail:
	json_decref(seen);
	json_decref(all);
	return rc;
}

/* ---- validateQueue: the field checks, aggregated (docs/volcano/webhooks.md §8 step 1) -------- */

/* Format a quantity JSON value (already checked to parse) in its canonical form. */
static void quantity_string(const json_t *v, struct vc_quantity *q, char *buf, size_t len)
{
	if (vc_quantity_parse_json(v, q, NULL))
		vc_quantity_init(q);
	if (vc_quantity_format(q, buf, len))
		snprintf(buf, len, "0");
}

/* k8s ValidateResourceQuantityValue for a quantity JSON value that is known to parse. */
static int check_quantity_value(struct vc_field_errors *errs, const char *name, const json_t *v,
				const struct vc_field_path *path)
{
	struct vc_quantity q;

	if (vc_quantity_parse_json(v, &q, NULL))
		return 0;
	return admission_quantity_errors(errs, path, name, &q);
}

/* Guarantee <= deserved <= capability, and every quantity valid (validateResourceQuantityOfQueue).
 */
static int check_queue_resources(const struct queue *q, const struct vc_field_path *spec,
				 struct vc_field_errors *errs)
{
	struct vc_field_path cap_path = vc_field_path_child(spec, "capability");
	struct vc_field_path des_path = vc_field_path_child(spec, "deserved");
	struct vc_field_path gua_path = vc_field_path_child(spec, "guarantee");
	struct vc_field_path res_path = vc_field_path_child(&gua_path, "resource");
	const char *name;
	json_t *v;
	int rc;

	json_object_foreach ((json_t *)q->capability, name, v) {
		struct vc_field_path p = vc_field_path_child(&cap_path, name);

		if ((rc = check_quantity_value(errs, name, v, &p)))
			return rc;
	}
	json_object_foreach ((json_t *)q->deserved, name, v) {
		struct vc_field_path p = vc_field_path_child(&des_path, name);

		if ((rc = check_quantity_value(errs, name, v, &p)))
			return rc;
	}
	json_object_foreach ((json_t *)q->guarantee, name, v) {
		struct vc_field_path p = vc_field_path_child(&res_path, name);
		struct vc_field_path dp = vc_field_path_child(&des_path, name);
		char gtext[VC_QUANTITY_STR_MAX], dtext[VC_QUANTITY_STR_MAX];
		struct vc_quantity gq, dq;
		const json_t *dv = json_object_get(q->deserved, name);
		char *detail;

		if ((rc = check_quantity_value(errs, name, v, &p)))
			return rc;
		quantity_string(v, &gq, gtext, sizeof(gtext));
		if (!dv) {
			detail = vc_asprintf("deserved[%s] must be >= guarantee[%s]=%s", name, name,
					     gtext);
			rc = detail ? vc_field_invalid(errs, &dp, vc_fv_str("<nil>"), detail)
				    : VC_ENOMEM;
			vc_free(detail);
			if (rc)
				return rc;
			continue;
		}
		quantity_string(dv, &dq, dtext, sizeof(dtext));
		if (vc_quantity_cmp(&dq, &gq) >= 0)
			continue;
		detail = vc_asprintf("deserved[%s]=%s must be >= guarantee[%s]=%s", name, dtext,
				     name, gtext);
		rc = detail ? vc_field_invalid(errs, &dp, vc_fv_str(dtext), detail) : VC_ENOMEM;
		vc_free(detail);
		if (rc)
			return rc;
	}
	if (!json_object_size(q->deserved) || !json_object_size(q->capability))
		return 0;
	json_object_foreach ((json_t *)q->deserved, name, v) {
		struct vc_field_path dp = vc_field_path_child(&des_path, name);
		char ctext[VC_QUANTITY_STR_MAX], dtext[VC_QUANTITY_STR_MAX];
		const json_t *cv = json_object_get(q->capability, name);
		struct vc_quantity cq, dq;
		char *detail;

		if (!cv) /* no capability for it: unlimited */
			continue;
		quantity_string(v, &dq, dtext, sizeof(dtext));
		quantity_string(cv, &cq, ctext, sizeof(ctext));
		if (vc_quantity_cmp(&dq, &cq) <= 0)
			continue;
		detail = vc_asprintf("deserved[%s]=%s must be <= capability[%s]=%s", name, dtext,
				     name, ctext);
		rc = detail ? vc_field_invalid(errs, &dp, vc_fv_str(dtext), detail) : VC_ENOMEM;
		vc_free(detail);
		if (rc)
			return rc;
	}
	return 0;
}

/* An Invalid error at path for value with a formatted detail. */
static int invalid_f(struct vc_field_errors *errs, const struct vc_field_path *path,
		     const char *value, const char *fmt, ...) VC_PRINTF(4, 5);

static int invalid_f(struct vc_field_errors *errs, const struct vc_field_path *path,
		     const char *value, const char *fmt, ...)
{
	struct vc_buf b;
	va_list ap;
	int rc;

	vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
	va_start(ap, fmt);
	rc = vc_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (!rc)
		rc = vc_field_invalid(errs, path, vc_fv_str(value), vc_buf_str(&b));
	vc_buf_release(&b);
	return rc;
}

/* "<w> in the <W> is invalid number: strconv.ParseFloat: parsing "<w>": <why>" */
static int invalid_weight(struct vc_field_errors *errs, const struct vc_field_path *path,
			  const char *w, const char *weights, int why)
{
	struct vc_buf b;
	int rc;

	vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
	rc = vc_buf_addf(&b, "%s in the %s is invalid number: strconv.ParseFloat: parsing ", w,
			 weights);
	if (!rc)
		rc = vc_go_quote(w, &b);
	if (!rc)
		rc = vc_buf_adds(&b,
				 why == VC_ERANGE ? ": value out of range" : ": invalid syntax");
	if (!rc)
		rc = vc_field_invalid(errs, path, vc_fv_str(weights), vc_buf_str(&b));
	vc_buf_release(&b);
	return rc;
}

/* validateHierarchicalAttributes: at most one error, the first found. */
static int check_hierarchy_annotations(const struct admission_ctx *ctx, const struct queue *q,
				       const struct vc_field_path *path,
				       struct vc_field_errors *errs)
{
	const char *h = annotation(q, ANN_HIERARCHY), *w = annotation(q, ANN_HIERARCHY_WEIGHTS);
	size_t hparts = 1, wparts = 1, i;
	struct vc_error err;
	json_t *all, *other;
	const char *p;
	int rc;

	if (!h[0] && !w[0])
		return 0;
	for (p = h; *p; p++)
		hparts += *p == '/';
	for (p = w; *p; p++)
		wparts += *p == '/';
	if (hparts != wparts)
		return invalid_f(errs, path, h, "%s must have the same length with %s",
				 ANN_HIERARCHY, ANN_HIERARCHY_WEIGHTS);
	for (p = w;;) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *one = vc_strndup(p, len);
		double weight;

		if (!one)
			return VC_ENOMEM;
		rc = vc_strconv_parse_float(one, strlen(one), &weight);
		if (rc == VC_EINVAL || rc == VC_ERANGE)
			rc = denied(invalid_weight(errs, path, one, w, rc));
		else if (!rc && weight <= 0)
			rc = denied(invalid_f(errs, path, w, "%s in the %s must be larger than 0",
					      one, w));
		vc_free(one);
		if (rc)
			return rc == 1 ? 0 : rc;
		if (!end)
			break;
		p = end + 1;
	}
	rc = all_queues(ctx, &all, &err);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc)
		return invalid_f(errs, path, h, "checking %s, list queues failed: %s",
				 ANN_HIERARCHY, err.text);
	json_array_foreach (all, i, other) {
		struct queue o;
		const char *oh;
		size_t hlen = strlen(h);

		queue_read(other, &o);
		oh = annotation(&o, ANN_HIERARCHY);
		if (!oh[0] || strcmp(o.name, q->name) == 0 || strncmp(oh, h, hlen) != 0 ||
		    oh[hlen] != '/')
			continue;
		rc = invalid_f(errs, path, h,
			       "%s is not allowed to be in the sub path of %s of queue %s", h, oh,
			       o.name);
		break;
	}
	json_decref(all);
	return rc;
}

/* validateQueue: 0 when valid, 1 with the aggregate text in msg, or a negative code. */
static int validate_queue(const struct admission_ctx *ctx, const struct queue *q,
			  struct vc_buf *msg)
{
	struct vc_field_path root = vc_field_path_root("requestBody");
	struct vc_field_path spec = vc_field_path_child(&root, "spec");
	struct vc_field_path state = vc_field_path_child(&spec, "state");
	struct vc_field_path meta = vc_field_path_child(&root, "metadata");
	struct vc_field_path ann = vc_field_path_child(&meta, "annotations");
	struct vc_field_errors errs;
	int rc;

	vc_field_errors_init(&errs);
	rc = check_queue_resources(q, &spec, &errs);
	if (!rc && q->state[0] && strcmp(q->state, "Open") != 0 && strcmp(q->state, "Closed") != 0)
		rc = vc_field_invalid(&errs, &state, vc_fv_named_str(q->state),
				      "queue state must be in [Open Closed]");
	if (!rc)
		rc = check_hierarchy_annotations(ctx, q, &ann, &errs);
	if (!rc && errs.len)
		rc = denied(vc_field_errors_aggregate(&errs, msg));
	vc_field_errors_release(&errs);
	return rc;
}

/* ---- validateHierarchicalQueue: the parent chain (docs/volcano/webhooks.md §8.1) ------------- */

static bool is_top(const char *parent)
{
	return !parent[0] || strcmp(parent, "root") == 0;
}

/* 0 when the parent is acceptable, 1 with the reason in msg, or a negative code. */
static int check_parent(const struct admission_ctx *ctx, const struct queue *q, struct vc_buf *msg)
{
	json_t *cur = NULL, *next, *kids;
	struct vc_error err;
	struct queue pq;
	int depth = 1, rc;

	if (is_top(q->parent))
		return 0;
	if (strcmp(q->parent, q->name) == 0)
		return reason(msg, "queue %s cannot use itself as parent", q->name);
	pq.parent = q->parent;
	while (!is_top(pq.parent)) {
		if (++depth > ctx->config->max_queue_depth) {
			rc = reason(msg, "queue %s exceeds the maximum allowed depth of %d",
				    q->name, ctx->config->max_queue_depth);
			goto out;
		}
		rc = state_get_queue(ctx, pq.parent, &next, &err);
		if (rc == VC_ENOMEM)
			goto out;
		if (rc) {
			rc = lookup_reason(msg, rc, pq.parent, &err,
					   "failed to get parent queue %s of queue %s: ", pq.parent,
					   q->name);
			goto out;
		}
		json_decref(cur);
		cur = next;
		queue_read(cur, &pq);
	}
	json_decref(cur);
	cur = NULL;

	rc = state_get_queue(ctx, q->parent, &cur, &err);
	if (rc == VC_ENOMEM)
		goto out;
	if (rc) {
		rc = lookup_reason(msg, rc, q->parent, &err,
				   "failed to get parent queue of queue %s: ", q->name);
		goto out;
	}
	queue_read(cur, &pq);
	rc = state_children(ctx, q->parent, &kids, &err);
	if (rc == VC_ENOMEM)
		goto out;
	if (rc) {
		rc = reason(msg, "failed to list child queues of queue %s: %s", q->parent,
			    err.text);
		goto out;
	}
	if (!json_array_size(kids) && allocated_pods(&pq))
		rc = reason(msg,
			    "queue %s cannot be the parent queue of queue %s because it has "
			    "allocated Pods: %" PRId64,
			    pq.name, q->name, allocated_pods(&pq));
	json_decref(kids);
out:
	json_decref(cur);
	return rc;
}

/* ---- validateHierarchicalQueueResources (docs/volcano/webhooks.md §8.2) ---------------------- */

/* Go's int64(f) on amd64: truncation, and the "integer indefinite" value out of range. */
static int64_t go_int64(double f)
{
	if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)f;
}

/* formatResourceWithType: cpu as millicores, memory as BinarySI bytes, the rest with %.2f. */
static int format_typed(const char *name, double value, struct vc_buf *out)
{
	char text[VC_QUANTITY_STR_MAX];
	struct vc_quantity q;

	if (strcmp(name, "cpu") == 0)
		vc_quantity_from_milli(&q, go_int64(value), VC_QUANTITY_DECIMAL_SI);
	else if (strcmp(name, "memory") == 0)
		vc_quantity_from_int64(&q, go_int64(value), VC_QUANTITY_BINARY_SI);
	else
		return vc_buf_addf(out, "%.2f", value);
	if (vc_quantity_format(&q, text, sizeof(text)))
		return VC_EINVAL;
	return vc_buf_adds(out, text);
}

/* "queue <n> capability[<r>]=<mine><relation><theirs>", values as formatResourceWithType. */
static int capability_reason(struct vc_buf *msg, const char *queue, const char *rname, double mine,
			     const char *relation, double theirs)
{
	int rc = vc_buf_addf(msg, "queue %s capability[%s]=", queue, rname);

	if (!rc)
		rc = format_typed(rname, mine, msg);
	if (!rc)
		rc = vc_buf_adds(msg, relation);
	if (!rc)
		rc = format_typed(rname, theirs, msg);
	return denied(rc);
}

/* The resource names of r (ResourceNames): a new array of borrowed names in *names. */
static int resource_names(const struct vc_resource *r, const char ***names, size_t *n)
{
	*n = vc_resource_names(r, NULL, 0);
	*names = vc_calloc(*n + 1, sizeof(**names));
	if (!*names)
		return VC_ENOMEM;
	vc_resource_names(r, *names, *n);
	return 0;
}

/*
 * findNearestAncestorCapability: the capability for rname of the nearest ancestor of parent
 * (inclusive) that sets it above 0. *found is false when none does or a lookup fails.
 */
static int nearest_ancestor_capability(const struct admission_ctx *ctx, const char *parent,
				       const char *rname, double *value, bool *found)
{
	struct vc_resource r = VC_RESOURCE_INIT;
	json_t *cur = NULL, *next;
	struct vc_error err;
	struct queue pq;
	int steps = 0, rc = 0;

	*found = false;
	pq.parent = parent;
	while (!is_top(pq.parent) && steps++ < ANCESTOR_WALK_MAX) {
		rc = state_get_queue(ctx, pq.parent, &next, &err);
		if (rc) {
			rc = rc == VC_ENOMEM ? rc : 0;
			break;
		}
		json_decref(cur);
		cur = next;
		queue_read(cur, &pq);
		if (pq.capability) {
			rc = resource_of(pq.capability, &r);
			if (rc)
				break;
			*value = vc_resource_get(&r, rname);
			if (*value > 0) {
				*found = true;
				break;
			}
		}
	}
	json_decref(cur);
	vc_resource_release(&r);
	return rc;
}

/* validateChildAgainstAncestor. */
static int check_against_ancestors(const struct admission_ctx *ctx, const struct queue *q,
				   struct vc_buf *msg)
{
	struct vc_resource mine = VC_RESOURCE_INIT;
	const char **names = NULL;
	size_t n, i;
	int rc;

	if (!q->capability)
		return 0;
	rc = resource_of(q->capability, &mine);
	if (!rc)
		rc = resource_names(&mine, &names, &n);
	for (i = 0; !rc && i < n; i++) {
		double my = vc_resource_get(&mine, names[i]), up = 0;
		bool found;

		rc = nearest_ancestor_capability(ctx, q->parent, names[i], &up, &found);
		if (rc || !found || !(my > up))
			continue;
		rc = capability_reason(msg, q->name, names[i], my,
				       " exceeds its ancestor's capability=", up);
	}
	vc_free(names);
	vc_resource_release(&mine);
	return rc;
}

/* "<who> validation failed: sum of children's <what> (<sum>) exceeds parent's <what> limit
 * (<limit>)" */
static int sum_exceeds(struct vc_buf *msg, const char *who, const char *what,
		       const struct vc_resource *sum, const struct vc_resource *limit)
{
	int rc = vc_buf_addf(msg, "%s validation failed: sum of children's %s (", who, what);

	if (!rc)
		rc = vc_resource_format(sum, msg);
	if (!rc)
		rc = vc_buf_addf(msg, ") exceeds parent's %s limit (", what);
	if (!rc)
		rc = vc_resource_format(limit, msg);
	if (!rc)
		rc = vc_buf_adds(msg, ")");
	return denied(rc);
}

/*
 * Add q's guarantee and deserved to the running sums and compare them with the parent's limits
 * (LessPartly with the Zero default). who names the parent in the message.
 */
static int add_and_compare(const struct queue *q, struct vc_resource *sum_g,
			   struct vc_resource *sum_d, const struct vc_resource *lim_g,
			   const struct vc_resource *lim_d, const char *who, struct vc_buf *msg)
{
	struct vc_resource r = VC_RESOURCE_INIT;
	int rc = resource_of(q->guarantee, &r);

	if (!rc)
		rc = vc_resource_add(sum_g, &r);
	if (!rc && vc_resource_less_partly(lim_g, sum_g, VC_RESOURCE_ZERO))
		rc = sum_exceeds(msg, who, "guarantee", sum_g, lim_g);
	if (!rc)
		rc = resource_of(q->deserved, &r);
	if (!rc)
		rc = vc_resource_add(sum_d, &r);
	if (!rc && vc_resource_less_partly(lim_d, sum_d, VC_RESOURCE_ZERO))
		rc = sum_exceeds(msg, who, "deserved", sum_d, lim_d);
	vc_resource_release(&r);
	return rc;
}

/* validateSiblingsSum: the siblings (q excluded by name) and then q itself. */
static int check_siblings(const struct queue *q, const struct queue *parent, const json_t *siblings,
			  struct vc_buf *msg)
{
	struct vc_resource lim_g = VC_RESOURCE_INIT, lim_d = VC_RESOURCE_INIT;
	struct vc_resource sum_g = VC_RESOURCE_INIT, sum_d = VC_RESOURCE_INIT;
	char *who = vc_asprintf("parent queue %s", parent->name);
	json_t *sib;
	size_t i;
	int rc = who ? 0 : VC_ENOMEM;

	if (!rc)
		rc = resource_of(parent->guarantee, &lim_g);
	if (!rc)
		rc = resource_of(parent->deserved, &lim_d);
	json_array_foreach ((json_t *)siblings, i, sib) {
		struct queue s;

		if (rc)
			break;
		queue_read(sib, &s);
		if (strcmp(s.name, q->name) != 0)
			rc = add_and_compare(&s, &sum_g, &sum_d, &lim_g, &lim_d, who, msg);
	}
	if (!rc)
		rc = add_and_compare(q, &sum_g, &sum_d, &lim_g, &lim_d, who, msg);
	vc_resource_release(&lim_g);
	vc_resource_release(&lim_d);
	vc_resource_release(&sum_g);
	vc_resource_release(&sum_d);
	vc_free(who);
	return rc;
}

/* The names already walked by subtree_max (a guard against cycles in the cache). */
static bool seen_name(const struct vc_strlist *seen, const char *name)
{
	size_t i;

	for (i = 0; i < seen->len; i++) {
		if (strcmp(seen->items[i], name) == 0)
			return true;
	}
	return false;
}

/* findSubtreeMaxCapability: q's own capability for rname if above 0, else its children's max. */
static int subtree_max(const struct admission_ctx *ctx, const json_t *obj, const char *rname,
		       struct vc_strlist *seen, int depth, double *out)
{
	struct vc_resource r = VC_RESOURCE_INIT;
	json_t *kids = NULL, *kid;
	struct vc_error err;
	struct queue q;
	size_t i;
	int rc;

	*out = 0;
	queue_read(obj, &q);
	if (seen_name(seen, q.name) || depth > SUBTREE_DEPTH_MAX)
		return 0;
	rc = vc_strlist_add(seen, q.name);
	if (!rc && q.capability) {
		rc = resource_of(q.capability, &r);
		if (!rc && vc_resource_get(&r, rname) > 0) {
			*out = vc_resource_get(&r, rname);
			goto out;
		}
	}
	if (!rc) {
		rc = state_children(ctx, q.name, &kids, &err);
		if (rc && rc != VC_ENOMEM) /* Go ignores the error: no children */
			rc = 0;
	}
	json_array_foreach (kids, i, kid) {
		double v;

		if (rc)
			break;
		rc = subtree_max(ctx, kid, rname, seen, depth + 1, &v);
		if (!rc && v > *out)
			*out = v;
	}
out:
	json_decref(kids);
	vc_resource_release(&r);
	return rc;
}

/* validateChildrenConstraints: q's capability covers its descendants; the children's sums fit. */
static int check_children(const struct admission_ctx *ctx, const struct queue *q,
			  const json_t *children, struct vc_buf *msg)
{
	struct vc_resource mine = VC_RESOURCE_INIT, sum_g = VC_RESOURCE_INIT,
			   sum_d = VC_RESOURCE_INIT, lim_g = VC_RESOURCE_INIT,
			   lim_d = VC_RESOURCE_INIT;
	struct vc_strlist seen;
	const char **names = NULL;
	char *who = NULL;
	json_t *kid;
	size_t n = 0, i, k;
	int rc = 0;

	vc_strlist_init(&seen);
	if (q->capability) {
		rc = resource_of(q->capability, &mine);
		if (!rc)
			rc = resource_names(&mine, &names, &n);
	}
	for (i = 0; !rc && i < n; i++) {
		double mineval = vc_resource_get(&mine, names[i]), child_max = 0, v;

		json_array_foreach ((json_t *)children, k, kid) {
			vc_strlist_release(&seen);
			rc = subtree_max(ctx, kid, names[i], &seen, 0, &v);
			if (rc)
				break;
			if (v > child_max)
				child_max = v;
		}
		if (rc || !(mineval < child_max))
			continue;
		rc = capability_reason(
			msg, q->name, names[i], mineval,
			" is smaller than its descendants' max capability=", child_max);
	}
	if (!rc) {
		who = vc_asprintf("queue %s", q->name);
		rc = who ? 0 : VC_ENOMEM;
	}
	if (!rc)
		rc = resource_of(q->guarantee, &lim_g);
	if (!rc)
		rc = resource_of(q->deserved, &lim_d);
	json_array_foreach ((json_t *)children, k, kid) {
		struct queue c;

		if (rc)
			break;
		queue_read(kid, &c);
		rc = add_and_compare(&c, &sum_g, &sum_d, &lim_g, &lim_d, who, msg);
	}
	vc_free(who);
	vc_free(names);
	vc_strlist_release(&seen);
	vc_resource_release(&mine);
	vc_resource_release(&sum_g);
	vc_resource_release(&sum_d);
	vc_resource_release(&lim_g);
	vc_resource_release(&lim_d);
	return rc;
}

/* validateHierarchicalQueueResources: 0, 1 with the reason in msg, or a negative code. */
static int check_hierarchy_resources(const struct admission_ctx *ctx, const struct queue *q,
				     struct vc_buf *msg)
{
	json_t *parent = NULL, *list = NULL;
	struct vc_error err;
	struct queue pq;
	int rc = 0;

	if (!is_top(q->parent)) {
		rc = state_get_queue(ctx, q->parent, &parent, &err);
		if (rc && rc != VC_ENOMEM)
			rc = lookup_reason(msg, rc, q->parent, &err,
					   "parent queue %s not found: ", q->parent);
		if (!rc)
			rc = check_against_ancestors(ctx, q, msg);
		if (!rc) {
			rc = state_children(ctx, q->parent, &list, &err);
			if (rc && rc != VC_ENOMEM)
				rc = reason(msg, "failed to get sibling queues: %s", err.text);
		}
		if (!rc) {
			queue_read(parent, &pq);
			rc = check_siblings(q, &pq, list, msg);
		}
		json_decref(list);
		list = NULL;
		if (rc)
			goto out;
	}
	rc = state_children(ctx, q->name, &list, &err);
	if (rc && rc != VC_ENOMEM)
		rc = reason(msg, "failed to get child queues: %s", err.text);
	if (!rc && json_array_size(list))
		rc = check_children(ctx, q, list, msg);
out:
	json_decref(list);
	json_decref(parent);
	return rc;
}

/* ---- UPDATE comparisons ------------------------------------------------------------------ */

/* equality.Semantic.DeepEqual of two ResourceLists: nil equals empty, quantities by value. */
static bool resource_lists_equal(const json_t *a, const json_t *b)
{
	const char *name;
	json_t *v;

	if (json_object_size(a) != json_object_size(b))
		return false;
	json_object_foreach ((json_t *)a, name, v) {
		const json_t *w = json_object_get(b, name);
		struct vc_quantity qa, qb;

		if (!w || vc_quantity_parse_json(v, &qa, NULL) ||
		    vc_quantity_parse_json(w, &qb, NULL) || vc_quantity_cmp(&qa, &qb) != 0)
			return false;
	}
	return true;
}

static bool resources_changed(const struct queue *q, const struct queue *old)
{
	return !resource_lists_equal(q->capability, old->capability) ||
	       !resource_lists_equal(q->deserved, old->deserved) ||
	       !resource_lists_equal(q->guarantee, old->guarantee);
}

/* ---- DELETE (docs/volcano/webhooks.md §8 DELETE) --------------------------------------------- */

static int check_delete(const struct admission_ctx *ctx, const char *name, struct vc_buf *msg)
{
	json_t *obj = NULL, *kids = NULL, *kid;
	struct vc_error err;
	struct queue q;
	size_t i;
	int rc;

	if (strcmp(name, "default") == 0 || strcmp(name, "root") == 0)
		return reason(msg, "`%s` queue can not be deleted", name);
	rc = state_get_queue(ctx, name, &obj, &err);
	if (rc)
		return rc == VC_ENOMEM ? rc : lookup_reason(msg, rc, name, &err, "%s", "");
	queue_read(obj, &q);
	if (ctx->config->queue_allocated_pods_check && allocated_pods(&q)) {
		rc = reason(msg,
			    "queue %s cannot be deleted because it has allocated Pods: %" PRId64,
			    q.name, allocated_pods(&q));
		goto out;
	}
	rc = state_children(ctx, name, &kids, &err);
	if (rc) {
		if (rc != VC_ENOMEM)
			rc = reason(msg, "failed to list child queues: %s", err.text);
		goto out;
	}
	if (!json_array_size(kids))
		goto out;
	rc = vc_buf_addf(msg,
			 "queue %s can not be deleted because it has %zu child queues: ", q.name,
			 json_array_size(kids));
	json_array_foreach (kids, i, kid) {
		struct queue c;

		queue_read(kid, &c);
		if (!rc && i)
			rc = vc_buf_adds(msg, ", ");
		if (!rc)
			rc = vc_buf_adds(msg, c.name);
	}
	rc = denied(rc);
out:
	json_decref(kids);
	json_decref(obj);
	return rc;
}

/* ---- the handlers ----------------------------------------------------------------------- */

/* Deny with msg when rc is 1; pass 0 and negative codes through. */
static int finish(struct admission_result *res, int rc, const struct vc_buf *msg)
{
	if (rc == 1)
		return admission_deny(res, "%s", vc_buf_str(msg));
	return rc;
}

/* The resource check and the object decode every queue handler starts with; 1 = denied. */
static int queue_prologue(const struct admission_request *req, struct admission_result *res,
			  struct queue *q)
{
	int rc = admission_check_resource(req, QUEUE_GROUP, QUEUE_VERSION, "queues", res);

	if (rc)
		return rc;
	return queue_decode(res, req->object, q);
}

int admit_queues_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
			struct admission_result *res)
{
	json_t *patch;
	struct queue q;
	const char *h, *w;
	int rc;

	(void)ctx;
	rc = queue_prologue(req, res, &q);
	if (rc)
		return rc < 0 ? rc : 0;
	if (strcmp(req->operation, "CREATE") != 0)
		return admission_deny(res,
				      "invalid operation `%s`, expect operation to be `CREATE`",
				      req->operation);

	patch = json_array();
	if (!patch)
		return VC_ENOMEM;
	h = annotation(&q, ANN_HIERARCHY);
	w = annotation(&q, ANN_HIERARCHY_WEIGHTS);
	rc = 0;
	if (h[0] && w[0] && !vc_str_has_prefix(h, "root")) {
		rc = json_array_append_new(patch,
					   json_pack("{s:s, s:s, s:s+}", "op", "add", "path",
						     "/metadata/annotations/volcano.sh~1hierarchy",
						     "value", "root/", h));
		if (!rc)
			rc = json_array_append_new(
				patch,
				json_pack("{s:s, s:s, s:s+}", "op", "add", "path",
					  "/metadata/annotations/volcano.sh~1hierarchy-weights",
					  "value", "1/", w));
	}
	if (!rc && !q.reclaimable)
		rc = json_array_append_new(patch, json_pack("{s:s, s:s, s:b}", "op", "add", "path",
							    "/spec/reclaimable", "value", 1));
	if (!rc && q.weight == 0)
		rc = json_array_append_new(patch, json_pack("{s:s, s:s, s:i}", "op", "add", "path",
							    "/spec/weight", "value", 1));
	if (rc) {
		json_decref(patch);
		return VC_ENOMEM;
	}
	json_decref(res->patch);
	res->patch = admission_patch(patch); /* Go marshals the nil slice: `null` */
	return 0;
}

int admit_queues_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			  struct admission_result *res)
{
	struct queue q, old;
	struct vc_buf msg;
	bool create, update;
	int rc;

	queue_read(NULL, &old);
	rc = queue_prologue(req, res, &q);
	if (rc)
		return rc < 0 ? rc : 0;
	vc_buf_init(&msg, VC_BUF_DEFAULT_MAX);
	create = strcmp(req->operation, "CREATE") == 0;
	update = strcmp(req->operation, "UPDATE") == 0;
	if (strcmp(req->operation, "DELETE") == 0) {
		rc = finish(res, check_delete(ctx, req->name, &msg), &msg);
		goto out;
	}
	if (!create && !update) {
		rc = admission_deny(res,
				    "invalid operation `%s`, expect operation to be `CREATE`, "
				    "`UPDATE` or `DELETE`",
				    req->operation);
		goto out;
	}
	rc = validate_queue(ctx, &q, &msg);
	if (rc)
		goto done;
	if (update) {
		rc = queue_decode(res, req->old_object, &old);
		if (rc) {
			rc = rc < 0 ? rc : 0;
			goto out;
		}
	}
	if (create || strcmp(old.parent, q.parent) != 0) {
		rc = check_parent(ctx, &q, &msg);
		if (rc)
			goto done;
	}
	if (update && ctx->config->root_queue_protection && strcmp(q.name, "root") == 0 &&
	    resources_changed(&q, &old)) {
		rc = reason(&msg, "root queue's resource attributes (capability, deserved, "
				  "guarantee) cannot be modified");
		goto done;
	}
	if (strcmp(q.name, "root") != 0 &&
	    (create || strcmp(old.parent, q.parent) != 0 || resources_changed(&q, &old)))
		rc = check_hierarchy_resources(ctx, &q, &msg);
done:
	rc = finish(res, rc, &msg);
out:
	vc_buf_release(&msg);
	return rc;
}
