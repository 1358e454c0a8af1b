/*
 * cost.c - the cost of a job and of its tools (cost.h).
 *
 * Two bases.  "resources" (price_cpu_hour, price_gb_hour): the allocation
 * costs wall hours x (allocated CPUs x price_cpu_hour + allocated GiB x
 * price_gb_hour); the used part is the CPU time x price_cpu_hour plus wall
 * hours x the memory peak (at most the allocation) x price_gb_hour.
 * "instance" (price_instance_hour, or price_spot_instance_hour on a spot
 * instance): wall hours x the hourly price; the used part is its share of
 * CPU time in the allocated CPU time.  "fargate" (price_fargate_vcpu_hour,
 * price_fargate_gb_hour, on an ECS task of launch type FARGATE): as
 * "resources", with Fargate's prices of the task's vCPUs and memory, which
 * is how Fargate bills.  unused = total - used.
 *
 * Tools share the used part so that they sum to it exactly: the CPU part
 * by their share of the tools' CPU time, the memory part by their share of
 * the tools' GiB-hours (own peak x own wall span); with no memory figures
 * the memory part follows CPU time too.
 */
#include "cost.h"

#include <stdlib.h>
#include <string.h>

#include "fargate.h"
#include "identity.h"
#include "json.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* Per-resource prices and the keys that set them. */
struct prices {
	const char *basis;
	double cpu;
	const char *cpu_key;
	double gb;
	const char *gb_key;
};

/* seconds and byte counts are written raw (json.c) */
static double num(const cJSON *o, const char *key)
{
	return json_get_num(o, key, 0);
}

/* Split cpu_cost by CPU time and mem_cost by GiB-hours over the tools. */
static void tool_costs(cJSON *tools, double cpu_cost, double mem_cost)
{
	double cpu_sum = 0, mem_sum = 0;
	const cJSON *t;
	cJSON *tw;

	cJSON_ArrayForEach(t, tools) {
		cpu_sum += num(t, "cpu_s");
		mem_sum += num(t, "peak_rss_bytes") * num(t, "wall_s");
	}
	if (mem_sum <= 0) { /* no memory figures: by CPU time as well */
		cpu_cost += mem_cost;
		mem_cost = 0;
	}
	cJSON_ArrayForEach(tw, tools) {
		double c = 0;

		if (cpu_sum > 0)
			c += cpu_cost * num(tw, "cpu_s") / cpu_sum;
		if (mem_sum > 0)
			c += mem_cost * num(tw, "peak_rss_bytes") * num(tw, "wall_s") / mem_sum;
		cJSON_AddNumberToObject(tw, "cost", c);
	}
}

/* The vCPUs Fargate bills: the task's exact size (0.25, 0.5...), else the
 * allocated CPUs (whole ones). */
static double fargate_vcpus(const struct job *j, int cpus)
{
	const char *v = identity_label(&j->id, "ecs.task_vcpus");
	char *end;
	double d = v ? strtod(v, &end) : 0;

	return v && end != v && !*end && d > 0 && d < 1e6 ? d : cpus;
}

/* The per-resource prices that apply: Fargate's on Fargate (no instance
 * there to price), else the site's; false when neither is set. */
static bool resource_prices(const struct job *j, const struct tracer_config *cfg,
			    struct prices *p)
{
	if (fargate_job(&j->id) && (cfg->price_fargate_vcpu_hour > 0 || cfg->price_fargate_gb_hour > 0)) {
		*p = (struct prices){"fargate", cfg->price_fargate_vcpu_hour, "price_fargate_vcpu_hour",
				     cfg->price_fargate_gb_hour, "price_fargate_gb_hour"};
		return true;
	}
	*p = (struct prices){"resources", cfg->price_cpu_hour, "price_cpu_hour",
			     cfg->price_gb_hour, "price_gb_hour"};
	return cfg->price_cpu_hour > 0 || cfg->price_gb_hour > 0;
}

void cost_add(cJSON *root, const struct job *j, int cpus, const struct tracer_config *cfg)
{
	const char *life = identity_label(&j->id, "aws.lifecycle");
	const cJSON *tot = cJSON_GetObjectItem(root, "totals");
	double wall = num(root, "wall_s"), h = wall / 3600.0, cpu_s = num(tot, "cpu_s");
	double peak = num(cJSON_GetObjectItem(root, "memory"), "peak_bytes");
	double alloc_mem = (double)j->id.alloc.mem_bytes, cpu_h = cpu_s / 3600.0;
	double total = 0, cpu_used = 0, mem_used = 0, price;
	bool spot = life && !strcmp(life, "spot");
	bool fargate = fargate_job(&j->id);
	struct prices rp;
	bool have_rp = resource_prices(j, cfg, &rp);
	cJSON *c;

	/* an instance's price never applies to a Fargate task */
	price = fargate ? 0 : spot && cfg->price_spot_instance_hour > 0 ? cfg->price_spot_instance_hour
									: cfg->price_instance_hour;
	if (price <= 0 && !have_rp)
		return; /* no price that applies: no cost, not zeros */
	c = cJSON_AddObjectToObject(root, "cost");
	if (!c)
		return;
	if (cpus > 0 && cpu_h > h * cpus)
		cpu_h = h * cpus; /* never more than the allocation */
	if (price > 0) {
		cJSON_AddStringToObject(c, "basis", "instance");
		total = h * price;
		cpu_used = cpus > 0 && h > 0 ? total * cpu_h / (h * cpus) : 0;
		cJSON_AddNumberToObject(c, spot && price == cfg->price_spot_instance_hour
						   ? "price_spot_instance_hour" : "price_instance_hour",
					price);
		if (life)
			cJSON_AddStringToObject(c, "pricing",
						spot && price == cfg->price_spot_instance_hour
							? "spot" : "on-demand");
	} else {
		double units = fargate ? fargate_vcpus(j, cpus) : cpus;

		cJSON_AddStringToObject(c, "basis", rp.basis);
		if (rp.cpu > 0) {
			if (cpu_h > h * units)
				cpu_h = h * units;
			total += h * units * rp.cpu;
			cpu_used = cpu_h * rp.cpu;
			cJSON_AddNumberToObject(c, rp.cpu_key, rp.cpu);
		}
		if (rp.gb > 0 && alloc_mem > 0) {
			total += h * (alloc_mem / GiB) * rp.gb;
			mem_used = h * ((peak < alloc_mem ? peak : alloc_mem) / GiB) * rp.gb;
			cJSON_AddNumberToObject(c, rp.gb_key, rp.gb);
		}
		if (life) /* these prices are the site's own, whatever the instance */
			cJSON_AddStringToObject(c, "pricing", "on-demand");
	}
	if (life)
		cJSON_AddStringToObject(c, "instance_life_cycle", life);
	cJSON_AddNumberToObject(c, "total", total);
	cJSON_AddNumberToObject(c, "used", cpu_used + mem_used);
	cJSON_AddNumberToObject(c, "unused", total - cpu_used - mem_used > 0
						 ? total - cpu_used - mem_used : 0);
	tool_costs(cJSON_GetObjectItem(root, "tools"), cpu_used, mem_used);
}
