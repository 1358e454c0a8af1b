/*
 * netaddr.h - "ADDRESS:PORT" listen addresses (metrics_listen): a
 * numeric IPv4 address or a bracketed IPv6 one, and a port.  No name
 * lookups: a configuration value never waits on DNS.
 */
#ifndef TRACER_NETADDR_H
#define TRACER_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* "127.0.0.1:9464", "[::1]:9464": 0, or -1 with the reason in err. */
int netaddr_parse(const char *s, struct sockaddr_storage *out, socklen_t *len,
		  char *err, size_t errlen);

/* Is the parsed address a loopback one (127.0.0.0/8, ::1, ::ffff:127.x)?
 * A wildcard (0.0.0.0, ::) is not. */
bool netaddr_is_loopback(const struct sockaddr_storage *ss);

#endif
