/*
 * textsafe.h - strings that leave tracer for a log or a terminal carry no
 * raw control characters: job names, tool names and command lines come
 * from users, and a terminal obeys escape sequences.  C0 controls, DEL
 * and the C1 controls (U+0080..U+009F, as UTF-8 or as lone bytes) become
 * "\xNN"; everything else, valid UTF-8 included, is kept.  JSON output
 * needs none of this (the encoder escapes controls).
 */
#ifndef TRACER_TEXTSAFE_H
#define TRACER_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

/* Does s hold anything text_safe would change? */
bool textsafe_needs_escape(const char *s);

/* Escaped copy of s into buf (len bytes, always NUL-terminated, cut on a
 * whole escape); returns buf. */
char *text_safe(const char *s, char *buf, size_t len);

/* Escape every string value (and key) in a JSON tree in place, for
 * printing it as text.  Returns -1 when out of memory. */
int text_safe_json(cJSON *node);

#endif
