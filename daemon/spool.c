/*
 * spool.c - the spool directory (spool.h).
 *
 * Record: spool_dir/<seq, 16 hex digits>.rec holding a header line
 * "tracer-spool 1 <length> <crc32 hex>\n" and the summary's JSON.  It is
 * written to .tmp-<seq>, fsync'ed, renamed, and the directory fsync'ed:
 * after a crash a record is either whole under its name or absent (a
 * leftover .tmp- file is removed at start).  The header is checked when
 * a record is read back; one that fails is renamed *.corrupt, counted
 * and logged, never delivered.
 *
 * Positions: spool_dir/<sink>.pos holds the sequence number of the last
 * record that sink has (written with tmp+rename; not synced: a position
 * lost in a power cut means a few summaries delivered twice, which the
 * summary_id makes harmless).
 *
 * Memory: an index of (seq, size, share) per record; the texts stay on
 * disk until a delivery thread reads its batch.
 *
 * Shares (lib/share.h): each record counts against its user's share,
 * written in its header ("tracer-spool 2 <length> <crc32> <share>";
 * version 1 records, without share, are read as SHARE_UNKNOWN).  Past
 * spool_max_bytes the share holding the most bytes loses its oldest
 * record, so one user's flood of summaries drops that user's own, never
 * another's; a record dropped from the middle stays in the index as a
 * hole (no bytes, skipped) until the sinks' positions pass it.
 */
#include "spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log.h"
#include "mkdirs.h"
#include "share.h"

#define HEADER_FMT "tracer-spool 2 %zu %08lx %" PRIx64 "\n"
#define HEADER_MAX 64

struct rec {
	uint64_t seq;
	uint64_t bytes; /* file size; 0 once dropped */
	uint64_t share; /* lib/share.h */
	bool dropped;   /* removed by the cap from the middle: skipped */
};

struct spool {
	pthread_mutex_t lock;
	char dir[256];
	int dirfd;
	uint64_t max_bytes;
	int nsinks;
	enum sink_kind sinks[SINK_KINDS];
	uint64_t pos[SINK_KINDS];
	struct rec *recs; /* recs[head..n) in seq order */
	size_t head, n, cap;
	uint64_t next_seq, bytes;
	size_t holes;             /* dropped records still indexed */
	struct share_tally tally; /* bytes per share */
	struct spool_stats st;
};

static void rec_path(const struct spool *sp, uint64_t seq, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%016" PRIx64 ".rec", sp->dir, seq);
}

static int push_rec(struct spool *sp, uint64_t seq, uint64_t bytes, uint64_t share)
{
	if (sp->head > 0 && sp->head == sp->n) {
		sp->head = sp->n = 0;
	} else if (sp->n == sp->cap && sp->head > sp->cap / 2) {
		memmove(sp->recs, sp->recs + sp->head, (sp->n - sp->head) * sizeof(*sp->recs));
		sp->n -= sp->head;
		sp->head = 0;
	}
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 256;
		struct rec *r = realloc(sp->recs, cap * sizeof(*r));
		if (!r)
			return -1;
		sp->recs = r;
		sp->cap = cap;
	}
	if (share_tally_add(&sp->tally, share, (int64_t)bytes) != 0)
		return -1;
	sp->recs[sp->n++] = (struct rec){seq, bytes, share, false};
	sp->bytes += bytes;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	uint64_t x = ((const struct rec *)a)->seq, y = ((const struct rec *)b)->seq;
	return x < y ? -1 : x > y;
}

static void pos_path(const struct spool *sp, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.pos", sp->dir, sink_kind_name(sp->sinks[i]));
}

/* Called by sink i's thread only, the one that moves pos[i]. */
static void save_pos(struct spool *sp, int i)
{
	char path[320], tmp[330];
	FILE *f;

	pos_path(sp, i, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f || fprintf(f, "%" PRIu64 "\n", sp->pos[i]) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0)
		log_warn("spool: cannot save the position of sink %s in %s: %s",
			 sink_kind_name(sp->sinks[i]), path, strerror(errno));
}

/* The share a record's header names (start-up: one short read each). */
static uint64_t header_share(const struct spool *sp, const char *name)
{
	char head[HEADER_MAX + 1];
	uint64_t share;
	size_t len;
	unsigned long crc;
	int fd = openat(sp->dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, head, HEADER_MAX) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return SHARE_UNKNOWN;
	head[n] = '\0';
	if (sscanf(head, "tracer-spool 2 %zu %lx %" SCNx64, &len, &crc, &share) != 3)
		return SHARE_UNKNOWN;
	return share;
}

static int scan(struct spool *sp)
{
	DIR *d = opendir(sp->dir);
	struct dirent *e;
	uint64_t max_seq = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		uint64_t seq;
		char tail[8];
		struct stat st;

		if (!strncmp(e->d_name, ".tmp-", 5)) {
			/* a write that never finished: never read back */
			unlinkat(sp->dirfd, e->d_name, 0);
			continue;
		}
		if (sscanf(e->d_name, "%16" SCNx64 "%7s", &seq, tail) != 2 || strcmp(tail, ".rec") ||
		    strlen(e->d_name) != 20)
			continue;
		if (fstatat(sp->dirfd, e->d_name, &st, 0) != 0)
			continue;
		if (push_rec(sp, seq, (uint64_t)st.st_size, header_share(sp, e->d_name)) != 0) {
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		if (seq > max_seq)
			max_seq = seq;
	}
	closedir(d);
	if (sp->n)
		qsort(sp->recs, sp->n, sizeof(*sp->recs), cmp_rec);
	sp->next_seq = max_seq + 1;
	return 0;
}

static void load_positions(struct spool *sp)
{
	uint64_t oldest = sp->n ? sp->recs[0].seq : sp->next_seq;

	for (int i = 0; i < sp->nsinks; i++) {
		char path[320];
		FILE *f;

		pos_path(sp, i, path, sizeof(path));
		/* no position: a new sink gets everything still spooled */
		sp->pos[i] = oldest - 1;
		f = fopen(path, "re");
		if (f) {
			uint64_t v;
			if (fscanf(f, "%" SCNu64, &v) == 1)
				sp->pos[i] = v;
			fclose(f);
		}
		/* new records must come after every position, also when the
		 * records a position counted are all gone */
		if (sp->pos[i] >= sp->next_seq)
			sp->next_seq = sp->pos[i] + 1;
	}
}

void spool_set_sinks(struct spool *sp, uint64_t max_bytes, const enum sink_kind *sinks,
		     int nsinks)
{
	uint64_t pos[SINK_KINDS];

	pthread_mutex_lock(&sp->lock);
	for (int i = 0; i < nsinks; i++) {
		pos[i] = UINT64_MAX; /* not configured before: from its file */
		for (int k = 0; k < sp->nsinks; k++)
			if (sp->sinks[k] == sinks[i])
				pos[i] = sp->pos[k];
	}
	sp->max_bytes = max_bytes;
	sp->nsinks = nsinks;
	memcpy(sp->sinks, sinks, (size_t)nsinks * sizeof(*sinks));
	load_positions(sp);
	for (int i = 0; i < nsinks; i++)
		if (pos[i] != UINT64_MAX)
			sp->pos[i] = pos[i];
	pthread_mutex_unlock(&sp->lock);
	/* a sink removed may have been the only one lacking some records */
	spool_ack(sp, -1, 0);
}

struct spool *spool_open(const char *dir, uint64_t max_bytes, const enum sink_kind *sinks,
			 int nsinks, char *err, size_t errlen)
{
	struct spool *sp = calloc(1, sizeof(*sp));

	if (!sp) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&sp->lock, NULL);
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	sp->max_bytes = max_bytes;
	sp->nsinks = nsinks;
	memcpy(sp->sinks, sinks, (size_t)nsinks * sizeof(*sinks));
	/* summaries name users and commands: the spool is root's only */
	if (mkdirs(dir, 0700, err, errlen) != 0) /* parents too: no package made them */
		goto fail;
	sp->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->dirfd < 0 || scan(sp) != 0) {
		snprintf(err, errlen, "spool %s: %s", dir, strerror(errno));
		goto fail;
	}
	load_positions(sp);
	/* what every sink already has (a crash between ack and unlink) */
	spool_ack(sp, -1, 0);
	pthread_mutex_lock(&sp->lock);
	sp->st.records = sp->n - sp->head - sp->holes;
	pthread_mutex_unlock(&sp->lock);
	return sp;
fail:
	if (sp->dirfd > 0)
		close(sp->dirfd);
	free(sp->recs);
	share_tally_free(&sp->tally);
	free(sp);
	return NULL;
}

void spool_close(struct spool *sp)
{
	if (!sp)
		return;
	close(sp->dirfd);
	free(sp->recs);
	share_tally_free(&sp->tally);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The index of share's oldest live record (lock held); n when none. */
static size_t oldest_of(const struct spool *sp, uint64_t share)
{
	for (size_t k = sp->head; k < sp->n; k++)
		if (!sp->recs[k].dropped && sp->recs[k].share == share)
			return k;
	return sp->n;
}

/* Record k out (lock held): its file, its bytes, its share's bytes; the
 * sinks that lacked it count it. */
static void drop_rec(struct spool *sp, size_t k)
{
	struct rec *r = &sp->recs[k];
	char path[300];

	rec_path(sp, r->seq, path, sizeof(path));
	unlink(path);
	sp->bytes -= r->bytes;
	share_tally_add(&sp->tally, r->share, -(int64_t)r->bytes);
	r->bytes = 0;
	r->dropped = true;
	sp->holes++;
	for (int i = 0; i < sp->nsinks; i++)
		if (sp->pos[i] < r->seq)
			sp->st.sink_dropped[sp->sinks[i]]++;
	if (k != sp->head)
		sp->st.share_spared++; /* an older record of a smaller share stays */
	/* holes at the head: the positions move past them */
	while (sp->head < sp->n && sp->recs[sp->head].dropped) {
		for (int i = 0; i < sp->nsinks; i++)
			if (sp->pos[i] < sp->recs[sp->head].seq)
				sp->pos[i] = sp->recs[sp->head].seq;
		sp->head++;
		sp->holes--;
	}
}

/* Out until the spool fits its cap, each time the oldest record of the
 * share holding the most (lock held). */
static void enforce_cap(struct spool *sp)
{
	uint64_t dropped = 0, share = 0;

	while (sp->n - sp->head - sp->holes > 1 && sp->bytes > sp->max_bytes) {
		size_t k;

		if (share_tally_largest(&sp->tally, &share) != 0 ||
		    (k = oldest_of(sp, share)) == sp->n)
			break;
		drop_rec(sp, k);
		dropped++;
	}
	if (dropped) {
		sp->st.dropped += dropped;
		log_error("spool %s over spool_max_bytes (%" PRIu64 "): %" PRIu64
			  " undelivered summaries dropped, the oldest of the largest share (%s %" PRIu64 ")",
			  sp->dir, sp->max_bytes, dropped,
			  share & SHARE_SCHEDULED ? "scheduled jobs of uid" : "uid",
			  (uint64_t)(share & 0xffffffffull));
	}
}

int spool_write(struct spool *sp, const char *text, size_t len, uint64_t share, char *err,
		size_t errlen)
{
	char header[HEADER_MAX], tmp[64], name[32];
	unsigned long crc = crc32(0, (const Bytef *)text, (uInt)len);
	int hlen = snprintf(header, sizeof(header), HEADER_FMT, len, crc, share);
	uint64_t seq;
	int fd, e;

	pthread_mutex_lock(&sp->lock);
	seq = sp->next_seq++;
	pthread_mutex_unlock(&sp->lock);
	snprintf(tmp, sizeof(tmp), ".tmp-%016" PRIx64, seq);
	snprintf(name, sizeof(name), "%016" PRIx64 ".rec", seq);
	fd = openat(sp->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	if (write_all(fd, header, (size_t)hlen) != 0 || write_all(fd, text, len) != 0 ||
	    fsync(fd) != 0) {
		e = errno;
		close(fd);
		unlinkat(sp->dirfd, tmp, 0);
		errno = e;
		goto fail;
	}
	if (close(fd) != 0 || renameat(sp->dirfd, tmp, sp->dirfd, name) != 0) {
		e = errno;
		unlinkat(sp->dirfd, tmp, 0);
		errno = e;
		goto fail;
	}
	if (fsync(sp->dirfd) != 0)
		log_warn("spool %s: fsync of the directory: %s", sp->dir, strerror(errno));
	pthread_mutex_lock(&sp->lock);
	if (push_rec(sp, seq, (uint64_t)hlen + len, share) != 0) {
		pthread_mutex_unlock(&sp->lock);
		/* on disk, not indexed: the next start delivers it */
		snprintf(err, errlen, "out of memory indexing the spool");
		return -ENOMEM;
	}
	sp->st.written++;
	enforce_cap(sp);
	pthread_mutex_unlock(&sp->lock);
	return 0;
fail:
	e = errno;
	pthread_mutex_lock(&sp->lock);
	sp->st.write_errors++;
	if (e == ENOSPC || e == EDQUOT)
		sp->st.disk_full++;
	pthread_mutex_unlock(&sp->lock);
	snprintf(err, errlen, "spool %s: %s", sp->dir, strerror(e));
	return -e;
}

size_t spool_pending(struct spool *sp, int i, uint64_t *seqs, size_t max_n, size_t max_bytes)
{
	size_t n = 0, bytes = 0;

	pthread_mutex_lock(&sp->lock);
	for (size_t k = sp->head; k < sp->n && n < max_n; k++) {
		const struct rec *r = &sp->recs[k];
		if (r->seq <= sp->pos[i] || r->dropped)
			continue;
		if (n && bytes + r->bytes > max_bytes)
			break;
		seqs[n++] = r->seq;
		bytes += r->bytes;
	}
	pthread_mutex_unlock(&sp->lock);
	return n;
}

size_t spool_newest(struct spool *sp, uint64_t *seqs, size_t max_n)
{
	size_t n = 0;

	pthread_mutex_lock(&sp->lock);
	for (size_t k = sp->n; k > sp->head && n < max_n; k--)
		if (!sp->recs[k - 1].dropped)
			seqs[n++] = sp->recs[k - 1].seq;
	pthread_mutex_unlock(&sp->lock);
	return n;
}

static int check_record(const char *data, size_t size, size_t *off, size_t *len)
{
	unsigned long crc;
	size_t l;
	int used = 0;

	uint64_t share;

	if (size < 20 || (memcmp(data, "tracer-spool 1 ", 15) != 0 &&
			  memcmp(data, "tracer-spool 2 ", 15) != 0))
		return -1;
	const char *nl = memchr(data, '\n', size < HEADER_MAX ? size : HEADER_MAX);
	if (!nl)
		return -1;
	if (data[13] == '1' ? sscanf(data, "tracer-spool 1 %zu %lx%n", &l, &crc, &used) != 2
			    : sscanf(data, "tracer-spool 2 %zu %lx %" SCNx64 "%n", &l, &crc,
				     &share, &used) != 3)
		return -1;
	if (data + used != nl)
		return -1;
	*off = (size_t)(nl + 1 - data);
	if (size - *off != l || crc32(0, (const Bytef *)nl + 1, (uInt)l) != crc)
		return -1;
	*len = l;
	return 0;
}

int spool_read(struct spool *sp, uint64_t seq, char **text, size_t *len)
{
	char path[300], bad[320];
	struct stat st;
	size_t off, l;
	char *data;
	int fd;

	rec_path(sp, seq, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !(data = malloc((size_t)st.st_size + 2))) {
		close(fd);
		return -ENOMEM;
	}
	ssize_t got = read(fd, data, (size_t)st.st_size + 1);
	close(fd);
	data[got > 0 ? got : 0] = '\0'; /* the header's sscanf stops here */
	if (got != st.st_size || check_record(data, (size_t)got, &off, &l) != 0) {
		free(data);
		snprintf(bad, sizeof(bad), "%s.corrupt", path);
		rename(path, bad);
		log_error("spool: record %s failed its check (length or CRC): set aside as %s",
			  path, bad);
		pthread_mutex_lock(&sp->lock);
		sp->st.corrupt++;
		pthread_mutex_unlock(&sp->lock);
		return -EBADMSG;
	}
	memmove(data, data + off, l);
	data[l] = '\0';
	*text = data;
	*len = l;
	return 0;
}

/* Unlink the records of seqs[0..n) (no lock held: thousands of unlinks
 * must not stall `tracer status`, which reads the counters). */
static void unlink_all(struct spool *sp, const uint64_t *seqs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char name[32];

		snprintf(name, sizeof(name), "%016" PRIx64 ".rec", seqs[k]);
		if (unlinkat(sp->dirfd, name, 0) != 0 && errno != ENOENT)
			log_warn("spool: cannot remove %s/%s: %s", sp->dir, name, strerror(errno));
	}
}

void spool_ack(struct spool *sp, int i, uint64_t seq)
{
	uint64_t low = UINT64_MAX, *gone = NULL;
	size_t n = 0;
	bool moved = false;

	pthread_mutex_lock(&sp->lock);
	if (i >= 0 && seq > sp->pos[i]) {
		sp->pos[i] = seq;
		moved = true;
	}
	for (int k = 0; k < sp->nsinks; k++)
		if (sp->pos[k] < low)
			low = sp->pos[k];
	size_t first = sp->head;
	while (sp->head < sp->n && sp->recs[sp->head].seq <= low) {
		const struct rec *r = &sp->recs[sp->head++];

		sp->bytes -= r->bytes;
		share_tally_add(&sp->tally, r->share, -(int64_t)r->bytes);
		if (r->dropped)
			sp->holes--;
	}
	size_t removed = sp->head - first;
	if (removed && (gone = malloc(removed * sizeof(*gone))))
		for (size_t k = first; k < sp->head; k++)
			gone[n++] = sp->recs[k].seq;
	pthread_mutex_unlock(&sp->lock);
	if (moved)
		save_pos(sp, i);
	if (gone) {
		unlink_all(sp, gone, n);
		free(gone);
	} else if (removed) {
		/* the next start finds them delivered (positions) and removes them */
		log_warn("spool: out of memory: %zu delivered records stay until the next start",
			 removed);
	}
}

void spool_get_stats(struct spool *sp, struct spool_stats *out)
{
	pthread_mutex_lock(&sp->lock);
	*out = sp->st;
	out->records = sp->n - sp->head - sp->holes;
	out->bytes = sp->bytes;
	for (int i = 0; i < sp->nsinks; i++) {
		uint64_t p = 0;
		for (size_t k = sp->head; k < sp->n; k++)
			if (sp->recs[k].seq > sp->pos[i] && !sp->recs[k].dropped)
				p++;
		out->pending[sp->sinks[i]] = p;
	}
	pthread_mutex_unlock(&sp->lock);
}
