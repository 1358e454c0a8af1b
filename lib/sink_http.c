/*
 * sink_http.c - POSTs over libcurl (opened lazily, lazycurl.c): the HTTP
 * sink, and the request helper the ClickHouse sink uses too.
 *
 * The http sink sends a batch as one JSON array, gzip-compressed
 * (http_gzip), with "Authorization: Bearer <token>" when http_token_file
 * is set (read at every delivery, so a rotated token needs no restart;
 * never taken from the command line or an environment).  TLS peers are
 * verified (http_ca_file, or the system's CAs).  The reply body is read
 * and discarded: only its first bytes are kept, for the error message.
 */
#include "sink_priv.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lazycurl.h"

struct reply_ctx {
	char *buf;
	size_t cap, len;
	struct growbuf *all;
};

/* The reply body: its first bytes kept, the rest dropped; never printed. */
static size_t keep_reply(char *data, size_t size, size_t n, void *arg)
{
	struct reply_ctx *r = arg;
	size_t len = size * n, room = r->cap - 1 - r->len;
	size_t take = len < room ? len : room;

	/* past its bound (or out of memory) curl stops: CURLE_WRITE_ERROR */
	if (r->all && growbuf_add(r->all, data, len) != 0)
		return 0;

	memcpy(r->buf + r->len, data, take);
	r->len += take;
	r->buf[r->len] = '\0';
	return len;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	const _Atomic int *abort = arg;

	(void)a, (void)b, (void)c, (void)d;
	return abort && *abort ? 1 : 0;
}

/* Control characters out, so that a reply quoted in a log stays one line. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

int sink_http_post_run(struct http_post *r, char *err, size_t errlen)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	struct reply_ctx rc = {r->reply, sizeof(r->reply), 0, r->body_out};
	int ret = -1;

	r->reply[0] = '\0';
	r->status = 0;
	if (!c) {
		snprintf(err, errlen, "%s", lazycurl_problem() ? lazycurl_problem()
							 : "curl_easy_init failed");
		return -1;
	}
	for (const char *const *h = r->headers; h && *h; h++)
		hdrs = curl_slist_append(hdrs, *h);
	/* no "Expect: 100-continue" round trip before large bodies */
	hdrs = curl_slist_append(hdrs, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, r->url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, r->body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_reply);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &rc);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, r->timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)r->abort);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (r->ca_file && r->ca_file[0])
		curl_easy_setopt(c, CURLOPT_CAINFO, r->ca_file);
	if (r->user && r->user[0]) {
		curl_easy_setopt(c, CURLOPT_USERNAME, r->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, r->password ? r->password : "");
	}
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85: CURLOPT_PROTOCOLS deprecated */
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	CURLcode cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		if (cc == CURLE_OPERATION_TIMEDOUT)
			snprintf(err, errlen, "POST %s: no answer within %ld ms", r->url,
				 r->timeout_ms);
		else
			snprintf(err, errlen, "POST %s: %s", r->url,
				 cc == CURLE_ABORTED_BY_CALLBACK ? "stopped (shutting down)"
								 : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	if (r->status < 200 || r->status >= 300) {
		printable(r->reply);
		snprintf(err, errlen, "POST %s: HTTP status %ld: %.200s", r->url, r->status,
			 r->reply);
		goto out;
	}
	ret = 0;
out:
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	return ret;
}

int sink_http_read_secret(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *s;

	out[0] = '\0';
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	s = fgets(out, (int)len, f);
	fclose(f);
	if (!s) {
		snprintf(err, errlen, "%s: empty", path);
		return -1;
	}
	out[strcspn(out, "\r\n")] = '\0';
	size_t n = strlen(out);
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		out[--n] = '\0';
	for (const char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "%s: control character in the secret", path);
			return -1;
		}
	return 0;
}

/* gzip (RFC 1952) of in, into out. */
static int gzip_buf(const char *in, size_t len, struct growbuf *out)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t cap = deflateBound(&z, (uLong)len);
	out->p = malloc(cap);
	if (!out->p) {
		deflateEnd(&z);
		return -1;
	}
	out->cap = cap;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->p;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	out->len = cap - z.avail_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

int sink_http_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		      long timeout_ms, const _Atomic int *abort, char *err, size_t errlen)
{
	const struct tracer_config *cfg = s->cfg;
	struct growbuf body = {0}, gz = {0};
	char token[1024], auth[1100];
	const char *headers[4];
	int nh = 0, rc = -1;

	headers[nh++] = "Content-Type: application/json";
	if (cfg->http_token_file[0]) {
		if (sink_http_read_secret(cfg->http_token_file, token, sizeof(token), err, errlen) != 0)
			return -1;
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		headers[nh++] = auth;
	}
	growbuf_add(&body, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			growbuf_add(&body, ",", 1);
		growbuf_add(&body, texts[i], lens[i]);
	}
	growbuf_add(&body, "]", 1);
	if (body.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	struct http_post r = {.url = cfg->http_url, .body = body.p, .len = body.len,
			      .headers = headers, .ca_file = cfg->http_ca_file,
			      .timeout_ms = timeout_ms, .abort = abort};
	if (cfg->http_gzip) {
		if (gzip_buf(body.p, body.len, &gz) != 0) {
			snprintf(err, errlen, "gzip failed");
			goto out;
		}
		headers[nh++] = "Content-Encoding: gzip";
		r.body = gz.p;
		r.len = gz.len;
	}
	headers[nh] = NULL;
	rc = sink_http_post_run(&r, err, errlen);
out:
	memset(token, 0, sizeof(token));
	memset(auth, 0, sizeof(auth));
	growbuf_free(&body);
	growbuf_free(&gz);
	return rc;
}
