/* errmsg.c - see errmsg.h. */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int errmsg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void errmsg_warn(void (*warn)(const char *msg), const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(msg);
}
