#include "vc_ratelimit.h"

#include "vc_time.h"

void vc_bucket_init(struct vc_bucket *b, double qps, int burst)
{
	b->qps = qps;
	b->burst = burst < 1 ? 1 : burst;
	b->tokens = b->burst;
	b->last = vc_time_mono_ns();
	pthread_mutex_init(&b->lock, NULL);
}

void vc_bucket_release(struct vc_bucket *b)
{
	pthread_mutex_destroy(&b->lock);
}

/* Add the tokens earned since the last refill, up to the burst. Called with the lock held. */
static void bucket_refill(struct vc_bucket *b, int64_t now)
{
	if (now > b->last) {
		b->tokens += (double)(now - b->last) / 1e9 * b->qps;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
	}
	b->last = now;
}

int64_t vc_bucket_reserve(struct vc_bucket *b)
{
	int64_t wait = 0;

	if (b->qps <= 0)
		return 0;
	pthread_mutex_lock(&b->lock);
	bucket_refill(b, vc_time_mono_ns());
	b->tokens -= 1;
	if (b->tokens < 0)
		wait = (int64_t)(-b->tokens / b->qps * 1e9 + 0.5);
	pthread_mutex_unlock(&b->lock);
	return wait;
}

bool vc_bucket_try(struct vc_bucket *b)
{
	bool ok = false;

	if (b->qps <= 0)
		return true;
	pthread_mutex_lock(&b->lock);
	bucket_refill(b, vc_time_mono_ns());
	if (b->tokens >= 1) {
		b->tokens -= 1;
		ok = true;
	}
	pthread_mutex_unlock(&b->lock);
	return ok;
}
