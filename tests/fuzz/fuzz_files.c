/* fuzz_files.c - tracer.conf and the rules file, read from a file as the
 * programs do (bytes -> a private temp file -> config_load/rules_load). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "rules.h"

static void quiet(const char *msg)
{
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/tracer-fuzz-XXXXXX";
	struct tracer_config *cfg = malloc(sizeof(*cfg));
	struct rules *r;
	int fd = mkstemp(path);

	if (fd < 0 || !cfg) {
		free(cfg);
		return 0;
	}
	if (write(fd, data, size) == (ssize_t)size) {
		config_defaults(cfg);
		config_load(cfg, path, false, quiet);
		r = rules_load(path, quiet);
		if (r) {
			struct tool_id tid;

			rules_resolve(r, "/usr/bin/python3", "python3\0-m\0x\0", 14, &tid);
			rules_free(r);
		}
	}
	close(fd);
	unlink(path);
	free(cfg);
	return 0;
}
