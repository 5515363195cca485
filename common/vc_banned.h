/*
 * vc_banned.h - libc functions Caldera code must not call (git's banned.h, curl's list).
 *
 * Each is redefined to an undeclared identifier, so a use fails to compile with a message that
 * names the function. The alternatives: vc_buf or snprintf for string building, vc_parse_int64
 * for numbers, gmtime_r/localtime_r for time, strtok_r for tokenising.
 */
#ifndef VC_BANNED_H
#define VC_BANNED_H

#define VC_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) VC_BANNED(strcpy)
#undef strcat
#define strcat(x, y) VC_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) VC_BANNED(strncpy)
#undef sprintf
#define sprintf(...) VC_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) VC_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) VC_BANNED(strtok)
#undef atoi
#define atoi(x) VC_BANNED(atoi)
#undef atol
#define atol(x) VC_BANNED(atol)
#undef gmtime
#define gmtime(t) VC_BANNED(gmtime)
#undef localtime
#define localtime(t) VC_BANNED(localtime)
#undef ctime
#define ctime(t) VC_BANNED(ctime)
#undef asctime
#define asctime(t) VC_BANNED(asctime)

#endif /* VC_BANNED_H */
