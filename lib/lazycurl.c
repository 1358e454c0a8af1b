/*
 * lazycurl.c - libcurl, loaded only when something needs it.
 *
 * tracer-wrap starts in front of every job, and the dynamic loader takes
 * several milliseconds to map libcurl and its ~30 dependencies.  Most
 * runs never use it (no metadata endpoint, file sink), so the curl
 * functions the binaries and lib/sink.c call are defined here and
 * forwarded to a libcurl opened with dlopen on first use: no binary has
 * a libcurl dependency at all.  It also lets the wrapper run in an image
 * without libcurl: metadata and the HTTP sink then report that curl is
 * missing (lazycurl_problem), the job runs anyway.
 */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lazycurl.h"

static const char *const curl_names[] = {
	"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4",
};

static struct {
	bool tried, ok;
	char problem[256];
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int,
				int, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
} fn;

struct sym {
	const char *name;
	void **slot;
};

static bool load_curl(void)
{
	const struct sym syms[] = {
		{"curl_global_init", (void **)&fn.global_init},
		{"curl_easy_init", (void **)&fn.easy_init},
		{"curl_easy_setopt", (void **)&fn.easy_setopt},
		{"curl_easy_perform", (void **)&fn.easy_perform},
		{"curl_easy_getinfo", (void **)&fn.easy_getinfo},
		{"curl_easy_cleanup", (void **)&fn.easy_cleanup},
		{"curl_easy_strerror", (void **)&fn.easy_strerror},
		{"curl_slist_append", (void **)&fn.slist_append},
		{"curl_slist_free_all", (void **)&fn.slist_free_all},
		{"curl_multi_init", (void **)&fn.multi_init},
		{"curl_multi_add_handle", (void **)&fn.multi_add_handle},
		{"curl_multi_remove_handle", (void **)&fn.multi_remove_handle},
		{"curl_multi_perform", (void **)&fn.multi_perform},
		{"curl_multi_poll", (void **)&fn.multi_poll},
		{"curl_multi_info_read", (void **)&fn.multi_info_read},
		{"curl_multi_cleanup", (void **)&fn.multi_cleanup},
	};
	void *h = NULL;

	if (fn.tried)
		return fn.ok;
	fn.tried = true;
	for (size_t i = 0; !h && i < sizeof(curl_names) / sizeof(curl_names[0]); i++)
		h = dlopen(curl_names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(fn.problem, sizeof(fn.problem), "libcurl not found (%s)",
			 dlerror());
		return false;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			/* curl_multi_poll needs 7.66; the rest is older */
			snprintf(fn.problem, sizeof(fn.problem),
				 "libcurl lacks %s: not used", syms[i].name);
			dlclose(h);
			return false;
		}
	}
	fn.ok = true;
	return true;
}

const char *lazycurl_problem(void)
{
	return fn.problem[0] ? fn.problem : NULL;
}

CURLcode curl_global_init(long flags)
{
	return load_curl() ? fn.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	return load_curl() ? fn.easy_init() : NULL;
}

/* The argument's type follows from the option number's range (curl.h). */
CURLcode (curl_easy_setopt)(CURL *h, CURLoption opt, ...)
{
	CURLcode rc = CURLE_FAILED_INIT;
	va_list ap;

	if (!load_curl())
		return rc;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = fn.easy_setopt(h, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_OFF_T)
		/* object and function pointers travel the same way */
		rc = fn.easy_setopt(h, opt, va_arg(ap, void *));
#ifdef CURLOPTTYPE_BLOB
	else if (opt < CURLOPTTYPE_BLOB)
		rc = fn.easy_setopt(h, opt, va_arg(ap, curl_off_t));
	else
		rc = fn.easy_setopt(h, opt, va_arg(ap, void *));
#else
	else
		rc = fn.easy_setopt(h, opt, va_arg(ap, curl_off_t));
#endif
	va_end(ap);
	return rc;
}

CURLcode curl_easy_perform(CURL *h)
{
	return load_curl() ? fn.easy_perform(h) : CURLE_FAILED_INIT;
}

/* Every CURLINFO_* takes one pointer. */
CURLcode (curl_easy_getinfo)(CURL *h, CURLINFO info, ...)
{
	CURLcode rc = CURLE_FAILED_INIT;
	va_list ap;

	if (!load_curl())
		return rc;
	va_start(ap, info);
	rc = fn.easy_getinfo(h, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

void curl_easy_cleanup(CURL *h)
{
	if (load_curl())
		fn.easy_cleanup(h);
}

const char *curl_easy_strerror(CURLcode rc)
{
	return load_curl() ? fn.easy_strerror(rc) : "libcurl not available";
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
	return load_curl() ? fn.slist_append(l, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *l)
{
	if (l && load_curl())
		fn.slist_free_all(l);
}

CURLM *curl_multi_init(void)
{
	return load_curl() ? fn.multi_init() : NULL;
}

CURLMcode curl_multi_add_handle(CURLM *m, CURL *h)
{
	return load_curl() ? fn.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h)
{
	return load_curl() ? fn.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_perform(CURLM *m, int *running)
{
	return load_curl() ? fn.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd *extra, unsigned int n,
			  int timeout_ms, int *numfds)
{
	return load_curl() ? fn.multi_poll(m, extra, n, timeout_ms, numfds) :
			     CURLM_INTERNAL_ERROR;
}

CURLMsg *curl_multi_info_read(CURLM *m, int *left)
{
	return load_curl() ? fn.multi_info_read(m, left) : NULL;
}

CURLMcode curl_multi_cleanup(CURLM *m)
{
	return load_curl() ? fn.multi_cleanup(m) : CURLM_INTERNAL_ERROR;
}
