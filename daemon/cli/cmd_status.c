/*
 * cmd_status.c - `tracer status`: ask tracerd over its socket.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"

static const char *text(const cJSON *o, const char *key)
{
	const char *s = jstr(o, key);
	return s ? s : "-";
}

/* What the host can say about waiting (lib/waitacct.h). */
static void print_wait_accounting(const cJSON *w)
{
	if (!w)
		return;
	printf("waiting:  run-queue delay %s; delay accounting %s; PSI host %s, cgroups %s\n",
	       cJSON_IsTrue(cJSON_GetObjectItem(w, "run_delay")) ? "per process" : "not available",
	       text(w, "delay_accounting"),
	       cJSON_IsTrue(cJSON_GetObjectItem(w, "psi_host")) ? "yes" : "no",
	       cJSON_IsTrue(cJSON_GetObjectItem(w, "psi_cgroup")) ? "yes" : "no");
}

static void print_status(const cJSON *st)
{
	const cJSON *k = cJSON_GetObjectItem(st, "kernel");
	const cJSON *jobs = cJSON_GetObjectItem(st, "jobs");
	const cJSON *sum = cJSON_GetObjectItem(st, "summaries");
	const cJSON *progs = cJSON_GetObjectItem(st, "programs");
	const cJSON *p;
	char buf[64];

	printf("tracerd %s, pid %.0f, up %s, on %s\n", text(st, "version"),
	       jnum(st, "pid"), fmt_secs(jnum(st, "uptime_s"), buf, sizeof(buf)),
	       text(st, "hostname"));
	printf("socket:   %s\n", text(st, "socket"));
	printf("sinks:    %s (%s)\n", text(st, "sinks"), text(st, "file"));
	printf("tracing:  %s\n", cJSON_IsTrue(cJSON_GetObjectItem(st, "trace_all"))
				     ? "every process on the host" : "registered jobs");
	printf("programs: %d attached:", cJSON_GetArraySize(progs));
	cJSON_ArrayForEach(p, progs)
		if (cJSON_IsString(p))
			printf(" %s", p->valuestring);
	printf("\nevents:   %.0f (forks %.0f, execs %.0f, exits %.0f, OOM %.0f)\n",
	       jnum(k, "events"), jnum(k, "forks"), jnum(k, "execs"), jnum(k, "exits"),
	       jnum(k, "ooms"));
	printf("drops:    %.0f (ring buffer %.0f, process table full %.0f)\n",
	       jnum(st, "drops"), jnum(k, "drops_ringbuf"), jnum(k, "drops_procs_full"));
	printf("jobs:     %.0f open, %.0f closed; summaries written %.0f, failed %.0f\n",
	       jnum(jobs, "open"), jnum(jobs, "closed"), jnum(sum, "written"),
	       jnum(sum, "failed"));
	print_wait_accounting(cJSON_GetObjectItem(st, "wait_accounting"));
}

int cmd_status(struct cli *c, int argc, char **argv)
{
	cJSON *req = cJSON_CreateObject(), *reply = NULL;
	char err[256];
	int rc = 1;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			c->json = true;
	cJSON_AddStringToObject(req, "op", "status");
	cJSON_AddNumberToObject(req, "v", 1);
	/* a human can wait longer than a job start */
	if (tracer_request(c->cfg.socket_path, 2000, req, &reply, err, sizeof(err)) != 0) {
		if (c->json)
			printf("{\"ok\":false,\"error\":\"tracerd not reachable\"}\n");
		fprintf(stderr, "tracer: tracerd is not running or not reachable at %s: %s\n",
			c->cfg.socket_path, err);
		goto cleanup;
	}
	const cJSON *st = cJSON_GetObjectItem(reply, "status");
	if (c->json) {
		char *s = cJSON_Print(st);
		printf("%s\n", s);
		cJSON_free(s);
	} else {
		print_status(st);
	}
	rc = 0;
cleanup:
	cJSON_Delete(req);
	cJSON_Delete(reply);
	return rc;
}
