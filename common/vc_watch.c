#include "vc_watch.h"

#include "vc_json.h"

static const char *const event_names[] = {
	[VC_WATCH_ADDED] = "ADDED",	[VC_WATCH_MODIFIED] = "MODIFIED",
	[VC_WATCH_DELETED] = "DELETED", [VC_WATCH_BOOKMARK] = "BOOKMARK",
	[VC_WATCH_ERROR] = "ERROR",
};

const char *vc_watch_event_type_name(enum vc_watch_event_type type)
{
	if ((unsigned)type >= VC_ARRAY_SIZE(event_names))
		return "UNKNOWN";
	return event_names[type];
}

int vc_watch_event_type_parse(const char *s, enum vc_watch_event_type *out)
{
	size_t i;

	for (i = 0; s && i < VC_ARRAY_SIZE(event_names); i++) {
		if (!strcmp(s, event_names[i])) {
			*out = (enum vc_watch_event_type)i;
			return 0;
		}
	}
	return VC_EINVAL;
}

/* Blanks a line may consist of or be surrounded by (the CR of a CRLF included). */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool all_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!is_blank(s[i]))
			return false;
	}
	return true;
}

int vc_watch_event_decode(const char *line, size_t len, size_t cap, enum vc_watch_event_type *type,
			  json_t **object, struct vc_error *err)
{
	const char *name;
	json_t *ev, *obj;
	int rc;

	if (!object || !type || (!line && len))
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	*object = NULL;
	if (!cap)
		cap = VC_WATCH_MAX_EVENT;
	if (len > cap)
		return vc_error_set(err, VC_E2BIG,
				    "watch event of %zu bytes exceeds the limit of %zu bytes", len,
				    cap);
	rc = vc_json_parse(line ? line : "", len, cap, &ev, err);
	if (rc)
		return rc;
	if (!json_is_object(ev)) {
		rc = vc_error_set_at(err, VC_EPARSE, 1, 1, 0, "watch event is not a JSON object");
		goto out;
	}
	name = vc_json_get_str(ev, "type");
	if (!name) {
		rc = vc_error_set_at(err, VC_EPARSE, 1, 1, 0, "watch event has no \"type\" string");
		goto out;
	}
	if (vc_watch_event_type_parse(name, type)) {
		rc = vc_error_set_at(err, VC_EPARSE, 1, 1, 0, "unknown watch event type '%.64s'",
				     name);
		goto out;
	}
	obj = vc_json_get_obj(ev, "object");
	if (!obj) {
		rc = vc_error_set_at(err, VC_EPARSE, 1, 1, 0,
				     "watch event has no \"object\" object");
		goto out;
	}
	*object = json_incref(obj);
	rc = 0;
out:
	json_decref(ev);
	return rc;
}

/* Decode one complete line of the stream and deliver its event; sets d->status on failure. */
static int decode_line(struct vc_watch_decoder *d, const char *line, size_t len, bool at_end,
		       struct vc_error *err)
{
	enum vc_watch_event_type type = VC_WATCH_ADDED;
	json_t *obj = NULL;
	int rc;

	if (all_blank(line, len))
		return 0;
	rc = vc_watch_event_decode(line, len, d->max_event, &type, &obj, err);
	if (rc == VC_EPARSE) {
		/* Positions inside the line become positions in the stream. */
		if (err) {
			err->line = d->line;
			err->position += d->line_start;
		}
		if (at_end)
			vc_error_prefix(err, "watch stream ended inside the event on line %d",
					d->line);
		else
			vc_error_prefix(err, "invalid watch event on line %d", d->line);
	} else if (rc == VC_E2BIG) {
		vc_error_set_at(err, rc, d->line, 0, d->line_start,
				"watch event on line %d exceeds the limit of %zu bytes", d->line,
				d->max_event);
	}
	if (rc)
		return d->status = rc;
	d->events++;
	rc = d->fn ? d->fn(d->fn_ctx, type, obj) : 0;
	json_decref(obj);
	if (rc)
		d->status = rc;
	return rc;
}

void vc_watch_decoder_init(struct vc_watch_decoder *d, size_t max_event, vc_watch_fn fn,
			   void *fn_ctx)
{
	memset(d, 0, sizeof(*d));
	d->max_event = max_event ? max_event : VC_WATCH_MAX_EVENT;
	/* vc_buf's cap is exclusive: a line of exactly max_event bytes must fit. */
	vc_buf_init(&d->pending, d->max_event + 1);
	d->fn = fn;
	d->fn_ctx = fn_ctx;
	d->line = 1;
}

void vc_watch_decoder_release(struct vc_watch_decoder *d)
{
	vc_buf_release(&d->pending);
}

/* The line being read would grow past the cap. */
static int too_big(struct vc_watch_decoder *d, struct vc_error *err)
{
	d->status = vc_error_set_at(err, VC_E2BIG, d->line, 0, d->line_start,
				    "watch event on line %d exceeds the limit of %zu bytes",
				    d->line, d->max_event);
	return d->status;
}

int vc_watch_decoder_feed(struct vc_watch_decoder *d, const void *data, size_t len,
			  struct vc_error *err)
{
	const char *p = data, *nl;
	size_t n;
	int rc;

	if (d->status)
		return d->status;
	if (!p && len)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	while (len > 0) {
		nl = memchr(p, '\n', len);
		n = nl ? (size_t)(nl - p) : len;
		if (d->pending.len + n > d->max_event)
			return too_big(d, err);
		if (!nl) {
			rc = vc_buf_add(&d->pending, p, n);
			if (rc)
				return d->status = vc_error_set(err, rc, "out of memory");
			d->offset += n;
			return 0;
		}
		if (d->pending.len == 0) {
			/* The whole line is in this piece: decode it in place, no copy. */
			rc = decode_line(d, p, n, false, err);
		} else {
			rc = vc_buf_add(&d->pending, p, n);
			if (rc)
				return d->status = vc_error_set(err, rc, "out of memory");
			rc = decode_line(d, d->pending.data, d->pending.len, false, err);
			vc_buf_reset(&d->pending);
		}
		d->offset += n + 1;
		d->line_start = d->offset;
		d->line++;
		if (rc)
			return rc;
		p += n + 1;
		len -= n + 1;
	}
	return 0;
}

int vc_watch_decoder_finish(struct vc_watch_decoder *d, struct vc_error *err)
{
	int rc;

	if (d->status)
		return d->status;
	if (d->pending.len == 0)
		return 0;
	rc = decode_line(d, d->pending.data, d->pending.len, true, err);
	vc_buf_reset(&d->pending);
	return rc;
}
