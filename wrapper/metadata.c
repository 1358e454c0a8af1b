/*
 * metadata.c - ECS task metadata v4 and EC2 IMDSv2 look-ups for the job's
 * identity, all in parallel on one curl multi handle so that the whole
 * set costs the job's start at most WRAP_METADATA_BUDGET_MS, whatever
 * the endpoints do (bridge-mode containers often cannot reach IMDS: hop
 * limit 1).  Nothing is sent to the IMDS address unless the machine says
 * it is EC2 or an endpoint was configured.
 */
#include "wrap.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "awsmeta.h"
#include "clock.h"
#include "growbuf.h"
#include "lazycurl.h"
#include "log.h"

#define MAX_ANSWER (256 * 1024)
#define NFETCH 6

enum fetch_kind {
	F_ECS_CONTAINER,
	F_ECS_TASK_TAGS,  /* /taskWithTags: /task plus the task's tags */
	F_ECS_TASK,       /* /task, when /taskWithTags is not served */
	F_IMDS_TOKEN,
	F_IMDS_DOCUMENT,
	F_IMDS_LIFECYCLE,
};

static const char *const fetch_name[NFETCH] = {
	"ECS container metadata", "ECS task metadata", "ECS task metadata",
	"IMDS token", "EC2 instance identity document", "instance-life-cycle",
};

struct fetch {
	CURL *h;
	struct curl_slist *headers;
	struct growbuf body; /* the answer, up to MAX_ANSWER */
	bool done;
};

struct meta {
	CURLM *multi;
	struct fetch f[NFETCH];
	const char *ecs, *imds;
	int per_call_ms;
	long long deadline_ms;
	int started;        /* transfers started so far */
	char token[256];
	char problems[512]; /* one warning at the end */
};

static long long now_ms(void)
{
	return (long long)clock_mono_ms();
}

static void problem(struct meta *m, const char *what, const char *why)
{
	size_t used = strlen(m->problems);

	/* the parsers' reasons already start with what they parsed */
	if (strncmp(why, what, strlen(what)) == 0)
		snprintf(m->problems + used, sizeof(m->problems) - used, "%s%s",
			 used ? "; " : "", why);
	else
		snprintf(m->problems + used, sizeof(m->problems) - used,
			 "%s%s: %s", used ? "; " : "", what, why);
}

/* Read the first line of a small sysfs file; NULL when unreadable. */
static const char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return NULL;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return buf;
}

/* The machine says it is EC2 (DMI or hypervisor uuid). */
static bool metadata_on_ec2(void)
{
	char v[128], p[128], h[128];

	return awsmeta_is_ec2(read_line("/sys/class/dmi/id/sys_vendor", v, sizeof(v)),
			      read_line("/sys/class/dmi/id/product_uuid", p, sizeof(p)),
			      read_line("/sys/hypervisor/uuid", h, sizeof(h)));
}

static void fetch_start(struct meta *m, enum fetch_kind k, const char *url)
{
	struct fetch *f = &m->f[k];
	long long left = m->deadline_ms - now_ms();
	long tmo = (long)(left < m->per_call_ms ? left : m->per_call_ms);
	char hdr[320];

	if (tmo <= 0)
		return;
	f->h = curl_easy_init();
	if (!f->h) {
		problem(m, fetch_name[k], lazycurl_problem() ? lazycurl_problem()
							      : "curl_easy_init failed");
		return;
	}
	f->body.max = MAX_ANSWER;
	curl_easy_setopt(f->h, CURLOPT_URL, url);
	curl_easy_setopt(f->h, CURLOPT_WRITEFUNCTION, growbuf_curl_write);
	curl_easy_setopt(f->h, CURLOPT_WRITEDATA, &f->body);
	curl_easy_setopt(f->h, CURLOPT_PRIVATE, (void *)f);
	curl_easy_setopt(f->h, CURLOPT_TIMEOUT_MS, tmo);
	curl_easy_setopt(f->h, CURLOPT_CONNECTTIMEOUT_MS, tmo);
	curl_easy_setopt(f->h, CURLOPT_NOSIGNAL, 1L);
	/* link-local services: a proxy from the environment must not see them */
	curl_easy_setopt(f->h, CURLOPT_PROXY, "");
	curl_easy_setopt(f->h, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85: CURLOPT_PROTOCOLS deprecated */
	curl_easy_setopt(f->h, CURLOPT_PROTOCOLS_STR, "http");
#else
	curl_easy_setopt(f->h, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	if (k == F_IMDS_TOKEN) {
		curl_easy_setopt(f->h, CURLOPT_CUSTOMREQUEST, "PUT");
		curl_easy_setopt(f->h, CURLOPT_POSTFIELDS, "");
		f->headers = curl_slist_append(NULL,
			"X-aws-ec2-metadata-token-ttl-seconds: 60");
	} else if (k == F_IMDS_DOCUMENT || k == F_IMDS_LIFECYCLE) {
		snprintf(hdr, sizeof(hdr), "X-aws-ec2-metadata-token: %s",
			 m->token);
		f->headers = curl_slist_append(NULL, hdr);
	}
	if (f->headers)
		curl_easy_setopt(f->h, CURLOPT_HTTPHEADER, f->headers);
	if (curl_multi_add_handle(m->multi, f->h) != CURLM_OK) {
		problem(m, fetch_name[k], "curl_multi_add_handle failed");
		curl_easy_cleanup(f->h);
		f->h = NULL;
		return;
	}
	m->started++;
}

static void start_url(struct meta *m, enum fetch_kind k, const char *base,
		      const char *path)
{
	char url[1024];

	if ((size_t)snprintf(url, sizeof(url), "%s%s", base, path) >= sizeof(url)) {
		problem(m, fetch_name[k], "URL too long");
		return;
	}
	fetch_start(m, k, url);
}

/* The token is opaque text: keep it only if it is a safe header value. */
static bool take_token(struct meta *m, const struct fetch *f)
{
	size_t n = f->body.len;

	while (n && (f->body.p[n - 1] == '\n' || f->body.p[n - 1] == '\r'))
		n--;
	if (!n || n >= sizeof(m->token))
		return false;
	for (size_t i = 0; i < n; i++)
		if (f->body.p[i] < 0x21 || f->body.p[i] > 0x7e)
			return false;
	memcpy(m->token, f->body.p, n);
	m->token[n] = '\0';
	return true;
}

static void parse_answer(struct meta *m, enum fetch_kind k,
			 struct tracer_identity *id)
{
	struct fetch *f = &m->f[k];
	char err[160] = "";
	int rc = 0;

	switch (k) {
	case F_ECS_CONTAINER:
		rc = awsmeta_parse_ecs_container(f->body.p, f->body.len, id, err, sizeof(err));
		break;
	case F_ECS_TASK_TAGS:
	case F_ECS_TASK:
		rc = awsmeta_parse_ecs_task(f->body.p, f->body.len, id, err, sizeof(err));
		break;
	case F_IMDS_TOKEN:
		if (!take_token(m, f)) {
			problem(m, fetch_name[k], "unusable token");
			return;
		}
		start_url(m, F_IMDS_DOCUMENT, m->imds,
			  "/latest/dynamic/instance-identity/document");
		start_url(m, F_IMDS_LIFECYCLE, m->imds,
			  "/latest/meta-data/instance-life-cycle");
		return;
	case F_IMDS_DOCUMENT:
		rc = awsmeta_parse_imds_document(f->body.p, f->body.len, id, err, sizeof(err));
		break;
	case F_IMDS_LIFECYCLE:
		rc = awsmeta_parse_lifecycle(f->body.p, f->body.len, id, err, sizeof(err));
		break;
	}
	if (rc != 0)
		problem(m, fetch_name[k], err[0] ? err : "unusable answer");
}

/* One transfer ended: use it, or say why not. */
static void finished(struct meta *m, CURL *h, CURLcode res,
		     struct tracer_identity *id)
{
	struct fetch *f = NULL;
	enum fetch_kind k;
	long code = 0;
	char why[96];

	curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&f);
	k = (enum fetch_kind)(f - m->f);
	f->done = true;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (res != CURLE_OK || code < 200 || code > 299) {
		/* older agents and Fargate may not serve /taskWithTags */
		if (k == F_ECS_TASK_TAGS && res == CURLE_OK) {
			start_url(m, F_ECS_TASK, m->ecs, "/task");
			return;
		}
		if (f->body.over)
			snprintf(why, sizeof(why), "answer over %d bytes", MAX_ANSWER);
		else if (res != CURLE_OK)
			snprintf(why, sizeof(why), "%s", curl_easy_strerror(res));
		else
			snprintf(why, sizeof(why), "HTTP %ld", code);
		problem(m, fetch_name[k], why);
		return;
	}
	parse_answer(m, k, id);
}

static void run_transfers(struct meta *m, struct tracer_identity *id)
{
	int running = 0, left, msgs, started;
	CURLMsg *msg;

	for (;;) {
		if (curl_multi_perform(m->multi, &running) != CURLM_OK)
			break;
		/* a finished token or /taskWithTags may start transfers */
		started = m->started;
		while ((msg = curl_multi_info_read(m->multi, &msgs)))
			if (msg->msg == CURLMSG_DONE)
				finished(m, msg->easy_handle, msg->data.result, id);
		if (!running && started == m->started)
			break;
		left = (int)(m->deadline_ms - now_ms());
		if (left <= 0)
			break;
		if (running)
			curl_multi_poll(m->multi, NULL, 0, left < 50 ? left : 50, NULL);
	}
	for (int k = 0; k < NFETCH; k++)
		if (m->f[k].h && !m->f[k].done)
			problem(m, fetch_name[k], "no answer in time");
}

static void meta_cleanup(struct meta *m)
{
	for (int k = 0; k < NFETCH; k++) {
		if (m->f[k].h) {
			curl_multi_remove_handle(m->multi, m->f[k].h);
			curl_easy_cleanup(m->f[k].h);
		}
		curl_slist_free_all(m->f[k].headers);
		growbuf_free(&m->f[k].body);
	}
	if (m->multi)
		curl_multi_cleanup(m->multi);
}

/* Strip trailing slashes so paths can be appended. */
static void base_url(char *out, size_t len, const char *url)
{
	size_t n;

	snprintf(out, len, "%s", url);
	n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
}

void metadata_collect(const struct tracer_config *cfg,
		      struct tracer_identity *id)
{
	const char *ecs = getenv("ECS_CONTAINER_METADATA_URI_V4");
	const char *imds_env = getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT");
	const char *disabled = getenv("AWS_EC2_METADATA_DISABLED");
	char ecs_base[512] = "", imds_base[512] = "";
	struct meta m;
	long long t0 = now_ms();

	memset(&m, 0, sizeof(m));
	if (ecs && *ecs)
		base_url(ecs_base, sizeof(ecs_base), ecs);
	if (disabled && strcasecmp(disabled, "true") == 0)
		log_debug("IMDS: disabled by AWS_EC2_METADATA_DISABLED");
	else if (imds_env && *imds_env)
		base_url(imds_base, sizeof(imds_base), imds_env);
	else if (cfg->imds_endpoint[0])
		base_url(imds_base, sizeof(imds_base), cfg->imds_endpoint);
	else if (metadata_on_ec2())
		base_url(imds_base, sizeof(imds_base), AWSMETA_IMDS_DEFAULT);
	else
		log_debug("IMDS: not an EC2 machine, not asked");
	if (!ecs_base[0] && !imds_base[0])
		return;

	m.ecs = ecs_base;
	m.imds = imds_base;
	m.per_call_ms = cfg->metadata_timeout_ms > 0 ? cfg->metadata_timeout_ms : 300;
	m.deadline_ms = t0 + WRAP_METADATA_BUDGET_MS;
	m.multi = curl_multi_init();
	if (!m.multi) {
		log_warn("metadata: %s: identity from the environment only",
			 lazycurl_problem() ? lazycurl_problem() : "curl_multi_init failed");
		return;
	}
	if (ecs_base[0]) {
		start_url(&m, F_ECS_CONTAINER, ecs_base, "");
		start_url(&m, F_ECS_TASK_TAGS, ecs_base, "/taskWithTags");
	}
	if (imds_base[0])
		start_url(&m, F_IMDS_TOKEN, imds_base, "/latest/api/token");
	run_transfers(&m, id);
	if (m.problems[0])
		log_warn("metadata: ignored: %s", m.problems);
	log_debug("metadata: %lld ms", now_ms() - t0);
	meta_cleanup(&m);
}
