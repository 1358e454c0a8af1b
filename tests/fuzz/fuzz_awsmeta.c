/* fuzz_awsmeta.c - ECS task/container metadata and the IMDS identity
 * document, as an endpoint (or a container's environment) serves them. */
#include <stdint.h>
#include <stdlib.h>

#include "awsmeta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracer_identity *id = malloc(sizeof(*id));
	const char *s = (const char *)data;
	char err[256];

	if (!id)
		return 0;
	identity_init(id);
	awsmeta_parse_ecs_container(s, size, id, err, sizeof(err));
	awsmeta_parse_ecs_task(s, size, id, err, sizeof(err));
	awsmeta_parse_imds_document(s, size, id, err, sizeof(err));
	awsmeta_parse_lifecycle(s, size, id, err, sizeof(err));
	free(id);
	return 0;
}
