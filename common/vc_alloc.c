#include "vc_alloc.h"

#include <pthread.h>
#include <sys/mman.h>

#include <jansson.h>

/*
 * Under ASan a pooled chunk is poisoned until it is taken again, so that a node kept past its
 * review's arena is reported as a use after free (a freed malloc'd chunk is ASan's own, an
 * unmapped one faults).
 */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ARENA_POISON(p, n)   ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* -1: injection off. Otherwise the number of allocations still allowed to succeed. */
static long fail_budget = -1;
static long fail_count;

static bool alloc_should_fail(void)
{
	long left = __atomic_load_n(&fail_budget, __ATOMIC_RELAXED);

	if (left < 0)
		return false;
	if (left > 0 && __atomic_sub_fetch(&fail_budget, 1, __ATOMIC_RELAXED) >= 0)
		return false;
	__atomic_store_n(&fail_budget, 0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fail_count, 1, __ATOMIC_RELAXED);
	return true;
}

void vc_alloc_fail_after(long n)
{
	__atomic_store_n(&fail_count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_budget, n, __ATOMIC_RELAXED);
}

void vc_alloc_fail_reset(void)
{
	vc_alloc_fail_after(-1);
}

long vc_alloc_failures(void)
{
	return __atomic_load_n(&fail_count, __ATOMIC_RELAXED);
}

void *vc_malloc(size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *vc_calloc(size_t nmemb, size_t size)
{
	if (alloc_should_fail())
		return NULL;
	if (!nmemb || !size)
		return calloc(1, 1);
	return calloc(nmemb, size);
}

void *vc_realloc(void *ptr, size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return realloc(ptr, size ? size : 1);
}

void vc_free(void *ptr)
{
	free(ptr);
}

char *vc_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = vc_malloc(len + 1);

	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *vc_strdup(const char *s)
{
	return vc_strndup(s, SIZE_MAX);
}

char *vc_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	out = vc_malloc((size_t)n + 1);
	if (!out)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

/* ---- the jansson arena ----------------------------------------------------------------------
 *
 * A chunk is one block: this header, then the bump area [data, end). The first chunk of an
 * arena is ARENA_FIRST bytes and each next one twice the last (or what one allocation needs),
 * so a review of 3 MiB takes about ten (64 MiB reserved, 40 MiB touched). Chunks of ARENA_MAP
 * bytes and more are mmap'd, the others come from malloc (itself: arena_alloc already counted
 * the allocation for failure injection). A released chunk of one of the doubling sizes goes to
 * a pool for the next request of any thread while the pool holds less than ARENA_POOL_BYTES:
 * sequential large reviews then touch no new page (the page faults of fresh mappings were a
 * sixth of a 3 MiB review's CPU), and memory above the cap goes back to the system at once,
 * where glibc would keep a freed tree's memory in its heaps.
 */
#define ARENA_FIRST	 ((size_t)64 << 10)
#define ARENA_MAP	 ((size_t)1 << 20)
#define ARENA_CLASSES	 13 /* 64 KiB .. 256 MiB */
#define ARENA_POOL_BYTES ((size_t)64 << 20)
#define ARENA_ALIGN	 ((size_t)16)

struct arena_chunk {
	struct arena_chunk *next; /* the chunk made before this one, or the next pooled one */
	char *ptr, *end;	  /* free space [ptr, end) */
	size_t size;		  /* of the whole block, this header included */
	bool mapped;
	_Alignas(16) char data[];
};

struct vc_json_arena {
	struct arena_chunk *chunks; /* newest first */
	size_t total;		    /* bytes of all chunks */
};

static _Thread_local struct vc_json_arena *cur_arena;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena_chunk *pool[ARENA_CLASSES];
static size_t pool_bytes;

/* The pool's class of a chunk size, or -1 for a size that is not ARENA_FIRST << k. */
static int size_class(size_t size)
{
	int k;

	for (k = 0; k < ARENA_CLASSES; k++)
		if (size == ARENA_FIRST << k)
			return k;
	return -1;
}

static struct arena_chunk *chunk_new(size_t size)
{
	struct arena_chunk *c = NULL;
	bool mapped = size >= ARENA_MAP;
	int k = size_class(size);

	if (k >= 0) {
		pthread_mutex_lock(&pool_lock);
		c = pool[k];
		if (c) {
			ARENA_UNPOISON(c->data, (size_t)(c->end - c->data));
			pool[k] = c->next;
			pool_bytes -= size;
		}
		pthread_mutex_unlock(&pool_lock);
	}
	if (!c && mapped) {
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);

		c = m == MAP_FAILED ? NULL : m;
	} else if (!c) {
		c = malloc(size);
	}
	if (!c)
		return NULL;
	c->next = NULL;
	c->ptr = c->data;
	c->end = (char *)c + size;
	c->size = size;
	c->mapped = mapped;
	return c;
}

static void chunk_free(struct arena_chunk *c)
{
	int k = size_class(c->size);

	if (k >= 0) {
		pthread_mutex_lock(&pool_lock);
		if (pool_bytes + c->size <= ARENA_POOL_BYTES) {
			c->next = pool[k];
			pool[k] = c;
			pool_bytes += c->size;
			ARENA_POISON(c->data, (size_t)(c->end - c->data));
			c = NULL;
		}
		pthread_mutex_unlock(&pool_lock);
	}
	if (c && c->mapped)
		munmap(c, c->size);
	else
		free(c);
}

static void *arena_alloc(struct vc_json_arena *a, size_t size)
{
	struct arena_chunk *c = a->chunks;
	size_t need = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1), want;
	void *p;

	if (alloc_should_fail() || need < size)
		return NULL;
	if (!c || (size_t)(c->end - c->ptr) < need) {
		want = c ? c->size * 2 : ARENA_FIRST;
		if (want < need + sizeof(*c))
			want = need + sizeof(*c);
		c = chunk_new(want);
		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->total += c->size;
	}
	p = c->ptr;
	c->ptr += need;
	return p;
}

static bool arena_owns(const struct vc_json_arena *a, const void *p)
{
	const struct arena_chunk *c;

	for (c = a->chunks; c; c = c->next)
		if ((const char *)p >= c->data && (const char *)p < c->end)
			return true;
	return false;
}

struct vc_json_arena *vc_json_arena_begin(void)
{
	struct vc_json_arena *a;

	if (cur_arena)
		return NULL;
	a = vc_calloc(1, sizeof(*a));
	cur_arena = a;
	return a;
}

size_t vc_json_arena_end(struct vc_json_arena *a)
{
	struct arena_chunk *c, *next;
	size_t total;

	if (!a)
		return 0;
	if (cur_arena == a)
		cur_arena = NULL;
	total = a->total;
	for (c = a->chunks; c; c = next) {
		next = c->next;
		chunk_free(c);
	}
	vc_free(a);
	return total;
}

struct vc_json_arena *vc_json_arena_pause(void)
{
	struct vc_json_arena *a = cur_arena;

	cur_arena = NULL;
	return a;
}

void vc_json_arena_resume(struct vc_json_arena *a)
{
	cur_arena = a;
}

static void *json_malloc_hook(size_t size)
{
	struct vc_json_arena *a = cur_arena;

	return a ? arena_alloc(a, size) : vc_malloc(size);
}

static void json_free_hook(void *ptr)
{
	struct vc_json_arena *a = cur_arena;

	if (ptr && a && arena_owns(a, ptr))
		return;
	vc_free(ptr);
}

void vc_alloc_install_json(void)
{
	json_set_alloc_funcs(json_malloc_hook, json_free_hook);
}
