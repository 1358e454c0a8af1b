/* test_config.c - tracer.conf: defaults, ranges, bad lines, the shipped file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "netaddr.h"
#include "unit.h"

static char dir[] = "/tmp/test_config.XXXXXX";
static char warned[8192];
static int nwarn;

static void collect(const char *msg)
{
	nwarn++;
	snprintf(warned + strlen(warned), sizeof(warned) - strlen(warned),
		 "%s\n", msg);
}

static void reset_warnings(void)
{
	nwarn = 0;
	warned[0] = '\0';
}

static const char *write_conf(const char *text, size_t len)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracer.conf", dir);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

static void test_defaults(void)
{
	struct tracer_config c;

	config_defaults(&c);
	CU_ASSERT_STRING_EQUAL(c.socket_path, "/run/tracer/tracerd.sock");
	CU_ASSERT_EQUAL(c.client_timeout_ms, 200);
	CU_ASSERT_STRING_EQUAL(c.pin_dir, "/sys/fs/bpf/tracer");
	CU_ASSERT_FALSE(c.trace_all);
	CU_ASSERT_EQUAL(c.argv_max, 1024);
	CU_ASSERT_EQUAL(c.sample_interval_ms, 1000);
	CU_ASSERT_STRING_EQUAL(c.rules_path, "/etc/tracer/tools.rules");
	CU_ASSERT_EQUAL(c.keep_procs, 200);
	CU_ASSERT_EQUAL(c.ringbuf_bytes, 4194304u);
	CU_ASSERT_EQUAL(c.max_procs, 65536u);
	CU_ASSERT_EQUAL(c.max_jobs_per_user, 16);
	CU_ASSERT_EQUAL(c.max_procs_per_user, 0u);
	CU_ASSERT_EQUAL(config_procs_per_user(&c), 16384u);
	CU_ASSERT_STRING_EQUAL(c.sinks, "file");
	CU_ASSERT_STRING_EQUAL(c.file_path, "/var/lib/tracer/jobs.ndjson");
	CU_ASSERT_STRING_EQUAL(c.http_url, "");
	CU_ASSERT_EQUAL(c.http_timeout_ms, 5000);
	CU_ASSERT_STRING_EQUAL(c.imds_endpoint, "");
	CU_ASSERT_EQUAL(c.metadata_timeout_ms, 300);
	CU_ASSERT_STRING_EQUAL(c.log_level, "info");
	/* Fargate's list prices: a job on Fargate has a cost out of the box */
	CU_ASSERT_DOUBLE_EQUAL(c.price_fargate_vcpu_hour, 0.04048, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.price_fargate_gb_hour, 0.004445, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.price_cpu_hour, 0, 0);
}

static void test_load_good(void)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"   # indented comment\n"
		"socket = /tmp/t.sock\n"
		"client_timeout_ms=150\n"
		"trace_all = yes\n"
		"argv_max = 4096   # trailing comment\n"
		"sample_interval_ms = 250\r\n"
		"rules = \"/etc/my rules/tools.rules\"\n"
		"keep_procs = 0x10\n"
		"ringbuf_bytes = 1048576\n"
		"max_procs = 2048\n"
		"sinks = file,\thttp \n"
		"file = '/var/log/a#b.ndjson'\n"
		"http_url = https://collector.example/ingest#frag\n"
		"log_level = debug\n"
		"imds_endpoint = http://127.0.0.1:1338\n"
		"\tmetadata_timeout_ms\t=\t500";
	struct tracer_config c;

	config_defaults(&c);
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, write_conf(text, sizeof(text) - 1), false,
				    collect), 0);
	if (nwarn)
		fprintf(stderr, "\n%s", warned);
	CU_ASSERT_EQUAL(nwarn, 0);
	CU_ASSERT_STRING_EQUAL(c.socket_path, "/tmp/t.sock");
	CU_ASSERT_EQUAL(c.client_timeout_ms, 150);
	CU_ASSERT_TRUE(c.trace_all);
	CU_ASSERT_EQUAL(c.argv_max, 4096);
	CU_ASSERT_EQUAL(c.sample_interval_ms, 250);
	CU_ASSERT_STRING_EQUAL(c.rules_path, "/etc/my rules/tools.rules");
	CU_ASSERT_EQUAL(c.keep_procs, 16);
	CU_ASSERT_EQUAL(c.ringbuf_bytes, 1048576u);
	CU_ASSERT_EQUAL(c.max_procs, 2048u);
	CU_ASSERT_STRING_EQUAL(c.sinks, "file,http"); /* canonical form */
	CU_ASSERT_STRING_EQUAL(c.file_path, "/var/log/a#b.ndjson");
	/* '#' without a space before it is part of the value */
	CU_ASSERT_STRING_EQUAL(c.http_url, "https://collector.example/ingest#frag");
	CU_ASSERT_STRING_EQUAL(c.log_level, "debug");
	CU_ASSERT_STRING_EQUAL(c.imds_endpoint, "http://127.0.0.1:1338");
	CU_ASSERT_EQUAL(c.metadata_timeout_ms, 500);
}

/* One bad line: a warning naming the line, the default kept. */
static void bad_line(const char *line, const char *want)
{
	struct tracer_config c, d;
	char text[8192];

	snprintf(text, sizeof(text), "# first line\n%s\n", line);
	config_defaults(&c);
	config_defaults(&d);
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, write_conf(text, strlen(text)), false,
				    collect), 0);
	if (nwarn != 1 || !strstr(warned, want) || !strstr(warned, ":2: "))
		fprintf(stderr, "\n  %.60s: got %d warnings \"%s\", want \"%s\"\n",
			line, nwarn, warned, want);
	CU_ASSERT_EQUAL(nwarn, 1);
	CU_ASSERT(strstr(warned, want) != NULL);
	CU_ASSERT(strstr(warned, ":2: ") != NULL);
	CU_ASSERT_EQUAL(memcmp(&c, &d, sizeof(c)), 0);
}

static void test_bad_lines(void)
{
	char long_line[5000];

	bad_line("no_such_key = 1", "no_such_key: unknown key");
	bad_line("just words", "expected \"key = value\"");
	bad_line("client_timeout_ms = 0", "out of range (1..5000)");
	bad_line("client_timeout_ms = 5001", "out of range");
	bad_line("client_timeout_ms = 10ms", "is not an integer");
	bad_line("client_timeout_ms =", "is not an integer");
	bad_line("argv_max = 63", "out of range (64..4096)");
	bad_line("sample_interval_ms = 99", "out of range (100..60000)");
	bad_line("keep_procs = 100001", "out of range");
	bad_line("keep_procs = -5", "out of range");
	bad_line("keep_procs = 99999999999999999999", "is not an integer");
	bad_line("ringbuf_bytes = 3000000", "not a power of 2");
	bad_line("ringbuf_bytes = 4096", "out of range");
	bad_line("max_procs = 10", "out of range");
	bad_line("trace_all = maybe", "expected true or false");
	bad_line("socket = relative.sock", "expected an absolute path");
	bad_line("socket = /a/very/long/path/that/does/not/fit/into/the/sun_path/"
		 "field/of/a/unix/socket/address/which/is/108/bytes.sock",
		 "path too long for a unix socket");
	bad_line("pin_dir = sys/fs/bpf", "absolute path");
	bad_line("sinks = file,kafka", ":2: sinks: unknown sink \"kafka\"");
	bad_line("sinks = file,file", ":2: sinks: sink \"file\" listed twice");
	bad_line("sinks = ,", ":2: sinks: no sink listed");
	bad_line("http_url = ftp://x", "expected an http:// or https:// URL");
	bad_line("log_level = verbose", "expected debug, info, warn or error");
	bad_line("metrics_listen = 9464", "expected ADDRESS:PORT");
	bad_line("metrics_listen = localhost:9464", "not a numeric IPv4 address");
	bad_line("metrics_listen = 127.0.0.1:0", "port must be 1..65535");
	bad_line("metrics_listen = 127.0.0.1:65536", "port must be 1..65535");
	bad_line("metrics_listen = [::1:9464", "expected [IPv6]:PORT");
	bad_line("metrics_listen = [zz]:9464", "not a numeric IPv6 address");
	bad_line("clickhouse_table = db.t", "unknown key");
	bad_line("file = \"/unterminated", "unbalanced quotes");
	bad_line("file = \"/a\" junk", "unbalanced quotes");
	bad_line("file = /a\x01z", "control character");
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	memcpy(long_line, "file = /", 8);
	bad_line(long_line, "line longer than");
	memset(long_line, 'b', 600);
	memcpy(long_line, "file = /", 8);
	long_line[600] = '\0';
	bad_line(long_line, "value too long");
}

static void test_nul_and_recovery(void)
{
	static const char text[] = "argv_max = 128\nkeep_procs = 5\0junk\n"
				   "log_level = warn\n";
	struct tracer_config c;

	config_defaults(&c);
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, write_conf(text, sizeof(text) - 1), false,
				    collect), 0);
	CU_ASSERT_EQUAL(nwarn, 1);
	CU_ASSERT(strstr(warned, ":2: NUL byte") != NULL);
	/* the lines around the bad one still count */
	CU_ASSERT_EQUAL(c.argv_max, 128);
	CU_ASSERT_EQUAL(c.keep_procs, 200);
	CU_ASSERT_STRING_EQUAL(c.log_level, "warn");
}

/* config_check: every problem counted, each as FILE:LINE: KEY: what. */
static void test_check_strict(void)
{
	struct tracer_config c;
	const char *text = "argv_max = 512\n"
			   "no_such_key = 1\n"
			   "sample_interval_ms = 5\n"
			   "argv_max = 256\n"
			   "log_level = warn\n";
	const char *path = write_conf(text, strlen(text));
	char want[400];

	config_defaults(&c);
	reset_warnings();
	CU_ASSERT_EQUAL(config_check(&c, path, false, collect), 3);
	CU_ASSERT_EQUAL(nwarn, 3);
	snprintf(want, sizeof(want), "%s:2: no_such_key: unknown key\n", path);
	CU_ASSERT(strstr(warned, want) != NULL);
	snprintf(want, sizeof(want), "%s:3: sample_interval_ms: 5 out of range (100..60000)\n", path);
	CU_ASSERT(strstr(warned, want) != NULL);
	snprintf(want, sizeof(want), "%s:4: argv_max: duplicate key (first set on line 1)\n", path);
	CU_ASSERT(strstr(warned, want) != NULL);
	if (nwarn != 3)
		fprintf(stderr, "\n%s", warned);
	CU_ASSERT_EQUAL(c.argv_max, 512); /* the duplicate is not taken */
	CU_ASSERT_STRING_EQUAL(c.log_level, "warn");
	/* leniently: the duplicate warned, the last one wins */
	config_defaults(&c);
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, path, false, collect), 0);
	CU_ASSERT_EQUAL(c.argv_max, 256);
	CU_ASSERT(strstr(warned, "argv_max: duplicate key (first set on line 1); the last one wins") != NULL);
	/* a valid file: no problem */
	text = "argv_max = 512\nsinks = file\n";
	config_defaults(&c);
	reset_warnings();
	CU_ASSERT_EQUAL(config_check(&c, write_conf(text, strlen(text)), false, collect), 0);
	CU_ASSERT_EQUAL(nwarn, 0);
	/* unreadable */
	reset_warnings();
	CU_ASSERT_EQUAL(config_check(&c, "/nonexistent/tracer.conf", false, collect), -1);
	CU_ASSERT(strstr(warned, "/nonexistent/tracer.conf: cannot open: No such file or directory") != NULL);
	CU_ASSERT_EQUAL(config_check(&c, "/nonexistent/tracer.conf", true, collect), 0);
}

static void test_copy_key(void)
{
	struct tracer_config a, b;

	config_defaults(&a);
	config_defaults(&b);
	CU_ASSERT_EQUAL(config_copy_key(&b, &a, "socket"), 0);
	snprintf(b.socket_path, sizeof(b.socket_path), "/run/x/a-much-longer-name.sock");
	snprintf(b.socket_path, sizeof(b.socket_path), "/run/y.sock");
	snprintf(a.socket_path, sizeof(a.socket_path), "/run/y.sock");
	CU_ASSERT_EQUAL(config_copy_key(&b, &a, "socket"), 0); /* bytes after the NUL ignored */
	b.argv_max = 100;
	CU_ASSERT_EQUAL(config_copy_key(&b, &a, "argv_max"), 1);
	CU_ASSERT_EQUAL(b.argv_max, a.argv_max);
	b.flag_cpu_idle_share = 0.9;
	CU_ASSERT_EQUAL(config_copy_key(&b, &a, "flag_cpu_idle_share"), 1);
	CU_ASSERT_EQUAL(config_copy_key(&b, &a, "no_such_key"), -1);
}

static void test_missing_and_unreadable(void)
{
	struct tracer_config c;
	char path[300];

	config_defaults(&c);
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, "/nonexistent/tracer.conf", true, collect), 0);
	CU_ASSERT_EQUAL(nwarn, 0);
	CU_ASSERT_EQUAL(config_load(&c, "/nonexistent/tracer.conf", false, collect), -1);
	CU_ASSERT_EQUAL(nwarn, 1);
	CU_ASSERT(strstr(warned, "/nonexistent/tracer.conf: cannot open: ") != NULL);
	/* a directory cannot be read as a file */
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, dir, true, collect), -1);
	CU_ASSERT_EQUAL(nwarn, 1);
	/* no warn callback: still no crash */
	snprintf(path, sizeof(path), "%s", write_conf("bad line\n", 9));
	CU_ASSERT_EQUAL(config_load(&c, path, false, NULL), 0);
}

static void test_set(void)
{
	struct tracer_config c;
	char err[200];

	config_defaults(&c);
	CU_ASSERT_EQUAL(config_set(&c, "keep_procs", "50", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.keep_procs, 50);
	CU_ASSERT_EQUAL(config_set(&c, "keep_procs", "0", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "keep_procs: 0 out of range (1..100000)") != NULL);
	CU_ASSERT_EQUAL(c.keep_procs, 50);
	CU_ASSERT_EQUAL(config_set(&c, "trace_all", "ON", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(c.trace_all);
	CU_ASSERT_EQUAL(config_set(&c, "trace_all", "0", err, sizeof(err)), 0);
	CU_ASSERT_FALSE(c.trace_all);
	CU_ASSERT_EQUAL(config_set(&c, "argv_max", "010", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "argv_max", "0100", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.argv_max, 100); /* decimal, not octal */
	CU_ASSERT_EQUAL(config_set(&c, "http_url", "", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "metrics_listen", "127.0.0.1:9464", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.metrics_listen, "127.0.0.1:9464");
	CU_ASSERT_EQUAL(config_set(&c, "metrics_listen", "[::1]:18200", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "metrics_listen", "", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.docker_sockets, "/run/docker.sock");
	CU_ASSERT_FALSE(c.metrics_allow_remote);
	CU_ASSERT_EQUAL(config_set(&c, "metrics_allow_remote", "true", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(c.metrics_allow_remote);
	CU_ASSERT_EQUAL(config_set(&c, "metrics_allow_remote", "maybe", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "docker_sockets", "/run/docker.sock, /run/d2.sock", err,
				   sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "docker_sockets", "", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "docker_sockets", "/run/docker.sock,run/d2.sock", err,
				   sizeof(err)), -1);
	CU_ASSERT(strstr(err, "absolute") != NULL);
	CU_ASSERT_EQUAL(config_set(&c, "docker_sockets",
				   "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock", err, sizeof(err)),
			-1);
	/* the docker CLI's files; root in a container is no admin by default */
	CU_ASSERT_STRING_EQUAL(c.docker_clients, "/usr/bin/docker,/usr/local/bin/docker");
	CU_ASSERT_EQUAL(config_set(&c, "docker_clients", "/opt/docker/bin/docker", err,
				   sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.docker_clients, "/opt/docker/bin/docker");
	CU_ASSERT_EQUAL(config_set(&c, "docker_clients", "/usr/bin/docker, docker", err,
				   sizeof(err)), -1);
	CU_ASSERT(strstr(err, "absolute") != NULL);
	CU_ASSERT_FALSE(c.admin_in_containers);
	CU_ASSERT_EQUAL(config_set(&c, "admin_in_containers", "yes", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(c.admin_in_containers);
	CU_ASSERT_EQUAL(config_set(&c, "admin_in_containers", "root", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "true or false") != NULL);
	CU_ASSERT_EQUAL(config_set(&c, "price_fargate_vcpu_hour", "0.05", err, sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(c.price_fargate_vcpu_hour, 0.05, 1e-12);
	CU_ASSERT_EQUAL(config_set(&c, "price_fargate_gb_hour", "0", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "price_fargate_gb_hour", "-1", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "price_fargate_gb_hour: -1 out of range") != NULL);
	CU_ASSERT_EQUAL(config_set(&c, "price_fargate_vcpu_hour", "cheap", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "price_fargate_vcpu_hour: \"cheap\" is not a number") != NULL);
	CU_ASSERT_EQUAL(config_set(&c, "nope", "1", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, NULL, "1", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "keep_procs", "x", NULL, 0), -1);

	/* -o KEY=VALUE, the one parser of all three binaries */
	CU_ASSERT_EQUAL(config_set_pair(&c, "keep_procs=7", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.keep_procs, 7);
	CU_ASSERT_EQUAL(config_set_pair(&c, "file=/a=b", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.file_path, "/a=b"); /* the first '=' splits */
	CU_ASSERT_EQUAL(config_set_pair(&c, "keep_procs", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "\"keep_procs\": expected KEY=VALUE") != NULL);
	CU_ASSERT_EQUAL(config_set_pair(&c, "=5", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set_pair(&c, NULL, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set_pair(&c, "keep_procs=0", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "out of range") != NULL);
	CU_ASSERT_EQUAL(c.keep_procs, 7);
	CU_ASSERT_EQUAL(config_set_pair(&c, "a_key_name_longer_than_sixty_four_bytes_"
					"is_no_key_of_ours_at_all_x=1", err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "unknown key") != NULL);
}

/*
 * contrib/tracer.conf loads cleanly, and with every "# key = value" line
 * uncommented it still equals the defaults: the file documents them
 * truly, and names all 18 keys.
 */
static void test_shipped_file(void)
{
	struct tracer_config c, d;
	char line[1024], *text;
	size_t len = 0;
	int keys = 0;
	FILE *f;

	config_defaults(&c);
	config_defaults(&d);
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, source_file("contrib/tracer.conf"), false,
				    collect), 0);
	CU_ASSERT_EQUAL(nwarn, 0);
	CU_ASSERT_EQUAL(memcmp(&c, &d, sizeof(c)), 0);

	text = calloc(1, 65536);
	CU_ASSERT_FATAL(text != NULL);
	f = fopen(source_file("contrib/tracer.conf"), "r");
	CU_ASSERT_FATAL(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char key[64], eq[2];

		if (sscanf(line, "# %63[a-z_] %1[=]", key, eq) != 2)
			continue;
		keys++;
		len += (size_t)snprintf(text + len, 65536 - len, "%s", line + 2);
	}
	fclose(f);
	CU_ASSERT_EQUAL(keys, (int)config_key_count()); /* every key, shipped as its default */
	reset_warnings();
	CU_ASSERT_EQUAL(config_load(&c, write_conf(text, len), false, collect), 0);
	if (nwarn)
		fprintf(stderr, "\n%s", warned);
	CU_ASSERT_EQUAL(nwarn, 0);
	CU_ASSERT_EQUAL(memcmp(&c, &d, sizeof(c)), 0);
	free(text);
}

/* the delivery keys: sinks, names that go into SQL, optional paths */
static void test_delivery_keys(void)
{
	struct tracer_config c;
	char err[256];

	config_defaults(&c);
	CU_ASSERT_STRING_EQUAL(c.spool_dir, "/var/lib/tracer/spool");
	CU_ASSERT_STRING_EQUAL(c.clickhouse_url, "http://127.0.0.1:8123/");
	CU_ASSERT_STRING_EQUAL(c.clickhouse_database, "tracer");
	CU_ASSERT(c.http_gzip);
	CU_ASSERT_EQUAL(config_set(&c, "sinks", "clickhouse, file ,http", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.sinks, "clickhouse,file,http");
	CU_ASSERT_EQUAL(config_set(&c, "sinks", "file,clickhouse,file", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "clickhouse_database", "db; DROP", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(c.clickhouse_database, "tracer");
	CU_ASSERT_EQUAL(config_set(&c, "clickhouse_user", "tracer_rw", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "http_token_file", "", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "http_token_file", "token", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "http_token_file", "/etc/tracer/token", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "spool_max_bytes", "1000", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "spool_max_bytes", "4294967295", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.spool_max_bytes, 4294967295u);
	CU_ASSERT_EQUAL(config_set(&c, "file_max_bytes", "0", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_set(&c, "file_keep", "0", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "retry_max_ms", "999", err, sizeof(err)), -1);
	/* what one datalake query may use on the server: 1 MiB .. 4 GiB - 1 */
	CU_ASSERT_EQUAL(c.datalake_max_memory, 1u << 30);
	CU_ASSERT_EQUAL(config_set(&c, "datalake_max_memory", "1048575", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(c.datalake_max_memory, 1u << 30);
	CU_ASSERT_EQUAL(config_set(&c, "datalake_max_memory", "1048576", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.datalake_max_memory, 1048576u);
	CU_ASSERT_EQUAL(config_set(&c, "datalake_max_memory", "4294967296", err, sizeof(err)), -1);
}

/* loopback_is WANT ADDR: netaddr_is_loopback of a parsed listen address */
static void loopback_is(bool want, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[128];

	CU_ASSERT_EQUAL_FATAL(netaddr_parse(addr, &ss, &len, err, sizeof(err)), 0);
	if (netaddr_is_loopback(&ss) != want)
		fprintf(stderr, "\n  %s: loopback %d, want %d\n", addr, !want, want);
	CU_ASSERT_EQUAL(netaddr_is_loopback(&ss), want);
}

static void test_metrics_loopback(void)
{
	loopback_is(true, "127.0.0.1:9464");
	loopback_is(true, "127.1.2.3:9464");
	loopback_is(true, "[::1]:9464");
	loopback_is(true, "[::ffff:127.0.0.1]:9464");
	loopback_is(false, "0.0.0.0:9464");
	loopback_is(false, "[::]:9464");
	loopback_is(false, "10.0.0.1:9464");
	loopback_is(false, "128.0.0.1:9464");
	loopback_is(false, "[::ffff:10.0.0.1]:9464");
	loopback_is(false, "[fe80::1]:9464");
}

/* the per-user shares: ranges, and a process cap always below the table */
static void test_user_share_keys(void)
{
	struct tracer_config c;
	char err[256];

	config_defaults(&c);
	CU_ASSERT_EQUAL(config_set(&c, "max_jobs_per_user", "0", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "max_jobs_per_user", "4097", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(config_set(&c, "max_jobs_per_user", "3", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.max_jobs_per_user, 3);
	CU_ASSERT_EQUAL(config_procs_all_users(&c), 49152u); /* a quarter stays root's */
	CU_ASSERT_EQUAL(config_set(&c, "max_procs", "1024", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_procs_per_user(&c), 256u);
	CU_ASSERT_EQUAL(config_procs_all_users(&c), 768u);
	CU_ASSERT_EQUAL(config_set(&c, "max_procs_per_user", "100", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_procs_per_user(&c), 100u);
	/* not below the table: a quarter of it, never the whole */
	CU_ASSERT_EQUAL(config_set(&c, "max_procs_per_user", "1024", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(config_procs_per_user(&c), 256u);
	CU_ASSERT_EQUAL(config_set(&c, "max_procs_per_user", "4194305", err, sizeof(err)), -1);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"per-user share keys", test_user_share_keys},
		{"defaults", test_defaults},
		{"good file", test_load_good},
		{"bad lines", test_bad_lines},
		{"NUL byte", test_nul_and_recovery},
		{"missing file", test_missing_and_unreadable},
		{"strict check", test_check_strict},
		{"copy a key", test_copy_key},
		{"config_set", test_set},
		{"shipped tracer.conf", test_shipped_file},
		{"delivery keys", test_delivery_keys},
		{"metrics_listen: loopback", test_metrics_loopback},
	};
	int rc;

	if (unit_make_dir(dir) < 0)
		return 1;
	rc = UNIT_RUN("config", tests);
	unit_remove_dir(dir);
	return rc;
}
