/*
 * vc_cache_internal.h - the cache's entries and store (sets of struct vc_hmap), shared by
 * vc_cache.c (the store, writes, full relists, reads) and vc_cache_stage.c (staged relists).
 * Private to those two files.
 */
#ifndef VC_CACHE_INTERNAL_H
#define VC_CACHE_INTERNAL_H

#include "vc_cache.h"

#include <pthread.h>

#include "vc_hash.h"

/* An index function's values for one object may not exceed this many bytes in total. */
#define INDEX_VALUES_MAX ((size_t)1 << 20)
#define MAX_INDEXES	 16
#define NO_POS		 SIZE_MAX
#define SNAPSHOT_FLAGS	 (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)
#define PACK_FLAGS	 JSON_COMPACT
#define UNPACK_FLAGS	 JSON_ALLOW_NUL
#define PACK_SCRATCH	 8192 /* the largest serialization deflated: stack for it and its inflation */

struct entry {
	json_t *obj;	/* the cache's reference; NULL in a packed cache */
	char *snapshot; /* mutation check: obj serialized when it was stored, or NULL */
	/*
	 * Index values, one block: size_t off[nidx + 1], then char *val[off[nidx]], then the
	 * strings. Index i's values are val[off[i]] .. val[off[i + 1] - 1]. NULL when nidx is 0.
	 */
	void *iv;
	size_t pos; /* vc_cache_replace: position in objs, NO_POS once superseded */
	uint64_t hash;
	/*
	 * A packed cache: key[] holds the key, its NUL, the resourceVersion ("" for none), its
	 * NUL, then the object's compact serialization and a NUL (klen, rvlen and len bytes).
	 * With raw_len set, the len bytes are that serialization deflated (vc_cache_pack.c), and
	 * it is raw_len bytes long.
	 */
	uint32_t klen, rvlen, len, raw_len;
	bool unchanged; /* vc_cache_replace, staged commits: kept the cached version */
	bool kept;	/* staged commit: an old entry handed over to the changes */
	char key[];
};

/*
 * vc_cache_pack.c: a packed serialization's compression. vc_cache_pack_deflate writes src's
 * deflate (n bytes in) into dst and returns its length, or 0 when it does not fit in cap bytes
 * or cannot be made (memory): the caller then keeps src as it is. vc_cache_pack_inflate writes
 * the raw bytes of what vc_cache_pack_deflate made (n bytes) into dst: 0, VC_ENOMEM, or
 * VC_EINVAL when src is not such a deflate of exactly raw bytes.
 */
size_t vc_cache_pack_deflate(const char *src, size_t n, char *dst, size_t cap);
int vc_cache_pack_inflate(const char *src, size_t n, char *dst, size_t raw) VC_WARN_UNUSED;

/* One value of one index, and the set of entries filed under it. */
struct ivalue {
	struct vc_hmap members; /* set of entries, hashed by address */
	uint64_t hash;
	char value[];
};

struct store {
	struct vc_hmap entries;		    /* set of struct entry, by key */
	struct vc_hmap values[MAX_INDEXES]; /* per index: set of struct ivalue, by value */
};

struct cache_index {
	const char *name;
	vc_cache_index_fn *fn;
	const void *arg;
};

struct vc_cache {
	pthread_rwlock_t lock;
	struct cache_index idx[MAX_INDEXES];
	size_t nidx;
	struct store st;
	uint64_t gen; /* bumped by every write (under the write lock) */
	bool check;
	bool packed;
	vc_cache_mutation_fn *on_mutation;
	void *mutation_ctx;
};

/* A packed entry's object, freshly parsed; NULL only when memory runs out. */
json_t *vc_cache_entry_load(const struct entry *e);
void vc_cache_entry_free(struct entry *e);
/* A new entry for obj, with its key, index values and snapshot (see vc_cache.c). */
int vc_cache_entry_new(const struct vc_cache *c, json_t *obj, struct entry **out);
void vc_cache_check_entry(const struct vc_cache *c, const struct entry *e);
void vc_cache_entry_unindex(const struct vc_cache *c, struct store *st, struct entry *e);
/* An empty store: no allocation. */
void vc_cache_store_init(struct store *st);
/* The next entry of st's table from *pos (start at 0), in slot order, or NULL at the end. */
static inline struct entry *vc_cache_store_next(const struct store *st, size_t *pos)
{
	void *e;

	return vc_hmap_next(&st->entries, pos, NULL, &e) ? e : NULL;
}
/* Free st's tables and value sets; its entries too when free_entries is set. */
void vc_cache_store_release(const struct vc_cache *c, struct store *st, bool free_entries);
/* The entry under key, or NULL; *pos (may be NULL) receives its slot or VC_HMAP_NONE. */
struct entry *vc_cache_store_get(const struct store *st, const char *key, size_t *pos);
/* qsort comparator of struct entry * by key. */
int vc_cache_cmp_entry_key(const void *a, const void *b);
/* File ents[0..n-1] in ns as a relist's new store, with c's write lock held (see vc_cache.c). */
int vc_cache_store_build(const struct vc_cache *c, struct entry **ents, size_t n, struct store *ns);

#endif /* VC_CACHE_INTERNAL_H */
