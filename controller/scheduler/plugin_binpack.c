/*
 * plugin_binpack.c - the binpack plugin: Volcano's binpack node score (docs/volcano/scheduler.md
 * §4.9).
 */
#include "plugins.h"

#include "plugin_support.h"
#include "vc_alloc.h"

struct binpack_state {
	struct sched_session *ssn;
	struct score_cache cache;
	double weight;
	int *w;	     /* per dimension */
	bool *has_w; /* per dimension */
};

static double binpack_cb(void *st, const struct sched_ssn_task *t, const struct sched_ssn_node *n)
{
	struct binpack_state *s = st;
	double score = 0;
	int64_t wsum = 0;
	size_t d;

	if (cache_get(&s->cache, t, n, &score))
		return score;

	for (d = 0; d < s->ssn->ndims; d++) {
		double req = t->req[d], alloc, used;

		if (req < VC_RESOURCE_MIN || !s->has_w[d])
			continue;
		alloc = n->alloc[d];
		used = n->used[d];
		if (alloc != 0 && s->w[d] != 0) {
			if (used + req > alloc)
				return cache_put(&s->cache, t, n, 0);
			score += (used + req) * s->w[d] / alloc;
		}
		wsum += s->w[d];
	}
	if (wsum > 0)
		score /= (double)wsum;
	return cache_put(&s->cache, t, n, score * 100.0 * s->weight);
}

static int binpack_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct binpack_state *s = vc_calloc(1, sizeof(*s));
	const char *list = sched_arg_string(conf, "binpack.resources", "");
	size_t d;

	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ssn = ssn;
	s->w = vc_calloc(ssn->ndims, sizeof(int));
	s->has_w = vc_calloc(ssn->ndims, sizeof(bool));
	if (!s->w || !s->has_w || cache_init(&s->cache, ssn->nnodes) < 0) {
		cache_release(&s->cache);
		vc_free(s->w);
		vc_free(s->has_w);
		vc_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	s->weight = (double)sched_arg_int(conf, "binpack.weight", 1);
	s->w[0] = (int)sched_arg_int(conf, "binpack.cpu", 1);
	s->w[1] = (int)sched_arg_int(conf, "binpack.memory", 1);
	s->has_w[0] = s->has_w[1] = true;
	/* binpack.resources: "a, b" - each with binpack.resources.<name> (default 1). */
	while (*list) {
		char name[256], key[300];
		size_t len = 0;
		uint32_t dim;

		while (*list == ' ' || *list == ',')
			list++;
		while (list[len] && list[len] != ',')
			len++;
		while (len > 0 && list[len - 1] == ' ')
			len--;
		if (len == 0 || len >= sizeof(name)) {
			list += len;
			continue;
		}
		memcpy(name, list, len);
		name[len] = '\0';
		list += len;
		dim = sched_ssn_dim(ssn, name);
		if (dim == SCHED_NONE || dim < 2)
			continue;
		snprintf(key, sizeof(key), "binpack.resources.%s", name);
		s->w[dim] = (int)sched_arg_int(conf, key, 1);
		s->has_w[dim] = true;
	}
	for (d = 0; d < ssn->ndims; d++)
		if (s->w[d] < 0)
			s->w[d] = 0;
	cb->node_order = binpack_cb;
	cb->node_order_by_request = true;
	*state = s;
	return 0;
}

static void binpack_close(struct sched_session *ssn, void *state)
{
	struct binpack_state *s = state;

	(void)ssn;
	if (!s)
		return;
	cache_release(&s->cache);
	vc_free(s->w);
	vc_free(s->has_w);
	vc_free(s);
}

const struct sched_plugin sched_plugin_binpack = {
	.name = "binpack",
	.on_session_open = binpack_open,
	.on_session_close = binpack_close,
};
