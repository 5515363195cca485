/*
 * vc_ratelimit.h - a token bucket (golang.org/x/time/rate's Limiter, as client-go uses it).
 *
 * The bucket holds up to `burst` tokens and refills at `qps` tokens per second. Taking a token
 * never blocks here: vc_bucket_reserve() takes one (the bucket may go into debt) and says how
 * long the caller must wait before acting, so callers decide whether to sleep (the REST client)
 * or to schedule (the work queue). Time comes from vc_time_mono_ns(), which tests replace, so
 * nothing here sleeps. Thread-safe.
 */
#ifndef VC_RATELIMIT_H
#define VC_RATELIMIT_H

#include "vc_prelude.h"

#include <pthread.h>

struct vc_bucket {
	double qps;    /* tokens per second; <= 0 means unlimited */
	double burst;  /* capacity (at least 1 when limited) */
	double tokens; /* may be negative: reservations not yet covered */
	int64_t last;  /* monotonic ns of the last refill */
	pthread_mutex_t lock;
};

/* A full bucket. qps <= 0 makes every reservation free. */
void vc_bucket_init(struct vc_bucket *b, double qps, int burst);
void vc_bucket_release(struct vc_bucket *b);
/* Take one token; returns how many nanoseconds the caller must wait (0 = act now). */
int64_t vc_bucket_reserve(struct vc_bucket *b);
/* Take one token only if one is available now; true when taken. */
bool vc_bucket_try(struct vc_bucket *b);

#endif /* VC_RATELIMIT_H */
