/*
 * fake_api.c - the fake API server of the unit tests (see fake_api.h).
 */
#include "fake_api.h"

#include <stdarg.h>
#include <time.h>

#include "vc_jsonpatch.h"

/* ---- small helpers ------------------------------------------------------------------------- */

/* JSON text with ' for " (a new reference; aborts the test on bad JSON). */
json_t *fake_json(const char *text)
{
	char *s = strdup(text), *p;
	json_error_t e;
	json_t *v;

	assert_non_null(s);
	for (p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	v = json_loads(s, JSON_DECODE_ANY, &e);
	if (!v)
		fprintf(stderr, "bad test JSON (%s): %s\n", e.text, s);
	free(s);
	assert_non_null(v);
	return v;
}

static void fake_logf(struct fake *f, const char *fmt, ...) VC_PRINTF(2, 3);

static void fake_logf(struct fake *f, const char *fmt, ...)
{
	size_t at = strlen(f->log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->log + at, sizeof(f->log) - at, fmt, ap);
	va_end(ap);
}

/*
 * Compact, sorted JSON (free with fake_undump). Under allocation-failure injection the fake's
 * own allocations may fail too: then the text is "(nomem)" and the call fails with VC_ENOMEM.
 */
static char *fake_dump(const json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;

	return s ? s : (char *)"(nomem)";
}

static void fake_undump(char *s)
{
	if (strcmp(s, "(nomem)"))
		free(s);
}

static void fake_key(const char *ns, const char *name, char *buf, size_t len)
{
	if (ns && *ns)
		snprintf(buf, len, "%s/%s", ns, name);
	else
		snprintf(buf, len, "%s", name);
}

static json_t *fake_bucket(json_t *root, const struct vc_gvr *r)
{
	json_t *b = json_object_get(root, r->resource);

	if (!b) {
		b = json_object();
		json_object_set_new(root, r->resource, b);
	}
	return b;
}

/* The pending events of r (borrowed). Lock held. */
static json_t *fake_queue(struct fake *f, const struct vc_gvr *r)
{
	json_t *q = json_object_get(f->pending, r->resource);

	if (!q) {
		q = json_array();
		json_object_set_new(f->pending, r->resource, q);
	}
	return q;
}

/* The rule for verb and path, consumed once: its code, or 0. Called with the lock held. */
static int fake_rule_rc(struct fake *f, const char *verb, const char *path)
{
	size_t i;

	for (i = 0; i < f->nrules; i++) {
		struct fake_rule *r = &f->rules[i];

		if (r->times && !strcmp(r->verb, verb) && !strcmp(r->path, path)) {
			if (r->times > 0)
				r->times--;
			return r->rc;
		}
	}
	return 0;
}

/* Store a copy of obj under its key with a fresh resourceVersion. Lock held. */
static json_t *fake_store_put(struct fake *f, const struct vc_gvr *r, const json_t *obj)
{
	json_t *copy = json_deep_copy(obj), *meta;
	char key[512], rv[32];

	if (!copy)
		return NULL;
	meta = json_object_get(copy, "metadata");
	snprintf(rv, sizeof(rv), "%ld", ++f->rv);
	json_object_set_new(meta, "resourceVersion", json_string(rv));
	fake_key(json_string_value(json_object_get(meta, "namespace")),
		 json_string_value(json_object_get(meta, "name")), key, sizeof(key));
	json_object_set(fake_bucket(f->store, r), key, copy);
	return copy; /* the caller's reference */
}

/* Store obj as fake_store_put does and hand the stored copy to *out (when out is set). Lock held.
 */
static int fake_store_answer(struct fake *f, const struct vc_gvr *r, const json_t *obj,
			     json_t **out)
{
	json_t *stored = obj ? fake_store_put(f, r, obj) : NULL;

	if (!stored)
		return VC_ENOMEM;
	if (out)
		*out = stored;
	else
		json_decref(stored);
	return 0;
}

/* ---- the operations --------------------------------------------------------------------- */

static int fake_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const char *sub, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	char path[512], key[512];
	json_t *o;
	int rc;

	vc_kube_path(r, ns, name, sub, path, sizeof(path));
	fake_key(r->namespaced ? ns : NULL, name, key, sizeof(key));
	pthread_mutex_lock(&f->lock);
	fake_logf(f, "GET %s\n", path);
	rc = fake_rule_rc(f, "GET", path);
	o = json_object_get(json_object_get(f->store, r->resource), key);
	if (!rc && o && out && !(*out = json_deep_copy(o)))
		rc = VC_ENOMEM;
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return vc_error_set(err, rc, "scripted failure of GET %s", path);
	if (!o)
		return vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
	return 0;
}

static int fake_list(void *ctx, const struct vc_gvr *r, const char *ns,
		     const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	json_t *items = json_array(), *o;
	const char *k;
	char rv[32];

	(void)opts;
	(void)err;
	pthread_mutex_lock(&f->lock);
	json_object_foreach (json_object_get(f->store, r->resource), k, o) {
		const char *ons = json_string_value(vc_json_path(o, "metadata.namespace"));

		if (ns && *ns && (!ons || strcmp(ns, ons)))
			continue;
		json_array_append_new(items, json_deep_copy(o));
	}
	snprintf(rv, sizeof(rv), "%ld", f->rv);
	pthread_mutex_unlock(&f->lock);
	if (!items)
		return VC_ENOMEM;
	*out = json_pack("{s:{s:s}, s:o}", "metadata", "resourceVersion", rv, "items", items);
	return *out ? 0 : VC_ENOMEM;
}

static int fake_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	char path[512], key[512], *body = fake_dump(obj);
	const char *oname = json_string_value(vc_json_path(obj, "metadata.name"));
	int rc;

	vc_kube_path(r, ns, sub ? name : NULL, sub, path, sizeof(path));
	pthread_mutex_lock(&f->lock);
	fake_logf(f, "POST %s %s\n", path, body);
	fake_undump(body);
	rc = fake_rule_rc(f, "POST", path);
	fake_key(r->namespaced ? ns : NULL, oname ? oname : "", key, sizeof(key));
	if (!rc && !sub && json_object_get(json_object_get(f->store, r->resource), key))
		rc = VC_EALREADYEXISTS;
	if (!rc && !sub) {
		json_t *copy = json_deep_copy(obj);

		if (r->namespaced && ns)
			json_object_set_new(json_object_get(copy, "metadata"), "namespace",
					    json_string(ns));
		rc = fake_store_answer(f, r, copy, out);
		json_decref(copy);
	}
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return vc_error_set(err, rc, "scripted failure of POST %s", path);
	return 0;
}

static int fake_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	char path[512], *body = fake_dump(obj);
	int rc;

	vc_kube_path(r, ns, name, sub, path, sizeof(path));
	pthread_mutex_lock(&f->lock);
	fake_logf(f, "PUT %s %s\n", path, body);
	fake_undump(body);
	rc = fake_rule_rc(f, "PUT", path);
	if (!rc)
		rc = fake_store_answer(f, r, obj, out);
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return vc_error_set(err, rc, "scripted failure of PUT %s", path);
	return 0;
}

static int fake_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *sub, enum vc_patch_type type, const json_t *patch, json_t **out,
		      struct vc_error *err)
{
	static const char *const types[] = { "merge", "json", "strategic" };
	struct fake *f = ctx;
	char path[512], key[512], *body = fake_dump(patch);
	json_t *cur, *res = NULL;
	int rc;

	vc_kube_path(r, ns, name, sub, path, sizeof(path));
	fake_key(r->namespaced ? ns : NULL, name, key, sizeof(key));
	pthread_mutex_lock(&f->lock);
	fake_logf(f, "PATCH %s %s %s\n", path, types[type], body);
	fake_undump(body);
	rc = fake_rule_rc(f, "PATCH", path);
	cur = json_object_get(json_object_get(f->store, r->resource), key);
	if (!rc && !cur)
		rc = VC_ENOTFOUND;
	if (!rc) {
		if (type == VC_PATCH_JSON)
			rc = vc_json_patch_apply(cur, patch, &res, NULL);
		else
			rc = vc_json_merge_patch_apply(cur, patch, &res, NULL);
	}
	if (!rc)
		rc = fake_store_answer(f, r, res, out);
	json_decref(res);
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return vc_error_set(err, rc, "failure of PATCH %s", path);
	return 0;
}

static int fake_del(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const struct vc_delete_opts *opts, struct vc_error *err)
{
	struct fake *f = ctx;
	char path[512], key[512];
	json_t *bucket;
	int rc;

	vc_kube_path(r, ns, name, NULL, path, sizeof(path));
	fake_key(r->namespaced ? ns : NULL, name, key, sizeof(key));
	pthread_mutex_lock(&f->lock);
	fake_logf(f, "DELETE %s", path);
	if (opts && opts->propagation_policy)
		fake_logf(f, " propagation=%s", opts->propagation_policy);
	if (opts && opts->precondition_uid)
		fake_logf(f, " uid=%s", opts->precondition_uid);
	fake_logf(f, "\n");
	rc = fake_rule_rc(f, "DELETE", path);
	bucket = json_object_get(f->store, r->resource);
	if (!rc && !json_object_get(bucket, key))
		rc = VC_ENOTFOUND;
	if (!rc)
		json_object_del(bucket, key);
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return vc_error_set(err, rc, "%s \"%s\" not found", r->resource, name);
	return 0;
}

static int fake_watch(void *ctx, const struct vc_gvr *r, const char *ns,
		      const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		      const volatile int *stop, struct vc_error *err)
{
	struct fake *f = ctx;

	(void)ns;
	(void)opts;
	(void)err;
	pthread_mutex_lock(&f->lock);
	while (!(stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE))) {
		json_t *q = json_object_get(f->pending, r->resource), *ev;

		if (json_array_size(q)) {
			json_int_t type;

			ev = json_incref(json_array_get(q, 0));
			json_array_remove(q, 0);
			type = json_integer_value(json_array_get(ev, 0));
			pthread_mutex_unlock(&f->lock);
			fn(fn_ctx, (enum vc_watch_event_type)type, json_array_get(ev, 1));
			json_decref(ev);
			pthread_mutex_lock(&f->lock);
			f->delivered++;
			pthread_cond_broadcast(&f->cond);
		} else {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 2000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&f->cond, &f->lock, &ts);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return VC_ESHUTDOWN;
}

const struct vc_kube_ops fake_ops = {
	.get = fake_get,
	.list = fake_list,
	.create = fake_create,
	.update = fake_update,
	.patch = fake_patch,
	.del = fake_del,
	.watch = fake_watch,
};

/* ---- what tests call ---------------------------------------------------------------------- */

/* The controllers' log lines, shown only when CTL_FAKE_LOG is set (failures are expected). */
static void fake_log_sink(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	if (getenv("CTL_FAKE_LOG"))
		fprintf(stderr, "%s\n", line);
}

void fake_init(struct fake *f)
{
	vc_log_set_sink(fake_log_sink, NULL);
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	f->store = json_object();
	f->pending = json_object();
	assert_non_null(f->store);
	assert_non_null(f->pending);
}

struct vc_kube *fake_kube(struct fake *f)
{
	struct vc_kube *c = vc_kube_new_with_ops(&fake_ops, f);

	assert_non_null(c);
	return c;
}

void fake_release(struct fake *f)
{
	fake_reset_calls(f);
	json_decref(f->store);
	json_decref(f->pending);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
}

void fake_ctx_init(struct fake *f, struct vc_kube **kube, struct vc_ctrl_ctx *ctx,
		   const struct ctx_opts *o)
{
	struct vc_error err;

	*kube = fake_kube(f);
	assert_non_null(*kube);
	assert_int_equal(ctx_init(ctx, *kube, NULL, o, &err), 0);
}

void fake_ctx_start(struct vc_ctrl_ctx *ctx)
{
	assert_int_equal(ctx_start(ctx), 0);
	assert_int_equal(ctx_wait_synced(ctx, 10 * VC_NSEC_PER_SEC), 0);
}

void fake_ctx_release(struct fake *f, struct vc_kube *kube, struct vc_ctrl_ctx *ctx)
{
	ctx_release(ctx);
	vc_kube_free(kube);
	fake_release(f);
}

/* Put obj (stolen) into the store without an event: what the informers' first list sees. */
void fake_put(struct fake *f, const struct vc_gvr *r, json_t *obj)
{
	pthread_mutex_lock(&f->lock);
	json_decref(fake_store_put(f, r, obj));
	pthread_mutex_unlock(&f->lock);
	json_decref(obj);
}

/*
 * Apply an event to the store and deliver it through the watch of resource r: type ADDED,
 * MODIFIED or DELETED, obj stolen. Returns once the informer has handled it.
 */
void fake_emit(struct fake *f, const struct vc_gvr *r, enum vc_watch_event_type type, json_t *obj)
{
	struct timespec deadline;
	json_t *ev, *stored;
	char key[512];
	unsigned long want;

	pthread_mutex_lock(&f->lock);
	if (type == VC_WATCH_DELETED) {
		char rv[32];

		fake_key(json_string_value(vc_json_path(obj, "metadata.namespace")),
			 json_string_value(vc_json_path(obj, "metadata.name")), key, sizeof(key));
		json_object_del(fake_bucket(f->store, r), key);
		stored = json_deep_copy(obj);
		snprintf(rv, sizeof(rv), "%ld", ++f->rv);
		json_object_set_new(json_object_get(stored, "metadata"), "resourceVersion",
				    json_string(rv));
	} else {
		stored = fake_store_put(f, r, obj);
	}
	ev = json_pack("[i, o]", (int)type, stored);
	assert_non_null(ev);
	json_array_append_new(fake_queue(f, r), ev);
	want = ++f->pushed;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	pthread_cond_broadcast(&f->cond);
	while (f->delivered < want) {
		if (pthread_cond_timedwait(&f->cond, &f->lock, &deadline)) {
			pthread_mutex_unlock(&f->lock);
			fprintf(stderr, "fake: event for %s not delivered\n", r->resource);
			fail();
		}
	}
	pthread_mutex_unlock(&f->lock);
	json_decref(obj);
}

/* Deliver the stored object under key as a MODIFIED event (what a write would cause). */
void fake_touch(struct fake *f, const struct vc_gvr *r, const char *key)
{
	json_t *o;

	pthread_mutex_lock(&f->lock);
	o = json_deep_copy(json_object_get(json_object_get(f->store, r->resource), key));
	pthread_mutex_unlock(&f->lock);
	assert_non_null(o);
	fake_emit(f, r, VC_WATCH_MODIFIED, o);
}

/* A copy of the stored object under key (NULL when absent); new reference. */
json_t *fake_stored(struct fake *f, const struct vc_gvr *r, const char *key)
{
	json_t *o;

	pthread_mutex_lock(&f->lock);
	o = json_deep_copy(json_object_get(json_object_get(f->store, r->resource), key));
	pthread_mutex_unlock(&f->lock);
	return o;
}

/* Whether the store holds key. */
bool fake_has(struct fake *f, const struct vc_gvr *r, const char *key)
{
	bool has;

	pthread_mutex_lock(&f->lock);
	has = json_object_get(json_object_get(f->store, r->resource), key) != NULL;
	pthread_mutex_unlock(&f->lock);
	return has;
}

/* Make the next `times` calls VERB PATH fail with rc (times < 0: every call). */
void fake_fail(struct fake *f, const char *verb, const char *path, int rc, int times)
{
	struct fake_rule *r;

	pthread_mutex_lock(&f->lock);
	assert_true(f->nrules < FAKE_MAX_RULES);
	r = &f->rules[f->nrules++];
	snprintf(r->verb, sizeof(r->verb), "%s", verb);
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->rc = rc;
	r->times = times;
	pthread_mutex_unlock(&f->lock);
}

/* Assert that the log is exactly `want` (with ' for "), then clear it. */
void fake_expect(struct fake *f, const char *want)
{
	char *w = strdup(want), *p;

	assert_non_null(w);
	for (p = w; *p; p++)
		if (*p == '\'')
			*p = '"';
	pthread_mutex_lock(&f->lock);
	if (strcmp(f->log, w))
		fprintf(stderr, "fake: log differs\n--- want\n%s--- got\n%s---\n", w, f->log);
	assert_string_equal(f->log, w);
	f->log[0] = '\0';
	pthread_mutex_unlock(&f->lock);
	free(w);
}

/* Clear the log. */
void fake_clear(struct fake *f)
{
	pthread_mutex_lock(&f->lock);
	f->log[0] = '\0';
	pthread_mutex_unlock(&f->lock);
}

/* ---- the call recorder ------------------------------------------------------------------- */

/* The injected answer of a recorder call: 0, or rc with err filled. Lock held. */
static int fake_recorder_answer(struct fake *f, char verb, const struct vc_gvr *r, const char *sub,
				struct vc_error *err)
{
	size_t i;
	int rc;

	if (f->fail_always)
		return vc_error_set(err, f->fail_always, "injected %d", f->fail_always);
	if (f->next < f->nscript && (rc = f->script[f->next++]))
		return vc_error_set(err, rc, "injected %d", rc);
	for (i = 0; i < f->nrules; i++) {
		struct fake_rule *u = &f->rules[i];

		if (u->times && !u->path[0] && u->verb[0] == verb &&
		    !strcmp(u->resource, r->resource) && !strcmp(u->sub, sub ? sub : "")) {
			if (u->times > 0)
				u->times--;
			return vc_error_set(err, u->rc, "%s", u->message);
		}
	}
	return 0;
}

static int fake_record(struct fake *f, char verb, const struct vc_gvr *r, const char *ns,
		       const char *name, const char *sub, enum vc_patch_type type,
		       const json_t *body, const struct vc_delete_opts *dopts, struct vc_error *err)
{
	struct fake_call *c;
	json_t *copy = NULL;
	int rc;

	pthread_mutex_lock(&f->lock);
	f->attempts++;
	rc = fake_recorder_answer(f, verb, r, sub, err);
	if (rc && !f->record_failed)
		goto out;
	if (f->ncalls == FAKE_MAX_CALLS) {
		if (!rc)
			rc = vc_error_set(err, VC_EINVAL, "too many calls");
		goto out;
	}
	if (body && !(copy = json_deep_copy(body)) && !f->nomem_recorded) {
		if (!rc)
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	c = &f->calls[f->ncalls++];
	memset(c, 0, sizeof(*c));
	c->verb = verb;
	snprintf(c->resource, sizeof(c->resource), "%s", r->resource);
	snprintf(c->ns, sizeof(c->ns), "%s", ns ? ns : "");
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	snprintf(c->sub, sizeof(c->sub), "%s", sub ? sub : "");
	c->type = type;
	if (dopts && dopts->precondition_uid)
		snprintf(c->precondition, sizeof(c->precondition), "%s", dopts->precondition_uid);
	c->body = copy;
	pthread_cond_broadcast(&f->cond);
out:
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int fake_rec_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			   const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	(void)out;
	if (!name)
		name = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "name");
	return fake_record(ctx, 'C', r, ns, name, sub, VC_PATCH_MERGE, obj, NULL, err);
}

static int fake_rec_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			   const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	(void)out;
	return fake_record(ctx, 'U', r, ns, name, sub, VC_PATCH_MERGE, obj, NULL, err);
}

static int fake_rec_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			  const char *sub, enum vc_patch_type type, const json_t *patch,
			  json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	int rc;

	(void)out;
	rc = fake_record(f, 'P', r, ns, name, sub, type, patch, NULL, err);
	pthread_mutex_lock(&f->lock);
	while (f->hold && !strcmp(r->resource, f->hold_resource) &&
	       !strcmp(sub ? sub : "", f->hold_sub))
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int fake_rec_del(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const struct vc_delete_opts *opts, struct vc_error *err)
{
	return fake_record(ctx, 'D', r, ns, name, NULL, VC_PATCH_MERGE, NULL, opts, err);
}

/* A get is recorded ('G', no body) and answered from the store (fake_put). */
static int fake_rec_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const char *sub, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	char key[256];
	int rc;

	*out = NULL;
	rc = fake_record(f, 'G', r, ns, name, sub, VC_PATCH_MERGE, NULL, NULL, err);
	if (rc)
		return rc;
	snprintf(key, sizeof(key), "%s%s%s", ns ? ns : "", ns ? "/" : "", name ? name : "");
	*out = fake_stored(f, r, key);
	return *out ? 0 : vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
}

const struct vc_kube_ops fake_recorder_ops = {
	.get = fake_rec_get,
	.create = fake_rec_create,
	.update = fake_rec_update,
	.patch = fake_rec_patch,
	.del = fake_rec_del,
};

struct vc_kube *fake_recorder(struct fake *f)
{
	struct vc_kube *c = vc_kube_new_with_ops(&fake_recorder_ops, f);

	assert_non_null(c);
	return c;
}

void fake_script(struct fake *f, int n, ...)
{
	va_list ap;
	int i;

	assert_true(n <= FAKE_MAX_SCRIPT);
	pthread_mutex_lock(&f->lock);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		f->script[i] = va_arg(ap, int);
	va_end(ap);
	f->nscript = n;
	f->next = 0;
	pthread_mutex_unlock(&f->lock);
}

void fake_fail_call(struct fake *f, char verb, const char *resource, const char *sub, int rc,
		    const char *message)
{
	struct fake_rule *u;

	pthread_mutex_lock(&f->lock);
	assert_true(f->nrules < FAKE_MAX_RULES);
	u = &f->rules[f->nrules++];
	memset(u, 0, sizeof(*u));
	u->verb[0] = verb;
	snprintf(u->resource, sizeof(u->resource), "%s", resource);
	snprintf(u->sub, sizeof(u->sub), "%s", sub ? sub : "");
	snprintf(u->message, sizeof(u->message), "%s", message);
	u->rc = rc;
	u->times = 1;
	pthread_mutex_unlock(&f->lock);
}

void fake_reset_calls(struct fake *f)
{
	int i;

	pthread_mutex_lock(&f->lock);
	for (i = 0; i < f->ncalls; i++)
		json_decref(f->calls[i].body);
	memset(f->calls, 0, sizeof(f->calls));
	f->ncalls = 0;
	f->attempts = 0;
	f->nrules = 0;
	pthread_mutex_unlock(&f->lock);
}

void fake_hold(struct fake *f, const char *resource, const char *sub, bool on)
{
	pthread_mutex_lock(&f->lock);
	snprintf(f->hold_resource, sizeof(f->hold_resource), "%s", resource);
	snprintf(f->hold_sub, sizeof(f->hold_sub), "%s", sub ? sub : "");
	f->hold = on;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

int fake_ncalls(struct fake *f)
{
	int n;

	pthread_mutex_lock(&f->lock);
	n = f->ncalls;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void fake_wait_calls(struct fake *f, int n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&f->lock);
	while (f->ncalls < n)
		if (pthread_cond_timedwait(&f->cond, &f->lock, &ts))
			break;
	pthread_mutex_unlock(&f->lock);
	assert_true(fake_ncalls(f) >= n);
}

void fake_call_str(struct fake *f, int i, char *buf, size_t len)
{
	const struct fake_call *c = &f->calls[i];

	pthread_mutex_lock(&f->lock);
	snprintf(buf, len, "%c %s %s%s%s%s%s", c->verb, c->resource, c->ns, c->ns[0] ? "/" : "",
		 c->name, c->sub[0] ? "/" : "", c->sub);
	pthread_mutex_unlock(&f->lock);
}

int fake_find_call(struct fake *f, char verb, const char *resource, const char *name,
		   const char *sub)
{
	int i, found = -1;

	pthread_mutex_lock(&f->lock);
	for (i = 0; i < f->ncalls && found < 0; i++) {
		const struct fake_call *c = &f->calls[i];

		if (c->verb == verb && !strcmp(c->resource, resource) &&
		    (!name || !strcmp(c->name, name)) && !strcmp(c->sub, sub ? sub : ""))
			found = i;
	}
	pthread_mutex_unlock(&f->lock);
	if (found < 0)
		fail_msg("no call %c %s %s %s", verb, resource, name ? name : "*", sub ? sub : "");
	return found;
}

/* ---- log capture ------------------------------------------------------------------------- */

char fake_last_error[1024];

static void fake_capture_sink(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (level <= VC_LOG_WARN)
		snprintf(fake_last_error, sizeof(fake_last_error), "%s", line);
}

void fake_log_capture(void)
{
	fake_last_error[0] = '\0';
	vc_log_set_sink(fake_capture_sink, NULL);
}

/* ---- the injected clock ------------------------------------------------------------------ */

/* One variable moves both clocks at once: the monotonic clock is the wall clock + an offset. */
static int64_t fake_now_ns, fake_mono_offset_ns;

static int64_t fake_wall(void *ctx)
{
	(void)ctx;
	return __atomic_load_n(&fake_now_ns, __ATOMIC_ACQUIRE);
}

static int64_t fake_mono(void *ctx)
{
	(void)ctx;
	return __atomic_load_n(&fake_now_ns, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&fake_mono_offset_ns, __ATOMIC_ACQUIRE);
}

void fake_clock_set_ns(int64_t wall_ns, int64_t mono_ns)
{
	__atomic_store_n(&fake_mono_offset_ns, mono_ns - wall_ns, __ATOMIC_RELEASE);
	__atomic_store_n(&fake_now_ns, wall_ns, __ATOMIC_RELEASE);
	vc_time_set_source(fake_wall, fake_mono, NULL);
}

void fake_clock_set(int64_t sec)
{
	fake_clock_set_ns(sec * VC_NSEC_PER_SEC, sec * VC_NSEC_PER_SEC);
}

void fake_clock_advance(int64_t ns)
{
	__atomic_add_fetch(&fake_now_ns, ns, __ATOMIC_ACQ_REL);
}

int fake_clock_setup(void **state)
{
	(void)state;
	fake_clock_set(1000);
	return 0;
}

int fake_clock_teardown(void **state)
{
	(void)state;
	vc_time_set_source(NULL, NULL, NULL);
	return 0;
}
