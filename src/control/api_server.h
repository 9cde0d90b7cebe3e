/* SPDX-License-Identifier: BSD-3-Clause */
/* The API server: a unix stream socket speaking api/api.h, dispatching to cmd.h.
 * Non-blocking: no client can hold the control loop (see api_server.c). The socket
 * is created 0660 whatever the umask; clients must be root, the daemon's user, or
 * in the socket's group. */
#ifndef TP_CONTROL_API_SERVER_H
#define TP_CONTROL_API_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conn.h"

struct tp_api_opts {
	gid_t gid;	       /* group of the socket and of allowed clients; -1: none */
	bool may_remove_stale; /* a socket nobody listens on at path is ours to remove */
};

extern struct tp_conn_limits tp_api_limits;

struct tp_api_stats {
	struct tp_conn_stats conn; /* accepted, refused_full, closed by deadline and idle */
	uint64_t requests, refused_peer;
};

extern struct tp_api_stats tp_api_stats;
/* The connection table (conn.h): `set api`, `show api`. */
extern struct tp_conn_server tp_api_server;

/* Listen on path (its directory is created). A file already at path is never
 * removed unless it is a socket nobody listens on and o->may_remove_stale. 0 or
 * negative errno, with err saying why where it is not obvious. */
int tp_api_init(const char *path, const struct tp_api_opts *o, char *err, size_t errlen);
void tp_api_fini(void);
/* The socket's group, -1 if none (other sockets made "like the API's"). */
int tp_api_socket_gid(void);
/* Clients connected now. */
unsigned int tp_api_conns(void);

#endif
