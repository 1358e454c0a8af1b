/*
 * mkdirs.c - mkdir -p (mkdirs.h).
 */
#include "mkdirs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int mkdirs(const char *path, mode_t mode, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf)) {
		snprintf(err, errlen, "directory \"%.64s\": bad length", path);
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "mkdir %s: %s", buf, strerror(errno));
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}
