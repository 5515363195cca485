/*
 * admission_internal.h - what the admission handlers share (not for use outside webhook/).
 *
 * admission.c decodes the review into a struct admission_request, calls the handler for the
 * path, and encodes the struct admission_result it fills (docs/volcano/webhooks.md §2.3: allowed,
 * the denial message, the JSON Patch, base64-encoded on the way out).
 */
#ifndef ADMISSION_INTERNAL_H
#define ADMISSION_INTERNAL_H

#include "admission.h"

#include "vc_buf.h"
#include "vc_hash.h"
#include "vc_quantity.h"
#include "vc_validate.h"

/* The request of a review; every pointer is borrowed from the review being handled. */
struct admission_request {
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
struct admission_result {
	bool allowed;
	char *message; /* owned (vc_malloc); the denial message, NULL when allowed */
	/*
	 * Owned. NULL: no patch field. A JSON array: the operations, sent even when empty. JSON
	 * null: Go's `null` patch (docs/volcano/webhooks.md §2.5).
	 */
	json_t *patch;
};

/*
 * A handler: fill res (which starts allowed, with no message and no patch) from req. Returns 0,
 * or VC_ENOMEM when it could not build its answer (the server then answers 500 and the API
 * server applies the failure policy). Denials are not errors: they return 0 with
 * res->allowed false.
 */
typedef int (*admission_handler_fn)(const struct admission_ctx *ctx,
				    const struct admission_request *req,
				    struct admission_result *res);

/* Deny with a formatted message (replacing any earlier one). Returns 0 or VC_ENOMEM. */
int admission_deny(struct admission_result *res, const char *fmt, ...) VC_PRINTF(2, 3);

/*
 * Deny with msg, a vc_malloc'd string that is stolen (also on failure). A NULL msg (a failed
 * allocation upstream) still denies and returns VC_ENOMEM; otherwise returns 0.
 */
int admission_deny_take(struct admission_result *res, char *msg);

/* Free what res owns (message, patch) and reset them to NULL. */
void admission_result_release(struct admission_result *res);

/*
 * The patch of a mutating handler that built the operations ops (a JSON array, stolen): ops, or
 * JSON null when it is empty, as Go marshals the nil slice (docs/volcano/webhooks.md §2.5).
 */
json_t *admission_patch(json_t *ops);

/*
 * Kubernetes' ValidateResourceQuantityValue (docs/volcano/webhooks.md §9.1) for the quantity q of
 * resource at path: a negative value appends «<path>: Invalid value: "<q>": must be greater than or
 * equal to 0»; a fractional value of an integer resource (pods, services, ..., any extended
 * resource) appends «<path>: Invalid value: "<q>": must be an integer». q prints in Kubernetes'
 * String() form. Returns 0 (whether or not it appended) or VC_ENOMEM.
 */
int admission_quantity_errors(struct vc_field_errors *errs, const struct vc_field_path *path,
			      const char *resource, const struct vc_quantity *q);

/*
 * Deny with «expect resource to be {G V R}» unless req->resource is exactly group/version/
 * resource (docs/volcano/webhooks.md §2.4). Returns 1 when it denied, 0 when the resource matches,
 * or VC_ENOMEM.
 */
int admission_check_resource(const struct admission_request *req, const char *group,
			     const char *version, const char *resource,
			     struct admission_result *res);

/* What encoding/json calls a JSON value in its type errors: "string", "number", "bool", ... */
const char *admission_json_kind(const json_t *v);

/*
 * Deny with encoding/json's type error for value v of a struct field:
 * «json: cannot unmarshal <kind>[ <number>] into Go struct field <where> of type <gotype>».
 * with_number also prints a number's value (Go does for numbers an integer field can't hold).
 * Returns 1 (denied) or VC_ENOMEM.
 */
int admission_type_error(struct admission_result *res, const json_t *v, bool with_number,
			 const char *where, const char *gotype);

/* The Go type a decoded field must have (for admission_check_value). */
enum admission_want {
	ADMISSION_WANT_STRING,
	ADMISSION_WANT_OBJECT,
	ADMISSION_WANT_ARRAY,
	ADMISSION_WANT_BOOL,
	ADMISSION_WANT_INT,   /* Go int: any JSON integer */
	ADMISSION_WANT_INT32, /* Go int32: an integer in range */
};

/*
 * Deny with encoding/json's type error (admission_type_error) unless v is absent, null or of
 * the wanted type; where is "<Struct>.<json path>" and gotype the Go type. Integer fields print
 * the offending number too, as Go does. Returns 1 when it denied, 0, or VC_ENOMEM.
 */
int admission_check_value(struct admission_result *res, const json_t *v, enum admission_want want,
			  const char *where, const char *gotype);
/* admission_check_value on obj[key] (absent when obj is not an object). */
int admission_check_field(struct admission_result *res, const json_t *obj, const char *key,
			  enum admission_want want, const char *where, const char *gotype);

/* The handlers, one per path (jobs.c, queues.c, podgroups.c, pods.c). */
int admit_jobs_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
		      struct admission_result *res);
int admit_jobs_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			struct admission_result *res);
int admit_queues_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
			struct admission_result *res);
int admit_queues_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			  struct admission_result *res);
int admit_podgroups_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
			   struct admission_result *res);
int admit_podgroups_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			     struct admission_result *res);
int admit_pods_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
		      struct admission_result *res);
int admit_pods_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			struct admission_result *res);

/* ---- string sets and maps for the handlers' uniqueness checks ----------------------------- */

/*
 * The handlers keep their duplicate checks over arrays of untrusted length linear with a
 * struct vc_hmap of string keys (vc_hmap_init_str), holding size_t values as pointers. Add key
 * with value unless key is already there (its value is then left alone). Returns 1 when it
 * added, 0 when key was present, VC_ENOMEM (the map unchanged).
 */
int admission_hmap_add(struct vc_hmap *m, const char *key, size_t value);
/* Whether key is there; its value into *value when value is not NULL. */
bool admission_hmap_get(const struct vc_hmap *m, const char *key, size_t *value);

/* ---- Job helpers: jobs_gotypes.c and jobs_podtemplate.c, for jobs.c ---------------------- */

/*
 * Decode-check a batch.volcano.sh/v1alpha1 Job object (borrowed) against Go's types, as the Go
 * webhook's decoder would (docs/volcano/webhooks.md §2.4): returns 0 when it decodes; 1 when it
 * does not, with a new vc_malloc'd string in *msg holding encoding/json's text («json: cannot
 * unmarshal string into Go struct field TaskSpec.spec.tasks.replicas of type int32», or a
 * quantity's or duration's parse error); VC_ENOMEM. Fields Caldera does not model are not checked.
 */
int admit_job_typecheck(const json_t *job, char **msg);

/*
 * The canonical form of a JobSpec (borrowed) for semantic equality (docs/volcano/webhooks.md §6): a
 * new reference in *out in which a struct member is absent exactly when Go would hold its zero
 * value (a non-pointer field that is absent, null or zero, an empty slice or map) or a nil pointer,
 * quantities are their value in nano-units (a decimal string) and durations nanoseconds, so
 * that vc_json_equal() on two canonical forms is apiequality.Semantic.DeepEqual. Members of
 * Kubernetes structs that Caldera does not model are kept as they are; unknown members of
 * Volcano's (fully modelled) structs are dropped, as Go's decoder drops them. Returns 0 or
 * VC_ENOMEM. The spec must have passed admit_job_typecheck().
 */
int admit_job_spec_canonical(const json_t *spec, json_t **out);

/*
 * Job CREATE's pod-template check for tasks[index] (borrowed), docs/volcano/webhooks.md §5.3: apply
 * the Kubernetes v1 defaults, validate the template as a PodTemplate named task_name in namespace
 * ns, and append «spec.task[<index>].» followed by «<error>. » per field error to msg; when
 * there are none and the task has a topologyPolicy, append the whole-CPU text if a container
 * fails it. Appends nothing for a valid task. Returns 0 or VC_ENOMEM / VC_E2BIG from msg.
 */
int admit_job_task_template(const struct admission_ctx *ctx, const json_t *task, size_t index,
			    const char *task_name, const char *ns, struct vc_buf *msg);

#endif /* ADMISSION_INTERNAL_H */
