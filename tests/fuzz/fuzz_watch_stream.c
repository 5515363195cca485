/*
 * fuzz_watch_stream - feed arbitrary bytes to the watch decoder in pieces whose sizes come from
 * the input itself, the way a network delivers them. The first 6 bytes are the controls: a
 * 32-bit seed for the piece sizes, a cap selector (a small cap exercises the oversized-line
 * path) and the event after which the callback asks to stop (0 = never). The decoder must never
 * crash, leak, buffer more than its cap, deliver anything but a known type with an object, or
 * call back after it said stop or failed; any of these aborts.
 */
#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct state {
	unsigned events;
	unsigned stop_after;
	bool done; /* the callback returned non-zero */
};

static int on_event(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	struct state *s = ctx;

	if (s->done || (unsigned)type > VC_WATCH_ERROR || !json_is_object(obj))
		abort();
	/* Touch the object, as a handler would. */
	(void)json_object_size(json_object_get(obj, "metadata"));
	s->events++;
	if (s->stop_after && s->events == s->stop_after) {
		s->done = true;
		return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t caps[] = { 0, 16, 256, 4096 };
	struct vc_watch_decoder d;
	struct vc_error err;
	struct state s = { 0 };
	uint32_t seed;
	size_t n, cap;
	int rc = 0;

	if (size < 6)
		return 0;
	seed = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	       (uint32_t)data[3] << 24;
	seed |= 1; /* xorshift never leaves 0 */
	cap = caps[data[4] & 3];
	s.stop_after = data[5] & 7;
	data += 6;
	size -= 6;
	vc_watch_decoder_init(&d, cap, on_event, &s);
	while (size > 0) {
		/* xorshift32: piece sizes 0..63, a few of them empty */
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		n = VC_MIN(size, (size_t)(seed & 63));
		rc = vc_watch_decoder_feed(&d, data, n, &err);
		if (d.pending.len > d.max_event)
			abort();
		if (rc)
			break;
		data += n;
		size -= n;
	}
	if (!rc)
		rc = vc_watch_decoder_finish(&d, &err);
	/* Sticky: once failed or stopped, the same answer again. */
	if (rc && vc_watch_decoder_feed(&d, "{}\n", 3, &err) != rc)
		abort();
	if (rc == 1 && !s.done)
		abort();
	if (rc < 0 && (err.code != rc || !err.text[0]))
		abort();
	vc_watch_decoder_release(&d);
	return 0;
}
