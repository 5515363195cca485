/*
 * vc_alloc.h - the allocator every Caldera module (and jansson) goes through.
 *
 * Out-of-memory is an ordinary error here (curl's rule): these functions return NULL and callers
 * unwind. One hook makes the Nth allocation fail, so tests can prove that every parser and model
 * builder survives any allocation failing (jansson's test_chaos.c, curl's torture mode).
 */
#ifndef VC_ALLOC_H
#define VC_ALLOC_H

#include "vc_prelude.h"

void *vc_malloc(size_t size) VC_WARN_UNUSED;
void *vc_calloc(size_t nmemb, size_t size) VC_WARN_UNUSED;
/* On failure the old block is untouched and still owned by the caller. */
void *vc_realloc(void *ptr, size_t size) VC_WARN_UNUSED;
void vc_free(void *ptr);
char *vc_strdup(const char *s) VC_WARN_UNUSED;
char *vc_strndup(const char *s, size_t n) VC_WARN_UNUSED;
/* Format into a new string (free with vc_free); NULL on failure. */
char *vc_asprintf(const char *fmt, ...) VC_PRINTF(1, 2) VC_WARN_UNUSED;

/* Route jansson's allocations through vc_malloc/vc_free. Call once at startup. */
void vc_alloc_install_json(void);

/*
 * Failure injection for tests: after `n` more successful allocations, every allocation fails
 * until vc_alloc_fail_reset(). Thread-safe counters; n < 0 disables. vc_alloc_failures() tells
 * how many allocations were refused since the last reset, so a chaos loop knows when the code
 * under test stopped allocating.
 */
void vc_alloc_fail_after(long n);
void vc_alloc_fail_reset(void);
long vc_alloc_failures(void);

#endif /* VC_ALLOC_H */
