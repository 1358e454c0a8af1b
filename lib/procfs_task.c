/*
 * procfs_task.c - per-thread readers of /proc/<pid>/task/ (procfs_task.h).
 * Threads come and go while the directory is read: a thread whose file is
 * gone is skipped, never an error.
 */
#include "procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define STAT_BUF 4096

int procfs_read_threads_io(pid_t pid, struct procfs_io *sum)
{
	char dir_path[64], file[64];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	memset(sum, 0, sizeof(*sum));
	snprintf(dir_path, sizeof(dir_path), "/proc/%d/task", (int)pid);
	dir = opendir(dir_path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char buf[STAT_BUF];
		struct procfs_io io;
		ssize_t len;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "task/%.20s/io", de->d_name);
		len = procfs_read_text(pid, file, buf, sizeof(buf));
		if (len <= 0 || procfs_parse_io(buf, (size_t)len, &io) != 0)
			continue; /* the thread exited meanwhile */
		procfs_io_add(sum, &io);
		n++;
	}
	closedir(dir);
	if (n == 0) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

int procfs_read_threads(pid_t pid, int max_threads, struct procfs_threads *out)
{
	char dir_path[64], file[64];
	struct dirent *de;
	DIR *dir;

	memset(out, 0, sizeof(*out));
	snprintf(dir_path, sizeof(dir_path), "/proc/%d/task", (int)pid);
	dir = opendir(dir_path);
	if (!dir)
		return -1;
	while (out->read < max_threads && (de = readdir(dir))) {
		char buf[STAT_BUF];
		struct procfs_stat st;
		ssize_t len;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "task/%.20s/stat", de->d_name);
		len = procfs_read_text(pid, file, buf, sizeof(buf));
		if (len <= 0 || procfs_parse_stat(buf, (size_t)len, &st) != 0)
			continue; /* the thread exited meanwhile */
		out->read++;
		out->blkio_ticks += st.blkio_ticks;
		if (st.state == 'R') {
			if (out->running < (int)(sizeof(out->cpus) / sizeof(out->cpus[0])))
				out->cpus[out->running] = st.processor;
			out->running++;
		}
	}
	closedir(dir);
	if (out->read == 0) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}
