/*
 * container_meta.h - a container's name and image from the runtime's own
 * records, only through fields that carry no environment:
 *
 *   podman, CRI-O (containers/storage): STORAGE/<driver>-containers/
 *     containers.json (id, names, image id, and the "metadata" string
 *     with image-name and name) and, for an image id without a name
 *     there, STORAGE/<driver>-images/images.json (id, names).  Neither
 *     file holds a container's environment (that is in the OCI spec,
 *     userdata/config.json, which stays unread).
 *   ECS (AWS Batch): the Name and Image of the task metadata, which
 *     tracer-wrap reads and sends as labels container.id, container.name
 *     and container.image with its registration.
 *
 * docker keeps name and image only in config.v2.json beside the
 * container's environment (Config.Env): it is not read, so docker
 * containers have no name or image here.
 *
 * The files are read whole, at most CONTAINER_META_MAX_BYTES, and kept
 * (a few, at most 4) while their (dev, ino, size, mtime) is unchanged;
 * only the record of the id looked up is parsed (container_meta.c).
 * Not thread-safe: one thread at a time looks up (tracerd: the thread of
 * daemon/containernames.c; tracer-wrap: its one thread).
 */
#ifndef TRACER_CONTAINER_META_H
#define TRACER_CONTAINER_META_H

#include "container.h"
#include "identity.h"

#define CONTAINER_META_MAX_BYTES (2u << 20) /* ~2,700 podman containers */

/*
 * Name and image of c (podman, cri-o) from the containers/storage under
 * storage (e.g. /var/lib/containers/storage).  0 when found (fields set,
 * an unknown one left ""), -1 when not.  err (may be NULL) says what the
 * caller should log, "" when nothing: a records file over
 * CONTAINER_META_MAX_BYTES, left unread.
 */
int container_meta_storage(const char *storage, struct container_info *c, char *err,
			   size_t errlen);

/*
 * Name and image from a registrant's labels (container.id, .name,
 * .image), when container.id names c (full id or a prefix of at least
 * CONTAINER_SHORT_ID digits).  0 when they named it, -1 when not.
 */
int container_meta_labels(const struct tracer_identity *id, struct container_info *c);

/* Forget the files kept (tests; tracerd at its end). */
void container_meta_reset(void);

/* Files read and look-ups served from the kept bytes, since the start or
 * the last reset (tests). */
void container_meta_counts(uint64_t *reads, uint64_t *hits);

#endif
