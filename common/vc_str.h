/*
 * vc_str.h - small string helpers. The checked number parsers (the replacements for atoi & co)
 * live in vc_strconv.h, included here for the callers that found them in this header.
 */
#ifndef VC_STR_H
#define VC_STR_H

#include "vc_prelude.h"

#include "vc_strconv.h"

bool vc_str_has_prefix(const char *s, const char *prefix);
bool vc_str_has_suffix(const char *s, const char *suffix);
/* NULL-safe equality: two NULLs are equal. */
bool vc_str_eq(const char *a, const char *b);
/* qsort/bsearch comparator for an array of C strings (char * or const char *): strcmp order. */
int vc_str_cmp_ptr(const void *a, const void *b);

#endif /* VC_STR_H */
