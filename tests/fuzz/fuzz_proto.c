/* fuzz_proto.c - registration messages as tracerd receives them. */
#include <stdint.h>
#include <stdlib.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_request *req = malloc(sizeof(*req));
	char err[256];

	if (req)
		proto_parse_request((const char *)data, size, req, err, sizeof(err));
	free(req);
	return 0;
}
