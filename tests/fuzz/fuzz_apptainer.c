/* fuzz_apptainer.c - the Apptainer/Singularity CLI command-line parser
 * and starter recognition on arbitrary bytes (a user controls the argv
 * of the processes tracerd parses, and the path of what they exec). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "container_apptainer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apptainer_cli cli;
	struct container_info *c = malloc(sizeof(*c));
	char *path = malloc(size + 1);

	if (!c || !path)
		goto out;
	container_apptainer_cli((const char *)data, size, &cli);
	memcpy(path, data, size);
	path[size] = '\0';
	container_apptainer_starter(path);
	container_apptainer_info("/usr/libexec/apptainer/bin/starter", (pid_t)size, size,
				 (const char *)data, size, c);
out:
	free(c);
	free(path);
	return 0;
}
