/*
 * vc_cache_stage.c - staged relists: a relist's objects are added one at a time outside the
 * cache's lock, then committed in one step that reports what changed (vc_cache.h).
 */
#include "vc_cache.h"

#include "vc_alloc.h"
#include "vc_cache_internal.h"

struct vc_cache_staging {
	struct vc_cache *c;
	struct entry **ents; /* in the order they were added; ents[i]->pos == i */
	size_t n, cap;
};

/* One change of a staged commit: old is owned by the changes, new lives in the cache. */
struct change {
	struct entry *old; /* NULL: an add */
	struct entry *new; /* NULL: a delete */
	bool failed;	   /* the last vc_cache_changes_get of it ran out of memory */
};

struct vc_cache_changes {
	struct vc_cache *c;
	uint64_t gen; /* the cache's generation right after the commit */
	size_t count;
	struct change items[];
};

int vc_cache_stage_begin(struct vc_cache *c, struct vc_cache_staging **out)
{
	if (!out)
		return VC_EINVAL;
	*out = NULL;
	if (!c)
		return VC_EINVAL;
	*out = vc_calloc(1, sizeof(**out));
	if (!*out)
		return VC_ENOMEM;
	(*out)->c = c;
	return 0;
}

int vc_cache_stage_add(struct vc_cache_staging *st, json_t *obj)
{
	struct entry *e, **grown;
	size_t cap;
	int rc;

	if (!st || !obj)
		return VC_EINVAL;
	if (st->n == st->cap) {
		cap = st->cap ? st->cap * 2 : 64;
		if (cap > SIZE_MAX / sizeof(struct entry *))
			return VC_ENOMEM;
		grown = vc_realloc(st->ents, cap * sizeof(struct entry *));
		if (!grown)
			return VC_ENOMEM;
		st->ents = grown;
		st->cap = cap;
	}
	/* Serialization and index functions: no lock, as for vc_cache_upsert. */
	rc = vc_cache_entry_new(st->c, obj, &e);
	if (rc)
		return rc;
	e->pos = st->n;
	st->ents[st->n++] = e;
	return 0;
}

size_t vc_cache_stage_count(const struct vc_cache_staging *st)
{
	return st ? st->n : 0;
}

void vc_cache_stage_abort(struct vc_cache_staging *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n; i++)
		vc_cache_entry_free(st->ents[i]);
	vc_free(st->ents);
	vc_free(st);
}

int vc_cache_stage_commit(struct vc_cache_staging *st, struct vc_cache_changes **out)
{
	struct vc_cache_changes *ch = NULL;
	struct entry **gone = NULL, *e, *prev;
	struct vc_cache *c;
	struct store ns, old;
	size_t i, k, n, nch = 0, ngone = 0;
	int rc;

	if (out)
		*out = NULL;
	if (!st)
		return VC_EINVAL;
	c = st->c;
	n = st->n;
	vc_cache_store_init(&ns);
	rc = vc_hmap_reserve(&ns.entries, n);
	if (rc)
		goto out_abort;

	pthread_rwlock_wrlock(&c->lock);
	for (k = 0; c->check && (prev = vc_cache_store_next(&c->st, &k));)
		vc_cache_check_entry(c, prev);
	rc = vc_cache_store_build(c, st->ents, n, &ns);
	if (rc)
		goto out_rollback;
	if (out) {
		/* The changes: adds and updates in staging order, then deletes sorted by key. */
		for (i = 0; i < n; i++)
			if (st->ents[i]->pos != NO_POS && !st->ents[i]->unchanged)
				nch++;
		for (k = 0; (prev = vc_cache_store_next(&c->st, &k));)
			if (!vc_cache_store_get(&ns, prev->key, NULL))
				ngone++;
		ch = vc_calloc(1, sizeof(*ch) + (nch + ngone) * sizeof(struct change));
		if (ngone)
			gone = vc_calloc(ngone, sizeof(struct entry *));
		if (!ch || (ngone && !gone)) {
			rc = VC_ENOMEM;
			goto out_rollback;
		}
		for (k = 0, i = 0; i < ngone && (prev = vc_cache_store_next(&c->st, &k));)
			if (!vc_cache_store_get(&ns, prev->key, NULL))
				gone[i++] = prev;
		if (ngone)
			qsort(gone, ngone, sizeof(struct entry *), vc_cache_cmp_entry_key);
	}
	/* Commit: nothing below can fail. */
	for (i = 0; ch && i < n; i++) {
		e = st->ents[i];
		if (e->pos == NO_POS || e->unchanged)
			continue;
		prev = vc_cache_store_get(&c->st, e->key, NULL);
		if (prev)
			prev->kept = true;
		ch->items[ch->count].old = prev;
		ch->items[ch->count++].new = e;
	}
	for (i = 0; i < ngone; i++) {
		gone[i]->kept = true;
		ch->items[ch->count].old = gone[i];
		ch->items[ch->count++].new = NULL;
	}
	old = c->st;
	c->st = ns;
	c->gen++;
	if (ch) {
		ch->c = c;
		ch->gen = c->gen;
	}
	pthread_rwlock_unlock(&c->lock);
	/* The old store's entries no change refers to, and its tables, outside the lock. */
	for (k = 0; (prev = vc_cache_store_next(&old, &k));)
		if (!prev->kept)
			vc_cache_entry_free(prev);
	vc_cache_store_release(c, &old, false);
	for (i = 0; i < n; i++)
		if (st->ents[i]->pos == NO_POS)
			vc_cache_entry_free(st->ents[i]);
	vc_free(st->ents);
	vc_free(st);
	vc_free(gone);
	if (out)
		*out = ch;
	return 0;

out_rollback:
	pthread_rwlock_unlock(&c->lock);
out_abort:
	vc_cache_store_release(c, &ns, false);
	vc_free(ch);
	vc_free(gone);
	vc_cache_stage_abort(st);
	return rc;
}

size_t vc_cache_changes_count(const struct vc_cache_changes *ch)
{
	return ch ? ch->count : 0;
}

/* A reader's copy of an entry no store holds any more (it belongs to the changes). */
static json_t *entry_read_owned(const struct vc_cache *c, const struct entry *e)
{
	return c->packed ? vc_cache_entry_load(e) : json_incref(e->obj);
}

int vc_cache_changes_get(struct vc_cache_changes *ch, size_t i, json_t **old_obj, json_t **new_obj)
{
	const struct change *d;
	struct vc_cache *c;
	json_t *o = NULL, *nw = NULL;
	int rc = 0;

	if (old_obj)
		*old_obj = NULL;
	if (new_obj)
		*new_obj = NULL;
	if (!ch || !old_obj || !new_obj || i >= ch->count)
		return VC_EINVAL;
	c = ch->c;
	d = &ch->items[i];
	if (d->old) {
		o = entry_read_owned(c, d->old);
		if (!o) {
			ch->items[i].failed = true;
			return VC_ENOMEM;
		}
	}
	if (d->new) {
		pthread_rwlock_rdlock(&c->lock);
		if (c->gen != ch->gen)
			rc = VC_ECONFLICT;
		else if (!(nw = c->packed ? vc_cache_entry_load(d->new) : json_incref(d->new->obj)))
			rc = VC_ENOMEM;
		pthread_rwlock_unlock(&c->lock);
	}
	if (rc) {
		if (rc == VC_ENOMEM)
			ch->items[i].failed = true;
		json_decref(o);
		return rc;
	}
	ch->items[i].failed = false;
	*old_obj = o;
	*new_obj = nw;
	return 0;
}

size_t vc_cache_changes_drop_failed(struct vc_cache_changes *ch)
{
	struct vc_cache *c;
	struct entry *e;
	size_t i, pos, dropped = 0;

	if (!ch)
		return 0;
	c = ch->c;
	pthread_rwlock_wrlock(&c->lock);
	for (i = 0; c->gen == ch->gen && i < ch->count; i++) {
		e = ch->items[i].new;
		if (!ch->items[i].failed || !e || vc_cache_store_get(&c->st, e->key, &pos) != e)
			continue;
		vc_cache_entry_unindex(c, &c->st, e);
		vc_hmap_remove_at(&c->st.entries, pos);
		ch->items[i].new = NULL;
		ch->items[i].failed = false;
		vc_cache_entry_free(e);
		dropped++;
	}
	if (dropped)
		c->gen++;
	ch->gen = c->gen;
	pthread_rwlock_unlock(&c->lock);
	return dropped;
}

void vc_cache_changes_free(struct vc_cache_changes *ch)
{
	size_t i;

	if (!ch)
		return;
	for (i = 0; i < ch->count; i++)
		vc_cache_entry_free(ch->items[i].old);
	vc_free(ch);
}
