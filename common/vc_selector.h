/*
 * vc_selector.h - Kubernetes label selectors (apimachinery pkg/labels) and node affinity.
 *
 * A label selector is an AND of requirements on an object's labels. It comes from the string
 * form (`app=web,tier in (a,b),!canary`, as kubectl -l and list calls write it), from a
 * metav1.LabelSelector object (matchLabels + matchExpressions), from a plain label map
 * (nodeSelector), or from node-affinity NodeSelectorRequirements. Parsing, validation, matching
 * and String() follow apimachinery exactly, error texts included.
 *
 * Field selectors are in vc_fieldselector.h.
 *
 * Selectors are immutable once built (except through vc_selector_add) and may be shared between
 * threads for matching.
 */
#ifndef VC_SELECTOR_H
#define VC_SELECTOR_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_buf.h"
#include "vc_err.h"
#include "vc_validate.h"

/* ---------------------------------------------------------------------------------------------
 * Label selectors
 */

/* selection.Operator. */
enum vc_selector_op {
	VC_SEL_IN,	       /* key in (a,b) */
	VC_SEL_NOT_IN,	       /* key notin (a,b): also matches when the key is absent */
	VC_SEL_EQUALS,	       /* key=a */
	VC_SEL_DOUBLE_EQUALS,  /* key==a */
	VC_SEL_NOT_EQUALS,     /* key!=a: also matches when the key is absent */
	VC_SEL_EXISTS,	       /* key */
	VC_SEL_DOES_NOT_EXIST, /* !key */
	VC_SEL_GT,	       /* key>1: the label is an integer greater than the value */
	VC_SEL_LT,	       /* key<1 */
};

/*
 * One requirement, readable through vc_selector_get. `values` holds the values as given (the
 * parser stores them sorted and without duplicates, as apimachinery's sets.String does).
 */
struct vc_requirement {
	char *key;
	enum vc_selector_op op;
	char **values;
	size_t nvalues;
	size_t seq; /* private: insertion order, for the stable sort by key */
};

struct vc_selector;

/* The operator as selection.Operator spells it: "in", "notin", "=", "==", "!=", "exists", "!",
 * "gt", "lt". Never NULL. */
const char *vc_selector_op_string(enum vc_selector_op op);

/* A new selector that matches everything (labels.Everything()); NULL when out of memory. */
struct vc_selector *vc_selector_new_everything(void) VC_WARN_UNUSED;
/* A new selector that matches nothing (labels.Nothing()); NULL when out of memory. */
struct vc_selector *vc_selector_new_nothing(void) VC_WARN_UNUSED;
/* Free a selector; NULL is a no-op. */
void vc_selector_free(struct vc_selector *s);

/*
 * Parse the string form (labels.Parse). On success *out is a new selector (an empty string gives
 * one that matches everything). On failure *out is NULL, err (if not NULL) carries apimachinery's
 * message and the byte position of the token where the problem was found, and the return is:
 *   VC_EPARSE  syntax or validation errors, e.g.
 *              "unable to parse requirement: found '', expected: in, notin, =, ==, !=, gt, lt",
 *              "found ',', expected: !, identifier, or 'end of string'",
 *              "unable to parse requirement: <nil>: Invalid value: \"a b\": name part must ...";
 *   VC_ENOMEM  out of memory.
 * Requirements end up sorted by key (stably), so String() is deterministic. Texts longer than a
 * struct vc_error holds are truncated there.
 */
int vc_selector_parse(const char *text, struct vc_selector **out,
		      struct vc_error *err) VC_WARN_UNUSED;

/*
 * Validate one requirement as labels.NewRequirement does and add it (Selector.Add keeps the
 * requirements sorted by key). values may be NULL when n is 0 (Go's nil slice, which prints as
 * "null" in messages; a non-NULL empty array prints "[]"). Adding to a Nothing selector does
 * nothing, as in Go. Returns 0; VC_EINVALID with the aggregate of the field errors in err, e.g.
 * "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"; or
 * VC_ENOMEM. On error the selector is unchanged.
 */
int vc_selector_add(struct vc_selector *s, const char *key, enum vc_selector_op op,
		    const char *const *values, size_t n, struct vc_error *err) VC_WARN_UNUSED;

/*
 * labels.SelectorFromSet: a selector requiring each label of `set` (a borrowed JSON object of
 * string values; NULL or empty gives Everything) to be present with exactly that value. Nothing
 * is validated. Returns 0 with a new *out, VC_EINVALID if a value is not a string, or VC_ENOMEM.
 */
int vc_selector_from_set(const json_t *set, struct vc_selector **out,
			 struct vc_error *err) VC_WARN_UNUSED;

/*
 * metav1.LabelSelectorAsSelector over a borrowed metav1.LabelSelector JSON object. NULL or JSON
 * null gives Nothing; an object with no matchLabels and no matchExpressions gives Everything.
 * matchLabels become `key=value` requirements, matchExpressions use the operators In, NotIn,
 * Exists and DoesNotExist. The first failure is reported as Go reports it:
 *   "\"Foo\" is not a valid label selector operator",
 *   "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
 *   "values: Invalid value: [\"a\"]: values set must be empty for exists and does not exist",
 *   "key: Invalid value: \"a b\": name part must consist of ...".
 * Returns 0 with a new *out, VC_EINVALID (also for JSON of the wrong shape), or VC_ENOMEM.
 */
int vc_label_selector_from_json(const json_t *label_selector, struct vc_selector **out,
				struct vc_error *err) VC_WARN_UNUSED;

/*
 * The scheduler's nodeSelectorRequirementsAsSelector over a borrowed JSON array of
 * v1.NodeSelectorRequirement ({key, operator, values}) with the operators In, NotIn, Exists,
 * DoesNotExist, Gt and Lt. An empty array (or NULL) gives Nothing. Every problem is appended to
 * errs as a field error under `path` (NULL is Go's nil path): "<path>[i].operator: Unsupported
 * value: \"Foo\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\",
 * \"Lt\"" and NewRequirement's errors ("<path>[i].values[0]: Invalid value: \"a\": for 'Gt', 'Lt'
 * operators, the value must be an integer"). Returns 0 with a new *out, VC_EINVALID (*out NULL,
 * errors appended), or VC_ENOMEM.
 */
int vc_node_selector_requirements(const json_t *requirements, const struct vc_field_path *path,
				  struct vc_selector **out,
				  struct vc_field_errors *errs) VC_WARN_UNUSED;

/*
 * Match a node against a borrowed v1.NodeSelector JSON object ({nodeSelectorTerms: [...]}) with
 * the semantics of component-helpers' LazyErrorNodeSelector.Match: the terms are ORed; a term
 * with neither matchExpressions nor matchFields matches nothing; matchFields supports only
 * `metadata.name` In / NotIn with one value and is skipped when node_name is NULL or empty; a
 * term that does not parse is skipped, and its errors are reported only when no term matched.
 * node_labels is a borrowed object of string values (NULL = no labels); path prefixes the error
 * paths (NULL gives "nodeSelectorTerms[0]..."). Returns 0 with *matched set, VC_EINVALID with
 * *matched false and the aggregate error text in err, or VC_ENOMEM.
 */
int vc_node_selector_match(const json_t *node_selector, const json_t *node_labels,
			   const char *node_name, const struct vc_field_path *path, bool *matched,
			   struct vc_error *err) VC_WARN_UNUSED;

/*
 * A pod's preferred node affinity (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution),
 * parsed for scoring with the semantics of component-helpers' PreferredSchedulingTerms: each
 * term's preference is matched as a required term is (vc_node_selector_match); a term of weight
 * 0 or with neither matchExpressions nor matchFields is left out. vc_node_prefs_new parses the
 * borrowed JSON array terms (NULL or empty: no terms), which must outlive *out. Returns 0 with a
 * new *out, VC_EINVALID (*out NULL) with the aggregate text of every term that does not parse, as
 * NewPreferredSchedulingTerms fails as a whole, or VC_ENOMEM.
 */
struct vc_node_prefs;
int vc_node_prefs_new(const json_t *terms, struct vc_node_prefs **out,
		      struct vc_error *err) VC_WARN_UNUSED;
void vc_node_prefs_free(struct vc_node_prefs *p);
/* Whether p (NULL allowed) has no term that can count. */
bool vc_node_prefs_empty(const struct vc_node_prefs *p);
/*
 * PreferredSchedulingTerms.Score: the sum of the weights of the terms that match a node with
 * these labels (borrowed object, NULL = none) and name (NULL or "": matchFields are not looked
 * at). 0 for a NULL p.
 */
int64_t vc_node_prefs_score(const struct vc_node_prefs *p, const json_t *node_labels,
			    const char *node_name);

/*
 * Selector.Matches: whether every requirement holds for `labels`, a borrowed JSON object whose
 * values are strings (NULL means no labels; a non-string value counts as an absent label).
 * Everything matches any labels; Nothing matches none.
 */
bool vc_selector_matches(const struct vc_selector *s, const json_t *labels);
/* Selector.Empty: true for a selector without requirements (Everything), false for Nothing. */
bool vc_selector_is_empty(const struct vc_selector *s);
/* True for a Nothing selector. */
bool vc_selector_is_nothing(const struct vc_selector *s);
/* The number of requirements, and the i-th one (borrowed from s; NULL when i is out of range). */
size_t vc_selector_count(const struct vc_selector *s);
const struct vc_requirement *vc_selector_get(const struct vc_selector *s, size_t i);
/*
 * Selector.RequiresExactMatch: whether the first requirement on `label` is =, == or in with a
 * single value; if so *value (if not NULL) points at it (borrowed from s).
 */
bool vc_selector_requires_exact_match(const struct vc_selector *s, const char *label,
				      const char **value);
/*
 * Append Selector.String() to out: the requirements in key order joined by ',', each as
 * "key=v", "key==v", "key!=v", "key in (a,b)", "key notin (a,b)", "key", "!key", "key>v" or
 * "key<v", with in/notin values sorted. Everything and Nothing both print "".
 */
int vc_selector_format(const struct vc_selector *s, struct vc_buf *out) VC_WARN_UNUSED;

#endif /* VC_SELECTOR_H */
