/*
 * vc_watch.h - the streaming decoder of Kubernetes watch responses.
 *
 * A watch response is a stream of JSON events, one per line: {"type":"ADDED","object":{...}}
 * followed by "\n" (the API server's JSON framing). The bytes arrive in whatever pieces the
 * network delivers, so an event, a UTF-8 sequence or the newline itself may be split at any
 * byte; the decoder keeps the unfinished line in a bounded buffer and hands each complete event
 * to a callback as (type, object). It allocates nothing that outlives a call except that buffer.
 *
 * What counts as an error (the informer then relists):
 *   - a line that is not a JSON object with a "type" of ADDED, MODIFIED, DELETED, BOOKMARK or
 *     ERROR and an "object" that is a JSON object: VC_EPARSE, with the line number, the column
 *     inside the line (for JSON syntax errors) and the byte offset in the stream;
 *   - a line longer than the decoder's cap: VC_E2BIG, reported as soon as the cap is passed, so
 *     the buffer never grows beyond it;
 *   - an allocation failure: VC_ENOMEM (jansson may report one as VC_EPARSE, see vc_json.h).
 * Empty lines and lines of blanks (space, tab, CR) are skipped; a CR before the newline is
 * allowed. Errors are sticky: once a call failed, or the callback asked to stop, every later
 * call returns the same value without looking at its input.
 *
 * A decoder is used by one thread at a time.
 */
#ifndef VC_WATCH_H
#define VC_WATCH_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_buf.h"
#include "vc_err.h"
#include "vc_kube.h"

/*
 * The default cap on one event line: far above the API server's own limit on an object (its
 * request bodies are capped at 3 MiB, etcd values at 1.5 MiB).
 */
#define VC_WATCH_MAX_EVENT ((size_t)16 << 20)

struct vc_watch_decoder {
	struct vc_buf pending; /* private: the unfinished line */
	size_t max_event;      /* the cap on a line, without its newline */
	vc_watch_fn fn;
	void *fn_ctx;
	size_t offset;	   /* bytes consumed so far (read-only) */
	size_t line_start; /* private: stream offset of the current line */
	int line;	   /* 1-based number of the current line (read-only) */
	int status;	   /* private: sticky result, 0 while decoding goes on */
	uint64_t events;   /* events delivered so far (read-only) */
};

/*
 * Prepare d to decode a stream, delivering each event to fn(fn_ctx, type, object) where object
 * is borrowed for the duration of the call (json_incref it to keep it). max_event is the cap on
 * one line in bytes, 0 meaning VC_WATCH_MAX_EVENT. Never fails; release with
 * vc_watch_decoder_release.
 */
void vc_watch_decoder_init(struct vc_watch_decoder *d, size_t max_event, vc_watch_fn fn,
			   void *fn_ctx);

/* Free the buffer; d can be used again after vc_watch_decoder_init. */
void vc_watch_decoder_release(struct vc_watch_decoder *d);

/*
 * Decode the next len bytes of the stream (data may be NULL when len is 0), calling fn for every
 * event completed by them, in order. Returns 0 when all of them were consumed, the callback's
 * non-zero return value when it asked to stop (the rest of the input is then ignored), or a
 * negative error as described at the top of this file, with err filled (may be NULL). The
 * results are sticky.
 */
int vc_watch_decoder_feed(struct vc_watch_decoder *d, const void *data, size_t len,
			  struct vc_error *err) VC_WARN_UNUSED;

/*
 * The stream ended. A last line without its newline is decoded as an event when it is one; when
 * it is not (the connection broke inside an event), the result is VC_EPARSE with the message
 * "watch stream ended inside the event on line N: ...". Returns as vc_watch_decoder_feed.
 */
int vc_watch_decoder_finish(struct vc_watch_decoder *d, struct vc_error *err) VC_WARN_UNUSED;

/*
 * Decode one event line (len bytes at line, no newline needed; blanks around it are allowed),
 * refusing lines longer than cap bytes (0 = VC_WATCH_MAX_EVENT). On success returns 0, sets
 * *type and stores in *object a NEW reference to the event's object. On failure *object is NULL
 * and the return is VC_EPARSE, VC_E2BIG or VC_ENOMEM; err->text says what is wrong
 * ("unknown watch event type 'FOO'", "watch event has no \"object\" object", or jansson's text
 * for a syntax error) with the column and byte position inside the line.
 */
int vc_watch_event_decode(const char *line, size_t len, size_t cap, enum vc_watch_event_type *type,
			  json_t **object, struct vc_error *err) VC_WARN_UNUSED;

/* "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"; "UNKNOWN" for other values. */
const char *vc_watch_event_type_name(enum vc_watch_event_type type);

/* The type named s (one of the names above, exact case). VC_EINVAL for anything else. */
int vc_watch_event_type_parse(const char *s, enum vc_watch_event_type *out) VC_WARN_UNUSED;

#endif /* VC_WATCH_H */
