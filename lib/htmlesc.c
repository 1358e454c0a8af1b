/* htmlesc.c - see htmlesc.h. */
#include "htmlesc.h"

#include <stdbool.h>
#include <string.h>

/* Bytes of the valid UTF-8 sequence at s (overlongs, surrogates and
 * values beyond U+10FFFF refused), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A control character (C0 but tab and newline, DEL, C1) at s? */
static bool is_control(const unsigned char *s, size_t n)
{
	if (n == 1)
		return (s[0] < 0x20 && s[0] != '\t' && s[0] != '\n') || s[0] == 0x7f;
	return n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

size_t htmlesc_escape(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str, *p = s;

	if (!s)
		return 0;
	while (*p) {
		size_t n = utf8_len(p);
		size_t step = n ? n : 1;

		if (max && (size_t)(p - s) + step > max) {
			fputs("\xe2\x80\xa6", f); /* … */
			break;
		}
		if (!n || is_control(p, n)) {
			for (size_t i = 0; i < step; i++)
				fprintf(f, "\\x%02x", p[i]);
		} else if (n > 1) {
			fwrite(p, 1, n, f);
		} else {
			switch (*p) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&#39;", f); break;
			default: fputc(*p, f);
			}
		}
		p += step;
	}
	return (size_t)(p - s);
}
