/* test_container.c - containers recognised from cgroup paths. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "container.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void is_ct(const char *path, const char *runtime)
{
	struct container_info c;
	int rc = container_parse_cgroup(path, &c);

	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "\n  %s: not recognised\n", path);
		return;
	}
	CU_ASSERT_STRING_EQUAL(c.runtime, runtime);
	CU_ASSERT_STRING_EQUAL(c.id, ID);
	CU_ASSERT_STRING_EQUAL(c.cgroup, path);
}

static void not_ct(const char *path)
{
	struct container_info c;

	CU_ASSERT_EQUAL(container_parse_cgroup(path, &c), -1);
	if (c.runtime[0] || c.id[0])
		fprintf(stderr, "\n  %s: recognised as %s %s\n", path, c.runtime, c.id);
	CU_ASSERT_STRING_EQUAL(c.runtime, "");
}

static void test_runtimes(void)
{
	is_ct("/system.slice/docker-" ID ".scope", "docker");
	is_ct("/docker/" ID, "docker");
	is_ct("/docker/" ID "/init.scope", "docker");
	is_ct("/machine.slice/libpod-" ID ".scope", "podman");
	is_ct("/machine.slice/libpod-" ID ".scope/container", "podman");
	is_ct("/libpod_parent/libpod-" ID, "podman");
	is_ct("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope",
	      "podman");
	is_ct("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-" ID ".scope",
	      "containerd");
	is_ct("/kubepods/besteffort/pod0f1e/" ID, "containerd");
	is_ct("/kubepods.slice/kubepods-pod1.slice/crio-" ID ".scope", "cri-o");
	is_ct("/ecs/5a8b0a8ed4c84a6b9d5e2c1f3e7a9b0c/" ID, "ecs");
}

static void test_not_containers(void)
{
	not_ct("");
	not_ct("/");
	not_ct("/user.slice/user-0.slice/session-3.scope");
	not_ct("/system.slice/docker.service");
	/* conmon's cgroup is not the container */
	not_ct("/machine.slice/libpod-conmon-" ID ".scope");
	not_ct("/libpod_parent/conmon");
	/* an id of the wrong length or case, a hex name elsewhere */
	not_ct("/docker/0123456789abcdef");
	not_ct("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef");
	not_ct("/slurm/uid_0/job_" ID);
	not_ct("/" ID);
	not_ct("/system.slice/docker-" ID ".scopex");
}

static void test_self(void)
{
	struct container_set s;

	/* the test itself runs on the host (or a container it can name) */
	memset(&s, 0, sizeof(s));
	CU_ASSERT(container_note_pid(&s, getpid()) == (int)s.n);
	CU_ASSERT_EQUAL(container_note_pid(&s, -1), 0);
	container_sample(&s);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"runtimes by cgroup path", test_runtimes},
		{"paths that are no container", test_not_containers},
		{"own process", test_self},
	};

	return unit_run("container", tests, sizeof(tests) / sizeof(tests[0]));
}
