/*
 * vc_hash.c - FNV-1a and the open-addressing hash map (see vc_hash.h for the contract).
 */
#include "vc_hash.h"

#include "vc_alloc.h"
#include "vc_err.h"

#define HMAP_MIN_CAP 8

uint64_t vc_fnv1a64_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= VC_FNV64_PRIME;
	}
	return h;
}

uint64_t vc_fnv1a64(const char *s)
{
	return vc_fnv1a64_bytes(VC_FNV64_OFFSET, s, strlen(s));
}

uint32_t vc_fnv1a32(const char *s)
{
	uint32_t h = VC_FNV32_OFFSET;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= VC_FNV32_PRIME;
	}
	return h;
}

uint64_t vc_hash_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

static uint64_t str_hash(const void *key)
{
	return vc_hash_mix64(vc_fnv1a64(key));
}

static bool str_eq(const void *stored, const void *key)
{
	return strcmp(stored, key) == 0;
}

void vc_hmap_init(struct vc_hmap *m, vc_hmap_hash_fn *hash, vc_hmap_eq_fn *eq)
{
	memset(m, 0, sizeof(*m));
	m->stride = sizeof(struct vc_hmap_kv_slot);
	m->hash = hash;
	m->eq = eq;
}

void vc_hmap_init_str(struct vc_hmap *m)
{
	vc_hmap_init(m, str_hash, str_eq);
	m->own_keys = true;
}

void vc_hmap_init_set(struct vc_hmap *m, vc_hmap_hash_fn *hash, vc_hmap_eq_fn *eq)
{
	vc_hmap_init(m, hash, eq);
	m->stride = sizeof(struct vc_hmap_slot);
	m->set = true;
	m->free_empty = true;
}

static struct vc_hmap_slot *slot_in(void *slots, size_t stride, size_t i)
{
	return (struct vc_hmap_slot *)((char *)slots + i * stride);
}

static struct vc_hmap_slot *slot(const struct vc_hmap *m, size_t i)
{
	return slot_in(m->slots, m->stride, i);
}

static void **val_ref(const struct vc_hmap *m, size_t i)
{
	return m->set ? &slot(m, i)->key : &((struct vc_hmap_kv_slot *)slot(m, i))->val;
}

size_t vc_hmap_find(const struct vc_hmap *m, uint64_t hash, const void *key)
{
	size_t mask, i;
	const struct vc_hmap_slot *s;

	if (!m->cap)
		return VC_HMAP_NONE;
	mask = m->cap - 1;
	for (i = hash & mask; (s = slot(m, i))->key; i = (i + 1) & mask)
		if (s->hash == hash && m->eq(s->key, key))
			return i;
	return VC_HMAP_NONE;
}

/* Copy the slot s into the first free slot of its probe run. */
static void hmap_place(void *slots, size_t cap, size_t stride, const struct vc_hmap_slot *s)
{
	size_t mask = cap - 1, i;

	for (i = s->hash & mask; slot_in(slots, stride, i)->key; i = (i + 1) & mask)
		;
	memcpy(slot_in(slots, stride, i), s, stride);
}

static int hmap_resize(struct vc_hmap *m, size_t cap)
{
	void *s;
	size_t i;

	if (cap == 0) {
		vc_free(m->slots);
		m->slots = NULL;
		m->cap = 0;
		return 0;
	}
	s = vc_calloc(cap, m->stride);
	if (!s)
		return VC_ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (slot(m, i)->key)
			hmap_place(s, cap, m->stride, slot(m, i));
	vc_free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

/* The capacity that holds n entries: the current one (or the smallest), doubled as needed. */
static int hmap_cap_for(const struct vc_hmap *m, size_t n, size_t *cap)
{
	size_t c = m->cap ? m->cap : HMAP_MIN_CAP;

	while (n > c / 4 * 3) {
		if (c > SIZE_MAX / 2 / m->stride)
			return VC_ENOMEM;
		c *= 2;
	}
	*cap = c;
	return 0;
}

int vc_hmap_reserve(struct vc_hmap *m, size_t n)
{
	size_t cap;

	if (hmap_cap_for(m, n, &cap))
		return VC_ENOMEM;
	return cap == m->cap ? 0 : hmap_resize(m, cap);
}

void vc_hmap_clear(struct vc_hmap *m, void (*free_val)(void *val))
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		struct vc_hmap_slot *s = slot(m, i);

		if (!s->key)
			continue;
		if (free_val)
			free_val(*val_ref(m, i));
		if (m->own_keys)
			vc_free(s->key);
		memset(s, 0, m->stride);
	}
	m->count = 0;
}

void vc_hmap_release(struct vc_hmap *m, void (*free_val)(void *val))
{
	if (free_val || m->own_keys)
		vc_hmap_clear(m, free_val);
	vc_free(m->slots);
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
}

void *vc_hmap_at(const struct vc_hmap *m, size_t pos)
{
	return *val_ref(m, pos);
}

void vc_hmap_set_at(struct vc_hmap *m, size_t pos, void *val)
{
	*val_ref(m, pos) = val;
}

bool vc_hmap_lookup(const struct vc_hmap *m, const void *key, void **val)
{
	size_t i = vc_hmap_find(m, m->cap ? m->hash(key) : 0, key);

	if (i == VC_HMAP_NONE)
		return false;
	if (val)
		*val = vc_hmap_at(m, i);
	return true;
}

void *vc_hmap_get(const struct vc_hmap *m, const void *key)
{
	void *val = NULL;

	return vc_hmap_lookup(m, key, &val) ? val : NULL;
}

int vc_hmap_insert(struct vc_hmap *m, uint64_t hash, const void *key, void *val)
{
	struct vc_hmap_kv_slot s = { .s.hash = hash, .val = val };
	size_t cap;

	if (hmap_cap_for(m, m->count + 1, &cap))
		return VC_ENOMEM;
	if (m->set) {
		s.s.key = val;
	} else if (m->own_keys) {
		s.s.key = vc_strdup(key);
		if (!s.s.key)
			return VC_ENOMEM;
	} else {
		s.s.key = (void *)(uintptr_t)key;
	}
	if (cap != m->cap && hmap_resize(m, cap)) {
		if (m->own_keys)
			vc_free(s.s.key);
		return VC_ENOMEM;
	}
	hmap_place(m->slots, m->cap, m->stride, &s.s);
	m->count++;
	return 0;
}

int vc_hmap_put(struct vc_hmap *m, const void *key, void *val, void **old)
{
	uint64_t hash = m->hash(key);
	size_t i = vc_hmap_find(m, hash, key);
	int rc;

	if (i != VC_HMAP_NONE) {
		if (old)
			*old = vc_hmap_at(m, i);
		vc_hmap_set_at(m, i, val);
		return 0;
	}
	rc = vc_hmap_insert(m, hash, key, val);
	if (!rc && old)
		*old = NULL;
	return rc;
}

void vc_hmap_remove_at(struct vc_hmap *m, size_t pos)
{
	size_t mask = m->cap - 1, i = pos, j = pos, k;
	struct vc_hmap_slot *s;

	if (m->own_keys)
		vc_free(slot(m, pos)->key);
	/* Shift later members of the probe run back so that lookups never need tombstones. */
	for (;;) {
		j = (j + 1) & mask;
		s = slot(m, j);
		if (!s->key)
			break;
		k = s->hash & mask;
		/* The entry at j may stay if its home k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		memcpy(slot(m, i), s, m->stride);
		i = j;
	}
	memset(slot(m, i), 0, m->stride);
	m->count--;
	/* A sparse map shrinks when memory allows; when it does not, it simply stays large. */
	if (m->count == 0 && m->free_empty)
		(void)hmap_resize(m, 0);
	else if (m->cap > HMAP_MIN_CAP && m->count < m->cap / 8)
		(void)hmap_resize(m, m->cap / 2);
}

bool vc_hmap_remove(struct vc_hmap *m, const void *key, void **val)
{
	size_t i = vc_hmap_find(m, m->cap ? m->hash(key) : 0, key);

	if (i == VC_HMAP_NONE)
		return false;
	if (val)
		*val = vc_hmap_at(m, i);
	vc_hmap_remove_at(m, i);
	return true;
}
