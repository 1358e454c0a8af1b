/*
 * cmd_datalake.c - `tracer datalake migrate [--dry-run] [--dir DIR]` and
 * `tracer datalake status`: the datalake's schema on the configured
 * ClickHouse (clickhouse_url, clickhouse_user, clickhouse_password_file).
 * migrate applies, in order, the migration files (NNN_name.sql) the
 * datalake lacks, statement by statement over the HTTP interface, and
 * records each in schema_version; a datalake at a version beyond the
 * files is left alone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clickhouse.h"
#include "defaults.h"

#define DL_TIMEOUT_MS 60000      /* one statement (an ALTER of a large table returns at once) */
#define DL_MAX_FILES 256
#define DL_MAX_FILE_BYTES (1u << 20) /* a migration file is a page of SQL */

struct migration {
	unsigned version;
	char name[256];
};

struct apply_ctx {
	const struct tracer_config *cfg;
	const char *settings;
	const char *file;
	bool dry_run;
	int done;
};

static int by_version(const void *a, const void *b)
{
	const struct migration *x = a, *y = b;
	return x->version < y->version ? -1 : x->version > y->version;
}

/* NNN_name.sql files of dir, by version; -1 after a message */
static int list_migrations(const char *dir, struct migration *m, size_t max, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*n = 0;
	if (!d) {
		fprintf(stderr, "tracer datalake: the migrations %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		unsigned v;
		int end = 0;
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".sql") ||
		    sscanf(e->d_name, "%u_%n", &v, &end) != 1 || end == 0 || v == 0 ||
		    len >= sizeof(m->name))
			continue;
		if (*n == max) {
			fprintf(stderr, "tracer datalake: more than %zu migrations in %s\n", max, dir);
			closedir(d);
			return -1;
		}
		m[*n].version = v;
		snprintf(m[*n].name, sizeof(m->name), "%s", e->d_name);
		(*n)++;
	}
	closedir(d);
	qsort(m, *n, sizeof(*m), by_version);
	for (size_t i = 1; i < *n; i++)
		if (m[i].version == m[i - 1].version) {
			fprintf(stderr, "tracer datalake: %s and %s have the same version\n",
				m[i - 1].name, m[i].name);
			return -1;
		}
	return 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		fprintf(stderr, "tracer datalake: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(DL_MAX_FILE_BYTES + 1);
	n = buf ? fread(buf, 1, DL_MAX_FILE_BYTES + 1, f) : 0;
	if (!buf || ferror(f) || n > DL_MAX_FILE_BYTES) {
		fprintf(stderr, "tracer datalake: %s: %s\n", path,
			!buf ? "out of memory" : ferror(f) ? strerror(errno) : "larger than 1 MiB");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static int apply_statement(void *arg, const char *stmt)
{
	struct apply_ctx *a = arg;
	char err[512];

	a->done++;
	if (a->dry_run) {
		printf("%s;\n\n", stmt);
		return 0;
	}
	if (clickhouse_exec(a->cfg, stmt, a->settings, DL_TIMEOUT_MS, NULL, NULL, err,
			    sizeof(err)) != 0) {
		fprintf(stderr, "tracer datalake: %s, statement %d: %s\n", a->file, a->done, err);
		return -1;
	}
	return 0;
}

/* the version recorded, in case the file did not record itself */
static int record(const struct tracer_config *cfg, const struct migration *m)
{
	char sql[512], err[512];
	unsigned now;

	if (clickhouse_schema_version(cfg, DL_TIMEOUT_MS, &now, err, sizeof(err)) != 0) {
		fprintf(stderr, "tracer datalake: after %s: %s\n", m->name, err);
		return -1;
	}
	if (now >= m->version)
		return 0;
	snprintf(sql, sizeof(sql),
		 "INSERT INTO %s.schema_version SELECT %u, now(), '%.*s'", cfg->clickhouse_database,
		 m->version, (int)strcspn(m->name, "'\\"), m->name);
	if (clickhouse_exec(cfg, sql, NULL, DL_TIMEOUT_MS, NULL, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "tracer datalake: recording %s: %s\n", m->name, err);
		return -1;
	}
	return 0;
}

static int apply(const struct tracer_config *cfg, const char *dir, const struct migration *m,
		 const char *settings, bool dry_run)
{
	char path[4096];
	struct apply_ctx a = {.cfg = cfg, .settings = settings, .file = m->name,
			      .dry_run = dry_run};

	snprintf(path, sizeof(path), "%s/%s", dir, m->name);
	char *sql = read_file(path);
	if (!sql)
		return -1;
	printf("%s %s\n", dry_run ? "would apply" : "applying", m->name);
	fflush(stdout);
	int rc = clickhouse_statements(sql, apply_statement, &a);
	free(sql);
	if (rc != 0)
		return -1;
	return dry_run ? 0 : record(cfg, m);
}

static int migrate(struct cli *c, const char *dir, bool dry_run)
{
	struct migration *m = calloc(DL_MAX_FILES, sizeof(*m));
	struct clickhouse_server srv;
	char err[512], settings[256];
	unsigned now;
	size_t n;
	int rc = 1, applied = 0;

	if (!m) {
		fprintf(stderr, "tracer datalake: out of memory\n");
		return 1;
	}
	if (strcmp(c->cfg.clickhouse_database, TRACER_DEFAULT_CLICKHOUSE_DB)) {
		fprintf(stderr, "tracer datalake: the migrations make database %s, "
			"clickhouse_database is %s\n", TRACER_DEFAULT_CLICKHOUSE_DB,
			c->cfg.clickhouse_database);
		goto out;
	}
	if (list_migrations(dir, m, DL_MAX_FILES, &n) != 0)
		goto out;
	if (clickhouse_server_version(&c->cfg, DL_TIMEOUT_MS, &srv, err, sizeof(err)) != 0 ||
	    clickhouse_schema_version(&c->cfg, DL_TIMEOUT_MS, &now, err, sizeof(err)) != 0) {
		fprintf(stderr, "tracer datalake: %s: %s\n", c->cfg.clickhouse_url, err);
		goto out;
	}
	if (n == 0 || now > m[n - 1].version) {
		fprintf(stderr, "tracer datalake: the datalake is at version %u, the migrations "
			"in %s go to %u: nothing done\n", now, dir, n ? m[n - 1].version : 0);
		goto out;
	}
	clickhouse_settings(&srv, CLICKHOUSE_DDL, settings, sizeof(settings));
	printf("ClickHouse %d.%d, schema version %u\n", srv.major, srv.minor, now);
	for (size_t i = 0; i < n; i++) {
		if (m[i].version <= now)
			continue;
		if (apply(&c->cfg, dir, &m[i], settings, dry_run) != 0)
			goto out;
		applied++;
	}
	if (applied == 0)
		printf("up to date: version %u\n", now);
	else if (!dry_run)
		printf("schema version %u\n", m[n - 1].version);
	rc = 0;
out:
	free(m);
	return rc;
}

/* version and the rows and bytes of every table of the database */
static int status(struct cli *c)
{
	struct clickhouse_server srv;
	char err[512], sql[512], *parts = NULL;
	unsigned now;

	if (clickhouse_server_version(&c->cfg, DL_TIMEOUT_MS, &srv, err, sizeof(err)) != 0 ||
	    clickhouse_schema_version(&c->cfg, DL_TIMEOUT_MS, &now, err, sizeof(err)) != 0) {
		fprintf(stderr, "tracer datalake: %s: %s\n", c->cfg.clickhouse_url, err);
		return 1;
	}
	snprintf(sql, sizeof(sql),
		 "SELECT table, sum(rows), sum(bytes_on_disk) FROM system.parts WHERE active AND "
		 "database = '%s' GROUP BY table ORDER BY table FORMAT TSV",
		 c->cfg.clickhouse_database);
	if (clickhouse_exec(&c->cfg, sql, NULL, DL_TIMEOUT_MS, &parts, NULL, err,
			    sizeof(err)) != 0) {
		fprintf(stderr, "tracer datalake: %s\n", err);
		return 1;
	}
	cJSON *o = cJSON_CreateObject(), *tables = cJSON_AddArrayToObject(o, "tables");
	char version[32];
	snprintf(version, sizeof(version), "%d.%d", srv.major, srv.minor);
	cJSON_AddStringToObject(o, "server", version);
	cJSON_AddNumberToObject(o, "schema_version", now);
	cJSON_AddNumberToObject(o, "tracer_schema", TRACER_CLICKHOUSE_SCHEMA);
	for (char *line = strtok(parts, "\n"); line; line = strtok(NULL, "\n")) {
		char t[128];
		unsigned long long rows, bytes;
		if (sscanf(line, "%127s %llu %llu", t, &rows, &bytes) != 3)
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "table", t);
		cJSON_AddNumberToObject(e, "rows", (double)rows);
		cJSON_AddNumberToObject(e, "bytes", (double)bytes);
		cJSON_AddItemToArray(tables, e);
	}
	free(parts);
	if (c->json) {
		cli_print_json(o);
	} else {
		const cJSON *e;
		printf("ClickHouse %s at %s, database %s\n", version, c->cfg.clickhouse_url,
		       c->cfg.clickhouse_database);
		printf("schema version %u (this tracer writes %d)%s\n", now,
		       TRACER_CLICKHOUSE_SCHEMA,
		       now < TRACER_CLICKHOUSE_SCHEMA ? ": run tracer datalake migrate" :
		       now > TRACER_CLICKHOUSE_SCHEMA ? ": newer than this tracer" : "");
		printf("%-16s %14s %14s\n", "table", "rows", "bytes");
		cJSON_ArrayForEach(e, tables)
			printf("%-16s %14.0f %14.0f\n", cli_jstr(e, "table"), cli_jnum(e, "rows"),
			       cli_jnum(e, "bytes"));
	}
	cJSON_Delete(o);
	return 0;
}

static void datalake_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer datalake migrate [--dry-run] [--dir DIR]\n"
		"       tracer datalake status [--json]\n"
		"The datalake's schema on the configured ClickHouse (clickhouse_url).\n"
		"  migrate     apply the migrations the datalake lacks, in order, and\n"
		"              record each in schema_version; an empty server gets them all\n"
		"  status      the server's version, the schema version, each table's\n"
		"              rows and bytes on disk\n"
		"      --dry-run  print the statements instead of running them\n"
		"      --dir DIR  the migration files (default " TRACER_DEFAULT_MIGRATIONS_DIR ")\n"
		"      --json     status as JSON\n"
		"  -h, --help     this help\n");
}

int cmd_datalake(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{"dir", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir = TRACER_DEFAULT_MIGRATIONS_DIR;
	bool dry_run = false;
	int opt;

	while ((opt = cli_getopt(argc, argv, ":h", opts, "datalake")) != -1) {
		if (opt == 'n') {
			dry_run = true;
		} else if (opt == 'd') {
			dir = optarg;
		} else if (opt == 'j') {
			c->json = true;
		} else if (opt == 'h') {
			datalake_usage(stdout);
			return 0;
		} else {
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracer datalake: no action (migrate, status; see tracer datalake --help)\n");
		return 2;
	}
	const char *what = argv[optind++];
	if (optind < argc)
		return cli_extra_arg("datalake", argv[optind]);
	if (!strcmp(what, "migrate"))
		return migrate(c, dir, dry_run);
	if (!strcmp(what, "status"))
		return status(c);
	fprintf(stderr, "tracer datalake: unknown action %s (migrate, status; see tracer datalake --help)\n",
		what);
	return 2;
}
