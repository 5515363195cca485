#include "vc_alloc.h"

#include <jansson.h>

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

static void *json_malloc_hook(size_t size)
{
	return vc_malloc(size);
}

void vc_alloc_install_json(void)
{
	json_set_alloc_funcs(json_malloc_hook, vc_free);
}
