/* fuzz_dockercmd.c - a docker command line (any argv bytes, redacted or
 * not) and dockerd's container list (any answer of a socket named in
 * docker_sockets): parsed without a crash, and the list's entries
 * matched against the command. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dockercmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct docker_entry e[16];
	struct docker_cmd cmd;
	int n, have_cmd;

	/* the first input byte picks the split: argv before, list after */
	size_t cut = size ? (size_t)data[0] * size / 256 : 0;

	if (!size)
		return 0;
	have_cmd = docker_cmd_parse((const char *)data + 1, cut > 0 ? cut - 1 : 0, data[0] & 1,
				    &cmd) == 0;
	n = dockercmd_list_parse((const char *)data + cut, size - cut, e, 16);
	if (n > 16)
		abort();
	for (int i = 0; i < n; i++) {
		if (strlen(e[i].id) != 64)
			abort(); /* only well-formed ids are kept */
		dockercmd_entry_live(&e[i]);
		if (have_cmd)
			dockercmd_entry_matches(&cmd, (int64_t)data[0] << 24, &e[i]);
	}
	return 0;
}
