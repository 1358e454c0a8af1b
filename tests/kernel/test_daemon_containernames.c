/*
 * test_daemon_containernames.c - container names and images looked up on
 * a thread (daemon/containernames.c): a get never reads the records (the
 * first answers "not yet"), the answer arrives from the thread, runtimes
 * without records answer at once with nothing, and the records' files are
 * read once for many look-ups (lib/container_meta.c keeps them).
 * Needs no root; lives here because it links tracerd's objects.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "container_meta.h"
#include "containernames.h"
#include "../unit/unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define ID3 "2222222222222222222222222222222222222222222222222222222222222222"
#define IMG "1111111111111111111111111111111111111111111111111111111111111111"

static char dir[] = "/tmp/tracer-ctnames.XXXXXX";

static void write_file(const char *rel, const char *text)
{
	unit_write_file(dir, rel, text);
}

static void ct(struct container_info *c, const char *runtime, const char *id)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	snprintf(c->id, sizeof(c->id), "%s", id);
}

/* polled for up to 5 s: true when the answer came */
static bool wait_answer(struct container_info *c)
{
	uint64_t until = clock_mono_ns() + 5 * NS_PER_SEC;

	while (clock_mono_ns() < until) {
		if (containernames_get(dir, c))
			return true;
		usleep(1000);
	}
	return false;
}

static void test_names(void)
{
	struct container_info c;
	uint64_t reads, hits;
	char sub[600];

	snprintf(sub, sizeof(sub), "%s/vfs-containers", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/vfs-images", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	write_file("vfs-containers/containers.json",
		   "[{\"id\":\"" ID "\",\"names\":[\"web\"],\"image\":\"" IMG "\","
		   "\"metadata\":\"{\\\"image-name\\\":\\\"localhost/web:1\\\"}\"},"
		   "{\"id\":\"" ID2 "\",\"names\":[\"db\"],\"image\":\"" IMG "\",\"metadata\":\"{}\"}]");
	write_file("vfs-images/images.json",
		   "[{\"id\":\"" IMG "\",\"names\":[\"localhost/base:2\"]}]");
	CU_ASSERT_FATAL(containernames_start() == 0);

	/* the first get queues the look-up and answers "not yet" at once */
	ct(&c, "podman", ID);
	CU_ASSERT_FALSE(containernames_get(dir, &c));
	CU_ASSERT_STRING_EQUAL(c.name, "");
	CU_ASSERT_FATAL(wait_answer(&c));
	CU_ASSERT_STRING_EQUAL(c.name, "web");
	CU_ASSERT_STRING_EQUAL(c.image, "localhost/web:1");
	CU_ASSERT_STRING_EQUAL(c.image_id, IMG);

	/* another container of the same file; its image named in images.json */
	ct(&c, "podman", ID2);
	CU_ASSERT_FATAL(wait_answer(&c));
	CU_ASSERT_STRING_EQUAL(c.name, "db");
	CU_ASSERT_STRING_EQUAL(c.image, "localhost/base:2");
	/* an id the records do not have: an answer that names nothing */
	ct(&c, "cri-o", ID3);
	CU_ASSERT_FATAL(wait_answer(&c));
	CU_ASSERT_STRING_EQUAL(c.name, "");

	/* containers.json read once for three look-ups, images.json once */
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads, 2);
	CU_ASSERT_EQUAL(hits, 1 + 1);

	/* answered again from the cache, the files not even opened */
	ct(&c, "podman", ID);
	CU_ASSERT_TRUE(containernames_get(dir, &c));
	CU_ASSERT_STRING_EQUAL(c.name, "web");

	/* runtimes without containers/storage records, no storage: at once */
	ct(&c, "docker", ID);
	CU_ASSERT_TRUE(containernames_get(dir, &c));
	CU_ASSERT_STRING_EQUAL(c.name, "");
	ct(&c, "apptainer", ID);
	CU_ASSERT_TRUE(containernames_get(dir, &c));
	ct(&c, "podman", ID);
	CU_ASSERT_TRUE(containernames_get("", &c));
	CU_ASSERT_STRING_EQUAL(c.name, "");
	containernames_stop();
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads + hits, 0); /* the kept files went with the thread */
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"names and images from a thread, files read once", test_names},
	};
	int rc;

	if (unit_make_dir(dir) < 0)
		return 1;
	rc = UNIT_RUN("daemon_containernames", tests);
	unit_remove_dir(dir);
	return rc;
}
