/*
 * cmd_status.c - `tracer status`: ask tracerd over its socket.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"

static const char *text(const cJSON *o, const char *key)
{
	const char *s = cli_jstr(o, key);
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

static const char *net_counting_text(const char *mode)
{
	if (!strcmp(mode, "per_call"))
		return "per call (sock_send_length, sock_recv_length)";
	if (!strcmp(mode, "tcp_close_totals"))
		return "TCP totals at close (inet_sock_set_state); UDP and Unix not counted";
	return "not counted";
}

/* the node-level idle_host state */
static void print_idle_host(const cJSON *h)
{
	const cJSON *share = cJSON_GetObjectItem(h, "cpu_share");

	if (!h)
		return;
	if (cJSON_IsTrue(cJSON_GetObjectItem(h, "idle")))
		printf("idle_host: yes, no job and host CPU busy %.0f%% (idle for %.0f s)\n",
		       cJSON_IsNumber(share) ? 100 * share->valuedouble : 0,
		       (double)time(NULL) - cJSON_GetNumberValue(cJSON_GetObjectItem(h, "since")));
	else
		printf("idle_host: no\n");
}

/* NVIDIA GPUs: found or not, and what accounting mode means for the figures */
static void print_gpu(const cJSON *g)
{
	const char *state = text(g, "state"), *counting = text(g, "counting");
	const cJSON *d;

	if (!g)
		return;
	if (!strcmp(state, "no_library"))
		printf("gpu:      no NVIDIA GPU (%s not loaded: %s)\n", text(g, "library"),
		       text(g, "error"));
	else if (!strcmp(state, "failed"))
		printf("gpu:      NVML found but not usable: %s\n", text(g, "error"));
	else if (!strcmp(state, "starting"))
		printf("gpu:      NVML not answered yet (%s)\n", text(g, "library"));
	else if (cJSON_GetArraySize(cJSON_GetObjectItem(g, "devices")) == 0)
		printf("gpu:      NVML %s, no NVIDIA GPU\n", text(g, "driver"));
	else
		printf("gpu:      NVML %s, %d GPU(s)\n", text(g, "driver"),
		       cJSON_GetArraySize(cJSON_GetObjectItem(g, "devices")));
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices"))
		printf("gpu %-5.0f %s, %s, %.1f GiB, accounting %s\n", cli_jnum(d, "index"),
		       text(d, "name"), text(d, "uuid"), cli_jnum(d, "memory_bytes") / 1073741824.0,
		       cJSON_IsTrue(cJSON_GetObjectItem(d, "accounting")) ? "on" : "off");
	if (!strcmp(counting, "accounting"))
		printf("gpu_counting: accounting: exact per-process GPU time and memory from the "
		       "driver at each exit\n");
	else if (!strcmp(counting, "sampled"))
		printf("gpu_counting: sampled: accounting mode is off, per-process GPU figures are "
		       "sampled every %.0f ms (`nvidia-smi -am 1` as root, or gpu_accounting = enable, "
		       "makes them exact)\n", cli_jnum(g, "sample_interval_ms"));
	if (cli_jstr(g, "hung_call"))
		printf("gpu:      NVML call %s has not returned for %.0f s: the driver hangs; GPU "
		       "figures wait for it (jobs are not held)\n", text(g, "hung_call"),
		       cli_jnum(g, "hung_s"));
	if (cli_jnum(g, "questions_dropped") > 0)
		printf("gpu:      %.0f exits not asked about (queue full)\n",
		       cli_jnum(g, "questions_dropped"));
}

static void print_status(const cJSON *st)
{
	const cJSON *k = cJSON_GetObjectItem(st, "kernel");
	const cJSON *jobs = cJSON_GetObjectItem(st, "jobs");
	const cJSON *dl = cJSON_GetObjectItem(st, "delivery");
	const cJSON *spool = cJSON_GetObjectItem(dl, "spool");
	const cJSON *progs = cJSON_GetObjectItem(st, "programs");
	const cJSON *p, *dj, *sh;
	char buf[64];

	printf("tracerd %s, pid %.0f, up %s, on %s\n", text(st, "version"),
	       cli_jnum(st, "pid"), fmt_secs(cli_jnum(st, "uptime_s"), buf, sizeof(buf)),
	       text(st, "hostname"));
	printf("socket:   %s\n", text(st, "socket"));
	if (cli_jstr(st, "mode") && strcmp(cli_jstr(st, "mode"), "reader") == 0) {
		/* a login node's tracerd: it traces nothing */
		printf("mode:     reader (answers from the datalake: %s)\n", text(st, "datalake"));
		return;
	}
	printf("sinks:    %s (%s)\n", text(st, "sinks"), text(st, "file"));
	printf("tracing:  %s\n", cJSON_IsTrue(cJSON_GetObjectItem(st, "trace_all"))
				     ? "every process on the host" : "registered jobs");
	printf("programs: %d attached:", cJSON_GetArraySize(progs));
	cJSON_ArrayForEach(p, progs)
		if (cJSON_IsString(p))
			printf(" %s", p->valuestring);
	if (cli_jstr(st, "network_counting"))
		printf("\nnetwork:  %s", net_counting_text(text(st, "network_counting")));
	if (cJSON_IsArray(cJSON_GetObjectItem(st, "network_not_counted"))) {
		printf("\nnetwork_not_counted:");
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(st, "network_not_counted"))
			if (cJSON_IsString(p))
				printf(" %s", p->valuestring);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(st, "network_not_counted")) == 0)
			printf(" none");
	}
	printf("\nevents:   %.0f (forks %.0f, execs %.0f, exits %.0f, OOM %.0f)\n",
	       cli_jnum(k, "events"), cli_jnum(k, "forks"), cli_jnum(k, "execs"), cli_jnum(k, "exits"),
	       cli_jnum(k, "ooms"));
	printf("drops:    %.0f (ring buffer %.0f, process table full %.0f)\n",
	       cli_jnum(st, "drops"), cli_jnum(k, "drops_ringbuf"), cli_jnum(k, "drops_procs_full"));
	printf("jobs:     %.0f open, %.0f closed\n", cli_jnum(jobs, "open"), cli_jnum(jobs, "closed"));
	sh = cJSON_GetObjectItem(st, "shares");
	if (sh)
		printf("shares:   per user %.0f jobs, %.0f processes; refused: %.0f at the user's "
		       "jobs, %.0f at the node's, %.0f by rate; forks over the user cap %.0f "
		       "(all users' %.0f); "
		       "archive requests held %.0f, refused %.0f; spool drops %.0f (%.0f sparing "
		       "a smaller share); rotated out of the archive by share %.0f\n",
		       cli_jnum(sh, "max_jobs_per_user"), cli_jnum(sh, "max_procs_per_user"),
		       cli_jnum(sh, "refused_user_jobs"), cli_jnum(sh, "refused_node_jobs"),
		       cli_jnum(sh, "refused_rate"), cli_jnum(sh, "forks_over_user_cap"),
		       cli_jnum(sh, "forks_over_users_cap"),
		       cli_jnum(sh, "archive_held_for_fairness"), cli_jnum(sh, "archive_refused_busy"),
		       cli_jnum(sh, "spool_dropped"), cli_jnum(sh, "spool_share_spared"),
		       cli_jnum(sh, "archive_share_dropped"));
	dj = cJSON_GetObjectItem(jobs, "docker_joins");
	if (cli_jnum(dj, "watched") > 0)
		printf("docker:   %.0f commands watched: %.0f containers joined, %.0f ambiguous, "
		       "%.0f unmatched, %.0f refused, %.0f failed (dockerd not answering)\n",
		       cli_jnum(dj, "watched"), cli_jnum(dj, "joined"), cli_jnum(dj, "ambiguous"),
		       cli_jnum(dj, "unmatched"), cli_jnum(dj, "refused"), cli_jnum(dj, "failed"));
	printf("spool:    %.0f summaries, %.0f bytes; written %.0f, write errors %.0f "
	       "(disk full %.0f), corrupt %.0f, dropped by the cap %.0f, lost %.0f\n",
	       cli_jnum(spool, "records"), cli_jnum(spool, "bytes"), cli_jnum(spool, "written"),
	       cli_jnum(spool, "write_errors"), cli_jnum(spool, "disk_full"), cli_jnum(spool, "corrupt"),
	       cli_jnum(spool, "dropped"), cli_jnum(dl, "queue_dropped"));
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(dl, "sinks")) {
		printf("sink %-10s delivered %.0f in %.0f batches, pending %.0f, failures %.0f, "
		       "dropped %.0f, last success %s\n", text(p, "sink"), cli_jnum(p, "delivered"),
		       cli_jnum(p, "batches"), cli_jnum(p, "pending"), cli_jnum(p, "failures"),
		       cli_jnum(p, "dropped"), text(p, "last_success"));
		if (cli_jstr(p, "last_error"))
			printf("           last error: %s\n", cli_jstr(p, "last_error"));
	}
	print_wait_accounting(cJSON_GetObjectItem(st, "wait_accounting"));
	print_idle_host(cJSON_GetObjectItem(st, "idle_host"));
	print_gpu(cJSON_GetObjectItem(st, "gpu"));
}

static void status_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer status [--json]\n"
		"Ask tracerd whether it is up: version, socket, sinks, attached BPF\n"
		"programs, kernel events and drops, jobs and summaries.  Exit status 1\n"
		"when tracerd does not answer.\n"
		"      --json    tracerd's status object\n"
		"  -h, --help    this help\n");
}

int cmd_status(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	cJSON *req, *reply = NULL;
	char err[256];
	int rc = 1, opt;

	while ((opt = cli_getopt(argc, argv, ":h", opts, "status")) != -1) {
		if (opt == 'j') {
			c->json = true;
		} else if (opt == 'h') {
			status_usage(stdout);
			return 0;
		} else {
			return 2;
		}
	}
	if (optind < argc)
		return cli_extra_arg("status", argv[optind]);
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "op", "status");
	cJSON_AddNumberToObject(req, "v", 1);
	/* a human can wait longer than a job start */
	if (client_request(c->cfg.socket_path, 2000, req, &reply, err, sizeof(err)) != 0) {
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
