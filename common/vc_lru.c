/*
 * vc_lru.c - an LRU map from strings to owned values (the API is in vc_lru.h): a chained hash
 * table over FNV-1a for lookups and a doubly linked recency list with a sentinel for eviction.
 */
#include "vc_lru.h"

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_hash.h"

int vc_lru_init(struct vc_lru *l, size_t cap, void (*free_val)(void *val))
{
	size_t n = 16;

	memset(l, 0, sizeof(*l));
	while (n < cap && n < ((size_t)1 << 30))
		n <<= 1;
	l->buckets = vc_calloc(n, sizeof(struct vc_lru_node *));
	if (!l->buckets)
		return VC_ENOMEM;
	l->mask = n - 1;
	l->cap = cap ? cap : 1;
	l->head.prev = l->head.next = &l->head;
	l->free_val = free_val;
	return 0;
}

static void lru_link_front(struct vc_lru *l, struct vc_lru_node *n)
{
	n->prev = &l->head;
	n->next = l->head.next;
	l->head.next->prev = n;
	l->head.next = n;
}

static void lru_unlink(struct vc_lru_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

/* The entry for key, made the most recent; NULL when absent. */
struct vc_lru_node *vc_lru_find(struct vc_lru *l, const char *key)
{
	uint64_t h = vc_fnv1a64(key);
	struct vc_lru_node *n;

	for (n = l->buckets[h & l->mask]; n; n = n->hnext) {
		if (n->hash == h && strcmp(n->key, key) == 0) {
			lru_unlink(n);
			lru_link_front(l, n);
			return n;
		}
	}
	return NULL;
}

static void lru_drop(struct vc_lru *l, struct vc_lru_node *n)
{
	struct vc_lru_node **p = &l->buckets[n->hash & l->mask];

	while (*p != n)
		p = &(*p)->hnext;
	*p = n->hnext;
	lru_unlink(n);
	l->free_val(n->val);
	vc_free(n); /* the key with it */
	l->count--;
}

/*
 * Set key to val (owned from now on), evicting the least recently used entry when full. On
 * VC_ENOMEM val still belongs to the caller.
 */
int vc_lru_put(struct vc_lru *l, const char *key, void *val)
{
	struct vc_lru_node *n = vc_lru_find(l, key);
	size_t len;

	if (n) {
		l->free_val(n->val);
		n->val = val;
		return 0;
	}
	/* The key's copy follows the node in the same block: one allocation per entry. */
	len = strlen(key);
	n = vc_malloc(sizeof(*n) + len + 1);
	if (!n)
		return VC_ENOMEM;
	memset(n, 0, sizeof(*n));
	n->key = (char *)(n + 1);
	memcpy(n->key, key, len + 1);
	if (l->count >= l->cap)
		lru_drop(l, l->head.prev);
	n->hash = vc_fnv1a64(key);
	n->val = val;
	n->hnext = l->buckets[n->hash & l->mask];
	l->buckets[n->hash & l->mask] = n;
	lru_link_front(l, n);
	l->count++;
	return 0;
}

void vc_lru_release(struct vc_lru *l)
{
	if (!l->buckets)
		return;
	while (l->head.next != &l->head)
		lru_drop(l, l->head.next);
	vc_free(l->buckets);
	l->buckets = NULL;
}
