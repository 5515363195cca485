/*
 * vc_json.h - helpers over jansson: bounded parsing of untrusted bodies, typed getters that never
 * crash on the wrong type, dotted-path and JSON Pointer (RFC 6901) lookup, a path setter, numeric
 * equality and a deterministic dump.
 *
 * Reference vocabulary is jansson's: a "new" reference belongs to the caller (json_decref it), a
 * "borrowed" one stays valid only while its container lives and must not be decref'd, a "stolen"
 * argument belongs to the callee from the call on, whether or not the call succeeds.
 *
 * Nesting: jansson's parser refuses documents nested deeper than JSON_PARSER_MAX_DEPTH (2048)
 * containers. The recursive functions here and in vc_jsonpatch.h rely on that bound; documents
 * built in code must respect VC_JSON_MAX_DEPTH too.
 */
#ifndef VC_JSON_H
#define VC_JSON_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_buf.h"
#include "vc_err.h"

/* The deepest container nesting jansson parses (its JSON_PARSER_MAX_DEPTH). */
#define VC_JSON_MAX_DEPTH 2048

/* The default body cap of vc_json_parse(): Kubernetes' own request-body limit (3 MiB). */
#define VC_JSON_DEFAULT_CAP ((size_t)3 << 20)

/* vc_json_parse_flags(): accept any JSON value at the top level, not only objects and arrays. */
#define VC_JSON_PARSE_ANY 0x1u

/*
 * Parse len bytes at buf (which need not be NUL-terminated) as one JSON object or array, the way
 * every untrusted body must be read. A body longer than cap bytes is refused with VC_E2BIG before
 * it is looked at (cap 0 means VC_JSON_DEFAULT_CAP). Duplicate object keys are an error, as are
 * trailing bytes (a NUL byte included) and nesting deeper than VC_JSON_MAX_DEPTH.
 *
 * On success returns 0 and stores a new reference in *out. On failure *out is NULL and the
 * return value is VC_EPARSE (err gets jansson's text, e.g. "duplicate object key near '"a"'",
 * with its 1-based line and column and the byte offset), VC_E2BIG, VC_ENOMEM or VC_EINVAL (buf
 * or out NULL). jansson 2.14 reports an allocation failure inside its string lexer as a syntax
 * error ("invalid token near '"abc"'"), so under memory exhaustion VC_EPARSE is possible too.
 */
int vc_json_parse(const char *buf, size_t len, size_t cap, json_t **out,
		  struct vc_error *err) VC_WARN_UNUSED;

/*
 * json_loadb() with the same result, faster (common/vc_json_load.c): the same tree for the same
 * bytes, and for input jansson refuses its own error (the bytes are then parsed again by
 * json_loadb, so error, message and position are jansson's). flags as json_loadb's; the fast
 * path takes JSON_REJECT_DUPLICATES, JSON_DECODE_ANY and JSON_ALLOW_NUL, any other flag leaves
 * the whole parse to jansson. Parse untrusted bodies with vc_json_parse(), which also caps them.
 */
json_t *vc_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *error);

/*
 * vc_json_loadb()'s own parser alone: the tree json_loadb() would give, or NULL for input jansson
 * refuses, for any flag outside the three above, and when memory runs out. For the tests, which
 * hold it to jansson's verdicts and trees.
 */
json_t *vc_json_loadb_fast(const char *buf, size_t len, size_t flags);

/* As vc_json_parse(), with flags: VC_JSON_PARSE_ANY also accepts a scalar at the top level. */
int vc_json_parse_flags(const char *buf, size_t len, size_t cap, unsigned flags, json_t **out,
			struct vc_error *err) VC_WARN_UNUSED;

/*
 * Typed getters for obj[key]. They accept any obj (NULL, or not an object) and any key (NULL)
 * and then behave as if the member were absent.
 *
 * vc_json_get_str: the string's bytes (borrowed, valid while the member lives), or NULL when the
 * member is absent or not a string.
 * vc_json_get_int: an integer member; a real member with an integral value that fits int64_t
 * (Kubernetes clients send 3 and 3.0 alike); def otherwise.
 * vc_json_get_bool: a true/false member; def otherwise.
 * vc_json_get_number: an integer or real member as a double; def otherwise.
 * vc_json_get_obj / vc_json_get_arr: the member (borrowed) if it is an object / an array, NULL
 * otherwise.
 */
const char *vc_json_get_str(const json_t *obj, const char *key);
int64_t vc_json_get_int(const json_t *obj, const char *key, int64_t def);
bool vc_json_get_bool(const json_t *obj, const char *key, bool def);
double vc_json_get_number(const json_t *obj, const char *key, double def);
json_t *vc_json_get_obj(const json_t *obj, const char *key);
json_t *vc_json_get_arr(const json_t *obj, const char *key);

/*
 * Look up a dotted path, as written in messages and field selectors:
 *
 *     metadata.labels
 *     spec.tasks[0].template.spec.containers[1].name
 *     metadata.annotations["volcano.sh/job-name"]     (or ['volcano.sh/job-name'])
 *
 * A plain key runs up to the next '.' or '[' and must not be empty. "[N]" indexes an array (N is
 * decimal). ["..."] and ['...'] name a key that may contain dots or brackets; the key ends at the
 * first matching quote, which must be followed by ']' (there are no escapes: a key holding a
 * double quote is written with single quotes). A path may start with a bracket. The empty path
 * names root itself.
 *
 * Returns the value (borrowed from root), or NULL when the path is malformed, does not exist, or
 * crosses a value of the wrong kind (an index into an object, a key into an array or scalar).
 * Never allocates.
 */
json_t *vc_json_path(const json_t *root, const char *path);

/*
 * Set the value at a dotted path (the syntax of vc_json_path()), creating missing intermediate
 * objects. value is stolen, also on failure. The last segment may be a key (the member is added
 * or replaced) or an index up to the array's size (the element is replaced, or appended when the
 * index equals the size). Arrays are never created.
 *
 * Returns 0; VC_EINVAL for a NULL root or value, an empty or malformed path, or a key that is not
 * valid UTF-8; VC_EINVALID when the path crosses an existing value of the wrong kind (a key into
 * an array or scalar, an index into an object); VC_ENOENT for an index past the end of an array
 * or into an array that does not exist; VC_ENOMEM. On failure root is unchanged.
 */
int vc_json_set_path_new(json_t *root, const char *path, json_t *value) VC_WARN_UNUSED;

/*
 * Look up an RFC 6901 JSON Pointer such as "/spec/tasks/0/name". "" is root itself; otherwise the
 * pointer starts with '/' and each token is unescaped ("~1" is '/', "~0" is '~'). An array token
 * must be "0" or a decimal number without leading zeros; "-" names no element.
 *
 * Returns the value (borrowed from root), or NULL when the pointer is malformed or does not
 * resolve. Never allocates.
 */
json_t *vc_json_pointer_get(const json_t *root, const char *pointer);

/*
 * Append the RFC 6901 escape of the reference token `in` to out ('~' becomes "~0", '/' becomes
 * "~1"); the caller adds the separating '/'. Returns 0, or VC_E2BIG / VC_ENOMEM from the buffer
 * (out may then hold part of the token).
 */
int vc_json_pointer_escape(const char *in, struct vc_buf *out) VC_WARN_UNUSED;

/*
 * Split an RFC 6901 pointer into its unescaped reference tokens. On success returns 0, stores the
 * count in *count and a new array of *count NUL-terminated tokens in *tokens; the array and the
 * strings are one allocation, released with vc_free(*tokens). "" gives zero tokens (*tokens is
 * still allocated). Errors: VC_EINVAL when the pointer is not empty and does not start with '/'
 * ("invalid JSON pointer 'a/b': must be empty or start with '/'") or when a '~' is not followed by
 * '0' or '1' ("invalid JSON pointer '/a~2': '~' must be followed by '0' or '1'"); err->position
 * is then the byte offset of the offending character and err->column that plus one. VC_ENOMEM.
 */
int vc_json_pointer_split(const char *pointer, char ***tokens, size_t *count,
			  struct vc_error *err) VC_WARN_UNUSED;

/*
 * Parse an RFC 6901 array index token: "0" or [1-9][0-9]*. Returns 0 and sets *out; VC_EINVAL for
 * anything else ("-", "", "01", "+1", " 1"); VC_ERANGE when the number does not fit size_t.
 */
int vc_json_pointer_index(const char *token, size_t *out) VC_WARN_UNUSED;

/*
 * Deep equality like json_equal(), except that an integer and a real compare by mathematical
 * value (1 equals 1.0; 1 does not equal 1.5), at any depth, as RFC 6902's "test" requires.
 * Object member order does not matter, array order does. NULL equals nothing, not even NULL.
 */
bool vc_json_equal(const json_t *a, const json_t *b);

/*
 * Serialise v (any JSON value) compactly with object keys sorted, for comparisons and logs:
 * {"a":1,"b":[true,null]}. Returns a new NUL-terminated string allocated with vc_malloc (free it
 * with vc_free), or NULL when v is NULL or memory runs out.
 */
char *vc_json_dumps_sorted(const json_t *v) VC_WARN_UNUSED;

/* vc_json_dump(): the flags it serialises itself; any other flag goes through jansson. */
#define VC_JSON_DUMP_OWN_FLAGS (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)

/*
 * Append the serialisation of v to out, byte for byte what json_dump_callback(v, ..., flags)
 * writes (common/vc_json_dump.c; tests/unit/test_json.c and tests/fuzz/fuzz_json_dump.c compare
 * the two): members in insertion order, or sorted by key bytes (memcmp, then the shorter first)
 * with JSON_SORT_KEYS; '"', '\\' and control characters escaped (\b \f \n \r \t, others as
 * \u00XX with upper-case hex), '/', DEL and UTF-8 copied as they are; integers as "%lld"; reals
 * as jansson formats them. Flags other than JSON_COMPACT, JSON_SORT_KEYS and JSON_ENCODE_ANY, or a
 * call without JSON_COMPACT, go through json_dump_callback, so the output is right either way.
 *
 * Returns 0; VC_ENOMEM or VC_E2BIG from the buffer; VC_EINVAL where jansson fails: v NULL, a
 * scalar without JSON_ENCODE_ANY, a string (not a key) that is not valid UTF-8 (jansson checks
 * the bytes of strings made with json_stringn_nocheck when it writes them), a container that
 * contains itself. A key that is not valid UTF-8 is written as jansson writes it: the opening
 * quote and the text up to its last escape before the bad byte, and no error. A buffer error
 * is never ignored: jansson also ignores a failed write of a key (its callback failing at a
 * cap, say) and carries on without it; here that is VC_E2BIG or VC_ENOMEM. On failure out is
 * truncated back to its length at entry. v is borrowed.
 */
int vc_json_dump(const json_t *v, size_t flags, struct vc_buf *out) VC_WARN_UNUSED;

#endif /* VC_JSON_H */
