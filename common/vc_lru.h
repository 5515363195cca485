/*
 * vc_lru.h - an LRU map from strings to owned values, of a fixed capacity: putting a new key
 * into a full map evicts (and frees) the least recently used entry; finding or putting a key
 * makes it the most recent. Keys are copied; values are owned by the map from a successful
 * vc_lru_put on and freed with the free_val given to vc_lru_init when replaced, evicted or
 * released. Not thread-safe: the caller serialises every call on one map. client-go's
 * EventCorrelator caches (vc_events.c) are the user.
 */
#ifndef VC_LRU_H
#define VC_LRU_H

#include "vc_prelude.h"

/* An entry: val may be read and replaced by the caller (key is the map's). */
struct vc_lru_node {
	struct vc_lru_node *prev, *next; /* recency list; the sentinel's next is the most recent */
	struct vc_lru_node *hnext;	 /* hash chain */
	uint64_t hash;
	char *key; /* in the node's own block, after it */
	void *val;
};

struct vc_lru {
	struct vc_lru_node **buckets;
	size_t mask;
	size_t count;
	size_t cap;
	struct vc_lru_node head;
	void (*free_val)(void *val);
};

/*
 * An empty map holding at most cap entries (0 counts as 1); free_val frees a value (must not be
 * NULL). 0 or VC_ENOMEM (nothing to release then).
 */
int vc_lru_init(struct vc_lru *l, size_t cap, void (*free_val)(void *val)) VC_WARN_UNUSED;
/* The entry for key, made the most recent; NULL when absent. */
struct vc_lru_node *vc_lru_find(struct vc_lru *l, const char *key);
/*
 * Set key to val (owned from now on), evicting the least recently used entry when full. On
 * VC_ENOMEM val still belongs to the caller.
 */
int vc_lru_put(struct vc_lru *l, const char *key, void *val) VC_WARN_UNUSED;
/* Free every entry (their values with free_val) and the table. A released or zeroed map is a
 * no-op. */
void vc_lru_release(struct vc_lru *l);

#endif /* VC_LRU_H */
