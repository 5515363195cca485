/* Unit tests for vc_watch: the streaming decoder of watch events. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_json.h"
#include "vc_watch.h"

/*
 * A captured multi-event stream, written out by hand: what kube-apiserver sends for a watch of
 * pods with allowWatchBookmarks=true, ended by the ERROR it sends when the resourceVersion is
 * too old. It has a multi-byte UTF-8 label value (splits inside a character), a CRLF line and
 * an empty line (both skipped).
 */
static const char stream[] =
	"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
	"{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"10\"}}}\n"
	"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
	"{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"11\",\"labels\":"
	"{\"app\":\"caf\xc3\xa9\"}},\"status\":{\"phase\":\"Running\"}}}\n"
	"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
	"{\"resourceVersion\":\"12\"}}}\r\n"
	"\n"
	"{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
	"{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"13\"}}}\n"
	"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	"\"status\":\"Failure\",\"message\":\"too old resource version: 5 (13)\","
	"\"reason\":\"Expired\",\"code\":410}}\n";

/* What the recorder writes for the stream: one line per event. */
static const char expected[] =
	"ADDED default/a rv=10\n"
	"MODIFIED default/a rv=11 app=caf\xc3\xa9 phase=Running\n"
	"BOOKMARK rv=12\n"
	"DELETED default/a rv=13\n"
	"ERROR code=410 reason=Expired msg=too old resource version: 5 (13)\n";

struct rec {
	struct vc_buf log;
	int stop_at; /* return stop_rc from this event on (1-based); 0 = never */
	int stop_rc;
	int n;
};

static int record(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	struct rec *r = ctx;
	json_t *meta = vc_json_get_obj(obj, "metadata");
	const char *app = vc_json_get_str(vc_json_get_obj(meta, "labels"), "app");
	const char *phase = vc_json_get_str(vc_json_get_obj(obj, "status"), "phase");
	int rc = 0;

	r->n++;
	rc |= vc_buf_adds(&r->log, vc_watch_event_type_name(type));
	if (type == VC_WATCH_ERROR) {
		rc |= vc_buf_addf(&r->log, " code=%" PRId64 " reason=%s msg=%s",
				  vc_json_get_int(obj, "code", 0), vc_json_get_str(obj, "reason"),
				  vc_json_get_str(obj, "message"));
	} else {
		if (vc_json_get_str(meta, "name"))
			rc |= vc_buf_addf(&r->log, " %s/%s", vc_json_get_str(meta, "namespace"),
					  vc_json_get_str(meta, "name"));
		rc |= vc_buf_addf(&r->log, " rv=%s", vc_json_get_str(meta, "resourceVersion"));
		if (app)
			rc |= vc_buf_addf(&r->log, " app=%s", app);
		if (phase)
			rc |= vc_buf_addf(&r->log, " phase=%s", phase);
	}
	rc |= vc_buf_addc(&r->log, '\n');
	assert_int_equal(rc, 0);
	if (r->stop_at && r->n >= r->stop_at)
		return r->stop_rc;
	return 0;
}

static void rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	vc_buf_init(&r->log, 0);
}

/* Feed `s` in pieces ending at the given offsets (ascending), then finish. */
static int feed_pieces(struct vc_watch_decoder *d, const char *s, size_t len, const size_t *cuts,
		       size_t ncuts, struct vc_error *err)
{
	size_t at = 0, i;
	int rc;

	for (i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : len;

		rc = vc_watch_decoder_feed(d, s + at, end - at, err);
		if (rc)
			return rc;
		at = end;
	}
	return vc_watch_decoder_finish(d, err);
}

static void test_whole_stream(void **state)
{
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	(void)state;
	rec_init(&r);
	vc_watch_decoder_init(&d, 0, record, &r);
	assert_int_equal(d.max_event, VC_WATCH_MAX_EVENT);
	assert_int_equal(feed_pieces(&d, stream, strlen(stream), NULL, 0, &err), 0);
	assert_string_equal(vc_buf_str(&r.log), expected);
	assert_int_equal(d.events, 5);
	assert_int_equal(d.line, 7);
	assert_int_equal(d.offset, strlen(stream));
	/* Nothing pending: finishing again is harmless. */
	assert_int_equal(vc_watch_decoder_finish(&d, &err), 0);
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);
}

/* The stream cut in two at every byte offset, 0 and the end included. */
static void test_every_split_point(void **state)
{
	size_t len = strlen(stream), cut;
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	(void)state;
	for (cut = 0; cut <= len; cut++) {
		rec_init(&r);
		vc_watch_decoder_init(&d, 0, record, &r);
		assert_int_equal(feed_pieces(&d, stream, len, &cut, 1, &err), 0);
		if (strcmp(vc_buf_str(&r.log), expected))
			fail_msg("split at %zu gave:\n%s", cut, vc_buf_str(&r.log));
		vc_watch_decoder_release(&d);
		vc_buf_release(&r.log);
	}
}

/* Three pieces: every first cut with second cuts 1, 2, 3, 5, 8 and 13 bytes later. */
static void test_split_in_three(void **state)
{
	static const size_t gaps[] = { 1, 2, 3, 5, 8, 13 };
	size_t len = strlen(stream), i, g, cuts[2];
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	(void)state;
	for (i = 0; i < len; i++) {
		for (g = 0; g < VC_ARRAY_SIZE(gaps) && i + gaps[g] <= len; g++) {
			cuts[0] = i;
			cuts[1] = i + gaps[g];
			rec_init(&r);
			vc_watch_decoder_init(&d, 0, record, &r);
			assert_int_equal(feed_pieces(&d, stream, len, cuts, 2, &err), 0);
			if (strcmp(vc_buf_str(&r.log), expected))
				fail_msg("cuts %zu,%zu gave:\n%s", cuts[0], cuts[1],
					 vc_buf_str(&r.log));
			vc_watch_decoder_release(&d);
			vc_buf_release(&r.log);
		}
	}
}

static void test_byte_at_a_time(void **state)
{
	size_t len = strlen(stream), i;
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	(void)state;
	rec_init(&r);
	vc_watch_decoder_init(&d, 0, record, &r);
	for (i = 0; i < len; i++) {
		assert_int_equal(vc_watch_decoder_feed(&d, stream + i, 1, &err), 0);
		/* Never more than the unfinished line is buffered. */
		assert_true(d.pending.len <= 300);
	}
	assert_int_equal(vc_watch_decoder_feed(&d, NULL, 0, &err), 0);
	assert_int_equal(vc_watch_decoder_finish(&d, &err), 0);
	assert_string_equal(vc_buf_str(&r.log), expected);
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);
}

/* The server need not end the last event with a newline; a cut-off event is an error. */
static void test_end_of_stream(void **state)
{
	static const char ev[] = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\","
				 "\"namespace\":\"n\",\"resourceVersion\":\"1\"}}}";
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	(void)state;
	rec_init(&r);
	vc_watch_decoder_init(&d, 0, record, &r);
	assert_int_equal(vc_watch_decoder_feed(&d, ev, strlen(ev), &err), 0);
	assert_string_equal(vc_buf_str(&r.log), "");
	assert_int_equal(vc_watch_decoder_finish(&d, &err), 0);
	assert_string_equal(vc_buf_str(&r.log), "ADDED n/x rv=1\n");
	vc_watch_decoder_release(&d);

	/* The connection broke inside the second event. */
	vc_buf_reset(&r.log);
	vc_watch_decoder_init(&d, 0, record, &r);
	assert_int_equal(vc_watch_decoder_feed(&d, ev, strlen(ev), &err), 0);
	assert_int_equal(vc_watch_decoder_feed(&d, "\n{\"type\":\"ADD", 13, &err), 0);
	assert_int_equal(vc_watch_decoder_finish(&d, &err), VC_EPARSE);
	assert_string_equal(err.text, "watch stream ended inside the event on line 2: "
				      "premature end of input near '\"ADD'");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.position, strlen(ev) + 1 + 12);
	assert_string_equal(vc_buf_str(&r.log), "ADDED n/x rv=1\n");
	/* Sticky. */
	assert_int_equal(vc_watch_decoder_feed(&d, "\n", 1, &err), VC_EPARSE);
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);
}

/* Feed len bytes of `in` whole and expect error rc with text and position. */
static void expect_bad_n(const char *in, size_t len, int rc, const char *text, int line, int column,
			 size_t position, int events)
{
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	rec_init(&r);
	vc_watch_decoder_init(&d, 64, record, &r);
	assert_int_equal(vc_watch_decoder_feed(&d, in, len, &err), rc);
	assert_string_equal(err.text, text);
	assert_int_equal(err.code, rc);
	assert_int_equal(err.line, line);
	assert_int_equal(err.column, column);
	assert_int_equal(err.position, position);
	assert_int_equal(r.n, events);
	/* Sticky: nothing more is decoded, the same error comes back. */
	assert_int_equal(vc_watch_decoder_feed(&d, "{}\n", 3, &err), rc);
	assert_int_equal(vc_watch_decoder_finish(&d, &err), rc);
	assert_int_equal(r.n, events);
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);
}

static void expect_bad(const char *in, int rc, const char *text, int line, int column,
		       size_t position, int events)
{
	expect_bad_n(in, strlen(in), rc, text, line, column, position, events);
}

static void test_garbage_lines(void **state)
{
	(void)state;
	/* 29 bytes of a good event first, so positions are stream offsets. */
	expect_bad("{\"type\":\"ADDED\",\"object\":{}}\nnot json\n", VC_EPARSE,
		   "invalid watch event on line 2: '[' or '{' expected near 'not'", 2, 3, 32, 1);
	expect_bad("<html>502 Bad Gateway</html>\n", VC_EPARSE,
		   "invalid watch event on line 1: '[' or '{' expected near '<'", 1, 1, 1, 0);
	expect_bad("{\"type\":\"ADDED\",\"object\":{}} {}\n", VC_EPARSE,
		   "invalid watch event on line 1: end of file expected near '{'", 1, 30, 30, 0);
	expect_bad("[1,2]\n", VC_EPARSE,
		   "invalid watch event on line 1: watch event is not a JSON object", 1, 1, 0, 0);
	expect_bad("{\"object\":{}}\n", VC_EPARSE,
		   "invalid watch event on line 1: watch event has no \"type\" string", 1, 1, 0, 0);
	expect_bad("{\"type\":1,\"object\":{}}\n", VC_EPARSE,
		   "invalid watch event on line 1: watch event has no \"type\" string", 1, 1, 0, 0);
	expect_bad("\n\n{\"type\":\"added\",\"object\":{}}\n", VC_EPARSE,
		   "invalid watch event on line 3: unknown watch event type 'added'", 3, 1, 2, 0);
	expect_bad("{\"type\":\"ADDED\"}\n", VC_EPARSE,
		   "invalid watch event on line 1: watch event has no \"object\" object", 1, 1, 0,
		   0);
	expect_bad("{\"type\":\"ADDED\",\"object\":\"x\"}\n", VC_EPARSE,
		   "invalid watch event on line 1: watch event has no \"object\" object", 1, 1, 0,
		   0);
	expect_bad("{\"type\":\"ADDED\",\"type\":\"DELETED\",\"object\":{}}\n", VC_EPARSE,
		   "invalid watch event on line 1: duplicate object key near '\"type\"'", 1, 22, 22,
		   0);
	/* A NUL byte in a line is not JSON. */
	expect_bad_n("{\"type\":\"ADDED\",\"object\":{}}\0\n", 31, VC_EPARSE,
		     "invalid watch event on line 1: end of file expected near end of file", 1, 29,
		     29, 0);
}

static void test_oversized_line(void **state)
{
	char line[200];
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;
	size_t i;

	(void)state;
	/* Exactly 64 bytes fit a cap of 64. */
	snprintf(line, sizeof(line), "{\"type\":\"ADDED\",\"object\":{\"a\":\"%s\"}}\n",
		 "012345678901234567890123456789");
	assert_int_equal(strlen(line), 65);
	rec_init(&r);
	vc_watch_decoder_init(&d, 64, record, &r);
	assert_int_equal(vc_watch_decoder_feed(&d, line, 30, &err), 0);
	assert_int_equal(vc_watch_decoder_feed(&d, line + 30, 35, &err), 0);
	assert_int_equal(r.n, 1);
	vc_watch_decoder_release(&d);

	/* 65 bytes do not, whole or in pieces, with or without the newline yet. */
	snprintf(line, sizeof(line), "{\"type\":\"ADDED\",\"object\":{\"a\":\"%s\"}}\n",
		 "0123456789012345678901234567890");
	expect_bad(line, VC_E2BIG, "watch event on line 1 exceeds the limit of 64 bytes", 1, 0, 0,
		   0);
	vc_watch_decoder_init(&d, 64, record, &r);
	for (i = 0; i < 64; i++)
		assert_int_equal(vc_watch_decoder_feed(&d, "x", 1, &err), 0);
	assert_int_equal(d.pending.len, 64);
	assert_int_equal(vc_watch_decoder_feed(&d, "x", 1, &err), VC_E2BIG);
	assert_string_equal(err.text, "watch event on line 1 exceeds the limit of 64 bytes");
	assert_int_equal(d.pending.len, 64);
	vc_watch_decoder_release(&d);

	/* The second line is the long one: its line and offset are reported. */
	vc_watch_decoder_init(&d, 64, record, &r);
	assert_int_equal(
		vc_watch_decoder_feed(&d, "{\"type\":\"ADDED\",\"object\":{}}\n", 29, &err), 0);
	memset(line, 'y', 100);
	assert_int_equal(vc_watch_decoder_feed(&d, line, 100, &err), VC_E2BIG);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.position, 29);
	assert_string_equal(err.text, "watch event on line 2 exceeds the limit of 64 bytes");
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);
}

static void test_callback_stops(void **state)
{
	struct vc_watch_decoder d;
	struct vc_error err;
	struct rec r;

	(void)state;
	rec_init(&r);
	r.stop_at = 2;
	r.stop_rc = 7;
	vc_watch_decoder_init(&d, 0, record, &r);
	assert_int_equal(vc_watch_decoder_feed(&d, stream, strlen(stream), &err), 7);
	assert_int_equal(r.n, 2);
	assert_int_equal(vc_watch_decoder_feed(&d, stream, strlen(stream), &err), 7);
	assert_int_equal(vc_watch_decoder_finish(&d, &err), 7);
	assert_int_equal(r.n, 2);
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);

	/* A negative return works the same way. */
	rec_init(&r);
	r.stop_at = 1;
	r.stop_rc = VC_ESHUTDOWN;
	vc_watch_decoder_init(&d, 0, record, &r);
	assert_int_equal(vc_watch_decoder_feed(&d, stream, 10, &err), 0);
	assert_int_equal(vc_watch_decoder_feed(&d, stream + 10, strlen(stream) - 10, &err),
			 VC_ESHUTDOWN);
	assert_int_equal(r.n, 1);
	vc_watch_decoder_release(&d);
	vc_buf_release(&r.log);
}

static void test_event_decode_and_names(void **state)
{
	enum vc_watch_event_type t;
	struct vc_error err;
	json_t *obj;

	(void)state;
	assert_int_equal(vc_watch_event_decode("  {\"type\":\"BOOKMARK\",\"object\":{\"a\":1}} \r",
					       40, 0, &t, &obj, &err),
			 0);
	assert_int_equal(t, VC_WATCH_BOOKMARK);
	assert_int_equal(vc_json_get_int(obj, "a", 0), 1);
	json_decref(obj);
	assert_int_equal(vc_watch_event_decode("{}", 2, 1, &t, &obj, &err), VC_E2BIG);
	assert_null(obj);
	assert_int_equal(vc_watch_event_decode(NULL, 1, 0, &t, &obj, &err), VC_EINVAL);
	assert_string_equal(vc_watch_event_type_name(VC_WATCH_ADDED), "ADDED");
	assert_string_equal(vc_watch_event_type_name(VC_WATCH_ERROR), "ERROR");
	assert_string_equal(vc_watch_event_type_name((enum vc_watch_event_type)99), "UNKNOWN");
	assert_int_equal(vc_watch_event_type_parse("DELETED", &t), 0);
	assert_int_equal(t, VC_WATCH_DELETED);
	assert_int_equal(vc_watch_event_type_parse("Deleted", &t), VC_EINVAL);
	assert_int_equal(vc_watch_event_type_parse(NULL, &t), VC_EINVAL);
}

/* Every allocation failing in turn: an error or the full result, never a leak or a crash. */
static void test_allocation_failures(void **state)
{
	size_t cut = strlen(stream) / 3;
	struct vc_watch_decoder d;
	struct vc_error err;
	long n, failures;
	struct rec r;
	int rc;

	(void)state;
	vc_alloc_install_json();
	for (n = 0;; n++) {
		rec_init(&r);
		/* The recorder's own buffer must not be what fails. */
		assert_int_equal(vc_buf_add(&r.log, stream, sizeof(stream)), 0);
		vc_buf_reset(&r.log);
		vc_watch_decoder_init(&d, 0, record, &r);
		vc_alloc_fail_after(n);
		rc = feed_pieces(&d, stream, strlen(stream), &cut, 1, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		vc_watch_decoder_release(&d);
		if (failures == 0) {
			assert_int_equal(rc, 0);
			assert_string_equal(vc_buf_str(&r.log), expected);
			vc_buf_release(&r.log);
			break;
		}
		/* jansson may report a failed allocation in its lexer as a syntax error. */
		assert_true(rc == VC_ENOMEM || rc == VC_EPARSE);
		assert_int_equal(err.code, rc);
		vc_buf_release(&r.log);
	}
	assert_true(n > 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_stream),
		cmocka_unit_test(test_every_split_point),
		cmocka_unit_test(test_split_in_three),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_end_of_stream),
		cmocka_unit_test(test_garbage_lines),
		cmocka_unit_test(test_oversized_line),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_event_decode_and_names),
		cmocka_unit_test(test_allocation_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
