/*
 * redact_forms.c - secret forms that need their shape or their tool to be
 * recognised (see redact_forms.h).  Token prefixes are the issuers'
 * documented formats; a prefix alone is not enough, the token must be
 * long enough to be one, so "sk-learn" or "hf_" in a file name stay.
 */
#include "redact_forms.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct token_form {
	const char *prefix;
	size_t min_body; /* token characters needed after the prefix */
};

static const struct token_form token_forms[] = {
	{"ghp_", 20},  {"gho_", 20},  {"ghu_", 20},
	{"ghs_", 20},  {"ghr_", 20},  {"github_pat_", 20},
	{"glpat-", 16}, {"gldt-", 16}, {"glptt-", 16},
	{"glrt-", 16},  {"xoxb-", 10}, {"xoxp-", 10},
	{"xoxa-", 10},  {"xoxs-", 10}, {"xoxr-", 10},
	{"xoxe-", 10},  {"xapp-", 10}, {"sk_live_", 10},
	{"sk_test_", 10}, {"rk_live_", 10}, {"sk-", 20},
	{"hf_", 30},   {"npm_", 30},  {"pypi-", 40},
	{"AIza", 30},
};

/* Characters of a token body. */
static bool token_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* A token starts at i: the start of arg or after a non-alphanumeric. */
static bool at_boundary(const char *arg, size_t i)
{
	return i == 0 || !isalnum((unsigned char)arg[i - 1]);
}

static bool all_in(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(set, s[i]) || s[i] == '\0')
			return false;
	return true;
}

#define UPPER_ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/* AKIA/ASIA + 16 upper-case letters or digits: an AWS access key id. */
static size_t aws_key_id_at(const char *arg, size_t i, size_t len)
{
	if (i + 20 > len || !at_boundary(arg, i))
		return 0;
	if (strncmp(arg + i, "AKIA", 4) != 0 && strncmp(arg + i, "ASIA", 4) != 0)
		return 0;
	if (!all_in(arg + i + 4, 16, UPPER_ALNUM))
		return 0;
	if (i + 20 < len && isalnum((unsigned char)arg[i + 20]))
		return 0;
	return 20;
}

/*
 * A 40-character AWS secret access key: base64 letters with upper, lower
 * and digits mixed (a git hash is lower-case hex, a path has more
 * separators).  Only looked for when a key id is on the command line.
 */
static size_t aws_secret_at(const char *arg, size_t i, size_t len)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+";
	bool up = false, low = false, dig = false;
	size_t n = 0;

	if (i > 0 && strchr(set, arg[i - 1]))
		return 0;
	while (i + n < len && strchr(set, arg[i + n]))
		n++;
	if (n != 40)
		return 0;
	for (size_t k = 0; k < n; k++) {
		up |= isupper((unsigned char)arg[i + k]) != 0;
		low |= islower((unsigned char)arg[i + k]) != 0;
		dig |= isdigit((unsigned char)arg[i + k]) != 0;
	}
	return up && low && dig ? n : 0;
}

/* A JWT: eyJ<header>.<payload>.<signature>. */
static size_t jwt_at(const char *arg, size_t i, size_t len)
{
	size_t n = 0, dots = 0;

	if (!at_boundary(arg, i) || strncmp(arg + i, "eyJ", 3) != 0)
		return 0;
	while (i + n < len && (token_char(arg[i + n]) || arg[i + n] == '.')) {
		dots += arg[i + n] == '.';
		n++;
	}
	return dots >= 2 && n >= 20 ? n : 0;
}

static size_t prefixed_token_at(const char *arg, size_t i, size_t len)
{
	if (!at_boundary(arg, i))
		return 0;
	for (size_t f = 0; f < NELEM(token_forms); f++) {
		const struct token_form *t = &token_forms[f];
		size_t p = strlen(t->prefix), n = 0;

		if (i + p > len || strncmp(arg + i, t->prefix, p) != 0)
			continue;
		while (i + p + n < len &&
		       (token_char(arg[i + p + n]) || arg[i + p + n] == '.'))
			n++;
		if (n >= t->min_body)
			return p + n;
	}
	return 0;
}

int redact_forms_tokens(char *arg, size_t size,
			const struct redact_forms_ctx *ctx)
{
	const char *key = strstr(arg, "PRIVATE KEY-----");
	int done = 0;

	if (key) {
		/* an inline PEM key: nothing after its header is kept */
		redact_mask_tail(arg, size, (size_t)(key - arg) + 16);
		done = 1;
	}
	size_t len = strlen(arg);

	for (size_t i = 0; i < len;) {
		size_t n;

		n = aws_key_id_at(arg, i, len);
		if (!n)
			n = prefixed_token_at(arg, i, len);
		if (!n)
			n = jwt_at(arg, i, len);
		if (!n && ctx && ctx->aws_key_id)
			n = aws_secret_at(arg, i, len);
		if (n) {
			i = redact_mask_range(arg, size, i, i + n);
			len = strlen(arg);
			done = 1;
		} else {
			i++;
		}
	}
	return done;
}

static bool is_any(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

static const char *const mysql_tools[] = {
	"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck",
	"mysqlshow", "mysqlpump", "mysqlbinlog", "mysqlslap", "mariadb",
	"mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-check",
};

static const char *const login_tools[] = {
	"docker", "podman", "buildah", "skopeo", "helm", "nerdctl", "oras",
	"crane", "singularity", "apptainer",
};

void redact_forms_context(struct redact_forms_ctx *ctx, const char *argv,
			  size_t len)
{
	const char *a0 = argv, *slash;
	size_t n0 = argv ? strnlen(argv, len) : 0;

	memset(ctx, 0, sizeof(*ctx));
	if (!argv || len == 0)
		return;
	slash = memrchr(a0, '/', n0);
	if (slash) {
		n0 -= (size_t)(slash + 1 - a0);
		a0 = slash + 1;
	}
	if (n0 >= sizeof(ctx->tool))
		n0 = sizeof(ctx->tool) - 1;
	memcpy(ctx->tool, a0, n0);
	ctx->tool[n0] = '\0';
	for (size_t i = 0; i < len;) {
		size_t n = strnlen(argv + i, len - i);

		if (n == 5 && memcmp(argv + i, "login", 5) == 0 &&
		    is_any(ctx->tool, login_tools, NELEM(login_tools)))
			ctx->login = true;
		for (size_t k = 0; k + 20 <= n && !ctx->aws_key_id; k++)
			ctx->aws_key_id = aws_key_id_at(argv + i, k, n) != 0;
		i += n + 1;
	}
}

/* user:password -> user:***, unless it is uid:gid or a port mapping. */
static int mask_after(char *arg, size_t size, char sep)
{
	char *c = strchr(arg, sep);

	if (!c || !c[1])
		return 0;
	if (sep == ':' && all_in(arg, strlen(arg), "0123456789:"))
		return 0;
	redact_mask_tail(arg, size, (size_t)(c - arg) + 1);
	return 1;
}

static bool prev_is(const char *previous, const char *a, const char *b)
{
	return previous && ((a && strcmp(previous, a) == 0) ||
			    (b && strcmp(previous, b) == 0));
}

int redact_forms_option(char *arg, size_t size, const char *previous,
			const struct redact_forms_ctx *ctx)
{
	const char *t = ctx->tool;

	if (!arg[0])
		return 0;
	/* openssl -pass/-passin/-passout pass:PW (also its -k PW) */
	if (strncmp(arg, "pass:", 5) == 0 && arg[5]) {
		redact_mask_tail(arg, size, 5);
		return 1;
	}
	if (strcmp(t, "openssl") == 0 && prev_is(previous, "-k", NULL))
		goto all;
	/* mysql -pPW (but -p alone prompts: the next argument is a database) */
	if (is_any(t, mysql_tools, NELEM(mysql_tools)) &&
	    strncmp(arg, "-p", 2) == 0 && arg[2]) {
		redact_mask_tail(arg, size, 2);
		return 1;
	}
	/* curl/wget-style -u user:pw, --user user:pw, -U proxy user:pw */
	if (prev_is(previous, "-u", "--user") ||
	    prev_is(previous, "-U", "--proxy-user"))
		return strcmp(t, "smbclient") == 0 || strcmp(t, "rpcclient") == 0
			       ? mask_after(arg, size, '%')
			       : mask_after(arg, size, ':');
	if ((strncmp(arg, "--user=", 7) == 0 ||
	     strncmp(arg, "--proxy-user=", 13) == 0) &&
	    mask_after(arg, size, ':'))
		return 1;
	if (strcmp(t, "curl") == 0 && strncmp(arg, "-u", 2) == 0 && arg[2] &&
	    mask_after(arg, size, ':'))
		return 1;
	/* tools whose short option is the password */
	if ((strcmp(t, "sshpass") == 0 || ctx->login ||
	     strcmp(t, "mongo") == 0 || strcmp(t, "mongosh") == 0 ||
	     strcmp(t, "mongodump") == 0 || strcmp(t, "mongorestore") == 0) &&
	    prev_is(previous, "-p", NULL))
		goto all;
	if (strcmp(t, "redis-cli") == 0 && prev_is(previous, "-a", NULL))
		goto all;
	if ((strcmp(t, "sqlcmd") == 0 || strcmp(t, "bcp") == 0) &&
	    prev_is(previous, "-P", NULL))
		goto all;
	return 0;
all:
	redact_mask_tail(arg, size, 0);
	return 1;
}
