/* SPDX-License-Identifier: BSD-3-Clause */
/* The metrics server: a minimal HTTP/1.1 server on the control loop answering
 * GET /metrics with the page of control/metrics.h. Off until 'metrics listen' (or
 * --metrics). Non-blocking like the API server: a request must arrive within the
 * deadline of the connection (or, on a kept-alive connection, of its first byte), and
 * its answer be taken within the deadline; a header section over the cap is refused
 * (431); at most max_conns clients; other paths 404, other methods 405, malformed
 * requests 400, all counted. */
#ifndef TP_CONTROL_METRICS_SERVER_H
#define TP_CONTROL_METRICS_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"

/* A request's header section may take at most this many bytes. */
#define TP_METRICS_HDR_MAX 8192u
/* After a last answer, what the client still sends is read away this long at most
 * (and never past the deadline). */
#define TP_METRICS_LINGER_MS 1000u

struct tp_metrics_server_stats {
	struct tp_conn_stats conn; /* accepted, refused_full, closed by deadline and idle */
	uint64_t scrapes;	   /* pages served (200) */
	uint64_t bad_request, not_found, bad_method, too_large; /* 400, 404, 405, 431 */
	uint64_t bad_version, page_failed;			/* 505, 500 */
	uint64_t page_bytes;					/* of the last page */
};

extern struct tp_conn_limits tp_metrics_limits; /* idle: of a kept-alive connection */
extern struct tp_metrics_server_stats tp_metrics_server_stats;

struct tp_metrics;

/* Listen on "A.B.C.D:PORT". 0, or negative errno with err saying why (-EBUSY: already
 * listening; stop first). */
int tp_metrics_listen(const char *addr, char *err, size_t errlen);
/* Close the listening socket and every client. */
void tp_metrics_stop(void);
/* The server's own families, for the page. */
void tp_metrics_server_page(struct tp_metrics *m);

#endif
