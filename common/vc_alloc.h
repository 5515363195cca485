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

/*
 * Route jansson's allocations through vc_malloc/vc_free, or the calling thread's arena while it
 * has one (below). Call once at startup.
 */
void vc_alloc_install_json(void);

/*
 * A per-request arena for jansson. Between vc_json_arena_begin() and vc_json_arena_end() on
 * one thread, every jansson allocation of that thread is carved from a few large chunks and
 * freeing one is a range check: no malloc or free per JSON node, and the whole tree goes at
 * once at the end (a 3 MiB admission review is some 10^5 nodes). Only with
 * vc_alloc_install_json() installed; other threads, and the thread outside the bracket, use
 * vc_malloc as before, and freeing a node made outside the arena (an informer cache's object)
 * inside the bracket frees it for real.
 *
 * The rule that makes it safe: every json_t (and jansson string) made on the thread inside the
 * bracket must be dead by vc_json_arena_end(); nothing made there may be kept by a cache, a
 * client or another thread. Calls that can keep what they make (the API client) go between
 * vc_json_arena_pause() and vc_json_arena_resume(). Allocation failure injection
 * (vc_alloc_fail_after) counts arena allocations as it counts vc_malloc's.
 *
 * begin returns the new arena, or NULL when the thread already has one (brackets do not nest:
 * the outer one goes on serving) or memory ran out (then jansson uses vc_malloc as usual); end
 * takes that value (NULL: nothing to do), releases every chunk and returns the bytes the arena
 * had reserved. pause returns the thread's arena (or NULL) and leaves the thread without one
 * until resume.
 */
struct vc_json_arena;
struct vc_json_arena *vc_json_arena_begin(void);
size_t vc_json_arena_end(struct vc_json_arena *a);
struct vc_json_arena *vc_json_arena_pause(void);
void vc_json_arena_resume(struct vc_json_arena *a);

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
