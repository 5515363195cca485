/*
 * register.c - the webhook configurations and the Queue informer behind the handlers (see
 * register.h).
 */
#include "register.h"

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_informer.h"
#include "vc_json.h"
#include "vc_log.h"

#define CONFIG_PREFIX	 "volcano-admission-service-"
#define REGISTER_TRIES	 5
#define DEFAULT_SVC_PORT 443

/* One row per path: the chart's webhook (docs/volcano/webhooks.md §12.1). */
struct hook {
	const char *path;
	const char *name;
	const char *group;
	const char *version;
	const char *resource;
	const char *ops[4]; /* NULL-terminated */
};

static const struct hook hooks[] = {
	{ "/jobs/mutate",
	  "mutatejob.volcano.sh",
	  "batch.volcano.sh",
	  "v1alpha1",
	  "jobs",
	  { "CREATE", NULL } },
	{ "/jobs/validate",
	  "validatejob.volcano.sh",
	  "batch.volcano.sh",
	  "v1alpha1",
	  "jobs",
	  { "CREATE", "UPDATE", NULL } },
	{ "/queues/mutate",
	  "mutatequeue.volcano.sh",
	  "scheduling.volcano.sh",
	  "v1beta1",
	  "queues",
	  { "CREATE", NULL } },
	{ "/queues/validate",
	  "validatequeue.volcano.sh",
	  "scheduling.volcano.sh",
	  "v1beta1",
	  "queues",
	  { "CREATE", "UPDATE", "DELETE", NULL } },
	{ "/podgroups/mutate",
	  "mutatepodgroup.volcano.sh",
	  "scheduling.volcano.sh",
	  "v1beta1",
	  "podgroups",
	  { "CREATE", NULL } },
	{ "/podgroups/validate",
	  "validatepodgroup.volcano.sh",
	  "scheduling.volcano.sh",
	  "v1beta1",
	  "podgroups",
	  { "CREATE", NULL } },
	{ "/pods/mutate", "mutatepod.volcano.sh", "", "v1", "pods", { "CREATE", NULL } },
	{ "/pods/validate", "validatepod.volcano.sh", "", "v1", "pods", { "CREATE", NULL } },
};

static const struct hook *find_hook(const char *path)
{
	size_t i;

	for (i = 0; path && i < VC_ARRAY_SIZE(hooks); i++)
		if (!strcmp(hooks[i].path, path))
			return &hooks[i];
	return NULL;
}

static bool is_mutating(const struct hook *h)
{
	size_t n = strlen(h->path);

	return n >= 7 && !strcmp(h->path + n - 7, "/mutate");
}

const char *webhook_name(const char *path)
{
	const struct hook *h = find_hook(path);

	return h ? h->name : NULL;
}

int webhook_config_name(const char *path, char *buf, size_t len)
{
	size_t n, i;

	if (!buf || !len)
		return VC_E2BIG;
	buf[0] = '\0';
	if (!path || path[0] != '/' || !path[1])
		return VC_EINVAL;
	n = strlen(CONFIG_PREFIX) + strlen(path + 1);
	if (n + 1 > len)
		return VC_E2BIG;
	snprintf(buf, len, "%s%s", CONFIG_PREFIX, path + 1);
	for (i = strlen(CONFIG_PREFIX); buf[i]; i++)
		if (buf[i] == '/')
			buf[i] = '-';
	return 0;
}

/* ---- building ---------------------------------------------------------------------------- */

/* Check the URL as the API server would (https, no query, fragment or user info). */
static int check_url(const char *url, struct vc_error *err)
{
	const char *host, *end;

	if (strncmp(url, "https://", 8) != 0)
		return vc_error_set(err, VC_EINVAL,
				    "invalid webhook url '%s': the scheme must be https", url);
	if (strpbrk(url, "?#"))
		return vc_error_set(err, VC_EINVAL,
				    "invalid webhook url '%s': a query or fragment is not allowed",
				    url);
	host = url + 8;
	end = strchr(host, '/');
	if (!end)
		end = host + strlen(host);
	if (end == host)
		return vc_error_set(err, VC_EINVAL, "invalid webhook url '%s': no host", url);
	if (memchr(host, '@', (size_t)(end - host)))
		return vc_error_set(err, VC_EINVAL,
				    "invalid webhook url '%s': user info is not allowed", url);
	return 0;
}

/* A JSON array of strings, NULL-terminated list. */
static json_t *str_array(const char *const *items)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && items[i]; i++)
		if (json_array_append_new(a, json_string(items[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *client_config(const struct webhook_register_opts *o, const struct hook *h,
			     struct vc_error *err)
{
	json_t *cc = NULL;
	char *url = NULL, *ca = NULL;

	if (o->url && *o->url) {
		size_t n = strlen(o->url);

		while (n > 8 && o->url[n - 1] == '/')
			n--;
		url = vc_asprintf("%.*s%s", (int)n, o->url, h->path);
		if (url)
			cc = json_pack("{s:s}", "url", url);
	} else {
		int port = o->service_port ? o->service_port : DEFAULT_SVC_PORT;

		cc = json_pack("{s:{s:s, s:s, s:s, s:i}}", "service", "namespace",
			       o->service_namespace, "name", o->service_name, "path", h->path,
			       "port", port);
	}
	if (cc && o->ca_pem && *o->ca_pem) {
		ca = vc_base64_encode(o->ca_pem, strlen(o->ca_pem));
		if (!ca || json_object_set_new(cc, "caBundle", json_string(ca))) {
			json_decref(cc);
			cc = NULL;
		}
	}
	vc_free(url);
	vc_free(ca);
	if (!cc)
		vc_error_set(err, VC_ENOMEM, "out of memory");
	return cc;
}

static json_t *webhook_entry(const struct webhook_register_opts *o, const struct hook *h,
			     struct vc_error *err)
{
	const char *const group[] = { h->group, NULL }, *const version[] = { h->version, NULL };
	const char *const resource[] = { h->resource, NULL };
	const char *const reviews[] = { "v1", NULL };
	const char *excluded[3] = { NULL, NULL, NULL };
	json_t *cc, *w;

	cc = client_config(o, h, err);
	if (!cc)
		return NULL;
	if (o->service_namespace && *o->service_namespace) {
		excluded[0] = o->service_namespace;
		excluded[1] = "kube-system";
	} else {
		excluded[0] = "kube-system";
	}
	w = json_pack("{s:s, s:o, s:o, s:s, s:s, s:{s:[{s:s, s:s, s:o}]}, s:{}, "
		      "s:[{s:o, s:o, s:o, s:o, s:s}], s:s, s:i}",
		      "name", h->name, "admissionReviewVersions", str_array(reviews),
		      "clientConfig", cc, "failurePolicy", "Fail", "matchPolicy", "Equivalent",
		      "namespaceSelector", "matchExpressions", "key", "kubernetes.io/metadata.name",
		      "operator", "NotIn", "values", str_array(excluded), "objectSelector", "rules",
		      "apiGroups", str_array(group), "apiVersions", str_array(version),
		      "operations", str_array(h->ops), "resources", str_array(resource), "scope",
		      "*", "sideEffects", "NoneOnDryRun", "timeoutSeconds", 10);
	if (w && is_mutating(h) &&
	    json_object_set_new(w, "reinvocationPolicy", json_string("Never"))) {
		json_decref(w);
		w = NULL;
	}
	if (!w)
		vc_error_set(err, VC_ENOMEM, "out of memory");
	return w;
}

int webhook_config_build(const struct webhook_register_opts *o, const char *path, json_t **out,
			 struct vc_error *err)
{
	const struct hook *h = find_hook(path);
	char name[128];
	json_t *cfg, *w;

	if (!out)
		return vc_error_set(err, VC_EINVAL, "no output");
	*out = NULL;
	if (!o)
		return vc_error_set(err, VC_EINVAL, "no options");
	if (!h)
		return vc_error_set(err, VC_EINVAL, "unknown admission path '%s'",
				    path ? path : "(null)");
	if (o->url && *o->url) {
		int rc = check_url(o->url, err);

		if (rc)
			return rc;
	} else {
		bool ns = o->service_namespace && *o->service_namespace;
		bool svc = o->service_name && *o->service_name;

		if (!ns && !svc)
			return vc_error_set(err, VC_EINVAL,
					    "failed to start webhooks as both 'url' and "
					    "'namespace/name' of webhook are empty");
		if (!ns || !svc)
			return vc_error_set(
				err, VC_EINVAL,
				"both --webhook-namespace and --webhook-service-name are "
				"needed without --webhook-url");
	}
	if (webhook_config_name(path, name, sizeof(name)))
		return vc_error_set(err, VC_EINVAL, "unknown admission path '%s'", path);
	w = webhook_entry(o, h, err);
	if (!w)
		return VC_ENOMEM;
	cfg = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:[o]}", "apiVersion",
			"admissionregistration.k8s.io/v1", "kind",
			is_mutating(h) ? "MutatingWebhookConfiguration"
				       : "ValidatingWebhookConfiguration",
			"metadata", "name", name, "labels", WEBHOOK_MANAGED_BY_LABEL,
			WEBHOOK_MANAGED_BY, "webhooks", w);
	if (!cfg)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	*out = cfg;
	return 0;
}

/* ---- registering ------------------------------------------------------------------------- */

enum outcome {
	CREATED,
	UPDATED,
	UNCHANGED,
};

/* The existing object with the desired webhooks and labels: a new reference, NULL on ENOMEM. */
static json_t *merged(const json_t *existing, const json_t *desired)
{
	json_t *obj = json_deep_copy(existing), *meta, *labels;

	if (!obj)
		return NULL;
	meta = vc_json_get_obj(obj, "metadata");
	if (!meta) {
		meta = json_object();
		if (json_object_set_new(obj, "metadata", meta))
			goto fail;
	}
	labels = vc_json_get_obj(meta, "labels");
	if (!labels) {
		labels = json_object();
		if (json_object_set_new(meta, "labels", labels))
			goto fail;
	}
	if (json_object_set_new(labels, WEBHOOK_MANAGED_BY_LABEL,
				json_string(WEBHOOK_MANAGED_BY)) ||
	    json_object_set(obj, "webhooks", json_object_get(desired, "webhooks")))
		goto fail;
	return obj;
fail:
	json_decref(obj);
	return NULL;
}

static bool labelled(const json_t *obj)
{
	const char *v = vc_json_get_str(vc_json_get_obj(vc_json_get_obj(obj, "metadata"), "labels"),
					WEBHOOK_MANAGED_BY_LABEL);

	return v && !strcmp(v, WEBHOOK_MANAGED_BY);
}

static int register_one(struct vc_kube *kube, const struct vc_gvr *gvr, const char *name,
			const json_t *desired, enum outcome *what, struct vc_error *err)
{
	json_t *existing = NULL, *obj;
	int rc = 0, tries;

	for (tries = 0; tries < REGISTER_TRIES; tries++) {
		rc = vc_kube_get(kube, gvr, NULL, name, NULL, &existing, err);
		if (rc == VC_ENOTFOUND) {
			rc = vc_kube_create(kube, gvr, NULL, NULL, NULL, desired, NULL, err);
			*what = CREATED;
			if (rc == VC_EALREADYEXISTS)
				continue;
			return rc;
		}
		if (rc)
			return rc;
		if (vc_json_equal(json_object_get(existing, "webhooks"),
				  json_object_get(desired, "webhooks")) &&
		    labelled(existing)) {
			json_decref(existing);
			*what = UNCHANGED;
			return 0;
		}
		obj = merged(existing, desired);
		json_decref(existing);
		existing = NULL;
		if (!obj)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		rc = vc_kube_update(kube, gvr, NULL, name, NULL, obj, NULL, err);
		json_decref(obj);
		*what = UPDATED;
		if (rc != VC_ECONFLICT)
			return rc;
	}
	return rc;
}

int webhook_register(struct vc_kube *kube, const struct webhook_register_opts *o,
		     struct webhook_register_stats *stats, struct vc_error *err)
{
	static const char *const what_text[] = { "created", "updated", "unchanged" };
	size_t i;
	int rc = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!kube || !o)
		return vc_error_set(err, VC_EINVAL, "no client or options");
	for (i = 0; !rc && admission_paths[i]; i++) {
		const char *path = admission_paths[i];
		const struct vc_gvr *gvr;
		enum outcome what = UNCHANGED;
		json_t *cfg;
		const char *name, *kind;

		if (!admission_paths_has(o->paths, path))
			continue;
		rc = webhook_config_build(o, path, &cfg, err);
		if (rc)
			break;
		name = vc_json_get_str(vc_json_get_obj(cfg, "metadata"), "name");
		kind = vc_json_get_str(cfg, "kind");
		gvr = is_mutating(find_hook(path)) ? &vc_gvr_mutatingwebhookconfigurations
						   : &vc_gvr_validatingwebhookconfigurations;
		rc = register_one(kube, gvr, name, cfg, &what, err);
		if (rc) {
			if (rc != VC_ENOMEM)
				vc_error_prefix(err, "%s %s", kind, name);
		} else {
			VC_INFO("webhook configuration registered", "kind=%s name=%s action=%s",
				kind, name, what_text[what]);
			if (stats)
				*(what == CREATED   ? &stats->created
				  : what == UPDATED ? &stats->updated
						    : &stats->unchanged) += 1;
		}
		json_decref(cfg);
	}
	return rc;
}

/* ---- the cluster state ------------------------------------------------------------------- */

struct webhook_cluster {
	struct vc_kube *kube;
	struct vc_informer *queues;
	/*
	 * Namespaces for /podgroups/mutate (docs/volcano/webhooks.md §10.1): read from a cache
	 * instead of a GET per review (one API request per seven reviews of the mix), when started
	 * (ns_cached). Volcano's own install gives the webhook no right on namespaces: there the
	 * informer stays stopped and each review GETs, as Volcano does.
	 */
	struct vc_informer *namespaces;
	bool ns_cached;
};

int webhook_queue_parent_index(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *parent = vc_json_get_str(vc_json_get_obj(obj, "spec"), "parent");

	(void)arg;
	return vc_index_values_add(vals, parent ? parent : "");
}

static const struct vc_cache_index queue_indexes[] = {
	{ WEBHOOK_QUEUE_PARENT_INDEX, webhook_queue_parent_index, NULL },
};

int webhook_cluster_new(struct vc_kube *kube, struct webhook_cluster **out, struct vc_error *err)
{
	struct vc_informer_opts io;
	struct webhook_cluster *c;
	int rc;

	if (!out)
		return vc_error_set(err, VC_EINVAL, "no output");
	*out = NULL;
	if (!kube)
		return vc_error_set(err, VC_EINVAL, "no client");
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	c->kube = kube;
	memset(&io, 0, sizeof(io));
	io.resource = &vc_gvr_queues;
	io.indexes = queue_indexes;
	io.nindexes = VC_ARRAY_SIZE(queue_indexes);
	io.name = "queues";
	rc = vc_informer_new(kube, &io, &c->queues, err);
	if (rc) {
		vc_free(c);
		return rc;
	}
	memset(&io, 0, sizeof(io));
	io.resource = &vc_gvr_namespaces;
	io.transform = vc_informer_strip_managed_fields;
	io.name = "namespaces";
	rc = vc_informer_new(kube, &io, &c->namespaces, err);
	if (rc) {
		vc_informer_free(c->queues);
		vc_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/*
 * Whether the client may list Namespaces: one page of one item. Only a 403 says no; any other
 * failure (the API server not up yet) leaves it to the informer, which retries as the Queue
 * informer does.
 */
static bool may_list_namespaces(struct webhook_cluster *c)
{
	struct vc_list_opts lo = { .limit = 1, .one_page = true };
	struct vc_error e;
	json_t *page = NULL;
	int rc;

	vc_error_clear(&e);
	rc = vc_kube_list(c->kube, &vc_gvr_namespaces, NULL, &lo, &page, &e);
	json_decref(page);
	if (rc != VC_EFORBIDDEN)
		return true;
	/* The server's text says "forbidden"; test_volcano_install looks for this message. */
	VC_WARN("cannot list namespaces, reading each PodGroup's Namespace from the API server",
		"code=%d", 403);
	return false;
}

int webhook_cluster_start(struct webhook_cluster *c, bool namespaces, struct vc_error *err)
{
	int rc;

	if (!c)
		return vc_error_set(err, VC_EINVAL, "no cluster");
	rc = vc_informer_start(c->queues);
	if (rc)
		return vc_error_set(err, rc, "cannot start the queue informer: %s",
				    vc_strerror(rc));
	if (!namespaces || !may_list_namespaces(c))
		return 0;
	rc = vc_informer_start(c->namespaces);
	if (rc)
		return vc_error_set(err, rc, "cannot start the namespace informer: %s",
				    vc_strerror(rc));
	c->ns_cached = true;
	return 0;
}

bool webhook_cluster_namespaces_cached(const struct webhook_cluster *c)
{
	return c && c->ns_cached;
}

int webhook_cluster_wait_synced(struct webhook_cluster *c, int64_t timeout_ns)
{
	int rc;

	if (!c)
		return VC_EINVAL;
	rc = vc_informer_wait_synced(c->queues, timeout_ns);
	return rc || !c->ns_cached ? rc : vc_informer_wait_synced(c->namespaces, timeout_ns);
}

struct vc_cache *webhook_cluster_cache(struct webhook_cluster *c)
{
	return c ? vc_informer_cache(c->queues) : NULL;
}

static int st_get_queue(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	struct webhook_cluster *c = ctx;

	(void)err;
	*out = name && *name ? vc_cache_get(vc_informer_cache(c->queues), name) : NULL;
	return *out ? 0 : VC_ENOTFOUND;
}

static int by_name(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *nx = vc_json_get_str(vc_json_get_obj(x, "metadata"), "name");
	const char *ny = vc_json_get_str(vc_json_get_obj(y, "metadata"), "name");

	return strcmp(nx ? nx : "", ny ? ny : "");
}

static int st_queue_children(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	struct webhook_cluster *c = ctx;
	struct vc_objs objs = { 0 };
	json_t *arr;
	size_t i;
	int rc;

	*out = NULL;
	rc = vc_cache_by_index(vc_informer_cache(c->queues), WEBHOOK_QUEUE_PARENT_INDEX,
			       name ? name : "", &objs);
	if (rc)
		return vc_error_set(err, rc, "failed to query index %s for parent %s: %s",
				    WEBHOOK_QUEUE_PARENT_INDEX, name ? name : "", vc_strerror(rc));
	if (objs.count > 1)
		qsort(objs.items, objs.count, sizeof(json_t *), by_name);
	arr = json_array();
	for (i = 0; arr && i < objs.count; i++)
		if (json_array_append(arr, objs.items[i])) {
			json_decref(arr);
			arr = NULL;
		}
	vc_objs_release(&objs);
	if (!arr)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	*out = arr;
	return 0;
}

/*
 * From the cache when there is one; otherwise, and for a Namespace the cache has not seen yet
 * (created moments ago: the watch has not delivered it), a GET, as Volcano reads it.
 */
static int st_get_namespace(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	struct webhook_cluster *c = ctx;
	struct vc_json_arena *arena;
	int rc;

	*out = NULL;
	if (c->ns_cached) {
		if (!name || !*name)
			return VC_ENOTFOUND;
		*out = vc_cache_get(vc_informer_cache(c->namespaces), name);
		if (*out)
			return 0;
	}
	/* The client may keep what it parses (tokens, credentials): not in a review's arena. */
	arena = vc_json_arena_pause();
	rc = vc_kube_get(c->kube, &vc_gvr_namespaces, NULL, name, NULL, out, err);
	vc_json_arena_resume(arena);
	return rc;
}

void webhook_cluster_state(struct webhook_cluster *c, struct admission_state *state)
{
	memset(state, 0, sizeof(*state));
	state->get_queue = st_get_queue;
	state->queue_children = st_queue_children;
	state->get_namespace = st_get_namespace;
	state->ctx = c;
}

void webhook_cluster_free(struct webhook_cluster *c)
{
	if (!c)
		return;
	vc_informer_free(c->queues);
	vc_informer_free(c->namespaces);
	vc_free(c);
}
