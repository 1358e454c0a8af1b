/*
 * redact.c - argv privacy.  Command lines are stored in job summaries
 * that many people read, and people do put secrets on command lines.
 * What looks like a secret is replaced by "***" before argv is kept:
 *   --password=x, --token x     options named like secrets (one or two dashes)
 *   AWS_SECRET_ACCESS_KEY=x     NAME=value with a secret-like NAME
 *   db_password:x, a=token=x    any '=' or ':' after a secret-like word
 *   https://user:pw@host        URL credentials (the password part)
 *   Authorization: Bearer x     HTTP authorization headers
 * The rules err on the side of hiding too much.
 */
#include "redact.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MASK "***"

/* Option names (without dashes) whose value is a secret. */
static const char *const secret_opts[] = {
	"password", "passwd", "pass", "token", "secret", "api-key", "apikey",
	"api_key", "access-key", "access_key", "secret-key", "secret_key",
	"auth", "credentials", "credential", "private-key", "private_key",
	"storepass", "keypass", "auth-token", "client-secret",
};

/* Words that make whatever follows '=' or ':' a secret. */
static const char *const secret_words[] = {
	"secret", "password", "passwd", "token", "apikey", "api-key", "api_key",
	"credential", "private-key", "private_key", "access-key", "access_key",
	"authorization",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static bool contains_ci(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

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
	/* --db-password, --github-token, --client_secret, --aws-secret-key */
	return contains_ci(name, n, "password") ||
	       contains_ci(name, n, "passwd") ||
	       contains_ci(name, n, "secret") ||
	       contains_ci(name, n, "credential") ||
	       ends_with_ci(name, n, "token") ||
	       ends_with_ci(name, n, "api-key") ||
	       ends_with_ci(name, n, "apikey") ||
	       ends_with_ci(name, n, "api_key") ||
	       ends_with_ci(name, n, "access-key") ||
	       ends_with_ci(name, n, "private-key");
}

/* "-x"/"--x" with no '=': the option whose value is the next argument. */
static bool secret_option_arg(const char *arg)
{
	const char *name = arg;

	if (!arg || arg[0] != '-')
		return false;
	name += (arg[1] == '-') ? 2 : 1;
	if (strchr(name, '='))
		return false;
	return secret_option_name(name, strlen(name));
}

/* Replace arg[from..] by MASK, within size bytes. */
static void mask_tail(char *arg, size_t size, size_t from)
{
	size_t room;

	if (from >= size)
		return; /* cannot happen for a NUL-terminated arg */
	room = size - from - 1;
	if (room >= strlen(MASK)) {
		memcpy(arg + from, MASK, strlen(MASK) + 1);
	} else {
		/* no room for the full mask: still never keep the value */
		memset(arg + from, '*', room);
		arg[from + room] = '\0';
	}
}

/*
 * Replace bytes [from, to) of arg by MASK, shifting the rest.  Returns
 * the index just after the mask.  When the buffer is too small the tail
 * of the argument is dropped rather than the secret kept.
 */
static size_t mask_range(char *arg, size_t size, size_t from, size_t to)
{
	size_t len = strlen(arg), mlen = strlen(MASK), tail = len - to;

	if (from + mlen + tail + 1 > size) {
		mask_tail(arg, size, from);
		return strlen(arg);
	}
	memmove(arg + from + mlen, arg + to, tail + 1);
	memcpy(arg + from, MASK, mlen);
	return from + mlen;
}

/* scheme://user:password@host -> scheme://user:***@host, everywhere in arg. */
static int redact_urls(char *arg, size_t size)
{
	size_t i = 0;
	int done = 0;
	char *p;

	while ((p = strstr(arg + i, "://")) != NULL) {
		size_t start = (size_t)(p - arg) + 3;
		size_t host_len = strcspn(arg + start, "/?# \t");
		size_t auth_len;
		char *colon, *at;

		i = start;
		/* the user part ends at the LAST '@': a raw '@' in a password must not leak */
		at = memrchr(arg + start, '@', host_len);
		if (!at)
			continue;
		auth_len = (size_t)(at - (arg + start));
		colon = memchr(arg + start, ':', auth_len);
		if (colon) {
			size_t from = (size_t)(colon - arg) + 1;

			if (from < start + auth_len) {
				i = mask_range(arg, size, from, start + auth_len);
				done = 1;
			}
		} else if (auth_len >= 16) {
			/* a bare long user part is usually a token (https://TOKEN@host) */
			i = mask_range(arg, size, start, start + auth_len);
			done = 1;
		}
	}
	return done;
}

/* "Authorization: Bearer x" -> "Authorization: Bearer ***". */
static int redact_auth_header(char *arg, size_t size)
{
	static const char *const headers[] = {
		"authorization:", "proxy-authorization:", "x-api-key:",
		"cookie:", "x-auth-token:",
	};
	size_t len = strlen(arg);

	for (size_t h = 0; h < NELEM(headers); h++) {
		size_t w = strlen(headers[h]);

		for (size_t i = 0; i + w <= len; i++) {
			size_t v, word;

			if (strncasecmp(arg + i, headers[h], w) != 0)
				continue;
			v = i + w;
			v += strspn(arg + v, " \t");
			/* keep a scheme word (Bearer, Basic, token) when a value follows */
			word = strcspn(arg + v, " \t");
			if (arg[v + word] && h < 2) {
				v += word;
				v += strspn(arg + v, " \t");
			}
			if (arg[v] == '\0')
				return 0;
			mask_tail(arg, size, v);
			return 1;
		}
	}
	return 0;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/*
 * The first '=' or ':' whose preceding text names a secret: everything
 * after it is masked.  NAME=value (environment style) also counts when
 * NAME ends in _KEY.
 */
static int redact_assignments(char *arg, size_t size)
{
	size_t len = strlen(arg);

	for (size_t i = 0; i < len; i++) {
		size_t name_start = i, nm = 0;
		const char *name;
		bool secret = false;

		if (arg[i] != '=' && arg[i] != ':')
			continue;
		if (arg[i + 1] == '\0' || (arg[i] == ':' && arg[i + 1] == '/'))
			continue; /* nothing to hide; URLs are redact_urls' */
		while (name_start > 0 && name_char(arg[name_start - 1]))
			name_start--;
		name = arg + name_start;
		nm = i - name_start;
		while (nm && *name == '-') {
			name++;
			nm--;
		}
		for (size_t w = 0; w < NELEM(secret_words) && !secret; w++)
			secret = contains_ci(arg, i, secret_words[w]);
		if (!secret && arg[i] == '=')
			secret = ends_with_ci(name, nm, "_key") ||
				 secret_option_name(name, nm);
		if (secret) {
			mask_tail(arg, size, i + 1);
			return 1;
		}
	}
	return 0;
}

int redact_arg(char *arg, size_t size, const char *previous)
{
	int done = 0;

	if (!arg || size == 0 || !memchr(arg, '\0', size))
		return 0;
	if (secret_option_arg(previous) && arg[0]) {
		mask_tail(arg, size, 0);
		return 1;
	}
	done |= redact_urls(arg, size);
	if (redact_auth_header(arg, size))
		return 1;
	done |= redact_assignments(arg, size);
	return done;
}

/* Cut s to at most max bytes on a UTF-8 character boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/*
 * The argument that does not fit: show what fits of it, then "...", the
 * whole at most max_out bytes.
 */
static void finish_cut(char *out, size_t *olen, size_t max_out,
		       const char *arg)
{
	size_t dots = max_out < 3 ? max_out : 3;
	size_t keep = max_out - dots;

	if (*olen && *olen < keep)
		out[(*olen)++] = ' ';
	if (*olen < keep) {
		size_t take = utf8_cut(arg, strlen(arg), keep - *olen);

		memcpy(out + *olen, arg, take);
		*olen += take;
	}
	*olen = utf8_cut(out, *olen, keep);
	memcpy(out + *olen, "...", dots);
	*olen += dots;
	out[*olen] = '\0';
}

/* Make both argument buffers hold need bytes; prev keeps its content. */
static int grow_buffers(char **arg, char **prev, size_t *cap, size_t need)
{
	char *a, *p;

	if (need <= *cap)
		return 0;
	a = malloc(need);
	p = realloc(*prev, need);
	if (!a || !p) {
		free(a);
		if (p)
			*prev = p;
		return -1;
	}
	free(*arg);
	*arg = a;
	*prev = p;
	*cap = need;
	return 0;
}

char *redact_join_argv(const char *argv, size_t len, size_t max_out)
{
	/*
	 * An argument of n bytes redacts to at most 3n + 3 bytes, plus its
	 * separator, and every argument uses at least one input byte.
	 */
	size_t bound = len * 7 + 8, olen = 0, acap = 0;
	size_t cap = (max_out < bound ? max_out : bound) + 4;
	char *out = malloc(cap), *arg = NULL, *prev = NULL;
	bool have_prev = false;

	if (!out)
		goto fail;
	out[0] = '\0';
	for (size_t i = 0; argv && i < len;) {
		const char *a = argv + i;
		const char *nul = memchr(a, '\0', len - i);
		size_t alen = nul ? (size_t)(nul - a) : len - i, n;

		i += alen + 1;
		if (grow_buffers(&arg, &prev, &acap, alen * 3 + 8) < 0)
			goto fail;
		memcpy(arg, a, alen);
		arg[alen] = '\0';
		redact_arg(arg, acap, have_prev ? prev : NULL);
		/* the next argument is judged by this one as it was typed */
		memcpy(prev, a, alen);
		prev[alen] = '\0';
		have_prev = true;

		n = strlen(arg);
		if (olen + (olen ? 1 : 0) + n > max_out) {
			finish_cut(out, &olen, max_out, arg);
			break;
		}
		if (olen)
			out[olen++] = ' ';
		memcpy(out + olen, arg, n + 1);
		olen += n;
	}
	free(arg);
	free(prev);
	return out;
fail:
	free(out);
	free(arg);
	free(prev);
	return NULL;
}

char *redact_argv(const char *argv, size_t len, size_t max_out,
		  size_t *out_len, int *cut)
{
	/* an argument of n bytes redacts to at most 3n + 3 bytes, plus its
	 * NUL, and every argument uses at least one input byte */
	size_t cap = (max_out < len * 7 + 8 ? max_out : len * 7 + 8) + 1;
	size_t olen = 0, acap = 0;
	char *out = malloc(cap), *arg = NULL, *prev = NULL;
	bool have_prev = false;

	*out_len = 0;
	*cut = 0;
	if (!out)
		return NULL;
	for (size_t i = 0; argv && i < len;) {
		const char *a = argv + i;
		const char *nul = memchr(a, '\0', len - i);
		size_t alen = nul ? (size_t)(nul - a) : len - i, n;

		i += alen + 1;
		if (grow_buffers(&arg, &prev, &acap, alen * 3 + 8) < 0)
			goto fail;
		memcpy(arg, a, alen);
		arg[alen] = '\0';
		redact_arg(arg, acap, have_prev ? prev : NULL);
		memcpy(prev, a, alen);
		prev[alen] = '\0';
		have_prev = true;
		n = strlen(arg) + 1;
		if (olen + n > cap - 1) {
			*cut = 1; /* whole arguments only: the rest is left out */
			break;
		}
		memcpy(out + olen, arg, n);
		olen += n;
	}
	free(arg);
	free(prev);
	*out_len = olen;
	return out;
fail:
	free(out);
	free(arg);
	free(prev);
	return NULL;
}
