/*
 * datalake_gen.c - synthetic job summaries for the datalake scale bench
 * (bench/datalake.sh), turned into ClickHouse rows by the sink's own
 * conversion (sink_clickhouse_rows): the rows are exactly what tracerd
 * would insert for them.
 *
 *   datalake_gen FIRST COUNT PROCS JOBS TOOLS PROCESSES FLAGS
 *   datalake_gen sink CLICKHOUSE_URL FIRST COUNT PROCS
 *
 * The first writes the rows (JSONEachRow) of jobs FIRST .. FIRST+COUNT-1
 * to the four files named (the bench copies them inside ClickHouse up to
 * a million jobs and more: bench/datalake.sh).  The second delivers the
 * summaries of those jobs through the ClickHouse sink itself
 * (sink_deliver, batches as large as tracerd's, back to back) and prints
 * "SUMMARIES MICROSECONDS" of the deliveries alone.  The data has the
 * shape the analyses expect of a site: 10,000 users in 20 accounts (100
 * of them run half the jobs), 5
 * partitions, 100 pipelines of 5-10 steps (task names) run many times on
 * inputs of varying size (read bytes), each step's peak memory growing
 * with its input, requests (CPUs, memory, time) larger than the use, a
 * few OOM, TIMEOUT, FAILED and CANCELLED jobs, end times over the last 35
 * days, two clusters.  One job in eight is a multi-node job: a batch
 * step and an srun step on each of two nodes (three summaries); the
 * others are one batch step.  A summary keeps up to PROCS processes
 * (tracerd's keep_procs): a tenth of PROCS or fewer in 30% of them, up
 * to half in 30%, up to all in 40% (about 81 for 200, 100 a job).  Users
 * (u0000-u9999), uids and job ids have fixed widths, so that the bench's
 * copies can rewrite them in place in the summary text; summary ids end
 * in 0000, which no copy's does (a copy's ends in its number).
 * Everything follows from the job's number: runs agree.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "growbuf.h"
#include "jobinc.h"
#include "sink.h"

#define USERS 10000
#define HEAVY_USERS 100 /* run half the jobs */
#define ACCOUNTS 20
#define PIPELINES 100
#define DAYS 35

static const char *const tools[] = {
	"bwa", "samtools", "gatk", "picard", "bcftools", "bowtie2", "star", "salmon",
	"kallisto", "fastqc", "multiqc", "trimmomatic", "cutadapt", "python3", "Rscript",
	"java", "perl", "bedtools", "minimap2", "hisat2", "featureCounts", "htseq-count",
	"spades", "megahit", "prokka", "blastn", "diamond", "hmmscan", "mafft", "iqtree",
	"raxml", "plink", "bgzip", "tabix", "sort", "gzip", "awk", "sed", "cellranger", "nextflow",
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))
static const char *const steps[] = {"fetch", "qc", "trim", "align", "sort", "dedup",
				    "call", "filter", "annotate", "report"};
static const char *const partitions[] = {"cpu", "cpu", "cpu", "highmem", "long", "gpu",
					 "debug"};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void add(struct growbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct growbuf *b, const char *fmt, ...)
{
	char tmp[2048];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	growbuf_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void iso(uint64_t ns, char *out, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t n = strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, len - n, ".%03uZ", (unsigned)(ns / 1000000ull % 1000));
}

/* what the summaries of one job share */
struct job {
	uint64_t id, h;
	unsigned cluster, user, pipeline, step, run, cpus, parts;
	const char *state, *partition;
	double wall, eff, input;
	uint64_t end, start, req_mem, peak, limit_s;
};

static void job_shape(uint64_t j, uint64_t now_ns, struct job *o)
{
	uint64_t h = mix(j), g = mix(h);
	unsigned r = (unsigned)(h >> 8) % 1000, nsteps, fail = (unsigned)(g % 100);
	double k, gb, per_gb, typical;

	o->id = 7000000 + j;
	o->h = h;
	o->cluster = (h >> 60) % 8 == 0 ? 2 : 1;
	o->user = r < 500 ? r % HEAVY_USERS
			  : HEAVY_USERS + (unsigned)(g >> 40) % (USERS - HEAVY_USERS);
	o->pipeline = (unsigned)(h >> 16) % PIPELINES;
	nsteps = 5 + o->pipeline % 6;
	o->step = (unsigned)(h >> 24) % nsteps;
	o->run = (unsigned)(h >> 28) % 4000;
	o->partition = partitions[(o->pipeline + o->step) % 7];
	o->cpus = 1u << ((o->pipeline + o->step) % 5);
	o->parts = (h >> 40) % 8 == 0 ? 3 : 1;
	/* the run's input: skewed to small, up to 100 GB, the same for
	 * every step of the run; each step reads a share of it */
	uint64_t in = mix((uint64_t)o->pipeline << 32 | o->run);
	gb = 1 + (double)(in % 100) * (double)((in >> 8) % 100) / 100.0;
	o->input = gb * (0.2 + 0.13 * (o->step % 10)) * (1ull << 30);
	/* peak memory and wall time grow with the input */
	k = (1 + (o->pipeline * 7 + o->step) % 10) / 20.0;
	o->peak = (uint64_t)((200 << 20) + gb * k * (1ull << 30));
	typical = (200 << 20) + 60.0 * k * (1ull << 30);
	o->req_mem = ((uint64_t)(typical * 1.5) >> 30) + 1;
	o->req_mem <<= 30;
	per_gb = 20 + (o->pipeline * 13 + o->step * 7) % 180;
	o->wall = 60 + gb * per_gb * (0.8 + (double)((g >> 8) % 40) / 100.0);
	o->limit_s = ((uint64_t)((60 + 50 * per_gb) * 3) / 3600 + 1) * 3600;
	o->eff = 0.15 + (double)((g >> 16) % 75) / 100.0;
	o->state = "COMPLETED";
	if (fail < 3) {
		o->state = "FAILED";
		o->wall *= 0.3;
	} else if (fail == 3) {
		o->state = "CANCELLED";
		o->wall *= 0.5;
	} else if (o->peak > o->req_mem) {
		o->state = "OUT_OF_MEMORY";
		o->peak = o->req_mem;
		o->wall *= 0.6;
	} else if (o->wall > (double)o->limit_s) {
		o->state = "TIMEOUT";
		o->wall = (double)o->limit_s;
	}
	o->end = now_ns - (h >> 32) % (DAYS * 86400ull) * 1000000000ull;
	o->start = o->end - (uint64_t)(o->wall * 1e9);
}

/* Summary `part` of job j: 0 the batch step (on the first node), 1 and
 * 2 the srun step on each of the two nodes of a multi-node job. */
/* tool t of a job's summaries: distinct for t < 6 (a summary lists a
 * tool once: its rows in tracer.tools are keyed by it) */
static const char *tool_of(const struct job *j, unsigned t)
{
	return tools[(j->h % NTOOLS + t * (1 + (j->h >> 8) % 7)) % NTOOLS];
}

/* how many processes summary g keeps, keep at most: the mix of the
 * header comment */
static unsigned kept_procs(uint64_t g, unsigned keep)
{
	unsigned tier = (unsigned)(g >> 20) % 10, r = (unsigned)(g >> 24);
	unsigned lo = 1, hi = keep / 10;

	if (tier >= 3 && tier < 6)
		lo = keep / 10, hi = keep / 2;
	else if (tier >= 6)
		lo = keep / 2, hi = keep;
	if (hi < lo)
		hi = lo;
	return lo + r % (hi - lo + 1);
}

/*
 * The summary's node_increments, as tracerd writes them (lib/jobinc.c):
 * one memo per node, since tracerd's memo is its own node's.  A job's
 * summaries come one after the other, so a few entries a node do; the
 * increments are added as the summary's last member (its text before
 * them stays as written: the bench splices it at fixed places).
 */
#define GEN_HOSTS 401
static struct jobinc_memo *memos[GEN_HOSTS];

static void node_increments(struct growbuf *b, unsigned host)
{
	struct growbuf c = {0};
	cJSON *s, *inc;
	char *text;

	if (b->oom)
		return;
	if (!memos[host] && !(memos[host] = jobinc_new(8, UINT64_MAX / 2, 0))) {
		b->oom = true;
		return;
	}
	/* the summary so far, closed, as the object tracerd would have */
	growbuf_add(&c, b->p, b->len);
	growbuf_add(&c, "}", 1);
	s = c.oom ? NULL : cJSON_ParseWithLength(c.p, c.len);
	growbuf_free(&c);
	if (!s || jobinc_apply(memos[host], s, false, (uint64_t)time(NULL) * 1000000000ull) != 0 ||
	    !(inc = cJSON_GetObjectItemCaseSensitive(s, "node_increments"))) {
		cJSON_Delete(s);
		return; /* none: the sweep folds the job as before */
	}
	text = cJSON_PrintUnformatted(inc);
	if (!text)
		b->oom = true;
	else
		add(b, ",\"node_increments\":%s", text);
	cJSON_free(text);
	cJSON_Delete(s);
}

static void summary(struct growbuf *b, const struct job *j, unsigned part, unsigned keep)
{
	uint64_t g = mix(j->h + part);
	unsigned procs = keep ? kept_procs(g, keep) : 0;
	const char *step = part ? "0" : "batch";
	unsigned host = (unsigned)(j->h >> 44) % 400 + (part == 2);
	double share = j->parts == 1 ? 1 : part ? 0.48 : 0.04;
	double wall = part ? j->wall * 0.97 : j->wall, cpu = wall * j->cpus * j->eff * share * 2;
	uint64_t rd = (uint64_t)(j->input * share), peak = j->peak;
	unsigned ntools = 2 + (unsigned)(g >> 40) % 4;
	bool oom = !strcmp(j->state, "OUT_OF_MEMORY") && part != 1;
	char t0[40];

	if (j->parts == 1)
		cpu = wall * j->cpus * j->eff;
	add(b, "{\"schema\":\"tracer.summary/1\",\"summary_id\":\"%016llx%012llx0000\","
	    "\"job\":\"slurm:%llu.%s\",\"start_ns\":%llu,\"end_ns\":%llu,\"wall_s\":%.3f,"
	    "\"state\":\"%s\",\"exit\":{\"code\":%d},\"cpu_efficiency\":%.4f,",
	    (unsigned long long)mix(g), (unsigned long long)(g >> 16), (unsigned long long)j->id,
	    step, (unsigned long long)j->start, (unsigned long long)j->end, wall, j->state,
	    strcmp(j->state, "COMPLETED") ? 1 : 0, j->eff);
	add(b, "\"identity\":{\"scheduler\":\"slurm\",\"cluster\":\"hpc%u\",\"job_id\":\"%llu\","
	    "\"step_id\":\"%s\",\"user\":\"u%04u\",\"uid\":%u,\"queue\":\"%s\","
	    "\"pipeline\":\"pipe%03u\",\"run_id\":\"pipe%03u-run%u\",\"task_name\":\"%s\","
	    "\"account\":\"acct%02u\",\"qos\":\"%s\",\"submit_ns\":%llu,\"job_start_ns\":%llu,"
	    "\"queue_wait_s\":%.1f,\"node_list\":\"%s%03u%s\",\"node_name\":\"n%03u\","
	    "\"request\":{\"cpus\":%u,\"mem_bytes\":%llu,\"nodes\":%u,\"time_limit_s\":%llu},"
	    "\"allocation\":{\"cpus\":%u,\"mem_bytes\":%llu,\"time_limit_s\":%llu,\"nodes\":%u}},",
	    j->cluster, (unsigned long long)j->id, step, j->user, 100000 + j->user,
	    j->partition, j->pipeline, j->pipeline, j->run, steps[j->step % 10],
	    j->user % ACCOUNTS, (j->h >> 46) % 4 ? "normal" : "high",
	    (unsigned long long)(j->start - 60000000000ull), (unsigned long long)j->start,
	    (double)((j->h >> 52) % 3600), j->parts == 1 ? "n" : "n[",
	    (unsigned)(j->h >> 44) % 400, j->parts == 1 ? "" : "-next]", host, j->cpus,
	    (unsigned long long)j->req_mem, j->parts == 1 ? 1 : 2,
	    (unsigned long long)j->limit_s, j->cpus, (unsigned long long)j->req_mem,
	    (unsigned long long)j->limit_s, j->parts == 1 ? 1 : 2);
	add(b, "\"host\":{\"hostname\":\"n%03u\",\"cpus\":64},"
	    "\"totals\":{\"cpu_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,\"rchar\":%llu,"
	    "\"wchar\":%llu,\"read_bytes\":%llu,\"write_bytes\":%llu,"
	    "\"net\":{\"sent_bytes\":%llu,\"recv_bytes\":%llu},"
	    "\"block\":{\"read_bytes\":%llu,\"write_bytes\":%llu}},"
	    "\"memory\":{\"peak_bytes\":%llu,\"efficiency\":%.4f},\"processes\":{\"total\":%u},"
	    "\"oom_kills\":%d,\"drops\":{\"events\":0},"
	    "\"tracer\":{\"source\":\"tracerd\",\"version\":\"0.9.0\"},"
	    "\"recommendation\":{\"cpus\":%u,\"mem_bytes\":%llu,\"time_s\":%.0f},"
	    "\"cost\":{\"total\":%.4f,\"unused\":%.4f},",
	    host, cpu, cpu * 0.9, cpu * 0.1, (unsigned long long)(rd + (g >> 44)),
	    (unsigned long long)(rd / 3), (unsigned long long)rd, (unsigned long long)(rd / 3),
	    (unsigned long long)(g >> 40), (unsigned long long)(g >> 38),
	    (unsigned long long)(rd / 2), (unsigned long long)(rd / 4), (unsigned long long)peak,
	    (double)peak / (double)j->req_mem, procs * 3, oom,
	    (unsigned)(j->cpus * j->eff) + 1, (unsigned long long)(peak * 5 / 4), wall * 1.5,
	    wall * j->cpus / 3600 * 0.04 + (double)j->req_mem / (1 << 30) * wall / 3600 * 0.005,
	    wall * j->cpus * (1 - j->eff) / 3600 * 0.04);
	add(b, "\"tools\":[");
	for (unsigned t = 0; t < ntools; t++) {
		const char *name = tool_of(j, t);
		double tc = cpu / ntools, tw = wall / ntools;
		iso(j->start + (uint64_t)(t * tw * 1e9), t0, sizeof(t0));
		add(b, "%s{\"tool\":\"%s\",\"path\":\"/opt/bio/bin/%s\",\"processes\":%u,"
		    "\"cpu_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,\"wall_s\":%.3f,"
		    "\"peak_rss_bytes\":%llu,\"rchar\":%llu,\"wchar\":%llu,\"read_bytes\":%llu,"
		    "\"write_bytes\":0,\"first_start\":\"%s\",\"last_end\":\"%s\",\"oom_kills\":0,"
		    "\"exit_codes\":[{\"code\":0,\"count\":%u}]}",
		    t ? "," : "", name, name, procs, tc, tc * 0.9, tc * 0.1, tw,
		    (unsigned long long)peak / 2, (unsigned long long)(rd / ntools),
		    (unsigned long long)(rd / ntools / 3), (unsigned long long)(rd / ntools), t0,
		    t0, procs);
	}
	add(b, "],\"process_tree\":[");
	for (unsigned p = 0; p < procs; p++) {
		const char *name = tool_of(j, p % ntools);
		iso(j->start + (uint64_t)p * 1000000000ull, t0, sizeof(t0));
		add(b, "%s{\"pid\":%u,\"ppid\":%u,\"tool\":\"%s\",\"comm\":\"%.15s\","
		    "\"exe\":\"/opt/bio/bin/%s\",\"cmdline\":\"%s -t %u -i /scratch/pipe%03u/run%u/"
		    "sample_%u.fastq.gz -o /scratch/pipe%03u/out/part_%u\",\"start\":\"%s\","
		    "\"wall_s\":%.3f,\"cpu_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,"
		    "\"peak_rss_bytes\":%llu,\"rchar\":%llu,\"wchar\":%llu,\"read_bytes\":%llu,"
		    "\"write_bytes\":0,\"exit_code\":0}",
		    p ? "," : "", 1000 + p, p ? 1000 : 1, name, name, name, name, j->cpus, j->pipeline,
		    j->run, p, j->pipeline, p, t0, wall / procs, cpu / procs, cpu / procs * 0.9,
		    cpu / procs * 0.1, (unsigned long long)peak / 3,
		    (unsigned long long)(rd / procs), (unsigned long long)(rd / procs / 3),
		    (unsigned long long)(rd / procs));
	}
	add(b, "],\"flags\":[");
	const char *sep = "";
	if (j->eff < 0.3) {
		add(b, "{\"id\":\"low_cpu_efficiency\",\"severity\":\"warning\",\"message\":"
		    "\"used %.0f%% of %u allocated CPUs\",\"evidence\":{\"cpu_efficiency\":%.3f}}",
		    j->eff * 100, j->cpus, j->eff);
		sep = ",";
	}
	if (peak * 2 < j->req_mem) {
		add(b, "%s{\"id\":\"memory_overallocated\",\"severity\":\"warning\",\"message\":"
		    "\"peak memory %.0f%% of the allocation\",\"evidence\":{\"peak_bytes\":%llu}}",
		    sep, 100.0 * (double)peak / (double)j->req_mem, (unsigned long long)peak);
		sep = ",";
	}
	if (wall * 5 < (double)j->limit_s)
		add(b, "%s{\"id\":\"time_overrequested\",\"severity\":\"info\",\"message\":"
		    "\"ran %.0f s of the %llu s requested\",\"evidence\":{\"wall_s\":%.1f}}",
		    sep, wall, (unsigned long long)j->limit_s, wall);
	add(b, "]");
	node_increments(b, host);
	add(b, "}");
}

/* write what b holds to f once it is large, or when last */
static int flush(struct growbuf *b, FILE *f, const char *name, bool last)
{
	if (b->len < (1u << 20) && !last)
		return 0;
	if (b->len && fwrite(b->p, 1, b->len, f) != b->len) {
		perror(name);
		return -1;
	}
	growbuf_free(b);
	memset(b, 0, sizeof(*b));
	return 0;
}

/* the tables a job summary fills: those before the idle hosts' (a
 * summary never makes an idle_host row) */
#define GEN_TABLES CLICKHOUSE_SINK_IDLE_HOSTS

/* the rows of jobs first .. first+count-1, into the four files */
static int write_rows(uint64_t first, uint64_t count, unsigned keep, char **names)
{
	struct growbuf rows[CLICKHOUSE_SINK_TABLES];
	FILE *out[GEN_TABLES];
	/* one "now" for every run of the bench: the day it ran, at midnight */
	uint64_t now_ns = (uint64_t)(time(NULL) / 86400 * 86400) * 1000000000ull;

	memset(rows, 0, sizeof(rows));
	for (int t = 0; t < GEN_TABLES; t++)
		if (!(out[t] = fopen(names[t], "w"))) {
			perror(names[t]);
			return 1;
		}
	for (uint64_t i = first; i < first + count; i++) {
		struct job j;

		job_shape(i, now_ns, &j);
		for (unsigned part = 0; part < j.parts; part++) {
			struct growbuf s = {0};

			summary(&s, &j, part, keep);
			if (s.oom || sink_clickhouse_rows(s.p, s.len, rows) != 0) {
				fprintf(stderr, "datalake_gen: job %llu: not JSON or out of memory\n",
					(unsigned long long)i);
				return 1;
			}
			growbuf_free(&s);
		}
		for (int t = 0; t < GEN_TABLES; t++)
			if (flush(&rows[t], out[t], names[t], i + 1 == first + count) != 0)
				return 1;
	}
	for (int t = 0; t < GEN_TABLES; t++)
		if (fclose(out[t]) != 0) {
			perror(names[t]);
			return 1;
		}
	return 0;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/* deliver one batch through the sink; its time is added to *us */
static int deliver(struct sink *sk, struct growbuf *texts, size_t n, uint64_t *us)
{
	char *ptrs[n ? n : 1], err[512];
	size_t lens[n ? n : 1];

	for (size_t i = 0; i < n; i++) {
		ptrs[i] = texts[i].p;
		lens[i] = texts[i].len;
	}
	uint64_t t0 = now_us();
	int rc = sink_deliver(sk, ptrs, lens, n, 120000, NULL, err, sizeof(err));
	*us += now_us() - t0;
	for (size_t i = 0; i < n; i++)
		growbuf_free(&texts[i]);
	if (rc != 0)
		fprintf(stderr, "datalake_gen: sink_deliver: %s\n", err);
	return rc;
}

/* the summaries of jobs first .. first+count-1 through the ClickHouse
 * sink, in batches of its limits (what tracerd sends in one delivery) */
static int sink_run(const char *url, uint64_t first, uint64_t count, unsigned keep)
{
	struct tracer_config cfg;
	struct sink_limits lim;
	char err[512];
	uint64_t now_ns = (uint64_t)(time(NULL) / 86400 * 86400) * 1000000000ull, us = 0, sent = 0;

	config_defaults(&cfg);
	snprintf(cfg.clickhouse_url, sizeof(cfg.clickhouse_url), "%s", url);
	sink_limits(SINK_CLICKHOUSE, &lim);
	struct sink *sk = sink_open(SINK_CLICKHOUSE, &cfg, err, sizeof(err));
	if (!sk) {
		fprintf(stderr, "datalake_gen: sink_open: %s\n", err);
		return 1;
	}
	struct growbuf *texts = calloc(lim.max_summaries, sizeof(*texts));
	size_t n = 0, bytes = 0;
	int rc = texts ? 0 : 1;
	for (uint64_t i = first; rc == 0 && i < first + count; i++) {
		struct job j;

		job_shape(i, now_ns, &j);
		for (unsigned part = 0; rc == 0 && part < j.parts; part++) {
			struct growbuf s = {0};

			summary(&s, &j, part, keep);
			if (s.oom) {
				fprintf(stderr, "datalake_gen: out of memory\n");
				rc = 1;
				break;
			}
			if (n == lim.max_summaries || (n && bytes + s.len > lim.max_bytes)) {
				rc = deliver(sk, texts, n, &us);
				sent += n, n = 0, bytes = 0;
			}
			texts[n++] = s;
			bytes += s.len;
		}
	}
	if (rc == 0 && n) {
		rc = deliver(sk, texts, n, &us);
		sent += n;
	}
	free(texts);
	sink_close(sk);
	if (rc == 0)
		printf("%llu %llu\n", (unsigned long long)sent, (unsigned long long)us);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "sink"))
		return sink_run(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
				(unsigned)strtoul(argv[5], NULL, 10));
	if (argc != 4 + GEN_TABLES) {
		fprintf(stderr, "usage: datalake_gen FIRST COUNT PROCS JOBS TOOLS PROCESSES FLAGS\n"
				"       datalake_gen sink CLICKHOUSE_URL FIRST COUNT PROCS\n");
		return 2;
	}
	return write_rows(strtoull(argv[1], NULL, 10), strtoull(argv[2], NULL, 10),
			  (unsigned)strtoul(argv[3], NULL, 10), argv + 4);
}
