/*
 * netaddr.c - parse listen addresses (netaddr.h).
 */
#include "netaddr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

static int parse_port(const char *p, in_port_t *port)
{
	char *end;
	long v;

	if (!*p || *p == '+' || *p == '-')
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -1;
	*port = htons((in_port_t)v);
	return 0;
}

int netaddr_parse(const char *s, struct sockaddr_storage *out, socklen_t *len,
		  char *err, size_t errlen)
{
	char host[64];
	const char *colon, *start = s;
	size_t n;
	in_port_t port;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return errmsg_fail(err, errlen, "empty address");
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':')
			return errmsg_fail(err, errlen, "expected [IPv6]:PORT");
		start = s + 1;
		n = (size_t)(close - start);
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return errmsg_fail(err, errlen, "expected ADDRESS:PORT (e.g. 127.0.0.1:9464)");
		n = (size_t)(colon - s);
	}
	if (n == 0 || n >= sizeof(host))
		return errmsg_fail(err, errlen, "bad address part");
	memcpy(host, start, n);
	host[n] = '\0';
	if (parse_port(colon + 1, &port) != 0)
		return errmsg_fail(err, errlen, "port must be 1..65535");
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)out;
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return errmsg_fail(err, errlen, "\"%s\" is not a numeric IPv6 address", host);
		a->sin6_family = AF_INET6;
		a->sin6_port = port;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)out;
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return errmsg_fail(err, errlen, "\"%s\" is not a numeric IPv4 address", host);
		a->sin_family = AF_INET;
		a->sin_port = port;
		*len = sizeof(*a);
	}
	return 0;
}

bool netaddr_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a))
			return a->s6_addr[12] == 127;
		return IN6_IS_ADDR_LOOPBACK(a);
	}
	return false;
}
