/* SPDX-License-Identifier: BSD-3-Clause */
/* A download: HTTP/1.1 GET over the stack's TCP, redirects, the body written to the
 * file straight from the mbufs (pwritev, batched) and hashed (SHA-256) as it arrives. */
#ifndef TP_FETCH_DL_H
#define TP_FETCH_DL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../proto/http.h"
#include "../proto/sha256.h"
#include "net.h"
#include "tcp.h"

#define DL_PART_MIN (256 * 1024) /* no part smaller than this */

/* Exit statuses, after wget's where they exist (see --help and README). */
enum dl_exit {
	DL_OK = 0,
	DL_E_GENERIC = 1, /* start-up: EAL, port, memory */
	DL_E_USAGE = 2,	  /* bad command line */
	DL_E_FILE = 3,	  /* the output file cannot be opened or written */
	DL_E_NET = 4,	  /* ARP, refused, reset, unreachable, timed out */
	DL_E_SHORT = 5,	  /* the connection ended before the body did */
	DL_E_PROTO = 7,	  /* a malformed response, too many redirects */
	DL_E_HTTP = 8,	  /* the server answered 4xx or 5xx (or an unfollowed 3xx) */
	DL_E_SHA = 9,	  /* the file's SHA-256 is not --sha256's */
};

#define DL_IOV 256		    /* spans per pwritev (IOV_MAX is 1024) */
#define DL_WRITE_BATCH (256 * 1024) /* bytes that make a pwritev due */
#define DL_WRITE_AGE_MS 2	    /* or the first span's age, checked once a loop pass */
/* Files on a block device are written with O_DIRECT: the body copied from the mbufs
 * into an aligned buffer (the one copy), the buffer DMAed to the device, no page cache. */
#define DL_STAGE (1024 * 1024) /* bytes per O_DIRECT write */
#define DL_ALIGN 4096	       /* O_DIRECT offsets and lengths: multiples of this */
/* An O_DIRECT write that keeps the loop off the port longer than this is counted
 * (direct_slow): the rx ring (2048 frames) holds about 5 ms of a 5 Gbit/s download, and
 * the sender stops when its window (a few hundred KiB here) is out unacknowledged. */
#define DL_DIRECT_SLOW_US 2000

struct dl_opts {
	const char *url;
	const char *out;	 /* file name */
	const char *sha256_hex;	 /* expected digest, or NULL */
	bool digest;		 /* compute the body's SHA-256 (--no-digest: not) */
	uint32_t window;	 /* TCP receive window, bytes */
	unsigned int timeout_s;	 /* no progress for this long: failure */
	unsigned int max_time_s; /* the whole download at most this long (0: no limit) */
	unsigned int max_redirects;
	bool progress;		  /* a progress line on stderr */
	bool resume;		  /* continue a partial file with a Range request (wget -c) */
	unsigned int connections; /* parallel ranges (1: one plain GET) */
	bool direct;		  /* O_DIRECT where the file system bypasses the page cache */
};

/* Body bytes waiting for one write: spans of mbufs we hold a reference to (pwritev),
 * or bytes copied into the stage (O_DIRECT). */
struct dl_writer {
	int fd;
	int dfd;	/* the file opened O_DIRECT, or -1 */
	uint8_t *stage; /* DL_STAGE bytes, DL_ALIGN-aligned (O_DIRECT), or NULL */
	size_t staged;	/* bytes in the stage, from file offset off */
	uint64_t off;	/* the file offset of iov[0] or stage[0] */
	unsigned int niov, nm;
	size_t bytes;
	int err;	   /* errno of the first failed write */
	uint64_t first_at; /* TSC when the first span waiting came */
	uint64_t writes;
	struct iovec iov[DL_IOV];
	struct rte_mbuf *m[DL_IOV];
};

enum dl_conn_state {
	DLC_IDLE = 0,
	DLC_CONNECTING,
	DLC_WAITING, /* request sent, no header section yet */
	DLC_BODY,
	DLC_DONE,
	DLC_REDIRECT, /* a 3xx to follow: the loop opens the next connection */
	DLC_FAILED,
};

struct dl;

struct dl_conn {
	struct dl *dl;
	enum dl_conn_state st;
	bool peer_fin, closed;
	bool used;	     /* a connection was opened in this slot */
	bool probe;	     /* asks for one byte to learn the size (parallel ranges) */
	bool part;	     /* asks for [first, end) */
	uint64_t first, end; /* the range asked for (part), file offsets */
	uint64_t next;	     /* file offset of its next body byte */
	uint64_t rend;	     /* a 206's Content-Range end + 1: the body ends there (0: no 206) */
	struct dl_writer w;
	struct tp_http_resp resp;
	struct tcp_conn tcp;
};

struct dl {
	struct fetch_net *net;
	const struct dl_opts *o;
	struct tp_url url; /* the current one (after redirects) */
	char url_s[TP_HTTP_HOST_MAX + TP_HTTP_PATH_MAX + 32];
	int fd;
	int dfd; /* the same file opened O_DIRECT (o->direct, a block device's), or -1 */
	struct tp_sha256 sha;
	char sha_hex[65];
	struct dl_conn *conns; /* conns[0]: the first (and only, with one connection) */
	unsigned int nconn;    /* slots: connections + 1 */
	unsigned int nparts;   /* ranges the body was split into (0: one GET) */
	uint64_t total;	       /* the file's size, when a probe told it */
	uint64_t hashed;       /* the digest covers [0, hashed) of the file (if o->digest) */
	unsigned int redirects;
	int status;	       /* the final response's status */
	const char *framing;   /* how its body was delimited: length, chunked, close */
	uint64_t expected;     /* body length when known, else UINT64_MAX */
	uint64_t bytes;	       /* body bytes received */
	uint64_t written;      /* body bytes written to the file */
	uint64_t resumed_from; /* bytes of the file there before (--continue) */
	uint64_t t_start, t_end, t_progress, t_bar;
	uint64_t retransmits, ooo_segs, dup_segs; /* of finished connections */
	uint64_t writes;			  /* write calls of finished connections */
	uint64_t write_cycles;			  /* TSC cycles in file writes, every connection */
	uint64_t write_wait_cycles; /* of those, waiting for the device (O_DIRECT), off the CPU */
	uint64_t direct_bytes;	    /* body bytes written with O_DIRECT */
	uint64_t direct_slow;	    /* O_DIRECT writes that waited over DL_DIRECT_SLOW_US */
	uint64_t direct_max_wait;   /* the longest wait of one, TSC cycles */
	const char *direct;	    /* O_DIRECT: "off", "on", or why it stopped */
	bool finished;		    /* success or failure decided */
	int exit;
	char err[512];
};

/* Start downloading o->url. 0, or an exit status with the reason in d->err. */
int dl_start(struct dl *d, struct fetch_net *n, const struct dl_opts *o);
/* Once per loop pass (after tcp_poll): redirects, writers whose data waited
 * DL_WRITE_AGE_MS, the timeout, the progress line. */
void dl_poll(struct dl *d);
/* After the loop: flush, close the file, release the connections; compare the digest.
 * The exit status. */
int dl_finish(struct dl *d);
/* Are the connections closed (or given up after a linger)? */
bool dl_closed(const struct dl *d);

#endif
