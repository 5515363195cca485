/*
 * vc_kube_internal.h - what vc_kube.c (resources and verbs) shares with the REST client
 * (vc_kube_rest.c, the transport; vc_kube_rest_verbs.c, its verbs). Private to those files.
 */
#ifndef VC_KUBE_INTERNAL_H
#define VC_KUBE_INTERNAL_H

#include "vc_kube.h"

#include "vc_buf.h"

struct rest;

struct vc_kube {
	struct vc_kube_ops ops;
	void *ctx;
	struct rest *rest; /* the real client, NULL for one made from ops */
};

/* The path into b; VC_EINVAL (err filled) for bad arguments, VC_E2BIG/VC_ENOMEM from b. */
int vc_kube_build_path(struct vc_buf *b, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, struct vc_error *err);

/* Append "?key=value" or "&key=value" with the value escaped; NULL or "" values are skipped. */
int vc_kube_query_add(struct vc_buf *q, const char *key, const char *value);

#endif /* VC_KUBE_INTERNAL_H */
