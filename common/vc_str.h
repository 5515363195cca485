/*
 * vc_str.h - checked number parsing and small string helpers (the replacements for atoi & co).
 */
#ifndef VC_STR_H
#define VC_STR_H

#include "vc_prelude.h"

/* Parse all of s as a base-10 integer. VC_EINVAL on junk or empty, VC_ERANGE on overflow. */
int vc_parse_int64(const char *s, int64_t *out) VC_WARN_UNUSED;
/* As vc_parse_int64, and also fail with VC_ERANGE outside [min, max]. */
int vc_parse_int(const char *s, int min, int max, int *out) VC_WARN_UNUSED;
/* Parse all of s as a finite double. */
int vc_parse_double(const char *s, double *out) VC_WARN_UNUSED;
/* "true"/"1"/"t"/"TRUE"/"True" and the false forms, as Go's strconv.ParseBool. */
int vc_parse_bool(const char *s, bool *out) VC_WARN_UNUSED;

bool vc_str_has_prefix(const char *s, const char *prefix);
bool vc_str_has_suffix(const char *s, const char *suffix);
/* NULL-safe equality: two NULLs are equal. */
bool vc_str_eq(const char *a, const char *b);
/* qsort/bsearch comparator for an array of C strings (char * or const char *): strcmp order. */
int vc_str_cmp_ptr(const void *a, const void *b);

#endif /* VC_STR_H */
