/*
 * vc_resource.h - Kubernetes resource names and Volcano's resource vector.
 *
 * struct vc_resource is Volcano's api.Resource (pkg/scheduler/api/resource_info.go): CPU in
 * milli-cores, memory in bytes, and a set of named "scalar" dimensions (GPUs, ephemeral storage,
 * hugepages, other extended resources) in milli-units, except `pods`, which is a plain count.
 * Values are doubles, as in Volcano, and comparisons use Volcano's tolerance of 0.1
 * (VC_RESOURCE_MIN). The scalars are kept sorted by name, so everything that Volcano prints or
 * lists in Go map order comes out here in name order.
 *
 * Go tells a nil scalar map from an empty one; here "no scalars" stands for both. The one visible
 * effect: vc_resource_sub() leaves the scalars alone when r has none (Go: nil map), where Go
 * would add negative entries to an empty but non-nil map.
 *
 * Lifecycle: a struct vc_resource is embedded by its owner and set up with vc_resource_init()
 * (or VC_RESOURCE_INIT) and torn down with vc_resource_release(); vc_resource_new()/_free() are
 * the heap variants. Functions that may add a scalar name allocate, return VC_ENOMEM on failure
 * and then leave r exactly as it was. Nothing here locks: a resource is owned by one thread at a
 * time.
 */
#ifndef VC_RESOURCE_H
#define VC_RESOURCE_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_buf.h"
#include "vc_err.h"

/* Volcano's minResource: the comparison tolerance and the "is zero" threshold. */
#define VC_RESOURCE_MIN 0.1

/* How a scalar dimension missing on one side is treated (Volcano's DimensionDefaultValue). */
enum vc_resource_default {
	VC_RESOURCE_ZERO = 0, /* missing means 0 ("Zero") */
	VC_RESOURCE_INFINITY, /* missing means unlimited ("Infinity") */
};

struct vc_resource_scalar {
	char *name; /* owned */
	double value;
};

struct vc_resource {
	double milli_cpu;     /* millicores */
	double memory;	      /* bytes */
	int64_t max_task_num; /* the `pods` count, for predicates; arithmetic leaves it alone */
	size_t nscalars;      /* read-only */
	size_t alloc;	      /* private */
	struct vc_resource_scalar *scalars; /* sorted by strcmp of name; read-only */
};

#define VC_RESOURCE_INIT \
	{                \
		0        \
	}

/* Make r empty (all zero, no scalars). */
void vc_resource_init(struct vc_resource *r);
/* Free what r owns; r may be reused after vc_resource_init. NULL is a no-op. */
void vc_resource_release(struct vc_resource *r);
/* Reset r to empty, freeing its scalars (release + init). */
void vc_resource_clear(struct vc_resource *r);
/* A new empty resource on the heap (free with vc_resource_free), or NULL when out of memory. */
struct vc_resource *vc_resource_new(void);
/* Release and free a heap resource. NULL is a no-op. */
void vc_resource_free(struct vc_resource *r);

/*
 * Make dst a deep copy of src (Resource.Clone). dst must be initialised; its old contents are
 * released only on success. Returns 0 or VC_ENOMEM (dst untouched).
 */
int vc_resource_copy(struct vc_resource *dst, const struct vc_resource *src) VC_WARN_UNUSED;

/*
 * Build r from a Kubernetes ResourceList object (Volcano's NewResource); list is borrowed, and
 * r must be initialised (its old contents are replaced on success only). Each entry counts as:
 *   cpu                 -> milli_cpu += MilliValue()
 *   memory              -> memory += Value()
 *   pods                -> max_task_num += Value() and scalar "pods" += Value()
 *   ephemeral-storage   -> scalar += MilliValue()
 *   count/...           -> ignored
 *   a scalar resource name (vc_resource_is_scalar) -> scalar += MilliValue()
 *   anything else       -> ignored
 * Every value must still parse as a quantity (vc_quantity_parse_json), ignored names included,
 * since Kubernetes decodes them all. Returns 0; VC_EINVAL when list is not a JSON object;
 * the quantity error (VC_EPARSE, VC_ERANGE, VC_EINVAL) with err->text prefixed by
 * "resource '<name>': "; or VC_ENOMEM. On failure r is untouched.
 */
int vc_resource_from_list(struct vc_resource *r, const json_t *list,
			  struct vc_error *err) VC_WARN_UNUSED;

/* As vc_resource_from_list, but adds the list to what r already holds (r += NewResource(list)). */
int vc_resource_add_list(struct vc_resource *r, const json_t *list,
			 struct vc_error *err) VC_WARN_UNUSED;

/* The value of a dimension ("cpu", "memory" or a scalar name); 0 when absent (Resource.Get). */
double vc_resource_get(const struct vc_resource *r, const char *name);
/* Whether r holds the scalar name (with any value, even 0). */
bool vc_resource_has_scalar(const struct vc_resource *r, const char *name);
/* Set a scalar (SetScalar). Returns 0 or VC_ENOMEM (r untouched). */
int vc_resource_set_scalar(struct vc_resource *r, const char *name, double value) VC_WARN_UNUSED;
/* Add to a scalar, creating it at 0 first (AddScalar). Returns 0 or VC_ENOMEM (r untouched). */
int vc_resource_add_scalar(struct vc_resource *r, const char *name, double value) VC_WARN_UNUSED;

/* r += rr on every dimension, adding rr's scalar names to r (Add). 0 or VC_ENOMEM. */
int vc_resource_add(struct vc_resource *r, const struct vc_resource *rr) VC_WARN_UNUSED;

/*
 * r -= rr without a sufficiency check (SubWithoutAssert): values may go negative. When r has no
 * scalars the scalars are left alone; otherwise rr's scalar names are added to r as needed.
 * 0 or VC_ENOMEM.
 */
int vc_resource_sub(struct vc_resource *r, const struct vc_resource *rr) VC_WARN_UNUSED;

/*
 * r -= rr after checking rr LessEqual r (Zero default), as Volcano's Sub asserts. When rr does
 * not fit, r is untouched and the return is VC_EINVAL with err->text
 * "resource is not sufficient to do operation: <r> sub <rr>" (the String() forms). Otherwise as
 * vc_resource_sub.
 */
int vc_resource_sub_checked(struct vc_resource *r, const struct vc_resource *rr,
			    struct vc_error *err) VC_WARN_UNUSED;

/* Multiply every dimension by ratio (Multi). */
void vc_resource_multi(struct vc_resource *r, double ratio);

/* r = max(r, rr) per dimension, taking rr's scalars r lacks (SetMaxResource). 0 or VC_ENOMEM. */
int vc_resource_set_max(struct vc_resource *r, const struct vc_resource *rr) VC_WARN_UNUSED;

/*
 * r = min(r, rr) per dimension of r (MinDimensionResource): a scalar of r that rr lacks becomes
 * 0 with VC_RESOURCE_ZERO and is kept with VC_RESOURCE_INFINITY. Scalars only in rr are ignored.
 */
void vc_resource_min_dimension(struct vc_resource *r, const struct vc_resource *rr,
			       enum vc_resource_default dflt);

/*
 * r -= rr + VC_RESOURCE_MIN on each dimension where rr > 0 (FitDelta); a negative result means
 * "insufficient". rr's positive scalars missing in r are added first at 0. 0 or VC_ENOMEM.
 */
int vc_resource_fit_delta(struct vc_resource *r, const struct vc_resource *rr) VC_WARN_UNUSED;

/* cpu, memory and every scalar except `pods` are below VC_RESOURCE_MIN (IsEmpty). */
bool vc_resource_is_empty(const struct vc_resource *r);

/* The dimension is below VC_RESOURCE_MIN; a missing scalar counts as zero (IsZero). */
bool vc_resource_is_zero(const struct vc_resource *r, const char *name);

/*
 * Every dimension of r is strictly below rr's (Less). With VC_RESOURCE_ZERO a scalar missing in
 * rr is 0 and scalars only in rr are not looked at; with VC_RESOURCE_INFINITY a scalar missing
 * in rr is unlimited, and a scalar only in rr (unlimited in r) makes the result false.
 */
bool vc_resource_less(const struct vc_resource *r, const struct vc_resource *rr,
		      enum vc_resource_default dflt);

/*
 * As vc_resource_less with "below or within VC_RESOURCE_MIN": l < r || |l - r| < 0.1
 * (LessEqual).
 */
bool vc_resource_less_equal(const struct vc_resource *r, const struct vc_resource *rr,
			    enum vc_resource_default dflt);

/*
 * Some dimension of r is strictly below rr's (LessPartly, webhooks spec 9.2): cpu or memory
 * below; with VC_RESOURCE_ZERO, rr has a scalar r lacks (whatever its value), or a scalar of r
 * is below rr's (missing in rr = 0); with VC_RESOURCE_INFINITY, a scalar of r is missing in rr
 * or below rr's.
 */
bool vc_resource_less_partly(const struct vc_resource *r, const struct vc_resource *rr,
			     enum vc_resource_default dflt);

/* As vc_resource_less_partly with the "below or within 0.1" test (LessEqualPartly). */
bool vc_resource_less_equal_partly(const struct vc_resource *r, const struct vc_resource *rr,
				   enum vc_resource_default dflt);

/*
 * cpu, memory and each scalar of r are within 0.1 of rr's, a scalar missing in rr being 0
 * (Equal). As in Volcano, scalars only in rr are not looked at and dflt is not used.
 */
bool vc_resource_equal(const struct vc_resource *r, const struct vc_resource *rr,
		       enum vc_resource_default dflt);

/*
 * The dimensions of r that are at least VC_RESOURCE_MIN (ResourceNames): "cpu", "memory", then
 * scalar names in name order. Up to cap names are stored in names (borrowed: valid until r
 * changes); the return is how many there are in all.
 */
size_t vc_resource_names(const struct vc_resource *r, const char **names, size_t cap);

/*
 * Append Volcano's String() to out: "cpu 9000.00, memory 19327352832.00" and then
 * ", <name> <value>" per scalar in name order, values as Go's %0.2f (so infinities print
 * "+Inf"/"-Inf" and NaN "NaN"). Returns 0, VC_ENOMEM or VC_E2BIG (out unchanged then).
 */
int vc_resource_format(const struct vc_resource *r, struct vc_buf *out) VC_WARN_UNUSED;

/* The same text with snprintf semantics: truncated to fit len, returns the full length. */
size_t vc_resource_snprint(char *buf, size_t len, const struct vc_resource *r);

/*
 * Re-encode a ResourceList with every quantity in its Kubernetes String() form, as the API
 * server stores it ({"cpu":"1.5","memory":"1024Mi"} -> {"cpu":"1500m","memory":"1Gi"}). list is
 * borrowed; *out receives a new reference. Returns 0, VC_EINVAL (not an object), a quantity
 * error prefixed "resource '<name>': ", or VC_ENOMEM; *out is NULL on failure.
 */
int vc_resource_list_canonical(const json_t *list, json_t **out,
			       struct vc_error *err) VC_WARN_UNUSED;

/*
 * Convert r back into a ResourceList (new reference in *out): cpu as NewMilliQuantity(DecimalSI),
 * memory as NewQuantity(BinarySI) as Volcano's ResFloat642Quantity does, `pods` as a DecimalSI
 * count and every other scalar from its milli-value (DecimalSI), so that
 * from_list(to_list(r)) == r for whole values. Values are truncated toward zero to integers and
 * saturate at the int64 limits (NaN is 0). Returns 0 or VC_ENOMEM (*out NULL).
 */
int vc_resource_to_list(const struct vc_resource *r, json_t **out) VC_WARN_UNUSED;

/*
 * Resource-name rules (k8s v1helper, webhooks spec 9.1). "Extended": the name contains '/', does
 * not contain "kubernetes.io/", does not start with "requests.", and "requests." + name is a
 * qualified name (one '/', a DNS-1123 subdomain prefix, a name part of at most 63 characters
 * matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]).
 */
bool vc_resource_is_extended(const char *name);
/* Contains "kubernetes.io/" (IsPrefixedNativeResource). */
bool vc_resource_is_prefixed_native(const char *name);
/* Has no '/' or is prefixed-native (IsNativeResource). */
bool vc_resource_is_native(const char *name);
/* Starts with "hugepages-". */
bool vc_resource_is_hugepages(const char *name);
/*
 * A scalar resource name (IsScalarResourceName): extended, hugepages-*, prefixed-native or
 * attachable-volumes-*.
 */
bool vc_resource_is_scalar(const char *name);
/*
 * A resource whose quantities must be whole numbers (IsIntegerResourceName): pods,
 * resourcequotas, services, replicationcontrollers, secrets, configmaps,
 * persistentvolumeclaims, services.nodeports, services.loadbalancers, or any extended resource.
 */
bool vc_resource_is_integer_resource(const char *name);

#endif /* VC_RESOURCE_H */
