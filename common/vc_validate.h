/*
 * vc_validate.h - the Kubernetes text conventions that admission messages reuse.
 *
 * Kubernetes validation produces texts that Volcano embeds in its denial messages, so the exact
 * characters are a contract (docs/volcano/webhooks.md §13). This module reproduces, from
 * apimachinery:
 *
 *   - the name and label checks of pkg/util/validation and pkg/api/validate/content, each of
 *     which returns a list of messages (struct vc_strlist);
 *   - field paths (field.Path) and field errors (field.Error) with their Error() texts, and the
 *     error list aggregate (ErrorList.ToAggregate().Error());
 *   - %v of a []string. Go's other formatting helpers the messages are built with
 *     (strconv.Quote, encoding/json for "other" values) are in vc_strconv.h, included here.
 *
 * Inputs are C strings. Callers holding a JSON string with an embedded NUL must reject it first:
 * the checks here see only the part before the NUL.
 *
 * All functions are thread-safe (no shared state).
 */
#ifndef VC_VALIDATE_H
#define VC_VALIDATE_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_buf.h"
#include "vc_strconv.h"

/* ---------------------------------------------------------------------------------------------
 * String lists
 */

/*
 * A growable list of owned strings, the C form of Go's []string of messages. Embed it, set it up
 * with vc_strlist_init and free it with vc_strlist_release. `items[0..len)` may be read directly.
 */
struct vc_strlist {
	char **items;
	size_t len;
	size_t alloc; /* private */
};

void vc_strlist_init(struct vc_strlist *l);
/* Free every string and the array; the list is empty and reusable afterwards. */
void vc_strlist_release(struct vc_strlist *l);
/* Append a copy of s. VC_ENOMEM leaves the list unchanged. */
int vc_strlist_add(struct vc_strlist *l, const char *s) VC_WARN_UNUSED;
/* Append a formatted string. VC_ENOMEM leaves the list unchanged. */
int vc_strlist_addf(struct vc_strlist *l, const char *fmt, ...) VC_PRINTF(2, 3) VC_WARN_UNUSED;
/* Append the items joined by sep (Go strings.Join) to out. */
int vc_strlist_join(const struct vc_strlist *l, const char *sep, struct vc_buf *out) VC_WARN_UNUSED;
/*
 * Append Go's %v of the list as a []string to out: "[" + items joined by one space + "]", so an
 * empty list prints "[]". Volcano prints validation messages this way ("validate failed [...]").
 */
int vc_strlist_format_go(const struct vc_strlist *l, struct vc_buf *out) VC_WARN_UNUSED;
/*
 * Append the text of k8s utilerrors.NewAggregate over these error texts: duplicates of an earlier
 * text are dropped; one text prints as itself; two or more as "[" + texts joined by ", " + "]".
 * An empty list appends nothing.
 */
int vc_strlist_aggregate(const struct vc_strlist *l, struct vc_buf *out) VC_WARN_UNUSED;

/* ---------------------------------------------------------------------------------------------
 * Name and label checks
 *
 * Each returns 0 when the value is valid, VC_EINVALID when it is not (appending every message, in
 * Kubernetes' order, to msgs when msgs is not NULL), or VC_ENOMEM when a message could not be
 * stored (the list then holds the messages stored so far). Pass msgs = NULL for a plain check.
 */

/*
 * k8s validation.IsDNS1123Label: at most 63 characters ("must be no more than 63 characters"),
 * matching [a-z0-9]([-a-z0-9]*[a-z0-9])?. A valid subdomain that is not a label gets
 * "must not contain dots"; anything else gets the "a lowercase RFC 1123 label must consist of ..."
 * regex message.
 */
int vc_validate_dns1123_label(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;
/* k8s validation.IsDNS1123Subdomain: at most 253 characters, dot-separated RFC 1123 labels. */
int vc_validate_dns1123_subdomain(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;
/* k8s validation.IsDNS1035Label: at most 63 characters, [a-z]([-a-z0-9]*[a-z0-9])?. */
int vc_validate_dns1035_label(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;
/*
 * k8s validation.IsQualifiedName (content.IsLabelKey), docs/volcano/webhooks.md §13.3: an optional
 * DNS-1123 subdomain prefix and '/', then a name part of at most 63 bytes matching
 * ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. This is also the label key rule.
 */
int vc_validate_qualified_name(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;
/* k8s validation.IsValidLabelValue: empty, or at most 63 bytes like a qualified name part. */
int vc_validate_label_value(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;
/* k8s validation.IsCIdentifier: [A-Za-z_][A-Za-z0-9_]*, any length. */
int vc_validate_c_identifier(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;
/*
 * k8s validation.IsEnvVarName: [-._a-zA-Z][-._a-zA-Z0-9]*, and not ".", ".." or starting with
 * "..".
 */
int vc_validate_env_var_name(const char *value, struct vc_strlist *msgs) VC_WARN_UNUSED;

/* ---------------------------------------------------------------------------------------------
 * Field paths (field.Path)
 *
 * A path is a chain of small structs that live on the caller's stack and point at their parent
 * and at the caller's strings (borrowed: they must outlive the path). Nothing is allocated:
 *
 *     struct vc_field_path spec = vc_field_path_root("spec");
 *     struct vc_field_path tasks = vc_field_path_child(&spec, "tasks");
 *     struct vc_field_path t0 = vc_field_path_index(&tasks, 0);   // spec.tasks[0]
 *
 * A NULL path is Go's nil *field.Path: it prints "<nil>", and a child, index or key of it starts
 * a new path, as in Go. A root or child with an empty name prints as "[]", as in Go.
 */
struct vc_field_path {
	const struct vc_field_path *parent;
	const char *name; /* a named element, or NULL for a subscript */
	const char *key;  /* a [key] subscript (when name is NULL) */
	long index;	  /* an [index] subscript (when name and key are NULL) */
};

struct vc_field_path vc_field_path_root(const char *name);
struct vc_field_path vc_field_path_child(const struct vc_field_path *parent, const char *name);
struct vc_field_path vc_field_path_index(const struct vc_field_path *parent, long index);
struct vc_field_path vc_field_path_key(const struct vc_field_path *parent, const char *key);
/* Append the path as field.Path.String() prints it ("spec.tasks[0].template", "<nil>"). */
int vc_field_path_format(const struct vc_field_path *path, struct vc_buf *out) VC_WARN_UNUSED;

/* ---------------------------------------------------------------------------------------------
 * Field errors (field.Error, field.ErrorList)
 */

enum vc_field_error_type {
	VC_FIELD_NOT_FOUND,	/* "Not found", prints the value */
	VC_FIELD_REQUIRED,	/* "Required value" */
	VC_FIELD_DUPLICATE,	/* "Duplicate value", prints the value */
	VC_FIELD_INVALID,	/* "Invalid value", prints the value */
	VC_FIELD_NOT_SUPPORTED, /* "Unsupported value", prints the value */
	VC_FIELD_FORBIDDEN,	/* "Forbidden" */
	VC_FIELD_TOO_LONG,	/* "Too long" */
	VC_FIELD_TOO_MANY,	/* "Too many", prints the value */
	VC_FIELD_TOO_FEW,	/* "Too few", prints the value */
	VC_FIELD_TOO_SHORT,	/* "Too short" */
	VC_FIELD_INTERNAL,	/* "Internal error" */
	VC_FIELD_TYPE_INVALID,	/* "Invalid value", prints the value */
};

/* The type's text as ErrorType.String() gives it ("Invalid value"). Never NULL. */
const char *vc_field_error_type_string(enum vc_field_error_type type);

/*
 * A field error's bad value, typed the way Go's type switch in ErrorBody() sees it. Build one with
 * the vc_fv_* constructors below; all pointers are borrowed for the duration of the call.
 */
enum vc_field_value_kind {
	VC_FV_OMIT,	    /* no value: only the type prints (Go's omitValue) */
	VC_FV_STRING,	    /* a Go string: printed with %q */
	VC_FV_NAMED_STRING, /* a named string type (QueueState, an operator): printed as JSON */
	VC_FV_INT,	    /* any Go integer: printed in decimal */
	VC_FV_BOOL,	    /* true / false */
	VC_FV_FLOAT,	    /* a float64: printed with %v */
	VC_FV_STRINGS,	    /* a []string: printed as JSON, a nil slice (strv NULL) as null */
	VC_FV_JSON,	    /* any other value: printed as JSON (vc_go_json) */
};

struct vc_field_value {
	enum vc_field_value_kind kind;
	const char *s;
	int64_t i;
	bool b;
	double d;
	const char *const *strv;
	size_t strc;
	const json_t *json;
};

static inline struct vc_field_value vc_fv_omit(void)
{
	struct vc_field_value v = { .kind = VC_FV_OMIT };

	return v;
}

static inline struct vc_field_value vc_fv_str(const char *s)
{
	struct vc_field_value v = { .kind = VC_FV_STRING, .s = s };

	return v;
}

static inline struct vc_field_value vc_fv_named_str(const char *s)
{
	struct vc_field_value v = { .kind = VC_FV_NAMED_STRING, .s = s };

	return v;
}

static inline struct vc_field_value vc_fv_int(int64_t i)
{
	struct vc_field_value v = { .kind = VC_FV_INT, .i = i };

	return v;
}

static inline struct vc_field_value vc_fv_bool(bool b)
{
	struct vc_field_value v = { .kind = VC_FV_BOOL, .b = b };

	return v;
}

static inline struct vc_field_value vc_fv_float(double d)
{
	struct vc_field_value v = { .kind = VC_FV_FLOAT, .d = d };

	return v;
}

static inline struct vc_field_value vc_fv_strings(const char *const *strv, size_t strc)
{
	struct vc_field_value v = { .kind = VC_FV_STRINGS, .strv = strv, .strc = strc };

	return v;
}

/* json is borrowed for the duration of the call that takes the value. */
static inline struct vc_field_value vc_fv_json(const json_t *json)
{
	struct vc_field_value v = { .kind = VC_FV_JSON, .json = json };

	return v;
}

/*
 * One field error. All strings are owned by the list that holds the error; `value` is the bad
 * value already printed (NULL when the type or the value prints none) and `detail` is "" when
 * there is none.
 */
struct vc_field_error {
	enum vc_field_error_type type;
	char *field;
	char *value;
	char *detail;
};

/* An ordered list of field errors (field.ErrorList). Embed; init / release. */
struct vc_field_errors {
	struct vc_field_error *items;
	size_t len;
	size_t alloc; /* private */
};

void vc_field_errors_init(struct vc_field_errors *l);
void vc_field_errors_release(struct vc_field_errors *l);

/*
 * Append an error of any type. The path is printed and the value rendered now, so nothing stays
 * borrowed. detail may be NULL (no detail). Returns 0, or VC_ENOMEM with the list unchanged.
 */
int vc_field_errors_add(struct vc_field_errors *l, enum vc_field_error_type type,
			const struct vc_field_path *path, struct vc_field_value value,
			const char *detail) VC_WARN_UNUSED;

/* The constructors of apimachinery's field package; each appends one error to l. */
int vc_field_invalid(struct vc_field_errors *l, const struct vc_field_path *path,
		     struct vc_field_value value, const char *detail) VC_WARN_UNUSED;
int vc_field_type_invalid(struct vc_field_errors *l, const struct vc_field_path *path,
			  struct vc_field_value value, const char *detail) VC_WARN_UNUSED;
int vc_field_required(struct vc_field_errors *l, const struct vc_field_path *path,
		      const char *detail) VC_WARN_UNUSED;
int vc_field_forbidden(struct vc_field_errors *l, const struct vc_field_path *path,
		       const char *detail) VC_WARN_UNUSED;
int vc_field_duplicate(struct vc_field_errors *l, const struct vc_field_path *path,
		       struct vc_field_value value) VC_WARN_UNUSED;
int vc_field_not_found(struct vc_field_errors *l, const struct vc_field_path *path,
		       struct vc_field_value value) VC_WARN_UNUSED;
/* The detail is `supported values: "a", "b"` (each %q-quoted), or none when n is 0. */
int vc_field_not_supported(struct vc_field_errors *l, const struct vc_field_path *path,
			   struct vc_field_value value, const char *const *supported,
			   size_t n) VC_WARN_UNUSED;
/* "may not be more than N bytes" ("byte" for 1), or "value is too long" when max < 0. */
int vc_field_too_long(struct vc_field_errors *l, const struct vc_field_path *path,
		      int64_t max) VC_WARN_UNUSED;
/*
 * "must have at most N items" ("item" for 1; "has too many items" when max < 0); the actual
 * count prints as the value unless it is negative.
 */
int vc_field_too_many(struct vc_field_errors *l, const struct vc_field_path *path, int64_t actual,
		      int64_t max) VC_WARN_UNUSED;
/* "must have at least N items" ("item" for 1; "has too few items" when min < 0). */
int vc_field_too_few(struct vc_field_errors *l, const struct vc_field_path *path, int64_t actual,
		     int64_t min) VC_WARN_UNUSED;
/* "must be at least N characters" ("character" for 1; "value is too short" when min < 0). */
int vc_field_too_short(struct vc_field_errors *l, const struct vc_field_path *path,
		       int64_t min) VC_WARN_UNUSED;
/* An internal error whose detail is the error text. */
int vc_field_internal(struct vc_field_errors *l, const struct vc_field_path *path,
		      const char *error_text) VC_WARN_UNUSED;

/* Append Error(): "<field>: <body>". */
int vc_field_error_format(const struct vc_field_error *e, struct vc_buf *out) VC_WARN_UNUSED;
/* Append ErrorBody(): "<type>[: <value>][: <detail>]". */
int vc_field_error_format_body(const struct vc_field_error *e, struct vc_buf *out) VC_WARN_UNUSED;
/*
 * Append ToAggregate().Error() (docs/volcano/webhooks.md §13.2): errors whose text repeats an
 * earlier one are dropped; one error prints as its text, several as "[e1, e2]". An empty list
 * appends nothing.
 */
int vc_field_errors_aggregate(const struct vc_field_errors *l, struct vc_buf *out) VC_WARN_UNUSED;

#endif /* VC_VALIDATE_H */
