/*
 * sched_podaff.c - the session's index of pods by topology domain: Kubernetes' InterPodAffinity
 * and PodTopologySpread filters and scores as Volcano's predicates and nodeorder plugins run
 * them (docs/volcano/scheduler.md §4.7, §4.8). Our own code after Kubernetes' semantics
 * (pkg/scheduler/framework/plugins/interpodaffinity and podtopologyspread; the newer spread
 * fields minDomains, nodeAffinityPolicy and nodeTaintsPolicy as Kubernetes defines them).
 */
#include "sched_podaff.h"

#include <math.h>

#include "sched_internal.h"
#include "sched_objects.h"
#include "sched_session.h"
#include "vc_alloc.h"
#include "vc_hash.h"
#include "vc_selector.h"

#define DOM_NONE       UINT32_MAX
#define MAX_NODE_SCORE 100
#define LABEL_HOSTNAME "kubernetes.io/hostname"
#define LABEL_ZONE     "topology.kubernetes.io/zone"

/* A topology key and every node's domain (label value) under it, numbered. */
struct pa_key {
	const char *name; /* borrowed from a term */
	uint32_t *dom;	  /* nnodes: the node's domain, DOM_NONE without the label */
	uint32_t ndom;
};

enum {
	PA_REQ_AFF,
	PA_REQ_ANTI,
	PA_PREF_AFF,
	PA_PREF_ANTI,
	PA_KINDS
};

/* One (weighted) pod affinity term of a spec. */
struct pa_term {
	struct vc_selector *sel;  /* labelSelector (absent or invalid: matches nothing) */
	uint32_t key;		  /* in pa->keys */
	const json_t *namespaces; /* borrowed array of names, or NULL */
	struct vc_selector *nsel; /* a namespaceSelector with requirements, or NULL */
	bool all_ns;		  /* namespaceSelector {}: every namespace */
	bool own_ns;		  /* neither namespaces nor namespaceSelector: the pod's own */
	int32_t weight;		  /* preferred terms */
	int32_t *cnt;		  /* ndom: counted pods matching the term (incoming side) */
	int32_t *mem;		  /* ndom: this spec's counted members (existing side) */
};

/* One topology spread constraint of a spec. */
struct pa_spread {
	struct vc_selector *sel;
	uint32_t key;
	int32_t max_skew;
	int32_t min_domains; /* 0 when unset */
	bool hard;	     /* DoNotSchedule; else ScheduleAnyway */
	bool honor_affinity; /* nodeAffinityPolicy Honor (the default) */
	bool honor_taints;   /* nodeTaintsPolicy Honor (default Ignore) */
	int32_t *node_cnt;   /* nnodes: counted pods on the node matching (same namespace) */
	int32_t *dom_cnt;    /* ndom: the same summed over the nodes with every key (allkeys) */
	int32_t *dom_nodes;  /* ndom: how many nodes with every key are in the domain */
	/*
	 * The last labels object matched against sel and the answer: a task's pods share theirs,
	 * and the session counts them one after another (the labels live as long as the session).
	 */
	const json_t *memo_labels;
	bool memo_valid, memo_match;
};

/* Pods of one namespace with equal inter-pod terms. */
struct pa_spec {
	const json_t *paff, *panti, *tsc; /* borrowed: the terms' subtrees (the map key) */
	const char *ns;			  /* borrowed */
	/*
	 * The pod's labels (borrowed) when a term or constraint has matchLabelKeys or
	 * mismatchLabelKeys: its selectors then depend on them, and they are part of the key.
	 */
	const json_t *labels;
	json_t *own_tsc; /* the system default constraints made for the spec (tsc), or NULL */
	bool sysdef;	 /* tsc are the system default constraints */
	uint64_t hash;
	struct pa_term *terms[PA_KINDS];
	size_t nterms[PA_KINDS];
	struct pa_spread *spread;
	size_t nspread, nhard;
	uint8_t *allkeys;      /* nnodes: bit 1 the node has every hard key, bit 2 every soft key */
	bool counted;	       /* the incoming side (cnt, node_cnt, dom_cnt) is filled and kept */
	int64_t req_aff_total; /* Σ of the required affinity terms' cnt */
	int32_t members;       /* counted pods of this spec */
};

/* An existing pods' term that matches the prepared task. */
struct pa_sym {
	const struct pa_term *term;
	int kind;
};

/* The prepared task's spread state for one constraint. */
struct pa_prep_spread {
	const int32_t *cnt; /* ndom: matching pods per eligible domain */
	int32_t *own;	    /* cnt when it had to be computed for this task (owned) */
	int32_t min;	    /* the global minimum (minDomains applied) */
	bool self;	    /* the task matches the selector itself */
};

struct sched_podaff {
	struct sched_session *ssn;
	struct pa_key *keys;
	size_t nkeys, keys_cap;
	struct pa_spec **specs;
	size_t nspecs, specs_cap;
	struct vc_hmap spec_map;
	struct pa_spec **spec_of; /* ssn->ntasks */
	uint32_t *where;	  /* ssn->ntasks: the node it is counted on, or SCHED_NONE */
	uint64_t epoch;		  /* bumped by every update */
	/* The task the filter and score state below is for. */
	const struct sched_ssn_task *prep;
	uint64_t prep_epoch;
	struct pa_sym *sym;
	size_t nsym, sym_cap;
	struct pa_prep_spread *ps; /* one per spread constraint of prep's spec */
	size_t nps;
	bool prep_selects;	  /* prep has a nodeSelector or required node affinity */
	struct vc_hmap ns_labels; /* namespace name (borrowed) -> its labels (new ref) or NULL */
	/* The last pod without terms the default selector was asked for: its answer. */
	bool dsel_valid;
	const json_t *dsel_labels, *dsel_owner;
	const char *dsel_ns;
	struct pa_spec *dsel_spec;
	/* Scratch for scores. */
	double *raw;
	uint32_t *mark;
	size_t mark_cap;
};

/* ---- pods and terms ---------------------------------------------------------------------------
 */

static const json_t *pod_spec(const struct sched_task_info *t)
{
	return t->pod ? json_object_get(t->pod->obj, "spec") : NULL;
}

static const json_t *pod_owners(const struct sched_task_info *t)
{
	return t->pod ? t->pod->meta.owner_references : NULL;
}

static const json_t *pod_labels(const struct sched_task_info *t)
{
	return t->pod ? t->pod->meta.labels : NULL;
}

static bool terminating(const struct sched_task_info *t)
{
	return t->pod && t->pod->meta.deletion_timestamp;
}

/* The terms' subtrees of a pod spec; false when it has none. */
static bool spec_terms(const json_t *spec, const json_t **paff, const json_t **panti,
		       const json_t **tsc)
{
	const json_t *aff = json_object_get(spec, "affinity");

	*paff = json_object_get(aff, "podAffinity");
	*panti = json_object_get(aff, "podAntiAffinity");
	*tsc = json_object_get(spec, "topologySpreadConstraints");
	if (json_is_null(*paff))
		*paff = NULL;
	if (json_is_null(*panti))
		*panti = NULL;
	if (json_array_size(*tsc) == 0)
		*tsc = NULL;
	return *paff || *panti || *tsc;
}

/*
 * The labels of namespace ns, looked up once per session (NULL: none, or unknown; a failed
 * lookup for lack of memory is not remembered).
 */
static const json_t *ns_labels(struct sched_podaff *pa, const char *ns)
{
	json_t *labels;
	void *found;

	if (vc_hmap_lookup(&pa->ns_labels, ns, &found))
		return found;
	labels = sched_objects_ns_labels(pa->ssn->snap->objs, ns);
	if (vc_hmap_put(&pa->ns_labels, ns, labels, NULL) < 0) {
		json_decref(labels); /* still borrowed by nobody: look it up again next time */
		return NULL;
	}
	return labels;
}

/*
 * schedutil.PodMatchesTermsNamespaceAndSelector, the term's owner in namespace spec_ns: the
 * namespaces of the term are its namespaces list and those its namespaceSelector selects
 * (Kubernetes 1.21+, docs/volcano/scheduler.md §4.7).
 */
static bool term_matches(struct sched_podaff *pa, const struct pa_term *term, const char *spec_ns,
			 const struct sched_task_info *x)
{
	if (!term->all_ns) {
		bool in = false;
		size_t i;

		if (term->own_ns) {
			in = strcmp(x->ns, spec_ns) == 0;
		} else {
			for (i = 0; i < json_array_size(term->namespaces) && !in; i++) {
				const char *ns =
					json_string_value(json_array_get(term->namespaces, i));

				in = ns && strcmp(ns, x->ns) == 0;
			}
			if (!in && term->nsel)
				in = vc_selector_matches(term->nsel, ns_labels(pa, x->ns));
		}
		if (!in)
			return false;
	}
	return vc_selector_matches(term->sel, pod_labels(x));
}

/* The key's index, made (with every node's domain) on first use. SCHED_NONE on VC_ENOMEM. */
static uint32_t key_of(struct sched_podaff *pa, const char *name)
{
	struct sched_session *ssn = pa->ssn;
	struct pa_key *k;
	struct vc_hmap vals;
	size_t i;

	for (i = 0; i < pa->nkeys; i++)
		if (strcmp(pa->keys[i].name, name) == 0)
			return (uint32_t)i;
	if (pa->nkeys == pa->keys_cap) {
		size_t ncap = pa->keys_cap ? pa->keys_cap * 2 : 4;
		struct pa_key *p = vc_realloc(pa->keys, ncap * sizeof(*p));

		if (!p)
			return SCHED_NONE;
		pa->keys = p;
		pa->keys_cap = ncap;
	}
	k = &pa->keys[pa->nkeys];
	k->name = name;
	k->ndom = 0;
	k->dom = vc_malloc((ssn->nnodes + 1) * sizeof(*k->dom));
	if (!k->dom)
		return SCHED_NONE;
	vc_hmap_init_str(&vals);
	for (i = 0; i < ssn->nnodes; i++) {
		const char *v = json_string_value(json_object_get(ssn->nodes[i].n->labels, name));
		void *id;

		k->dom[i] = DOM_NONE;
		if (!v)
			continue;
		if (vc_hmap_lookup(&vals, v, &id)) {
			k->dom[i] = (uint32_t)(uintptr_t)id;
			continue;
		}
		if (vc_hmap_put(&vals, v, (void *)(uintptr_t)k->ndom, NULL) < 0) {
			vc_hmap_release(&vals, NULL);
			vc_free(k->dom);
			return SCHED_NONE;
		}
		k->dom[i] = k->ndom++;
	}
	vc_hmap_release(&vals, NULL);
	return (uint32_t)pa->nkeys++;
}

/*
 * Add to sel, for each key of the array keys that the pod's labels have, the requirement
 * `key in (value)` (match) or `key notin (value)` (mismatch). 0 or VC_ENOMEM; a requirement
 * Kubernetes would refuse adds nothing.
 */
static int add_label_keys(struct vc_selector *sel, const json_t *keys, const json_t *labels,
			  bool match)
{
	size_t i;

	for (i = 0; i < json_array_size(keys); i++) {
		const char *k = json_string_value(json_array_get(keys, i));
		const char *v = k ? json_string_value(json_object_get(labels, k)) : NULL;

		if (v && vc_selector_add(sel, k, match ? VC_SEL_IN : VC_SEL_NOT_IN, &v, 1, NULL) ==
				 VC_ENOMEM)
			return VC_ENOMEM;
	}
	return 0;
}

/*
 * A label selector of the API (absent or invalid: nothing matches, as Kubernetes' parse error),
 * with the incoming pod's values of matchLabelKeys and mismatchLabelKeys merged in when labels is
 * not NULL: pod affinity terms (Kubernetes 1.29+: ignored without a labelSelector) and, for
 * spread constraints (tsc true; Kubernetes 1.25+), the labels alone when there is no selector.
 */
static int selector_of(const json_t *obj, const json_t *labels, bool tsc, struct vc_selector **out)
{
	const json_t *ls = json_object_get(obj, "labelSelector");
	const json_t *mk = json_object_get(obj, "matchLabelKeys");
	int rc = vc_label_selector_from_json(ls, out, NULL);

	if (rc == VC_ENOMEM)
		return rc;
	if (rc < 0) {
		*out = vc_selector_new_nothing();
		return *out ? 0 : VC_ENOMEM;
	}
	if (!labels)
		return 0;
	if (tsc && (!ls || json_is_null(ls))) {
		/* mergeLabelSetWithSelector over a nil selector: the matched labels alone. */
		struct vc_selector *set = vc_selector_new_everything();

		if (!set || add_label_keys(set, mk, labels, true) < 0) {
			vc_selector_free(set);
			return VC_ENOMEM;
		}
		if (vc_selector_count(set) == 0) { /* no key matched: nothing, as before */
			vc_selector_free(set);
			return 0;
		}
		vc_selector_free(*out);
		*out = set;
		return 0;
	}
	if (add_label_keys(*out, mk, labels, true) < 0)
		return VC_ENOMEM;
	if (!tsc &&
	    add_label_keys(*out, json_object_get(obj, "mismatchLabelKeys"), labels, false) < 0)
		return VC_ENOMEM;
	return 0;
}

static int parse_term(struct sched_podaff *pa, const struct pa_spec *s, const json_t *t,
		      int32_t weight, struct pa_term *out)
{
	const json_t *nss = json_object_get(t, "namespaces"), *nsel;
	const char *key = json_string_value(json_object_get(t, "topologyKey"));
	uint32_t k;

	memset(out, 0, sizeof(*out));
	out->weight = weight;
	if (selector_of(t, s->labels, false, &out->sel) < 0)
		return VC_ENOMEM;
	nsel = json_object_get(t, "namespaceSelector");
	if (json_is_null(nsel))
		nsel = NULL;
	/*
	 * namespaces and namespaceSelector (Kubernetes 1.21+): both empty means the pod's own
	 * namespace; a namespaceSelector without requirements selects every namespace; one with
	 * requirements adds the namespaces whose labels it matches to the namespaces list.
	 */
	out->namespaces = json_array_size(nss) ? nss : NULL;
	out->own_ns = !out->namespaces && !nsel;
	if (nsel) {
		int rc = vc_label_selector_from_json(nsel, &out->nsel, NULL);

		if (rc == VC_ENOMEM)
			return rc;
		if (rc == 0 && vc_selector_count(out->nsel) == 0) {
			out->all_ns = true;
		}
		if (rc < 0 || out->all_ns) { /* invalid: selects no namespace */
			vc_selector_free(out->nsel);
			out->nsel = NULL;
		}
	}
	k = key_of(pa, key ? key : "");
	if (k == SCHED_NONE)
		return VC_ENOMEM;
	out->key = k;
	out->mem = vc_calloc(pa->keys[k].ndom + 1, sizeof(*out->mem));
	out->cnt = vc_calloc(pa->keys[k].ndom + 1, sizeof(*out->cnt));
	return out->mem && out->cnt ? 0 : VC_ENOMEM;
}

/* The terms of one list: required (PodAffinityTerm) or preferred (WeightedPodAffinityTerm). */
static int parse_terms(struct sched_podaff *pa, const json_t *list, bool preferred,
		       struct pa_spec *s, int kind)
{
	size_t i, n = json_array_size(list);
	int rc;

	if (n == 0)
		return 0;
	s->terms[kind] = vc_calloc(n, sizeof(struct pa_term));
	if (!s->terms[kind])
		return VC_ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(list, i);

		rc = preferred
			     ? parse_term(pa, s, json_object_get(e, "podAffinityTerm"),
					  (int32_t)json_integer_value(json_object_get(e, "weight")),
					  &s->terms[kind][s->nterms[kind]])
			     : parse_term(pa, s, e, 0, &s->terms[kind][s->nterms[kind]]);
		s->nterms[kind]++;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool str_is(const json_t *obj, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(obj, key));

	return v && strcmp(v, want) == 0;
}

static int parse_spread(struct sched_podaff *pa, struct pa_spec *s)
{
	struct sched_session *ssn = pa->ssn;
	size_t i, n = json_array_size(s->tsc), node;

	if (n == 0)
		return 0;
	s->spread = vc_calloc(n, sizeof(*s->spread));
	s->allkeys = vc_malloc(ssn->nnodes + 1);
	if (!s->spread || !s->allkeys)
		return VC_ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *c = json_array_get(s->tsc, i);
		struct pa_spread *sp = &s->spread[s->nspread++];
		const char *key = json_string_value(json_object_get(c, "topologyKey"));
		uint32_t ndom;

		if (selector_of(c, s->labels, true, &sp->sel) < 0)
			return VC_ENOMEM;
		sp->key = key_of(pa, key ? key : "");
		if (sp->key == SCHED_NONE)
			return VC_ENOMEM;
		sp->max_skew = (int32_t)json_integer_value(json_object_get(c, "maxSkew"));
		sp->min_domains = (int32_t)json_integer_value(json_object_get(c, "minDomains"));
		sp->hard = !str_is(c, "whenUnsatisfiable", "ScheduleAnyway");
		sp->honor_affinity = !str_is(c, "nodeAffinityPolicy", "Ignore");
		sp->honor_taints = str_is(c, "nodeTaintsPolicy", "Honor");
		s->nhard += sp->hard;
		ndom = pa->keys[sp->key].ndom;
		sp->node_cnt = vc_calloc(ssn->nnodes + 1, sizeof(*sp->node_cnt));
		sp->dom_cnt = vc_calloc(ndom + 1, sizeof(*sp->dom_cnt));
		sp->dom_nodes = vc_calloc(ndom + 1, sizeof(*sp->dom_nodes));
		if (!sp->node_cnt || !sp->dom_cnt || !sp->dom_nodes)
			return VC_ENOMEM;
	}
	/* nodeLabelsMatchSpreadConstraints: the nodes that have every key of the kind. */
	for (node = 0; node < ssn->nnodes; node++) {
		uint8_t bits = 3;

		/*
		 * The system defaults do not require every key (Kubernetes' requireAllTopologies):
		 * a node without a zone label is still spread over by hostname.
		 */
		for (i = 0; i < s->nspread && !s->sysdef; i++)
			if (pa->keys[s->spread[i].key].dom[node] == DOM_NONE)
				bits &= (uint8_t) ~(s->spread[i].hard ? 1 : 2);
		s->allkeys[node] = bits;
		for (i = 0; i < s->nspread; i++) {
			uint32_t d = pa->keys[s->spread[i].key].dom[node];

			if ((bits & (s->spread[i].hard ? 1 : 2)) && d != DOM_NONE)
				s->spread[i].dom_nodes[d]++;
		}
	}
	return 0;
}

static void spec_free(struct pa_spec *s)
{
	size_t k, i;

	if (!s)
		return;
	for (k = 0; k < PA_KINDS; k++) {
		for (i = 0; i < s->nterms[k]; i++) {
			vc_selector_free(s->terms[k][i].sel);
			vc_selector_free(s->terms[k][i].nsel);
			vc_free(s->terms[k][i].cnt);
			vc_free(s->terms[k][i].mem);
		}
		vc_free(s->terms[k]);
	}
	for (i = 0; i < s->nspread; i++) {
		vc_selector_free(s->spread[i].sel);
		vc_free(s->spread[i].node_cnt);
		vc_free(s->spread[i].dom_cnt);
		vc_free(s->spread[i].dom_nodes);
	}
	vc_free(s->spread);
	vc_free(s->allkeys);
	json_decref(s->own_tsc);
	vc_free(s);
}

static uint64_t spec_hash(const void *key)
{
	return ((const struct pa_spec *)key)->hash;
}

static bool spec_eq(const void *stored, const void *key)
{
	const struct pa_spec *a = stored, *b = key;

	return a->sysdef == b->sysdef && strcmp(a->ns, b->ns) == 0 &&
	       sched_json_same(a->paff, b->paff) && sched_json_same(a->panti, b->panti) &&
	       sched_json_same(a->tsc, b->tsc) && sched_json_same(a->labels, b->labels);
}

/* Whether an array of terms (or weighted terms) has matchLabelKeys or mismatchLabelKeys. */
static bool terms_use_label_keys(const json_t *list)
{
	const json_t *e, *t;
	size_t i;

	json_array_foreach (list, i, e) {
		t = json_object_get(e, "podAffinityTerm");
		if (!t)
			t = e;
		if (json_array_size(json_object_get(t, "matchLabelKeys")) ||
		    json_array_size(json_object_get(t, "mismatchLabelKeys")))
			return true;
	}
	return false;
}

static bool uses_label_keys(const json_t *paff, const json_t *panti, const json_t *tsc)
{
	static const char *const lists[] = { "requiredDuringSchedulingIgnoredDuringExecution",
					     "preferredDuringSchedulingIgnoredDuringExecution" };
	size_t i;

	for (i = 0; i < 2; i++)
		if (terms_use_label_keys(json_object_get(paff, lists[i])) ||
		    terms_use_label_keys(json_object_get(panti, lists[i])))
			return true;
	return terms_use_label_keys(tsc);
}

/*
 * Kubernetes' system default spread constraints (PodTopologySpread's defaultingType System,
 * which Volcano's predicates and nodeorder plugins pass, docs/volcano/scheduler.md §4.8) for a
 * pending pod t with no constraints of its own: ScheduleAnyway, maxSkew 3 over the hostname and 5
 * over the zone, with the selector of the Services and controller that select the pod. *out is a
 * new array, or NULL when that selector is empty. 0 or VC_ENOMEM.
 */
static int default_tsc(struct sched_podaff *pa, const struct sched_task_info *t, json_t **out)
{
	const struct sched_objects *o = pa->ssn->snap->objs;
	json_t *sel = NULL;
	int rc;

	*out = NULL;
	if (!o || !t->pod)
		return 0;
	rc = sched_objects_default_selector(o, t->ns, pod_labels(t), pod_owners(t), &sel);
	if (rc < 0 || !sel)
		return rc;
	*out = json_pack("[{s:i,s:s,s:s,s:O},{s:i,s:s,s:s,s:O}]", "maxSkew", 3, "topologyKey",
			 LABEL_HOSTNAME, "whenUnsatisfiable", "ScheduleAnyway", "labelSelector",
			 sel, "maxSkew", 5, "topologyKey", LABEL_ZONE, "whenUnsatisfiable",
			 "ScheduleAnyway", "labelSelector", sel);
	json_decref(sel);
	return *out ? 0 : VC_ENOMEM;
}

/*
 * The spec of probe's terms (made on first sight; probe->own_tsc is then the spec's, else
 * dropped), or NULL with *rc = VC_ENOMEM.
 */
static struct pa_spec *spec_intern(struct sched_podaff *pa, struct pa_spec *probe, int *rc)
{
	struct pa_spec *s;
	void *found;

	probe->hash =
		vc_hash_mix64(sched_json_hash(probe->paff, 0) * 3 ^
			      sched_json_hash(probe->panti, 0) * 5 ^
			      sched_json_hash(probe->tsc, 0) * 7 ^
			      sched_json_hash(probe->labels, 0) * 11 ^ vc_fnv1a64(probe->ns)) +
		probe->sysdef;
	*rc = 0;
	if (vc_hmap_lookup(&pa->spec_map, probe, &found)) {
		json_decref(probe->own_tsc);
		return found;
	}
	*rc = VC_ENOMEM;
	if (pa->nspecs == pa->specs_cap) {
		size_t ncap = pa->specs_cap ? pa->specs_cap * 2 : 8;
		struct pa_spec **p = vc_realloc(pa->specs, ncap * sizeof(struct pa_spec *));

		if (!p) {
			json_decref(probe->own_tsc);
			return NULL;
		}
		pa->specs = p;
		pa->specs_cap = ncap;
	}
	s = vc_malloc(sizeof(*s));
	if (!s) {
		json_decref(probe->own_tsc);
		return NULL;
	}
	*s = *probe;
	if (parse_terms(pa,
			json_object_get(s->paff, "requiredDuringSchedulingIgnoredDuringExecution"),
			false, s, PA_REQ_AFF) < 0 ||
	    parse_terms(pa,
			json_object_get(s->panti, "requiredDuringSchedulingIgnoredDuringExecution"),
			false, s, PA_REQ_ANTI) < 0 ||
	    parse_terms(pa,
			json_object_get(s->paff, "preferredDuringSchedulingIgnoredDuringExecution"),
			true, s, PA_PREF_AFF) < 0 ||
	    parse_terms(
		    pa,
		    json_object_get(s->panti, "preferredDuringSchedulingIgnoredDuringExecution"),
		    true, s, PA_PREF_ANTI) < 0 ||
	    parse_spread(pa, s) < 0 || vc_hmap_put(&pa->spec_map, s, s, NULL) < 0) {
		spec_free(s);
		return NULL;
	}
	pa->specs[pa->nspecs++] = s;
	*rc = 0;
	return s;
}

/*
 * The spec of a pod with terms, or NULL (also with *rc = VC_ENOMEM). An incoming pod (pending, of
 * the session) without constraints of its own gets the system default ones when some Service or
 * controller selects it.
 */
static struct pa_spec *spec_get(struct sched_podaff *pa, const struct sched_task_info *t,
				bool incoming, int *rc)
{
	struct pa_spec probe = { 0 }, *s;
	const json_t *owner = NULL;
	bool plain;

	*rc = 0;
	plain = !spec_terms(pod_spec(t), &probe.paff, &probe.panti, &probe.tsc);
	probe.ns = t->ns;
	if (!probe.tsc && incoming && pa->ssn->snap->objs) {
		sched_objects_selecting_owner(pod_owners(t), &owner);
		/* A task's pods share their labels and owner: ask once for a run of them. */
		if (plain && pa->dsel_valid && pa->dsel_labels == pod_labels(t) &&
		    strcmp(pa->dsel_ns, t->ns) == 0 && sched_json_same(pa->dsel_owner, owner))
			return pa->dsel_spec;
		*rc = default_tsc(pa, t, &probe.own_tsc);
		if (*rc < 0)
			return NULL;
		probe.tsc = probe.own_tsc;
		probe.sysdef = probe.tsc != NULL;
	}
	if (!probe.paff && !probe.panti && !probe.tsc) {
		s = NULL;
	} else {
		if (uses_label_keys(probe.paff, probe.panti, probe.sysdef ? NULL : probe.tsc))
			probe.labels = pod_labels(t);
		s = spec_intern(pa, &probe, rc);
		if (!s)
			return NULL;
	}
	if (plain && incoming && pa->ssn->snap->objs) {
		pa->dsel_valid = true;
		pa->dsel_labels = pod_labels(t);
		pa->dsel_ns = t->ns;
		pa->dsel_owner = owner;
		pa->dsel_spec = s;
	}
	return s;
}

/* ---- counting ----------------------------------------------------------------------------------
 */

static inline uint32_t dom_at(const struct sched_podaff *pa, uint32_t key, uint32_t node)
{
	return pa->keys[key].dom[node];
}

/* Count pod x on node (delta ±1) in s's incoming side. */
static void count_incoming(struct sched_podaff *pa, struct pa_spec *s,
			   const struct sched_task_info *x, uint32_t node, int32_t delta)
{
	size_t k, i;
	uint32_t d;

	if (s->nterms[PA_REQ_AFF]) {
		bool all = true;

		/* podMatchesAllAffinityTerms: one pod counts for every term or for none. */
		for (i = 0; i < s->nterms[PA_REQ_AFF] && all; i++)
			all = term_matches(pa, &s->terms[PA_REQ_AFF][i], s->ns, x);
		for (i = 0; i < s->nterms[PA_REQ_AFF] && all; i++) {
			d = dom_at(pa, s->terms[PA_REQ_AFF][i].key, node);
			if (d != DOM_NONE) {
				s->terms[PA_REQ_AFF][i].cnt[d] += delta;
				s->req_aff_total += delta;
			}
		}
	}
	for (k = PA_REQ_ANTI; k < PA_KINDS; k++) {
		for (i = 0; i < s->nterms[k]; i++) {
			struct pa_term *term = &s->terms[k][i];

			d = dom_at(pa, term->key, node);
			if (d != DOM_NONE && term_matches(pa, term, s->ns, x))
				term->cnt[d] += delta;
		}
	}
	/* countPodsMatchSelector: same namespace, not being deleted. */
	if (!s->nspread || terminating(x) || strcmp(x->ns, s->ns) != 0)
		return;
	for (i = 0; i < s->nspread; i++) {
		struct pa_spread *sp = &s->spread[i];
		const json_t *labels = pod_labels(x);

		if (!sp->memo_valid || sp->memo_labels != labels) {
			sp->memo_match = vc_selector_matches(sp->sel, labels);
			sp->memo_labels = labels;
			sp->memo_valid = true;
		}
		if (!sp->memo_match)
			continue;
		sp->node_cnt[node] += delta;
		d = dom_at(pa, sp->key, node);
		if ((s->allkeys[node] & (sp->hard ? 1 : 2)) && d != DOM_NONE)
			sp->dom_cnt[d] += delta;
	}
}

/* Count pod x (of spec s) on node in s's existing side. */
static void count_member(struct sched_podaff *pa, struct pa_spec *s, uint32_t node, int32_t delta)
{
	size_t k, i;

	for (k = PA_REQ_ANTI; k < PA_KINDS; k++) {
		for (i = 0; i < s->nterms[k]; i++) {
			uint32_t d = dom_at(pa, s->terms[k][i].key, node);

			if (d != DOM_NONE)
				s->terms[k][i].mem[d] += delta;
		}
	}
	s->members += delta;
}

static bool counted_on(const struct sched_podaff *pa, const struct sched_task_info *x,
		       uint32_t node)
{
	return !x->ssn || pa->where[x->ssn->index] == node;
}

/* Fill s's incoming side from every counted pod (once; updates keep it after). */
static void count_spec(struct sched_podaff *pa, struct pa_spec *s)
{
	size_t i, k;

	if (s->counted)
		return;
	for (i = 0; i < pa->ssn->nnodes; i++) {
		const struct sched_node_info *n = pa->ssn->nodes[i].n;

		for (k = 0; k < n->ntasks; k++)
			if (counted_on(pa, n->tasks[k], (uint32_t)i))
				count_incoming(pa, s, n->tasks[k], (uint32_t)i, 1);
	}
	s->counted = true;
}

void sched_podaff_update(struct sched_podaff *pa, const struct sched_ssn_task *t, bool placed)
{
	uint32_t node;
	int32_t delta;
	size_t i;

	if (placed) {
		if (pa->where[t->index] != SCHED_NONE || t->node == SCHED_NONE)
			return;
		node = pa->where[t->index] = t->node;
		delta = 1;
	} else {
		if (pa->where[t->index] == SCHED_NONE)
			return;
		node = pa->where[t->index];
		pa->where[t->index] = SCHED_NONE;
		delta = -1;
	}
	for (i = 0; i < pa->nspecs; i++)
		if (pa->specs[i]->counted)
			count_incoming(pa, pa->specs[i], t->t, node, delta);
	if (pa->spec_of[t->index])
		count_member(pa, pa->spec_of[t->index], node, delta);
	pa->epoch++;
}

/* ---- the index --------------------------------------------------------------------------------
 */

static bool any_terms(const struct sched_session *ssn)
{
	const json_t *a, *b, *c, *last = NULL;
	size_t i, k;

	for (i = 0; i < ssn->ntasks; i++) {
		const json_t *spec = pod_spec(ssn->tasks[i].t);

		/* A task's pods mostly share their spec: look at each one once in a row. */
		if (!spec || spec == last)
			continue;
		last = spec;
		if (spec_terms(spec, &a, &b, &c))
			return true;
	}
	for (i = 0; i < ssn->nnodes; i++) {
		const struct sched_node_info *n = ssn->nodes[i].n;

		for (k = 0; k < n->ntasks; k++)
			if (!n->tasks[k]->ssn && spec_terms(pod_spec(n->tasks[k]), &a, &b, &c))
				return true;
	}
	return false;
}

/*
 * Whether some pending task may get the system default spread constraints: it has a controller
 * DefaultSelector reads, or a Service exists in its namespace. Without either (a Volcano Job's
 * pods in a namespace without Services) Kubernetes finds no selector either.
 */
static bool any_default_spread(const struct sched_session *ssn)
{
	const struct sched_objects *o = ssn->snap->objs;
	const char *last_ns = NULL;
	size_t i;

	if (!o)
		return false;
	for (i = 0; i < ssn->ntasks; i++) {
		const struct sched_task_info *t = ssn->tasks[i].t;

		if (t->status != SCHED_TASK_PENDING)
			continue;
		if (sched_objects_selecting_owner(pod_owners(t), NULL))
			return true;
		if (last_ns && strcmp(last_ns, t->ns) == 0)
			continue;
		last_ns = t->ns;
		if (o->services &&
		    vc_cache_index_count(o->services, SCHED_OBJECTS_NS_INDEX, t->ns) > 0)
			return true;
	}
	return false;
}

static void decref_val(void *val)
{
	json_decref(val);
}

int sched_podaff_new(struct sched_session *ssn, struct sched_podaff **out)
{
	struct sched_podaff *pa;
	size_t i, k;
	int rc = VC_ENOMEM;
	bool terms = any_terms(ssn);

	*out = NULL;
	if (!terms && !any_default_spread(ssn))
		return 0;
	pa = vc_calloc(1, sizeof(*pa));
	if (!pa)
		return VC_ENOMEM;
	pa->ssn = ssn;
	vc_hmap_init(&pa->spec_map, spec_hash, spec_eq);
	vc_hmap_init_str(&pa->ns_labels);
	pa->spec_of = vc_calloc(ssn->ntasks + 1, sizeof(struct pa_spec *));
	pa->where = vc_malloc((ssn->ntasks + 1) * sizeof(*pa->where));
	pa->raw = vc_malloc((ssn->nnodes + 1) * sizeof(*pa->raw));
	if (!pa->spec_of || !pa->where || !pa->raw)
		goto fail;
	for (i = 0; i < ssn->ntasks; i++) {
		pa->where[i] = SCHED_NONE;
		pa->spec_of[i] = spec_get(pa, ssn->tasks[i].t,
					  ssn->tasks[i].t->status == SCHED_TASK_PENDING, &rc);
		if (rc < 0)
			goto fail;
	}
	if (!terms && pa->nspecs == 0) { /* no pod got default constraints after all */
		sched_podaff_free(pa);
		return 0;
	}
	/* What the snapshot placed counts where it is, members on their spec's existing side. */
	for (i = 0; i < ssn->nnodes; i++) {
		const struct sched_node_info *n = ssn->nodes[i].n;

		for (k = 0; k < n->ntasks; k++) {
			const struct sched_task_info *x = n->tasks[k];
			struct pa_spec *s;

			if (x->ssn) {
				pa->where[x->ssn->index] = (uint32_t)i;
				s = pa->spec_of[x->ssn->index];
			} else {
				s = spec_get(pa, x, false, &rc);
				if (rc < 0)
					goto fail;
			}
			if (s)
				count_member(pa, s, (uint32_t)i, 1);
		}
	}
	*out = pa;
	return 0;
fail:
	sched_podaff_free(pa);
	return VC_ENOMEM;
}

bool sched_podaff_filters(const struct sched_podaff *pa)
{
	size_t i;

	for (i = 0; pa && i < pa->nspecs; i++)
		if (pa->specs[i]->nterms[PA_REQ_AFF] || pa->specs[i]->nterms[PA_REQ_ANTI] ||
		    pa->specs[i]->nhard)
			return true;
	return false;
}

static void prep_release(struct sched_podaff *pa)
{
	size_t i;

	for (i = 0; i < pa->nps; i++)
		vc_free(pa->ps[i].own);
	vc_free(pa->ps);
	pa->ps = NULL;
	pa->nps = 0;
	pa->prep = NULL;
}

void sched_podaff_free(struct sched_podaff *pa)
{
	size_t i;

	if (!pa)
		return;
	prep_release(pa);
	for (i = 0; i < pa->nspecs; i++)
		spec_free(pa->specs[i]);
	for (i = 0; i < pa->nkeys; i++)
		vc_free(pa->keys[i].dom);
	vc_hmap_release(&pa->spec_map, NULL);
	vc_hmap_release(&pa->ns_labels, decref_val);
	vc_free(pa->specs);
	vc_free(pa->keys);
	vc_free(pa->spec_of);
	vc_free(pa->where);
	vc_free(pa->sym);
	vc_free(pa->raw);
	vc_free(pa->mark);
	vc_free(pa);
}

/* ---- the prepared task (Kubernetes' PreFilter / PreScore state) --------------------------------
 */

static int sym_push(struct sched_podaff *pa, const struct pa_term *term, int kind)
{
	if (pa->nsym == pa->sym_cap) {
		size_t ncap = pa->sym_cap ? pa->sym_cap * 2 : 16;
		struct pa_sym *p = vc_realloc(pa->sym, ncap * sizeof(*p));

		if (!p)
			return VC_ENOMEM;
		pa->sym = p;
		pa->sym_cap = ncap;
	}
	pa->sym[pa->nsym].term = term;
	pa->sym[pa->nsym].kind = kind;
	pa->nsym++;
	return 0;
}

/*
 * Whether node counts for spread constraint sp of task t (Kubernetes' node inclusion policies:
 * the pod's nodeSelector and required node affinity when Honor, its tolerations of the node's
 * NoSchedule/NoExecute taints when Honor). 0 or VC_ENOMEM.
 */
static int spread_eligible(const struct sched_podaff *pa, const struct pa_spread *sp,
			   const struct sched_ssn_task *t, uint32_t node, bool *ok)
{
	const struct sched_node_info *n = pa->ssn->nodes[node].n;
	struct pred_result pr;
	int rc;

	*ok = true;
	if (sp->honor_affinity && pa->prep_selects) {
		rc = pred_node_affinity(t->t, n, &pr);
		if (rc < 0)
			return rc;
		*ok = pr.fit;
	}
	if (*ok && sp->honor_taints) {
		pred_taint_toleration(t->t, n, &pr);
		*ok = pr.fit;
	}
	return 0;
}

static int prep_spread(struct sched_podaff *pa, const struct pa_spec *s,
		       const struct sched_ssn_task *t)
{
	size_t i, node;
	int rc;

	pa->ps = vc_calloc(s->nspread + 1, sizeof(*pa->ps));
	if (!pa->ps)
		return VC_ENOMEM;
	pa->nps = s->nspread;
	for (i = 0; i < s->nspread; i++) {
		const struct pa_spread *sp = &s->spread[i];
		struct pa_prep_spread *ps = &pa->ps[i];
		const struct pa_key *k = &pa->keys[sp->key];
		uint8_t bit = sp->hard ? 1 : 2;
		int32_t *present = NULL;
		uint32_t d, ndomains = 0;

		ps->self = vc_selector_matches(sp->sel, pod_labels(t->t));
		ps->cnt = sp->dom_cnt;
		if ((sp->honor_affinity && pa->prep_selects) || sp->honor_taints) {
			/* The eligible nodes depend on the pod: count over them. */
			ps->own = vc_calloc(2 * (size_t)k->ndom + 1, sizeof(*ps->own));
			if (!ps->own)
				return VC_ENOMEM;
			present = ps->own + k->ndom;
			for (node = 0; node < pa->ssn->nnodes; node++) {
				bool ok;

				if (!(s->allkeys[node] & bit))
					continue;
				rc = spread_eligible(pa, sp, t, (uint32_t)node, &ok);
				if (rc < 0)
					return rc;
				if (!ok)
					continue;
				d = k->dom[node];
				if (d == DOM_NONE) /* system defaults: not every key required */
					continue;
				present[d] = 1;
				ps->own[d] += sp->node_cnt[node];
			}
			ps->cnt = ps->own;
		}
		ps->min = INT32_MAX;
		for (d = 0; d < k->ndom; d++) {
			if (present ? !present[d] : sp->dom_nodes[d] == 0)
				continue;
			ndomains++;
			if (ps->cnt[d] < ps->min)
				ps->min = ps->cnt[d];
		}
		/* minDomains: fewer eligible domains than asked make the global minimum 0. */
		if (sp->min_domains > 0 && ndomains < (uint32_t)sp->min_domains)
			ps->min = 0;
	}
	return 0;
}

/* Make t the prepared task for the index as it is now. 0 or VC_ENOMEM. */
static int prepare(struct sched_podaff *pa, const struct sched_ssn_task *t)
{
	const json_t *spec;
	struct pa_spec *s;
	size_t i, k, j;
	int rc;

	if (pa->prep == t && pa->prep_epoch == pa->epoch)
		return 0;
	spec = pod_spec(t->t);
	s = pa->spec_of[t->index];
	prep_release(pa);
	pa->nsym = 0;
	pa->prep_selects =
		json_object_size(json_object_get(spec, "nodeSelector")) > 0 ||
		json_object_get(json_object_get(json_object_get(spec, "affinity"), "nodeAffinity"),
				"requiredDuringSchedulingIgnoredDuringExecution");
	if (s)
		count_spec(pa, s);
	/* The counted pods' terms that match t: required anti-affinity, preferred terms. */
	for (i = 0; i < pa->nspecs; i++) {
		const struct pa_spec *e = pa->specs[i];

		if (e->members <= 0)
			continue;
		for (k = PA_REQ_ANTI; k < PA_KINDS; k++)
			for (j = 0; j < e->nterms[k]; j++)
				if (term_matches(pa, &e->terms[k][j], e->ns, t->t) &&
				    sym_push(pa, &e->terms[k][j], (int)k) < 0)
					return VC_ENOMEM;
	}
	if (s && s->nspread) {
		rc = prep_spread(pa, s, t);
		if (rc < 0) {
			prep_release(pa);
			return rc;
		}
	}
	pa->prep = t;
	pa->prep_epoch = pa->epoch;
	return 0;
}

/* ---- filter -----------------------------------------------------------------------------------
 */

/* reason is one of the PODAFF_REASON_* texts (shorter than out->reason). */
static void fail(struct pred_result *out, bool *unresolvable, const char *reason, bool unres)
{
	out->fit = false;
	memcpy(out->reason, reason, strlen(reason) + 1);
	*unresolvable = unres;
}

/* satisfyPodAffinity: every required term has a matching pod in the node's domain. */
static bool pod_affinity_ok(struct sched_podaff *pa, const struct pa_spec *s,
			    const struct sched_ssn_task *t, uint32_t node)
{
	bool exist = true;
	size_t i;

	for (i = 0; i < s->nterms[PA_REQ_AFF]; i++) {
		const struct pa_term *term = &s->terms[PA_REQ_AFF][i];
		uint32_t d = dom_at(pa, term->key, node);

		if (d == DOM_NONE)
			return false;
		if (term->cnt[d] <= 0)
			exist = false;
	}
	if (exist)
		return true;
	/*
	 * No pod matches anywhere and the pod matches its own terms: the first pod of a group
	 * with affinity to itself may go anywhere.
	 */
	if (s->req_aff_total != 0)
		return false;
	for (i = 0; i < s->nterms[PA_REQ_AFF]; i++)
		if (!term_matches(pa, &s->terms[PA_REQ_AFF][i], s->ns, t->t))
			return false;
	return true;
}

int sched_podaff_filter(struct sched_podaff *pa, const struct sched_ssn_task *t,
			const struct sched_ssn_node *n, struct pred_result *out, bool *unresolvable)
{
	const struct pa_spec *s = pa->spec_of[t->index];
	uint32_t node = n->index, d;
	size_t i;
	int rc = prepare(pa, t);

	if (rc < 0)
		return rc;
	if (s && s->nterms[PA_REQ_AFF] && !pod_affinity_ok(pa, s, t, node)) {
		fail(out, unresolvable, PODAFF_REASON_AFFINITY, true);
		return 0;
	}
	for (i = 0; s && i < s->nterms[PA_REQ_ANTI]; i++) {
		const struct pa_term *term = &s->terms[PA_REQ_ANTI][i];

		d = dom_at(pa, term->key, node);
		if (d != DOM_NONE && term->cnt[d] > 0) {
			fail(out, unresolvable, PODAFF_REASON_ANTI_AFFINITY, false);
			return 0;
		}
	}
	for (i = 0; i < pa->nsym; i++) {
		const struct pa_term *term = pa->sym[i].term;

		if (pa->sym[i].kind != PA_REQ_ANTI)
			continue;
		d = dom_at(pa, term->key, node);
		if (d != DOM_NONE && term->mem[d] > 0) {
			fail(out, unresolvable, PODAFF_REASON_EXISTING_ANTI, false);
			return 0;
		}
	}
	for (i = 0; s && i < s->nspread; i++) {
		const struct pa_spread *sp = &s->spread[i];
		const struct pa_prep_spread *ps = &pa->ps[i];

		if (!sp->hard)
			continue;
		d = dom_at(pa, sp->key, node);
		if (d == DOM_NONE) {
			fail(out, unresolvable, PODAFF_REASON_SPREAD_NO_LABEL, true);
			return 0;
		}
		/* 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= maxSkew
		 */
		if ((int64_t)ps->cnt[d] + ps->self - ps->min > sp->max_skew) {
			fail(out, unresolvable, PODAFF_REASON_SPREAD, false);
			return 0;
		}
	}
	return 0;
}

/* ---- scores -----------------------------------------------------------------------------------
 */

/* InterPodAffinity's Score and NormalizeScore over nodes[0..n), times weight, into scores. */
static void affinity_score(struct sched_podaff *pa, const struct pa_spec *s, const uint32_t *nodes,
			   size_t n, double weight, double *scores)
{
	double lo = INFINITY, hi = -INFINITY;
	bool any = false;
	size_t i, k, j;

	for (k = PA_PREF_AFF; s && k <= PA_PREF_ANTI; k++)
		any = any || s->nterms[k] > 0;
	for (j = 0; j < pa->nsym && !any; j++)
		any = pa->sym[j].kind != PA_REQ_ANTI;
	if (!any)
		return;
	for (i = 0; i < n; i++) {
		int64_t raw = 0;

		/* The pod's preferred terms against the counted pods. */
		for (k = PA_PREF_AFF; s && k <= PA_PREF_ANTI; k++) {
			for (j = 0; j < s->nterms[k]; j++) {
				const struct pa_term *term = &s->terms[k][j];
				uint32_t d = dom_at(pa, term->key, nodes[i]);

				if (d != DOM_NONE)
					raw += (int64_t)term->weight * term->cnt[d] *
					       (k == PA_PREF_AFF ? 1 : -1);
			}
		}
		/*
		 * The counted pods' preferred terms against the pod (their required affinity
		 * would count with hardPodAffinityWeight, which Volcano leaves at 0).
		 */
		for (j = 0; j < pa->nsym; j++) {
			const struct pa_term *term = pa->sym[j].term;
			uint32_t d;

			if (pa->sym[j].kind == PA_REQ_ANTI)
				continue;
			d = dom_at(pa, term->key, nodes[i]);
			if (d != DOM_NONE)
				raw += (int64_t)term->weight * term->mem[d] *
				       (pa->sym[j].kind == PA_PREF_AFF ? 1 : -1);
		}
		pa->raw[i] = (double)raw;
		if (pa->raw[i] > hi)
			hi = pa->raw[i];
		if (pa->raw[i] < lo)
			lo = pa->raw[i];
	}
	/* Kubernetes 1.25 (Volcano v1.7's): min and max over the candidates themselves. */
	for (i = 0; i < n && hi - lo > 0; i++)
		scores[i] += (double)(int64_t)(MAX_NODE_SCORE * ((pa->raw[i] - lo) / (hi - lo))) *
			     weight;
}

/* PodTopologySpread's Score and NormalizeScore (ScheduleAnyway constraints). */
static void spread_score(struct sched_podaff *pa, const struct pa_spec *s,
			 const struct sched_ssn_task *t, const uint32_t *nodes, size_t n,
			 double weight, double *scores)
{
	double tpw[16];
	int64_t lo = INT64_MAX, hi = 0, v;
	size_t i, c, nsoft = 0, ignored = 0, maxdom = 0;

	for (c = 0; c < s->nspread; c++) {
		if (s->spread[c].hard)
			continue;
		nsoft++;
		if (pa->keys[s->spread[c].key].ndom > maxdom)
			maxdom = pa->keys[s->spread[c].key].ndom;
	}
	/* More than 16 constraints on one pod: beyond any real spec, not scored. */
	if (nsoft == 0 || s->nspread > 16 || !pa->ps)
		return;
	if (maxdom + 1 > pa->mark_cap) {
		uint32_t *m = vc_realloc(pa->mark, (maxdom + 1) * sizeof(*m));

		if (!m)
			return; /* no scratch: the spread adds nothing this time */
		pa->mark = m;
		pa->mark_cap = maxdom + 1;
	}
	for (i = 0; i < n; i++)
		ignored += !(s->allkeys[nodes[i]] & 2);
	/* The normalising weight: log(number of the candidates' domains + 2). */
	for (c = 0; c < s->nspread; c++) {
		const struct pa_spread *sp = &s->spread[c];
		const struct pa_key *k = &pa->keys[sp->key];
		size_t size = 0;

		if (sp->hard)
			continue;
		if (strcmp(k->name, LABEL_HOSTNAME) == 0) {
			size = n - ignored;
		} else {
			bool unlabelled = false;

			memset(pa->mark, 0, k->ndom * sizeof(*pa->mark));
			for (i = 0; i < n; i++) {
				uint32_t d = k->dom[nodes[i]];

				if (!(s->allkeys[nodes[i]] & 2))
					continue;
				if (d == DOM_NONE) {
					/* System defaults: the nodes without the key are one
					 * domain, the empty value. */
					unlabelled = true;
				} else if (!pa->mark[d]) {
					pa->mark[d] = 1;
					size++;
				}
			}
			size += unlabelled;
		}
		tpw[c] = log((double)size + 2);
	}
	for (i = 0; i < n; i++) {
		double score = 0;

		if (!(s->allkeys[nodes[i]] & 2)) {
			pa->raw[i] = -1;
			continue;
		}
		for (c = 0; c < s->nspread; c++) {
			const struct pa_spread *sp = &s->spread[c];
			const struct pa_key *k = &pa->keys[sp->key];
			uint32_t d = k->dom[nodes[i]];
			int64_t cnt;

			if (sp->hard || d == DOM_NONE)
				continue;
			cnt = strcmp(k->name, LABEL_HOSTNAME) == 0 ? sp->node_cnt[nodes[i]]
								   : pa->ps[c].cnt[d];
			score += (double)cnt * tpw[c] + (double)(sp->max_skew - 1);
		}
		v = (int64_t)round(score);
		pa->raw[i] = (double)v;
		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	(void)t;
	for (i = 0; i < n; i++) {
		if (pa->raw[i] < 0)
			continue;
		v = hi == 0 ? MAX_NODE_SCORE
			    : MAX_NODE_SCORE * (hi + lo - (int64_t)pa->raw[i]) / hi;
		scores[i] += (double)v * weight;
	}
}

void sched_podaff_score(struct sched_podaff *pa, const struct sched_ssn_task *t,
			const uint32_t *nodes, size_t n, double aff_weight, double spread_weight,
			double *scores)
{
	const struct pa_spec *s = pa->spec_of[t->index];

	if (n == 0 || prepare(pa, t) < 0)
		return;
	if (aff_weight != 0)
		affinity_score(pa, s, nodes, n, aff_weight, scores);
	if (s && s->nspread && spread_weight != 0)
		spread_score(pa, s, t, nodes, n, spread_weight, scores);
}
