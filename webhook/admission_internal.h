/*
 * admission_internal.h - what the admission handlers share (not for use outside webhook/).
 *
 * admission.c decodes the review into a struct vc_admission_request, calls the handler for the
 * path, and encodes the struct vc_admission_result it fills (webhooks.md §2.3: allowed, the
 * denial message, the JSON Patch, base64-encoded on the way out).
 */
#ifndef VC_ADMISSION_INTERNAL_H
#define VC_ADMISSION_INTERNAL_H

#include "admission.h"

/* The request of a review; every pointer is borrowed from the review being handled. */
struct vc_admission_request {
	const char *uid;	  /* request.uid ("" when absent) */
	const char *operation;	  /* "CREATE", "UPDATE", "DELETE", "CONNECT" ("" when absent) */
	const char *name;	  /* request.name ("" when absent) */
	const char *ns;		  /* request.namespace ("" when absent) */
	const json_t *resource;	  /* request.resource {group, version, resource}, or NULL */
	const json_t *object;	  /* request.object, or NULL when absent or null */
	const json_t *old_object; /* request.oldObject, or NULL */
	const json_t *raw;	  /* the whole request object */
};

/* What a handler decides. */
struct vc_admission_result {
	bool allowed;
	char *message; /* owned (vc_malloc); the denial message, NULL when allowed */
	/*
	 * Owned. NULL: no patch field. A JSON array: the operations, sent even when empty. JSON
	 * null: Go's `null` patch (webhooks.md §2.5).
	 */
	json_t *patch;
};

/*
 * A handler: fill res (which starts allowed, with no message and no patch) from req. Returns 0,
 * or VC_ENOMEM when it could not build its answer (the server then answers 500 and the API
 * server applies the failure policy). Denials are not errors: they return 0 with
 * res->allowed false.
 */
typedef int (*vc_admission_handler)(const struct vc_admission_ctx *ctx,
				    const struct vc_admission_request *req,
				    struct vc_admission_result *res);

/* Deny with a formatted message (replacing any earlier one). Returns 0 or VC_ENOMEM. */
int vc_admission_deny(struct vc_admission_result *res, const char *fmt, ...) VC_PRINTF(2, 3);

/*
 * Deny with «expect resource to be {G V R}» unless req->resource is exactly group/version/
 * resource (webhooks.md §2.4). Returns 1 when it denied, 0 when the resource matches, or
 * VC_ENOMEM.
 */
int vc_admission_check_resource(const struct vc_admission_request *req, const char *group,
				const char *version, const char *resource,
				struct vc_admission_result *res);

/* The handlers, one per path (jobs.c, queues.c, podgroups.c, pods.c). */
int vc_admit_jobs_mutate(const struct vc_admission_ctx *ctx, const struct vc_admission_request *req,
			 struct vc_admission_result *res);
int vc_admit_jobs_validate(const struct vc_admission_ctx *ctx,
			   const struct vc_admission_request *req, struct vc_admission_result *res);
int vc_admit_queues_mutate(const struct vc_admission_ctx *ctx,
			   const struct vc_admission_request *req, struct vc_admission_result *res);
int vc_admit_queues_validate(const struct vc_admission_ctx *ctx,
			     const struct vc_admission_request *req,
			     struct vc_admission_result *res);
int vc_admit_podgroups_mutate(const struct vc_admission_ctx *ctx,
			      const struct vc_admission_request *req,
			      struct vc_admission_result *res);
int vc_admit_podgroups_validate(const struct vc_admission_ctx *ctx,
				const struct vc_admission_request *req,
				struct vc_admission_result *res);
int vc_admit_pods_mutate(const struct vc_admission_ctx *ctx, const struct vc_admission_request *req,
			 struct vc_admission_result *res);
int vc_admit_pods_validate(const struct vc_admission_ctx *ctx,
			   const struct vc_admission_request *req, struct vc_admission_result *res);

#endif /* VC_ADMISSION_INTERNAL_H */
