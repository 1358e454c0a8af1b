/*
 * netaddr.h - "ADDRESS:PORT" listen addresses (metrics_listen): a
 * numeric IPv4 address or a bracketed IPv6 one, and a port.  No name
 * lookups: a configuration value never waits on DNS.
 */
#ifndef TRACER_NETADDR_H
#define TRACER_NETADDR_H

#include <stddef.h>
#include <sys/socket.h>

/* "127.0.0.1:9464", "[::1]:9464": 0, or -1 with the reason in err. */
int netaddr_parse(const char *s, struct sockaddr_storage *out, socklen_t *len,
		  char *err, size_t errlen);

#endif
