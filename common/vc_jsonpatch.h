/*
 * vc_jsonpatch.h - JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) over jansson.
 *
 * The API server applies patches; Caldera mostly produces them (the mutating admission webhook
 * answers with the JSON Patch that turns the object it received into the object it wants), and
 * applies them in tests, in the node simulator and to check its own output. Both appliers work on
 * a deep copy, so a failed patch never leaves a half-changed document behind.
 *
 * Values are compared with vc_json_equal(): an integer and a real with the same value are equal
 * (Kubernetes sends 1 and 1.0 interchangeably), so "test" accepts either and the differs never
 * emit an operation that only changes 1 into 1.0.
 */
#ifndef VC_JSONPATCH_H
#define VC_JSONPATCH_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

/*
 * The most bytes that the "copy" operations of one patch may add to the document, counted as the
 * compact serialisation of each copied value (escapes aside). Kubernetes' API server limits
 * copies the same way (JSONPatchMaxCopyBytes, 3 MiB, like evanphx/json-patch's
 * AccumulatedCopySizeLimit): without a limit, a handful of operations copying the root into
 * itself double the document each time.
 */
#define VC_JSON_PATCH_COPY_LIMIT ((size_t)3 << 20)

/*
 * Apply the RFC 6902 operation array `patch` to doc and store the patched document in *result (a
 * new reference). doc and patch are only read: the operations work on a deep copy of doc.
 *
 * Operations run in order and the first failure stops the patch; *result is then NULL. Semantics
 * are RFC 6902's: "add" with array index "-" appends and an index equal to the array's size is
 * allowed; array indexes with leading zeros are rejected; "move" from a location to one of its
 * own children is rejected, and "move" to the same location does nothing; "test" compares with
 * vc_json_equal(); the path "" addresses the whole document (add, replace, move, copy and test
 * accept it, remove does not). Members of an operation besides op, path, from and value are
 * ignored. A result nested deeper than VC_JSON_MAX_DEPTH is refused.
 *
 * Returns 0, or:
 *   VC_EINVALID     the patch is not an array of well-formed operations (missing or non-string
 *                   "op"/"path"/"from", missing "value", unknown op, malformed pointer, an array
 *                   index with leading zeros or not a number, move into a child, remove of "")
 *   VC_ENOENT       a location does not exist (a missing member, an index out of range, a token
 *                   below a scalar, "-" anywhere but as the last token of "add")
 *   VC_ETESTFAILED  a "test" value differs
 *   VC_E2BIG        the result would nest too deeply, or copies exceed VC_JSON_PATCH_COPY_LIMIT
 *   VC_ENOMEM
 *   VC_EINVAL       doc, patch or result is NULL
 * and err names the operation by its 0-based index, op and path, then the reason:
 *   operation 2 (replace /spec/x): path not found
 *   operation 0 (add /foo/01): invalid array index '01'
 *   operation 1 (move /a/b): from '/x' not found
 *   operation 0 (test /baz): value differs
 */
int vc_json_patch_apply(const json_t *doc, const json_t *patch, json_t **result,
			struct vc_error *err) VC_WARN_UNUSED;

/*
 * Compute an RFC 6902 patch that turns `from` into `to`: a new reference to an operation array
 * (empty when the two are equal), or NULL when memory runs out or an argument is NULL. Neither
 * argument is changed and the operations share no values with `to` (values are deep copies).
 *
 * The patch is meant to be read by people (it is what the mutating webhook returns), so it is
 * built the simple way, deterministically:
 *   - objects: first "remove" for each member only `from` has, in sorted key order; then, in
 *     sorted key order, "add" for each member only `to` has and a recursive diff for members
 *     both have;
 *   - arrays: a recursive diff over the common prefix, then "add" of the extra elements with
 *     explicit indexes (ascending), or "remove" of the surplus from the last index down;
 *   - anything else that differs (including a change of type): one "replace".
 * Paths are RFC 6901 pointers with '~' and '/' escaped. Applying the result to `from` with
 * vc_json_patch_apply() gives a document vc_json_equal() to `to`. Object keys containing NUL
 * bytes (which jansson's parser never produces) are not supported.
 */
json_t *vc_json_patch_diff(const json_t *from, const json_t *to) VC_WARN_UNUSED;

/*
 * Apply an RFC 7386 merge patch to target and store the merged document in *result (a new
 * reference). target and patch are only read; target may be NULL (no document yet). A patch that
 * is not an object replaces the target; an object patch turns a non-object target into {} and
 * then, member by member, deletes members whose patch value is null and merges the others
 * recursively (so nulls nested in added objects are dropped too).
 *
 * Returns 0, VC_EINVAL (patch or result NULL), or VC_ENOMEM; *result is NULL on failure.
 */
int vc_json_merge_patch_apply(const json_t *target, const json_t *patch, json_t **result,
			      struct vc_error *err) VC_WARN_UNUSED;

/*
 * Compute an RFC 7386 merge patch that turns `from` into `to`: a new reference, or NULL when
 * memory runs out or an argument is NULL. When both are objects the patch is an object holding
 * null for each member only `from` has, the value for each member only `to` has, and a recursive
 * merge patch for members whose values differ (an array or scalar member is replaced whole). It
 * is {} when the objects are equal. When either is not an object the patch is a copy of `to`.
 *
 * A merge patch cannot set a member to null: where `to` has a null member that `from` has with
 * another value, the patch deletes it instead, and nulls inside added objects are dropped when the
 * patch is applied. Apart from that, applying the result to `from` gives `to`.
 */
json_t *vc_json_merge_patch_diff(const json_t *from, const json_t *to) VC_WARN_UNUSED;

#endif /* VC_JSONPATCH_H */
