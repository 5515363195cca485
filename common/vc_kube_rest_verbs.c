/*
 * vc_kube_rest_verbs.c - the verbs of the REST client (the ops of a client made by vc_kube_new):
 * get, create, update, patch, delete, list (with pagination) and watch, each building its path,
 * query and body and sending them through the HTTP exchange of vc_kube_rest.c.
 */
#include "vc_kube_rest_internal.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_kube_internal.h"
#include "vc_log.h"
#include "vc_watch.h"

static size_t rest_cap(const struct rest *r)
{
	return r->max_body;
}

/* Serialise obj into b (compact). */
static int encode_body(struct rest *r, const json_t *obj, struct vc_buf *b, struct vc_error *err)
{
	int rc;

	vc_buf_init(b, rest_cap(r));
	if (!obj)
		return vc_error_set(err, VC_EINVAL, "no object to send");
	rc = vc_json_dump(obj, JSON_COMPACT, b);
	if (rc) {
		vc_buf_release(b);
		return vc_error_set(err, rc, "cannot encode the request body");
	}
	return 0;
}

/* server + path + query into url. */
static int make_url(struct rest *r, const struct vc_buf *path, const struct vc_buf *query,
		    struct vc_buf *url, struct vc_error *err)
{
	int rc;

	vc_buf_init(url, 0);
	rc = vc_buf_adds(url, r->cfg.server);
	if (!rc)
		rc = vc_buf_adds(url, vc_buf_str(path));
	if (!rc && query)
		rc = vc_buf_adds(url, vc_buf_str(query));
	return rc ? vc_error_set(err, rc, "out of memory") : 0;
}

/* Build and send one request with a body (or none), parse the answer into *out. */
static int simple_request(struct rest *r, const char *method, const struct vc_gvr *gvr,
			  const char *ns, const char *name, const char *sub, const json_t *body,
			  const char *content_type, json_t **out, struct vc_error *err)
{
	struct vc_buf path, url, b;
	struct xfer x = { 0 };
	int rc;

	vc_buf_init(&path, 0);
	vc_buf_init(&b, 0);
	vc_buf_init(&url, 0);
	vc_buf_init(&x.resp, rest_cap(r) + 1);
	rc = vc_kube_build_path(&path, gvr, ns, name, sub, err);
	if (!rc)
		rc = make_url(r, &path, NULL, &url, err);
	if (!rc && body)
		rc = encode_body(r, body, &b, err);
	if (rc)
		goto out;
	x.method = method;
	x.path = vc_buf_str(&path);
	x.url = vc_buf_str(&url);
	x.body = body ? vc_buf_str(&b) : NULL;
	x.body_len = b.len;
	x.content_type = body ? content_type : NULL;
	x.idempotent = !strcmp(method, "GET");
	x.cap = rest_cap(r);
	rc = vc_kube_rest_do(r, &x, out, err);
out:
	vc_buf_release(&x.resp);
	vc_buf_release(&b);
	vc_buf_release(&url);
	vc_buf_release(&path);
	return rc;
}

int vc_kube_rest_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		     const char *subresource, json_t **out, struct vc_error *err)
{
	if (!name || !*name)
		return vc_error_set(err, VC_EINVAL, "get of %s needs a name", r->resource);
	return simple_request(ctx, "GET", r, ns, name, subresource, NULL, NULL, out, err);
}

/* The namespace and name of a request: the caller's, else the object's metadata. */
static void object_key(const struct vc_gvr *r, const json_t *obj, const char **ns,
		       const char **name)
{
	json_t *meta = vc_json_get_obj(obj, "metadata");

	if (r->namespaced && (!*ns || !**ns))
		*ns = vc_json_get_str(meta, "namespace");
	if (name && (!*name || !**name))
		*name = vc_json_get_str(meta, "name");
}

int vc_kube_rest_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const char *subresource, const json_t *obj, json_t **out,
			struct vc_error *err)
{
	bool sub = subresource && *subresource;

	object_key(r, obj, &ns, NULL);
	if (r->namespaced && (!ns || !*ns))
		return vc_error_set(err, VC_EINVAL, "create of %s needs a namespace", r->resource);
	if (sub && (!name || !*name))
		return vc_error_set(err, VC_EINVAL, "create of %s/%s needs a name", r->resource,
				    subresource);
	return simple_request(ctx, "POST", r, ns, sub ? name : NULL, subresource, obj,
			      "application/json", out, err);
}

int vc_kube_rest_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const char *subresource, const json_t *obj, json_t **out,
			struct vc_error *err)
{
	object_key(r, obj, &ns, &name);
	if (!name || !*name)
		return vc_error_set(err, VC_EINVAL, "update of %s needs a name", r->resource);
	if (r->namespaced && (!ns || !*ns))
		return vc_error_set(err, VC_EINVAL, "update of %s needs a namespace", r->resource);
	return simple_request(ctx, "PUT", r, ns, name, subresource, obj, "application/json", out,
			      err);
}

int vc_kube_rest_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *subresource, enum vc_patch_type type, const json_t *patch,
		       json_t **out, struct vc_error *err)
{
	const char *ct;

	switch (type) {
	case VC_PATCH_MERGE:
		ct = "application/merge-patch+json";
		break;
	case VC_PATCH_JSON:
		ct = "application/json-patch+json";
		break;
	case VC_PATCH_STRATEGIC:
		ct = "application/strategic-merge-patch+json";
		break;
	default:
		return vc_error_set(err, VC_EINVAL, "unknown patch type %d", (int)type);
	}
	if (!name || !*name)
		return vc_error_set(err, VC_EINVAL, "patch of %s needs a name", r->resource);
	if (!patch)
		return vc_error_set(err, VC_EINVAL, "no patch to send");
	return simple_request(ctx, "PATCH", r, ns, name, subresource, patch, ct, out, err);
}

/* metav1.DeleteOptions for opts, or NULL when opts asks for nothing (new reference). */
static int delete_body(const struct vc_delete_opts *o, json_t **out)
{
	json_t *b, *pre = NULL;

	*out = NULL;
	if (!o || (!o->propagation_policy && o->grace_period_seconds < 0 && !o->precondition_uid &&
		   !o->precondition_resource_version))
		return 0;
	b = json_pack("{s:s, s:s}", "kind", "DeleteOptions", "apiVersion", "v1");
	if (!b)
		return VC_ENOMEM;
	if (o->propagation_policy &&
	    json_object_set_new(b, "propagationPolicy", json_string(o->propagation_policy)))
		goto nomem;
	if (o->grace_period_seconds >= 0 &&
	    json_object_set_new(b, "gracePeriodSeconds", json_integer(o->grace_period_seconds)))
		goto nomem;
	if (o->precondition_uid || o->precondition_resource_version) {
		pre = json_object();
		if (!pre)
			goto nomem;
		if (o->precondition_uid &&
		    json_object_set_new(pre, "uid", json_string(o->precondition_uid)))
			goto nomem;
		if (o->precondition_resource_version &&
		    json_object_set_new(pre, "resourceVersion",
					json_string(o->precondition_resource_version)))
			goto nomem;
		if (json_object_set_new(b, "preconditions", pre)) {
			pre = NULL;
			goto nomem;
		}
		pre = NULL;
	}
	*out = b;
	return 0;
nomem:
	json_decref(pre);
	json_decref(b);
	return VC_ENOMEM;
}

int vc_kube_rest_del(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		     const struct vc_delete_opts *opts, struct vc_error *err)
{
	json_t *body;
	int rc;

	if (!name || !*name)
		return vc_error_set(err, VC_EINVAL, "delete of %s needs a name", r->resource);
	if (delete_body(opts, &body))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = simple_request(ctx, "DELETE", r, ns, name, NULL, body, "application/json", NULL, err);
	json_decref(body);
	return rc;
}

static int list_query(struct vc_buf *q, const struct vc_list_opts *o, const char *cont)
{
	char limit[32];
	int rc = 0;

	if (!o)
		return 0;
	rc = vc_kube_query_add(q, "labelSelector", o->label_selector);
	if (!rc)
		rc = vc_kube_query_add(q, "fieldSelector", o->field_selector);
	/* The server refuses a resourceVersion together with a continue token. */
	if (!rc && !cont)
		rc = vc_kube_query_add(q, "resourceVersion", o->resource_version);
	if (!rc && o->limit > 0) {
		snprintf(limit, sizeof(limit), "%" PRId64, o->limit);
		rc = vc_kube_query_add(q, "limit", limit);
	}
	if (!rc)
		rc = vc_kube_query_add(q, "continue", cont);
	return rc;
}

/*
 * Append page's items to the list's. Both are lists from the server; a list without items (an
 * empty one may omit them) counts as empty.
 */
static int merge_items(json_t *list, json_t *page, const char *path, struct vc_error *err)
{
	json_t *items = json_object_get(list, "items"), *more = json_object_get(page, "items");

	if (!json_is_array(more) && more && !json_is_null(more))
		return vc_error_set(err, VC_EPARSE, "the list response to GET %s has no items",
				    path);
	if (!more || json_is_null(more))
		return 0;
	if (!json_is_array(items)) {
		if (json_object_set_new(list, "items", json_array()))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		items = json_object_get(list, "items");
	}
	if (json_array_extend(items, more))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	return 0;
}

int vc_kube_rest_list(void *ctx, const struct vc_gvr *r, const char *ns,
		      const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	struct rest *rest = ctx;
	struct vc_buf path, query, url;
	json_t *list = NULL, *page = NULL, *meta;
	char *cont = NULL;
	const char *next;
	struct xfer x = { 0 };
	bool paging = opts && opts->limit > 0 && !opts->one_page; /* else one request */
	int rc;

	vc_buf_init(&path, 0);
	vc_buf_init(&query, 0);
	vc_buf_init(&url, 0);
	vc_buf_init(&x.resp, rest_cap(rest) + 1);
	rc = vc_kube_build_path(&path, r, ns, NULL, NULL, err);
	if (rc)
		goto out;
	if (opts && opts->continue_token && *opts->continue_token &&
	    !(cont = vc_strdup(opts->continue_token))) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	x.method = "GET";
	x.path = vc_buf_str(&path);
	x.idempotent = true;
	x.cap = rest_cap(rest);
	for (;;) {
		vc_buf_reset(&query);
		vc_buf_release(&url);
		rc = list_query(&query, opts, cont);
		if (rc) {
			vc_error_set(err, rc, "out of memory");
			goto out;
		}
		rc = make_url(rest, &path, &query, &url, err);
		if (rc)
			goto out;
		x.url = vc_buf_str(&url);
		rc = vc_kube_rest_do(rest, &x, &page, err);
		if (rc)
			goto out;
		if (!json_is_object(page)) {
			rc = vc_error_set(err, VC_EPARSE,
					  "the list response to GET %s is not an object", x.path);
			goto out;
		}
		meta = vc_json_get_obj(page, "metadata");
		next = vc_json_get_str(meta, "continue");
		vc_free(cont);
		cont = next && *next ? vc_strdup(next) : NULL;
		if (next && *next && !cont) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto out;
		}
		if (!list) {
			list = page;
		} else {
			rc = merge_items(list, page, x.path, err);
			json_decref(page);
			if (rc)
				goto out;
		}
		page = NULL;
		if (!paging || !cont)
			break;
		VC_LOG(VC_LOG_V(4), "listing the next page", "path=%s items=%zu", x.path,
		       json_array_size(json_object_get(list, "items")));
	}
	if (paging) {
		/* One list now: the first page's resourceVersion, no continue token. */
		meta = vc_json_get_obj(list, "metadata");
		json_object_del(meta, "continue");
		json_object_del(meta, "remainingItemCount");
	}
	if (out) {
		*out = list;
		list = NULL;
	}
out:
	json_decref(page);
	json_decref(list);
	vc_free(cont);
	vc_buf_release(&x.resp);
	vc_buf_release(&url);
	vc_buf_release(&query);
	vc_buf_release(&path);
	return rc;
}

int vc_kube_rest_watch(void *ctx, const struct vc_gvr *r, const char *ns,
		       const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		       const volatile int *stop, struct vc_error *err)
{
	struct rest *rest = ctx;
	struct vc_watch_decoder dec;
	struct vc_buf path, query, url;
	struct xfer x = { 0 };
	char secs[32];
	int rc;

	vc_buf_init(&path, 0);
	vc_buf_init(&query, 0);
	vc_buf_init(&url, 0);
	vc_buf_init(&x.resp, (size_t)1 << 20);
	vc_watch_decoder_init(&dec, 0, fn, fn_ctx);
	rc = vc_kube_build_path(&path, r, ns, NULL, NULL, err);
	if (rc)
		goto out;
	rc = vc_kube_query_add(&query, "watch", "true");
	if (!rc && opts) {
		rc = vc_kube_query_add(&query, "labelSelector", opts->label_selector);
		if (!rc)
			rc = vc_kube_query_add(&query, "fieldSelector", opts->field_selector);
		if (!rc)
			rc = vc_kube_query_add(&query, "resourceVersion", opts->resource_version);
		if (!rc && opts->allow_bookmarks)
			rc = vc_kube_query_add(&query, "allowWatchBookmarks", "true");
		if (!rc && opts->timeout_seconds > 0) {
			snprintf(secs, sizeof(secs), "%d", opts->timeout_seconds);
			rc = vc_kube_query_add(&query, "timeoutSeconds", secs);
		}
	}
	if (rc) {
		vc_error_set(err, rc, "out of memory");
		goto out;
	}
	rc = make_url(rest, &path, &query, &url, err);
	if (rc)
		goto out;
	x.method = "GET";
	x.path = vc_buf_str(&path);
	x.url = vc_buf_str(&url);
	x.cap = (size_t)1 << 20;
	x.dec = &dec;
	x.dec_err = err;
	x.stop = stop;
	if (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		rc = vc_error_set(err, VC_ESHUTDOWN, "watch of %s stopped", x.path);
		goto out;
	}
	vc_kube_rest_throttle(rest);
	rc = vc_kube_rest_once(rest, &x, err);
	if (x.stopped) {
		rc = vc_error_set(err, VC_ESHUTDOWN, "watch of %s stopped", x.path);
	} else if (x.dec_rc) {
		rc = x.dec_rc;
		if (rc < 0)
			VC_WARN("bad watch stream", "path=%s err=\"%s\"", x.path,
				err ? err->text : "");
	} else if (rc == 0 && x.status != 200) {
		rc = vc_kube_rest_status_error(rest, &x, err);
	} else if (rc == 0) {
		rc = vc_watch_decoder_finish(&dec, err);
	}
out:
	vc_watch_decoder_release(&dec);
	vc_buf_release(&x.resp);
	vc_buf_release(&url);
	vc_buf_release(&query);
	vc_buf_release(&path);
	return rc;
}
