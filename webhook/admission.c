/*
 * admission.c - the AdmissionReview plumbing shared by every handler (docs/volcano/webhooks.md §2).
 *
 * admission_serve() is the whole HTTP step apart from the socket: route the path, cap the
 * body, check the content type, parse, decode the review into a struct admission_request,
 * call the path's handler and encode its struct admission_result as the answering review
 * (docs/volcano/webhooks.md §2.3: uid, allowed, status.message, the JSON Patch base64-encoded with
 * patchType JSONPatch). Nothing here knows about Jobs, Queues or Pods.
 */
#include "admission_internal.h"

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_resource.h"
#include "vc_str.h"

#define REVIEW_V1      "admission.k8s.io/v1"
#define REVIEW_V1BETA1 "admission.k8s.io/v1beta1"

/* The body cap of docs/volcano/webhooks.md §2.2 step 1: 3 MiB, exactly as the Go server reads it.
 */
#define ADMISSION_BODY_MAX ((size_t)3 << 20)

struct route {
	const char *path;
	admission_handler_fn handler;
};

/* docs/volcano/webhooks.md §2.1, in the order of that table. */
static const struct route routes[] = {
	{ "/jobs/mutate", admit_jobs_mutate },
	{ "/jobs/validate", admit_jobs_validate },
	{ "/queues/mutate", admit_queues_mutate },
	{ "/queues/validate", admit_queues_validate },
	{ "/podgroups/mutate", admit_podgroups_mutate },
	{ "/podgroups/validate", admit_podgroups_validate },
	{ "/pods/mutate", admit_pods_mutate },
	{ "/pods/validate", admit_pods_validate },
};

const char *const admission_paths[] = {
	"/jobs/mutate",	    "/jobs/validate",	 "/queues/mutate",
	"/queues/validate", "/podgroups/mutate", "/podgroups/validate",
	"/pods/mutate",	    "/pods/validate",	 NULL,
};

bool admission_paths_has(const char *const *paths, const char *path)
{
	size_t k;

	if (!paths)
		return true;
	for (k = 0; paths[k]; k++)
		if (!strcmp(paths[k], path))
			return true;
	return false;
}

void admission_config_init(struct admission_config *c)
{
	memset(c, 0, sizeof(*c));
	c->max_queue_depth = ADMISSION_MAX_QUEUE_DEPTH;
	c->root_queue_protection = true;
}

static admission_handler_fn find_handler(const char *path)
{
	size_t i;

	if (!path)
		return NULL;
	for (i = 0; i < VC_ARRAY_SIZE(routes); i++)
		if (!strcmp(routes[i].path, path))
			return routes[i].handler;
	return NULL;
}

/* ---- results ----------------------------------------------------------------------------- */

int admission_deny(struct admission_result *res, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	res->allowed = false;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return VC_EINVAL;
	msg = vc_malloc((size_t)n + 1);
	if (!msg)
		return VC_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	vc_free(res->message);
	res->message = msg;
	return 0;
}

int admission_deny_take(struct admission_result *res, char *msg)
{
	res->allowed = false;
	if (!msg)
		return VC_ENOMEM;
	vc_free(res->message);
	res->message = msg;
	return 0;
}

void admission_result_release(struct admission_result *res)
{
	vc_free(res->message);
	res->message = NULL;
	json_decref(res->patch);
	res->patch = NULL;
}

json_t *admission_patch(json_t *ops)
{
	if (json_array_size(ops))
		return ops;
	json_decref(ops);
	return json_null();
}

static const char *member_str(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : "";
}

int admission_check_resource(const struct admission_request *req, const char *group,
			     const char *version, const char *resource,
			     struct admission_result *res)
{
	const json_t *r = req->resource;

	if (!strcmp(member_str(r, "group"), group) && !strcmp(member_str(r, "version"), version) &&
	    !strcmp(member_str(r, "resource"), resource))
		return 0;
	/* Go prints the GroupVersionResource struct with %s: "{G V R}". */
	if (admission_deny(res, "expect resource to be {%s %s %s}", group, version, resource))
		return VC_ENOMEM;
	return 1;
}

/* ---- string maps ------------------------------------------------------------------------- */

int admission_hmap_add(struct vc_hmap *m, const char *key, size_t value)
{
	if (vc_hmap_lookup(m, key, NULL))
		return 0;
	if (vc_hmap_put(m, key, (void *)(uintptr_t)value, NULL))
		return VC_ENOMEM;
	return 1;
}

bool admission_hmap_get(const struct vc_hmap *m, const char *key, size_t *value)
{
	void *v;

	if (!vc_hmap_lookup(m, key, &v))
		return false;
	if (value)
		*value = (size_t)(uintptr_t)v;
	return true;
}

/* ---- decoding the review ----------------------------------------------------------------- */

/* A string member that Go decodes into a string: absent and null read as "". */
static int request_string(const json_t *request, const char *key, const char **out,
			  struct vc_error *err)
{
	json_t *v = json_object_get(request, key);

	if (!v || json_is_null(v)) {
		*out = "";
		return 0;
	}
	if (!json_is_string(v))
		return vc_error_set(err, VC_EINVAL, "cannot decode AdmissionReview: request.%s: %s",
				    key, "must be a string");
	*out = json_string_value(v);
	return 0;
}

static int decode_request(const json_t *request, struct admission_request *req,
			  struct vc_error *err)
{
	static const char *const gvr[] = { "group", "version", "resource" };
	json_t *v;
	size_t i;
	int rc;

	memset(req, 0, sizeof(*req));
	req->raw = request;
	if ((rc = request_string(request, "uid", &req->uid, err)) ||
	    (rc = request_string(request, "operation", &req->operation, err)) ||
	    (rc = request_string(request, "name", &req->name, err)) ||
	    (rc = request_string(request, "namespace", &req->ns, err)))
		return rc;
	v = json_object_get(request, "resource");
	if (v && !json_is_null(v)) {
		if (!json_is_object(v))
			return vc_error_set(err, VC_EINVAL,
					    "cannot decode AdmissionReview: request.resource: "
					    "must be an object");
		for (i = 0; i < VC_ARRAY_SIZE(gvr); i++) {
			json_t *m = json_object_get(v, gvr[i]);

			if (m && !json_is_null(m) && !json_is_string(m))
				return vc_error_set(err, VC_EINVAL,
						    "cannot decode AdmissionReview: "
						    "request.resource.%s: must be a string",
						    gvr[i]);
		}
		req->resource = v;
	}
	v = json_object_get(request, "object");
	req->object = json_is_null(v) ? NULL : v;
	v = json_object_get(request, "oldObject");
	req->old_object = json_is_null(v) ? NULL : v;
	return 0;
}

/* ---- encoding the answer ----------------------------------------------------------------- */

/*
 * Serialise any JSON value compactly into a new vc_malloc string; NULL when out of memory. One
 * pass into a growing buffer: asking json_dumpb for the size first serialises the value twice,
 * which for a Job of 3 MiB (its patch, then the answer with the patch in base64) was a quarter
 * of the review's time (bench/bench_admission.sh, part c).
 */
static char *dump_compact(const json_t *v, size_t *len)
{
	struct vc_buf buf;
	char *s = NULL;

	vc_buf_init(&buf, VC_BUF_DEFAULT_MAX);
	if (!vc_json_dump(v, JSON_COMPACT | JSON_ENCODE_ANY, &buf)) {
		if (len)
			*len = buf.len;
		s = vc_buf_take(&buf);
	}
	vc_buf_release(&buf);
	return s;
}

/*
 * The response object of docs/volcano/webhooks.md §2.3; NULL when out of memory. With b64 set
 * the base64 patch is not put in the object: "patch" is "" and *b64 takes the text (vc_malloc,
 * for admission_serve to splice into the dumped answer).
 */
static json_t *encode_response(const struct admission_request *req,
			       const struct admission_result *res, char **b64_out)
{
	json_t *resp = json_object(), *status;
	char *patch = NULL, *b64 = NULL;
	size_t plen = 0;

	if (!resp)
		return NULL;
	if (json_object_set_new(resp, "uid", json_string(req->uid)) ||
	    json_object_set_new(resp, "allowed", json_boolean(res->allowed)))
		goto fail;
	if (res->message) {
		/* metav1.Status: metadata is always written, message only when non-empty. */
		status = json_object();
		if (json_object_set_new(resp, "status", status) ||
		    json_object_set_new(status, "metadata", json_object()) ||
		    (*res->message &&
		     json_object_set_new(status, "message", json_string(res->message))))
			goto fail;
	}
	if (res->patch) {
		patch = dump_compact(res->patch, &plen);
		if (!patch || !(b64 = vc_base64_encode(patch, plen)))
			goto fail;
		if (json_object_set_new(resp, "patch", json_string(b64_out ? "" : b64)) ||
		    json_object_set_new(resp, "patchType", json_string("JSONPatch")))
			goto fail;
		if (b64_out) {
			*b64_out = b64;
			b64 = NULL;
		}
	}
	vc_free(patch);
	vc_free(b64);
	return resp;
fail:
	vc_free(patch);
	vc_free(b64);
	json_decref(resp);
	return NULL;
}

static int review_answer(const struct admission_ctx *ctx, const char *path, const json_t *review,
			 json_t **response, char **b64, struct vc_error *err)
{
	struct admission_result res = { .allowed = true };
	struct admission_request req;
	const char *api_version = REVIEW_V1, *kind;
	admission_handler_fn handler;
	json_t *v, *request, *out = NULL, *resp = NULL;
	int rc;

	*response = NULL;
	handler = find_handler(path);
	if (!handler)
		return vc_error_set(err, VC_ENOENT, "404 page not found");
	if (!json_is_object(review))
		return vc_error_set(err, VC_EINVAL,
				    "cannot decode AdmissionReview: not a JSON object");
	v = json_object_get(review, "apiVersion");
	if (v && !json_is_null(v)) {
		if (!json_is_string(v) || (strcmp(json_string_value(v), REVIEW_V1) &&
					   strcmp(json_string_value(v), REVIEW_V1BETA1)))
			return vc_error_set(err, VC_EINVAL,
					    "cannot decode AdmissionReview: unsupported apiVersion "
					    "(want %s or %s)",
					    REVIEW_V1, REVIEW_V1BETA1);
		/* A v1beta1 review is answered in kind (the Go server refuses it). */
		api_version = json_string_value(v);
	}
	v = json_object_get(review, "kind");
	kind = json_string_value(v);
	if (v && !json_is_null(v) && (!kind || strcmp(kind, "AdmissionReview")))
		return vc_error_set(err, VC_EINVAL,
				    "cannot decode AdmissionReview: kind must be AdmissionReview");
	request = json_object_get(review, "request");
	if (!request || json_is_null(request))
		return vc_error_set(err, VC_EINVAL, "AdmissionReview has no request");
	if (!json_is_object(request))
		return vc_error_set(err, VC_EINVAL,
				    "cannot decode AdmissionReview: request must be an object");
	if ((rc = decode_request(request, &req, err)))
		return rc;

	rc = handler(ctx, &req, &res);
	if (rc) {
		admission_result_release(&res);
		return vc_error_set(err, rc == VC_ENOMEM ? VC_ENOMEM : rc,
				    "cannot answer the review: %s", vc_strerror(rc));
	}
	resp = encode_response(&req, &res, b64);
	out = json_object();
	if (!resp || !out || json_object_set_new(out, "kind", json_string("AdmissionReview")) ||
	    json_object_set_new(out, "apiVersion", json_string(api_version))) {
		json_decref(resp);
		goto nomem;
	}
	if (json_object_set_new(out, "response", resp)) /* resp is gone with it */
		goto nomem;
	admission_result_release(&res);
	*response = out;
	return 0;
nomem:
	json_decref(out);
	admission_result_release(&res);
	if (b64) {
		vc_free(*b64);
		*b64 = NULL;
	}
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

int admission_review(const struct admission_ctx *ctx, const char *path, const json_t *rv,
		     json_t **response, struct vc_error *err)
{
	return review_answer(ctx, path, rv, response, NULL, err);
}

/*
 * The answer's text: response dumped compactly, with b64 (when not NULL) spliced in as the
 * value of response.patch, which review_answer() left "". jansson would copy the base64 text into a
 * string (checking it is UTF-8) and escape it byte by byte when dumping, about 15% of the CPU
 * of a 3 MiB Job mutate; base64 needs no escaping, so the bytes go in as they are. The patch is
 * the last but one member of the last member ("patch", then "patchType"), so the dump ends
 * with PATCH_TAIL. NULL when out of memory.
 */
#define PATCH_TAIL "\"patch\":\"\",\"patchType\":\"JSONPatch\"}}"
static char *dump_answer(const json_t *response, const char *b64)
{
	size_t len, tail = sizeof(PATCH_TAIL) - 1, blen, at;
	char *s = dump_compact(response, &len), *out;

	if (!s || !b64)
		return s;
	if (len < tail || memcmp(s + len - tail, PATCH_TAIL, tail) != 0) {
		vc_free(s); /* cannot happen: review_answer() builds the object in this order */
		return NULL;
	}
	blen = strlen(b64);
	at = len - tail + sizeof("\"patch\":\"") - 1;
	out = vc_malloc(len + blen + 1);
	if (out) {
		memcpy(out, s, at);
		memcpy(out + at, b64, blen);
		memcpy(out + at + blen, s + at, len - at + 1);
	}
	vc_free(s);
	return out;
}

/* admission_serve's steps from the parse on, with the request's JSON trees in an arena. */
static int serve_json(const struct admission_ctx *ctx, const char *path, const char *body,
		      size_t len, char **out, int *status, struct vc_error *err)
{
	json_t *rv = NULL, *response = NULL;
	char *b64 = NULL;
	struct vc_error perr;
	int rc;

	rc = vc_json_parse(body, len, ADMISSION_BODY_MAX, &rv, &perr);
	if (rc) {
		if (rc == VC_ENOMEM) {
			*status = 500;
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		}
		*status = 400;
		return vc_error_set_at(err, VC_EINVAL, perr.line, perr.column, perr.position,
				       "cannot decode AdmissionReview: %s", perr.text);
	}
	rc = review_answer(ctx, path, rv, &response, &b64, err);
	json_decref(rv);
	if (rc) {
		*status = rc == VC_ENOENT ? 404 : rc == VC_EINVAL ? 400 : 500;
		return rc;
	}
	/* The answer and the patch's base64 are vc_buf and vc_malloc text, not the arena's. */
	*out = dump_answer(response, b64);
	json_decref(response);
	vc_free(b64);
	if (!*out) {
		*status = 500;
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	*status = 200;
	return 0;
}

int admission_serve(const struct admission_ctx *ctx, const char *path, const char *content_type,
		    const char *body, size_t len, char **out, int *status, struct vc_error *err)
{
	struct vc_json_arena *arena;
	int rc;

	*out = NULL;
	*status = 500;
	/* Go's mux routes before anything reads the body. */
	if (!find_handler(path)) {
		*status = 404;
		return vc_error_set(err, VC_ENOENT, "404 page not found");
	}
	if (len > ADMISSION_BODY_MAX) {
		*status = 413;
		return vc_error_set(err, VC_E2BIG, "request body too large");
	}
	if (!content_type || strcmp(content_type, "application/json")) {
		*status = 415;
		return vc_error_set(err, VC_EINVAL,
				    "unsupported content type '%s': expect application/json",
				    content_type ? content_type : "");
	}
	/*
	 * Every JSON node of the review (parsed, built, patched) lives and dies within this call:
	 * an arena spares a malloc and a free per node (a third of a large review's CPU, glibc's
	 * consolidation of the freed tree included). The state callbacks keep nothing they make
	 * here (register.c pauses the arena around its API requests).
	 */
	arena = vc_json_arena_begin();
	rc = serve_json(ctx, path, body, len, out, status, err);
	vc_json_arena_end(arena);
	return rc;
}

const char *admission_json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_TRUE:
	case JSON_FALSE:
		return "bool";
	default:
		return "number";
	}
}

int admission_type_error(struct admission_result *res, const json_t *v, bool with_number,
			 const char *where, const char *gotype)
{
	struct vc_buf b;
	int rc;

	vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
	rc = vc_buf_addf(&b, "json: cannot unmarshal %s", admission_json_kind(v));
	if (!rc && with_number && json_is_number(v)) {
		rc = vc_buf_addc(&b, ' ');
		if (!rc)
			rc = vc_go_json(v, &b);
	}
	if (!rc)
		rc = vc_buf_addf(&b, " into Go struct field %s of type %s", where, gotype);
	if (!rc)
		rc = admission_deny(res, "%s", vc_buf_str(&b));
	vc_buf_release(&b);
	return rc ? VC_ENOMEM : 1;
}

int admission_check_value(struct admission_result *res, const json_t *v, enum admission_want want,
			  const char *where, const char *gotype)
{
	bool ok = false;

	if (!v || json_is_null(v))
		return 0;
	switch (want) {
	case ADMISSION_WANT_STRING:
		ok = json_is_string(v);
		break;
	case ADMISSION_WANT_OBJECT:
		ok = json_is_object(v);
		break;
	case ADMISSION_WANT_ARRAY:
		ok = json_is_array(v);
		break;
	case ADMISSION_WANT_BOOL:
		ok = json_is_boolean(v);
		break;
	case ADMISSION_WANT_INT:
		ok = json_is_integer(v);
		break;
	case ADMISSION_WANT_INT32:
		ok = json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
		     json_integer_value(v) <= INT32_MAX;
		break;
	}
	if (ok)
		return 0;
	return admission_type_error(
		res, v, want == ADMISSION_WANT_INT || want == ADMISSION_WANT_INT32, where, gotype);
}

int admission_check_field(struct admission_result *res, const json_t *obj, const char *key,
			  enum admission_want want, const char *where, const char *gotype)
{
	return admission_check_value(res, json_is_object(obj) ? json_object_get(obj, key) : NULL,
				     want, where, gotype);
}

/* ---- docs/volcano/webhooks.md §9.1 quantity checks ------------------------------------------- */

int admission_quantity_errors(struct vc_field_errors *errs, const struct vc_field_path *path,
			      const char *resource, const struct vc_quantity *q)
{
	char text[VC_QUANTITY_STR_MAX];
	int rc;

	if (vc_quantity_format(q, text, sizeof(text)))
		text[0] = '\0';
	if (vc_quantity_sign(q) < 0 &&
	    (rc = vc_field_invalid(errs, path, vc_fv_str(text),
				   "must be greater than or equal to 0")))
		return rc;
	if (vc_resource_is_integer_resource(resource) && vc_quantity_milli_value(q) % 1000 != 0 &&
	    (rc = vc_field_invalid(errs, path, vc_fv_named_str(text), "must be an integer")))
		return rc;
	return 0;
}
