/*
 * containernames.h - containers' names and images from the runtime's
 * records (lib/container_meta.h: containers/storage's containers.json and
 * images.json, up to 2 MiB each) without reading them on tracerd's loop:
 * a thread of its own does the look-ups (asker.h) and the loop reads its
 * cache.  Answers are kept for a minute per container id.
 */
#ifndef TRACERD_CONTAINERNAMES_H
#define TRACERD_CONTAINERNAMES_H

#include <stdbool.h>

#include "container.h"

/* Start the look-up thread (0, or -1: containers then have no names). */
int containernames_start(void);
void containernames_stop(void);

/*
 * Name, image and image id of c from the records under storage: true when
 * the answer is in (c's fields set when the records name it, left as they
 * are when not, or when c's runtime keeps no such records), false when it
 * is not yet (the look-up is queued: ask again later).  Never reads the
 * records itself.
 */
bool containernames_get(const char *storage, struct container_info *c);

#endif
