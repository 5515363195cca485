/*
 * vc_nodeaffinity.c - matching a node against a v1.NodeSelector (component-helpers
 * nodeaffinity): matchExpressions through the label selectors of vc_selector.c, matchFields on
 * metadata.name; and scoring a node by preferred scheduling terms with the same term matcher.
 */
#include "vc_selector.h"

#include "vc_alloc.h"
#include "vc_selector_internal.h"

struct field_term {
	const char *field;
	const char *value;
	bool neq;
};

/* One parsed v1.NodeSelectorTerm (nodeSelectorTerm): its strings are borrowed from the JSON. */
struct node_term {
	struct vc_selector *sel; /* matchExpressions, or NULL when it has none */
	struct field_term *ft;	 /* matchFields */
	size_t nf;
};

/* nodeSelectorRequirementsAsFieldSelector into terms[] (borrowed from reqs). */
static int node_field_terms(const json_t *reqs, const struct vc_field_path *path,
			    struct field_term *terms, struct vc_field_errors *errs)
{
	static const char *const valid_ops[] = { "In", "NotIn" };
	size_t i;
	int rc = 0;

	for (i = 0; i < json_array_size(reqs) && !rc; i++) {
		const json_t *expr = json_array_get(reqs, i);
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path vp = vc_field_path_child(&ip, "values");
		struct vc_field_path op_path = vc_field_path_child(&ip, "operator");
		const char *key, *op_name, **vals = NULL;
		size_t n = 0;

		key = json_is_object(expr) ? vc_sel_member_string(expr, "key") : NULL;
		op_name = json_is_object(expr) ? vc_sel_member_string(expr, "operator") : NULL;
		if (!key || !op_name) {
			rc = vc_field_invalid(errs, &ip, vc_fv_json(expr),
					      "must be a node selector requirement");
			continue;
		}
		if (strcmp(op_name, "In") && strcmp(op_name, "NotIn")) {
			rc = vc_field_not_supported(errs, &op_path, vc_fv_named_str(op_name),
						    valid_ops, VC_ARRAY_SIZE(valid_ops));
			continue;
		}
		rc = vc_sel_read_values(expr, &vals, &n);
		if (rc == VC_EINVALID) {
			rc = vc_field_invalid(errs, &vp,
					      vc_fv_json(json_object_get(expr, "values")),
					      "must be a list of strings");
			continue;
		}
		if (!rc && n != 1)
			rc = vc_field_invalid(errs, &vp, vc_fv_strings(vals, n),
					      "must have one element");
		else if (!rc) {
			terms[i].field = key;
			terms[i].value = vals[0];
			terms[i].neq = op_name[0] == 'N';
		}
		vc_free(vals);
	}
	return rc;
}

/* Whether a term has neither matchExpressions nor matchFields (it selects nothing). */
static bool node_term_empty(const json_t *term)
{
	return !json_array_size(json_object_get(term, "matchExpressions")) &&
	       !json_array_size(json_object_get(term, "matchFields"));
}

static void node_term_release(struct node_term *t)
{
	vc_selector_free(t->sel);
	vc_free(t->ft);
	t->sel = NULL;
	t->ft = NULL;
	t->nf = 0;
}

/*
 * newNodeSelectorTerm: parse a non-empty term at path into *out. Problems are appended to errs
 * (the term is then unusable: the caller checks whether errs grew). 0 or VC_ENOMEM.
 */
static int node_term_parse(const json_t *term, const struct vc_field_path *path,
			   struct node_term *out, struct vc_field_errors *errs)
{
	const json_t *me = json_object_get(term, "matchExpressions");
	const json_t *mf = json_object_get(term, "matchFields");
	struct vc_field_path mp = vc_field_path_child(path, "matchExpressions");
	struct vc_field_path fp = vc_field_path_child(path, "matchFields");
	int rc = 0;

	out->sel = NULL;
	out->ft = NULL;
	out->nf = json_array_size(mf);
	if (json_array_size(me)) {
		rc = vc_node_selector_requirements(me, &mp, &out->sel, errs);
		if (rc == VC_EINVALID)
			rc = 0;
	}
	if (!rc && out->nf) {
		if (!(out->ft = vc_calloc(out->nf, sizeof(*out->ft))))
			rc = VC_ENOMEM;
		else
			rc = node_field_terms(mf, &fp, out->ft, errs);
	}
	if (rc)
		node_term_release(out);
	return rc;
}

/* nodeSelectorTerm.match on a parsed term. */
static bool node_term_match(const struct node_term *t, const json_t *labels, const char *node_name)
{
	size_t j;

	if (t->sel && !vc_selector_matches(t->sel, labels))
		return false;
	/* Only metadata.name is a node field, and only when the name is set. */
	for (j = 0; j < t->nf && node_name && node_name[0]; j++) {
		const char *have = strcmp(t->ft[j].field, "metadata.name") ? "" : node_name;

		if (t->ft[j].neq == !strcmp(have, t->ft[j].value))
			return false;
	}
	return true;
}

int vc_node_selector_match(const json_t *ns, const json_t *labels, const char *node_name,
			   const struct vc_field_path *path, bool *matched, struct vc_error *err)
{
	struct vc_field_path tpath = vc_field_path_child(path, "nodeSelectorTerms");
	const json_t *terms = ns ? json_object_get(ns, "nodeSelectorTerms") : NULL;
	struct vc_field_errors errs;
	size_t i;
	int rc = 0;

	*matched = false;
	vc_field_errors_init(&errs);
	for (i = 0; i < json_array_size(terms) && !rc && !*matched; i++) {
		const json_t *term = json_array_get(terms, i);
		struct vc_field_path ip = vc_field_path_index(&tpath, (long)i);
		struct node_term t;
		size_t before = errs.len;

		if (node_term_empty(term))
			continue; /* an empty term selects nothing */
		rc = node_term_parse(term, &ip, &t, &errs);
		if (!rc && errs.len == before)
			*matched = node_term_match(&t, labels, node_name);
		if (!rc)
			node_term_release(&t);
	}
	if (rc) {
		vc_field_errors_release(&errs);
		return vc_error_set(err, rc, "out of memory");
	}
	if (!*matched && errs.len) {
		rc = vc_sel_errors_to_error(&errs, err);
		if (rc == VC_ENOMEM)
			vc_error_set(err, rc, "out of memory");
	}
	vc_field_errors_release(&errs);
	return rc;
}

/* ---- preferred scheduling terms ---------------------------------------------------------- */

struct vc_node_prefs {
	size_t n;
	struct {
		struct node_term term;
		int64_t weight;
	} terms[];
};

void vc_node_prefs_free(struct vc_node_prefs *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		node_term_release(&p->terms[i].term);
	vc_free(p);
}

int vc_node_prefs_new(const json_t *terms, struct vc_node_prefs **out, struct vc_error *err)
{
	struct vc_field_errors errs;
	struct vc_node_prefs *p;
	size_t i, n = json_array_size(terms);
	int rc = 0;

	*out = NULL;
	p = vc_malloc(sizeof(*p) + n * sizeof(p->terms[0]));
	if (!p)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	p->n = 0;
	vc_field_errors_init(&errs);
	for (i = 0; i < n && !rc; i++) {
		const json_t *pt = json_array_get(terms, i),
			     *pref = json_object_get(pt, "preference");
		json_int_t w = json_integer_value(json_object_get(pt, "weight"));
		struct vc_field_path ip = vc_field_path_index(NULL, (long)i);
		struct vc_field_path pp = vc_field_path_child(&ip, "preference");
		size_t before = errs.len;

		/* A term of weight 0 or with an empty preference counts for nothing. */
		if (w == 0 || node_term_empty(pref))
			continue;
		rc = node_term_parse(pref, &pp, &p->terms[p->n].term, &errs);
		if (rc)
			break;
		if (errs.len != before) {
			node_term_release(&p->terms[p->n].term);
			continue;
		}
		p->terms[p->n++].weight = (int64_t)w;
	}
	if (!rc && errs.len)
		rc = vc_sel_errors_to_error(&errs, err);
	vc_field_errors_release(&errs);
	if (rc) {
		if (rc == VC_ENOMEM)
			vc_error_set(err, rc, "out of memory");
		vc_node_prefs_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

bool vc_node_prefs_empty(const struct vc_node_prefs *p)
{
	return !p || p->n == 0;
}

int64_t vc_node_prefs_score(const struct vc_node_prefs *p, const json_t *labels,
			    const char *node_name)
{
	int64_t score = 0;
	size_t i;

	for (i = 0; p && i < p->n; i++)
		if (node_term_match(&p->terms[i].term, labels, node_name))
			score += p->terms[i].weight;
	return score;
}
