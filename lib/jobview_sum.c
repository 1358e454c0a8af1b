/*
 * jobview_sum.c - adding up the numbers of several summaries for the job
 * view (jobview.h): totals summed key by key, peaks as the largest, and
 * the tools of all steps merged by name and path.  Summaries are read
 * from files and sockets, so a field of the wrong type is skipped, never
 * trusted.
 */
#include "jobview.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

/* peaks and spans are not additive */
static const char *const tool_max_keys[] = {"peak_rss_bytes", "maxrss_bytes", "max_rss_bytes",
					    "wall_s", NULL};

static bool is_max_key(const char *key, const char *const *max_keys)
{
	for (size_t i = 0; max_keys && max_keys[i]; i++)
		if (!strcmp(key, max_keys[i]))
			return true;
	return false;
}

/* a number, or a count written raw (json.c) by the one who built it */
static double item_num(const cJSON *it)
{
	if (cJSON_IsNumber(it))
		return it->valuedouble;
	return cJSON_IsRaw(it) && it->valuestring ? strtod(it->valuestring, NULL) : 0;
}

bool jobview_sum_into(cJSON *dst, const cJSON *src, const char *const *max_keys)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, src) {
		cJSON *d;

		if (!s->string)
			continue;
		d = cJSON_GetObjectItemCaseSensitive(dst, s->string);
		if (cJSON_IsNumber(s) || cJSON_IsRaw(s)) {
			double v = item_num(s);

			if (!d) {
				if (!cJSON_AddNumberToObject(dst, s->string, v))
					return false;
			} else if (cJSON_IsNumber(d) || cJSON_IsRaw(d)) {
				double was = item_num(d);
				cJSON *n = cJSON_CreateNumber(is_max_key(s->string, max_keys)
								      ? (v > was ? v : was)
								      : was + v);

				if (!n || !cJSON_ReplaceItemInObjectCaseSensitive(dst, s->string, n)) {
					cJSON_Delete(n);
					return false;
				}
			}
		} else if (cJSON_IsBool(s)) {
			if (!d) {
				if (!cJSON_AddBoolToObject(dst, s->string, cJSON_IsTrue(s)))
					return false;
			} else if (cJSON_IsBool(d) && cJSON_IsTrue(s)) {
				d->type = (d->type & ~0xFF) | cJSON_True;
			}
		} else if (cJSON_IsObject(s)) {
			if (!d && !(d = cJSON_AddObjectToObject(dst, s->string)))
				return false;
			if (cJSON_IsObject(d) && !jobview_sum_into(d, s, max_keys))
				return false;
		}
	}
	return true;
}

static bool same_str(const cJSON *a, const cJSON *b, const char *key)
{
	const char *x = json_get_str(a, key, NULL), *y = json_get_str(b, key, NULL);

	return (!x && !y) || (x && y && !strcmp(x, y));
}

static cJSON *find_tool(cJSON *tools, const cJSON *t)
{
	cJSON *u;

	cJSON_ArrayForEach(u, tools)
		if (same_str(u, t, "tool") && same_str(u, t, "path"))
			return u;
	return NULL;
}

/* ISO times of one format compare as strings */
static void keep_time(cJSON *dst, const cJSON *src, const char *key, int want)
{
	const char *s = json_get_str(src, key, NULL), *d = json_get_str(dst, key, NULL);
	cJSON *n;

	if (!s || (d && (strcmp(s, d) > 0 ? 1 : -1) != want))
		return;
	n = cJSON_CreateString(s);
	if (n && !(d ? cJSON_ReplaceItemInObjectCaseSensitive(dst, key, n)
		     : cJSON_AddItemToObject(dst, key, n)))
		cJSON_Delete(n);
}

static bool same_exit(const cJSON *a, const cJSON *b)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, a) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(b, k->string ? k->string : "");

		if (!k->string || !strcmp(k->string, "count"))
			continue;
		if (!o || cJSON_IsNumber(k) != cJSON_IsNumber(o) ||
		    (cJSON_IsNumber(k) && k->valuedouble != o->valuedouble) ||
		    cJSON_IsNull(k) != cJSON_IsNull(o))
			return false;
	}
	return true;
}

/* exit codes of src's tool counted into dst's */
static bool merge_exits(cJSON *dst, const cJSON *src)
{
	cJSON *into = cJSON_GetObjectItemCaseSensitive(dst, "exit_codes");
	const cJSON *e;

	if (!cJSON_IsArray(into))
		return true;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(src, "exit_codes")) {
		cJSON *d, *hit = NULL;

		cJSON_ArrayForEach(d, into)
			if (same_exit(d, e) && same_exit(e, d))
				hit = d;
		if (hit) {
			cJSON *c = cJSON_GetObjectItemCaseSensitive(hit, "count");

			if (cJSON_IsNumber(c))
				cJSON_SetNumberValue(c, c->valuedouble + json_get_num(e, "count", 0));
		} else if (!(d = cJSON_Duplicate(e, 1)) || !cJSON_AddItemToArray(into, d)) {
			cJSON_Delete(d);
			return false;
		}
	}
	return true;
}

static bool merge_tool(cJSON *tools, const cJSON *t)
{
	cJSON *u = find_tool(tools, t);

	if (!u) {
		u = cJSON_Duplicate(t, 1);
		if (!u || !cJSON_AddItemToArray(tools, u)) {
			cJSON_Delete(u);
			return false;
		}
		/* per job: recomputed; GPU use is per device of one host */
		cJSON_DeleteItemFromObjectCaseSensitive(u, "cost");
		cJSON_DeleteItemFromObjectCaseSensitive(u, "gpu");
		return true;
	}
	keep_time(u, t, "first_start", -1);
	keep_time(u, t, "last_end", 1);
	if (!merge_exits(u, t))
		return false;
	{
		cJSON *copy = cJSON_Duplicate(t, 1);
		bool ok;

		if (!copy)
			return false;
		/* ratios are made again below, the rest adds up */
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "cpu_efficiency");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "cpu_efficiency_span");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "cost");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "gpu");
		ok = jobview_sum_into(u, copy, tool_max_keys);
		cJSON_Delete(copy);
		return ok;
	}
}

static void set_num(cJSON *o, const char *key, double v)
{
	cJSON *n = cJSON_CreateNumber(v);

	if (n && !cJSON_ReplaceItemInObjectCaseSensitive(o, key, n) &&
	    !cJSON_AddItemToObject(o, key, n))
		cJSON_Delete(n);
}

cJSON *jobview_tools(const cJSON *steps, double job_wall_s, double alloc_cpus)
{
	cJSON *tools = cJSON_CreateArray(), *u;
	const cJSON *s, *t;

	if (!tools)
		return NULL;
	cJSON_ArrayForEach(s, steps)
		cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tools"))
			if (cJSON_IsObject(t) && !merge_tool(tools, t)) {
				cJSON_Delete(tools);
				return NULL;
			}
	cJSON_ArrayForEach(u, tools) {
		double cpu = json_get_num(u, "cpu_s", 0), wall = json_get_num(u, "wall_s", 0);

		if (cJSON_HasObjectItem(u, "cpu_efficiency"))
			set_num(u, "cpu_efficiency", job_wall_s > 0 && alloc_cpus > 0
							     ? cpu / (job_wall_s * alloc_cpus) : 0);
		if (cJSON_HasObjectItem(u, "cpu_efficiency_span"))
			set_num(u, "cpu_efficiency_span", wall > 0 ? cpu / wall : 0);
	}
	return tools;
}
