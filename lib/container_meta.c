/*
 * container_meta.c - container names and images from records that carry
 * no environment (see container_meta.h for which, and why docker has
 * none).  A look-up reads the file (bounded; kept while unchanged, so
 * that look-ups of many containers read it once), finds the record by its
 * id with one pass over the bytes, and parses that record alone: parsing
 * a whole file of thousands of records for each look-up would cost
 * hundreds of milliseconds.  tracerd looks up on a thread of its own
 * (daemon/containernames.c), never on its loop.
 */
#include "container_meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "errmsg.h"

/* what a record says */
struct meta_entry {
	char id[CONTAINER_ID_LEN + 1];
	char name[128];
	char image[256];    /* a name when known */
	char image_id[CONTAINER_ID_LEN + 1];
};

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

/*
 * The files read, kept while they are unchanged: a look-up whose file has
 * the same (dev, ino, size, mtime) as when it was read uses the bytes
 * read then.  podman rewrites containers.json by a rename (a new inode)
 * whenever a container is created or removed.
 */
#define META_CACHE_FILES 4

struct cached_file {
	char path[512];
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *buf;      /* NUL-terminated */
	size_t len;
	uint64_t used;  /* for the replacement of the one used longest ago */
};

static struct cached_file cache[META_CACHE_FILES];
static uint64_t cache_clock, cache_reads, cache_hits;

void container_meta_reset(void)
{
	for (size_t i = 0; i < META_CACHE_FILES; i++)
		free(cache[i].buf);
	memset(cache, 0, sizeof(cache));
	cache_clock = cache_reads = cache_hits = 0;
}

void container_meta_counts(uint64_t *reads, uint64_t *hits)
{
	*reads = cache_reads;
	*hits = cache_hits;
}

static bool same_file(const struct cached_file *f, const char *path, const struct stat *st)
{
	return f->buf && strcmp(f->path, path) == 0 && f->dev == st->st_dev &&
	       f->ino == st->st_ino && f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The slot of path, else the free one or the one used longest ago. */
static struct cached_file *slot_for(const char *path)
{
	struct cached_file *old = &cache[0];

	for (size_t i = 0; i < META_CACHE_FILES; i++) {
		if (cache[i].buf && strcmp(cache[i].path, path) == 0)
			return &cache[i];
		if (!cache[i].buf)
			old = &cache[i];
		else if (old->buf && cache[i].used < old->used)
			old = &cache[i];
	}
	return old;
}

/*
 * The whole file, NUL-terminated (*len bytes), at most the bound: from the
 * cache when unchanged, else read (and kept).  NULL when it cannot be
 * read (and why in err, when it is worth saying: a file over the bound).
 * The bytes stay the cache's: valid until the next call.
 */
static const char *file_bytes(const char *path, size_t *len, char *err, size_t errlen)
{
	struct cached_file *f;
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	f = slot_for(path);
	f->used = ++cache_clock;
	if (same_file(f, path, &st)) {
		close(fd);
		cache_hits++;
		*len = f->len;
		return f->buf;
	}
	if ((unsigned long long)st.st_size > CONTAINER_META_MAX_BYTES) {
		errmsg_fail(err, errlen, "%s: %lld bytes, over the %u read for container names: not read",
			 path, (long long)st.st_size, CONTAINER_META_MAX_BYTES);
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[got] = '\0';
	cache_reads++;
	free(f->buf);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->buf = buf;
	f->len = got;
	*len = got;
	return buf;
}

/*
 * The object of the top-level array that holds byte at: [*s, *e).  One
 * pass over the bytes, minding strings.  0, or -1 when there is none.
 */
static int enclosing_record(const char *buf, size_t len, size_t at, size_t *s, size_t *e)
{
	bool str = false, esc = false;
	size_t start = 0;
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (str) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"')
				str = false;
			continue;
		}
		if (ch == '"') {
			str = true;
		} else if (ch == '{' || ch == '[') {
			if (++depth == 2 && ch == '{')
				start = i;
		} else if (ch == '}' || ch == ']') {
			if (depth == 2 && ch == '}' && at > start && at < i) {
				*s = start;
				*e = i + 1;
				return 0;
			}
			if (--depth < 0)
				return -1;
		}
	}
	return -1;
}

/* Is the string at buf[at] the value of an "id" key ("id":"<at>...)? */
static bool is_id_value(const char *buf, size_t at)
{
	size_t i = at;

	if (i < 1 || buf[--i] != '"')
		return false;
	while (i > 0 && (buf[i - 1] == ' ' || buf[i - 1] == '\t' || buf[i - 1] == '\n'))
		i--;
	if (i < 1 || buf[--i] != ':')
		return false;
	while (i > 0 && (buf[i - 1] == ' ' || buf[i - 1] == '\t' || buf[i - 1] == '\n'))
		i--;
	return i >= 4 && memcmp(buf + i - 4, "\"id\"", 4) == 0;
}

/* The record whose "id" is id in the JSON array file path.  0, or -1
 * (and err as file_bytes says). */
static int find_record(const char *path, const char *id, struct meta_entry *m, char *err,
		       size_t errlen)
{
	size_t len = 0, idlen = strlen(id);
	const char *buf = file_bytes(path, &len, err, errlen);
	const char *hit = buf;
	int rc = -1;

	while (rc < 0 && hit && (hit = memmem(hit, len - (size_t)(hit - buf), id, idlen)) != NULL) {
		size_t at = (size_t)(hit - buf), s, e;
		cJSON *o;

		hit += idlen;
		/* the id also appears in other records' fields: only "id":"<id>" */
		if (!is_id_value(buf, at))
			continue;
		if (enclosing_record(buf, len, at, &s, &e) < 0)
			break;
		o = cJSON_ParseWithLength(buf + s, e - s);
		if (cJSON_IsObject(o)) {
			entry_from_json(m, o);
			if (strcmp(m->id, id) == 0)
				rc = 0;
		}
		cJSON_Delete(o);
	}
	return rc;
}

/* the storage drivers of containers/storage, most common first */
static const char *const drivers[] = {"overlay", "vfs", "btrfs", "zfs", "aufs", "devmapper"};

int container_meta_storage(const char *storage, struct container_info *c, char *err,
			   size_t errlen)
{
	struct meta_entry m, img;
	char path[512];
	size_t d;
	int found = -1;

	if (err && errlen)
		err[0] = '\0';
	if (!storage || !storage[0] || !c->id[0])
		return -1;
	if (strcmp(c->runtime, "podman") != 0 && strcmp(c->runtime, "cri-o") != 0)
		return -1;
	for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]) && found < 0; d++) {
		snprintf(path, sizeof(path), "%s/%s-containers/containers.json", storage, drivers[d]);
		found = find_record(path, c->id, &m, err, errlen);
	}
	if (found < 0)
		return -1;
	d--;
	snprintf(c->name, sizeof(c->name), "%s", m.name);
	snprintf(c->image, sizeof(c->image), "%s", m.image);
	snprintf(c->image_id, sizeof(c->image_id), "%s", m.image_id);
	if (!c->image[0] && m.image_id[0]) {
		snprintf(path, sizeof(path), "%s/%s-images/images.json", storage, drivers[d]);
		if (find_record(path, m.image_id, &img, err, errlen) == 0)
			snprintf(c->image, sizeof(c->image), "%s", img.name);
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
