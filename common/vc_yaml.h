/*
 * vc_yaml.h - YAML streams to JSON (jansson), the way kubectl reads manifests.
 *
 * kubectl splits a manifest stream into documents and turns each one into JSON with
 * sigs.k8s.io/yaml, which decodes with go-yaml v2 and then converts the result for
 * encoding/json. This module gives the same JSON from libyaml's event parser, so that what we
 * send to the API server is what kubectl would have sent.
 *
 * Typing of plain (unquoted) scalars follows go-yaml v2's resolve table:
 *   - null: `~`, `null`, `Null`, `NULL` and the empty scalar;
 *   - booleans: `true True TRUE false False FALSE` and YAML 1.1's `y Y yes Yes YES n N no No NO
 *     on On ON off Off OFF`;
 *   - integers: after removing every `_`, Go's strconv.ParseInt(s, 0, 64) (optional sign,
 *     decimal, `0x` hex, `0o` or leading-0 octal, `0b` binary); a value beyond int64 that
 *     ParseUint accepts is an unsigned integer; the `0b` quirk of go-yaml (`0b-101` is -5) is
 *     kept;
 *   - floats: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (again without `_`),
 *     `.5`-style values, and `.inf -.inf +.inf .nan` in their three spellings; a float that
 *     overflows a double stays a string (`1e400`), as in Go;
 *   - anything else is a string.
 * Quoted and block scalars are strings. The explicit tags `!!str !!int !!float !!bool !!null`
 * are honoured, and a value that does not fit its tag fails with go-yaml's message ("cannot
 * decode !!str `abc` as a !!int"). Any other tag (`!foo`, `!`, `!!binary`, `!!timestamp`) makes
 * a scalar a string, as go-yaml does for values decoded into interface{}; tags on mappings and
 * sequences are ignored.
 *
 * Conversion to JSON follows sigs.k8s.io/yaml and encoding/json:
 *   - integers are JSON integers; unsigned integers beyond int64 are JSON reals;
 *   - a float whose value is integral and fits in int64 is a JSON integer (encoding/json
 *     writes float64(1) as `1`, so `replicas: 1.0` reaches the API server as `1`); other floats
 *     are JSON reals;
 *   - infinities and NaN cannot be written as JSON: they are an error, as in kubectl;
 *   - mapping keys become strings: integers in decimal, booleans as "true"/"false", floats as
 *     Go's FormatFloat(f, 'g', -1, 32) with ".inf", "-.inf", ".nan" for the special values
 *     (so `1.5: x` has the key "1.5" and `1e10: x` the key "1e+10");
 *   - a null key and an unsigned key beyond int64 are errors, as sigs.k8s.io/yaml rejects them
 *     ("Unsupported map key of type"); so is a mapping or a sequence used as a key.
 *
 * Anchors and aliases work within one document. An alias produces a deep copy of its anchor's
 * node, so the result is a tree whose values can be changed independently. The merge key `<<`
 * (plain, or tagged !!merge) takes a mapping or a sequence of mappings: explicit keys of the
 * mapping win over merged ones wherever they appear, and earlier mappings in the sequence win
 * over later ones.
 *
 * Deliberate differences from kubectl, each chosen to lose nothing silently or to be clearer:
 *   - a key that appears twice in one mapping is an error at the second key (go-yaml keeps the
 *     last one; keys that only become equal as strings, `1` and `"1"`, also count);
 *   - a key containing a NUL character (possible with escapes: "a\0b") is an error, because
 *     jansson's key functions (json_object_get, json_object_foreach, json_equal) stop at a NUL
 *     and would confuse it with other keys. String values keep their NULs: they are made with
 *     json_stringn, so read them with json_string_length;
 *   - go-yaml v2 applies `<<` in document order, so an explicit key written BEFORE the merge
 *     is overwritten by it; here explicit keys always win, as the YAML merge spec says;
 *   - error messages read "yaml: line N: <libyaml's problem>" with the true 1-based line of
 *     the problem; go-yaml prints no line for problems on line 1 and a line one too small for
 *     parser (as opposed to scanner) errors;
 *   - !!binary values are not base64-decoded and !!timestamp values are not validated: both
 *     stay the scalar's text (JSON cannot carry binary data anyway);
 *   - the stream is always parsed as YAML. kubectl parses a stream that starts with `{` as a
 *     sequence of concatenated JSON texts; one JSON text is valid YAML and gives the same
 *     result here, several concatenated ones are a syntax error.
 * Input may be UTF-8 (with or without a BOM) or UTF-16 with a BOM, as libyaml reads it.
 * Floats are read with strtod, which assumes the "C" numeric locale (Caldera never calls
 * setlocale).
 *
 * Errors: every function returns 0 or a negative code and fills the caller's struct vc_error
 * (which may be NULL):
 *   - VC_EPARSE for input that is not valid YAML or cannot be converted to JSON, with line and
 *     column (1-based; the column counts characters) and position (byte offset into the
 *     input) of the problem;
 *   - VC_E2BIG when a limit below is exceeded;
 *   - VC_ENOMEM when an allocation fails; VC_EINVAL for bad arguments; -errno for file errors.
 * All functions are thread-safe (they share no state) as long as nobody changes jansson's
 * allocator at the same time.
 */
#ifndef VC_YAML_H
#define VC_YAML_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

/* Default cap on the input size in bytes (and on a file's size for vc_yaml_load_file). */
#define VC_YAML_MAX_INPUT ((size_t)64 << 20)
/* Default cap on the nesting of mappings and sequences, counted after alias expansion. */
#define VC_YAML_MAX_DEPTH 512
/*
 * Default caps on alias expansion, per call: the number of JSON values and the number of
 * string bytes (keys and values) that aliases may copy in total. A "billion laughs" document
 * fails cleanly with "document contains excessive aliasing" instead of eating memory.
 */
#define VC_YAML_MAX_ALIAS_NODES ((size_t)1 << 20)
#define VC_YAML_MAX_ALIAS_BYTES ((size_t)64 << 20)

/* Limits for the _ex functions. A zero field means the default above. */
struct vc_yaml_limits {
	size_t max_input;	/* bytes of input */
	unsigned int max_depth; /* nested mappings and sequences */
	size_t max_alias_nodes; /* JSON values copied by aliases */
	size_t max_alias_bytes; /* string bytes copied by aliases */
};

/*
 * Parse the YAML stream buf[0..len) (it need not be NUL-terminated; buf may be NULL when len
 * is 0) and store in *docs a NEW reference to a JSON array with one element per document,
 * in stream order. Documents whose value is null are skipped as kubectl skips them: empty and
 * comment-only documents, a trailing `---`, and a document that is just `~` or `null`. An empty
 * stream gives an empty array. On failure *docs is set to NULL and nothing is leaked; an error
 * in any document fails the whole stream. Errors as described at the top of this file.
 */
int vc_yaml_load(const char *buf, size_t len, json_t **docs, struct vc_error *err) VC_WARN_UNUSED;

/*
 * As vc_yaml_load, but the stream must hold exactly one (non-null) document, which *doc
 * receives as a NEW reference. Zero documents, or more than one, is VC_EPARSE ("yaml: expected
 * exactly one document, found 2"), positioned at the start of the second document when there
 * is one.
 */
int vc_yaml_load_one(const char *buf, size_t len, json_t **doc,
		     struct vc_error *err) VC_WARN_UNUSED;

/*
 * Read the file at path (at most VC_YAML_MAX_INPUT bytes, else VC_E2BIG) and parse it as
 * vc_yaml_load does; *docs receives a NEW reference. A file that cannot be read fails with
 * -errno ("cannot read 'path': No such file or directory"); parse errors keep their position
 * and get the prefix "cannot parse 'path': ".
 */
int vc_yaml_load_file(const char *path, json_t **docs, struct vc_error *err) VC_WARN_UNUSED;

/* vc_yaml_load and vc_yaml_load_one with explicit limits; limits may be NULL for defaults. */
int vc_yaml_load_ex(const char *buf, size_t len, const struct vc_yaml_limits *limits, json_t **docs,
		    struct vc_error *err) VC_WARN_UNUSED;
int vc_yaml_load_one_ex(const char *buf, size_t len, const struct vc_yaml_limits *limits,
			json_t **doc, struct vc_error *err) VC_WARN_UNUSED;

#endif /* VC_YAML_H */
