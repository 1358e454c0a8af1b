/*
 * lazycurl.h - libcurl is opened with dlopen on the first curl_* call
 * (lazycurl.c defines the curl functions the project uses).  When it
 * cannot be, those calls fail as libcurl's own do, and this says why.
 */
#ifndef TRACER_LAZYCURL_H
#define TRACER_LAZYCURL_H

/* Why libcurl could not be used ("libcurl not found (...)"), or NULL. */
const char *lazycurl_problem(void);

#endif
