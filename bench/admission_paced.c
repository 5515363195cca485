/*
 * admission_paced.c - an open-loop load generator for bench_admission.sh part d: POST one body
 * to one HTTPS URL at a fixed rate (requests/s) for a fixed time, over keep-alive connections
 * (libcurl multi, HTTP/1.1), and print the latency percentiles.
 *
 *   admission_paced URL BODY_FILE RATE SECONDS CA_FILE [MAX_CONNS (64)]
 *
 * Request i is due at start + i / RATE; its latency runs from that due time, not from when it
 * could be sent, so a webhook that falls behind is charged for the wait of the requests queued
 * behind it (no coordinated omission: wrk, closed-loop, sends the next request only after an
 * answer). A due request takes an idle connection, or opens a new one up to MAX_CONNS; beyond
 * that it waits for one (and that wait is part of its latency). The first second is a warm-up
 * at the same rate, not counted: connections are opened (TLS handshakes) as the rate needs them.
 * Prints one line about the counted SECONDS:
 *   paced RATE SECONDS sent answered errors late p50_us p99_us p999_us max_us conns
 * where errors counts transfers that failed or were not answered 200, and late the requests
 * sent more than 1 ms after they were due.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

struct slot {
	CURL *easy;
	int64_t due_ns;
	long seq;
	int busy;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
	(void)p;
	(void)ud;
	return size * n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0) {
		fprintf(stderr, "admission_paced: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct curl_slist *hdrs = NULL;
	struct slot *slots;
	int64_t *lat, start, interval, t;
	long rate, secs, maxc, total, warm, sent = 0, answered = 0, errors = 0, late = 0, i;
	int nslots = 0, running;
	char *body;
	long blen;
	FILE *f;
	CURLM *multi;

	if (argc < 6 || argc > 7) {
		fprintf(stderr, "usage: admission_paced URL BODY_FILE RATE SECONDS CA_FILE "
				"[MAX_CONNS]\n");
		return 2;
	}
	rate = parse_long(argv[3], "rate");
	secs = parse_long(argv[4], "seconds");
	maxc = argc > 6 ? parse_long(argv[6], "connections") : 64;
	warm = rate; /* one second */
	total = rate * secs + warm;
	f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (blen = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(argv[2]);
		return 1;
	}
	body = malloc((size_t)blen + 1);
	if (!body || fread(body, 1, (size_t)blen, f) != (size_t)blen) {
		perror(argv[2]);
		return 1;
	}
	fclose(f);
	slots = calloc((size_t)maxc, sizeof(*slots));
	lat = calloc((size_t)total, sizeof(*lat));
	if (!slots || !lat)
		return 1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	multi = curl_multi_init();
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxc);
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, maxc);
	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	hdrs = curl_slist_append(hdrs, "Expect:");
	interval = 1000000000 / rate;
	start = now_ns() + 1000000;
	for (;;) {
		CURLMsg *msg;
		int left, idle = -1;

		t = now_ns();
		/* Send what is due: an idle slot, or a new one. */
		while (sent < total && t >= start + sent * interval) {
			for (i = 0; i < nslots && idle < 0; i++)
				if (!slots[i].busy)
					idle = (int)i;
			if (idle < 0 && nslots < maxc) {
				CURL *e = curl_easy_init();

				if (!e)
					return 1;
				curl_easy_setopt(e, CURLOPT_URL, argv[1]);
				curl_easy_setopt(e, CURLOPT_CAINFO, argv[5]);
				curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
				curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
				curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, blen);
				curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
				curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
				curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
				curl_easy_setopt(e, CURLOPT_PRIVATE, &slots[nslots]);
				slots[nslots].easy = e;
				idle = nslots++;
			}
			if (idle < 0)
				break; /* every connection busy: it waits, its latency grows */
			slots[idle].busy = 1;
			slots[idle].due_ns = start + sent * interval;
			slots[idle].seq = sent;
			if (sent >= warm && t - slots[idle].due_ns > 1000000)
				late++;
			curl_multi_add_handle(multi, slots[idle].easy);
			sent++;
			idle = -1;
		}
		curl_multi_perform(multi, &running);
		while ((msg = curl_multi_info_read(multi, &left))) {
			struct slot *s;
			long code = 0;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
			curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
			if (s->seq < warm)
				;
			else if (msg->data.result != CURLE_OK || code != 200)
				errors++;
			else
				lat[answered++] = now_ns() - s->due_ns;
			curl_multi_remove_handle(multi, msg->easy_handle);
			s->busy = 0;
		}
		if (sent >= total && !running)
			break;
		/* Wait for a socket or the next due time, whichever first (pselect: µs, not ms). */
		t = now_ns();
		{
			fd_set r, w, x;
			int maxfd = -1;
			long ct = -1;
			int64_t d = 100000000;
			struct timespec ts;

			if (sent < total)
				d = start + sent * interval - t;
			curl_multi_timeout(multi, &ct);
			if (ct >= 0 && ct * 1000000 < d)
				d = ct * 1000000;
			if (d > 0) {
				FD_ZERO(&r);
				FD_ZERO(&w);
				FD_ZERO(&x);
				curl_multi_fdset(multi, &r, &w, &x, &maxfd);
				ts.tv_sec = d / 1000000000;
				ts.tv_nsec = d % 1000000000;
				pselect(maxfd + 1, &r, &w, &x, &ts, NULL);
			}
		}
	}
	qsort(lat, (size_t)answered, sizeof(*lat), cmp_i64);
#define PCT(p) (answered ? lat[(long)((double)(answered - 1) * (p))] / 1000 : 0)
	printf("paced %ld %ld %ld %ld %ld %ld %lld %lld %lld %lld %d\n", rate, secs, sent - warm,
	       answered, errors, late, (long long)PCT(0.5), (long long)PCT(0.99),
	       (long long)PCT(0.999), (long long)PCT(1.0), nslots);
	for (i = 0; i < nslots; i++)
		curl_easy_cleanup(slots[i].easy);
	curl_multi_cleanup(multi);
	curl_slist_free_all(hdrs);
	curl_global_cleanup();
	free(lat);
	free(slots);
	free(body);
	return 0;
}
