/*
 * vc_nodeaffinity.c - matching a node against a v1.NodeSelector (component-helpers
 * nodeaffinity): matchExpressions through the label selectors of vc_selector.c, matchFields on
 * metadata.name.
 */
#include "vc_selector.h"

#include "vc_alloc.h"
#include "vc_selector_internal.h"

struct field_term {
	const char *field;
	const char *value;
	bool neq;
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
		const json_t *me = json_object_get(term, "matchExpressions");
		const json_t *mf = json_object_get(term, "matchFields");
		struct vc_field_path ip = vc_field_path_index(&tpath, (long)i);
		struct vc_field_path mp = vc_field_path_child(&ip, "matchExpressions");
		struct vc_field_path fp = vc_field_path_child(&ip, "matchFields");
		struct vc_selector *sel = NULL;
		struct field_term *ft = NULL;
		size_t nf = json_array_size(mf), before = errs.len, j;
		bool ok = true;

		if (!json_array_size(me) && !nf)
			continue; /* an empty term selects nothing */
		if (json_array_size(me)) {
			rc = vc_node_selector_requirements(me, &mp, &sel, &errs);
			if (rc == VC_EINVALID)
				rc = 0;
		}
		if (!rc && nf) {
			if (!(ft = vc_calloc(nf, sizeof(*ft))))
				rc = VC_ENOMEM;
			else
				rc = node_field_terms(mf, &fp, ft, &errs);
		}
		if (!rc && errs.len == before) {
			if (sel && !vc_selector_matches(sel, labels))
				ok = false;
			/* Only metadata.name is a node field, and only when the name is set. */
			for (j = 0; ok && j < nf && node_name && node_name[0]; j++) {
				const char *have =
					strcmp(ft[j].field, "metadata.name") ? "" : node_name;

				ok = ft[j].neq != !strcmp(have, ft[j].value);
			}
			*matched = ok;
		}
		vc_selector_free(sel);
		vc_free(ft);
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
