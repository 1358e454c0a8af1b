/*
 * spank_notes.c - srun --tracer-notes: when the step ends, srun prints
 * the step's verdict (lib/brief.c) on its own stderr, never on stdout,
 * which is the job's output.  srun waits for it TRACER_NOTES_WAIT_MS at
 * most in all: slurmstepd tells tracerd that the step ended about when
 * srun learns it, so the summary may come a moment after srun asks;
 * a tracerd that is absent ends the wait at once, a slow one at the
 * bound.  A step shorter than advice_min_runtime_s has no advice, and no
 * notes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "brief.h"
#include "clock.h"
#include "proto.h"
#include "spank_tracer.h"

#define NOTES_RETRY_MS 100 /* between two asks while the summary is not there */

/* "JOB.STEP" of srun's step; "" when not known.  srun is one process. */
static char step_name[TRACER_JOIN_KEY_LEN];

void plugin_notes_step(spank_t sp)
{
	struct tracer_identity id;
	char err[256];

	step_name[0] = '\0';
	identity_init(&id);
	if (plugin_step_ids(sp, &id, err, sizeof(err)) < 0) {
		slurm_debug("spank_tracer: no notes: %s", err);
		return;
	}
	snprintf(step_name, sizeof(step_name), "%s.%s", id.job_id, id.step_id);
}

/* keeps the first summary of the answer */
static int keep_first(cJSON *o, void *ctx)
{
	cJSON **first = ctx;

	if (!*first)
		*first = o;
	else
		cJSON_Delete(o);
	return 0;
}

/*
 * Ask tracerd for the step's summary once, within timeout_ms.  1 with it
 * in *s, 0 when tracerd has none yet, -1 when asking again is useless
 * (tracerd absent or failing).
 */
static int ask_once(const struct spank_settings *set, int timeout_ms, cJSON **s)
{
	cJSON *req = proto_job_request("summary", step_name, -1), *last = NULL;
	char err[256];
	int rc;

	*s = NULL;
	if (!req)
		return -1;
	rc = client_request_stream(set->socket_path, timeout_ms, req, keep_first, s, &last, err,
				   sizeof(err));
	cJSON_Delete(req);
	cJSON_Delete(last);
	if (rc != 0) {
		cJSON_Delete(*s);
		*s = NULL;
		slurm_debug("spank_tracer: no notes for %s: %s", step_name, err);
		return -1;
	}
	return *s ? 1 : 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void plugin_notes_print(const struct spank_settings *set)
{
	uint64_t deadline = clock_mono_ms() + TRACER_NOTES_WAIT_MS;
	char text[TRACER_NOTES_LINES * (4 * BRIEF_LINE_MAX + 1) + 1];
	cJSON *s = NULL;
	int rc;

	if (!step_name[0])
		return;
	for (;;) {
		uint64_t now = clock_mono_ms();

		if (now >= deadline)
			return;
		rc = ask_once(set, (int)(deadline - now), &s);
		if (rc != 0)
			break;
		if (clock_mono_ms() + NOTES_RETRY_MS >= deadline)
			return;
		pause_ms(NOTES_RETRY_MS);
	}
	if (rc == 1 && brief_has_advice(s) &&
	    brief_lines(s, TRACER_NOTES_LINES, text, sizeof(text)) > 0) {
		/* one write: the lines stay together among the tasks' stderr */
		char out[sizeof(text) + TRACER_NOTES_LINES * 16];
		size_t n = 0;

		for (const char *l = text; *l && n < sizeof(out) - 1;) {
			const char *nl = strchr(l, '\n');
			size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);

			n += (size_t)snprintf(out + n, sizeof(out) - n, "tracer: %.*s", (int)len, l);
			l += len;
		}
		fputs(out, stderr);
		fflush(stderr);
	}
	cJSON_Delete(s);
}
