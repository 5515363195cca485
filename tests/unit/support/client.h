/*
 * client.h - the client side of the unit tests that talk to a server over loopback TCP
 * (test_httpd, test_webhook_server); header-only: include it after <cmocka.h>.
 *
 * struct tbuf is a growing byte buffer whose data is always NUL-terminated. The client side keeps
 * its bytes in libc memory: tests that make the server's vc_malloc fail must not affect their
 * clients.
 */
#ifndef CALDERA_TESTS_CLIENT_H
#define CALDERA_TESTS_CLIENT_H

#include "vc_prelude.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* A TCP connection to 127.0.0.1:port (the test fails when it cannot connect). */
static inline int connect_to(uint16_t port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

struct tbuf {
	char *data;
	size_t len;
};

static inline void tbuf_init(struct tbuf *b)
{
	b->data = calloc(1, 1);
	assert_non_null(b->data);
	b->len = 0;
}

static inline void tbuf_add(struct tbuf *b, const char *data, size_t n)
{
	char *p = realloc(b->data, b->len + n + 1);

	assert_non_null(p);
	memcpy(p + b->len, data, n);
	b->len += n;
	p[b->len] = '\0';
	b->data = p;
}

static inline void tbuf_release(struct tbuf *b)
{
	free(b->data);
	b->data = NULL;
}

/* A libcurl CURLOPT_WRITEFUNCTION appending to the struct tbuf of CURLOPT_WRITEDATA. */
static inline size_t curl_sink(char *data, size_t size, size_t n, void *ctx)
{
	tbuf_add(ctx, data, size * n);
	return size * n;
}

#endif
