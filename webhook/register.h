/*
 * register.h - what vc-webhook does with the API server: it registers its webhook
 * configurations (docs/volcano/webhooks.md §12.1, §12.2), and backs the admission handlers' view of
 * the cluster (struct admission_state) with a Queue and a Namespace informer.
 *
 * Registration. Volcano's Helm chart creates one configuration object per enabled path and
 * the binary only injects the caBundle into them. vc-webhook creates or updates the objects
 * itself, with the chart's content: the name volcano-admission-service-<path with '/' as '-'>
 * (volcano-admission-service-jobs-mutate), one webhook named as in docs/volcano/webhooks.md §2.1
 * (mutatejob.volcano.sh) with the chart's rules, failurePolicy Fail, matchPolicy Equivalent,
 * sideEffects NoneOnDryRun, admissionReviewVersions [v1], timeoutSeconds 10, objectSelector {},
 * reinvocationPolicy Never (mutating ones), namespaceSelector kubernetes.io/metadata.name NotIn
 * [<namespace>, kube-system], and clientConfig.caBundle set to the CA. clientConfig is {url:
 * <--webhook-url>
 * + path} when a URL is given (the local cluster reaches webhooks only so), else {service:
 * {namespace, name, path, port 443}}. Objects carry the label
 * app.kubernetes.io/managed-by=vc-webhook.
 *
 * State. Volcano's handlers read Queues from an informer whose indexer files each Queue under
 * its spec.parent; so do ours (WEBHOOK_QUEUE_PARENT_INDEX). Queues without a parent are filed
 * under "", which is how the handlers walk every Queue (queues.c). The Namespace lookup of
 * /podgroups/mutate reads a Namespace informer's cache (managedFields stripped) where Volcano
 * GETs it through the client: the same answer once the cache has seen the Namespace, without an
 * API request per review. A Namespace the cache has not seen is still GET; where the webhook
 * may not list Namespaces (Volcano's install), every lookup is a GET, as in Volcano.
 */
#ifndef WEBHOOK_REGISTER_H
#define WEBHOOK_REGISTER_H

#include "vc_prelude.h"

#include <jansson.h>

#include "admission.h"
#include "vc_cache.h"
#include "vc_err.h"
#include "vc_kube.h"

/* The label put on the configurations vc-webhook registers. */
#define WEBHOOK_MANAGED_BY_LABEL "app.kubernetes.io/managed-by"
#define WEBHOOK_MANAGED_BY	 "vc-webhook"

/* The name of the Queue informer's index on spec.parent (Volcano's QueueParentIndexName). */
#define WEBHOOK_QUEUE_PARENT_INDEX "queueParent"

struct webhook_register_opts {
	/* The enabled paths of admission_paths, NULL-terminated; NULL = all of them. */
	const char *const *paths;
	/* --webhook-url: "https://host:port[/prefix]"; when set it wins over the Service. */
	const char *url;
	const char *service_namespace; /* --webhook-namespace */
	const char *service_name;      /* --webhook-service-name */
	int service_port;	       /* the Service's port; 0 = 443 */
	const char *ca_pem;	       /* the caBundle, PEM text; NULL or "" = none */
};

/*
 * The configuration object's name for path: "volcano-admission-service-" followed by the path
 * without its leading '/' and with '/' replaced by '-'. Returns 0, VC_EINVAL for a path that
 * does not start with '/', VC_E2BIG when it does not fit in len bytes.
 */
int webhook_config_name(const char *path, char *buf, size_t len) VC_WARN_UNUSED;

/* The webhook's name for one of admission_paths ("mutatejob.volcano.sh"), NULL for others. */
const char *webhook_name(const char *path);

/*
 * Build the MutatingWebhookConfiguration (a path ending in /mutate) or
 * ValidatingWebhookConfiguration for path, as described at the top of this file: 0 and a new
 * reference in *out. Errors (VC_EINVAL): a path not in admission_paths ("unknown admission
 * path '<p>'"), a URL that is not https or has a query or fragment ("invalid webhook url
 * '<u>': <why>"), neither a URL nor a Service (Volcano's «failed to start webhooks as both
 * 'url' and 'namespace/name' of webhook are empty»), a Service without its namespace or name
 * ("both --webhook-namespace and --webhook-service-name are needed without --webhook-url");
 * VC_ENOMEM.
 */
int webhook_config_build(const struct webhook_register_opts *o, const char *path, json_t **out,
			 struct vc_error *err) VC_WARN_UNUSED;

/* What webhook_register did, per path (for logs and tests). */
struct webhook_register_stats {
	unsigned created, updated, unchanged;
};

/*
 * Create or update the configuration of every enabled path through kube (borrowed). An object
 * that exists gets the built webhooks (labels merged, everything else kept) with an update
 * carrying its resourceVersion, unless its webhooks already equal the built ones; a conflict
 * (someone else wrote it) or AlreadyExists (someone created it) is retried up to 5 times.
 * Returns 0, the build's errors, or the client's error for the first object that failed, with
 * err->text prefixed by "<kind> <name>: ". stats (may be NULL) counts what was done.
 */
int webhook_register(struct vc_kube *kube, const struct webhook_register_opts *o,
		     struct webhook_register_stats *stats, struct vc_error *err) VC_WARN_UNUSED;

/*
 * The Queue index function: files obj under its spec.parent, or under "" when it has none (an
 * absent, null, empty or non-string parent). obj is borrowed.
 */
int webhook_queue_parent_index(const void *arg, const json_t *obj,
			       struct vc_index_values *vals) VC_WARN_UNUSED;

/*
 * The cluster as the handlers see it: a Queue informer (all Queues, the parent index), a
 * Namespace informer and the client for Namespaces that informer does not have.
 */
struct webhook_cluster;

/*
 * Make the informers through kube (borrowed; it must outlive the cluster); nothing runs until
 * webhook_cluster_start. Returns 0, VC_EINVAL or VC_ENOMEM with err set.
 */
int webhook_cluster_new(struct vc_kube *kube, struct webhook_cluster **out,
			struct vc_error *err) VC_WARN_UNUSED;

/*
 * Start the Queue informer and, with namespaces (the server serves /podgroups/mutate), the
 * Namespace informer, unless the API server answers 403 to a list of Namespaces (Volcano's own
 * install grants its webhook no right on them): then it is not started (logged), and
 * get_namespace GETs each Namespace as before. 0 or an informer's error.
 */
int webhook_cluster_start(struct webhook_cluster *c, bool namespaces,
			  struct vc_error *err) VC_WARN_UNUSED;

/* Whether get_namespace reads the Namespace informer's cache (started and allowed to list). */
bool webhook_cluster_namespaces_cached(const struct webhook_cluster *c);

/*
 * Wait until the first lists of Queues (Volcano serves nothing before) and, when started, of
 * Namespaces are in the caches: 0,
 * VC_ETIMEDOUT after timeout_ns (< 0 = forever), VC_ESHUTDOWN when stopped.
 */
int webhook_cluster_wait_synced(struct webhook_cluster *c, int64_t timeout_ns);

/*
 * Fill state with the callbacks over c (valid while c lives): get_queue reads the cache by
 * name (VC_ENOTFOUND when absent, err left empty so the handler prints the lister's text);
 * queue_children returns the Queues filed under name in the parent index, sorted by name, as a
 * new JSON array; get_namespace reads the Namespace cache by name and GETs a Namespace it
 * has not seen, or every Namespace when the cache is not started (VC_ENOTFOUND when absent,
 * other client errors with the server's message in err).
 */
void webhook_cluster_state(struct webhook_cluster *c, struct admission_state *state);

/* The Queue informer's cache (borrowed; valid while c lives). */
struct vc_cache *webhook_cluster_cache(struct webhook_cluster *c);

/* Stop the informers and free c. NULL is allowed. */
void webhook_cluster_free(struct webhook_cluster *c);

#endif /* WEBHOOK_REGISTER_H */
