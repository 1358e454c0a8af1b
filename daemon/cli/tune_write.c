/*
 * tune_write.c - `tracer tune`'s text outputs (tune_write.h): files each
 * engine reads as they are, so every name that goes into one is checked
 * or escaped for that syntax (a task name is whatever a user typed).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fargate.h"
#include "json.h"
#include "textsafe.h"
#include "tune_write.h"

#define MiB (1024.0 * 1024.0)

static const char *const formats[] = {"table", "nextflow", "snakemake", "slurm",
				      "aws-batch", "json"};

bool tune_format_known(const char *fmt)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(fmt, formats[i]))
			return true;
	return false;
}

const char *tune_hms(double s, char *buf, size_t len)
{
	unsigned long v = (unsigned long)ceil(s);

	snprintf(buf, len, "%02lu:%02lu:%02lu", v / 3600, (v / 60) % 60, v % 60);
	return buf;
}

const char *tune_label(const char *s, char *buf, size_t len)
{
	return text_safe(s && *s ? s : "-", buf, len);
}

static unsigned long mem_mib(const struct tune_step *s)
{
	return (unsigned long)(s->mem_bytes / (uint64_t)MiB);
}

static unsigned long time_min(const struct tune_step *s)
{
	return (unsigned long)ceil(s->time_s / 60.0);
}

/* the fitted memory in MiB for an input of x MiB: a + b x, with the margin */
static void fit_mib(const struct tune_step *s, const struct tune_params *p, double *a,
		    double *b)
{
	*a = ceil(s->fit.a * p->mem_margin / MiB);
	*b = s->fit.b * p->mem_margin;
}

/* "# align (user alice, pipeline P): 5 runs, 1 OOM, ..." */
static void comment_head(FILE *f, const char *lead, const struct tune_step *s)
{
	char t[160], u[100], pl[160];

	fprintf(f, "%s %s (user %s, pipeline %s): %d run(s): %d ok, %d OOM, %d timeout, "
		"%d failed, %d other; confidence %s\n", lead, tune_label(s->task, t, sizeof(t)),
		s->user[0] ? tune_label(s->user, u, sizeof(u)) : "(shared)",
		tune_label(s->pipeline, pl, sizeof(pl)), s->runs, s->ok, s->oom, s->timeout,
		s->failed, s->other, s->confidence);
}

static void fit_comment(FILE *f, const char *lead, const struct tune_step *s)
{
	if (s->fit.n >= 2 && s->fit.distinct >= 2)
		fprintf(f, "%s memory against input: peak = %.1f MiB + %.4g x input, R^2 %.3f, "
			"error %.1f MiB over %zu runs of %zu sizes: %s\n", lead, s->fit.a / MiB,
			s->fit.b, s->fit.r2, s->fit.rmse / MiB, s->fit.n, s->fit.distinct,
			s->fit_used ? "used (sized for the largest input seen)" :
				      "not used (the p95 of the peaks is)");
}

/* ---- Nextflow: process scope, withName selectors ---- */

/* withName takes a regular expression in a Groovy single-quoted string:
 * regex characters are escaped for the regex, then \ and ' for Groovy */
static void nf_selector(FILE *f, const char *name)
{
	fputc('\'', f);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\\\x%02x", *c);
		else if (strchr(".^$|?*+()[]{}\\", *c))
			fprintf(f, "\\\\%c", *c);
		else if (*c == '\'')
			fputs("\\'", f);
		else
			fputc(*c, f);
	}
	fputc('\'', f);
}

static void write_nextflow(FILE *f, const struct tune_report *r)
{
	fprintf(f, "// tracer tune: %s, %zu run(s) (%s)\n// use: nextflow run ... -c THIS_FILE\n",
		r->selection, r->nruns, r->source);
	fputs("process {\n", f);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tune_step *s = &r->steps[i];
		double a, b;

		comment_head(f, "    //", s);
		fit_comment(f, "    //", s);
		fputs("    withName: ", f);
		nf_selector(f, s->task);
		fprintf(f, " {\n        cpus = %d\n", s->cpus);
		if (s->fit_used) {
			fit_mib(s, r->params, &a, &b);
			/* a closure over the input: the process names its input, so the
			 * user puts that name in place of INPUT (docs/tune.md) */
			fprintf(f, "        // memory by input size (name your input for INPUT):\n"
				"        // memory = { (%.0f + Math.ceil(%.6g * INPUT.size() / 1048576)"
				").toLong().MB * task.attempt }\n", a, b);
		}
		if (s->retry_on_oom)
			fprintf(f, "        memory = { %lu.MB * task.attempt }\n"
				"        errorStrategy = { task.exitStatus in 137..140 ? 'retry' : "
				"'terminate' }\n        maxRetries = 2\n", mem_mib(s));
		else
			fprintf(f, "        memory = '%lu MB'\n", mem_mib(s));
		fprintf(f, "        time = '%lum'\n    }\n", time_min(s));
	}
	fputs("}\n", f);
}

/* ---- Snakemake: a profile's config.yaml ----
 * Snakemake 7 (Debian 12's 7.21) parses set-threads entries as
 * RULE=THREADS and set-resources entries as RULE:RESOURCE=VALUE; it
 * applies set-threads only to a rule that declares threads: itself, so
 * the threads also go in as the resource _cores (what threads: sets).
 * mem_mb is in megabytes (10^6 bytes), runtime in minutes. */

static unsigned long mem_mb(const struct tune_step *s)
{
	return (unsigned long)ceil((double)s->mem_bytes / 1e6);
}

static bool rule_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void snakemake_comments(FILE *f, const struct tune_report *r)
{
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tune_step *s = &r->steps[i];

		comment_head(f, "#", s);
		if (!rule_name(s->task)) {
			fprintf(f, "#   not a Snakemake rule name: left out\n");
			continue;
		}
		fit_comment(f, "#  ", s);
		/* the line is fitted on the bytes the job read, Snakemake's own
		 * reads included, not on the input files' size: never below
		 * what a run that succeeded needed */
		if (s->fit_used)
			fprintf(f, "#   in the rule, by input size: resources: mem_mb=lambda wildcards, "
				"input: max(%.0f, %.0f + math.ceil(%.6g * input.size_mb))\n",
				ceil((double)s->peak_ok_max * r->params->mem_margin / 1e6),
				ceil(s->fit.a * r->params->mem_margin / 1e6),
				s->fit.b * r->params->mem_margin);
	}
}

static void write_snakemake(FILE *f, const struct tune_report *r)
{
	fprintf(f, "# tracer tune: %s, %zu run(s) (%s)\n"
		"# use: snakemake --profile THIS_DIRECTORY ...\n", r->selection, r->nruns,
		r->source);
	snakemake_comments(f, r);
	/* rule names only from here on: nothing to escape */
	fputs("set-threads:\n", f);
	for (size_t i = 0; i < r->nsteps; i++)
		if (rule_name(r->steps[i].task))
			fprintf(f, "  - \"%s=%d\"\n", r->steps[i].task, r->steps[i].cpus);
	fputs("set-resources:\n", f);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tune_step *s = &r->steps[i];

		if (!rule_name(s->task))
			continue;
		fprintf(f, "  - \"%s:_cores=%d\"\n  - \"%s:mem_mb=%lu\"\n  - \"%s:runtime=%lu\"\n",
			s->task, s->cpus, s->task, mem_mb(s), s->task, time_min(s));
	}
}

/* ---- Slurm: #SBATCH lines per job name ---- */

static void write_slurm(FILE *f, const struct tune_report *r)
{
	char hms[32];

	fprintf(f, "# tracer tune: %s, %zu run(s) (%s)\n", r->selection, r->nruns, r->source);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tune_step *s = &r->steps[i];

		fputc('\n', f);
		comment_head(f, "#", s);
		fit_comment(f, "#", s);
		fprintf(f, "#SBATCH --cpus-per-task=%d\n#SBATCH --mem=%luM\n#SBATCH --time=%s\n",
			s->cpus, mem_mib(s), tune_hms(s->time_s, hms, sizeof(hms)));
	}
}

/* ---- AWS Batch: SubmitJob's containerOverrides and timeout ---- */

/* VCPU and MEMORY; for a step that ran on Fargate, the smallest Fargate
 * size that holds them (a request Fargate has no size for stays as it
 * is: Batch will refuse it, which says more than a smaller size would) */
static cJSON *aws_requirements(const struct tune_step *s)
{
	cJSON *a = cJSON_CreateArray(), *o;
	struct fargate_size fs;
	char v[32];

	if (!s->fargate || fargate_fit(s->cpus, mem_mib(s), &fs) != 0) {
		snprintf(fs.vcpu, sizeof(fs.vcpu), "%d", s->cpus);
		fs.mem_mib = mem_mib(s);
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToArray(a, o);
	json_add_str(o, "type", "VCPU");
	json_add_str(o, "value", fs.vcpu);
	o = cJSON_CreateObject();
	cJSON_AddItemToArray(a, o);
	json_add_str(o, "type", "MEMORY");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)fs.mem_mib);
	json_add_str(o, "value", v);
	return a;
}

static cJSON *aws_json(const struct tune_report *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < r->nsteps; i++) {
		const struct tune_step *s = &r->steps[i];
		cJSON *o = cJSON_CreateObject(), *co = cJSON_CreateObject(), *to;

		cJSON_AddItemToArray(arr, o);
		json_add_str(o, "jobDefinition", s->task);
		cJSON_AddItemToObject(o, "containerOverrides", co);
		cJSON_AddItemToObject(co, "resourceRequirements", aws_requirements(s));
		to = cJSON_AddObjectToObject(o, "timeout");
		/* AWS Batch's smallest attempt duration is 60 s */
		cJSON_AddNumberToObject(to, "attemptDurationSeconds", s->time_s < 60 ? 60 : s->time_s);
	}
	return arr;
}

/* ---- JSON ---- */

static void add_step_json(cJSON *arr, const struct tune_step *s)
{
	cJSON *o = cJSON_CreateObject(), *x, *fit;

	cJSON_AddItemToArray(arr, o);
	json_add_str(o, "task", s->task);
	json_add_str(o, "pipeline", s->pipeline);
	if (s->user[0])
		json_add_str(o, "user", s->user);
	if (s->uid >= 0)
		cJSON_AddNumberToObject(o, "uid", (double)s->uid);
	cJSON_AddBoolToObject(o, "shared", !s->user[0] && s->uid < 0);
	x = cJSON_AddObjectToObject(o, "runs");
	cJSON_AddNumberToObject(x, "total", s->runs);
	cJSON_AddNumberToObject(x, "completed", s->ok);
	cJSON_AddNumberToObject(x, "out_of_memory", s->oom);
	cJSON_AddNumberToObject(x, "timeout", s->timeout);
	cJSON_AddNumberToObject(x, "failed", s->failed);
	cJSON_AddNumberToObject(x, "other", s->other);
	json_add_u64_text(x, "first_end_ns", (uint64_t)s->first_end_ns);
	json_add_u64_text(x, "last_end_ns", (uint64_t)s->last_end_ns);
	x = cJSON_AddObjectToObject(o, "cpus");
	cJSON_AddNumberToObject(x, "used_p95", s->cpus_used_p95);
	cJSON_AddNumberToObject(x, "requested_p95", s->cpus_req_p95);
	x = cJSON_AddObjectToObject(o, "memory");
	json_add_u64(x, "peak_p95_bytes", s->peak_p95);
	json_add_u64(x, "peak_max_bytes", s->peak_max);
	json_add_u64(x, "peak_completed_max_bytes", s->peak_ok_max);
	json_add_u64(x, "requested_p95_bytes", s->mem_req_p95);
	json_add_u64(x, "input_max_bytes", s->input_max);
	fit = cJSON_AddObjectToObject(x, "fit");
	cJSON_AddNumberToObject(fit, "runs", (double)s->fit.n);
	cJSON_AddNumberToObject(fit, "input_sizes", (double)s->fit.distinct);
	cJSON_AddNumberToObject(fit, "a_bytes", s->fit.a);
	cJSON_AddNumberToObject(fit, "b", s->fit.b);
	cJSON_AddNumberToObject(fit, "r2", s->fit.r2);
	cJSON_AddNumberToObject(fit, "rmse_bytes", s->fit.rmse);
	cJSON_AddBoolToObject(fit, "used", s->fit_used);
	x = cJSON_AddObjectToObject(o, "wall");
	cJSON_AddNumberToObject(x, "p95_s", s->wall_p95);
	cJSON_AddNumberToObject(x, "max_s", s->wall_max);
	cJSON_AddNumberToObject(x, "time_limit_max_s", s->time_limit_max);
	x = cJSON_AddObjectToObject(o, "request");
	cJSON_AddNumberToObject(x, "cpus", s->cpus);
	json_add_u64(x, "mem_bytes", s->mem_bytes);
	cJSON_AddNumberToObject(x, "time_s", s->time_s);
	cJSON_AddBoolToObject(x, "retry_on_oom", s->retry_on_oom);
	cJSON_AddBoolToObject(x, "fargate", s->fargate);
	x = cJSON_AddObjectToObject(o, "saving");
	cJSON_AddNumberToObject(x, "core_hours", s->core_h_saved);
	cJSON_AddNumberToObject(x, "gb_hours", s->gb_h_saved);
	if (s->has_cost) /* without a price: no cost at all, never a 0 */
		cJSON_AddNumberToObject(x, "cost", s->cost_saved);
	x = cJSON_AddObjectToObject(o, "confidence");
	json_add_str(x, "level", s->confidence);
	cJSON_AddNumberToObject(x, "runs", s->runs);
	cJSON_AddNumberToObject(x, "peak_spread", s->peak_cv);
}

static cJSON *tune_json(const struct tune_report *r)
{
	cJSON *root = cJSON_CreateObject(), *steps, *m;

	if (!root)
		return NULL;
	json_add_str(root, "selection", r->selection);
	json_add_str(root, "source", r->source);
	cJSON_AddNumberToObject(root, "runs", (double)r->nruns);
	m = cJSON_AddObjectToObject(root, "margins");
	cJSON_AddNumberToObject(m, "memory", r->params->mem_margin);
	cJSON_AddNumberToObject(m, "time", r->params->time_margin);
	cJSON_AddNumberToObject(m, "oom_factor", r->params->oom_factor);
	cJSON_AddNumberToObject(m, "timeout_factor", r->params->timeout_factor);
	steps = cJSON_AddArrayToObject(root, "steps");
	for (size_t i = 0; steps && i < r->nsteps; i++)
		add_step_json(steps, &r->steps[i]);
	return root;
}

/* ---- table ---- */

static void write_table_step(FILE *f, const struct tune_step *s, const struct tune_params *p)
{
	char b1[32], b2[32], b3[32], b4[32], t[160], u[100], pl[160];
	cJSON *aws = aws_requirements(s);
	char *awss = aws ? cJSON_PrintUnformatted(aws) : NULL;

	fprintf(f, "\nSTEP %s  (user %s, pipeline %s)\n", tune_label(s->task, t, sizeof(t)),
		s->user[0] ? tune_label(s->user, u, sizeof(u)) : "(shared)",
		tune_label(s->pipeline, pl, sizeof(pl)));
	fprintf(f, "  Runs      %d: %d completed, %d OOM, %d timeout, %d failed, %d other\n",
		s->runs, s->ok, s->oom, s->timeout, s->failed, s->other);
	fprintf(f, "  CPU       used p95 %.1f of %.1f requested (p95) -> %d\n", s->cpus_used_p95,
		s->cpus_req_p95, s->cpus);
	fprintf(f, "  Memory    peak p95 %s, max %s, requested %s -> %s\n",
		fmt_bytes(s->peak_p95, b1, sizeof(b1)), fmt_bytes(s->peak_max, b2, sizeof(b2)),
		s->mem_req_p95 ? fmt_bytes(s->mem_req_p95, b3, sizeof(b3)) : "-",
		fmt_bytes(s->mem_bytes, b4, sizeof(b4)));
	fit_comment(f, "           ", s);
	fprintf(f, "  Time      wall p95 %s, limit %s -> %s\n", fmt_secs(s->wall_p95, b1, sizeof(b1)),
		s->time_limit_max > 0 ? fmt_secs(s->time_limit_max, b2, sizeof(b2)) : "-",
		tune_hms(s->time_s, b3, sizeof(b3)));
	fprintf(f, "  Saving    %.2f core-hours, %.2f GB-hours", s->core_h_saved, s->gb_h_saved);
	if (s->has_cost)
		fprintf(f, ", cost %.2f", s->cost_saved);
	fprintf(f, " over the %d run(s); confidence %s (peak spread %.0f%%)\n", s->runs,
		s->confidence, s->peak_cv * 100);
	fprintf(f, "  Slurm     --cpus-per-task=%d --mem=%luM --time=%s\n", s->cpus, mem_mib(s),
		tune_hms(s->time_s, b1, sizeof(b1)));
	fprintf(f, "  Nextflow  cpus = %d; memory = '%lu MB'; time = '%lum'\n", s->cpus, mem_mib(s),
		time_min(s));
	fprintf(f, "  Snakemake threads: %d; resources: mem_mb=%lu, runtime=%lu\n", s->cpus,
		mem_mb(s), time_min(s));
	fprintf(f, "  AWS Batch %s%s\n", awss ? awss : "-",
		s->fargate ? " (Fargate)" : "");
	free(awss);
	cJSON_Delete(aws);
}

static void write_table(FILE *f, const struct tune_report *r)
{
	fprintf(f, "tracer tune: %s, %zu run(s) from the %s, %zu step(s)\n", r->selection,
		r->nruns, r->source, r->nsteps);
	for (size_t i = 0; i < r->nsteps; i++)
		write_table_step(f, &r->steps[i], r->params);
}

int tune_write(FILE *f, const char *fmt, const struct tune_report *r)
{
	cJSON *j = NULL;
	char *txt;

	if (!strcmp(fmt, "nextflow"))
		write_nextflow(f, r);
	else if (!strcmp(fmt, "snakemake"))
		write_snakemake(f, r);
	else if (!strcmp(fmt, "slurm"))
		write_slurm(f, r);
	else if (!strcmp(fmt, "aws-batch") || !strcmp(fmt, "json")) {
		j = !strcmp(fmt, "json") ? tune_json(r) : aws_json(r);
		txt = j ? cJSON_Print(j) : NULL;
		cJSON_Delete(j);
		if (!txt)
			return -1;
		fprintf(f, "%s\n", txt);
		free(txt);
	} else
		write_table(f, r);
	return 0;
}
