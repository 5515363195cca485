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

void vc_hmap_init_str(struct vc_hmap *m)
{
	memset(m, 0, sizeof(*m));
	m->hash = str_hash;
	m->eq = str_eq;
	m->own_keys = true;
}

void vc_hmap_init(struct vc_hmap *m, vc_hmap_hash_fn *hash, vc_hmap_eq_fn *eq)
{
	memset(m, 0, sizeof(*m));
	m->hash = hash;
	m->eq = eq;
}

/* The slot holding key, or SIZE_MAX. */
static size_t hmap_find(const struct vc_hmap *m, uint64_t hash, const void *key)
{
	size_t mask, i;

	if (!m->cap)
		return SIZE_MAX;
	mask = m->cap - 1;
	for (i = hash & mask; m->slots[i].key; i = (i + 1) & mask)
		if (m->slots[i].hash == hash && m->eq(m->slots[i].key, key))
			return i;
	return SIZE_MAX;
}

static void hmap_place(struct vc_hmap_slot *slots, size_t cap, const struct vc_hmap_slot *s)
{
	size_t mask = cap - 1, i;

	for (i = s->hash & mask; slots[i].key; i = (i + 1) & mask)
		;
	slots[i] = *s;
}

static int hmap_resize(struct vc_hmap *m, size_t cap)
{
	struct vc_hmap_slot *s = vc_calloc(cap, sizeof(*s));
	size_t i;

	if (!s)
		return VC_ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			hmap_place(s, cap, &m->slots[i]);
	vc_free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

void vc_hmap_clear(struct vc_hmap *m, void (*free_val)(void *val))
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		if (free_val)
			free_val(m->slots[i].val);
		if (m->own_keys)
			vc_free(m->slots[i].key);
		m->slots[i].key = NULL;
		m->slots[i].val = NULL;
	}
	m->count = 0;
}

void vc_hmap_release(struct vc_hmap *m, void (*free_val)(void *val))
{
	vc_hmap_clear(m, free_val);
	vc_free(m->slots);
	m->slots = NULL;
	m->cap = 0;
}

bool vc_hmap_lookup(const struct vc_hmap *m, const void *key, void **val)
{
	size_t i = hmap_find(m, m->cap ? m->hash(key) : 0, key);

	if (i == SIZE_MAX)
		return false;
	if (val)
		*val = m->slots[i].val;
	return true;
}

void *vc_hmap_get(const struct vc_hmap *m, const void *key)
{
	void *val = NULL;

	return vc_hmap_lookup(m, key, &val) ? val : NULL;
}

int vc_hmap_put(struct vc_hmap *m, const void *key, void *val, void **old)
{
	struct vc_hmap_slot s = { .val = val, .hash = m->hash(key) };
	size_t i = hmap_find(m, s.hash, key), cap;

	if (i != SIZE_MAX) {
		if (old)
			*old = m->slots[i].val;
		m->slots[i].val = val;
		return 0;
	}
	cap = m->cap ? m->cap : HMAP_MIN_CAP;
	while (m->count + 1 > cap / 4 * 3) {
		if (cap > SIZE_MAX / 2 / sizeof(struct vc_hmap_slot))
			return VC_ENOMEM;
		cap *= 2;
	}
	if (m->own_keys) {
		s.key = vc_strdup(key);
		if (!s.key)
			return VC_ENOMEM;
	} else {
		s.key = (void *)(uintptr_t)key;
	}
	if (cap != m->cap && hmap_resize(m, cap)) {
		if (m->own_keys)
			vc_free(s.key);
		return VC_ENOMEM;
	}
	hmap_place(m->slots, m->cap, &s);
	m->count++;
	if (old)
		*old = NULL;
	return 0;
}

bool vc_hmap_remove(struct vc_hmap *m, const void *key, void **val)
{
	size_t i = hmap_find(m, m->cap ? m->hash(key) : 0, key), j, k, mask;

	if (i == SIZE_MAX)
		return false;
	if (val)
		*val = m->slots[i].val;
	if (m->own_keys)
		vc_free(m->slots[i].key);
	/* Shift later members of the probe run back so that lookups never need tombstones. */
	mask = m->cap - 1;
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!m->slots[j].key)
			break;
		k = m->slots[j].hash & mask;
		/* The entry at j may stay if its home k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].key = NULL;
	m->slots[i].val = NULL;
	m->slots[i].hash = 0;
	m->count--;
	/* A sparse map shrinks when memory allows; when it does not, it simply stays large. */
	if (m->cap > HMAP_MIN_CAP && m->count < m->cap / 8)
		(void)hmap_resize(m, m->cap / 2);
	return true;
}

bool vc_hmap_next(const struct vc_hmap *m, size_t *pos, const void **key, void **val)
{
	size_t i;

	for (i = *pos; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		if (key)
			*key = m->slots[i].key;
		if (val)
			*val = m->slots[i].val;
		*pos = i + 1;
		return true;
	}
	*pos = m->cap;
	return false;
}
