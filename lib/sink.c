/*
 * sink.c - deliver job summaries (sink.h).  The summary is rendered once
 * to text and the same bytes go to every sink.
 */
#include "sink.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lazycurl.h"

struct sinks {
	bool file, http;
	char file_path[512];
	char http_url[512];
	long timeout_ms;
	uint64_t written, failed;
};

static int make_parent_dirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* Append one line to an NDJSON file (O_APPEND, one write). 0 or -1 (errno). */
static int sink_append_line(const char *path, const char *line, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	int rc = -1;

	if (fd < 0 && errno == ENOENT && make_parent_dirs(path) == 0)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	/* One write() per line: with O_APPEND, concurrent writers (tracerd
	 * and a standalone tracer-wrap) never interleave within a line. */
	ssize_t n = write(fd, line, len);
	if (n == (ssize_t)len)
		rc = 0;
	else if (n >= 0)
		errno = EIO;
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* The collector's reply body is not ours to print (curl's default). */
static size_t discard_body(char *data, size_t size, size_t n, void *arg)
{
	(void)data;
	(void)arg;
	return size * n;
}

static int http_post(const char *url, const char *body, size_t len, long timeout_ms,
		     char *err, size_t errlen)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	long code = 0;
	int rc = -1;

	if (!c) {
		snprintf(err, errlen, "POST %s: %s", url,
			 lazycurl_problem() ? lazycurl_problem() : "curl_easy_init failed");
		return -1;
	}
	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85: CURLOPT_PROTOCOLS deprecated */
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	CURLcode cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "POST %s: %s", url, curl_easy_strerror(cc));
		goto cleanup;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code < 200 || code >= 300) {
		snprintf(err, errlen, "POST %s: HTTP status %ld", url, code);
		goto cleanup;
	}
	rc = 0;
cleanup:
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	return rc;
}

static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		p += strspn(p, " ,");
		size_t len = strcspn(p, " ,");
		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p += len;
	}
	return false;
}

struct sinks *sinks_open(const struct tracer_config *cfg, char *err, size_t errlen)
{
	struct sinks *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->file = list_has(cfg->sinks, "file");
	s->http = list_has(cfg->sinks, "http");
	snprintf(s->file_path, sizeof(s->file_path), "%s", cfg->file_path);
	snprintf(s->http_url, sizeof(s->http_url), "%s", cfg->http_url);
	s->timeout_ms = cfg->http_timeout_ms;
	if (s->http && !s->http_url[0]) {
		snprintf(err, errlen, "sink http needs http_url");
		goto fail;
	}
	if (!s->file && !s->http) {
		snprintf(err, errlen, "no known sink in \"%s\" (file, http)",
			 cfg->sinks);
		goto fail;
	}
	if (s->http)
		curl_global_init(CURL_GLOBAL_DEFAULT);
	return s;
fail:
	free(s);
	return NULL;
}

int sinks_write(struct sinks *s, const cJSON *summary, char *err, size_t errlen)
{
	char why[512];
	int failed = 0;
	char *text = cJSON_PrintUnformatted(summary);

	err[0] = '\0';
	if (!text) {
		snprintf(err, errlen, "out of memory rendering the summary");
		s->failed++;
		return 1;
	}
	size_t len = strlen(text);
	if (s->file) {
		text[len] = '\n';
		if (sink_append_line(s->file_path, text, len + 1) != 0) {
			snprintf(err, errlen, "file sink %s: %s", s->file_path,
				 strerror(errno));
			failed++;
		}
		text[len] = '\0';
	}
	if (s->http && http_post(s->http_url, text, len, s->timeout_ms, why, sizeof(why))) {
		size_t used = strlen(err);

		snprintf(err + used, errlen - used, "%shttp sink: %s", used ? "; " : "", why);
		failed++;
	}
	free(text);
	if (failed)
		s->failed++;
	else
		s->written++;
	return failed;
}

uint64_t sinks_written(const struct sinks *s) { return s->written; }
uint64_t sinks_failed(const struct sinks *s) { return s->failed; }

void sinks_close(struct sinks *s)
{
	free(s);
}
