/*
 * sink_file_share.c - the file sink's archive shared out by user
 * (sink_priv.h).  Rotation used to drop the oldest rotated file whole,
 * so that a user who ran enough jobs pushed every other user's summaries
 * out of the archive.  Now the oldest file and the one rotated onto it
 * are merged into at most file_max_bytes: while they hold more, the
 * share (lib/share.h: the job's user, scheduled jobs apart) holding the
 * most loses its oldest summary.  A flood of one user's jobs drops that
 * user's own summaries; the others' stay.  Lines keep their order, so the
 * archive stays oldest first.
 *
 * Runs in the file sink's delivery thread, once per rotation: it reads
 * the two files twice (an index of line offsets and shares, then the
 * copy), never holding their text in memory.
 */
#include "sink_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "share.h"

struct line {
	uint64_t share;
	uint64_t bytes;      /* with its newline */
	size_t next_of_share; /* the share's next line, or SIZE_MAX */
	unsigned char file;  /* 0: the older file, 1: the newer */
	bool dropped;
};

struct index {
	struct line *v;
	size_t n, cap;
};

static int index_add(struct index *ix, const struct line *l)
{
	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 1024;
		struct line *v = realloc(ix->v, cap * sizeof(*v));

		if (!v)
			return -1;
		ix->v = v;
		ix->cap = cap;
	}
	ix->v[ix->n++] = *l;
	return 0;
}

/* Every line of path, with its share, into ix; 0, -1 with err. */
static int index_file(const char *path, unsigned char which, struct index *ix,
		      struct share_tally *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&text, &cap, f)) > 0) {
		struct line l = {.bytes = (uint64_t)n, .next_of_share = SIZE_MAX, .file = which};

		l.share = share_of_text(text, (size_t)n);
		if (index_add(ix, &l) != 0 || share_tally_add(t, l.share, n) != 0) {
			snprintf(err, errlen, "out of memory indexing %s", path);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	free(text);
	fclose(f);
	return rc;
}

/* Mark the lines to drop: the largest share's oldest, until the rest
 * fits budget.  The number dropped. */
static uint64_t choose(struct index *ix, struct share_tally *t, uint64_t budget)
{
	uint64_t total = 0, dropped = 0, share;
	struct {
		uint64_t share;
		size_t first, last;
	} *heads = calloc(t->n ? t->n : 1, sizeof(*heads));
	size_t nheads = 0;

	if (!heads)
		return 0;
	/* each share's lines, oldest first, as a list through the index */
	for (size_t i = 0; i < ix->n; i++) {
		size_t h = 0;

		total += ix->v[i].bytes;
		while (h < nheads && heads[h].share != ix->v[i].share)
			h++;
		if (h == nheads) {
			if (nheads == t->n)
				break; /* not in the tally: cannot happen */
			heads[nheads++] = (typeof(*heads)){ix->v[i].share, i, i};
		} else {
			ix->v[heads[h].last].next_of_share = i;
			heads[h].last = i;
		}
	}
	while (total > budget && share_tally_largest(t, &share) == 0) {
		size_t h = 0, k;

		while (h < nheads && heads[h].share != share)
			h++;
		if (h == nheads || (k = heads[h].first) == SIZE_MAX)
			break;
		ix->v[k].dropped = true;
		heads[h].first = ix->v[k].next_of_share;
		share_tally_add(t, share, -(int64_t)ix->v[k].bytes);
		total -= ix->v[k].bytes;
		dropped++;
	}
	free(heads);
	return dropped;
}

/* Copy the kept lines of path (file which, its index from *pos on) to out. */
static int copy_kept(const char *path, unsigned char which, const struct index *ix,
		     size_t *pos, FILE *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	if (!f)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1);
	while ((n = getline(&text, &cap, f)) > 0) {
		/* a line appended since the index was made is kept */
		bool keep = true;

		if (*pos < ix->n && ix->v[*pos].file == which)
			keep = !ix->v[(*pos)++].dropped;
		if (keep && fwrite(text, 1, (size_t)n, out) != (size_t)n) {
			snprintf(err, errlen, "write: %s", strerror(errno));
			rc = -1;
			break;
		}
	}
	free(text);
	fclose(f);
	return rc;
}

int sink_file_share_merge(const char *older, const char *newer, uint64_t budget, uint64_t *dropped,
		     char *err, size_t errlen)
{
	struct index ix = {0};
	struct share_tally t = {0};
	char tmp[700];
	struct stat st;
	FILE *out = NULL;
	size_t pos = 0;
	int rc = -1;

	*dropped = 0;
	err[0] = '\0';
	if (index_file(older, 0, &ix, &t, err, errlen) != 0 ||
	    index_file(newer, 1, &ix, &t, err, errlen) != 0)
		goto out;
	*dropped = choose(&ix, &t, budget);
	snprintf(tmp, sizeof(tmp), "%s.merge", newer);
	out = fopen(tmp, "wxe");
	if (!out) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	/* the newer file's owner, group (admin_group) and mode */
	if (stat(newer, &st) == 0 &&
	    (fchown(fileno(out), st.st_uid, st.st_gid) != 0 ||
	     fchmod(fileno(out), st.st_mode & 0777) != 0)) {
		snprintf(err, errlen, "%s: owner and mode of %s: %s", tmp, newer, strerror(errno));
		goto out;
	}
	if (copy_kept(older, 0, &ix, &pos, out, err, errlen) != 0 ||
	    copy_kept(newer, 1, &ix, &pos, out, err, errlen) != 0 || fflush(out) != 0 ||
	    fdatasync(fileno(out)) != 0) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fclose(out) != 0 || rename(tmp, newer) != 0) {
		out = NULL;
		snprintf(err, errlen, "%s: %s", newer, strerror(errno));
		goto out;
	}
	out = NULL;
	rc = 0;
out:
	if (out)
		fclose(out);
	if (rc != 0)
		unlink(tmp);
	free(ix.v);
	share_tally_free(&t);
	return rc;
}
