/* fuzz_redact.c - argv redaction of any bytes (wrappers, shell command
 * strings, cut records): it never crashes, its work stays within a fixed
 * number of steps per input byte (a user chooses these bytes and tracerd
 * redacts them on its event loop), and its bounds hold. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

/* steps per input byte that redaction stays under (tests/unit/test_redact.c
 * measures about 10 for hostile inputs) */
#define MAX_STEPS_PER_BYTE 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t rlen = 0, fit, before = redact_work();
	bool cut = size > 0 && (data[0] & 1);
	char *r = redact_record((const char *)data, size, cut, &rlen);
	char *joined;
	int dropped;

	if (!r)
		return 0;
	if (redact_work() - before > MAX_STEPS_PER_BYTE * (size + 1) + 64)
		abort(); /* more than linear work */
	if (rlen && r[rlen - 1] != '\0')
		abort(); /* every argument ends with its NUL */
	fit = redact_fit(r, rlen, 4096, &dropped);
	if (fit > 4096 || (fit < rlen && !dropped))
		abort();
	joined = redact_join(r, rlen, 4096);
	if (joined && strlen(joined) > 4096)
		abort();
	free(joined);
	free(r);
	return 0;
}
