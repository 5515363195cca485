/*
 * threads.h - the process's thread count, for tests that check a pool's threads end when idle
 * (header-only: include it after <cmocka.h>).
 */
#ifndef CALDERA_TESTS_THREADS_H
#define CALDERA_TESTS_THREADS_H

#include "vc_prelude.h"

#include <time.h>

/* The process's thread count, from /proc/self/status. */
static inline int threads_now(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Wait up to 10 s for the thread count to be want; returns the last count read. */
static inline int threads_settle(int want)
{
	struct timespec ts = { 0, 50L * 1000 * 1000 };
	int k, n = threads_now();

	for (k = 0; k < 200 && n != want; k++) {
		nanosleep(&ts, NULL);
		n = threads_now();
	}
	return n;
}

#endif
