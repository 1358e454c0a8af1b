/*
 * htmlesc.h - the one HTML escaper: any bytes (a hostile path or argv,
 * a summary file edited by hand) become text that a browser shows and
 * never interprets, in element content and in quoted attribute values
 * alike.  & < > " ' become character references; control characters and
 * bytes that are not valid UTF-8 become the visible text "\xNN" (as
 * lib/textsafe and lib/json write them), so the page is valid UTF-8.
 */
#ifndef TRACER_HTMLESC_H
#define TRACER_HTMLESC_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write s (NULL: nothing) escaped to f; at most max bytes of s are
 * taken (0: all), cut on a character boundary, and "…" marks a cut.
 * Returns the number of bytes of s consumed.
 */
size_t htmlesc_escape(FILE *f, const char *s, size_t max);

#endif
