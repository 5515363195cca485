/*
 * admission.h - vc-webhook's admission logic as pure functions (docs/volcano/webhooks.md).
 *
 * The HTTP server hands each request body to admission_serve(), which decodes the
 * AdmissionReview (admission.k8s.io/v1, and v1beta1 answered in kind), routes by path to a
 * handler, and encodes the answering AdmissionReview. Handlers never touch the network: what
 * they need to know about the cluster (Queues from the informer cache, a Namespace) comes
 * through struct admission_state, which the daemon backs with its informer and client and
 * tests back with fixed data. So the same code runs in the daemon, in the data-driven unit
 * tests (tests/data/admission/<case>/) and in the fuzzer.
 */
#ifndef ADMISSION_H
#define ADMISSION_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

/* What the handlers may read about the cluster. Every function may be NULL (= nothing known). */
struct admission_state {
	/*
	 * The Queue called name: 0 and a new reference in *out, VC_ENOTFOUND when there is none
	 * (the handler then prints the lister's text «queue.scheduling.volcano.sh "<name>" not
	 * found»), or another negative code with err set.
	 */
	int (*get_queue)(void *ctx, const char *name, json_t **out, struct vc_error *err);
	/* The Queues whose spec.parent is name, as a new JSON array (the informer's parent index).
	 */
	int (*queue_children)(void *ctx, const char *name, json_t **out, struct vc_error *err);
	/* The Namespace called name (for /podgroups/mutate); VC_ENOTFOUND when absent. */
	int (*get_namespace)(void *ctx, const char *name, json_t **out, struct vc_error *err);
	void *ctx;
};

/* The resource-group configuration of /pods/mutate (docs/volcano/webhooks.md §11.1), parsed. */
struct admission_config {
	/* --scheduler-name values; the first is the default for Jobs. NULL-terminated. */
	const char *const *scheduler_names;
	/* The admission configuration file (resourceGroups...), or NULL when none is loaded. */
	const json_t *pod_config;
	/* Volcano feature gate SchedulingGatesQueueAdmission (default off). */
	bool scheduling_gates_queue_admission;
	/*
	 * Kubernetes feature gate PodLevelResources, which Job CREATE's pod-template validation
	 * passes on (docs/volcano/webhooks.md §5.3: pod-level template.spec.resources are checked
	 * only with it on). Volcano aligns it with the cluster's version (on from 1.34).
	 */
	bool pod_level_resources;
	/* --max-queue-depth: the deepest a queue may sit below root (docs/volcano/webhooks.md
	 * §8.1). */
	int max_queue_depth;
	/* --enable-queue-allocated-pods-check: refuse deleting a queue with allocated pods (§8). */
	bool queue_allocated_pods_check;
	/* --enable-root-queue-protection: root's capability, deserved and guarantee are fixed (§8).
	 */
	bool root_queue_protection;
};

/* Volcano's defaults of the flags above (docs/volcano/webhooks.md §1). */
#define ADMISSION_MAX_QUEUE_DEPTH 5

/* Set *c to Volcano's defaults: no scheduler names, no pod configuration, every gate off,
 * depth 5, no allocated-pods check, root protected. */
void admission_config_init(struct admission_config *c);

struct admission_ctx {
	const struct admission_config *config;
	const struct admission_state *state;
};

/* The paths served; NULL-terminated, in Volcano's order. */
extern const char *const admission_paths[];

/*
 * Whether the enabled paths (NULL-terminated, as webhook_parse_paths makes them; NULL = all of
 * admission_paths) include path.
 */
bool admission_paths_has(const char *const *paths, const char *path);

/*
 * Handle one review: path is the HTTP path ("/jobs/validate"), review the decoded request body
 * (borrowed). On success returns 0 and a new reference to the AdmissionReview to send in
 * *response: {"kind":"AdmissionReview","apiVersion":<the request's, admission.k8s.io/v1 or
 * v1beta1>,"response":{"uid",…,"allowed",…[,"status":{"metadata":{},"message":…}]
 * [,"patch":<base64>,"patchType":"JSONPatch"]}} (docs/volcano/webhooks.md §2.3). A body that is not
 * an AdmissionReview with a request (docs/volcano/webhooks.md §2.2 step 4: not an object, another
 * apiVersion or kind, request absent or null, request members of the wrong type) returns VC_EINVAL
 * with err explaining, and the server answers 400. An unknown path returns VC_ENOENT (404).
 * VC_ENOMEM (500) when memory runs out. Denials are answers, not errors. Thread-safe as long as the
 * state callbacks are.
 */
int admission_review(const struct admission_ctx *ctx, const char *path, const json_t *review,
		     json_t **response, struct vc_error *err);

/*
 * The whole HTTP step, checked in Go's order: the path (unknown: VC_ENOENT, 404, text «404 page
 * not found»), the body size (over 3 MiB: VC_E2BIG, 413, «request body too large»), the content
 * type (anything but exactly application/json: VC_EINVAL, 415), the JSON (VC_EINVAL, 400, with
 * jansson's text and position), then admission_review. body need not be NUL-terminated and
 * may be NULL when len is 0. On success *out is a new vc_malloc'd JSON text (free with vc_free)
 * and *status 200; on failure *out is NULL, *status is the HTTP status to send and err->text the
 * text body (without the trailing newline Go's http.Error adds).
 */
int admission_serve(const struct admission_ctx *ctx, const char *path, const char *content_type,
		    const char *body, size_t len, char **out, int *status, struct vc_error *err);

#endif /* ADMISSION_H */
