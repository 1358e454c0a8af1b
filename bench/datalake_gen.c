/*
 * datalake_gen.c - synthetic job summaries for the datalake scale bench
 * (bench/datalake.sh), turned into ClickHouse rows by the sink's own
 * conversion (clickhouse_sink_rows): the rows are exactly what tracerd
 * would insert for them.
 *
 *   datalake_gen FIRST COUNT PROCS OUTDIR
 *
 * writes OUTDIR/{jobs,tools,processes,flags}.json (JSONEachRow) for the
 * summaries FIRST .. FIRST+COUNT-1.  Summary i is a step of Slurm job
 * i/2 (steps "batch" and "0"; a quarter of the jobs on two nodes) of one
 * of 10,000 users (half of the jobs from 500 of them), one of 100
 * pipelines, ending within the last 60 days, with 2-6 tools of 40 and
 * PROCS processes in its tree.  Everything follows from i: runs agree.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "growbuf.h"
#include "sink.h"

static const char *const tools[] = {
	"bwa", "samtools", "gatk", "picard", "bcftools", "bowtie2", "star", "salmon",
	"kallisto", "fastqc", "multiqc", "trimmomatic", "cutadapt", "python3", "Rscript",
	"java", "perl", "bedtools", "minimap2", "hisat2", "featureCounts", "htseq-count",
	"spades", "megahit", "prokka", "blastn", "diamond", "hmmscan", "mafft", "iqtree",
	"raxml", "plink", "bgzip", "tabix", "sort", "gzip", "awk", "sed", "cellranger", "nextflow",
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))
static const char *const states[] = {"COMPLETED", "FAILED", "OUT_OF_MEMORY", "CANCELLED",
				     "TIMEOUT"};

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

static void summary(struct growbuf *b, uint64_t i, unsigned procs, uint64_t now_ns)
{
	uint64_t job = i / 2, h = mix(job), g = mix(i);
	unsigned step = i % 2;
	unsigned user = (h & 1) ? (unsigned)(h >> 8) % 500 : (unsigned)(h >> 8) % 10000;
	unsigned pipeline = (unsigned)(h >> 20) % 100;
	unsigned cpus = 1u << ((h >> 30) % 6);
	unsigned host = (unsigned)(h >> 36) % 2000 + (step && job % 4 == 0);
	double wall = 30.0 * (1 + (g >> 8) % 240);
	double eff = 0.05 + (double)((g >> 16) % 95) / 100.0;
	double cpu = wall * cpus * eff;
	uint64_t end = now_ns - (h >> 12) % (60ull * 86400) * 1000000000ull;
	uint64_t start = end - (uint64_t)(wall * 1e9);
	uint64_t mem_alloc = (uint64_t)cpus * 4 << 30, peak = mem_alloc / 100 * (5 + (g >> 24) % 110);
	unsigned st = (unsigned)(g % 100);
	const char *state = states[st < 85 ? 0 : st < 92 ? 1 : st < 95 ? 2 : st < 98 ? 3 : 4];
	unsigned ntools = 2 + (unsigned)(g >> 40) % 5;
	char t0[40];

	add(b, "{\"schema\":\"tracer.summary/1\",\"summary_id\":\"%016llx%016llx\","
	    "\"job\":\"slurm:%llu.%s\",\"start_ns\":%llu,\"end_ns\":%llu,\"wall_s\":%.3f,"
	    "\"state\":\"%s\",\"exit\":{\"code\":%d},\"cpu_efficiency\":%.4f,",
	    (unsigned long long)mix(g), (unsigned long long)g, (unsigned long long)(7000000 + job),
	    step ? "0" : "batch", (unsigned long long)start, (unsigned long long)end, wall, state,
	    strcmp(state, "COMPLETED") ? 1 : 0, eff);
	add(b, "\"identity\":{\"scheduler\":\"slurm\",\"cluster\":\"hpc%u\",\"job_id\":\"%llu\","
	    "\"step_id\":\"%s\",\"user\":\"u%05u\",\"uid\":%u,\"queue\":\"%s\","
	    "\"pipeline\":\"p%03u\",\"run_id\":\"run-%llu\",\"task_name\":\"task%u\","
	    "\"account\":\"acct%03u\",\"qos\":\"%s\",\"submit_ns\":%llu,\"job_start_ns\":%llu,"
	    "\"queue_wait_s\":%.1f,\"node_list\":\"n%04u\","
	    "\"request\":{\"cpus\":%u,\"mem_bytes\":%llu,\"nodes\":1,\"time_limit_s\":%u},"
	    "\"allocation\":{\"cpus\":%u,\"mem_bytes\":%llu,\"time_limit_s\":%u,\"nodes\":1}},",
	    (unsigned)(h >> 50) % 2, (unsigned long long)(7000000 + job), step ? "0" : "batch",
	    user, 100000 + user, (h >> 44) % 3 ? "normal" : "long", pipeline,
	    (unsigned long long)(job / 50), (unsigned)(h >> 24) % 40, user % 300,
	    (h >> 46) % 4 ? "normal" : "high", (unsigned long long)(start - 60000000000ull),
	    (unsigned long long)start, (double)((h >> 52) % 3600), host, cpus,
	    (unsigned long long)mem_alloc, 86400, cpus,
	    (unsigned long long)mem_alloc, 86400);
	add(b, "\"host\":{\"hostname\":\"n%04u\",\"cpus\":64},"
	    "\"totals\":{\"cpu_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,\"rchar\":%llu,"
	    "\"wchar\":%llu,\"read_bytes\":%llu,\"write_bytes\":%llu,"
	    "\"net\":{\"sent_bytes\":%llu,\"recv_bytes\":%llu},"
	    "\"block\":{\"read_bytes\":%llu,\"write_bytes\":%llu}},"
	    "\"memory\":{\"peak_bytes\":%llu,\"efficiency\":%.4f},\"processes\":{\"total\":%u},"
	    "\"oom_kills\":%d,\"drops\":{\"events\":0},"
	    "\"tracer\":{\"source\":\"tracerd\",\"version\":\"0.9.0\"},"
	    "\"recommendation\":{\"cpus\":%u,\"mem_bytes\":%llu,\"time_s\":%.0f},"
	    "\"cost\":{\"total\":%.4f,\"unused\":%.4f},",
	    host, cpu, cpu * 0.9, cpu * 0.1, (unsigned long long)(g >> 30),
	    (unsigned long long)(g >> 32), (unsigned long long)(g >> 34), (unsigned long long)(g >> 35),
	    (unsigned long long)(g >> 40), (unsigned long long)(g >> 38),
	    (unsigned long long)(g >> 36), (unsigned long long)(g >> 37), (unsigned long long)peak,
	    (double)peak / (double)mem_alloc, procs * 3, st >= 92 && st < 95,
	    (unsigned)(cpu / wall) + 1, (unsigned long long)(peak * 5 / 4), wall * 1.5,
	    wall * cpus / 3600 * 0.04, wall * cpus * (1 - eff) / 3600 * 0.04);
	add(b, "\"tools\":[");
	for (unsigned t = 0; t < ntools; t++) {
		const char *name = tools[(h >> (t * 5)) % NTOOLS];
		double tc = cpu / ntools, tw = wall / ntools;
		iso(start + (uint64_t)(t * tw * 1e9), t0, sizeof(t0));
		add(b, "%s{\"tool\":\"%s\",\"path\":\"/opt/bio/bin/%s\",\"processes\":%u,"
		    "\"cpu_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,\"wall_s\":%.3f,"
		    "\"peak_rss_bytes\":%llu,\"rchar\":%llu,\"wchar\":%llu,\"read_bytes\":0,"
		    "\"write_bytes\":0,\"first_start\":\"%s\",\"last_end\":\"%s\",\"oom_kills\":0,"
		    "\"exit_codes\":[{\"code\":0,\"count\":%u}]}",
		    t ? "," : "", name, name, procs, tc, tc * 0.9, tc * 0.1, tw,
		    (unsigned long long)peak / 2, (unsigned long long)(g >> (33 + t)),
		    (unsigned long long)(g >> (35 + t)), t0, t0, procs);
	}
	add(b, "],\"process_tree\":[");
	for (unsigned p = 0; p < procs; p++) {
		const char *name = tools[(h >> ((p % ntools) * 5)) % NTOOLS];
		iso(start + (uint64_t)p * 1000000000ull, t0, sizeof(t0));
		add(b, "%s{\"pid\":%u,\"ppid\":%u,\"tool\":\"%s\",\"comm\":\"%.15s\","
		    "\"exe\":\"/opt/bio/bin/%s\",\"cmdline\":\"%s -t %u -i /scratch/u%05u/run%llu/"
		    "sample_%u.fastq.gz -o /scratch/u%05u/out/part_%u\",\"start\":\"%s\","
		    "\"wall_s\":%.3f,\"cpu_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,"
		    "\"peak_rss_bytes\":%llu,\"rchar\":%llu,\"wchar\":%llu,\"read_bytes\":0,"
		    "\"write_bytes\":0,\"exit_code\":0}",
		    p ? "," : "", 1000 + p, p ? 1000 : 1, name, name, name, name, cpus, user,
		    (unsigned long long)job, p, user, p, t0, wall / procs, cpu / procs,
		    cpu / procs * 0.9, cpu / procs * 0.1, (unsigned long long)peak / 3,
		    (unsigned long long)(g >> (30 + p % 8)), (unsigned long long)(g >> (32 + p % 8)));
	}
	add(b, "],\"flags\":[");
	if (eff < 0.3)
		add(b, "{\"id\":\"low_cpu_efficiency\",\"severity\":\"warning\",\"message\":"
		    "\"used %.0f%% of %u allocated CPUs\",\"evidence\":{\"cpu_efficiency\":%.3f}}",
		    eff * 100, cpus, eff);
	add(b, "]}");
}

int main(int argc, char **argv)
{
	static const char *const names[CLICKHOUSE_SINK_TABLES] = {"jobs", "tools", "processes",
								 "flags"};
	struct growbuf rows[CLICKHOUSE_SINK_TABLES];
	FILE *out[CLICKHOUSE_SINK_TABLES];
	char path[4096];

	if (argc != 5) {
		fprintf(stderr, "usage: datalake_gen FIRST COUNT PROCS OUTDIR\n");
		return 2;
	}
	uint64_t first = strtoull(argv[1], NULL, 10), count = strtoull(argv[2], NULL, 10);
	unsigned procs = (unsigned)strtoul(argv[3], NULL, 10);
	/* one "now" for every run of the bench: the day it ran, at midnight */
	uint64_t now_ns = (uint64_t)(time(NULL) / 86400 * 86400) * 1000000000ull;

	memset(rows, 0, sizeof(rows));
	for (int t = 0; t < CLICKHOUSE_SINK_TABLES; t++) {
		snprintf(path, sizeof(path), "%s/%s.json", argv[4], names[t]);
		if (!(out[t] = fopen(path, "w"))) {
			perror(path);
			return 1;
		}
	}
	for (uint64_t i = first; i < first + count; i++) {
		struct growbuf s = {0};
		summary(&s, i, procs, now_ns);
		if (s.oom || clickhouse_sink_rows(s.p, s.len, rows) != 0) {
			fprintf(stderr, "datalake_gen: summary %llu: not JSON or out of memory\n",
				(unsigned long long)i);
			return 1;
		}
		growbuf_free(&s);
		for (int t = 0; t < CLICKHOUSE_SINK_TABLES; t++) {
			if (rows[t].len > (4u << 20) || i + 1 == first + count) {
				if (rows[t].len && fwrite(rows[t].p, 1, rows[t].len, out[t]) != rows[t].len) {
					perror(names[t]);
					return 1;
				}
				growbuf_free(&rows[t]);
				memset(&rows[t], 0, sizeof(rows[t]));
			}
		}
	}
	for (int t = 0; t < CLICKHOUSE_SINK_TABLES; t++)
		if (fclose(out[t]) != 0) {
			perror(names[t]);
			return 1;
		}
	return 0;
}
