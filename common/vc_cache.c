/*
 * vc_cache.c - the informer's store: a hash map of immutable objects plus secondary indexes. The
 * staged relists (vc_cache_stage_*, vc_cache_changes_*) are in vc_cache_stage.c.
 *
 * Everything is sets of vc_hash.h's struct vc_hmap (open addressing, linear probing,
 * backward-shift deletion, so a table that sees millions of updates never degrades). There are
 * three kinds: the main table (entries by key), one table per index (ivalues by value) and,
 * inside each ivalue, a set of the entries filed under it (hashed by address). An entry remembers
 * the index values it was filed under, so removing it never calls an index function and never
 * fails.
 *
 * Writes build whatever they need before they touch shared state and undo their own partial
 * work when an allocation fails, so a failed write leaves the cache as it was.
 */
#include "vc_cache.h"

#include <pthread.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_cache_internal.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_log.h"

/* ---- hash functions ------------------------------------------------------------------------ */

/* FNV-1a over the bytes of s, finalized so that every bit reaches the low bits used as index. */
static uint64_t hash_str(const char *s)
{
	return vc_hash_mix64(vc_fnv1a64(s));
}

static uint64_t hash_key(const void *key)
{
	return hash_str(key);
}

static uint64_t hash_ptr(const void *p)
{
	return vc_hash_mix64((uint64_t)(uintptr_t)p);
}

/* ---- entries, index values, stores ---------------------------------------------------------- */

struct vc_index_values {
	struct vc_buf buf; /* all values so far, each with its NUL */
	size_t start;	   /* where the current index's values begin in buf */
	size_t count;	   /* values of the current index */
};

static bool entry_eq(const void *item, const void *key)
{
	return strcmp(((const struct entry *)item)->key, key) == 0;
}

static bool ivalue_eq(const void *item, const void *key)
{
	return strcmp(((const struct ivalue *)item)->value, key) == 0;
}

static bool ptr_eq(const void *item, const void *key)
{
	return item == key;
}

void vc_cache_store_init(struct store *st)
{
	size_t i;

	vc_hmap_init_set(&st->entries, hash_key, entry_eq);
	for (i = 0; i < MAX_INDEXES; i++)
		vc_hmap_init_set(&st->values[i], hash_key, ivalue_eq);
}

static size_t *ent_off(const struct entry *e)
{
	return e->iv;
}

static char **ent_vals(const struct vc_cache *c, const struct entry *e)
{
	return (char **)(ent_off(e) + c->nidx + 1);
}

/* A packed entry's resourceVersion ("" for none) and serialization, both NUL-terminated. */
static const char *ent_rv(const struct entry *e)
{
	return e->key + e->klen + 1;
}

static const char *ent_data(const struct entry *e)
{
	return ent_rv(e) + e->rvlen + 1;
}

/* A packed entry's object, freshly parsed; NULL only when memory runs out. */
json_t *vc_cache_entry_load(const struct entry *e)
{
	char raw[PACK_SCRATCH];
	json_error_t err;
	int rc;

	if (!e->raw_len)
		return vc_json_loadb(ent_data(e), e->len, UNPACK_FLAGS, &err);
	/* Only serializations that fit the scratch buffer are deflated (vc_cache_entry_new). */
	rc = vc_cache_pack_inflate(ent_data(e), e->len, raw, e->raw_len);
	if (rc) {
		if (rc != VC_ENOMEM)
			VC_ERROR("cannot inflate cached object", "key=%s", e->key);
		return NULL;
	}
	return vc_json_loadb(raw, e->raw_len, UNPACK_FLAGS, &err);
}

static void json_free_str(char *s)
{
	json_free_t free_fn;

	if (!s)
		return;
	json_get_alloc_funcs(NULL, &free_fn);
	free_fn(s);
}

static void entry_free(void *e)
{
	vc_cache_entry_free(e);
}

void vc_cache_entry_free(struct entry *e)
{
	if (!e)
		return;
	json_decref(e->obj);
	vc_free(e->snapshot);
	vc_free(e->iv);
	vc_free(e);
}

int vc_index_values_add(struct vc_index_values *vals, const char *value)
{
	const char *p, *end;
	int rc;

	if (!vals || !value)
		return VC_EINVAL;
	p = vals->buf.data ? vals->buf.data + vals->start : NULL;
	end = vals->buf.data ? vals->buf.data + vals->buf.len : NULL;
	for (; p && p < end; p += strlen(p) + 1)
		if (strcmp(p, value) == 0)
			return 0;
	rc = vc_buf_add(&vals->buf, value, strlen(value) + 1);
	if (rc)
		return rc;
	vals->count++;
	return 0;
}

static int key_parts(const json_t *obj, const char **ns, const char **name)
{
	json_t *md = json_object_get(obj, "metadata");

	*name = json_string_value(json_object_get(md, "name"));
	*ns = json_string_value(json_object_get(md, "namespace"));
	if (!*name || !**name)
		return VC_EINVAL;
	if (*ns && !**ns)
		*ns = NULL;
	return 0;
}

int vc_cache_key(const json_t *obj, char *buf, size_t len)
{
	const char *ns, *name;
	int rc, n;

	if (!buf)
		return VC_EINVAL;
	if (len)
		buf[0] = '\0';
	if (!obj)
		return VC_EINVAL;
	rc = key_parts(obj, &ns, &name);
	if (rc)
		return rc;
	n = ns ? snprintf(buf, len, "%s/%s", ns, name) : snprintf(buf, len, "%s", name);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return VC_E2BIG;
	}
	return 0;
}

/* Compute obj's index values into e->iv (one allocation). */
static int entry_index_values(const struct vc_cache *c, const json_t *obj, struct entry *e)
{
	struct vc_index_values b;
	size_t counts[MAX_INDEXES], total = 0, i, size, *off;
	char **vals, *strs, *p;
	int rc = 0;

	if (!c->nidx)
		return 0;
	vc_buf_init(&b.buf, INDEX_VALUES_MAX);
	for (i = 0; i < c->nidx; i++) {
		b.start = b.buf.len;
		b.count = 0;
		rc = c->idx[i].fn(c->idx[i].arg, obj, &b);
		if (rc)
			goto out_release;
		counts[i] = b.count;
		total += b.count;
	}
	size = (c->nidx + 1) * sizeof(size_t) + total * sizeof(char *) + b.buf.len;
	e->iv = vc_malloc(size);
	if (!e->iv) {
		rc = VC_ENOMEM;
		goto out_release;
	}
	off = e->iv;
	vals = (char **)(off + c->nidx + 1);
	strs = (char *)(vals + total);
	if (b.buf.len)
		memcpy(strs, b.buf.data, b.buf.len);
	off[0] = 0;
	for (i = 0; i < c->nidx; i++)
		off[i + 1] = off[i] + counts[i];
	for (i = 0, p = strs; i < total; i++) {
		vals[i] = p;
		p += strlen(p) + 1;
	}
out_release:
	vc_buf_release(&b.buf);
	return rc;
}

/*
 * A new entry for obj, with its key, index values and snapshot: unpacked, obj gets a reference;
 * packed, the entry's one block also holds obj's resourceVersion and serialization, and is
 * exactly as large as it must be. The object is serialized once, into a growing buffer that the
 * block copies (it used to be json_dumpb twice for an object past the stack scratch: once for
 * the size, once into the block).
 */
int vc_cache_entry_new(const struct vc_cache *c, json_t *obj, struct entry **out)
{
	const char *ns, *name, *rv = NULL;
	char zipped[PACK_SCRATCH];
	struct vc_buf dumped;
	struct entry *e = NULL;
	size_t nslen, namelen, klen, rvlen = 0, len = 0, zlen = 0, extra = 0;
	int rc;

	*out = NULL;
	if (!obj)
		return VC_EINVAL;
	rc = key_parts(obj, &ns, &name);
	if (rc)
		return rc;
	nslen = ns ? strlen(ns) : 0;
	namelen = strlen(name);
	klen = ns ? nslen + 1 + namelen : namelen;
	/* The buffer's cap keeps len within the entry's 32-bit length. */
	vc_buf_init(&dumped, (size_t)UINT32_MAX + 1);
	if (c->packed) {
		rv = json_string_value(
			json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
		rvlen = rv ? strlen(rv) : 0;
		rc = vc_json_dump(obj, PACK_FLAGS, &dumped);
		if (rc)
			goto out_release;
		len = dumped.len;
		if (klen > UINT32_MAX || rvlen > UINT32_MAX) {
			rc = VC_E2BIG;
			goto out_release;
		}
		/* Deflated when that is shorter (vc_cache_pack.c); larger objects stay as they are.
		 */
		if (len <= sizeof(zipped))
			zlen = vc_cache_pack_deflate(vc_buf_str(&dumped), len, zipped, len - 1);
		extra = rvlen + 1 + (zlen ? zlen : len) + 1;
	}
	e = vc_calloc(1, sizeof(*e) + klen + 1 + extra);
	if (!e) {
		rc = VC_ENOMEM;
		goto out_release;
	}
	if (ns) {
		memcpy(e->key, ns, nslen);
		e->key[nslen] = '/';
		memcpy(e->key + nslen + 1, name, namelen + 1);
	} else {
		memcpy(e->key, name, namelen + 1);
	}
	e->hash = hash_str(e->key);
	e->pos = NO_POS;
	if (c->packed) {
		char *p = e->key + klen + 1;

		e->klen = (uint32_t)klen;
		e->rvlen = (uint32_t)rvlen;
		e->len = (uint32_t)len;
		if (rvlen)
			memcpy(p, rv, rvlen);
		/* calloc wrote the NULs. */
		if (zlen) {
			e->len = (uint32_t)zlen;
			e->raw_len = (uint32_t)len;
			memcpy(p + rvlen + 1, zipped, zlen);
		} else {
			memcpy(p + rvlen + 1, vc_buf_str(&dumped), len);
		}
	}
	rc = entry_index_values(c, obj, e);
	if (rc)
		goto out_free;
	if (c->check) {
		char *snap = json_dumps(obj, SNAPSHOT_FLAGS);

		e->snapshot = snap ? vc_strdup(snap) : NULL;
		json_free_str(snap);
		if (!e->snapshot) {
			rc = VC_ENOMEM;
			goto out_free;
		}
	}
	if (!c->packed)
		e->obj = json_incref(obj);
	*out = e;
	vc_buf_release(&dumped);
	return 0;
out_free:
	vc_cache_entry_free(e);
out_release:
	vc_buf_release(&dumped);
	return rc;
}

void vc_cache_check_entry(const struct vc_cache *c, const struct entry *e)
{
	char *now;

	if (!c->check || !e->snapshot)
		return;
	now = json_dumps(e->obj, SNAPSHOT_FLAGS);
	if (!now)
		return; /* out of memory: this read cannot tell, a later one will */
	if (strcmp(now, e->snapshot) != 0)
		c->on_mutation(c->mutation_ctx, e->key);
	json_free_str(now);
}

/* A reader's object for e: a new reference to the cached one, or (packed) a fresh parse. */
static json_t *entry_read(const struct vc_cache *c, const struct entry *e)
{
	if (c->packed)
		return vc_cache_entry_load(e);
	vc_cache_check_entry(c, e);
	return json_incref(e->obj);
}

static void default_on_mutation(void *ctx, const char *key)
{
	(void)ctx;
	VC_ERROR("cached object was mutated", "key=%s", key);
	abort();
}

/* File e under value v of one index. */
static int ivalue_add(struct vc_hmap *values, const char *v, struct entry *e)
{
	uint64_t h = hash_str(v);
	size_t i = vc_hmap_find(values, h, v), len;
	struct ivalue *iv;
	int rc;

	if (i != VC_HMAP_NONE) {
		iv = vc_hmap_at(values, i);
		return vc_hmap_insert(&iv->members, hash_ptr(e), NULL, e);
	}
	len = strlen(v);
	iv = vc_calloc(1, sizeof(*iv) + len + 1);
	if (!iv)
		return VC_ENOMEM;
	memcpy(iv->value, v, len + 1);
	iv->hash = h;
	vc_hmap_init_set(&iv->members, hash_ptr, ptr_eq);
	rc = vc_hmap_insert(&iv->members, hash_ptr(e), NULL, e);
	if (rc)
		goto out_free;
	rc = vc_hmap_insert(values, h, NULL, iv);
	if (rc)
		goto out_members;
	return 0;
out_members:
	vc_hmap_release(&iv->members, NULL);
out_free:
	vc_free(iv);
	return rc;
}

static void ivalue_del(struct vc_hmap *values, const char *v, struct entry *e)
{
	uint64_t h = hash_str(v);
	size_t i = vc_hmap_find(values, h, v), j;
	struct ivalue *iv;

	if (i == VC_HMAP_NONE)
		return;
	iv = vc_hmap_at(values, i);
	j = vc_hmap_find(&iv->members, hash_ptr(e), e);
	if (j != VC_HMAP_NONE)
		vc_hmap_remove_at(&iv->members, j);
	if (vc_hmap_count(&iv->members))
		return;
	vc_hmap_remove_at(values, i);
	vc_hmap_release(&iv->members, NULL);
	vc_free(iv);
}

/* Remove the first n of e's index values (in index order) from st's indexes. */
static void entry_unindex_n(const struct vc_cache *c, struct store *st, struct entry *e, size_t n)
{
	size_t i, k, done = 0;

	for (i = 0; i < c->nidx; i++)
		for (k = ent_off(e)[i]; k < ent_off(e)[i + 1]; k++) {
			if (done++ == n)
				return;
			ivalue_del(&st->values[i], ent_vals(c, e)[k], e);
		}
}

void vc_cache_entry_unindex(const struct vc_cache *c, struct store *st, struct entry *e)
{
	entry_unindex_n(c, st, e, SIZE_MAX);
}

/* File e under all its index values in st; on failure nothing stays filed. */
static int entry_index(const struct vc_cache *c, struct store *st, struct entry *e)
{
	size_t i, k, done = 0;
	int rc;

	for (i = 0; i < c->nidx; i++)
		for (k = ent_off(e)[i]; k < ent_off(e)[i + 1]; k++) {
			rc = ivalue_add(&st->values[i], ent_vals(c, e)[k], e);
			if (rc) {
				entry_unindex_n(c, st, e, done);
				return rc;
			}
			done++;
		}
	return 0;
}

/* Free st's tables and value sets; its entries too when free_entries is set. */
void vc_cache_store_release(const struct vc_cache *c, struct store *st, bool free_entries)
{
	size_t i, k;
	void *iv;

	for (i = 0; i < c->nidx; i++) {
		for (k = 0; vc_hmap_next(&st->values[i], &k, NULL, &iv);)
			vc_hmap_release(&((struct ivalue *)iv)->members, NULL);
		vc_hmap_release(&st->values[i], vc_free);
	}
	vc_hmap_release(&st->entries, free_entries ? entry_free : NULL);
}

struct entry *vc_cache_store_get(const struct store *st, const char *key, size_t *pos)
{
	size_t i = vc_hmap_find(&st->entries, hash_str(key), key);

	if (pos)
		*pos = i;
	return i == VC_HMAP_NONE ? NULL : vc_hmap_at(&st->entries, i);
}

/* ---- the cache ------------------------------------------------------------------------------ */

int vc_cache_new(const struct vc_cache_opts *opts, struct vc_cache **out)
{
	pthread_rwlockattr_t attr;
	struct vc_cache *c;
	const char *env;
	size_t i, j;
	int rc;

	if (!out)
		return VC_EINVAL;
	*out = NULL;
	if (opts && opts->nindexes) {
		if (!opts->indexes || opts->nindexes > MAX_INDEXES)
			return VC_EINVAL;
		for (i = 0; i < opts->nindexes; i++) {
			if (!opts->indexes[i].name || !opts->indexes[i].fn)
				return VC_EINVAL;
			for (j = 0; j < i; j++)
				if (strcmp(opts->indexes[i].name, opts->indexes[j].name) == 0)
					return VC_EINVAL;
		}
	}
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return VC_ENOMEM;
	vc_cache_store_init(&c->st);
	if (opts) {
		for (i = 0; i < opts->nindexes; i++) {
			c->idx[i].name = opts->indexes[i].name;
			c->idx[i].fn = opts->indexes[i].fn;
			c->idx[i].arg = opts->indexes[i].arg;
		}
		c->nidx = opts->nindexes;
		c->check = (opts->flags & VC_CACHE_CHECK_MUTATIONS) != 0;
		c->packed = (opts->flags & VC_CACHE_PACKED) != 0;
		c->on_mutation = opts->on_mutation;
		c->mutation_ctx = opts->mutation_ctx;
	}
	env = getenv("VC_CACHE_MUTATION_CHECK");
	if (VC_CACHE_MUTATION_CHECK_DEFAULT || (env && strcmp(env, "1") == 0))
		c->check = true;
	if (c->packed)
		c->check = false; /* readers get private copies: nothing to check */
	if (!c->on_mutation)
		c->on_mutation = default_on_mutation;
	rc = -pthread_rwlockattr_init(&attr);
	if (rc)
		goto out_free;
	/* Writer-preferring: a steady stream of readers must not starve the informer. */
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	rc = -pthread_rwlock_init(&c->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (rc)
		goto out_free;
	*out = c;
	return 0;
out_free:
	vc_free(c);
	return rc == -ENOMEM ? VC_ENOMEM : rc;
}

void vc_cache_free(struct vc_cache *c)
{
	if (!c)
		return;
	vc_cache_store_release(c, &c->st, true);
	pthread_rwlock_destroy(&c->lock);
	vc_free(c);
}

int vc_cache_upsert(struct vc_cache *c, json_t *obj, json_t **old)
{
	struct entry *e, *prev;
	size_t pos;
	int rc;

	if (old)
		*old = NULL;
	if (!c || !obj)
		return VC_EINVAL;
	/* Index functions and the snapshot run before the lock is taken. */
	rc = vc_cache_entry_new(c, obj, &e);
	if (rc)
		return rc;
	pthread_rwlock_wrlock(&c->lock);
	prev = vc_cache_store_get(&c->st, e->key, &pos);
	if (prev)
		vc_cache_check_entry(c, prev);
	/* Packed: parse the replaced object before anything changes, so a failure changes nothing.
	 */
	if (prev && old && c->packed) {
		*old = vc_cache_entry_load(prev);
		if (!*old) {
			rc = VC_ENOMEM;
			goto out_unlock;
		}
	}
	rc = entry_index(c, &c->st, e);
	if (rc)
		goto out_unlock;
	if (prev) {
		vc_cache_entry_unindex(c, &c->st, prev);
		vc_hmap_set_at(&c->st.entries, pos, e); /* same key, same hash */
	} else {
		rc = vc_hmap_insert(&c->st.entries, e->hash, NULL, e);
		if (rc) {
			vc_cache_entry_unindex(c, &c->st, e);
			goto out_unlock;
		}
	}
	c->gen++;
	pthread_rwlock_unlock(&c->lock);
	if (prev) {
		if (old && !c->packed) {
			*old = prev->obj; /* the cache's reference becomes the caller's */
			prev->obj = NULL;
		}
		vc_cache_entry_free(prev);
	}
	return 0;
out_unlock:
	pthread_rwlock_unlock(&c->lock);
	vc_cache_entry_free(e);
	if (old) {
		json_decref(*old);
		*old = NULL;
	}
	return rc;
}

int vc_cache_delete(struct vc_cache *c, const char *key, json_t **old)
{
	struct entry *e;
	size_t pos;

	if (old)
		*old = NULL;
	if (!c || !key)
		return VC_EINVAL;
	pthread_rwlock_wrlock(&c->lock);
	e = vc_cache_store_get(&c->st, key, &pos);
	if (!e) {
		pthread_rwlock_unlock(&c->lock);
		return VC_ENOTFOUND;
	}
	vc_cache_check_entry(c, e);
	if (old && c->packed) {
		*old = vc_cache_entry_load(e);
		if (!*old) {
			pthread_rwlock_unlock(&c->lock);
			return VC_ENOMEM;
		}
	}
	vc_cache_entry_unindex(c, &c->st, e);
	vc_hmap_remove_at(&c->st.entries, pos);
	c->gen++;
	pthread_rwlock_unlock(&c->lock);
	if (old && !c->packed) {
		*old = e->obj;
		e->obj = NULL;
	}
	vc_cache_entry_free(e);
	return 0;
}

void vc_cache_deltas_release(struct vc_cache_deltas *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->count; i++) {
		json_decref(d->items[i].old_obj);
		json_decref(d->items[i].new_obj);
	}
	vc_free(d->items);
	d->items = NULL;
	d->count = 0;
}

/* Same resourceVersion, or (when either has none) the same content. */
static bool same_version(const json_t *a, const json_t *b)
{
	const char *ra = json_string_value(
		json_object_get(json_object_get(a, "metadata"), "resourceVersion"));
	const char *rb = json_string_value(
		json_object_get(json_object_get(b, "metadata"), "resourceVersion"));

	if (ra && rb && *ra && *rb)
		return strcmp(ra, rb) == 0;
	return json_equal((json_t *)a, (json_t *)b);
}

/*
 * same_version() for packed entries: resourceVersions, or the serializations (equal ones are
 * deflated to equal bytes: vc_cache_pack.c).
 */
static bool same_packed_version(const struct entry *a, const struct entry *b)
{
	if (a->rvlen && b->rvlen)
		return a->rvlen == b->rvlen && memcmp(ent_rv(a), ent_rv(b), a->rvlen) == 0;
	return a->len == b->len && a->raw_len == b->raw_len &&
	       memcmp(ent_data(a), ent_data(b), a->len) == 0;
}

static bool same_index_values(const struct vc_cache *c, const struct entry *a,
			      const struct entry *b)
{
	size_t i;

	if (!c->nidx)
		return true;
	if (ent_off(a)[c->nidx] != ent_off(b)[c->nidx])
		return false;
	for (i = 0; i <= c->nidx; i++)
		if (ent_off(a)[i] != ent_off(b)[i])
			return false;
	for (i = 0; i < ent_off(a)[c->nidx]; i++)
		if (strcmp(ent_vals(c, a)[i], ent_vals(c, b)[i]) != 0)
			return false;
	return true;
}

int vc_cache_cmp_entry_key(const void *a, const void *b)
{
	const struct entry *ea = *(const struct entry *const *)a;
	const struct entry *eb = *(const struct entry *const *)b;

	return strcmp(ea->key, eb->key);
}

/*
 * Keep the cached object of an unchanged key: e takes a reference to prev's object (and a copy
 * of its snapshot) instead of the listed one.
 */
static int entry_reuse(const struct vc_cache *c, struct entry *e, const struct entry *prev)
{
	char *snap;

	if (c->check && prev->snapshot) {
		snap = vc_strdup(prev->snapshot);
		if (!snap)
			return VC_ENOMEM;
		vc_free(e->snapshot);
		e->snapshot = snap;
	}
	json_decref(e->obj);
	e->obj = json_incref(prev->obj);
	return 0;
}

/*
 * entry_reuse() for a packed cache: *pe takes prev's resourceVersion and serialization (one
 * realloc, unless they are already the same bytes). *pe must not be filed anywhere yet.
 */
static int entry_reuse_packed(struct entry **pe, const struct entry *prev)
{
	struct entry *e = *pe, *grown;
	size_t tail = (size_t)prev->rvlen + 1 + prev->len + 1;

	if (e->rvlen != prev->rvlen || e->len != prev->len || e->raw_len != prev->raw_len ||
	    memcmp(ent_rv(e), ent_rv(prev), tail) != 0) {
		grown = vc_realloc(e, sizeof(*e) + e->klen + 1 + tail);
		if (!grown)
			return VC_ENOMEM;
		e = grown;
		memcpy(e->key + e->klen + 1, ent_rv(prev), tail);
		e->rvlen = prev->rvlen;
		e->len = prev->len;
		e->raw_len = prev->raw_len;
		*pe = e;
	}
	e->unchanged = true;
	return 0;
}

static void deltas_drop(struct vc_cache_delta *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		json_decref(d[i].old_obj);
		json_decref(d[i].new_obj);
	}
}

/*
 * With c's write lock held, file ents[0..n-1] in ns (empty, its entry table reserved for n) as
 * the relist's new store: an entry whose key is cached unchanged takes the cached version (and
 * is marked unchanged), a key listed twice keeps its later entry (the earlier one gets pos
 * NO_POS and stays out of ns). On failure ns may hold part of the entries: release it with
 * vc_cache_store_release(c, ns, false); the entries themselves stay the caller's.
 */
int vc_cache_store_build(const struct vc_cache *c, struct entry **ents, size_t n, struct store *ns)
{
	struct entry *e, *prev;
	size_t i, pos;
	int rc;

	for (i = 0; i < n; i++) {
		e = ents[i];
		prev = vc_cache_store_get(&c->st, e->key, NULL);
		if (prev && c->packed && same_packed_version(prev, e) &&
		    same_index_values(c, prev, e)) {
			rc = entry_reuse_packed(&ents[i], prev);
			if (rc)
				return rc;
			e = ents[i];
		} else if (prev && !c->packed && same_version(prev->obj, e->obj) &&
			   same_index_values(c, prev, e)) {
			rc = entry_reuse(c, e, prev);
			if (rc)
				return rc;
			e->unchanged = true;
		}
		rc = entry_index(c, ns, e);
		if (rc)
			return rc;
		prev = vc_cache_store_get(ns, e->key, &pos);
		if (prev) {
			/* A key listed twice: the later object wins. */
			vc_cache_entry_unindex(c, ns, prev);
			prev->pos = NO_POS;
			vc_hmap_set_at(&ns->entries, pos, e);
		} else {
			rc = vc_hmap_insert(&ns->entries, e->hash, NULL, e);
			if (rc) {
				vc_cache_entry_unindex(c, ns, e);
				return rc;
			}
		}
	}
	return 0;
}

int vc_cache_replace(struct vc_cache *c, json_t *const *objs, size_t n, struct vc_cache_deltas *out)
{
	struct entry **ents = NULL, **gone = NULL, *e, *prev;
	struct vc_cache_delta *d = NULL, *grown;
	struct store ns;
	size_t i, k, nd = 0, ngone = 0;
	int rc = 0;

	if (out) {
		out->items = NULL;
		out->count = 0;
	}
	if (!c || (n && !objs))
		return VC_EINVAL;
	vc_cache_store_init(&ns);
	if (n) {
		ents = vc_calloc(n, sizeof(struct entry *));
		if (out)
			d = vc_calloc(n, sizeof(*d));
		if (!ents || (out && !d)) {
			rc = VC_ENOMEM;
			goto out_free;
		}
	}
	for (i = 0; i < n; i++) {
		rc = vc_cache_entry_new(c, objs[i], &ents[i]);
		if (rc)
			goto out_free;
		ents[i]->pos = i;
	}
	rc = vc_hmap_reserve(&ns.entries, n);
	if (rc)
		goto out_free;

	pthread_rwlock_wrlock(&c->lock);
	for (k = 0; c->check && (prev = vc_cache_store_next(&c->st, &k));)
		vc_cache_check_entry(c, prev);
	rc = vc_cache_store_build(c, ents, n, &ns);
	if (rc)
		goto out_rollback;
	/* The keys that vanished, sorted. */
	for (k = 0; (prev = vc_cache_store_next(&c->st, &k));)
		if (!vc_cache_store_get(&ns, prev->key, NULL))
			ngone++;
	if (ngone && out) {
		gone = vc_calloc(ngone, sizeof(struct entry *));
		grown = vc_realloc(d, (n + ngone) * sizeof(*d));
		if (!grown || !gone) {
			rc = VC_ENOMEM;
			goto out_rollback;
		}
		d = grown;
		for (k = 0, i = 0; (prev = vc_cache_store_next(&c->st, &k));)
			if (!vc_cache_store_get(&ns, prev->key, NULL))
				gone[i++] = prev;
		qsort(gone, ngone, sizeof(struct entry *), vc_cache_cmp_entry_key);
	}
	if (out) {
		for (i = 0; i < n; i++) {
			e = ents[i];
			if (e->pos == NO_POS)
				continue;
			prev = vc_cache_store_get(&c->st, e->key, NULL);
			if (c->packed) {
				/* new_obj is the listed object, as unpacked; old_obj a parse. */
				if (e->unchanged)
					continue;
				d[nd].old_obj = prev ? vc_cache_entry_load(prev) : NULL;
				if (prev && !d[nd].old_obj)
					goto out_nomem_deltas;
				d[nd++].new_obj = json_incref(objs[e->pos]);
				continue;
			}
			if (prev && prev->obj == e->obj)
				continue;
			d[nd].old_obj = prev ? json_incref(prev->obj) : NULL;
			d[nd].new_obj = json_incref(e->obj);
			nd++;
		}
		for (i = 0; i < ngone; i++) {
			d[nd].old_obj = c->packed ? vc_cache_entry_load(gone[i])
						  : json_incref(gone[i]->obj);
			if (!d[nd].old_obj)
				goto out_nomem_deltas;
			d[nd].new_obj = NULL;
			nd++;
		}
	}
	/* Commit: nothing below can fail. */
	vc_cache_store_release(c, &c->st, true);
	c->st = ns;
	c->gen++;
	pthread_rwlock_unlock(&c->lock);
	for (i = 0; i < n; i++)
		if (ents[i]->pos == NO_POS)
			vc_cache_entry_free(ents[i]);
	vc_free(ents);
	vc_free(gone);
	if (out && nd) {
		out->items = d;
		out->count = nd;
	} else {
		vc_free(d);
	}
	return 0;

out_nomem_deltas:
	deltas_drop(d, nd);
	rc = VC_ENOMEM;
out_rollback:
	vc_cache_store_release(c, &ns, false);
	pthread_rwlock_unlock(&c->lock);
	vc_cache_store_init(&ns);
out_free:
	vc_cache_store_release(c, &ns, false);
	for (i = 0; ents && i < n; i++)
		vc_cache_entry_free(ents[i]);
	vc_free(ents);
	vc_free(gone);
	vc_free(d);
	return rc;
}

/* ---- reads ------------------------------------------------------------------------------- */

json_t *vc_cache_get(struct vc_cache *c, const char *key)
{
	struct entry *e;
	json_t *obj = NULL;

	if (!c || !key)
		return NULL;
	pthread_rwlock_rdlock(&c->lock);
	e = vc_cache_store_get(&c->st, key, NULL);
	if (e)
		obj = entry_read(c, e);
	pthread_rwlock_unlock(&c->lock);
	if (e && !obj)
		VC_WARN("cache cannot parse a packed object", "key=%s error=\"out of memory\"",
			key);
	return obj;
}

size_t vc_cache_count(struct vc_cache *c)
{
	size_t n;

	if (!c)
		return 0;
	pthread_rwlock_rdlock(&c->lock);
	n = vc_hmap_count(&c->st.entries);
	pthread_rwlock_unlock(&c->lock);
	return n;
}

void vc_objs_release(struct vc_objs *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->count; i++)
		json_decref(o->items[i]);
	vc_free(o->items);
	o->items = NULL;
	o->count = 0;
}

/* Take a reference to every entry of set t (entries, or an ivalue's members) into out. */
static int collect(const struct vc_cache *c, const struct vc_hmap *t, struct vc_objs *out)
{
	size_t k, n = 0;
	void *e;

	if (!vc_hmap_count(t))
		return 0;
	out->items = vc_calloc(vc_hmap_count(t), sizeof(json_t *));
	if (!out->items)
		return VC_ENOMEM;
	for (k = 0; vc_hmap_next(t, &k, NULL, &e);) {
		out->items[n] = entry_read(c, e);
		if (!out->items[n]) {
			out->count = n;
			vc_objs_release(out);
			return VC_ENOMEM;
		}
		n++;
	}
	out->count = n;
	return 0;
}

int vc_cache_list(struct vc_cache *c, struct vc_objs *out)
{
	int rc;

	if (!out)
		return VC_EINVAL;
	out->items = NULL;
	out->count = 0;
	if (!c)
		return VC_EINVAL;
	pthread_rwlock_rdlock(&c->lock);
	rc = collect(c, &c->st.entries, out);
	pthread_rwlock_unlock(&c->lock);
	return rc;
}

static size_t find_index(const struct vc_cache *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nidx; i++)
		if (strcmp(c->idx[i].name, name) == 0)
			return i;
	return NO_POS;
}

int vc_cache_by_index(struct vc_cache *c, const char *index, const char *value, struct vc_objs *out)
{
	const struct ivalue *iv;
	size_t i, pos;
	int rc = 0;

	if (!out)
		return VC_EINVAL;
	out->items = NULL;
	out->count = 0;
	if (!c || !index || !value)
		return VC_EINVAL;
	i = find_index(c, index);
	if (i == NO_POS)
		return VC_ENOENT;
	pthread_rwlock_rdlock(&c->lock);
	pos = vc_hmap_find(&c->st.values[i], hash_str(value), value);
	if (pos != VC_HMAP_NONE) {
		iv = vc_hmap_at(&c->st.values[i], pos);
		rc = collect(c, &iv->members, out);
	}
	pthread_rwlock_unlock(&c->lock);
	return rc;
}

size_t vc_cache_index_count(struct vc_cache *c, const char *index, const char *value)
{
	const struct ivalue *iv;
	size_t i, pos, n = 0;

	if (!c || !index || !value)
		return 0;
	i = find_index(c, index);
	if (i == NO_POS)
		return 0;
	pthread_rwlock_rdlock(&c->lock);
	pos = vc_hmap_find(&c->st.values[i], hash_str(value), value);
	if (pos != VC_HMAP_NONE) {
		iv = vc_hmap_at(&c->st.values[i], pos);
		n = vc_hmap_count(&iv->members);
	}
	pthread_rwlock_unlock(&c->lock);
	return n;
}

bool vc_cache_has_version(struct vc_cache *c, const char *key, const char *rv)
{
	const struct entry *e;
	const char *cur;
	bool same = false;

	if (!c || !key || !rv || !*rv)
		return false;
	pthread_rwlock_rdlock(&c->lock);
	e = vc_cache_store_get(&c->st, key, NULL);
	if (e) {
		cur = c->packed ? ent_rv(e)
				: json_string_value(json_object_get(
					  json_object_get(e->obj, "metadata"), "resourceVersion"));
		same = cur && strcmp(cur, rv) == 0;
	}
	pthread_rwlock_unlock(&c->lock);
	return same;
}

void vc_cache_keys_release(struct vc_cache_keys *k)
{
	if (!k)
		return;
	vc_free(k->items);
	k->items = NULL;
	k->count = 0;
}

int vc_cache_keys(struct vc_cache *c, struct vc_cache_keys *out)
{
	const struct entry *e;
	size_t k, n = 0, size;
	char *p;

	if (!out)
		return VC_EINVAL;
	out->items = NULL;
	out->count = 0;
	if (!c)
		return VC_EINVAL;
	pthread_rwlock_rdlock(&c->lock);
	if (!vc_hmap_count(&c->st.entries))
		goto out_unlock;
	/* One block: the pointers, then the strings. */
	size = vc_hmap_count(&c->st.entries) * sizeof(char *);
	for (k = 0; (e = vc_cache_store_next(&c->st, &k));)
		size += strlen(e->key) + 1;
	out->items = vc_malloc(size);
	if (!out->items) {
		pthread_rwlock_unlock(&c->lock);
		return VC_ENOMEM;
	}
	p = (char *)(out->items + vc_hmap_count(&c->st.entries));
	for (k = 0; (e = vc_cache_store_next(&c->st, &k));) {
		size_t len = strlen(e->key) + 1;

		memcpy(p, e->key, len);
		out->items[n++] = p;
		p += len;
	}
	out->count = n;
out_unlock:
	pthread_rwlock_unlock(&c->lock);
	return 0;
}

/* ---- index functions ------------------------------------------------------------------------ */

int vc_cache_index_by_namespace(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *ns =
		json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));

	(void)arg;
	if (!ns || !*ns)
		return 0;
	return vc_index_values_add(vals, ns);
}

int vc_cache_index_by_label(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels");
	const char *v;

	if (!arg)
		return 0;
	v = json_string_value(json_object_get(labels, arg));
	return v ? vc_index_values_add(vals, v) : 0;
}

int vc_cache_index_by_field(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *v;

	if (!arg)
		return 0;
	v = json_string_value(vc_json_path(obj, arg));
	return v ? vc_index_values_add(vals, v) : 0;
}
