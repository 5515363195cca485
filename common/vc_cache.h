/*
 * vc_cache.h - a thread-safe store of immutable Kubernetes objects with secondary indexes
 * (client-go's thread_safe_store.go and index.go).
 *
 * The cache maps a key, "namespace/name" for namespaced objects and "name" for cluster-scoped
 * ones, to a json_t object. Objects in the cache are immutable: the cache holds one reference to
 * each, readers receive their own new references and must never change what they got (to change
 * an object, json_deep_copy it and send the copy to the API server). jansson's reference counts
 * are atomic but its mutators take no lock, so a reader that writes into a cached object corrupts
 * every other reader's view.
 *
 * Secondary indexes are declared when the cache is made. An index function maps an object to
 * zero or more string values (an object in no namespace has no "namespace" value; a pod indexed
 * by a multi-valued function may be listed under several values). vc_cache_by_index() returns
 * the objects filed under one value. Indexes are kept consistent by every write: an update files
 * the new object under its new values and removes the old one from values it no longer has.
 *
 * Writes are all-or-nothing: a failed add, delete or replace (VC_ENOMEM) leaves the cache,
 * indexes included, exactly as it was.
 *
 * Threads: every function may be called from any thread. Reads take a shared lock, writes an
 * exclusive one (writer-preferring, so a stream of readers cannot starve the informer). No lock
 * is held when a function returns, so callers may call back into the cache freely.
 *
 * Mutation check: when the library is compiled with VC_CACHE_MUTATION_CHECK defined, or the
 * environment variable VC_CACHE_MUTATION_CHECK is "1" when a cache is made, or the cache is made
 * with VC_CACHE_CHECK_MUTATIONS, the cache keeps a serialized copy of every object and compares
 * it with the object on each read of it and on each write that replaces or removes it (client-go's
 * KUBE_CACHE_MUTATION_DETECTOR). A difference calls the cache's mutation handler; the default one
 * logs the key and aborts, since a mutated cached object is a bug in the caller. This costs a
 * serialization per object read: use it in tests and debugging only.
 *
 * Packed caches (VC_CACHE_PACKED): the cache keeps each object as its compact serialization
 * (JSON_COMPACT, key order kept), deflated with a dictionary of Kubernetes' and Volcano's usual
 * strings when that is shorter (up to 8 KB of JSON; vc_cache_pack.c), and its
 * metadata.resourceVersion, in one block of exactly the needed size, instead of a jansson tree.
 * A 1.6 KB pod then costs about 0.8 KB of heap with three indexes (2 KB undeflated) instead of
 * about 13.7 KB (jansson's per-object hashtables and per-string allocations; test_cache's
 * test_packed_memory measures both). The price: every write serializes the object (once up to
 * 8 KB of JSON, twice beyond) and deflates it (~15 us), and every read - vc_cache_get,
 * vc_cache_list, vc_cache_by_index, upsert's and delete's `old`, replace's old_obj - inflates
 * (~5 us) and parses it, about 10-20 us per pod, and returns a fresh object the caller owns alone
 * (still "a new reference"; the caller may even change it). Reads parse under the shared lock, so a
 * list of everything keeps writers out for the whole parse. Use it for big resources that are read
 * one object at a time or by small index values (pods, Volcano Jobs), not for ones that are listed
 * in bulk on every sync. A reader that only needs to know whether a version is cached uses
 * vc_cache_has_version(), and one that walks everything vc_cache_keys() plus vc_cache_get() per
 * key, which holds one parsed object at a time instead of all of them. The mutation check does not
 * apply to packed caches (readers get private copies) and is ignored there. Index values are
 * computed from the object given to the write, as for unpacked caches. A failed parse can only be a
 * lack of memory: list and by_index return VC_ENOMEM, get returns NULL (and logs), upsert and
 * delete with `old` and replace with `out` return VC_ENOMEM and change nothing.
 */
#ifndef VC_CACHE_H
#define VC_CACHE_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

#ifdef VC_CACHE_MUTATION_CHECK
#define VC_CACHE_MUTATION_CHECK_DEFAULT true
#else
#define VC_CACHE_MUTATION_CHECK_DEFAULT false
#endif

/* Room for the longest key of a valid object: a 63-byte namespace, '/', a 253-byte name, NUL. */
#define VC_CACHE_KEY_MAX 320

/* The values an index function reports for one object; filled with vc_index_values_add(). */
struct vc_index_values;

/*
 * Add value to the values of the object being indexed. The string is copied; adding a value
 * twice files the object under it once. Returns 0, VC_EINVAL for NULL arguments, or VC_ENOMEM.
 */
int vc_index_values_add(struct vc_index_values *vals, const char *value) VC_WARN_UNUSED;

/*
 * An index function: report obj's values for one index with vc_index_values_add(). obj is
 * borrowed and must not be changed; arg is the index's `arg`. The function must be pure: the
 * same object must always give the same values. Return 0, or a negative code (usually the one
 * vc_index_values_add returned), which makes the write that called it fail with that code.
 */
typedef int vc_cache_index_fn(const void *arg, const json_t *obj, struct vc_index_values *vals);

/* One secondary index: its name (used in vc_cache_by_index), function and the function's arg. */
struct vc_cache_index {
	const char *name;
	vc_cache_index_fn *fn;
	const void *arg;
};

/* metadata.namespace, when it is a non-empty string. arg is unused. */
int vc_cache_index_by_namespace(const void *arg, const json_t *obj, struct vc_index_values *vals);
/* metadata.labels[arg] (arg is the label key, a const char *), when it is a string. */
int vc_cache_index_by_label(const void *arg, const json_t *obj, struct vc_index_values *vals);
/*
 * The string at the dotted path arg (a const char *, vc_json_path() syntax, e.g.
 * "spec.nodeName"); an absent path or a value that is not a string gives no value.
 */
int vc_cache_index_by_field(const void *arg, const json_t *obj, struct vc_index_values *vals);

/* Flags of struct vc_cache_opts. */
#define VC_CACHE_CHECK_MUTATIONS 0x1u
#define VC_CACHE_PACKED		 0x2u /* keep objects serialized (see the top of this file) */

/*
 * Called when the mutation check finds that the cached object under key was changed. The key is
 * borrowed for the call. It runs with the cache's lock held: it must not call into the cache.
 */
typedef void vc_cache_mutation_fn(void *ctx, const char *key);

struct vc_cache_opts {
	const struct vc_cache_index *indexes; /* copied (the strings and args are borrowed and */
	size_t nindexes;		      /* must outlive the cache); names must be distinct */
	unsigned flags;			      /* VC_CACHE_CHECK_MUTATIONS, VC_CACHE_PACKED */
	vc_cache_mutation_fn *on_mutation;    /* NULL: log and abort() */
	void *mutation_ctx;
};

struct vc_cache;

/*
 * Make an empty cache with opts (NULL: no indexes, no flags). Returns 0 and *out, VC_EINVAL for a
 * NULL out, an index without a name or function, or two indexes with one name, or VC_ENOMEM
 * (*out is then NULL).
 */
int vc_cache_new(const struct vc_cache_opts *opts, struct vc_cache **out) VC_WARN_UNUSED;

/* Free the cache and drop its references to the objects. NULL is a no-op. */
void vc_cache_free(struct vc_cache *c);

/*
 * Write obj's key into buf: "namespace/name" when metadata.namespace is a non-empty string,
 * otherwise "name". Returns 0; VC_EINVAL when obj has no non-empty string metadata.name or an
 * argument is NULL; VC_E2BIG when the key and its NUL do not fit in len bytes (buf then holds ""
 * if len > 0). VC_CACHE_KEY_MAX bytes hold the key of any object the API server accepts.
 */
int vc_cache_key(const json_t *obj, char *buf, size_t len) VC_WARN_UNUSED;

/*
 * Add obj, or replace the object with the same key. obj is borrowed: the cache takes its own
 * reference, and the caller must not change obj afterwards. When old is not NULL it receives
 * the object that was replaced (a new reference) or NULL if there was none. Returns 0,
 * VC_EINVAL (no key, see vc_cache_key; NULL arguments), a code from an index function, or
 * VC_ENOMEM; on failure the cache is unchanged and *old is NULL. Packed: *old is a parse of the
 * replaced object, and VC_E2BIG refuses an object whose serialization exceeds 4 GiB.
 */
int vc_cache_upsert(struct vc_cache *c, json_t *obj, json_t **old) VC_WARN_UNUSED;

/*
 * Remove the object under key. When old is not NULL it receives the removed object (a new
 * reference). Returns 0, VC_ENOTFOUND when there is no such key (*old is then NULL), or
 * VC_EINVAL for NULL arguments. Never fails for lack of memory, except in a packed cache with
 * old not NULL: parsing the removed object may give VC_ENOMEM (the cache is then unchanged).
 */
int vc_cache_delete(struct vc_cache *c, const char *key, json_t **old) VC_WARN_UNUSED;

/* One change made by vc_cache_replace(): old_obj NULL is an add, new_obj NULL a delete. */
struct vc_cache_delta {
	json_t *old_obj; /* new reference, or NULL */
	json_t *new_obj; /* new reference, or NULL */
};

struct vc_cache_deltas {
	struct vc_cache_delta *items;
	size_t count;
};

/* Drop the references in d and free its array; d is left empty. NULL is a no-op. */
void vc_cache_deltas_release(struct vc_cache_deltas *d);

/*
 * Make the cache hold exactly objs[0..n-1] (a relist). Objects are borrowed as in
 * vc_cache_upsert. An object whose key was cached with the same metadata.resourceVersion (or,
 * when either has none, with equal content) is unchanged: the cache keeps its cached object and
 * reports nothing for it. When a key appears twice in objs the later object wins.
 *
 * When out is not NULL it receives the changes, each with new references: adds and updates in
 * the order of objs, then deletes of the keys that vanished sorted by key (the informer turns
 * these into tombstones, client-go's DeletedFinalStateUnknown). Release with
 * vc_cache_deltas_release(). In a packed cache too, new_obj is the listed object itself (a new
 * reference to objs[i], not a parse) and old_obj a parse of what was cached; the "unchanged" rule
 * compares the stored resourceVersions, or when either has none the serialized bytes (so key
 * order matters there), and an unchanged key keeps its cached bytes.
 *
 * Returns 0; VC_EINVAL when an object has no key or for NULL arguments (objs may be NULL when n
 * is 0); a code from an index function; VC_ENOMEM. On failure the cache is unchanged and *out is
 * empty.
 */
int vc_cache_replace(struct vc_cache *c, json_t *const *objs, size_t n,
		     struct vc_cache_deltas *out) VC_WARN_UNUSED;

/*
 * Staged relists: vc_cache_replace() for a list that arrives in pages, without holding every
 * listed object at once. vc_cache_stage_add() turns each object into what the cache will store
 * (packed: its serialization and resourceVersion; always: its key and index values) as soon as
 * it is listed, so the caller can free each page right away; vc_cache_stage_commit() then swaps
 * the staged objects in as one write with vc_cache_replace()'s rules (unchanged by
 * resourceVersion or content, the later of a key listed twice wins, all-or-nothing), and
 * describes what changed without parsing anything: vc_cache_changes_get() parses one change at
 * a time. A relist of 10,000 pods into a packed cache thus holds one page of parsed objects and
 * one change's at a time, instead of all of them (test_informer's
 * test_packed_relist_holds_one_page measures it). Works for unpacked caches too (the staged
 * entries then hold references to the objects).
 *
 * A staging is used by one thread; the cache stays readable and writable meanwhile (the
 * commit compares with what the cache holds at commit time).
 */
struct vc_cache_staging;
/* The changes of a commit, in vc_cache_replace()'s order: adds and updates, then deletes. */
struct vc_cache_changes;

/* Start staging a relist of c. Returns 0 and *out, VC_EINVAL, or VC_ENOMEM (*out NULL). */
int vc_cache_stage_begin(struct vc_cache *c, struct vc_cache_staging **out) VC_WARN_UNUSED;

/*
 * Stage obj (borrowed as in vc_cache_upsert; a packed cache keeps nothing of it, an unpacked one
 * a reference). Returns 0; VC_EINVAL (no key, NULL arguments), a code from an index function,
 * VC_E2BIG (packed, as upsert) or VC_ENOMEM: obj is then not staged, and what was staged before
 * stays staged.
 */
int vc_cache_stage_add(struct vc_cache_staging *st, json_t *obj) VC_WARN_UNUSED;

/* How many objects were staged (a key staged twice counts twice). 0 for NULL. */
size_t vc_cache_stage_count(const struct vc_cache_staging *st);

/* Drop st and everything staged; the cache is untouched. NULL is a no-op. */
void vc_cache_stage_abort(struct vc_cache_staging *st);

/*
 * Make the cache hold exactly the staged objects, as vc_cache_replace() with them in staging
 * order, and free st (on failure too). When out is not NULL it receives the changes (NULL
 * changes were not asked for; free with vc_cache_changes_free(), even with count 0). Returns 0;
 * VC_EINVAL for a NULL st; a code from an index function; VC_ENOMEM: the cache is then unchanged
 * and *out NULL.
 */
int vc_cache_stage_commit(struct vc_cache_staging *st,
			  struct vc_cache_changes **out) VC_WARN_UNUSED;

/* The number of changes; 0 for NULL. */
size_t vc_cache_changes_count(const struct vc_cache_changes *ch);

/*
 * Change i as *old_obj (NULL for an add) and *new_obj (NULL for a delete), each a new reference,
 * as vc_cache_replace()'s deltas. Packed: both are fresh parses (old_obj of what the cache held,
 * new_obj of what it holds now), so each call costs up to two parses and the caller holds only
 * what it asked for. Unpacked: references to the objects. new_obj is read from the cache, so it
 * can be asked for only while the cache has not been written since the commit. Returns 0;
 * VC_EINVAL (NULL arguments, i out of range); VC_ECONFLICT when the cache was written since the
 * commit and i is not a delete; VC_ENOMEM (packed). On failure both are NULL; a get may be
 * retried, and one that ran out of memory marks the change failed until a get of it succeeds.
 */
int vc_cache_changes_get(struct vc_cache_changes *ch, size_t i, json_t **old_obj,
			 json_t **new_obj) VC_WARN_UNUSED;

/*
 * Remove from the cache the objects of the adds and updates marked failed by
 * vc_cache_changes_get (their handlers never saw them), so that the next relist reports them
 * again, as adds. Deletes cannot be undone this way: the caller only learns it missed them.
 * Nothing happens when the cache was written since the commit (changes_get would have said
 * VC_ECONFLICT). Never fails; returns how many objects it removed. A get of a removed change
 * then gives its old_obj (NULL for an add) and a NULL new_obj.
 */
size_t vc_cache_changes_drop_failed(struct vc_cache_changes *ch);

/* Free ch (and the replaced objects it kept). NULL is a no-op. */
void vc_cache_changes_free(struct vc_cache_changes *ch);

/*
 * The object under key as a new reference (json_decref it), or NULL when there is none (packed:
 * or when parsing it runs out of memory).
 */
json_t *vc_cache_get(struct vc_cache *c, const char *key);

/*
 * True when the object under key has metadata.resourceVersion rv (a non-empty string), without
 * taking a reference or parsing anything; false for NULL arguments, an empty rv or no such key.
 */
bool vc_cache_has_version(struct vc_cache *c, const char *key, const char *rv);

/* The keys of the cached objects; items and the strings are one allocation. */
struct vc_cache_keys {
	char **items;
	size_t count;
};

/* Free k's block; k is left empty. NULL is a no-op. */
void vc_cache_keys_release(struct vc_cache_keys *k);

/*
 * Every key, in no particular order (a snapshot: objects may come and go before the caller
 * reads them). Returns 0, VC_EINVAL for NULL arguments, or VC_ENOMEM (out is then empty). An
 * empty cache gives count 0 and items NULL.
 */
int vc_cache_keys(struct vc_cache *c, struct vc_cache_keys *out) VC_WARN_UNUSED;

/* The number of cached objects. */
size_t vc_cache_count(struct vc_cache *c);

/* A list of objects, each a new reference. */
struct vc_objs {
	json_t **items;
	size_t count;
};

/* Drop the references in o and free its array; o is left empty. NULL is a no-op. */
void vc_objs_release(struct vc_objs *o);

/*
 * Every cached object, in no particular order, as new references. Returns 0, VC_EINVAL for
 * NULL arguments, or VC_ENOMEM (out is then empty). An empty cache gives count 0 and items NULL.
 */
int vc_cache_list(struct vc_cache *c, struct vc_objs *out) VC_WARN_UNUSED;

/*
 * The objects filed under value in the index named index, in no particular order, as new
 * references. Returns 0 (count 0 when no object has that value), VC_ENOENT when the cache has
 * no such index, VC_EINVAL for NULL arguments, or VC_ENOMEM (out is then empty).
 */
int vc_cache_by_index(struct vc_cache *c, const char *index, const char *value,
		      struct vc_objs *out) VC_WARN_UNUSED;

/*
 * How many objects are filed under value in index, without taking references; 0 for an unknown
 * index or value.
 */
size_t vc_cache_index_count(struct vc_cache *c, const char *index, const char *value);

#endif /* VC_CACHE_H */
