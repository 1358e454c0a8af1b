/*
 * test_netpeers.c - distinct TCP remote endpoints per process, tool and
 * job: repeated endpoints count once, a tool's count is over its
 * processes (not their sum), the cap marks the counts it would change,
 * and the summary carries the counts.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "job_record.h"
#include "netpeers.h"
#include "summary.h"
#include "unit.h"

static void v4(uint8_t addr[16], const char *dotted)
{
	memset(addr, 0, 16);
	CU_ASSERT_EQUAL(inet_pton(AF_INET, dotted, addr), 1);
}

static const cJSON *find_tool(const cJSON *s, const char *name)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(s, "tools"))
		if (!strcmp(cJSON_GetObjectItem(t, "tool")->valuestring, name))
			return t;
	return NULL;
}

static double net_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "net"), key);

	if (cJSON_IsRaw(v))
		return strtod(v->valuestring, NULL);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void test_distinct(void)
{
	struct host_info host = {.cpus = 2};
	struct summary_opts so = {.source = "test", .sample_interval_ms = 1000};
	struct job *j = job_new("job-peers", NULL, 10);
	struct job_proc *p1, *p2;
	struct proc_totals t = {0};
	uint8_t a[16], b[16], c[16];
	cJSON *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	v4(a, "127.0.0.1");
	v4(b, "127.0.0.2");
	v4(c, "127.0.0.1");
	p1 = job_proc_add(j, 10, 1, 1, "curl");
	p2 = job_proc_add(j, 11, 1, 2, "curl");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
	netpeers_note(j, p1, AF_INET, a, 80);
	netpeers_note(j, p1, AF_INET, b, 80);
	netpeers_note(j, p1, AF_INET, a, 80);  /* again: counted once */
	netpeers_note(j, p2, AF_INET, c, 80);  /* p1's too: new for p2 only */
	netpeers_note(j, p2, AF_INET, c, 443); /* another port: another endpoint */
	netpeers_note(j, NULL, AF_INET6, a, 80); /* the job's only; IPv6 differs */
	CU_ASSERT_EQUAL(p1->totals.net.tcp_remotes, 2);
	CU_ASSERT_EQUAL(p2->totals.net.tcp_remotes, 2);
	CU_ASSERT_FALSE(p1->totals.net.tcp_remotes_capped);
	t.net = p1->totals.net;
	job_proc_exit(j, p1, 0, 10, &t, 0);
	t.net = p2->totals.net;
	job_proc_exit(j, p2, 0, 10, &t, 0);
	job_close(j, 20);
	netpeers_apply(j);
	s = summary_build(j, &host, &so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(net_num(find_tool(s, "curl"), "tcp_remote_endpoints"), 3);
	CU_ASSERT_EQUAL(net_num(cJSON_GetObjectItem(s, "totals"), "tcp_remote_endpoints"), 4);
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(find_tool(s, "curl"), "net"),
						   "tcp_remote_endpoints_capped")));
	cJSON_Delete(s);
	job_free(j);
}

static void test_capped(void)
{
	struct job *j = job_new("job-many", NULL, 10);
	struct job_proc *p;
	uint8_t a[16] = {0};
	uint64_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	p = job_proc_add(j, 20, 1, 1, "scanner");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (unsigned i = 0; i < 5000; i++) {
		a[0] = 10;
		a[1] = (uint8_t)(i >> 8);
		a[2] = (uint8_t)i;
		netpeers_note(j, p, AF_INET, a, 22);
	}
	/* three pairs per endpoint in a table of TRACER_NET_PEERS_MAX slots
	 * filled to 3/4 at most */
	CU_ASSERT(p->totals.net.tcp_remotes_capped);
	CU_ASSERT(p->totals.net.tcp_remotes >= 900 && p->totals.net.tcp_remotes < 5000);
	n = p->totals.net.tcp_remotes;
	job_close(j, 20); /* p is folded: not used after this */
	netpeers_apply(j);
	CU_ASSERT(j->totals.net.tcp_remotes_capped);
	CU_ASSERT(j->tools && j->tools->sum.net.tcp_remotes_capped);
	CU_ASSERT(j->tools && j->tools->sum.net.tcp_remotes == n);
	/* the totals of folded processes do not add distinct counts */
	CU_ASSERT(j->totals.net.tcp_remotes <= 1100);
	job_free(j);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"distinct per process, tool and job", test_distinct},
		{"bounded: capped counts are marked", test_capped},
	};

	return UNIT_RUN("netpeers", tests);
}
