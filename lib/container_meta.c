/*
 * container_meta.c - container names and images from records that carry
 * no environment (see container_meta.h for which, and why docker has
 * none).  The parsed files are cached by inode, size and mtime, so that
 * the daemon's loop re-reads a file only after the runtime changed it.
 * Not thread-safe: one caller (tracerd's loop, or tracer-wrap).
 */
#include "container_meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "log.h"

#define META_MAX_ENTRIES 65536

struct meta_entry {
	char id[CONTAINER_ID_LEN + 1];
	char name[128];
	char image[256];    /* a name when known */
	char image_id[CONTAINER_ID_LEN + 1];
};

struct meta_file {
	char path[512];
	bool loaded;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct meta_entry *e;
	size_t n;
};

/* one containers.json and one images.json: a host has one storage */
static struct meta_file containers_file, images_file;

static void file_forget(struct meta_file *f)
{
	free(f->e);
	memset(f, 0, sizeof(*f));
}

void container_meta_reset(void)
{
	file_forget(&containers_file);
	file_forget(&images_file);
}

static void copy_str(char *dst, size_t cap, const cJSON *v)
{
	if (cJSON_IsString(v) && v->valuestring)
		snprintf(dst, cap, "%s", v->valuestring);
}

/* "sha256:<hex>" or "<hex>" -> the 64 hex digits, else "" */
static void copy_id(char *dst, const cJSON *v)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
	size_t n;

	dst[0] = '\0';
	if (!s)
		return;
	if (strncmp(s, "sha256:", 7) == 0)
		s += 7;
	n = strspn(s, "0123456789abcdef");
	if (n == CONTAINER_ID_LEN && s[n] == '\0')
		memcpy(dst, s, CONTAINER_ID_LEN + 1);
}

/* The "metadata" member is itself a JSON document (a string). */
static void entry_from_metadata(struct meta_entry *m, const cJSON *md)
{
	cJSON *o;

	if (!cJSON_IsString(md) || !md->valuestring)
		return;
	o = cJSON_Parse(md->valuestring);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return;
	}
	if (!m->name[0])
		copy_str(m->name, sizeof(m->name), cJSON_GetObjectItemCaseSensitive(o, "name"));
	copy_str(m->image, sizeof(m->image), cJSON_GetObjectItemCaseSensitive(o, "image-name"));
	if (!m->image_id[0])
		copy_id(m->image_id, cJSON_GetObjectItemCaseSensitive(o, "image-id"));
	cJSON_Delete(o);
}

static void entry_from_json(struct meta_entry *m, const cJSON *o)
{
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(o, "names");

	memset(m, 0, sizeof(*m));
	copy_id(m->id, cJSON_GetObjectItemCaseSensitive(o, "id"));
	if (cJSON_IsArray(names))
		copy_str(m->name, sizeof(m->name), cJSON_GetArrayItem(names, 0));
	copy_id(m->image_id, cJSON_GetObjectItemCaseSensitive(o, "image"));
	entry_from_metadata(m, cJSON_GetObjectItemCaseSensitive(o, "metadata"));
}

/* Whole file into a NUL-terminated buffer, at most the bound. */
static char *read_bounded(const char *path, int fd, size_t size)
{
	char *buf;
	size_t got = 0;

	if (size > CONTAINER_META_MAX_BYTES) {
		log_warn("%s: %zu bytes, over the %u read for container names: not read", path,
			 size, CONTAINER_META_MAX_BYTES);
		return NULL;
	}
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	while (got < size) {
		ssize_t r = read(fd, buf + got, size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	return buf;
}

/* Parse path into f unless the cached copy is current.  0, or -1. */
static int file_load(struct meta_file *f, const char *path)
{
	struct stat st;
	cJSON *arr, *it;
	char *buf;
	size_t n = 0, cap;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (f->loaded && strcmp(f->path, path) == 0 && f->dev == st.st_dev &&
	    f->ino == st.st_ino && f->size == st.st_size &&
	    f->mtime.tv_sec == st.st_mtim.tv_sec && f->mtime.tv_nsec == st.st_mtim.tv_nsec) {
		close(fd);
		return 0;
	}
	buf = read_bounded(path, fd, (size_t)st.st_size);
	close(fd);
	if (!buf)
		return -1;
	arr = cJSON_Parse(buf);
	free(buf);
	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		return -1;
	}
	file_forget(f);
	cap = (size_t)cJSON_GetArraySize(arr);
	if (cap > META_MAX_ENTRIES)
		cap = META_MAX_ENTRIES;
	f->e = cap ? calloc(cap, sizeof(*f->e)) : NULL;
	cJSON_ArrayForEach(it, arr) {
		if (n == cap || !f->e)
			break;
		if (!cJSON_IsObject(it))
			continue;
		entry_from_json(&f->e[n], it);
		if (f->e[n].id[0])
			n++;
	}
	cJSON_Delete(arr);
	f->n = n;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->loaded = true;
	return 0;
}

static const struct meta_entry *file_find(const struct meta_file *f, const char *id)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->e[i].id, id) == 0)
			return &f->e[i];
	return NULL;
}

/* the storage drivers of containers/storage, most common first */
static const char *const drivers[] = {"overlay", "vfs", "btrfs", "zfs", "aufs", "devmapper"};

int container_meta_storage(const char *storage, struct container_info *c)
{
	const struct meta_entry *m = NULL, *img;
	char path[512];
	size_t d;

	if (!storage || !storage[0] || !c->id[0])
		return -1;
	if (strcmp(c->runtime, "podman") != 0 && strcmp(c->runtime, "cri-o") != 0)
		return -1;
	for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]) && !m; d++) {
		snprintf(path, sizeof(path), "%s/%s-containers/containers.json", storage, drivers[d]);
		if (file_load(&containers_file, path) == 0)
			m = file_find(&containers_file, c->id);
	}
	if (!m)
		return -1;
	d--;
	snprintf(c->name, sizeof(c->name), "%s", m->name);
	snprintf(c->image, sizeof(c->image), "%s", m->image);
	snprintf(c->image_id, sizeof(c->image_id), "%s", m->image_id);
	if (!c->image[0] && m->image_id[0]) {
		snprintf(path, sizeof(path), "%s/%s-images/images.json", storage, drivers[d]);
		if (file_load(&images_file, path) == 0 &&
		    (img = file_find(&images_file, m->image_id)) != NULL)
			snprintf(c->image, sizeof(c->image), "%s", img->name);
	}
	return 0;
}

int container_meta_labels(const struct tracer_identity *id, struct container_info *c)
{
	const char *cid = identity_label(id, "container.id");
	const char *name = identity_label(id, "container.name");
	const char *image = identity_label(id, "container.image");
	size_t n = cid ? strlen(cid) : 0;

	/* only for the container the registrant is in (its cgroup says) */
	if (n < CONTAINER_SHORT_ID || n > CONTAINER_ID_LEN || strncmp(c->id, cid, n) != 0)
		return -1;
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	if (image)
		snprintf(c->image, sizeof(c->image), "%s", image);
	return 0;
}
