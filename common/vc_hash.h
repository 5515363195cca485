/*
 * vc_hash.h - the string hash (FNV-1a) and the hash map every module uses.
 *
 * FNV-1a: offset basis 14695981039346656037 (0xcbf29ce484222325) and prime 1099511628211 for
 * 64 bits; 2166136261 and 16777619 for 32 bits. Values are stable across runs and builds, so a
 * caller may let one become visible (sharding, names); say so where it happens.
 *
 * struct vc_hmap: open addressing, linear probing, backward-shift deletion (no tombstones, so a
 * map that sees millions of updates never degrades), load factor at most 3/4, capacity a power
 * of two that doubles on growth and halves when the map becomes sparse. Keys are either C
 * strings the map copies and owns (vc_hmap_init_str) or caller pointers hashed and compared by
 * caller functions (vc_hmap_init), which the map borrows; or the map is a set of caller items
 * that are their own keys (vc_hmap_init_set: 16-byte slots, the informer cache's tables).
 * Iteration order follows the slots: it depends on the hash, the insertion history and the
 * capacity, so a caller whose output order is visible must sort (or, like vc_cache, keep that
 * history). Not thread-safe: callers lock.
 */
#ifndef VC_HASH_H
#define VC_HASH_H

#include "vc_prelude.h"

#define VC_FNV64_OFFSET UINT64_C(14695981039346656037)
#define VC_FNV64_PRIME	UINT64_C(1099511628211)
#define VC_FNV32_OFFSET UINT32_C(2166136261)
#define VC_FNV32_PRIME	UINT32_C(16777619)

/* 64-bit FNV-1a of the bytes of the C string s. */
uint64_t vc_fnv1a64(const char *s);
/* 64-bit FNV-1a of n bytes at p, continuing from h (pass VC_FNV64_OFFSET to start). */
uint64_t vc_fnv1a64_bytes(uint64_t h, const void *p, size_t n);
/* 32-bit FNV-1a of the bytes of the C string s (Go's hash/fnv New32a over the same bytes). */
uint32_t vc_fnv1a32(const char *s);
/* MurmurHash3's 64-bit finalizer: spreads every input bit over the low bits. A bijection. */
uint64_t vc_hash_mix64(uint64_t h);

/* The hash of a key and the equality of a stored key (a set's item) with a looked-up key. */
typedef uint64_t vc_hmap_hash_fn(const void *key);
typedef bool vc_hmap_eq_fn(const void *stored, const void *key);

/* No slot (vc_hmap_find). */
#define VC_HMAP_NONE SIZE_MAX

/*
 * A set's slot (16 bytes); a map's slot is this followed by the value (24 bytes). Private to
 * vc_hash.c and the inline vc_hmap_next: callers use the functions.
 */
struct vc_hmap_slot {
	uint64_t hash;
	void *key; /* NULL: empty; in a set the item itself */
};

struct vc_hmap_kv_slot {
	struct vc_hmap_slot s;
	void *val;
};

struct vc_hmap {
	void *slots; /* cap slots of stride bytes */
	size_t cap;  /* 0 or a power of two */
	size_t count;
	size_t stride;
	vc_hmap_hash_fn *hash;
	vc_hmap_eq_fn *eq;
	bool own_keys;	 /* keys are C strings copied by vc_hmap_put and freed by the map */
	bool set;	 /* the items are their own keys: no separate value */
	bool free_empty; /* free the table when a removal empties it */
};

/* An empty map of C string keys, hashed with vc_fnv1a64 and copied on insertion. No allocation. */
void vc_hmap_init_str(struct vc_hmap *m);
/*
 * An empty map whose keys are the caller's pointers (never NULL), borrowed: they must stay valid
 * and unchanged while stored. hash(key) must agree with eq: equal keys, equal hashes.
 */
void vc_hmap_init(struct vc_hmap *m, vc_hmap_hash_fn *hash, vc_hmap_eq_fn *eq);
/*
 * An empty set of the caller's items (never NULL), borrowed: each item is its own key, found by
 * eq(item, key) with hash(key) equal to the item's hash, so a slot holds only the hash and the
 * item. Everywhere below, a set's value is its item: vc_hmap_get returns it, vc_hmap_next yields
 * it as both key and value, and vc_hmap_put(m, key, item, old) stores item under hash(key). A set
 * frees its table when a removal empties it (a map keeps its smallest table). No allocation.
 */
void vc_hmap_init_set(struct vc_hmap *m, vc_hmap_hash_fn *hash, vc_hmap_eq_fn *eq);
/* Free the table and owned keys; free_val (may be NULL) is called on every value. Reusable. */
void vc_hmap_release(struct vc_hmap *m, void (*free_val)(void *val));

static inline size_t vc_hmap_count(const struct vc_hmap *m)
{
	return m->count;
}

/* The value stored under key, or NULL when absent (or when NULL was stored). */
void *vc_hmap_get(const struct vc_hmap *m, const void *key);
/* Whether key is present; *val (may be NULL) receives its value. */
bool vc_hmap_lookup(const struct vc_hmap *m, const void *key, void **val);
/*
 * Store val under key, replacing an existing value; *old (may be NULL) receives the replaced
 * value, or NULL when the key was new. A string map copies a new key. 0 or VC_ENOMEM, in which
 * case the map is unchanged.
 */
int vc_hmap_put(struct vc_hmap *m, const void *key, void *val, void **old) VC_WARN_UNUSED;
/* Remove key. Returns whether it was present; *val (may be NULL) receives its value. */
bool vc_hmap_remove(struct vc_hmap *m, const void *key, void **val);
/* Remove every entry (calling free_val, may be NULL, on the values) and keep the table. */
void vc_hmap_clear(struct vc_hmap *m, void (*free_val)(void *val));

/*
 * Iterate: start with *pos = 0 and call until it returns false; each call yields one entry's key
 * and value (either out pointer may be NULL). The map must not change during an iteration,
 * except through vc_hmap_remove of the entry just yielded followed by a restart at *pos = 0.
 */
static inline bool vc_hmap_next(const struct vc_hmap *m, size_t *pos, const void **key, void **val)
{
	const struct vc_hmap_slot *s;
	size_t i;

	if (*pos >= m->cap) {
		*pos = m->cap;
		return false;
	}
	/* Inline, stepping through the slots by address: this loop is every cache list's. */
	s = (const struct vc_hmap_slot *)((const char *)m->slots + *pos * m->stride);
	for (i = *pos; i < m->cap; i++, s = (const void *)((const char *)s + m->stride)) {
		if (!s->key)
			continue;
		if (key)
			*key = s->key;
		if (val)
			*val = m->set ? s->key : ((const struct vc_hmap_kv_slot *)s)->val;
		*pos = i + 1;
		return true;
	}
	*pos = m->cap;
	return false;
}

/*
 * Slot-level access, for callers that keep an item's hash and want neither to recompute it nor
 * to look a key up twice. A position stays valid until the map next changes (except through
 * vc_hmap_set_at).
 */

/*
 * Make room for n entries in all without further allocation (load factor at most 3/4): grows the
 * table, never shrinks it. A map with no table gets one of the smallest capacity even for n = 0.
 * 0 or VC_ENOMEM, in which case the map is unchanged. Reserving before a series of insertions
 * gives the same slots as the insertions growing the table themselves only when the capacity
 * ends up the same: iteration order depends on the capacity the entries were placed at.
 */
int vc_hmap_reserve(struct vc_hmap *m, size_t n) VC_WARN_UNUSED;
/* The position of key, whose hash (m's hash function's value) is hash, or VC_HMAP_NONE. */
size_t vc_hmap_find(const struct vc_hmap *m, uint64_t hash, const void *key);
/* The value (a set's item) at position pos, which holds an entry. */
void *vc_hmap_at(const struct vc_hmap *m, size_t pos);
/* Replace the value at pos; in a set, by an item with the same key (and so the same hash). */
void vc_hmap_set_at(struct vc_hmap *m, size_t pos, void *val);
/*
 * Add key, which is not present, with its hash and val (in a set, key is ignored and val is the
 * item). A string map copies the key. 0 or VC_ENOMEM, in which case the map is unchanged.
 */
int vc_hmap_insert(struct vc_hmap *m, uint64_t hash, const void *key, void *val) VC_WARN_UNUSED;
/* Remove the entry at pos (freeing an owned key); the map may shrink. Never fails. */
void vc_hmap_remove_at(struct vc_hmap *m, size_t pos);

#endif /* VC_HASH_H */
