/* SPDX-License-Identifier: BSD-3-Clause */
/* Faces: the table (control plane writes, lcores read), the lookup of a received
 * frame's face, and transmission (NDNLPv2 header, then Ethernet or IPv4/UDP).
 *
 * Face 0 is the internal face of management. An Ethernet face is a peer MAC on a
 * port, or the port's NDN multicast group 01:00:5e:00:17:aa (frames to the group
 * from a peer without a unicast face arrive on the group's face). A UDP face is a
 * remote (address, port) talking to port 6363 of one of the router's addresses.
 * Frames from a peer without a unicast face arrive on the port's group face, if it
 * has one (whether sent to the group or to our MAC), else are dropped (no_face). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "../../../control/control.h"
#include "../../../core/rcu.h"
#include "../../../core/tp.h"
#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../../../tables/rcu_hash.h"
#include "../../ip4/output.h"
#include "../ndn.h"

struct ndn_face ndn_faces[NDN_FACES_MAX];
uint32_t ndn_face_gen = 1;
/* the group face of each port, 0 if none */
static uint16_t port_mcast[TP_MAX_PORTS];
static struct rte_hash *face_hash;

/* what identifies a face to the lookup */
struct face_key {
	uint8_t kind;
	uint8_t pad;
	uint16_t port;	   /* ether: the DPDK port */
	uint8_t addr[6];   /* ether: the peer's MAC; UDP: the address, then 0 0 */
	uint16_t udp_port; /* UDP: network order */
} __attribute__((packed));
_Static_assert(sizeof(struct face_key) == 12, "face key");

static const struct rte_ether_addr ndn_group = {{0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa}};

/* networks on-demand UDP faces may come from */
#define ACCEPT_MAX 16
static struct {
	uint32_t net, mask; /* host order */
} accept_nets[ACCEPT_MAX];
static unsigned int n_accept;

int ndn_faces_init(void)
{
	face_hash = tp_rcu_hash_create("ndn_faces", NDN_FACES_MAX * 2, sizeof(struct face_key));
	if (face_hash == NULL)
		return -ENOMEM;
	ndn_faces[0].kind = NDN_FACE_INTERNAL_KIND;
	ndn_faces[0].local = 1;
	ndn_faces[0].mtu = 9000;
	ndn_faces[0].created_ms = tp_ctl_now_ms();
	__atomic_store_n(&ndn_faces[0].up, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A free face of this kind, zeroed: its id, or -ENOSPC with err set. */
/* A free slot for a face of kind: its id, or -ENOSPC (err says why). A slot a face
 * left is reused only once that face's PIT in-records have expired (face_free). */
static int face_alloc(uint8_t kind, bool local, char *err, size_t errlen)
{
	uint64_t now = tp_ctl_now_ms();

	for (unsigned int i = 1; i < NDN_FACES_MAX; i++)
		if (ndn_faces[i].kind == NDN_FACE_FREE && ndn_faces[i].reuse_ms <= now) {
			memset(&ndn_faces[i], 0, sizeof(ndn_faces[i]));
			ndn_faces[i].kind = kind;
			ndn_faces[i].local = local;
			return (int)i;
		}
	snprintf(err, errlen, "no free face (at most %d)", NDN_FACES_MAX - 1);
	return -ENOSPC;
}

/* every lcore's cached face lookups are void (a peer without a face of its own may
 * now have one; a removed face's id must not be used after the grace period) */
static void bump_gen(void)
{
	uint32_t g = ndn_face_gen + 1;

	__atomic_store_n(&ndn_face_gen, g ? g : 1, __ATOMIC_RELEASE);
}

/* What face id has received (any packet, well formed or not), over every lcore. */
static uint64_t rx_sum(unsigned int id)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < tp.n_workers; i++) {
		const uint64_t *c = ndn_lcore(tp.workers[i])->fctr[id];
		s += __atomic_load_n(&c[NDN_FC_RX_BYTES], __ATOMIC_RELAXED) +
		     __atomic_load_n(&c[NDN_FC_RX_DROP], __ATOMIC_RELAXED);
	}
	return s;
}

/* Refresh last_rx_ms of face id from its counters (control plane). */
static void rx_refresh(unsigned int id, uint64_t now_ms)
{
	uint64_t s = rx_sum(id);

	if (s != ndn_faces[id].rx_seen) {
		ndn_faces[id].rx_seen = s;
		ndn_faces[id].last_rx_ms = now_ms;
	}
}

unsigned int ndn_faces_expire(uint64_t now_ms)
{
	uint64_t idle = (uint64_t)ndn_limits.face_idle_s * 1000;
	unsigned int n = 0;

	for (unsigned int i = 1; i < NDN_FACES_MAX; i++) {
		struct ndn_face *f = &ndn_faces[i];
		if (!f->up || !f->on_demand)
			continue;
		rx_refresh(i, now_ms);
		/* NFD's on-demand UDP faces: closed after the idle timeout without a
		 * received packet (face-system.udp.idle_timeout, 600 s) */
		if (now_ms - f->last_rx_ms >= idle && ndn_face_del(i) == 0)
			n++;
	}
	return n;
}

int ndn_face_evictable(uint64_t now_ms, uint64_t min_idle_ms)
{
	int best = -ENOENT;
	uint64_t oldest = UINT64_MAX;

	for (unsigned int i = 1; i < NDN_FACES_MAX; i++) {
		struct ndn_face *f = &ndn_faces[i];
		if (!f->up && f->kind != NDN_FACE_FREE)
			return -EBUSY; /* a slot is on its way back already */
		if (!f->up || !f->on_demand)
			continue;
		rx_refresh(i, now_ms);
		if (now_ms - f->last_rx_ms >= min_idle_ms && f->last_rx_ms < oldest) {
			oldest = f->last_rx_ms;
			best = (int)i;
		}
	}
	return best;
}

static int publish(int id, const struct face_key *k)
{
	int ret = rte_hash_add_key_data(face_hash, k, (void *)(uintptr_t)id);

	if (ret < 0) {
		ndn_faces[id].kind = NDN_FACE_FREE;
		return ret;
	}
	ndn_faces[id].created_ms = ndn_faces[id].last_rx_ms = tp_ctl_now_ms();
	ndn_faces[id].rx_seen = rx_sum((unsigned int)id);
	__atomic_store_n(&ndn_faces[id].up, 1, __ATOMIC_RELEASE);
	bump_gen();
	return id;
}

int ndn_face_find_udp(uint32_t remote_ip_be, uint16_t remote_port_be)
{
	struct face_key k = {.kind = NDN_FACE_UDP, .udp_port = remote_port_be};
	void *data;

	memcpy(k.addr, &remote_ip_be, 4);
	return rte_hash_lookup_data(face_hash, &k, &data) < 0 ? -ENOENT : (int)(uintptr_t)data;
}

int ndn_face_add_udp(uint32_t remote_ip_be, uint16_t remote_port_be, uint32_t local_ip_be,
		     bool local, bool on_demand, char *err, size_t errlen)
{
	struct face_key k = {.kind = NDN_FACE_UDP, .udp_port = remote_port_be};
	int id;

	memcpy(k.addr, &remote_ip_be, 4);
	if ((id = ndn_face_find_udp(remote_ip_be, remote_port_be)) >= 0) {
		snprintf(err, errlen, "a face to this endpoint exists already: %d", id);
		return -EEXIST;
	}
	if ((id = face_alloc(NDN_FACE_UDP, local, err, errlen)) < 0)
		return id;
	struct ndn_face *f = &ndn_faces[id];
	f->on_demand = on_demand;
	f->remote_ip = remote_ip_be;
	f->remote_port = remote_port_be;
	f->local_port = rte_cpu_to_be_16(NDN_UDP_PORT);
	f->local_ip = local_ip_be;
	f->mtu = 1500 - 28;
	return publish(id, &k);
}

int ndn_face_add_stream(uint8_t kind, bool local, uint32_t remote_ip_be, uint16_t remote_port_be,
			char *err, size_t errlen)
{
	int id = face_alloc(kind, local, err, errlen);

	if (id < 0)
		return id;
	struct ndn_face *f = &ndn_faces[id];
	f->remote_ip = remote_ip_be;
	f->remote_port = remote_port_be;
	/* NFD's stream transports: no MTU, so no NDNLPv2 fragmentation (a reader takes
	 * whole elements of up to TP_NDN_STREAM_MAX bytes) */
	f->mtu = UINT16_MAX;
	/* no lookup key: its packets come from the control plane, which knows the face */
	f->created_ms = f->last_rx_ms = tp_ctl_now_ms();
	f->rx_seen = rx_sum((unsigned int)id);
	__atomic_store_n(&f->up, 1, __ATOMIC_RELEASE);
	bump_gen();
	return id;
}

int ndn_face_add_ether(uint16_t port, const struct rte_ether_addr *remote, bool local, char *err,
		       size_t errlen)
{
	struct face_key k = {.kind = NDN_FACE_ETHER, .port = port};
	bool group = remote == NULL || rte_is_multicast_ether_addr(remote);
	int id;

	if (group && port_mcast[port]) {
		snprintf(err, errlen, "port %u has a multicast face already: %u", port,
			 port_mcast[port]);
		return -EEXIST;
	}
	memcpy(k.addr, group ? &ndn_group : remote, 6);
	void *data;
	if (!group && rte_hash_lookup_data(face_hash, &k, &data) >= 0) {
		snprintf(err, errlen, "a face to this peer exists already: %u",
			 (unsigned int)(uintptr_t)data);
		return -EEXIST;
	}
	if ((id = face_alloc(NDN_FACE_ETHER, local, err, errlen)) < 0)
		return id;
	struct ndn_face *f = &ndn_faces[id];
	f->port = port;
	f->remote_mac = group ? ndn_group : *remote;
	f->mtu = tp_iface_table[port].mtu ? tp_iface_table[port].mtu : 1500;
	if (group) {
		f->up = 1;
		f->created_ms = tp_ctl_now_ms();
		__atomic_store_n(&port_mcast[port], (uint16_t)id, __ATOMIC_RELEASE);
		bump_gen();
		return id;
	}
	return publish(id, &k);
}

/* After the grace period (no lcore holds the id): the slot is free, for a new face
 * once the forwarding contexts' PIT in-records of this one have expired. The PIT is
 * the forwarding lcores' alone, so its records of a removed face are not taken out
 * (NFD's cleanupOnFaceRemoval does) but age: an in-record lives
 * ndn_limits.lifetime_max_ms at most (fwd.c), and one made from a packet still in a
 * ring between lcores when the face went gets a second more. Until then the id is
 * not given to another peer, which would receive the Data and Nacks of the Interests
 * the removed face's peer sent (fuzz_ndn_fwd: an on-demand face idle-expired with an
 * Interest pending, its id given to the next new peer, the Data went to it). */
static void face_free(void *a, void *b)
{
	struct ndn_face *f = &ndn_faces[(uintptr_t)a];

	(void)b;
	f->reuse_ms = tp_ctl_now_ms() + ndn_limits.lifetime_max_ms + 1000;
	f->kind = NDN_FACE_FREE;
}

static void hash_release(uint32_t v)
{
	(void)v;
}

int ndn_face_del(unsigned int id)
{
	struct ndn_face *f;

	if (id == 0 || id >= NDN_FACES_MAX || ndn_faces[id].kind == NDN_FACE_FREE)
		return -ENOENT;
	f = &ndn_faces[id];
	if (!f->up)
		return -ENOENT;
	__atomic_store_n(&f->up, 0, __ATOMIC_RELEASE);
	struct face_key k = {.kind = f->kind};
	if (ndn_face_is_stream(f->kind)) {
		ndn_stream_face_gone(id); /* its connection closes */
	} else if (f->kind == NDN_FACE_UDP) {
		memcpy(k.addr, &f->remote_ip, 4);
		k.udp_port = f->remote_port;
		tp_rcu_hash_del(face_hash, &k, hash_release);
	} else if (port_mcast[f->port] == id) {
		__atomic_store_n(&port_mcast[f->port], 0, __ATOMIC_RELEASE);
	} else {
		k.port = f->port;
		memcpy(k.addr, &f->remote_mac, 6);
		tp_rcu_hash_del(face_hash, &k, hash_release);
	}
	bump_gen();
	ndn_rib_face_gone((uint16_t)id);
	/* the id is reused only when no lcore can still hold it */
	tp_rcu_defer(face_free, (void *)(uintptr_t)id, NULL);
	return 0;
}

bool ndn_udp_accepts(uint32_t remote_ip_be)
{
	uint32_t a = rte_be_to_cpu_32(remote_ip_be);
	unsigned int n = __atomic_load_n(&n_accept, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if ((a & accept_nets[i].mask) == accept_nets[i].net)
			return true;
	return false;
}

int ndn_udp_accept_add(uint32_t net_be, uint8_t len)
{
	uint32_t mask = len ? ~0u << (32 - len) : 0;

	if (n_accept == ACCEPT_MAX)
		return -ENOSPC;
	accept_nets[n_accept].net = rte_be_to_cpu_32(net_be) & mask;
	accept_nets[n_accept].mask = mask;
	__atomic_store_n(&n_accept, n_accept + 1, __ATOMIC_RELEASE);
	return 0;
}

void ndn_face_uri(unsigned int id, char *buf, size_t len)
{
	const struct ndn_face *f = &ndn_faces[id];
	const uint8_t *m = f->remote_mac.addr_bytes;
	const uint8_t *a = (const uint8_t *)&f->remote_ip;

	switch (f->kind) {
	case NDN_FACE_INTERNAL_KIND:
		snprintf(buf, len, "internal://management");
		break;
	case NDN_FACE_ETHER:
		snprintf(buf, len, "ether://[%02x:%02x:%02x:%02x:%02x:%02x]@port%u", m[0], m[1],
			 m[2], m[3], m[4], m[5], f->port);
		break;
	case NDN_FACE_UDP:
		snprintf(buf, len, "udp4://%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3],
			 rte_be_to_cpu_16(f->remote_port));
		break;
	case NDN_FACE_TCP:
		snprintf(buf, len, "tcp4://%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3],
			 rte_be_to_cpu_16(f->remote_port));
		break;
	case NDN_FACE_UNIX: { /* NFD names the peer of a Unix socket by its descriptor */
		char local[8];
		uint64_t q;
		int fd;
		ndn_stream_face_info(id, local, sizeof(local), &q, &fd);
		snprintf(buf, len, "fd://%d", fd);
		break;
	}
	default:
		snprintf(buf, len, "none");
	}
}

/* --- data plane --- */

/* The lcore's last lookup on this port and kind (0 Ethernet, 1 UDP), if made under
 * the current face generation: its face, else 0. */
static inline uint16_t cache_get(struct ndn_lcore *lc, uint16_t port, unsigned int kind,
				 const uint8_t key[6], uint32_t gen)
{
	typeof(lc->face_cache[0][0]) *e = &lc->face_cache[port][kind];

	return e->gen == gen && memcmp(e->key, key, 6) == 0 ? e->face : 0;
}

static inline void cache_put(struct ndn_lcore *lc, uint16_t port, unsigned int kind,
			     const uint8_t key[6], uint32_t gen, uint16_t face)
{
	typeof(lc->face_cache[0][0]) *e = &lc->face_cache[port][kind];

	memcpy(e->key, key, 6);
	e->face = face;
	e->gen = gen;
}

/* The face of an Ethernet frame (eth points to its header) received on port: 0 if none.
 * The port's mode or the ethertype table checked the destination (ours or a group). */
static inline uint16_t ether_face(struct ndn_lcore *lc, uint16_t port, const uint8_t *eth)
{
	struct face_key k = {.kind = NDN_FACE_ETHER, .port = port};
	uint32_t gen = __atomic_load_n(&ndn_face_gen, __ATOMIC_ACQUIRE);
	uint16_t face = cache_get(lc, port, 0, eth + 6, gen);
	void *data;

	if (likely(face))
		return face;
	memcpy(k.addr, eth + 6, 6);
	if (rte_hash_lookup_data(face_hash, &k, &data) >= 0)
		face = (uint16_t)(uintptr_t)data;
	else /* to the group, or to us from a peer without a face of its own: the group's
	      * face (it answers on the group address) */
		face = __atomic_load_n(&port_mcast[port], __ATOMIC_ACQUIRE);
	if (face)
		cache_put(lc, port, 0, eth + 6, gen, face);
	return face;
}

void ndn_ether_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct ndn_lcore *lc = ndn_lcore(w);
	struct rte_mbuf *ok[TP_BURST];
	uint16_t faces[TP_BURST];
	uint16_t k = 0;

	TP_TRACE_BURST(w, pkts, n, "ndn.input");
	if (unlikely(!ndn_conf.enabled)) {
		for (uint16_t i = 0; i < n; i++)
			tp_drop(w, pkts[i], NDN_CTR(NDN_C_NOT_ENABLED));
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);

		if (unlikely(m->data_len < 14 + 2)) {
			tp_drop(w, m, TP_DROP_L2_TOO_SHORT);
			continue;
		}
		if (unlikely(eth[12] != 0x86 || eth[13] != 0x24)) {
			tp_drop(w, m, TP_DROP_L2_UNSUPPORTED);
			continue;
		}
		uint16_t face = ether_face(lc, m->port, eth);
		if (unlikely(face == 0)) {
			tp_drop(w, m, NDN_CTR(NDN_C_NO_FACE));
			continue;
		}
		rte_pktmbuf_adj(m, 14);
		ok[k] = m;
		faces[k++] = face;
		if (k == TP_BURST) { /* n may exceed a burst (the ethertype table's runs) */
			ndn_face_rx_burst(w, ok, faces, k);
			k = 0;
		}
	}
	if (k)
		ndn_face_rx_burst(w, ok, faces, k);
}

void ndn_udp_input(struct tp_worker *w, struct rte_mbuf *m, uint8_t *l3, uint8_t *l4)
{
	struct ndn_lcore *lc = ndn_lcore(w);
	struct face_key k = {.kind = NDN_FACE_UDP};
	void *data;
	uint16_t udp_len = (uint16_t)(l4[4] << 8 | l4[5]);
	uint8_t *start = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t ck[6];

	if (unlikely(!ndn_conf.enabled)) {
		tp_drop(w, m, NDN_CTR(NDN_C_NOT_ENABLED));
		return;
	}
	if (unlikely(udp_len < 8 || l4 + udp_len > start + m->data_len)) {
		tp_drop(w, m, NDN_CTR(NDN_C_DECODE));
		return;
	}
	memcpy(ck, l3 + 12, 4);
	memcpy(ck + 4, l4, 2);
	uint32_t gen = __atomic_load_n(&ndn_face_gen, __ATOMIC_ACQUIRE);
	uint16_t face = cache_get(lc, m->port, 1, ck, gen);
	if (unlikely(face == 0)) {
		memcpy(k.addr, ck, 4);
		memcpy(&k.udp_port, ck + 4, 2);
		if (unlikely(rte_hash_lookup_data(face_hash, &k, &data) < 0)) {
			uint32_t src;
			memcpy(&src, l3 + 12, 4);
			if (!ndn_udp_accepts(src)) {
				tp_drop(w, m, NDN_CTR(NDN_C_NO_FACE));
				return;
			}
			/* the control plane makes the face, then hands the packet back */
			if (rte_ring_mp_enqueue(ndn_newface_ring, m) != 0)
				tp_drop(w, m, NDN_CTR(NDN_C_NEW_FACE_FULL));
			return;
		}
		face = (uint16_t)(uintptr_t)data;
		cache_put(lc, m->port, 1, ck, gen, face);
	}
	/* the payload alone */
	rte_pktmbuf_adj(m, (uint16_t)(l4 + 8 - start));
	rte_pktmbuf_trim(m, (uint16_t)(m->data_len - (udp_len - 8)));
	ndn_face_rx(w, m, face);
}

/* Put the link's header in front of the NDN packet m (an LpPacket, or a bare Interest
 * or Data) and queue it: Ethernet on the face's port, or IPv4 and UDP through the
 * router's output (nf/ip4/output.h: route, next hop, Ethernet header; what it cannot
 * send it counts, output_no_route, output_unresolved..., and a neighbour not yet
 * resolved takes the packet through the kernel). false: dropped (counted). */
static bool link_send(struct tp_worker *w, uint16_t face, const struct ndn_face *f,
		      struct rte_mbuf *m)
{
	uint32_t len = m->pkt_len;

	if (f->kind != NDN_FACE_ETHER) {
		if (unlikely(ndn_face_is_stream(f->kind))) {
			/* the control plane writes it on the face's socket (control/stream.c) */
			ndn_meta(m)->out_face = face;
			if (unlikely(rte_ring_mp_enqueue(ndn_stream_ring, m) != 0)) {
				ndn_fcount(w, face, NDN_FC_TX_DROP);
				tp_drop(w, m, NDN_CTR(NDN_C_STREAM_FULL));
				return false;
			}
			ndn_lcore(w)->fctr[face][NDN_FC_TX_BYTES] += len;
			return true;
		}
		/* the face's own address, or (0) the output port's */
		if (unlikely(
			tp_udp_send(w, m, rte_be_to_cpu_32(f->local_ip),
				    rte_be_to_cpu_32(f->remote_ip), rte_be_to_cpu_16(f->local_port),
				    rte_be_to_cpu_16(f->remote_port), 0) == TP_IP4_OUT_DROPPED)) {
			ndn_fcount(w, face, NDN_FC_TX_DROP);
			return false;
		}
		ndn_lcore(w)->fctr[face][NDN_FC_TX_BYTES] += len;
		return true;
	}
	uint8_t *eth = (uint8_t *)rte_pktmbuf_prepend(m, 14);
	if (unlikely(eth == NULL)) {
		ndn_fcount(w, face, NDN_FC_TX_DROP);
		tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
		return false;
	}
	uint16_t port = f->port;
	memcpy(eth, &f->remote_mac, 6);
	memcpy(eth + 6, &tp_iface_table[port].mac, 6);
	eth[12] = 0x86;
	eth[13] = 0x24;
	ndn_lcore(w)->fctr[face][NDN_FC_TX_BYTES] += len;
	m->port = port;
	tp_worker_tx_enqueue(w, m, port);
	return true;
}

/* NDNLPv2 indexed fragmentation of m (a network-layer packet longer than the face's
 * MTU allows in one LpPacket): fragments of consecutive Sequences, each in a new mbuf
 * of m's pool, the first carrying the PIT token and the Nack (as NFD's LpFragmenter
 * does). m is freed; the packet counts once as what, each fragment as tx_fragments. */
static void tx_fragment(struct tp_worker *w, uint16_t face, const struct ndn_face *f,
			struct rte_mbuf *m, const uint8_t *tok, uint8_t tok_len,
			uint8_t nack_reason, enum ndn_face_ctr what)
{
	struct ndn_lp_lcore *st = &ndn_lcore(w)->lp;
	struct rte_mbuf *frag[TP_NDN_FRAG_MAX];
	size_t oh = tp_ndn_lp_frag_overhead(tok_len, nack_reason != 0);
	/* a fragment fits the MTU and one mbuf of the pool */
	uint32_t cap = RTE_MIN((uint32_t)f->mtu, (uint32_t)(rte_pktmbuf_data_room_size(m->pool) -
							    RTE_PKTMBUF_HEADROOM));
	uint32_t len = m->pkt_len, room = cap > oh + 64 ? (uint32_t)(cap - oh) : 0;
	uint32_t count = room ? (len + room - 1) / room : 0;

	if (unlikely(count == 0 || count > TP_NDN_FRAG_MAX)) {
		ndn_fcount(w, face, NDN_FC_TX_DROP);
		tp_drop(w, m, NDN_CTR(NDN_C_MTU));
		return;
	}
	if (unlikely(rte_pktmbuf_alloc_bulk(m->pool, frag, count) != 0)) {
		ndn_fcount(w, face, NDN_FC_TX_DROP);
		tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
		return;
	}
	/* even sizes: no runt last fragment */
	uint32_t each = (len + count - 1) / count, off = 0;
	uint64_t seq = st->seq_hi | (st->tx_seq[face] & ((UINT64_C(1) << 56) - 1));
	st->tx_seq[face] += count;
	const uint8_t *pkt = rte_pktmbuf_mtod(m, const uint8_t *);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t n = RTE_MIN(each, len - off);
		struct tp_ndn_lp_spec s = {
		    .payload = pkt + off,
		    .payload_len = n,
		    .frag = true,
		    .seq = seq + i,
		    .frag_index = i,
		    .frag_count = count,
		    .pit_token_len = i == 0 ? tok_len : 0,
		    .pit_token = tok,
		    .nack = i == 0 && nack_reason != 0,
		    .nack_reason = nack_reason,
		};
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(frag[i], (uint16_t)(n + oh));
		int h = p ? tp_ndn_lp_encode(p, n + oh, &s) : -1;
		if (unlikely(h <= 0)) { /* cannot happen with the overhead's bound */
			rte_pktmbuf_free_bulk(frag, count);
			ndn_fcount(w, face, NDN_FC_TX_DROP);
			tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
			return;
		}
		rte_pktmbuf_trim(frag[i], (uint16_t)(n + oh - (uint32_t)h));
		off += n;
	}
	rte_pktmbuf_free(m);
	for (uint32_t i = 0; i < count; i++)
		if (link_send(w, face, f, frag[i]))
			ndn_fcount(w, face, NDN_FC_TX_FRAGMENTS);
	ndn_fcount(w, face, what);
}

void ndn_face_tx(struct tp_worker *w, uint16_t face, struct rte_mbuf *m, const uint8_t *tok,
		 uint8_t tok_len, uint8_t nack_reason, enum ndn_face_ctr what)
{
	const struct ndn_face *f = &ndn_faces[face];

	if (unlikely(!__atomic_load_n(&f->up, __ATOMIC_ACQUIRE))) {
		ndn_fcount(w, face, NDN_FC_TX_DROP);
		tp_drop(w, m, NDN_CTR(NDN_C_FACE_DOWN));
		return;
	}
	if (unlikely(f->kind == NDN_FACE_INTERNAL_KIND)) {
		struct ndn_meta *mt = ndn_meta(m);
		mt->tok_len = tok_len;
		memcpy(mt->tok, tok, tok_len);
		mt->type = NDN_PKT_INTEREST;
		if (rte_ring_mp_enqueue(ndn_mgmt_ring, m) != 0) {
			ndn_fcount(w, face, NDN_FC_TX_DROP);
			tp_drop(w, m, NDN_CTR(NDN_C_MGMT_FULL));
			return;
		}
		ndn_fcount(w, face, what);
		return;
	}
	if (likely(tok_len && !nack_reason)) {
		uint32_t len = m->pkt_len;
		size_t h = tp_ndn_lp_token_header_size(tok_len, len);
		if (unlikely(len + h > f->mtu)) {
			tx_fragment(w, face, f, m, tok, tok_len, nack_reason, what);
			return;
		}
		uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)h);
		if (unlikely(p == NULL)) {
			ndn_fcount(w, face, NDN_FC_TX_DROP);
			tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
			return;
		}
		tp_ndn_lp_token_header(p, tok, tok_len, len);
	} else if (tok_len || nack_reason) {
		uint8_t hdr[64];
		struct tp_ndn_lp_spec s = {
		    .payload_len = m->pkt_len,
		    .pit_token_len = tok_len,
		    .pit_token = tok,
		    .nack = nack_reason != 0,
		    .nack_reason = nack_reason,
		};
		int h = tp_ndn_lp_encode(hdr, sizeof(hdr), &s);
		if (unlikely(h > 0 && m->pkt_len + (uint32_t)h > f->mtu)) {
			tx_fragment(w, face, f, m, tok, tok_len, nack_reason, what);
			return;
		}
		uint8_t *p = h > 0 ? (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)h) : NULL;
		if (unlikely(p == NULL)) {
			ndn_fcount(w, face, NDN_FC_TX_DROP);
			tp_drop(w, m, NDN_CTR(NDN_C_NOMBUF));
			return;
		}
		memcpy(p, hdr, (size_t)h);
	} else if (unlikely(m->pkt_len > f->mtu)) { /* a bare packet: fragments of it */
		tx_fragment(w, face, f, m, tok, tok_len, nack_reason, what);
		return;
	}
	if (!link_send(w, face, f, m))
		return;
	ndn_fcount(w, face, what);
}
