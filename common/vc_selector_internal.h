/*
 * vc_selector_internal.h - what vc_selector.c shares with vc_nodeaffinity.c. Private to those
 * two files.
 */
#ifndef VC_SELECTOR_INTERNAL_H
#define VC_SELECTOR_INTERNAL_H

#include "vc_selector.h"

/* Put the aggregate text of errs into err; returns VC_EINVALID, or VC_ENOMEM. */
int vc_sel_errors_to_error(const struct vc_field_errors *errs, struct vc_error *err);

/*
 * Read the "values" array of a selector requirement object into a borrowed string array (*vals
 * is NULL, Go's nil slice, when the field is missing or null; otherwise a new array the caller
 * frees). Returns 0, VC_EINVALID for a non-array or non-string item, or VC_ENOMEM.
 */
int vc_sel_read_values(const json_t *expr, const char ***vals, size_t *n);

/* A string member, "" when missing; NULL when present with another type. */
const char *vc_sel_member_string(const json_t *obj, const char *name);

#endif /* VC_SELECTOR_INTERNAL_H */
