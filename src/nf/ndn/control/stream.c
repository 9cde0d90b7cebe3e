/* SPDX-License-Identifier: BSD-3-Clause */
/* Stream faces: NDN applications on the host connect to a Unix socket (python-ndn's
 * and ndn-cxx's default, /run/nfd/nfd.sock) or to TCP port 6363, as they would to
 * NFD (daemon/face/unix-stream-*, tcp-*, stream-transport.hpp); a face per
 * connection.
 *
 * The sockets live on the control plane's loop (control.h), non-blocking like the API
 * server's: a listener accepts a bounded number per pass and at most
 * ndn_limits.stream_conns connections; a connection's bytes are cut into TLV
 * elements (proto/ndn.h's stream framing: a partial element is kept, a malformed or
 * oversized one closes the connection), each copied into an mbuf of our pool and
 * handed to a forwarding context's input stage on its hand-back ring, as the
 * management face's answers are. What the lcores send on a stream face comes back on
 * ndn_stream_ring (face.c's link_send); it is written at once if the socket takes it,
 * else queued in the face's send queue, at most ndn_limits.stream_sendq bytes: a
 * reader slower than that is closed (counted), nobody waits for it. A connection
 * closed by its peer, or broken, takes its face and the face's routes with it; a
 * face removed by the operator closes its connection.
 *
 * Unix connections and TCP ones from a loopback address are local faces (NFD's
 * scope: they may send /localhost commands, mgmt.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "../../../control/control.h"
#include "../../../control/port.h"
#include "../ndn.h"

struct rte_ring *ndn_stream_ring;
static struct rte_mempool *stream_pool;
uint64_t ndn_stream_ctr[NDN_S_MAX];
const char *const ndn_stream_ctr_names[NDN_S_MAX] = {
#define X(e, n) n,
    NDN_STREAM_COUNTERS(X)
#undef X
};

#define LISTEN_MAX 8
#define RING_SIZE 4096	  /* packets from the lcores to stream faces */
#define POOL_SIZE 1023	  /* packets from stream faces on their way to the lcores */
#define ACCEPT_BUDGET 16  /* connections accepted per pass and listener */
#define READ_BUDGET 8	  /* reads per pass and connection */
#define DRAIN_BUDGET 1024 /* packets from the ring per pass */

struct listener {
	int fd;
	uint8_t kind; /* NDN_FACE_UNIX or NDN_FACE_TCP */
	char uri[128];
	char path[108]; /* unix: removed when it closes */
	unsigned int conns;
	uint64_t accepted, refused;
};
static struct listener listeners[LISTEN_MAX];
static unsigned int n_listeners;

struct conn {
	int fd;
	uint16_t face;
	bool writable_armed; /* EPOLLOUT asked: the send queue is not empty */
	struct listener *l;
	uint8_t *sq; /* the send queue: bytes sq[sq_off, sq_len) */
	size_t sq_off, sq_len, sq_cap;
	struct tp_ndn_stream rx;
};
static struct conn *by_face[NDN_FACES_MAX];

/* Take c off the loop and free it; its face goes too unless the face is going
 * already (remove_face false). Counted in why. */
static void conn_close(struct conn *c, enum ndn_stream_ctr why, bool remove_face)
{
	uint16_t face = c->face;

	ndn_stream_ctr[why]++;
	by_face[face] = NULL;
	tp_ctl_del_fd(c->fd);
	close(c->fd);
	c->l->conns--;
	free(c->sq);
	free(c);
	if (remove_face)
		ndn_face_del(face); /* and its routes (ndn_rib_face_gone) */
}

void ndn_stream_face_gone(unsigned int id)
{
	if (id < NDN_FACES_MAX && by_face[id])
		conn_close(by_face[id], NDN_S_CLOSED_OPERATOR, false);
}

/* One element the peer sent: to the input stage of a forwarding context (the same
 * one for every packet of the face: they keep their order). */
static void deliver(struct conn *c, const uint8_t *e, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(stream_pool);
	unsigned int ctx = c->face % ndn_conf.n_fwd;

	ndn_stream_ctr[NDN_S_RX_PACKETS]++;
	if (m == NULL) {
		ndn_stream_ctr[NDN_S_RX_NO_MBUF]++;
		return;
	}
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), e, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	m->port = 0;
	ndn_meta(m)->face = c->face;
	if (rte_ring_mp_enqueue(ndn_fwd[ctx]->ring[3]->r, m) != 0) {
		ndn_stream_ctr[NDN_S_RX_RING_FULL]++;
		rte_pktmbuf_free(m);
	}
}

/* Write what the send queue holds; false when the connection was closed. */
static bool conn_flush(struct conn *c)
{
	while (c->sq_off < c->sq_len) {
		ssize_t n = send(c->fd, c->sq + c->sq_off, c->sq_len - c->sq_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		if (n <= 0) {
			conn_close(c, NDN_S_CLOSED_PEER, true);
			return false;
		}
		c->sq_off += (size_t)n;
	}
	if (c->sq_off == c->sq_len)
		c->sq_off = c->sq_len = 0;
	bool want = c->sq_len > 0;
	if (want != c->writable_armed) {
		tp_ctl_mod_fd(c->fd, true, want);
		c->writable_armed = want;
	}
	return true;
}

/* Queue len bytes at p behind what waits; false when that would pass the bound (the
 * connection is then closed: a slow reader). */
static bool sq_append(struct conn *c, const uint8_t *p, size_t len)
{
	size_t held = c->sq_len - c->sq_off;

	if (held + len > ndn_limits.stream_sendq) {
		conn_close(c, NDN_S_CLOSED_SLOW, true);
		return false;
	}
	if (c->sq_off && c->sq_len + len > c->sq_cap) {
		memmove(c->sq, c->sq + c->sq_off, held);
		c->sq_off = 0;
		c->sq_len = held;
	}
	if (c->sq_len + len > c->sq_cap) {
		size_t cap = c->sq_cap ? c->sq_cap : 16384;
		while (cap < c->sq_len + len)
			cap *= 2;
		uint8_t *q = realloc(c->sq, cap);
		if (q == NULL) {
			conn_close(c, NDN_S_CLOSED_SLOW, true);
			return false;
		}
		c->sq = q;
		c->sq_cap = cap;
	}
	memcpy(c->sq + c->sq_len, p, len);
	c->sq_len += len;
	return true;
}

/* Send m (an NDN packet, its LpPacket header written) on its face's connection:
 * directly while nothing waits, the rest queued. */
static void conn_send(struct rte_mbuf *m)
{
	uint16_t face = ndn_meta(m)->out_face;
	struct conn *c = face < NDN_FACES_MAX ? by_face[face] : NULL;
	bool queued = false;

	if (c == NULL) {
		ndn_stream_ctr[NDN_S_TX_FACE_GONE]++;
		return;
	}
	ndn_stream_ctr[NDN_S_TX_PACKETS]++;
	for (struct rte_mbuf *s = m; s; s = s->next) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);
		size_t len = s->data_len;
		if (c->sq_len == 0) {
			ssize_t n = send(c->fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				conn_close(c, NDN_S_CLOSED_PEER, true);
				return;
			}
			if (n > 0) {
				p += n;
				len -= (size_t)n;
			}
		}
		if (len == 0)
			continue;
		queued = true;
		if (!sq_append(c, p, len))
			return;
	}
	if (queued) {
		ndn_stream_ctr[NDN_S_TX_QUEUED]++;
		conn_flush(c);
	}
}

unsigned int ndn_stream_poll(void)
{
	struct rte_mbuf *pkts[32];
	unsigned int total = 0, n;

	if (ndn_stream_ring == NULL)
		return 0;
	do {
		n = rte_ring_sc_dequeue_burst(ndn_stream_ring, (void **)pkts, RTE_DIM(pkts), NULL);
		for (unsigned int i = 0; i < n; i++) {
			conn_send(pkts[i]);
			rte_pktmbuf_free(pkts[i]);
		}
		total += n;
	} while (n == RTE_DIM(pkts) && total < DRAIN_BUDGET);
	return total;
}

static void conn_event(int fd, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	if (c->sq_len && !conn_flush(c))
		return;
	for (int budget = READ_BUDGET; budget > 0; budget--) {
		size_t room;
		uint8_t *space = tp_ndn_stream_space(&c->rx, &room);
		ssize_t n = recv(c->fd, space, room, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) { /* the application went away (or reset the connection) */
			conn_close(c, NDN_S_CLOSED_PEER, true);
			return;
		}
		tp_ndn_stream_commit(&c->rx, (size_t)n);
		const uint8_t *e;
		size_t len;
		int rc;
		while ((rc = tp_ndn_stream_next(&c->rx, &e, &len)) == TP_NDN_E_OK)
			deliver(c, e, len);
		if (rc != TP_NDN_E_TRUNCATED) {
			conn_close(c,
				   rc == TP_NDN_E_NO_SPACE ? NDN_S_CLOSED_TOO_LONG
							   : NDN_S_CLOSED_MALFORMED,
				   true);
			return;
		}
		if ((size_t)n < room)
			return; /* nothing more waits */
	}
}

static void listen_readable(int fd, void *arg)
{
	struct listener *l = arg;
	char err[128];

	for (int budget = ACCEPT_BUDGET; budget > 0; budget--) {
		struct sockaddr_in sin;
		socklen_t sl = sizeof(sin);
		int s = accept4(fd, l->kind == NDN_FACE_TCP ? (struct sockaddr *)&sin : NULL,
				l->kind == NDN_FACE_TCP ? &sl : NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (s < 0)
			return;
		if (l->conns >= ndn_limits.stream_conns) {
			l->refused++;
			ndn_stream_ctr[NDN_S_REFUSED_FULL]++;
			close(s);
			continue;
		}
		uint32_t ip = 0;
		uint16_t port = 0;
		bool local = true;
		if (l->kind == NDN_FACE_TCP) {
			int one = 1;
			setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			ip = sin.sin_addr.s_addr;
			port = sin.sin_port;
			/* NFD: a TCP face from a loopback address is local */
			local = (rte_be_to_cpu_32(ip) >> 24) == 127;
		}
		struct conn *c = malloc(sizeof(*c));
		int id =
		    c ? ndn_face_add_stream(l->kind, local, ip, port, err, sizeof(err)) : -ENOMEM;
		if (id < 0 || tp_ctl_add_fd(s, conn_event, c) < 0) {
			if (id >= 0)
				ndn_face_del((unsigned int)id);
			l->refused++;
			ndn_stream_ctr[NDN_S_REFUSED_NO_FACE]++;
			free(c);
			close(s);
			continue;
		}
		c->fd = s;
		c->face = (uint16_t)id;
		c->writable_armed = false;
		c->l = l;
		c->sq = NULL;
		c->sq_off = c->sq_len = c->sq_cap = 0;
		tp_ndn_stream_init(&c->rx);
		by_face[id] = c;
		l->conns++;
		l->accepted++;
		ndn_stream_ctr[NDN_S_ACCEPTED]++;
	}
}

/* The ring and pool, at the first listener. 0 or negative errno. */
static int stream_init(void)
{
	if (ndn_stream_ring)
		return 0;
	/* one segment per packet (the input stage's rule), up to NFD's largest */
	stream_pool =
	    rte_pktmbuf_pool_create("ndn_stream", POOL_SIZE, 0, TP_MBUF_PRIV_SIZE,
				    RTE_PKTMBUF_HEADROOM + TP_NDN_STREAM_MAX, SOCKET_ID_ANY);
	if (stream_pool == NULL)
		return -rte_errno;
	int ret = tp_pool_track(stream_pool);
	if (ret < 0)
		return ret;
	struct rte_ring *r = rte_ring_create("ndn_stream", RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (r == NULL)
		return -rte_errno;
	/* before any stream face is published (face.c's release store of up) */
	__atomic_store_n(&ndn_stream_ring, r, __ATOMIC_RELEASE);
	return 0;
}

/* A new listener on fd (bound, not listening yet): 0 or negative errno. */
static int listener_add(int fd, uint8_t kind, const char *uri, const char *path)
{
	struct listener *l = &listeners[n_listeners];

	if (listen(fd, 64) < 0)
		return -errno;
	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->kind = kind;
	snprintf(l->uri, sizeof(l->uri), "%s", uri);
	snprintf(l->path, sizeof(l->path), "%s", path ? path : "");
	int ret = tp_ctl_add_fd(fd, listen_readable, l);
	if (ret < 0)
		return ret;
	n_listeners++;
	return 0;
}

/* mkdir -p the directory of path (mode 0755), as NFD makes /run/nfd */
static void make_dirs(const char *path)
{
	char dir[108];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
}

int ndn_stream_listen_unix(const char *path, unsigned int mode, int gid, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/') {
		snprintf(err, errlen, "%s: an absolute path of at most %zu bytes", path,
			 sizeof(sa.sun_path) - 1);
		return -EINVAL;
	}
	if (n_listeners == LISTEN_MAX) {
		snprintf(err, errlen, "at most %d listeners", LISTEN_MAX);
		return -ENOSPC;
	}
	if ((ret = stream_init()) < 0) {
		snprintf(err, errlen, "no ring or pool: %s", strerror(-ret));
		return ret;
	}
	strcpy(sa.sun_path, path);
	make_dirs(path);
	/* a socket there: in use (another forwarder: NFD) or stale (ours, before) */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", path);
			return -EEXIST;
		}
		/* non-blocking: a listener with a full backlog answers EAGAIN at once */
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		ret = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		bool in_use = ret == 0 || (ret < 0 && fd >= 0 && errno == EAGAIN);
		if (fd >= 0)
			close(fd);
		if (in_use) {
			snprintf(err, errlen, "%s: another process listens on it (NFD?)", path);
			return -EADDRINUSE;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* created without group or other access whatever the umask, then given its mode
	 * and group (as the API socket: no moment with wider permissions) */
	mode_t old = umask(0177);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (ret < 0 || (gid >= 0 && chown(path, (uid_t)-1, (gid_t)gid) < 0) ||
	    chmod(path, mode) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		close(fd);
		return ret;
	}
	char uri[128];
	snprintf(uri, sizeof(uri), "unix://%s", path);
	if ((ret = listener_add(fd, NDN_FACE_UNIX, uri, path)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		close(fd);
		unlink(path);
	}
	return ret;
}

int ndn_stream_listen_tcp(uint32_t addr_be, uint16_t port_be, char *err, size_t errlen)
{
	struct sockaddr_in sin = {
	    .sin_family = AF_INET, .sin_port = port_be, .sin_addr = {.s_addr = addr_be}};
	char a[INET_ADDRSTRLEN], uri[128];
	int fd, ret, one = 1;

	inet_ntop(AF_INET, &sin.sin_addr, a, sizeof(a));
	snprintf(uri, sizeof(uri), "tcp4://%s:%u", a, rte_be_to_cpu_16(port_be));
	if (n_listeners == LISTEN_MAX) {
		snprintf(err, errlen, "at most %d listeners", LISTEN_MAX);
		return -ENOSPC;
	}
	if ((ret = stream_init()) < 0) {
		snprintf(err, errlen, "no ring or pool: %s", strerror(-ret));
		return ret;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ret = bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ? -errno : 0;
	if (ret == 0)
		ret = listener_add(fd, NDN_FACE_TCP, uri, NULL);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", uri, strerror(-ret));
		close(fd);
	}
	return ret;
}

void ndn_stream_fini(void)
{
	for (unsigned int i = 0; i < NDN_FACES_MAX; i++)
		if (by_face[i]) {
			tp_ctl_del_fd(by_face[i]->fd);
			close(by_face[i]->fd);
			free(by_face[i]->sq);
			free(by_face[i]);
			by_face[i] = NULL;
		}
	for (unsigned int i = 0; i < n_listeners; i++) {
		tp_ctl_del_fd(listeners[i].fd);
		close(listeners[i].fd);
		if (listeners[i].path[0]) /* the next forwarder finds no stale socket */
			unlink(listeners[i].path);
	}
	n_listeners = 0;
}

void ndn_stream_face_info(unsigned int id, char *local_uri, size_t len, uint64_t *sendq, int *fd)
{
	const struct conn *c = id < NDN_FACES_MAX ? by_face[id] : NULL;

	snprintf(local_uri, len, "%s", c ? c->l->uri : "");
	*sendq = c ? c->sq_len - c->sq_off : 0;
	*fd = c ? c->fd : -1;
}

void ndn_stream_listeners(void (*fn)(const char *uri, unsigned int conns, uint64_t accepted,
				     uint64_t refused, void *arg),
			  void *arg)
{
	for (unsigned int i = 0; i < n_listeners; i++)
		fn(listeners[i].uri, listeners[i].conns, listeners[i].accepted,
		   listeners[i].refused, arg);
}
