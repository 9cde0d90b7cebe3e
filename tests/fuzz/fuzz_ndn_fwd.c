/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the NDN forwarder's stages (src/nf/ndn): what faces receive,
 * through the link input (face.c), the input stage (NDNLPv2, reassembly, decode, NDT
 * dispatch: input.c, lp.c), the forwarding stage (CS, PIT, FIB, strategies, Nacks:
 * fwd.c, pcct.c, fib.c), the output stage (face.c) and management (mgmt.c), over two
 * forwarding contexts (each its PIT-CS, on its own lcore, as 'ndn enable' makes them
 * with two forwarding lcores: the NDT splits names between them, the input stage
 * hands the other context's packets to its rings, Data and Nacks with our token go
 * to the context the token names) and one FIB, all persisting across inputs.
 *
 * An EAL without hugepages or devices; five faces on two ports: 1 Ethernet peer
 * (non-local), 2 Ethernet peer (local), 3 the NDN group of port 1 (non-local, MTU
 * 600: what it sends is fragmented), 4 UDP 10.0.2.2 (non-local), 5 UDP 10.0.1.7
 * (local); routes "/" to 4 then 1, "/m" multicast to 1 3 4 5, "/localhost/app" to 2
 * then 1, "/localhop/x" to 1 and 2, "/l" asf to 5 then 3 (probing every 1 s); management's own
 * prefixes to face 0. A PIT of 64 entries, a CS of 16 per context: both fill up. On-demand UDP
 * faces: 10.0.3.0/24 is accepted, eight peers 10.0.3.1-8 there; a peer's first
 * packet goes to the control plane (management's poll makes the face and hands the
 * packet back to context 0), and a face idle for 2 s (ndn limits face-idle) goes at
 * the next clock step, with its routes. The control plane's clock (tp_ctl_now_ms) is
 * the target's, wrapped at link time (-Wl,--wrap), moved with the lcores' clock.
 *
 * Input: a program of records [op][face][arg][length, 2 bytes big-endian][bytes];
 * a length past the end takes what is left. FACE: bit 7, the packets arrive on lcore
 * 1 (else 0); bit 6, from on-demand peer FACE & 7 (its face, if it has one now,
 * for the ops that answer what was sent to a face); else face 1 + (FACE & 63) % 5.
 * op & 7:
 *   0 RAW     bytes received from face (in an Ethernet frame, or IPv4/UDP for UDP
 *             faces, through the port's NDN input)
 *   1 TOKEN   LpPacket{PitToken of the Interest sent last-but-(arg & 3) to face,
 *             Nack (reason arg) if op & 8, Fragment = bytes} from face
 *   2 DATA    a Data for that Interest (its name; with op & 16 one more component
 *             of the bytes), content the bytes, FreshnessPeriod arg * 10 ms when
 *             op & 32, its token echoed when op & 8, from face
 *   3 NACK    that Interest (as sent) back in a Nack of reason arg, its token echoed
 *             when op & 8; with op & 16 its Nonce changed; from face
 *   4 CLOCK   advance the clocks by arg ms (times 100 with op & 8) and run both
 *             lcores' per-loop work (PIT expiry, reassembly timeouts), then the
 *             control plane's expiry of idle on-demand faces
 *   5 MGMT    the control plane's management poll (commands, new on-demand faces),
 *             then what it hands back
 *   6 FRAG    the bytes in (arg % 7) + 2 NDNLPv2 fragments (the token of the last
 *             Interest sent to face on the first with op & 8), sent rotated by
 *             op >> 5, the last one left out with op & 16
 *   7 FRAME   bytes as a whole Ethernet frame received on port arg & 1
 *
 * Properties, after every record: what the forwarder sent is well formed (an
 * Ethernet or IPv4/UDP frame to the face's peer holding an LpPacket; an Interest
 * with a Nonce and our 8-byte token naming a live PIT entry with an out-record of
 * that face and Nonce, never /localhost to a non-local face nor /localhop from a
 * non-local downstream to a non-local face; no /localhost Data to a non-local face;
 * a Nack's Interest with a Nonce); every mbuf is back in its pool or legitimately
 * held (the reassembler's fragments, management's and the new faces' rings, the
 * contexts' rings once drained: none; the CS's copies one per entry); each PIT-CS
 * is consistent (every entry reachable from its bucket, free lists whole, every PIT
 * entry on the timer wheel slot of its expiry, every CS entry's mbuf valid and on
 * the LRU list); the forwarding stages saw exactly the packets the input stages
 * counted, none lost between lcores; the faces table agrees with itself (an up UDP
 * face found by its address, an on-demand one from an accepted network, none idle
 * past the timeout after an expiry pass, no route through a face that is gone) and
 * a PIT entry's in- and out-records name only faces up when the record appeared and
 * never a face id that was deleted and given to another face since.
 *
 * State carries across inputs for EPOCH inputs, then the tables start again empty
 * (the FIB and faces stay). A crash may need the inputs before it: while it fuzzes,
 * the target keeps the epoch's inputs as one program in <artifact_prefix>ndn_fwd-replay
 * (a shared mapping: it is there after a crash; zeros after the end are empty
 * records, which do nothing), which reproduces the crash alone. Built and run by scripts/fuzz.sh.
 */
#include <stdbool.h>
#include <string.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/timer.h"
#include "core/nf.h"
#include "core/ring.h"
#include "core/tp.h"
#include "fuzz_dpdk.h"
#include "nf/ndn/ndn.h"
#include "proto/ip4.h"
#include "proto/ndn.h"
#include "tables/iface.h"
#include "nf/ip4/control/neigh.h"
#include "nf/ip4/control/route.h"
#include "nf/ip4/ip4.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define N_FACES 6 /* 0 internal, 1-5 */
#define N_IDS 64  /* face ids the target remembers Interests of (on-demand ones above 5) */
#define N_PEERS 8 /* on-demand peers, 10.0.3.1-8 */
#define PEER 16	  /* a source: PEER + j, peer j; else the face 1-5 */
#define N_CTX 2
#define KEEP 4 /* Interests remembered per face */
#define MAX_PKT 9000
#define EPOCH 128	      /* inputs between two resets of the tables */
#define REPLAY_MAX (1u << 20) /* bytes of an epoch's programs kept for the replay */

enum { OP_RAW, OP_TOKEN, OP_DATA, OP_NACK, OP_CLOCK, OP_MGMT, OP_FRAG, OP_FRAME };

static struct rte_mempool *pool, *mgmt_pool;
static struct tp_worker *ws[N_CTX]; /* lcore c runs context c */
static struct ndn_lcore *lcs[N_CTX];
static struct ndn_fwd *fs[N_CTX];
static struct tp_worker *w; /* the lcore the record's packets arrive on */
static struct ndn_lcore *lc;
static uint64_t vms = 1000000; /* the control plane's clock, ms */

static void faces_scan(void);
uint64_t __wrap_tp_ctl_now_ms(void);
uint64_t __wrap_tp_ctl_now_ms(void)
{
	return vms;
}

static const uint8_t mac_port[2][6] = {{2, 0, 0, 0, 0, 0x10}, {2, 0, 0, 0, 0, 0x11}};
static const uint8_t mac_peer1[6] = {2, 0, 0, 0, 1, 1}, mac_peer2[6] = {2, 0, 0, 0, 1, 2};
static const uint8_t mac_stranger[6] = {2, 0, 0, 0, 2, 9}; /* no face: the group's */
static const uint8_t mac_h4[6] = {2, 0, 0, 0, 4, 4}, mac_h5[6] = {2, 0, 0, 0, 5, 5};
static const uint8_t ndn_group[6] = {0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa};
static const uint32_t udp_ip[N_FACES] = {0, 0, 0, 0, IP(10, 0, 2, 2), IP(10, 0, 1, 7)};
static const uint16_t face_port[N_FACES] = {0, 0, 0, 1, 1, 0};

static uint32_t peer_ip(unsigned int j)
{
	return IP(10, 0, 3, 1 + j);
}

static void peer_mac(unsigned int j, uint8_t *mac)
{
	static const uint8_t base[6] = {2, 0, 0, 0, 3, 0};
	memcpy(mac, base, 6);
	mac[5] = (uint8_t)j;
}

/* Peer j's face now, or 0. */
static unsigned int peer_face(unsigned int j)
{
	int id = ndn_face_find_udp(rte_cpu_to_be_32(peer_ip(j)), rte_cpu_to_be_16(NDN_UDP_PORT));
	return id > 0 ? (unsigned int)id : 0;
}

/* The Interests sent to each face, newest first: the bytes of the Interest and its
 * token. */
static struct sent_interest {
	uint16_t len;
	uint8_t tok_len;
	uint8_t tok[TP_NDN_PIT_TOKEN_MAX];
	uint8_t pkt[MAX_PKT];
} kept[N_IDS][KEEP];
static uint64_t frag_seq[N_IDS + N_PEERS];

/* the epoch's inputs so far, their records as run (lengths cut to what was there):
 * a file mapped shared, or (running given inputs) memory */
static uint8_t *replay;
static size_t replay_len;
static unsigned int epoch_inputs;

static void replay_init(int argc, char **argv)
{
	char path[512] = "ndn_fwd-replay";
	struct stat st;
	int fd = -1;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-artifact_prefix=", 17) == 0)
			snprintf(path, sizeof(path), "%sndn_fwd-replay", argv[i] + 17);
		else if (argv[i][0] != '-' && stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			fd = -2; /* inputs to run (perhaps the replay itself): no file */
	}
	if (fd == -1 && (fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0 &&
	    ftruncate(fd, REPLAY_MAX) == 0) {
		replay = mmap(NULL, REPLAY_MAX, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (replay == MAP_FAILED)
			replay = NULL;
	}
	if (fd >= 0)
		close(fd);
	if (replay == NULL)
		replay = calloc(1, REPLAY_MAX);
	must(replay != NULL);
}

/* --- set-up --- */
static void route(const char *uri, const uint16_t *faces, unsigned int n)
{
	uint8_t name[TP_NDN_NAME_MAX_LEN];
	int len = tp_ndn_name_from_uri(uri, name, sizeof(name));

	must(len >= 0);
	for (unsigned int i = 0; i < n; i++)
		must(ndn_rib_add(name, (uint16_t)len, faces[i], 255, 10 * (i + 1), 1, -1) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[128];

	fuzz_eal_init("fuzz-ndn-fwd", 512);
	fuzz_tables_init();
	tp.tsc_hz = rte_get_tsc_hz();
	/* more than management's and the new faces' rings hold (1,023 each) together */
	pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, TP_MBUF_PRIV_SIZE,
				       RTE_PKTMBUF_HEADROOM + 9216, SOCKET_ID_ANY);
	must(pool != NULL);
	ws[0] = fuzz_worker();
	ws[1] = rte_zmalloc("w1", sizeof(*ws[1]), RTE_CACHE_LINE_SIZE);
	must(ws[1] != NULL);
	ws[1]->ctr = rte_zmalloc("ctr1", sizeof(uint64_t) * TP_MAX_PORTS * TP_CTR_MAX, 0);
	must(ws[1]->ctr != NULL);
	ws[1]->id = 1;
	tp.workers[1] = ws[1];
	tp.n_workers = N_CTX;
	for (unsigned int c = 0; c < N_CTX; c++) {
		lcs[c] = rte_zmalloc("ndn_lcore", sizeof(*lcs[c]), RTE_CACHE_LINE_SIZE);
		must(lcs[c] != NULL);
		ws[c]->nf_state[tp_ndn_nf.id] = lcs[c];
		ws[c]->now = rte_rdtsc();
		ndn_lp_lcore_init(ws[c], &lcs[c]->lp);
	}
	w = ws[0];
	lc = lcs[0];
	for (unsigned int p = 0; p < 2; p++) {
		memcpy(&tp_iface_table[p].mac, mac_port[p], 6);
		tp_iface_table[p].mtu = p ? 600 : 1500;
		tp_iface_table[p].up = 0; /* a full transmit buffer goes to port_down */
	}
	tp_ip4_port_addr_set(0, IP(10, 0, 1, 1), 0);
	tp_ip4_port_addr_set(1, IP(10, 0, 2, 1), 0);
	tp_route_add(IP(10, 0, 1, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	tp_route_add(IP(10, 0, 2, 0), 24, TP_ROUTE_CONNECTED, 0, 1, 1);
	int nh = tp_neigh_learn(IP(10, 0, 2, 2), 1, mac_h4);
	must(nh >= 0);
	tp_route_host_update(IP(10, 0, 2, 2), 1, nh);
	nh = tp_neigh_learn(IP(10, 0, 1, 7), 0, mac_h5);
	must(nh >= 0);
	tp_route_host_update(IP(10, 0, 1, 7), 0, nh);
	/* the on-demand peers, on port 0 */
	tp_route_add(IP(10, 0, 3, 0), 24, TP_ROUTE_CONNECTED, 0, 0, 1);
	for (unsigned int j = 0; j < N_PEERS; j++) {
		uint8_t mac[6];
		peer_mac(j, mac);
		nh = tp_neigh_learn(peer_ip(j), 0, mac);
		must(nh >= 0);
		tp_route_host_update(peer_ip(j), 0, nh);
	}

	/* what 'ndn enable' makes with two forwarding lcores: a context each, the NDT
	 * splitting names between them, each context's rings (Interests, Data, Nacks from
	 * the other lcore's input stage; the hand-back ring), consumed by its lcore */
	ndn_conf.ndt_comps = 2;
	ndn_conf.ndt_bits = 4;
	ndn_conf.pit_capacity = 64;
	ndn_conf.cs_capacity = 16;
	ndn_conf.n_fwd = N_CTX;
	ndn_conf.siphash_key[0] = 0x0123456789abcdefull;
	ndn_conf.siphash_key[1] = 0xfedcba9876543210ull;
	ndn_ndt = rte_zmalloc("ndn_ndt", 1u << ndn_conf.ndt_bits, 64);
	must(ndn_ndt != NULL);
	for (unsigned int i = 0; i < (1u << ndn_conf.ndt_bits); i++)
		ndn_ndt[i] = (uint8_t)(i % N_CTX);
	for (unsigned int c = 0; c < N_CTX; c++) {
		struct ndn_fwd *f = rte_zmalloc("ndn_fwd", sizeof(*f), 64);
		must(f != NULL);
		f->idx = c;
		f->worker = c;
		must(ndn_pcct_create(f, SOCKET_ID_ANY) == 0);
		for (unsigned int k = 0; k < 4; k++) {
			char name[32];
			struct tp_ring *r = rte_zmalloc("ring", sizeof(*r), RTE_CACHE_LINE_SIZE);
			must(r != NULL);
			snprintf(name, sizeof(name), "ndn-fuzz-%u-%u", c, k);
			r->r = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
			must(r->r != NULL);
			r->size = 1024;
			r->consumer = c;
			r->fn = k < 3 ? ndn_fwd_ring : ndn_rx_ring;
			r->ctx = f;
			f->ring[k] = r;
		}
		fs[c] = f;
		ndn_fwd[c] = f;
		lcs[c]->fwd = f;
	}
	ndn_limits.face_idle_s = 2;
	ndn_limits.lifetime_max_ms = 10000; /* (a face's id waits this long to be reused) */
	ndn_limits_apply();
	must(ndn_faces_init() == 0 && ndn_fib_init() == 0 && ndn_mgmt_init() == 0 &&
	     ndn_lp_init() == 0);
	must(ndn_udp_accept_add(rte_cpu_to_be_32(IP(10, 0, 3, 0)), 24) == 0);
	mgmt_pool = rte_mempool_lookup("ndn_mgmt");
	must(mgmt_pool != NULL);
	struct rte_ether_addr m1, m2;
	memcpy(&m1, mac_peer1, 6);
	memcpy(&m2, mac_peer2, 6);
	must(ndn_face_add_ether(0, &m1, false, err, sizeof(err)) == 1);
	must(ndn_face_add_ether(0, &m2, true, err, sizeof(err)) == 2);
	must(ndn_face_add_ether(1, NULL, false, err, sizeof(err)) == 3);
	must(ndn_face_add_udp(rte_cpu_to_be_32(udp_ip[4]), rte_cpu_to_be_16(NDN_UDP_PORT), 0, false,
			      false, err, sizeof(err)) == 4);
	must(ndn_face_add_udp(rte_cpu_to_be_32(udp_ip[5]), rte_cpu_to_be_16(NDN_UDP_PORT), 0, true,
			      false, err, sizeof(err)) == 5);
	route("/", (const uint16_t[]){4, 1}, 2);
	route("/m", (const uint16_t[]){1, 3, 4, 5}, 4);
	route("/localhost/app", (const uint16_t[]){2, 1}, 2);
	route("/localhop/x", (const uint16_t[]){1, 2}, 2);
	route("/l", (const uint16_t[]){5, 3}, 2);
	uint8_t m[8];
	int ml = tp_ndn_name_from_uri("/m", m, sizeof(m));
	must(ml > 0 && ndn_fib_strategy_set(m, (uint16_t)ml, NDN_STRATEGY_MULTICAST, 0) == 0);
	/* /l: asf, probing every second (its measurements, probes and timeouts) */
	ml = tp_ndn_name_from_uri("/l", m, sizeof(m));
	must(ml > 0 && ndn_fib_strategy_set(m, (uint16_t)ml, NDN_STRATEGY_ASF, 1000) == 0);
	tp_rcu_reclaim();
	__atomic_store_n(&ndn_conf.enabled, true, __ATOMIC_RELEASE);
	faces_scan();
	replay_init(*argc, *argv);
	return 0;
}

/* --- frames in --- */
static struct rte_mbuf *mbuf_of(const uint8_t *hdr, size_t hl, const uint8_t *b, size_t len,
				uint16_t port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	must(m != NULL);
	len = RTE_MIN(len, (size_t)MAX_PKT);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(hl + len));
	must(p != NULL);
	memcpy(p, hdr, hl);
	memcpy(p + hl, b, len);
	m->port = port;
	return m;
}

/* bytes (an NDN packet or LpPacket) received from face (or on-demand peer PEER + j),
 * through its link's input on lcore w */
static void from_face(unsigned int face, const uint8_t *b, size_t len)
{
	uint8_t hdr[14 + 20 + 8];
	uint16_t port = face >= PEER ? 0 : face_port[face];
	uint32_t src_ip = face >= PEER ? peer_ip(face - PEER) : udp_ip[face];

	memcpy(hdr, face == 3 ? ndn_group : mac_port[port], 6);
	memcpy(hdr + 6, face == 1 ? mac_peer1 : face == 2 ? mac_peer2 : mac_stranger, 6);
	if (src_ip == 0) {
		hdr[12] = 0x86;
		hdr[13] = 0x24;
		struct rte_mbuf *m = mbuf_of(hdr, 14, b, len, port);
		ndn_ether_input(w, &m, 1);
		return;
	}
	if (face >= PEER)
		peer_mac(face - PEER, hdr + 6);
	else
		memcpy(hdr + 6, face == 4 ? mac_h4 : mac_h5, 6);
	hdr[12] = 0x08;
	hdr[13] = 0x00;
	len = RTE_MIN(len, (size_t)MAX_PKT);
	tp_ip4_write(hdr + 14, rte_cpu_to_be_32(src_ip),
		     rte_cpu_to_be_32(tp_ip4_port_addr(port, NULL)), 17, 64, (uint16_t)(8 + len),
		     0);
	uint8_t *u = hdr + 34;
	u[0] = u[2] = NDN_UDP_PORT >> 8;
	u[1] = u[3] = NDN_UDP_PORT & 0xff;
	u[4] = (uint8_t)((8 + len) >> 8);
	u[5] = (uint8_t)(8 + len);
	u[6] = u[7] = 0;
	struct rte_mbuf *m = mbuf_of(hdr, sizeof(hdr), b, len, port);
	uint8_t *e = rte_pktmbuf_mtod(m, uint8_t *);
	ndn_udp_input(w, m, e + 14, e + 34);
}

/* --- what the forwarder sends --- */
static bool name_first_is(const struct tp_ndn_name *n, const char *s)
{
	size_t sl = strlen(s);
	uint16_t len;

	if (n->n_comps == 0)
		return false;
	const uint8_t *c = tp_ndn_name_comp(n, 0, &len);
	return len == sl + 2 && c[0] == TP_NDN_T_GENERIC && c[1] == sl && memcmp(c + 2, s, sl) == 0;
}

static void keep_interest(unsigned int face, const uint8_t *pkt, size_t len, const uint8_t *tok,
			  uint8_t tok_len)
{
	if (len > MAX_PKT || face >= N_IDS)
		return;
	memmove(&kept[face][1], &kept[face][0], sizeof(kept[face][0]) * (KEEP - 1));
	struct sent_interest *k = &kept[face][0];
	k->len = (uint16_t)len;
	memcpy(k->pkt, pkt, len);
	k->tok_len = tok_len;
	memcpy(k->tok, tok, tok_len);
}

/* One NDN packet the forwarder sent on face (lp decoded). */
static void check_sent(unsigned int face, const struct tp_ndn_lp *lp)
{
	static struct tp_ndn_interest in;
	static struct tp_ndn_data d;
	size_t used;
	bool local = ndn_faces[face].local;

	if (lp->frag_count > 1) { /* a fragment: the first carries the headers */
		must(lp->has_seq);
		return;
	}
	if (lp->payload[0] == TP_NDN_T_DATA) {
		must(!lp->is_nack);
		must(tp_ndn_data_decode(lp->payload, lp->payload_len, &d, &used) == TP_NDN_E_OK);
		/* NFD's scope control: /localhost Data only to local faces */
		must(local || !name_first_is(&d.name, "localhost"));
		return;
	}
	must(tp_ndn_interest_decode_fwd(lp->payload, lp->payload_len, &in, &used) == TP_NDN_E_OK);
	/* every Interest and Nack the forwarder sends has a Nonce */
	must(in.has_nonce);
	if (lp->is_nack)
		return;
	must(local || !name_first_is(&in.name, "localhost"));
	/* HopLimit 0 goes to local faces only (NFD's outgoing Interest pipeline) */
	must(local || !in.has_hop_limit || in.hop_limit > 0);
	/* our token: a live PIT entry with an out-record of this face and Nonce */
	struct ndn_meta mt = {.tok_len = lp->pit_token_len};
	must(lp->pit_token_len == NDN_TOKEN_LEN);
	memcpy(mt.tok, lp->pit_token, NDN_TOKEN_LEN);
	uint32_t idx;
	memcpy(&idx, mt.tok + 4, 4);
	/* the context that sent it names itself */
	must(mt.tok[0] < N_CTX && idx >= 1 && idx <= fs[mt.tok[0]]->pit_cap);
	const struct ndn_fwd *f = fs[mt.tok[0]];
	must(f->pit[idx].pcc != 0);
	const struct ndn_pit *p = &f->pit[idx];
	bool out = false, from_non_local = false;
	for (unsigned int i = 0; i < p->n_out; i++)
		out |= p->out[i].face == face && p->out[i].nonce == in.nonce;
	must(out);
	for (unsigned int i = 0; i < p->n_in; i++)
		from_non_local |= !ndn_faces[p->in[i].face].local;
	/* /localhop: one hop from a non-local face */
	must(local || !from_non_local || !name_first_is(&in.name, "localhop"));
	keep_interest(face, lp->payload, lp->payload_len, lp->pit_token, lp->pit_token_len);
}

/* A frame waiting on port p: its face, its headers, then the NDN packet. */
static void check_frame(struct rte_mbuf *m, uint16_t p)
{
	const char *why = NULL;
	static struct tp_ndn_lp lp;

	must(rte_mbuf_check(m, 1, &why) == 0 && m->nb_segs == 1);
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len;
	unsigned int face = 0;
	must(len >= 14 && memcmp(e + 6, mac_port[p], 6) == 0);
	if (e[12] == 0x86 && e[13] == 0x24) {
		for (unsigned int i = 1; i < N_FACES; i++)
			if (udp_ip[i] == 0 && face_port[i] == p &&
			    memcmp(e,
				   i == 1   ? mac_peer1
				   : i == 2 ? mac_peer2
					    : ndn_group,
				   6) == 0)
				face = i;
		must(face != 0 && len - 14 <= tp_iface_table[p].mtu);
		e += 14;
		len -= 14;
	} else {
		must(e[12] == 0x08 && e[13] == 0x00 && len >= 42);
		const uint8_t *ip = e + 14, *u = ip + 20;
		uint32_t dst = (uint32_t)ip[16] << 24 | (uint32_t)ip[17] << 16 |
			       (uint32_t)ip[18] << 8 | ip[19];
		for (unsigned int i = 1; i < N_FACES; i++)
			if (udp_ip[i] == dst)
				face = i;
		if (face != 0) {
			must(face_port[face] == p);
			must(memcmp(e, face == 4 ? mac_h4 : mac_h5, 6) == 0);
		} else {
			/* an on-demand peer's face, up (sent in this record) */
			uint8_t mac[6];
			must((dst & 0xffffff00) == IP(10, 0, 3, 0) && (dst & 0xff) >= 1 &&
			     (dst & 0xff) <= N_PEERS && p == 0);
			peer_mac((dst & 0xff) - 1, mac);
			must(memcmp(e, mac, 6) == 0);
			face = peer_face((dst & 0xff) - 1);
			must(face != 0 && ndn_faces[face].on_demand);
		}
		must(ip[9] == 17 && ((uint32_t)ip[2] << 8 | ip[3]) == len - 14);
		must(((uint32_t)u[4] << 8 | u[5]) == len - 34 && len - 42 <= ndn_faces[face].mtu);
		e += 42;
		len -= 42;
	}
	must(tp_ndn_lp_decode(e, len, &lp) == TP_NDN_E_OK);
	check_sent(face, &lp);
}

/* Empty both lcores' transmit buffers, checking each frame. */
static void drain_tx(void)
{
	for (unsigned int c = 0; c < N_CTX; c++) {
		for (uint16_t p = 0; p < 2; p++) {
			struct tp_txbuf *b = &ws[c]->txb[p];
			must(b->n < TP_BURST);
			for (unsigned int k = 0; k < b->n; k++)
				check_frame(b->pkts[k], p);
			rte_pktmbuf_free_bulk(b->pkts, b->n);
			b->n = 0;
		}
		ws[c]->tx_dirty = 0;
	}
}

/* Each lcore empties its context's rings (Interests, Data, Nacks from the other
 * lcore's input stage; the hand-back ring), until none holds anything. */
static void drain_rings(void)
{
	struct rte_mbuf *m[64];
	unsigned int moved;

	do {
		moved = 0;
		for (unsigned int c = 0; c < N_CTX; c++)
			for (unsigned int k = 0; k < 4; k++) {
				struct tp_ring *r = fs[c]->ring[k];
				unsigned int n =
				    rte_ring_dequeue_burst(r->r, (void **)m, RTE_DIM(m), NULL);
				if (n == 0)
					continue;
				r->dequeued += n;
				r->fn(ws[c], m, (uint16_t)n, r->ctx);
				moved += n;
			}
	} while (moved);
}

/* --- invariants --- */
static unsigned int ring_held(struct rte_ring *r, const struct rte_mempool *mp)
{
	struct rte_mbuf *m[1024];
	unsigned int n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL), k = 0;

	for (unsigned int i = 0; i < n; i++)
		k += m[i]->pool == mp;
	must(rte_ring_enqueue_bulk(r, (void **)m, n, NULL) == n);
	return k;
}

/* what the control plane holds: management's commands, new faces' first packets */
static unsigned int mgmt_held(const struct rte_mempool *mp)
{
	return ring_held(ndn_mgmt_ring, mp) + ring_held(ndn_newface_ring, mp);
}

static unsigned int reasm_held(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < N_CTX * TP_NDN_REASM_SLOTS; i++) {
		const struct tp_ndn_reasm_slot *s =
		    &lcs[i / TP_NDN_REASM_SLOTS]->lp.reasm.slot[i % TP_NDN_REASM_SLOTS];
		if (!s->used)
			continue;
		unsigned int got = 0;
		for (unsigned int k = 0; k < s->frag_count; k++)
			if (s->frag[k]) {
				const char *why;
				must(rte_mbuf_check(s->frag[k], 1, &why) == 0);
				got++;
			}
		must(got == s->n_got && got < s->frag_count);
		n += got;
	}
	return n;
}

/* Each face id's incarnation: bumped whenever the id is seen up as another face
 * (made again after a deletion), from the faces table after every record. */
static uint32_t face_inc[NDN_FACES_MAX];
static struct {
	uint8_t up;
	uint32_t ip;
	uint16_t port;
	uint64_t created;
} face_seen[NDN_FACES_MAX];

static void faces_scan(void)
{
	for (unsigned int i = 1; i < NDN_FACES_MAX; i++) {
		const struct ndn_face *fc = &ndn_faces[i];
		uint8_t up = __atomic_load_n(&fc->up, __ATOMIC_ACQUIRE);
		if (up && (!face_seen[i].up || face_seen[i].ip != fc->remote_ip ||
			   face_seen[i].port != fc->remote_port ||
			   face_seen[i].created != fc->created_ms))
			face_inc[i]++;
		face_seen[i].up = up;
		face_seen[i].ip = fc->remote_ip;
		face_seen[i].port = fc->remote_port;
		face_seen[i].created = fc->created_ms;
	}
}

/* The faces each live PIT entry's records named, with the face's incarnation when
 * the target first saw the record: a record appears only for a face that is up,
 * and a live in-record (one Data and Nacks go back to) never names a face id given
 * to another face since. Out-records are kept with bit 15 set (no incarnation). */
#define REC_MAX (NDN_PIT_IN_MAX + NDN_PIT_OUT_MAX)
static struct pit_faces {
	uint32_t gen;
	uint8_t n;
	uint16_t face[REC_MAX];
	uint32_t inc[REC_MAX];
} pit_faces[N_CTX][65];

static void check_record_face(struct pit_faces *pf, uint16_t face, bool out, bool live)
{
	uint16_t key = (uint16_t)(face | (out ? 0x8000 : 0));

	must(face < NDN_FACES_MAX);
	for (unsigned int j = 0; j < pf->n; j++)
		if (pf->face[j] == key) {
			if (!live) { /* expired: a new Interest from the face's id revives it */
				pf->face[j] = pf->face[pf->n - 1];
				pf->inc[j] = pf->inc[--pf->n];
			} else if (!out) {
				must(pf->inc[j] == face_inc[face]);
			}
			return;
		}
	if (!live)
		return;
	must(ndn_faces[face].up && pf->n < REC_MAX);
	pf->face[pf->n] = key;
	pf->inc[pf->n++] = face_inc[face];
}

static void check_pcct(unsigned int ctx)
{
	const struct ndn_fwd *f = fs[ctx];
	uint32_t n = 0;

	/* PCC entries: reachable from their bucket, each holding something */
	for (uint32_t b = 0; b <= f->bucket_mask; b++)
		for (uint32_t i = f->bucket[b]; i; i = f->pcc[i].next) {
			const struct ndn_pcc *e = &f->pcc[i];
			must(i <= f->pcc_cap && e->in_use == 1 && (e->hash & f->bucket_mask) == b);
			must(++n <= f->pcc_used);
			bool any = false;
			for (unsigned int s = 0; s < 4; s++)
				if (e->pit[s]) {
					must(e->pit[s] <= f->pit_cap);
					must(f->pit[e->pit[s]].pcc == i &&
					     f->pit[e->pit[s]].slot == s);
					any = true;
				}
			if (e->cs) {
				must(e->cs <= f->cs_cap && f->cs[e->cs].pcc == i);
				any = true;
			}
			if (e->cs_ind) {
				bool linked = false;
				must(e->cs_ind <= f->cs_cap && f->cs[e->cs_ind].pcc != 0);
				for (unsigned int k = 0; k < 4; k++)
					linked |= f->cs[e->cs_ind].ind[k] == i;
				must(linked);
				any = true;
			}
			must(any);
			must(e->ext == 0 || (e->ext <= f->ext_cap && e->key_len > NDN_KEY_INLINE));
		}
	must(n == f->pcc_used);
	n = 0;
	for (uint32_t i = f->pcc_free; i; i = f->pcc[i].next) {
		must(f->pcc[i].in_use == 0 && ++n <= f->pcc_cap);
	}
	must(n == f->pcc_cap - f->pcc_used);
	/* PIT entries: live ones on their wheel slot, free ones on the free list */
	n = 0;
	for (uint32_t i = 1; i <= f->pit_cap; i++) {
		const struct ndn_pit *p = &f->pit[i];
		if (p->pcc == 0)
			continue;
		n++;
		must(p->pcc <= f->pcc_cap && f->pcc[p->pcc].in_use &&
		     f->pcc[p->pcc].pit[p->slot] == i);
		must(p->n_in <= NDN_PIT_IN_MAX && p->n_out <= NDN_PIT_OUT_MAX);
		must(i < RTE_DIM(pit_faces[ctx]));
		struct pit_faces *pf = &pit_faces[ctx][i];
		if (pf->gen != p->gen || pf->n == 0) {
			pf->gen = p->gen;
			pf->n = 0;
		}
		for (unsigned int k = 0; k < p->n_in; k++) {
			must(p->in[k].tok_len <= TP_NDN_PIT_TOKEN_MAX);
			check_record_face(pf, p->in[k].face, false, p->in[k].expiry > ws[ctx]->now);
		}
		for (unsigned int k = 0; k < p->n_out; k++)
			check_record_face(pf, p->out[k].face, true, true);
		must(p->expiry != 0);
		bool on = false;
		for (uint32_t j = f->wheel[(p->expiry >> f->tick_shift) & f->wheel_mask]; j;
		     j = f->pit[j].tw_next)
			on |= j == i;
		must(on);
	}
	must(n == f->pit_used);
	n = 0;
	for (uint32_t i = f->pit_free; i; i = f->pit[i].tw_next) {
		must(f->pit[i].pcc == 0 && ++n <= f->pit_cap);
		pit_faces[ctx][i].n = 0;
	}
	must(n == f->pit_cap - f->pit_used);
	for (uint32_t s = 0; s <= f->wheel_mask; s++)
		for (uint32_t j = f->wheel[s], prev = 0; j; prev = j, j = f->pit[j].tw_next)
			must(f->pit[j].pcc != 0 && f->pit[j].tw_prev == prev);
	/* CS entries: a valid copy in a CS pool each, on the LRU list */
	n = 0;
	for (uint32_t i = 1; i <= f->cs_cap; i++) {
		const struct ndn_cs *c = &f->cs[i];
		if (c->pcc == 0)
			continue;
		const char *why;
		n++;
		must(c->m != NULL && rte_mbuf_check(c->m, 1, &why) == 0);
		must(c->m->pool == f->cs_pool || c->m->pool == f->cs_pool_small);
		must(rte_mbuf_refcnt_read(c->m) == 1 && f->pcc[c->pcc].cs == i);
		for (unsigned int k = 0; k < 4; k++)
			must(c->ind[k] == 0 || f->pcc[c->ind[k]].cs_ind == i);
	}
	must(n == f->cs_used);
	n = 0;
	for (uint32_t i = f->lru_head, prev = 0; i; prev = i, i = f->cs[i].lru_next) {
		must(f->cs[i].pcc != 0 && f->cs[i].lru_prev == prev && ++n <= f->cs_used);
		if (f->cs[i].lru_next == 0)
			must(f->lru_tail == i);
	}
	must(n == f->cs_used);
	n = 0;
	for (uint32_t i = f->cs_free; i; i = f->cs[i].lru_next)
		must(f->cs[i].pcc == 0 && ++n <= f->cs_cap);
	must(n == f->cs_cap - f->cs_used);
}

static uint64_t port_ctr(unsigned int c)
{
	uint64_t v = 0;

	for (unsigned int k = 0; k < N_CTX; k++)
		for (unsigned int p = 0; p < TP_MAX_PORTS; p++)
			v += ws[k]->ctr[p][NDN_CTR(c)];
	return v;
}

static uint64_t face_ctr(unsigned int c)
{
	uint64_t v = 0;

	for (unsigned int k = 0; k < N_CTX; k++)
		for (unsigned int i = 0; i < NDN_FACES_MAX; i++)
			v += lcs[k]->fctr[i][c];
	return v;
}

/* The faces table: an up UDP face found by its address, an on-demand one from the
 * accepted network (after an expiry pass, not idle past the timeout); no route
 * through a face that is not up. */
static bool expired_now;

static void check_fib_entry(const struct ndn_fib_entry *e, void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < e->n_nh; i++)
		must(e->nh[i].face < NDN_FACES_MAX && ndn_faces[e->nh[i].face].up);
}

static void check_faces(void)
{
	for (unsigned int i = 1; i < NDN_FACES_MAX; i++) {
		const struct ndn_face *fc = &ndn_faces[i];
		if (!fc->up)
			continue;
		must(fc->kind != NDN_FACE_FREE);
		if (fc->kind == NDN_FACE_UDP)
			must(ndn_face_find_udp(fc->remote_ip, fc->remote_port) == (int)i);
		if (!fc->on_demand)
			continue;
		uint32_t ip = rte_be_to_cpu_32(fc->remote_ip);
		must(fc->kind == NDN_FACE_UDP && !fc->local && ndn_udp_accepts(fc->remote_ip));
		must((ip & 0xffffff00) == IP(10, 0, 3, 0));
		if (expired_now) /* the expiry pass runs every 250 ms */
			must(vms - fc->last_rx_ms < (uint64_t)ndn_limits.face_idle_s * 1000 + 250);
	}
	for (unsigned int j = 0; j < N_PEERS; j++) {
		unsigned int id = peer_face(j);
		must(id == 0 || (ndn_faces[id].up && ndn_faces[id].on_demand &&
				 ndn_faces[id].remote_ip == rte_cpu_to_be_32(peer_ip(j))));
	}
	ndn_fib_walk(check_fib_entry, NULL);
	expired_now = false;
}

static void check_all(void)
{
	drain_rings();
	drain_tx();
	faces_scan();
	/* every mbuf is in its pool, or held where it may be: fragments as copies in the
	 * module's own pool (lp.c), none in the port's */
	must(rte_mempool_in_use_count(pool) == mgmt_held(pool));
	must(rte_mempool_in_use_count(ndn_frag_pool) == reasm_held());
	must(rte_mempool_in_use_count(ndn_lp_pool) == mgmt_held(ndn_lp_pool));
	must(rte_mempool_in_use_count(mgmt_pool) == 0);
	uint64_t interests = 0, data = 0, nacks = 0;
	for (unsigned int c = 0; c < N_CTX; c++) {
		const struct ndn_fwd *f = fs[c];
		must(rte_mempool_in_use_count(f->cs_pool) +
			 rte_mempool_in_use_count(f->cs_pool_small) ==
		     f->cs_used);
		/* nothing lost between the lcores (the rings hold 1,023) */
		for (unsigned int k = 0; k < 4; k++)
			for (unsigned int p = 0; p < N_CTX; p++)
				must(f->ring[k]->prod[p].dropped_full == 0);
		check_pcct(c);
		must(f->st.cs_hits + f->st.cs_misses <= f->st.interests);
		interests += f->st.interests;
		data += f->st.data;
		nacks += f->st.nacks;
	}
	/* the forwarding stages saw what the input stages passed on, each once */
	must(port_ctr(NDN_C_RX_INTEREST) == interests);
	must(port_ctr(NDN_C_RX_DATA) == data);
	must(port_ctr(NDN_C_RX_NACK) == nacks);
	must(face_ctr(NDN_FC_RX_INTEREST) == interests);
	must(face_ctr(NDN_FC_RX_DATA) == data);
	must(face_ctr(NDN_FC_RX_NACK) == nacks);
	check_faces();
}

/* --- the program's operations --- */
static void lp_send(unsigned int face, const struct tp_ndn_lp_spec *s)
{
	static uint8_t buf[MAX_PKT + 128];
	int n = tp_ndn_lp_encode(buf, sizeof(buf), s);

	if (n > 0)
		from_face(face, buf, (size_t)n);
}

static void op_data(unsigned int face, const struct sent_interest *k, uint8_t op, uint8_t arg,
		    const uint8_t *b, size_t len)
{
	static struct tp_ndn_interest in;
	static uint8_t name[TP_NDN_NAME_MAX_LEN + 64], data[MAX_PKT];
	size_t used;

	if (k->len == 0 || tp_ndn_interest_decode_fwd(k->pkt, k->len, &in, &used) != TP_NDN_E_OK)
		return;
	size_t nl = in.name.len;
	memcpy(name, in.name.value, nl);
	if ((op & 16) && nl + 2 + RTE_MIN(len, (size_t)32) <= TP_NDN_NAME_MAX_LEN) {
		size_t cl = RTE_MIN(len, (size_t)32);
		name[nl] = TP_NDN_T_GENERIC;
		name[nl + 1] = (uint8_t)cl;
		memcpy(name + nl + 2, b, cl);
		nl += 2 + cl;
	}
	struct tp_ndn_data_spec ds = {
	    .name_value = name,
	    .name_len = (uint16_t)nl,
	    .content_type = -1,
	    .freshness_ms = (op & 32) ? (int64_t)arg * 10 : -1,
	    .content = b,
	    .content_len = (uint32_t)RTE_MIN(len, (size_t)4096),
	};
	int dl = tp_ndn_data_encode(data, sizeof(data), &ds);
	if (dl <= 0)
		return;
	struct tp_ndn_lp_spec s = {.payload = data, .payload_len = (uint32_t)dl};
	if (op & 8) {
		s.pit_token = k->tok;
		s.pit_token_len = k->tok_len;
	}
	lp_send(face, &s);
}

static void op_frag(unsigned int face, uint8_t op, uint8_t arg, const uint8_t *b, size_t len)
{
	static uint8_t frags[TP_NDN_FRAG_MAX][MAX_PKT + 128];
	int fl[TP_NDN_FRAG_MAX];
	uint32_t count = RTE_MIN((uint32_t)(arg % 7) + 2, (uint32_t)len);

	if (count < 2) {
		from_face(face, b, len);
		return;
	}
	uint32_t each = (uint32_t)((len + count - 1) / count), off = 0;
	count = (uint32_t)((len + each - 1) / each);
	unsigned int sq = face >= PEER ? N_IDS + face - PEER : face;
	uint64_t seq = frag_seq[sq];
	frag_seq[sq] += count;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t n = RTE_MIN(each, (uint32_t)len - off);
		struct tp_ndn_lp_spec s = {
		    .payload = b + off,
		    .payload_len = n,
		    .frag = true,
		    .seq = seq + i,
		    .frag_index = i,
		    .frag_count = count,
		};
		unsigned int id = face >= PEER ? peer_face(face - PEER) : face;
		if (i == 0 && (op & 8) && id < N_IDS) {
			s.pit_token = kept[id][0].tok;
			s.pit_token_len = kept[id][0].tok_len;
		}
		fl[i] = tp_ndn_lp_encode(frags[i], sizeof(frags[i]), &s);
		off += n;
	}
	uint32_t rot = (uint32_t)(op >> 5) % count, n = (op & 16) ? count - 1 : count;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = (i + rot) % count;
		if (fl[k] > 0)
			from_face(face, frags[k], (size_t)fl[k]);
	}
}

static void run(uint8_t op, uint8_t face_sel, uint8_t arg, const uint8_t *b, size_t len)
{
	unsigned int face = 1 + (face_sel & 0x3f) % (N_FACES - 1), id = face;

	w = ws[face_sel >> 7];
	lc = lcs[face_sel >> 7];
	if (face_sel & 0x40) { /* an on-demand peer: its face (or none) for what it was sent */
		face = PEER + (face_sel & 7);
		id = peer_face(face_sel & 7);
		if (id >= N_IDS)
			id = 0;
	}
	const struct sent_interest *k = &kept[id][arg & (KEEP - 1)];

	switch (op & 7) {
	case OP_RAW:
		from_face(face, b, len);
		break;
	case OP_TOKEN: {
		struct tp_ndn_lp_spec s = {
		    .payload = b,
		    .payload_len = (uint32_t)RTE_MIN(len, (size_t)MAX_PKT),
		    .pit_token = k->tok,
		    .pit_token_len = k->tok_len,
		    .nack = (op & 8) != 0,
		    .nack_reason = arg,
		};
		lp_send(face, &s);
		break;
	}
	case OP_DATA:
		op_data(face, k, op, arg, b, len);
		break;
	case OP_NACK: {
		static uint8_t pkt[MAX_PKT];
		static struct tp_ndn_interest in;
		size_t used;
		if (k->len == 0)
			break;
		memcpy(pkt, k->pkt, k->len);
		if ((op & 16) && len >= 4 &&
		    tp_ndn_interest_decode_fwd(pkt, k->len, &in, &used) == TP_NDN_E_OK &&
		    in.nonce_pos)
			memcpy(pkt + (in.nonce_pos - pkt), b, 4);
		struct tp_ndn_lp_spec s = {
		    .payload = pkt,
		    .payload_len = k->len,
		    .nack = true,
		    .nack_reason = arg,
		};
		if (op & 8) {
			s.pit_token = k->tok;
			s.pit_token_len = k->tok_len;
		}
		lp_send(face, &s);
		break;
	}
	case OP_CLOCK: {
		uint64_t ms = (uint64_t)arg * ((op & 8) ? 100 : 1);
		for (unsigned int c = 0; c < N_CTX; c++) {
			ws[c]->now += ms * (tp.tsc_hz / 1000);
			tp_ndn_nf.poll(ws[c], lcs[c]);
		}
		drain_rings();
		drain_tx();
		/* the control plane's timers on its clock, each run when due: management's
		 * (idle on-demand faces go with their routes every 250 ms, expired routes
		 * every second) */
		uint64_t end = vms + ms;
		for (;;) {
			tp_timer_run(vms);
			int64_t next = tp_timer_next_in(vms);
			if (next < 0 || vms + (uint64_t)next > end)
				break;
			vms += (uint64_t)next;
		}
		vms = end;
		tp_timer_run(vms);
		tp_rcu_reclaim(); /* the faces' slots, after the grace period */
		expired_now = true;
		break;
	}
	case OP_MGMT:
		ndn_mgmt_poll();
		drain_rings();	  /* what it handed back: answers, new faces' first packets */
		tp_rcu_reclaim(); /* FIB entries that management replaced */
		break;
	case OP_FRAG:
		op_frag(face, op, arg, b, len);
		break;
	case OP_FRAME: {
		if (len == 0)
			break;
		struct rte_mbuf *m = mbuf_of(b, 0, b, len, arg & 1);
		ndn_ether_input(w, &m, 1);
		break;
	}
	}
	check_all();
}

/* A new epoch: the PIT-CS, the reassembler and what the target remembers start
 * again empty; the clock too. */
static void reset(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(ndn_mgmt_ring, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	while ((n = rte_ring_dequeue_burst(ndn_newface_ring, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	for (unsigned int c = 0; c < N_CTX; c++) {
		struct ndn_fwd *f = fs[c];
		ws[c]->now += 200 * tp.tsc_hz; /* past every lifetime and reassembly timeout */
		tp_ndn_nf.poll(ws[c], lcs[c]);
		ndn_pcct_free(f);
		f->pcc_used = f->pit_used = f->cs_used = 0;
		f->lru_head = f->lru_tail = 0;
		f->gen = 0;
		must(ndn_pcct_create(f, SOCKET_ID_ANY) == 0);
		ws[c]->now = rte_rdtsc();
		ndn_lp_lcore_init(ws[c], &lcs[c]->lp);
		memset(lcs[c]->face_cache, 0, sizeof(lcs[c]->face_cache));
	}
	memset(pit_faces, 0, sizeof(pit_faces));
	memset(kept, 0, sizeof(kept));
	memset(frag_seq, 0, sizeof(frag_seq));
	check_all();
	memset(replay, 0, replay_len);
	replay_len = 0;
	epoch_inputs = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (epoch_inputs++ == EPOCH)
		reset();
	while (size - off >= 5) {
		uint8_t op = data[off], face = data[off + 1], arg = data[off + 2];
		size_t len = (size_t)data[off + 3] << 8 | data[off + 4];
		off += 5;
		len = RTE_MIN(len, size - off);
		if ((op | face | arg) == 0 && len == 0)
			continue; /* an empty record (the replay's padding) */
		if (replay_len + 5 + len <= REPLAY_MAX) {
			uint8_t *r = replay + replay_len;
			r[0] = op, r[1] = face, r[2] = arg;
			r[3] = (uint8_t)(len >> 8), r[4] = (uint8_t)len;
			memcpy(r + 5, data + off, len);
			replay_len += 5 + len;
		}
		run(op, face, arg, data + off, len);
		off += len;
	}
	return 0;
}
