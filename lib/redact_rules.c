/*
 * redact_rules.c - the generic rules on one argument:
 *   --password=x, --token x     options named like secrets (one or two dashes)
 *   AWS_SECRET_ACCESS_KEY=x     NAME=value with a secret-like NAME
 *   db_password:x, a=token=x    any '=' or ':' after a secret-like word
 *   https://user:pw@host        URL credentials (the password part)
 *   Authorization: Bearer x     HTTP headers that carry credentials
 *   PASSWORD 'x'                SQL passwords (ALTER USER, IDENTIFIED BY)
 * then redact_forms.c's token shapes and tool-specific options.  Each rule
 * moves forward through the argument and only marks ranges, so the work
 * is linear in its length whatever the bytes (a user chooses them: they
 * must not be able to stall tracerd).  The rules err on the side of
 * hiding too much; docs/privacy.md lists what is and is not redacted.
 */
#include "redact_rules.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Option names (without dashes) whose value is a secret. */
static const char *const secret_opts[] = {
	"password", "passwd", "pass", "token", "secret", "api-key", "apikey",
	"api_key", "access-key", "access_key", "secret-key", "secret_key",
	"auth", "credentials", "credential", "private-key", "private_key",
	"storepass", "keypass", "auth-token", "client-secret", "sig",
	"signature", "srcstorepass", "deststorepass", "pw",
};

/* Name endings that make an option or NAME= a secret. */
static const char *const secret_ends[] = {
	"token", "api-key", "apikey", "api_key", "access-key", "private-key",
	"-pass", "_pass", "account-key", "account_key", "accountkey",
	"sharedaccesskey", "sharedaccesssignature", "master-key",
	"master_key", "auth-key", "auth_key",
};

/* Words that make whatever follows '=' or ':' a secret. */
static const char *const secret_words[] = {
	"secret", "password", "passwd", "token", "apikey", "api-key", "api_key",
	"credential", "private-key", "private_key", "access-key", "access_key",
	"authorization", "accountkey", "sharedaccesssignature",
};

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static bool contains_ci(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	REDACT_STEP(n);
	for (size_t i = 0; i + w <= n; i++)
		if (strncasecmp(s + i, word, w) == 0)
			return true;
	return false;
}

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
	size_t w = strlen(suffix);

	return n >= w && strncasecmp(s + n - w, suffix, w) == 0;
}

/* Is this option name (dashes stripped, n bytes) one that takes a secret? */
static bool secret_option_name(const char *name, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < NELEM(secret_opts); i++)
		if (strlen(secret_opts[i]) == n &&
		    strncasecmp(name, secret_opts[i], n) == 0)
			return true;
	for (size_t i = 0; i < NELEM(secret_ends); i++)
		if (ends_with_ci(name, n, secret_ends[i]))
			return true;
	/* --db-password, --github-token, --client_secret, --aws-secret-key */
	return contains_ci(name, n, "password") ||
	       contains_ci(name, n, "passwd") ||
	       contains_ci(name, n, "passphrase") ||
	       contains_ci(name, n, "bearer") ||
	       contains_ci(name, n, "secret") ||
	       contains_ci(name, n, "credential");
}

/*
 * "-x"/"--x" with no '=': the option whose value is the next argument.
 * A bare setting name works the same way ("aws configure set
 * aws_secret_access_key X", "git config user.password X") when it is one
 * word joined by '_' or '.'.
 */
static bool secret_option_arg(const char *arg)
{
	const char *name = arg;
	size_t n;

	if (!arg || !arg[0])
		return false;
	n = strlen(arg);
	REDACT_STEP(n);
	if (arg[0] != '-') {
		for (size_t i = 0; i < n; i++)
			if (!name_char(arg[i]))
				return false;
		return (memchr(arg, '_', n) || memchr(arg, '.', n)) &&
		       secret_option_name(arg, n);
	}
	name += (arg[1] == '-') ? 2 : 1;
	if (strchr(name, '='))
		return false;
	return secret_option_name(name, strlen(name));
}

/* scheme://user:password@host -> scheme://user:***@host, everywhere in arg. */
static void redact_urls(const char *arg, size_t n, size_t base,
			struct redact_span *s)
{
	size_t i = 0;
	const char *p;

	while (i < n && (p = memmem(arg + i, n - i, "://", 3)) != NULL) {
		size_t start = (size_t)(p - arg) + 3;
		size_t host_len = strcspn(arg + start, "/?# \t");
		const char *at, *colon;
		size_t auth_len;

		REDACT_STEP(host_len + 1);
		/* a "://" further on inside this authority has the same end
		 * (and its ':' may be this one's last byte): go on from there */
		i = host_len ? start + host_len - 1 : start;
		/* the user part ends at the LAST '@': a raw '@' in a password must not leak */
		at = memrchr(arg + start, '@', host_len);
		if (!at)
			continue;
		auth_len = (size_t)(at - (arg + start));
		colon = memchr(arg + start, ':', auth_len);
		if (colon)
			redact_span_mark(s, base + (size_t)(colon - arg) + 1,
					 base + start + auth_len);
		else if (auth_len >= 16) /* a bare long user part is usually a token (https://TOKEN@host) */
			redact_span_mark(s, base + start, base + start + auth_len);
	}
}

/* Header names whose value is a credential ("Authorization: Bearer x"). */
static const char *const secret_headers[] = {
	"authorization", "proxy-authorization", "cookie", "set-cookie",
	"private-token", "job-token", "deploy-token", "api-key", "apikey",
};

static bool header_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Is name (n bytes) a credential header?  *scheme: keep its first word. */
static bool secret_header(const char *name, size_t n, bool *scheme)
{
	*scheme = false;
	if (n < 6) /* "cookie", the shortest, and "x-a-key" */
		return false;
	for (size_t h = 0; h < NELEM(secret_headers); h++)
		if (strlen(secret_headers[h]) == n &&
		    strncasecmp(name, secret_headers[h], n) == 0) {
			*scheme = h < 2; /* Bearer, Basic, token */
			return true;
		}
	/* X-Api-Key, X-Auth-Key, X-Vault-Token, X-Auth-User... */
	return n > 2 && strncasecmp(name, "x-", 2) == 0 &&
	       (ends_with_ci(name, n, "key") || ends_with_ci(name, n, "token") ||
		ends_with_ci(name, n, "secret") ||
		ends_with_ci(name, n, "password") ||
		contains_ci(name, n, "auth"));
}

/* The first credential header in arg: its value masked.  True if one. */
static bool redact_headers(const char *arg, size_t n, size_t base,
			   struct redact_span *s)
{
	for (size_t i = 0; i < n; i++) {
		size_t name = i, v, word;
		bool scheme;

		REDACT_STEP(1);
		if (arg[i] != ':')
			continue;
		/* back to the previous ':' at most: each byte read once more */
		while (name > 0 && header_char(arg[name - 1]))
			name--;
		REDACT_STEP(i - name);
		if (!secret_header(arg + name, i - name, &scheme))
			continue;
		v = i + 1 + strspn(arg + i + 1, " \t");
		word = strcspn(arg + v, " \t");
		if (scheme && arg[v + word]) {
			v += word;
			v += strspn(arg + v, " \t");
		}
		if (v >= n)
			return false;
		redact_span_mark(s, base + v, base + n);
		return true;
	}
	return false;
}

/* Where the first secret word ends in arg (n if none): one pass. */
static size_t first_secret_word_end(const char *arg, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		REDACT_STEP(1);
		/* the first letters of secret_words: most bytes stop here */
		if (!arg[i] || !strchr("sptacSPTAC", arg[i]))
			continue;
		for (size_t w = 0; w < NELEM(secret_words); w++) {
			size_t len = strlen(secret_words[w]);

			if (i + len <= n &&
			    strncasecmp(arg + i, secret_words[w], len) == 0)
				return i + len;
		}
	}
	return n + 1;
}

/*
 * The first '=' or ':' whose preceding text names a secret: everything
 * after it is masked.  NAME=value (environment style) also counts when
 * NAME ends in _KEY or is a secret option name.
 */
static void redact_assignments(const char *arg, size_t n, size_t base,
			       struct redact_span *s)
{
	size_t word_end = first_secret_word_end(arg, n);

	for (size_t i = 0; i < n; i++) {
		size_t name_start = i, nm;
		const char *name;
		bool secret;

		REDACT_STEP(1);
		if (arg[i] != '=' && arg[i] != ':')
			continue;
		if (arg[i + 1] == '\0' || (arg[i] == ':' && arg[i + 1] == '/'))
			continue; /* nothing to hide; URLs are redact_urls' */
		/* names never hold '=' or ':': each byte is read once more */
		while (name_start > 0 && name_char(arg[name_start - 1]))
			name_start--;
		REDACT_STEP(i - name_start);
		name = arg + name_start;
		nm = i - name_start;
		while (nm && *name == '-') {
			name++;
			nm--;
		}
		secret = word_end <= i;
		if (!secret && nm == 0)
			continue;
		if (!secret && arg[i] == '=')
			secret = ends_with_ci(name, nm, "_key") ||
				 secret_option_name(name, nm);
		if (secret) {
			redact_span_mark(s, base + i + 1, base + n);
			return;
		}
	}
}

/* A word of SQL at i (case-insensitive, not inside a longer word). */
static bool sql_word_at(const char *arg, size_t n, size_t i, const char *w)
{
	size_t len;

	if (tolower((unsigned char)arg[i]) != w[0])
		return false;
	len = strlen(w);
	return i + len <= n && strncasecmp(arg + i, w, len) == 0 &&
	       (i == 0 || !isalnum((unsigned char)arg[i - 1])) &&
	       !isalnum((unsigned char)arg[i + len]);
}

/* Skip blanks, then what SQL puts between PASSWORD and the literal. */
static size_t sql_skip(const char *arg, size_t n, size_t i)
{
	while (i < n && (isspace((unsigned char)arg[i]) || arg[i] == '=' ||
			 arg[i] == '('))
		i++;
	return i;
}

/*
 * SQL passwords: PASSWORD 'x' (PostgreSQL ALTER/CREATE USER, MySQL SET
 * PASSWORD = 'x' or PASSWORD('x')) and IDENTIFIED [WITH plugin] BY 'x':
 * the quoted literal is masked.
 */
static void redact_sql(const char *arg, size_t n, size_t base,
		       struct redact_span *s)
{
	size_t identified = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		size_t v;
		char q;

		REDACT_STEP(1);
		if (sql_word_at(arg, n, i, "identified"))
			identified = i;
		if (sql_word_at(arg, n, i, "password")) {
			v = sql_skip(arg, n, i + 8);
		} else if (identified != SIZE_MAX && i - identified < 64 &&
			   sql_word_at(arg, n, i, "by")) {
			v = sql_skip(arg, n, i + 2); /* IDENTIFIED [WITH x] BY */
		} else {
			continue;
		}
		REDACT_STEP(v - i);
		if (v >= n || (arg[v] != '\'' && arg[v] != '"'))
			continue;
		q = arg[v];
		i = v + 1;
		while (i < n && arg[i] != q)
			i++;
		REDACT_STEP(i - v);
		redact_span_mark(s, base + v + 1, base + i);
	}
}

void redact_rules_arg(const char *arg, size_t n, size_t base,
		      const char *previous, const struct redact_forms_ctx *ctx,
		      struct redact_span *s)
{
	if (n == 0)
		return;
	if (secret_option_arg(previous)) {
		redact_span_mark(s, base, base + n);
		return;
	}
	if (ctx && redact_forms_option(arg, n, base, previous, ctx, s))
		return;
	redact_urls(arg, n, base, s);
	redact_forms_tokens(arg, n, base, ctx && ctx->aws_key_id, s);
	redact_sql(arg, n, base, s);
	if (redact_headers(arg, n, base, s))
		return;
	redact_assignments(arg, n, base, s);
}
