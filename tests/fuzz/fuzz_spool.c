/* fuzz_spool.c - the spool record reader (daemon/spool.c): the bytes
 * become one record file of a private spool directory, which is opened
 * (scanned) and read back as tracerd's delivery threads do.  A record
 * either passes its header (length, CRC-32) and comes back exactly as
 * its body, or is set aside as corrupt. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "log.h"
#include "spool.h"

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/tracer-fuzz-spool-XXXXXX", path[512], err[256];
	enum sink_kind kinds[1] = {SINK_FILE};
	struct spool *sp;
	char *text = NULL;
	size_t len = 0;
	int fd;

	log_set_level(LOG_ERROR + 1); /* a corrupt record is logged: not here */
	if (!mkdtemp(dir))
		return 0;
	snprintf(path, sizeof(path), "%s/0000000000000001.rec", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
		close(fd);
		sp = spool_open(dir, 1u << 30, kinds, 1, err, sizeof(err));
		if (sp) {
			int rc = spool_read(sp, 1, &text, &len);
			if (rc == 0) {
				/* what comes back is the record's body, whole */
				if (len > size || memcmp(text, data + (size - len), len) != 0 ||
				    text[len] != '\0')
					abort();
				free(text);
			} else if (rc != -EBADMSG && rc != -ENOENT && rc != -ENOMEM) {
				abort();
			}
			spool_close(sp);
		}
	} else if (fd >= 0) {
		close(fd);
	}
	remove_dir(dir);
	return 0;
}
