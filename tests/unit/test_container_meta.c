/* test_container_meta.c - container names and images from containers/storage
 * records and from a registrant's labels, never from anything else. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container_meta.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define IMG "1111111111111111111111111111111111111111111111111111111111111111"

static char dir[] = "/tmp/tracer-ctmeta.XXXXXX";

static void write_file(const char *rel, const char *text)
{
	unit_write_file(dir, rel, text);
}

static void podman_ct(struct container_info *c, const char *id)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->runtime, sizeof(c->runtime), "podman");
	snprintf(c->id, sizeof(c->id), "%s", id);
}

/* as podman 4 writes them (vfs driver); "metadata" is a JSON string */
static const char containers_json[] =
	"[{\"id\":\"" ID "\",\"names\":[\"ct-run\"],\"image\":\"" IMG "\","
	"\"layer\":\"ab\",\"metadata\":\"{\\\"image-name\\\":\\\"localhost/tools:1\\\","
	"\\\"image-id\\\":\\\"" IMG "\\\",\\\"name\\\":\\\"ct-run\\\"}\",\"created\":\"2026\"},"
	"{\"id\":\"" ID2 "\",\"names\":[],\"image\":\"" IMG "\",\"metadata\":\"{}\"}]";
static const char images_json[] =
	"[{\"id\":\"" IMG "\",\"names\":[\"localhost/from-images:2\"],\"metadata\":\"{}\"}]";

static void test_storage(void)
{
	struct container_info c;
	char sub[600];

	snprintf(sub, sizeof(sub), "%s/vfs-containers", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/vfs-images", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	write_file("vfs-containers/containers.json", containers_json);
	write_file("vfs-images/images.json", images_json);

	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "ct-run");
	CU_ASSERT_STRING_EQUAL(c.image, "localhost/tools:1");
	CU_ASSERT_STRING_EQUAL(c.image_id, IMG);

	/* no image-name in its metadata: the image's name from images.json */
	podman_ct(&c, ID2);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "");
	CU_ASSERT_STRING_EQUAL(c.image, "localhost/from-images:2");

	/* unknown id, other runtimes, no storage */
	podman_ct(&c, "2222222222222222222222222222222222222222222222222222222222222222");
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), -1);
	podman_ct(&c, ID);
	snprintf(c.runtime, sizeof(c.runtime), "docker");
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), -1);
	CU_ASSERT_STRING_EQUAL(c.name, "");
	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage("", &c, NULL, 0), -1);
	CU_ASSERT_EQUAL(container_meta_storage("/nonexistent", &c, NULL, 0), -1);

	/* the file changes (a new container): read again */
	write_file("vfs-containers/containers.json",
		   "[{\"id\":\"" ID "\",\"names\":[\"renamed-longer\"],\"metadata\":\"x\"}]");
	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "renamed-longer");
	CU_ASSERT_STRING_EQUAL(c.image, "");

	/* not JSON, or not an array: no names, no crash */
	write_file("vfs-containers/containers.json", "{\"id\":\"" ID "\"}");
	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), -1);
	write_file("vfs-containers/containers.json", "[{\"id\":");
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), -1);
	container_meta_reset();
}

/* Replace a file as podman does: a new file renamed over the old one. */
static void replace_file(const char *rel, const char *text)
{
	char tmp[600], path[600];

	write_file("replace.tmp", text);
	snprintf(tmp, sizeof(tmp), "%s/replace.tmp", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	CU_ASSERT_EQUAL(rename(tmp, path), 0);
}

/* A file is read once while unchanged, and again once it changes. */
static void test_cache(void)
{
	struct container_info c;
	uint64_t reads, hits;

	container_meta_reset();
	replace_file("vfs-containers/containers.json", containers_json);
	replace_file("vfs-images/images.json", images_json);
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads, 0);
	CU_ASSERT_EQUAL(hits, 0);
	for (int i = 0; i < 3; i++) {
		podman_ct(&c, ID);
		CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
		CU_ASSERT_STRING_EQUAL(c.name, "ct-run");
		podman_ct(&c, ID2);
		CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
		CU_ASSERT_STRING_EQUAL(c.image, "localhost/from-images:2");
	}
	/* containers.json and images.json once each, then from the kept bytes */
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads, 2);
	CU_ASSERT_EQUAL(hits, 6 + 3 - 2);
	/* a new record: a new file (inode), read again */
	replace_file("vfs-containers/containers.json",
		     "[{\"id\":\"" ID "\",\"names\":[\"ct-renamed\"],\"metadata\":\"{}\"}]");
	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "ct-renamed");
	podman_ct(&c, ID2);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), -1);
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads, 3);
	CU_ASSERT_EQUAL(hits, 6 + 3 - 2 + 1);
	/* the same file grown in place (another size): read again */
	write_file("vfs-containers/containers.json", containers_json);
	podman_ct(&c, ID2);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), 0);
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads, 4);
	/* removed: nothing from the kept bytes */
	replace_file("vfs-containers/containers.json", "[]");
	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, NULL, 0), -1);
	container_meta_reset();
	container_meta_counts(&reads, &hits);
	CU_ASSERT_EQUAL(reads + hits, 0);
}

static void test_too_big(void)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/vfs-containers/containers.json", dir);
	CU_ASSERT_EQUAL_FATAL(truncate(path, CONTAINER_META_MAX_BYTES + 1), 0);
	struct container_info c;

	char why[700];

	podman_ct(&c, ID);
	CU_ASSERT_EQUAL(container_meta_storage(dir, &c, why, sizeof(why)), -1);
	/* said to the caller, who logs it (lib/ never prints) */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "read for container names: not read"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, path));
	/* a plain miss says nothing */
	CU_ASSERT_EQUAL(container_meta_storage("/nonexistent", &c, why, sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "");
	container_meta_reset();
}

static void test_labels(void)
{
	struct tracer_identity id;
	struct container_info c;

	identity_init(&id);
	podman_ct(&c, ID);
	snprintf(c.runtime, sizeof(c.runtime), "ecs");
	CU_ASSERT_EQUAL(container_meta_labels(&id, &c), -1);
	identity_set_label(&id, "container.name", "main");
	identity_set_label(&id, "container.image", "123.dkr.ecr/tools:3");
	/* the labels of another container name nothing */
	identity_set_label(&id, "container.id", ID2);
	CU_ASSERT_EQUAL(container_meta_labels(&id, &c), -1);
	CU_ASSERT_STRING_EQUAL(c.name, "");
	/* a prefix too short to be an id */
	identity_set_label(&id, "container.id", "0123");
	CU_ASSERT_EQUAL(container_meta_labels(&id, &c), -1);
	identity_set_label(&id, "container.id", ID);
	CU_ASSERT_EQUAL(container_meta_labels(&id, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "main");
	CU_ASSERT_STRING_EQUAL(c.image, "123.dkr.ecr/tools:3");
	podman_ct(&c, ID);
	identity_set_label(&id, "container.id", "0123456789ab");
	CU_ASSERT_EQUAL(container_meta_labels(&id, &c), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"containers/storage records", test_storage},
		{"files kept while unchanged (dev, ino, size, mtime)", test_cache},
		{"a file over the bound is not read", test_too_big},
		{"registrant labels name only its container", test_labels},
	};
	int rc;

	if (unit_make_dir(dir) < 0)
		return 1;
	rc = UNIT_RUN("container_meta", tests);
	unit_remove_dir(dir);
	return rc;
}
