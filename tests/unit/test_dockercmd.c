/* test_dockercmd.c - docker CLI commands that start a container, and the
 * dockerd list entries they may have started. */
#include <stdio.h>
#include <string.h>

#include "dockercmd.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* argv written with '|' between words */
static int parse(const char *words, struct docker_cmd *c)
{
	char buf[1024];
	size_t n = strlen(words);

	memcpy(buf, words, n + 1);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '|')
			buf[i] = '\0';
	return docker_cmd_parse(buf, n + 1, false, c);
}

static void test_run(void)
{
	struct docker_cmd c;

	CU_ASSERT_EQUAL(parse("docker|run|--rm|busybox", &c), 0);
	CU_ASSERT_EQUAL(c.verb, DOCKER_RUN);
	CU_ASSERT_STRING_EQUAL(c.image, "busybox");
	CU_ASSERT_STRING_EQUAL(c.name, "");
	CU_ASSERT_FALSE(c.command_known);

	CU_ASSERT_EQUAL(parse("/usr/bin/docker|-H|unix:///tmp/d.sock|--context=x|-D|run|-it|"
			      "--name|job1|-e|A=1|-v|/a:/b|--network=none|-eB=2|--sig-proxy=false|"
			      "img:1|sh|-c|gzip -c x", &c), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "job1");
	CU_ASSERT_STRING_EQUAL(c.image, "img:1");
	CU_ASSERT_TRUE(c.command_known);
	CU_ASSERT_STRING_EQUAL(c.command, "sh -c 'gzip -c x'");

	CU_ASSERT_EQUAL(parse("docker|container|create|--name=n2|-u|1000|--|img|true", &c), 0);
	CU_ASSERT_EQUAL(c.verb, DOCKER_CREATE);
	CU_ASSERT_STRING_EQUAL(c.name, "n2");
	CU_ASSERT_STRING_EQUAL(c.image, "img");
	CU_ASSERT_STRING_EQUAL(c.command, "true");

	/* a redacted word: the command is not compared */
	CU_ASSERT_EQUAL(parse("docker|run|img|tool|--token|***", &c), 0);
	CU_ASSERT_FALSE(c.command_known);
}

static void test_start(void)
{
	struct docker_cmd c;

	CU_ASSERT_EQUAL(parse("docker|start|-a|-i|--detach-keys|ctrl-x|job2", &c), 0);
	CU_ASSERT_EQUAL(c.verb, DOCKER_START);
	CU_ASSERT_STRING_EQUAL(c.name, "job2");
	CU_ASSERT_EQUAL(parse("docker|container|start|0123abc", &c), 0);
	CU_ASSERT_STRING_EQUAL(c.name, "0123abc");
}

static void test_not_starting(void)
{
	struct docker_cmd c;

	CU_ASSERT_EQUAL(parse("docker|ps|-a", &c), -1);
	CU_ASSERT_EQUAL(parse("docker|exec|x|sh", &c), -1);
	CU_ASSERT_EQUAL(parse("docker|run|--rm", &c), -1);     /* no image */
	CU_ASSERT_EQUAL(parse("docker|run|--name", &c), -1);   /* no value */
	CU_ASSERT_EQUAL(parse("docker|start", &c), -1);
	CU_ASSERT_EQUAL(parse("podman|run|img", &c), -1);
	CU_ASSERT_EQUAL(parse("docker", &c), -1);
	CU_ASSERT_EQUAL(docker_cmd_parse(NULL, 0, false, &c), -1);
	CU_ASSERT_TRUE(docker_cmd_is_cli("/usr/bin/docker"));
	CU_ASSERT_FALSE(docker_cmd_is_cli("/usr/bin/dockerd"));
}

static const char LIST[] =
	"[{\"Id\":\"" ID "\",\"Names\":[\"/job1\",\"/other/alias\"],\"Image\":\"busybox:latest\","
	"\"ImageID\":\"sha256:aa\",\"Command\":\"sh -c 'gzip -c x'\",\"Created\":1700000010,"
	"\"State\":\"running\",\"Labels\":{\"a\":\"b\"}},"
	"{\"Id\":\"short\",\"Names\":[\"/bad\"]},"
	"{\"Id\":\"" ID "\",\"Names\":[],\"Image\":\"x\",\"Created\":\"soon\",\"State\":\"created\"}]";

static void test_list(void)
{
	struct docker_entry e[4];
	struct docker_cmd c;

	CU_ASSERT_EQUAL(dockercmd_list_parse(LIST, sizeof(LIST) - 1, e, 4), 2);
	CU_ASSERT_STRING_EQUAL(e[0].names, "/job1,/other/alias");
	CU_ASSERT_EQUAL(e[0].created_s, 1700000010);
	CU_ASSERT_TRUE(dockercmd_entry_live(&e[0]));
	CU_ASSERT_FALSE(dockercmd_entry_live(&e[1]));
	CU_ASSERT_EQUAL(e[1].created_s, 0);
	CU_ASSERT_EQUAL(dockercmd_list_parse(LIST, sizeof(LIST) - 1, e, 1), 1);
	CU_ASSERT_EQUAL(dockercmd_list_parse("{}", 2, e, 4), -1);
	CU_ASSERT_EQUAL(dockercmd_list_parse("[", 1, e, 4), -1);

	dockercmd_list_parse(LIST, sizeof(LIST) - 1, e, 4);
	/* by name; created before the client: not its container */
	parse("docker|run|--name|job1|img", &c);
	CU_ASSERT_TRUE(dockercmd_entry_matches(&c, 1700000010, &e[0]));
	CU_ASSERT_FALSE(dockercmd_entry_matches(&c, 1700000011, &e[0]));
	parse("docker|run|--name|job|img", &c);
	CU_ASSERT_FALSE(dockercmd_entry_matches(&c, 1700000000, &e[0]));
	/* by image and command, the image normalised */
	parse("docker|run|docker.io/library/busybox|sh|-c|gzip -c x", &c);
	CU_ASSERT_TRUE(dockercmd_entry_matches(&c, 1700000000, &e[0]));
	parse("docker|run|busybox|sh|-c|gzip -c y", &c);
	CU_ASSERT_FALSE(dockercmd_entry_matches(&c, 1700000000, &e[0]));
	parse("docker|run|busybox|-c|gzip -c x", &c); /* after an ENTRYPOINT sh */
	CU_ASSERT_TRUE(dockercmd_entry_matches(&c, 1700000000, &e[0]));
	parse("docker|run|busybox", &c);
	CU_ASSERT_TRUE(dockercmd_entry_matches(&c, 1700000000, &e[0]));
	parse("docker|run|alpine", &c);
	CU_ASSERT_FALSE(dockercmd_entry_matches(&c, 1700000000, &e[0]));
	/* start: by name or id prefix, whenever it was created */
	parse("docker|start|job1", &c);
	CU_ASSERT_TRUE(dockercmd_entry_matches(&c, 1800000000, &e[0]));
	parse("docker|start|0123456789ab", &c);
	CU_ASSERT_TRUE(dockercmd_entry_matches(&c, 1800000000, &e[0]));
	parse("docker|start|alias", &c);
	CU_ASSERT_FALSE(dockercmd_entry_matches(&c, 1800000000, &e[0]));
}

/* The docker CLI by its file: a copy or a link named docker is not it;
 * a hard link is the same file. */
static void test_exe_is(void)
{
	char dir[] = "/tmp/test_dockercmd.XXXXXX";
	char cli[300], copy[300], hard[300], clients[700];

	CU_ASSERT_EQUAL_FATAL(unit_make_dir(dir), 0);
	unit_write_file(dir, "docker", "#!/bin/sh\n");
	unit_write_file(dir, "other", "#!/bin/sh\n");
	snprintf(cli, sizeof(cli), "%s/docker", dir);
	snprintf(copy, sizeof(copy), "%s/other", dir);
	snprintf(hard, sizeof(hard), "%s/hard", dir);
	CU_ASSERT_EQUAL(link(cli, hard), 0);
	snprintf(clients, sizeof(clients), "/nonexistent/docker, %s", cli);
	CU_ASSERT_EQUAL(docker_cmd_exe_is(cli, clients), 1);
	CU_ASSERT_EQUAL(docker_cmd_exe_is(hard, clients), 1);
	CU_ASSERT_EQUAL(docker_cmd_exe_is(copy, clients), 0);
	CU_ASSERT_EQUAL(docker_cmd_exe_is(cli, ""), 0);
	CU_ASSERT_EQUAL(docker_cmd_exe_is("/nonexistent/x", clients), -1);
	/* this process's own file, through /proc: not the CLI */
	CU_ASSERT_EQUAL(docker_cmd_exe_is("/proc/self/exe", clients), 0);
	unit_remove_dir(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"run and create", test_run},
		{"start", test_start},
		{"commands that start no container", test_not_starting},
		{"the list and its matches", test_list},
		{"the docker CLI by its file, not its name", test_exe_is},
	};

	return unit_run("dockercmd", tests, sizeof(tests) / sizeof(tests[0]));
}
