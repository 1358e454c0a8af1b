/* textsafe.c - see textsafe.h. */
#include "textsafe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of the control character at s (0: not one). */
static size_t control_at(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2; /* C1 as UTF-8 */
	if (s[0] >= 0x80 && s[0] <= 0x9f)
		return 1; /* a lone C1 byte (not UTF-8: a continuation byte) */
	return 0;
}

/* Length of the UTF-8 sequence at s that is not a control (>= 1). */
static size_t char_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 1; /* invalid: one byte at a time */
	return n;
}

bool textsafe_needs_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		if (control_at(p))
			return true;
		p += char_len(p);
	}
	return false;
}

char *text_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (len == 0)
		return buf;
	while (*p) {
		size_t c = control_at(p), n;

		if (c) {
			for (size_t i = 0; i < c; i++) {
				if (o + 4 >= len)
					goto out;
				snprintf(buf + o, 5, "\\x%02x", p[i]);
				o += 4;
			}
			p += c;
			continue;
		}
		n = char_len(p);
		if (o + n >= len)
			break;
		memcpy(buf + o, p, n);
		o += n;
		p += n;
	}
out:
	buf[o] = '\0';
	return buf;
}

static int safe_string(char **str)
{
	size_t need;
	char *e;

	if (!*str || !textsafe_needs_escape(*str))
		return 0;
	need = strlen(*str) * 4 + 1;
	e = malloc(need);
	if (!e)
		return -1;
	text_safe(*str, e, need);
	cJSON_free(*str);
	/* cJSON frees with its hooks: the default is free() */
	*str = e;
	return 0;
}

int text_safe_json(cJSON *node)
{
	for (cJSON *c = node; c; c = c->next) {
		if (safe_string(&c->string) != 0)
			return -1;
		if (cJSON_IsString(c) && safe_string(&c->valuestring) != 0)
			return -1;
		if (c->child && text_safe_json(c->child) != 0)
			return -1;
	}
	return 0;
}
