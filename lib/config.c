/*
 * config.c - tracer.conf's keys: their defaults, and a parser for each
 * that checks its range (config_set).  Reading a file of "key = value"
 * lines is config_file.c.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "defaults.h"
#include "errmsg.h"
#include "netaddr.h"

enum kind { K_PATH, K_URL, K_INT, K_UINT_POW2, K_UINT, K_BOOL,
	    K_SINKS, K_LEVEL, K_LISTEN, K_OPT_PATH, K_NAME, K_DOUBLE, K_GROUP,
	    K_SOCKETS, K_PATHS, K_GPU_ACCT, K_DATALAKE, K_MODE };

struct key_def {
	const char *name;
	enum kind kind;
	size_t off, size;   /* member offset and size */
	long long min, max; /* K_INT, K_UINT, K_UINT_POW2 */
};

#define M(f) offsetof(struct tracer_config, f), \
	     sizeof(((struct tracer_config *)0)->f)

static const struct key_def keys[] = {
	{"socket", K_PATH, M(socket_path), 0, 0},
	{"client_timeout_ms", K_INT, M(client_timeout_ms), 1, 5000},
	{"pin_dir", K_PATH, M(pin_dir), 0, 0},
	{"trace_all", K_BOOL, M(trace_all), 0, 0},
	{"argv_max", K_INT, M(argv_max), 64, TRACER_ARGV_MAX},
	{"sample_interval_ms", K_INT, M(sample_interval_ms), 100, 60000},
	{"rules", K_PATH, M(rules_path), 0, 0},
	{"keep_procs", K_INT, M(keep_procs), 1, 100000},
	{"ringbuf_bytes", K_UINT_POW2, M(ringbuf_bytes), 65536, 1LL << 30},
	{"max_procs", K_UINT, M(max_procs), 1024, 4194304},
	{"sinks", K_SINKS, M(sinks), 0, 0},
	{"file", K_PATH, M(file_path), 0, 0},
	{"http_url", K_URL, M(http_url), 0, 0},
	{"http_timeout_ms", K_INT, M(http_timeout_ms), 100, 120000},
	{"imds_endpoint", K_URL, M(imds_endpoint), 0, 0},
	{"metadata_timeout_ms", K_INT, M(metadata_timeout_ms), 10, 1000},
	{"log_level", K_LEVEL, M(log_level), 0, 0},
	{"metrics_listen", K_LISTEN, M(metrics_listen), 0, 0},
	{"metrics_allow_remote", K_BOOL, M(metrics_allow_remote), 0, 0},
	{"spool_dir", K_PATH, M(spool_dir), 0, 0},
	{"spool_max_bytes", K_UINT, M(spool_max_bytes), 65536, 4294967295LL},
	{"file_max_bytes", K_UINT, M(file_max_bytes), 0, 4294967295LL},
	{"file_keep", K_INT, M(file_keep), 1, 1000},
	{"retry_max_ms", K_INT, M(retry_max_ms), 1000, 3600000},
	{"http_token_file", K_OPT_PATH, M(http_token_file), 0, 0},
	{"http_ca_file", K_OPT_PATH, M(http_ca_file), 0, 0},
	{"http_gzip", K_BOOL, M(http_gzip), 0, 0},
	{"clickhouse_url", K_URL, M(clickhouse_url), 0, 0},
	{"clickhouse_database", K_NAME, M(clickhouse_database), 0, 0},
	{"clickhouse_user", K_NAME, M(clickhouse_user), 0, 0},
	{"clickhouse_password_file", K_OPT_PATH, M(clickhouse_password_file), 0, 0},
	{"datalake", K_DATALAKE, M(datalake), 0, 0},
	{"datalake_max_memory", K_UINT, M(datalake_max_memory), 1048576, 4294967295LL},
	{"mode", K_MODE, M(mode), 0, 0},
	{"max_procs_per_job", K_UINT, M(max_procs_per_job), 0, 4194304},
	{"max_procs_per_user", K_UINT, M(max_procs_per_user), 0, 4194304},
	{"max_jobs_per_user", K_INT, M(max_jobs_per_user), 1, 4096},
	{"state_dir", K_PATH, M(state_dir), 0, 0},
	{"mail_command", K_PATH, M(mail_command), 0, 0},
	{"resume", K_BOOL, M(resume), 0, 0},
	{"advice_min_runtime_s", K_INT, M(advice_min_runtime_s), 0, 31536000},
	{"flag_memory_over_share", K_DOUBLE, M(flag_memory_over_share), 0, 1},
	{"flag_memory_near_share", K_DOUBLE, M(flag_memory_near_share), 0, 1},
	{"flag_cpu_idle_share", K_DOUBLE, M(flag_cpu_idle_share), 0, 1},
	{"flag_cpu_bound_share", K_DOUBLE, M(flag_cpu_bound_share), 0, 1},
	{"flag_contended_share", K_DOUBLE, M(flag_contended_share), 0, 1},
	{"flag_io_bound_share", K_DOUBLE, M(flag_io_bound_share), 0, 1},
	{"flag_io_bound_min_bytes_per_s", K_UINT, M(flag_io_bound_min_bytes_per_s), 0, 4294967295LL},
	{"flag_time_over_share", K_DOUBLE, M(flag_time_over_share), 0, 1},
	{"flag_sleeping_share", K_DOUBLE, M(flag_sleeping_share), 0, 1},
	{"stall_threshold_s", K_INT, M(stall_threshold_s), 1, 31536000},
	{"price_cpu_hour", K_DOUBLE, M(price_cpu_hour), 0, 1000000},
	{"price_gb_hour", K_DOUBLE, M(price_gb_hour), 0, 1000000},
	{"price_instance_hour", K_DOUBLE, M(price_instance_hour), 0, 1000000},
	{"flag_slower_factor", K_DOUBLE, M(flag_slower_factor), 1, 100},
	{"idle_host_cpu_share", K_DOUBLE, M(idle_host_cpu_share), 0, 1},
	{"idle_host_after_s", K_INT, M(idle_host_after_s), 1, 31536000},
	{"admin_group", K_GROUP, M(admin_group), 0, 0},
	{"container_storage", K_OPT_PATH, M(container_storage), 0, 0},
	{"docker_sockets", K_SOCKETS, M(docker_sockets), 0, 0},
	{"docker_clients", K_PATHS, M(docker_clients), 0, 0},
	{"admin_in_containers", K_BOOL, M(admin_in_containers), 0, 0},
	{"flag_network_bound_share", K_DOUBLE, M(flag_network_bound_share), 0, 1},
	{"flag_network_min_bytes", K_UINT, M(flag_network_min_bytes), 0, 4294967295LL},
	{"test_no_sock_length", K_BOOL, M(test_no_sock_length), 0, 0},
	{"price_spot_instance_hour", K_DOUBLE, M(price_spot_instance_hour), 0, 1000000},
	{"price_fargate_vcpu_hour", K_DOUBLE, M(price_fargate_vcpu_hour), 0, 1000000},
	{"price_fargate_gb_hour", K_DOUBLE, M(price_fargate_gb_hour), 0, 1000000},
	{"gpu_accounting", K_GPU_ACCT, M(gpu_accounting), 0, 0},
	{"flag_gpu_idle_share", K_DOUBLE, M(flag_gpu_idle_share), 0, 1},
	{"flag_gpu_memory_over_share", K_DOUBLE, M(flag_gpu_memory_over_share), 0, 1},
	{"flag_gpu_underused_share", K_DOUBLE, M(flag_gpu_underused_share), 0, 1},
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const struct key_def *find_key(const char *name);

size_t config_key_count(void)
{
	return NKEYS;
}

const char *config_key_name(size_t i)
{
	return i < NKEYS ? keys[i].name : NULL;
}

int config_key_index(const char *name)
{
	const struct key_def *k = find_key(name);

	return k ? (int)(k - keys) : -1;
}

void config_defaults(struct tracer_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->socket_path, sizeof(cfg->socket_path), "%s",
		 TRACER_DEFAULT_SOCKET);
	cfg->client_timeout_ms = TRACER_DEFAULT_TIMEOUT_MS;
	snprintf(cfg->pin_dir, sizeof(cfg->pin_dir), "%s", TRACER_DEFAULT_PIN_DIR);
	cfg->trace_all = false;
	cfg->argv_max = TRACER_DEFAULT_ARGV_MAX;
	cfg->sample_interval_ms = TRACER_DEFAULT_SAMPLE_MS;
	snprintf(cfg->rules_path, sizeof(cfg->rules_path), "%s",
		 TRACER_DEFAULT_RULES);
	cfg->keep_procs = TRACER_DEFAULT_KEEP_PROCS;
	cfg->ringbuf_bytes = TRACER_DEFAULT_RINGBUF_BYTES;
	cfg->max_procs = TRACER_DEFAULT_MAX_PROCS;
	cfg->max_procs_per_job = TRACER_DEFAULT_MAX_PROCS_PER_JOB;
	cfg->max_procs_per_user = TRACER_DEFAULT_MAX_PROCS_PER_USER;
	cfg->max_jobs_per_user = TRACER_DEFAULT_MAX_JOBS_PER_USER;
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", TRACER_DEFAULT_STATE_DIR);
	snprintf(cfg->mail_command, sizeof(cfg->mail_command), "%s", TRACER_DEFAULT_MAIL_COMMAND);
	cfg->resume = true;
	snprintf(cfg->container_storage, sizeof(cfg->container_storage), "%s",
		 TRACER_DEFAULT_CONTAINER_STORAGE);
	snprintf(cfg->docker_sockets, sizeof(cfg->docker_sockets), "%s",
		 TRACER_DEFAULT_DOCKER_SOCKETS);
	snprintf(cfg->docker_clients, sizeof(cfg->docker_clients), "%s",
		 TRACER_DEFAULT_DOCKER_CLIENTS);
	cfg->admin_in_containers = false;
	snprintf(cfg->gpu_accounting, sizeof(cfg->gpu_accounting), "%s",
		 TRACER_DEFAULT_GPU_ACCOUNTING);
	cfg->flag_gpu_idle_share = TRACER_DEFAULT_FLAG_GPU_IDLE_SHARE;
	cfg->flag_gpu_memory_over_share = TRACER_DEFAULT_FLAG_GPU_MEMORY_OVER_SHARE;
	cfg->flag_gpu_underused_share = TRACER_DEFAULT_FLAG_GPU_UNDERUSED_SHARE;
	snprintf(cfg->sinks, sizeof(cfg->sinks), "%s", TRACER_DEFAULT_SINKS);
	snprintf(cfg->file_path, sizeof(cfg->file_path), "%s",
		 TRACER_DEFAULT_FILE);
	cfg->http_timeout_ms = TRACER_DEFAULT_HTTP_TIMEOUT_MS;
	cfg->metadata_timeout_ms = TRACER_DEFAULT_METADATA_TIMEOUT_MS;
	snprintf(cfg->log_level, sizeof(cfg->log_level), "%s",
		 TRACER_DEFAULT_LOG_LEVEL);
	snprintf(cfg->spool_dir, sizeof(cfg->spool_dir), "%s", TRACER_DEFAULT_SPOOL_DIR);
	cfg->spool_max_bytes = TRACER_DEFAULT_SPOOL_MAX_BYTES;
	cfg->datalake_max_memory = TRACER_DEFAULT_DATALAKE_MAX_MEMORY;
	cfg->file_max_bytes = TRACER_DEFAULT_FILE_MAX_BYTES;
	cfg->file_keep = TRACER_DEFAULT_FILE_KEEP;
	cfg->retry_max_ms = TRACER_DEFAULT_RETRY_MAX_MS;
	cfg->http_gzip = true;
	cfg->metrics_allow_remote = TRACER_DEFAULT_METRICS_ALLOW_REMOTE;
	snprintf(cfg->clickhouse_url, sizeof(cfg->clickhouse_url), "%s",
		 TRACER_DEFAULT_CLICKHOUSE_URL);
	snprintf(cfg->clickhouse_database, sizeof(cfg->clickhouse_database), "%s",
		 TRACER_DEFAULT_CLICKHOUSE_DB);
	snprintf(cfg->datalake, sizeof(cfg->datalake), "%s", TRACER_DEFAULT_DATALAKE);
	snprintf(cfg->mode, sizeof(cfg->mode), "%s", TRACER_DEFAULT_MODE);
	cfg->advice_min_runtime_s = TRACER_DEFAULT_ADVICE_MIN_RUNTIME_S;
	cfg->flag_memory_over_share = TRACER_DEFAULT_FLAG_MEMORY_OVER_SHARE;
	cfg->flag_memory_near_share = TRACER_DEFAULT_FLAG_MEMORY_NEAR_SHARE;
	cfg->flag_cpu_idle_share = TRACER_DEFAULT_FLAG_CPU_IDLE_SHARE;
	cfg->flag_cpu_bound_share = TRACER_DEFAULT_FLAG_CPU_BOUND_SHARE;
	cfg->flag_contended_share = TRACER_DEFAULT_FLAG_CONTENDED_SHARE;
	cfg->flag_io_bound_share = TRACER_DEFAULT_FLAG_IO_BOUND_SHARE;
	cfg->flag_io_bound_min_bytes_per_s = TRACER_DEFAULT_FLAG_IO_BOUND_MIN_BYTES_PER_S;
	cfg->flag_time_over_share = TRACER_DEFAULT_FLAG_TIME_OVER_SHARE;
	cfg->flag_sleeping_share = TRACER_DEFAULT_FLAG_SLEEPING_SHARE;
	cfg->stall_threshold_s = TRACER_DEFAULT_STALL_THRESHOLD_S;
	cfg->flag_slower_factor = TRACER_DEFAULT_FLAG_SLOWER_FACTOR;
	cfg->flag_network_bound_share = TRACER_DEFAULT_FLAG_NETWORK_BOUND_SHARE;
	cfg->flag_network_min_bytes = TRACER_DEFAULT_FLAG_NETWORK_MIN_BYTES;
	cfg->idle_host_cpu_share = TRACER_DEFAULT_IDLE_HOST_CPU_SHARE;
	cfg->idle_host_after_s = TRACER_DEFAULT_IDLE_HOST_AFTER_S;
	cfg->price_fargate_vcpu_hour = TRACER_DEFAULT_PRICE_FARGATE_VCPU_HOUR;
	cfg->price_fargate_gb_hour = TRACER_DEFAULT_PRICE_FARGATE_GB_HOUR;
}

unsigned config_procs_per_user(const struct tracer_config *cfg)
{
	unsigned v = cfg->max_procs_per_user;

	/* always below the table's size: a user never fills it */
	if (!v || v >= cfg->max_procs)
		v = cfg->max_procs / TRACER_PROCS_USER_SHARE;
	return v;
}

unsigned config_procs_all_users(const struct tracer_config *cfg)
{
	return cfg->max_procs - cfg->max_procs / TRACER_PROCS_ROOT_RESERVE;
}

static int parse_integer(const char *v, long long *out)
{
	char *end;

	if (!*v)
		return -1;
	errno = 0;
	/* base 10, or hex with 0x: a leading zero must not mean octal */
	*out = strtoll(v, &end,
		       v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10);
	return errno || *end ? -1 : 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/*
 * "file", "file,http", "http, file": known names, no repeats.
 * The value is stored in one canonical form ("file,http") so that readers
 * need not know every separator.
 */
static int set_sinks(char *dst, size_t size, const char *v, char *err,
		     size_t errlen)
{
	static const char *const names[] = {"file", "http", "clickhouse"};
	int seen[3] = {0, 0, 0}, count = 0;
	const char *p = v;
	char out[64] = "";

	while (*p) {
		size_t n;
		int found = -1;

		p += strspn(p, " \t,");
		n = strcspn(p, " \t,");
		if (n == 0)
			break;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
				found = i;
		if (found < 0)
			return errmsg_fail(err, errlen,
					"sinks: unknown sink \"%.*s\" (known: file, http, clickhouse)",
					(int)(n > 40 ? 40 : n), p);
		if (seen[found]++)
			return errmsg_fail(err, errlen, "sinks: sink \"%s\" listed twice",
					names[found]);
		/* at most "file,http,clickhouse": always fits */
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
			 count ? "," : "", names[found]);
		count++;
		p += n;
	}
	if (count == 0)
		return errmsg_fail(err, errlen,
				"sinks: no sink listed (at least one of file, http, clickhouse)");
	snprintf(dst, size, "%s", out);
	return 0;
}

static int check_string(const struct key_def *k, const char *v, char *err,
			size_t errlen)
{
	size_t n = strlen(v);

	if (n >= k->size)
		return errmsg_fail(err, errlen, "%s: value too long (at most %zu bytes)",
				k->name, k->size - 1);
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return errmsg_fail(err, errlen,
					"%s: control character in value", k->name);
	switch (k->kind) {
	case K_PATH:
		if (v[0] != '/')
			return errmsg_fail(err, errlen,
					"%s: expected an absolute path", k->name);
		if (strcmp(k->name, "socket") == 0 &&
		    n >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return errmsg_fail(err, errlen,
					"socket: path too long for a unix socket (at most %zu bytes)",
					sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		break;
	case K_URL:
		if (n && strncmp(v, "http://", 7) != 0 &&
		    strncmp(v, "https://", 8) != 0)
			return errmsg_fail(err, errlen,
					"%s: expected an http:// or https:// URL (or nothing)",
					k->name);
		break;
	case K_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t len;
		char why[128];

		if (n && netaddr_parse(v, &ss, &len, why, sizeof(why)) != 0)
			return errmsg_fail(err, errlen, "%s: %s (or nothing: off)", k->name, why);
		break;
	}
	case K_OPT_PATH:
		if (n && v[0] != '/')
			return errmsg_fail(err, errlen,
					"%s: expected an absolute path (or nothing)", k->name);
		break;
	case K_SOCKETS:
		/* Unix socket paths, separated by commas or spaces (none: off) */
		for (const char *p = v; *p;) {
			size_t w = strcspn(p, ", ");

			if (w && p[0] != '/')
				return errmsg_fail(err, errlen,
						"%s: expected absolute paths of Unix sockets, "
						"separated by commas (or nothing)", k->name);
			if (w >= sizeof(((struct sockaddr_un *)0)->sun_path))
				return errmsg_fail(err, errlen,
						"%s: path too long for a unix socket (at most %zu bytes)",
						k->name, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
			p += w;
			p += strspn(p, ", ");
		}
		break;
	case K_PATHS:
		/* absolute paths, separated by commas or spaces (none: none) */
		for (const char *p = v; *p;) {
			size_t w = strcspn(p, ", ");

			if (w && p[0] != '/')
				return errmsg_fail(err, errlen,
						"%s: expected absolute paths, separated by commas "
						"(or nothing)", k->name);
			p += w;
			p += strspn(p, ", ");
		}
		break;
	case K_NAME:
		/* goes into SQL and HTTP headers: a plain identifier only */
		if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
			return errmsg_fail(err, errlen,
					"%s: letters, digits and _ only", k->name);
		break;
	case K_GROUP:
		/* a group name as useradd takes it (empty: none) */
		if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n ||
		    v[0] == '-')
			return errmsg_fail(err, errlen,
					"%s: a group name (letters, digits, _ . -)", k->name);
		break;
	case K_DATALAKE:
		if (strcmp(v, "none") && strcmp(v, "clickhouse"))
			return errmsg_fail(err, errlen, "datalake: expected none or clickhouse");
		break;
	case K_MODE:
		if (strcmp(v, "full") && strcmp(v, "reader"))
			return errmsg_fail(err, errlen, "mode: expected full or reader");
		break;
	case K_GPU_ACCT:
		if (strcmp(v, "enable") && strcmp(v, "leave"))
			return errmsg_fail(err, errlen,
					"gpu_accounting: expected enable or leave");
		break;
	case K_LEVEL:
		if (strcmp(v, "debug") && strcmp(v, "info") &&
		    strcmp(v, "warn") && strcmp(v, "error"))
			return errmsg_fail(err, errlen,
					"log_level: expected debug, info, warn or error");
		break;
	default:
		break;
	}
	return 0;
}

static int set_number(struct tracer_config *cfg, const struct key_def *k,
		      const char *v, char *err, size_t errlen)
{
	char *dst = (char *)cfg + k->off;
	long long n;

	if (parse_integer(v, &n) < 0)
		return errmsg_fail(err, errlen, "%s: \"%.40s\" is not an integer",
				k->name, v);
	if (n < k->min || n > k->max)
		return errmsg_fail(err, errlen, "%s: %lld out of range (%lld..%lld)",
				k->name, n, k->min, k->max);
	if (k->kind == K_UINT_POW2 && (n & (n - 1)) != 0)
		return errmsg_fail(err, errlen, "%s: %lld is not a power of 2",
				k->name, n);
	if (k->kind == K_INT)
		*(int *)dst = (int)n;
	else
		*(unsigned *)dst = (unsigned)n;
	return 0;
}

/* A decimal number within [min, max] (shares 0..1, prices). */
static int set_double(const struct key_def *k, char *dst, const char *v,
		      char *err, size_t errlen)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (!*v || *end || errno || d != d)
		return errmsg_fail(err, errlen, "%s: \"%.40s\" is not a number", k->name, v);
	if (d < (double)k->min || d > (double)k->max)
		return errmsg_fail(err, errlen, "%s: %g out of range (%lld..%lld)",
				k->name, d, k->min, k->max);
	/* dst points into the config struct as bytes: no aliased store */
	memcpy(dst, &d, sizeof(d));
	return 0;
}

static const struct key_def *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

int config_copy_key(struct tracer_config *dst, const struct tracer_config *src,
		    const char *key)
{
	const struct key_def *k = find_key(key);
	char *d;
	const char *from;
	bool differ;

	if (!k)
		return -1;
	d = (char *)dst + k->off;
	from = (const char *)src + k->off;
	switch (k->kind) {
	case K_INT: case K_UINT: case K_UINT_POW2: case K_BOOL: case K_DOUBLE:
		differ = memcmp(d, from, k->size) != 0;
		memcpy(d, from, k->size);
		break;
	default: /* strings: bytes after the NUL may differ */
		differ = strcmp(d, from) != 0;
		memcpy(d, from, strlen(from) + 1);
		break;
	}
	return differ;
}

int config_set(struct tracer_config *cfg, const char *key, const char *value,
	       char *err, size_t errlen)
{
	const struct key_def *k;
	char *dst;
	bool b;

	if (!key || !value)
		return errmsg_fail(err, errlen, "missing key or value");
	k = find_key(key);
	if (!k)
		return errmsg_fail(err, errlen, "%.64s: unknown key", key);
	dst = (char *)cfg + k->off;
	switch (k->kind) {
	case K_INT:
	case K_UINT:
	case K_UINT_POW2:
		return set_number(cfg, k, value, err, errlen);
	case K_BOOL:
		if (parse_bool(value, &b) < 0)
			return errmsg_fail(err, errlen,
					"%s: expected true or false", k->name);
		*(bool *)dst = b;
		return 0;
	case K_SINKS:
		return set_sinks(dst, k->size, value, err, errlen);
	case K_DOUBLE:
		return set_double(k, dst, value, err, errlen);
	default:
		if (check_string(k, value, err, errlen) < 0)
			return -1;
		memcpy(dst, value, strlen(value) + 1);
		return 0;
	}
}

int config_set_pair(struct tracer_config *cfg, const char *pair, char *err,
		    size_t errlen)
{
	const char *eq = pair ? strchr(pair, '=') : NULL;
	char key[64];
	size_t klen;

	if (!eq || eq == pair)
		return errmsg_fail(err, errlen, "\"%s\": expected KEY=VALUE",
				pair ? pair : "");
	klen = (size_t)(eq - pair);
	if (klen >= sizeof(key))
		return errmsg_fail(err, errlen, "unknown key \"%.32s...\"", pair);
	memcpy(key, pair, klen);
	key[klen] = '\0';
	return config_set(cfg, key, eq + 1, err, errlen);
}

bool config_key_is_path(const char *key)
{
	const struct key_def *k = key ? find_key(key) : NULL;

	return k && (k->kind == K_PATH || k->kind == K_OPT_PATH);
}
