/* iorw FILE BYTES - write BYTES to FILE, read them back, exit.  Built
 * static so that no loader reads add to the counted bytes. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	long left, total;
	int fd;

	if (argc < 3)
		return 2;
	total = atol(argv[2]);
	fd = open(argv[1], O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0)
		return 1;
	for (left = total; left > 0;) {
		ssize_t n = write(fd, buf, left < (long)sizeof(buf) ? (size_t)left : sizeof(buf));
		if (n <= 0)
			return 1;
		left -= n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 1;
	for (left = total; left > 0;) {
		ssize_t n = read(fd, buf, left < (long)sizeof(buf) ? (size_t)left : sizeof(buf));
		if (n <= 0)
			return 1;
		left -= n;
	}
	close(fd);
	return 0;
}
