/*
 * notify.h - tell the service manager how tracerd is doing (the sd_notify
 * protocol: one datagram to the unix socket named by $NOTIFY_SOCKET).
 * READY=1 goes once the BPF programs are attached and the socket
 * listens, so that units ordered after tracerd (slurmd) start only when
 * their jobs can register.  No-op when not run by systemd.
 */
#ifndef TRACERD_NOTIFY_H
#define TRACERD_NOTIFY_H

/* Send one state line ("READY=1", "STOPPING=1"); 0, or -1 (ignored by
 * callers: the daemon works without a service manager). */
int notify_send(const char *state);

#endif
