/* fuzz_jsonutil.c - JSON escaping of arbitrary bytes (argv, paths): the
 * result must be valid UTF-8 that cJSON renders and parses back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "redact.h"
#include "textsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = json_utf8_sanitize((const char *)data, size);
	char *r = redact_join_argv((const char *)data, size, 4096), *out;
	cJSON *o = cJSON_CreateObject(), *back;
	char safe[512];

	if (s && o) {
		json_add_str(o, "v", s);
		out = cJSON_PrintUnformatted(o);
		if (out) {
			back = cJSON_Parse(out);
			if (!back)
				abort(); /* what we write must parse */
			cJSON_Delete(back);
			free(out);
		}
		text_safe(s, safe, sizeof(safe));
	}
	cJSON_Delete(o);
	free(s);
	free(r);
	return 0;
}
