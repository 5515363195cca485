/*
 * vc_kube.c - the Kubernetes client's resource side: the resource types, their REST paths and
 * the verbs, which dispatch to the client's ops. The REST transport over libcurl that the real
 * client's ops use is in vc_kube_rest.c (the HTTP exchange), vc_kube_rest_verbs.c (the ops) and
 * vc_kube_token.c (the bearer token), kubeconfig loading in vc_kubeconfig.c.
 */
#include "vc_kube.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_kube_internal.h"

/* ---- resources ---------------------------------------------------------------------------- */

const struct vc_gvr vc_gvr_pods = { "", "v1", "pods", true };
const struct vc_gvr vc_gvr_nodes = { "", "v1", "nodes", false };
const struct vc_gvr vc_gvr_namespaces = { "", "v1", "namespaces", false };
const struct vc_gvr vc_gvr_services = { "", "v1", "services", true };
const struct vc_gvr vc_gvr_replicationcontrollers = { "", "v1", "replicationcontrollers", true };
const struct vc_gvr vc_gvr_replicasets = { "apps", "v1", "replicasets", true };
const struct vc_gvr vc_gvr_statefulsets = { "apps", "v1", "statefulsets", true };
const struct vc_gvr vc_gvr_configmaps = { "", "v1", "configmaps", true };
const struct vc_gvr vc_gvr_secrets = { "", "v1", "secrets", true };
const struct vc_gvr vc_gvr_events = { "", "v1", "events", true };
const struct vc_gvr vc_gvr_pvcs = { "", "v1", "persistentvolumeclaims", true };
const struct vc_gvr vc_gvr_pvs = { "", "v1", "persistentvolumes", false };
const struct vc_gvr vc_gvr_storageclasses = { "storage.k8s.io", "v1", "storageclasses", false };
const struct vc_gvr vc_gvr_csinodes = { "storage.k8s.io", "v1", "csinodes", false };
const struct vc_gvr vc_gvr_leases = { "coordination.k8s.io", "v1", "leases", true };
const struct vc_gvr vc_gvr_priorityclasses = { "scheduling.k8s.io", "v1", "priorityclasses",
					       false };
const struct vc_gvr vc_gvr_networkpolicies = { "networking.k8s.io", "v1", "networkpolicies", true };
const struct vc_gvr vc_gvr_jobs = { "batch.volcano.sh", "v1alpha1", "jobs", true };
const struct vc_gvr vc_gvr_commands = { "bus.volcano.sh", "v1alpha1", "commands", true };
const struct vc_gvr vc_gvr_podgroups = { "scheduling.volcano.sh", "v1beta1", "podgroups", true };
const struct vc_gvr vc_gvr_queues = { "scheduling.volcano.sh", "v1beta1", "queues", false };
const struct vc_gvr vc_gvr_mutatingwebhookconfigurations = { "admissionregistration.k8s.io", "v1",
							     "mutatingwebhookconfigurations",
							     false };
const struct vc_gvr vc_gvr_validatingwebhookconfigurations = { "admissionregistration.k8s.io", "v1",
							       "validatingwebhookconfigurations",
							       false };

/* RFC 3986 unreserved characters: everything else in a path segment or query is escaped. */
static bool unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

static int add_escaped(struct vc_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (unreserved(c)) {
			rc = vc_buf_addc(b, (char)c);
		} else {
			char esc[3] = { '%', hex[c >> 4], hex[c & 15] };

			rc = vc_buf_add(b, esc, 3);
		}
	}
	return rc;
}

/* A path segment from a caller: not empty, not "." or "..". */
static bool valid_segment(const char *s)
{
	return *s && strcmp(s, ".") && strcmp(s, "..");
}

int vc_kube_build_path(struct vc_buf *b, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, struct vc_error *err)
{
	int rc;

	if (!r || !r->version || !r->resource || !valid_segment(r->version) ||
	    !valid_segment(r->resource) || (r->group && *r->group && !valid_segment(r->group)))
		return vc_error_set(err, VC_EINVAL, "invalid resource type");
	if (name && *name && !valid_segment(name))
		return vc_error_set(err, VC_EINVAL, "invalid name '%s'", name);
	if (ns && *ns && !valid_segment(ns))
		return vc_error_set(err, VC_EINVAL, "invalid namespace '%s'", ns);
	if (sub && *sub) {
		if (!valid_segment(sub))
			return vc_error_set(err, VC_EINVAL, "invalid subresource '%s'", sub);
		if (!name || !*name)
			return vc_error_set(err, VC_EINVAL, "subresource '%s' of %s needs a name",
					    sub, r->resource);
	}
	if (r->group && *r->group)
		rc = vc_buf_addf(b, "/apis/%s/%s", r->group, r->version);
	else
		rc = vc_buf_addf(b, "/api/%s", r->version);
	if (!rc && r->namespaced && ns && *ns) {
		rc = vc_buf_adds(b, "/namespaces/");
		if (!rc)
			rc = add_escaped(b, ns);
	}
	if (!rc)
		rc = vc_buf_addf(b, "/%s", r->resource);
	if (!rc && name && *name) {
		rc = vc_buf_addc(b, '/');
		if (!rc)
			rc = add_escaped(b, name);
	}
	if (!rc && sub && *sub) {
		rc = vc_buf_addc(b, '/');
		if (!rc)
			rc = add_escaped(b, sub);
	}
	if (rc)
		return vc_error_set(err, rc, "%s",
				    rc == VC_E2BIG ? "path too long" : "out of memory");
	return 0;
}

int vc_kube_path(const struct vc_gvr *r, const char *ns, const char *name, const char *subresource,
		 char *buf, size_t len)
{
	struct vc_buf b;
	int rc;

	if (!buf || !len)
		return VC_EINVAL;
	buf[0] = '\0';
	vc_buf_init(&b, 0);
	rc = vc_kube_build_path(&b, r, ns, name, subresource, NULL);
	if (!rc && b.len >= len)
		rc = VC_E2BIG;
	if (!rc)
		memcpy(buf, b.data, b.len + 1);
	vc_buf_release(&b);
	return rc;
}

int vc_kube_query_add(struct vc_buf *q, const char *key, const char *value)
{
	int rc;

	if (!value || !*value)
		return 0;
	rc = vc_buf_addf(q, "%c%s=", q->len ? '&' : '?', key);
	return rc ? rc : add_escaped(q, value);
}

/* ---- the client and its ops --------------------------------------------------------------- */

struct vc_kube *vc_kube_new_with_ops(const struct vc_kube_ops *ops, void *ctx)
{
	struct vc_kube *c;

	if (!ops)
		return NULL;
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ops = *ops;
	c->ctx = ctx;
	return c;
}

void vc_kube_free(struct vc_kube *c)
{
	if (!c)
		return;
	if (c->ops.free)
		c->ops.free(c->ctx);
	vc_free(c);
}

static int no_op(const char *verb, struct vc_error *err)
{
	return vc_error_set(err, VC_EINVAL, "the client has no '%s' operation", verb);
}

/* Common entry checks: a client, a resource type, a cleared error and *out. */
#define VERB_ENTRY(verb)                                                         \
	do {                                                                     \
		vc_error_clear(err);                                             \
		if (out)                                                         \
			*out = NULL;                                             \
		if (!c || !r)                                                    \
			return vc_error_set(err, VC_EINVAL, "invalid argument"); \
		if (!c->ops.verb)                                                \
			return no_op(#verb, err);                                \
	} while (0)

int vc_kube_get(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		const char *subresource, json_t **out, struct vc_error *err)
{
	VERB_ENTRY(get);
	return c->ops.get(c->ctx, r, ns, name, subresource, out, err);
}

int vc_kube_list(struct vc_kube *c, const struct vc_gvr *r, const char *ns,
		 const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	VERB_ENTRY(list);
	return c->ops.list(c->ctx, r, ns, opts, out, err);
}

int vc_kube_create(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		   const char *subresource, const json_t *obj, json_t **out, struct vc_error *err)
{
	VERB_ENTRY(create);
	return c->ops.create(c->ctx, r, ns, name, subresource, obj, out, err);
}

int vc_kube_update(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		   const char *subresource, const json_t *obj, json_t **out, struct vc_error *err)
{
	VERB_ENTRY(update);
	return c->ops.update(c->ctx, r, ns, name, subresource, obj, out, err);
}

int vc_kube_patch(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		  const char *subresource, enum vc_patch_type type, const json_t *patch,
		  json_t **out, struct vc_error *err)
{
	VERB_ENTRY(patch);
	return c->ops.patch(c->ctx, r, ns, name, subresource, type, patch, out, err);
}

int vc_kube_delete(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		   const struct vc_delete_opts *opts, struct vc_error *err)
{
	json_t **out = NULL;

	VERB_ENTRY(del);
	return c->ops.del(c->ctx, r, ns, name, opts, err);
}

int vc_kube_watch(struct vc_kube *c, const struct vc_gvr *r, const char *ns,
		  const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		  const volatile int *stop, struct vc_error *err)
{
	json_t **out = NULL;

	VERB_ENTRY(watch);
	if (!fn)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	return c->ops.watch(c->ctx, r, ns, opts, fn, fn_ctx, stop, err);
}
