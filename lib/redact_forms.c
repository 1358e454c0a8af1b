/*
 * redact_forms.c - secret forms that need their shape or their tool to be
 * recognised (see redact_forms.h).  Token prefixes are the issuers'
 * documented formats; a prefix alone is not enough, the token must be
 * long enough to be one, so "sk-learn" or "hf_" in a file name stay.
 * Every scan moves forward only: the work is linear in the argument.
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
	if (arg[i] != 'A' || i + 20 > len || !at_boundary(arg, i))
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
	REDACT_STEP(n);
	if (n != 40)
		return 0;
	for (size_t k = 0; k < n; k++) {
		up |= isupper((unsigned char)arg[i + k]) != 0;
		low |= islower((unsigned char)arg[i + k]) != 0;
		dig |= isdigit((unsigned char)arg[i + k]) != 0;
	}
	return up && low && dig ? n : 0;
}

/*
 * A JWT: eyJ<header>.<payload>.<signature>.  *scanned: how far the run
 * went, so that a failed run is not scanned again from inside (an "eyJ"
 * inside it ends at the same place with no more dots: it fails too).
 */
static size_t jwt_at(const char *arg, size_t i, size_t len, size_t *scanned)
{
	size_t n = 0, dots = 0;

	*scanned = 0;
	if (arg[i] != 'e' || !at_boundary(arg, i) || strncmp(arg + i, "eyJ", 3) != 0)
		return 0;
	while (i + n < len && (token_char(arg[i + n]) || arg[i + n] == '.')) {
		dots += arg[i + n] == '.';
		n++;
	}
	REDACT_STEP(n);
	*scanned = n;
	return dots >= 2 && n >= 20 ? n : 0;
}

static size_t prefixed_token_at(const char *arg, size_t i, size_t len)
{
	/* the first letters of token_forms' prefixes: most bytes stop here */
	if (!arg[i] || !strchr("gxsrhnpA", arg[i]) || !at_boundary(arg, i))
		return 0;
	for (size_t f = 0; f < NELEM(token_forms); f++) {
		const struct token_form *t = &token_forms[f];
		size_t p = strlen(t->prefix), n = 0;

		if (i + p > len || strncmp(arg + i, t->prefix, p) != 0)
			continue;
		while (i + p + n < len &&
		       (token_char(arg[i + p + n]) || arg[i + p + n] == '.'))
			n++;
		REDACT_STEP(n);
		if (n >= t->min_body)
			return p + n;
	}
	return 0;
}

void redact_forms_tokens(const char *arg, size_t len, size_t base,
			 bool aws_key_id, struct redact_span *s)
{
	const char *key = memmem(arg, len, "PRIVATE KEY-----", 16);
	size_t jwt_done = 0;

	REDACT_STEP(len);
	if (key) /* an inline PEM key: nothing after its header is kept */
		redact_span_mark(s, base + (size_t)(key - arg) + 16, base + len);
	for (size_t i = 0; i < len;) {
		size_t n, scanned;

		REDACT_STEP(1);
		n = aws_key_id_at(arg, i, len);
		if (!n)
			n = prefixed_token_at(arg, i, len);
		if (!n && i >= jwt_done) {
			n = jwt_at(arg, i, len, &scanned);
			jwt_done = i + scanned;
		}
		if (!n && aws_key_id)
			n = aws_secret_at(arg, i, len);
		if (n) {
			redact_span_mark(s, base + i, base + i + n);
			i += n;
		} else {
			i++;
		}
	}
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

static const char *const ldap_tools[] = {
	"ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami",
	"ldappasswd", "ldapcompare", "ldapmodrdn", "ldapexop",
};

/*
 * Tools whose one short option is the password, as the next argument or
 * joined to it (sshpass -pPW, redis-cli -a PW, ldapsearch -wPW).
 */
struct pw_option {
	const char *const *tools;
	size_t ntools;
	char letter;
};

static const char *const sshpass_tools[] = {
	"sshpass", "mongo", "mongosh", "mongodump", "mongorestore",
	"mongoexport", "mongoimport",
};
static const char *const redis_tools[] = {"redis-cli", "keydb-cli"};
static const char *const sqlcmd_tools[] = {"sqlcmd", "bcp"};

static const struct pw_option pw_options[] = {
	{sshpass_tools, NELEM(sshpass_tools), 'p'},
	{redis_tools, NELEM(redis_tools), 'a'},
	{sqlcmd_tools, NELEM(sqlcmd_tools), 'P'},
	{ldap_tools, NELEM(ldap_tools), 'w'},
};

bool redact_forms_login_tool(const char *tool)
{
	return is_any(tool, login_tools, NELEM(login_tools));
}

void redact_forms_tool(struct redact_forms_ctx *ctx, const char *word,
		       size_t n)
{
	const char *slash = memrchr(word, '/', n);

	if (slash) {
		n -= (size_t)(slash + 1 - word);
		word = slash + 1;
	}
	if (n >= sizeof(ctx->tool))
		n = sizeof(ctx->tool) - 1;
	memcpy(ctx->tool, word, n);
	ctx->tool[n] = '\0';
	ctx->login = false;
}

bool redact_forms_aws_key_id(const char *buf, size_t len)
{
	/* "AKIA"/"ASIA" at a boundary: aws_key_id_at looks 20 bytes ahead */
	for (size_t k = 0; k + 20 <= len; k++) {
		REDACT_STEP(1);
		if (buf[k] == 'A' && aws_key_id_at(buf, k, len))
			return true;
	}
	return false;
}

/* The letter of the password option of this tool, or 0. */
static char pw_letter(const struct redact_forms_ctx *ctx)
{
	for (size_t i = 0; i < NELEM(pw_options); i++)
		if (is_any(ctx->tool, pw_options[i].tools, pw_options[i].ntools))
			return pw_options[i].letter;
	return ctx->login ? 'p' : 0;
}

/* user:password -> user:***, unless it is uid:gid or a port mapping. */
static bool mask_after(const char *arg, size_t n, size_t base, char sep,
		       struct redact_span *s)
{
	const char *c = memchr(arg, sep, n);

	REDACT_STEP(n);
	if (!c || !c[1])
		return false;
	if (sep == ':' && all_in(arg, n, "0123456789:"))
		return false;
	redact_span_mark(s, base + (size_t)(c - arg) + 1, base + n);
	return true;
}

static bool prev_is(const char *previous, const char *a, const char *b)
{
	return previous && ((a && strcmp(previous, a) == 0) ||
			    (b && strcmp(previous, b) == 0));
}

/* curl's short options that take no value: they may be joined before -u. */
#define CURL_FLAGS "0123456aBfgGIijJklLMnNOpqRsSvVZ#"

/*
 * A curl option cluster (-fsSLu...): where its -u/-U value starts (the
 * index after the letter), or 0 when the cluster holds none.
 */
static size_t curl_user_at(const char *arg)
{
	if (arg[0] != '-' || arg[1] == '-' || arg[1] == '\0')
		return 0;
	for (size_t j = 1; arg[j]; j++) {
		REDACT_STEP(1);
		if (arg[j] == 'u' || arg[j] == 'U')
			return j + 1;
		if (!strchr(CURL_FLAGS, arg[j]))
			return 0; /* an option that takes the rest as its value */
	}
	return 0;
}

/* The separator between user and password of a -u value of this tool. */
static char user_sep(const char *tool)
{
	if (strcmp(tool, "smbclient") == 0 || strcmp(tool, "rpcclient") == 0)
		return '%';
	if (strcmp(tool, "lftp") == 0)
		return ',';
	return ':';
}

bool redact_forms_option(const char *arg, size_t n, size_t base,
			 const char *previous,
			 const struct redact_forms_ctx *ctx,
			 struct redact_span *s)
{
	const char *t = ctx->tool;
	char letter = pw_letter(ctx);
	bool curl = strcmp(t, "curl") == 0;
	size_t at;

	if (!arg[0])
		return false;
	/* openssl -pass/-passin/-passout pass:PW (also its -k PW) */
	if (strncmp(arg, "pass:", 5) == 0 && arg[5]) {
		redact_span_mark(s, base + 5, base + n);
		return true;
	}
	if (strcmp(t, "openssl") == 0 && prev_is(previous, "-k", NULL))
		goto all;
	/* mysql -pPW (but -p alone prompts: the next argument is a database) */
	if (is_any(t, mysql_tools, NELEM(mysql_tools)) &&
	    strncmp(arg, "-p", 2) == 0 && arg[2]) {
		redact_span_mark(s, base + 2, base + n);
		return true;
	}
	/* curl/wget-style -u user:pw, --user user:pw, -U proxy user:pw;
	 * curl -su user:pw, lftp -u user,pw, smbclient -U user%pw */
	if (prev_is(previous, "-u", "--user") ||
	    prev_is(previous, "-U", "--proxy-user") ||
	    (curl && previous && (at = curl_user_at(previous)) != 0 &&
	     previous[at] == '\0'))
		return mask_after(arg, n, base, user_sep(t), s);
	if ((strncmp(arg, "--user=", 7) == 0 ||
	     strncmp(arg, "--proxy-user=", 13) == 0) &&
	    mask_after(arg, n, base, ':', s))
		return true;
	if (curl && (at = curl_user_at(arg)) != 0 && arg[at] &&
	    mask_after(arg + at, n - at, base + at, ':', s))
		return true;
	if ((strcmp(t, "smbclient") == 0 || strcmp(t, "lftp") == 0) &&
	    (strncmp(arg, "-U", 2) == 0 || strncmp(arg, "-u", 2) == 0) &&
	    arg[2] && mask_after(arg + 2, n - 2, base + 2, user_sep(t), s))
		return true;
	/* tools whose short option is the password: -p PW or -pPW */
	if (letter && previous && previous[0] == '-' &&
	    previous[1] == letter && previous[2] == '\0')
		goto all;
	if (letter && arg[0] == '-' && arg[1] == letter && arg[2]) {
		redact_span_mark(s, base + 2, base + n);
		return true;
	}
	return false;
all:
	redact_span_mark(s, base, base + n);
	return true;
}
