/* SPDX-License-Identifier: BSD-3-Clause */
/* NFD's status datasets (NFD Management protocol, "Status Dataset"): forwarder
 * status, faces, channels, FIB, RIB and strategy choices under /localhost/nfd, each
 * built whole as a
 * snapshot on the control plane when an Interest without a version asks for it, then
 * served in segments (/<dataset>/v=<version>/seg=<n>, FinalBlockId the last).
 *
 * Bounds: one snapshot per dataset (a new request replaces it; a segment of another
 * version is not answered, counted), each at most NDN_DATASET_MAX bytes (beyond, the
 * entries that do not fit are left out, counted); a snapshot younger than
 * NDN_DATASET_REUSE_MS answers a new request instead of a rebuild (counted). Every
 * dataset Interest costs a token of management's bucket (mgmt.c), as a command does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_malloc.h>

#include "../../../control/control.h"
#include "../../../control/port.h"
#include "../../../core/tp.h"
#include "../ndn.h"

/* TLV-TYPEs of NFD Management (NFD wiki, "NFD Management protocol", TLV-TYPE
 * assignments; the same numbers as ndn-cxx's nfd/tlv-nfd.hpp) */
enum {
	T_FACE_ID = 0x69,
	T_COST = 0x6a,
	T_FLAGS = 0x6c,
	T_EXPIRATION = 0x6d,
	T_ORIGIN = 0x6f,
	T_URI = 0x72,
	/* ForwarderStatus */
	T_NFD_VERSION = 0x80,
	T_START_TIMESTAMP = 0x81,
	T_CURRENT_TIMESTAMP = 0x82,
	T_N_NAME_TREE = 0x83,
	T_N_FIB = 0x84,
	T_N_PIT = 0x85,
	T_N_MEASUREMENTS = 0x86,
	T_N_CS = 0x87,
	T_N_IN_INTERESTS = 0x90,
	T_N_IN_DATA = 0x91,
	T_N_OUT_INTERESTS = 0x92,
	T_N_OUT_DATA = 0x93,
	T_N_IN_BYTES = 0x94,
	T_N_OUT_BYTES = 0x95,
	T_N_IN_NACKS = 0x97,
	T_N_OUT_NACKS = 0x98,
	T_N_SATISFIED = 0x99,
	T_N_UNSATISFIED = 0x9a,
	/* FaceStatus, ChannelStatus, FibEntry, RibEntry */
	T_FACE_STATUS = 0x80,
	T_LOCAL_URI = 0x81,
	T_CHANNEL_STATUS = 0x82,
	T_FACE_SCOPE = 0x84,
	T_FACE_PERSISTENCY = 0x85,
	T_LINK_TYPE = 0x86,
	T_MTU = 0x89,
	T_FIB_ENTRY = 0x80,
	T_NEXT_HOP = 0x81,
	T_RIB_ENTRY = 0x80,
	T_ROUTE = 0x81,
	/* StrategyChoice */
	T_STRATEGY_CHOICE = 0x80,
	T_STRATEGY = 0x6b,
};
/* Naming Conventions rev. 3 (NDN-TR-0022): typed components */
#define T_SEGMENT_COMP 0x32
#define T_VERSION_COMP 0x36
#define NDN_DATASET_REUSE_MS 100
#define NDN_DATASET_FRESH_MS 1000 /* as NFD's: the segments' FreshnessPeriod */

struct snapshot {
	uint8_t *buf; /* rte_malloc'd at the first request, NDN_DATASET_MAX bytes */
	size_t len;
	uint64_t version; /* 0: none built */
	uint64_t built_ms;
};

/* A dataset's builder: appends its entries to s->buf (each whole, or not at all). */
typedef void (*dataset_build_fn)(struct snapshot *s);

/* Appends the TLV (type, value v of len bytes) to s if it fits; false if not. */
static bool put(struct snapshot *s, uint32_t type, const uint8_t *v, size_t len)
{
	if (s->len + 9 + len > NDN_DATASET_MAX) {
		ndn_mgmt_ctr[NDN_M_DS_TRUNCATED]++;
		return false;
	}
	uint8_t *p = tp_ndn_tl_write(s->buf + s->len, type, len);
	memcpy(p, v, len);
	s->len = (size_t)(p + len - s->buf);
	return true;
}

static uint8_t *put_str(uint8_t *p, uint32_t type, const char *str)
{
	size_t l = strlen(str);

	p = tp_ndn_tl_write(p, type, l);
	memcpy(p, str, l);
	return p + l;
}

static uint64_t start_ms; /* wall clock, at 'ndn enable' */

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t ndn_face_counter(unsigned int face, unsigned int c)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < tp.n_workers; i++)
		s += __atomic_load_n(&ndn_lcore(tp.workers[i])->fctr[face][c], __ATOMIC_RELAXED);
	return s;
}

/* status/general: ForwarderStatus, its fields at the top level (NFD Management,
 * "ForwarderStatus" dataset) */
static void build_general(struct snapshot *s)
{
	static const uint8_t sum[] = {
	    T_N_IN_INTERESTS, NDN_FC_RX_INTEREST, T_N_IN_DATA,	     NDN_FC_RX_DATA,
	    T_N_IN_NACKS,     NDN_FC_RX_NACK,	  T_N_OUT_INTERESTS, NDN_FC_TX_INTEREST,
	    T_N_OUT_DATA,     NDN_FC_TX_DATA,	  T_N_OUT_NACKS,     NDN_FC_TX_NACK,
	};
	uint64_t tot[NDN_FC_MAX] = {0}, pit = 0, cs = 0, satisfied = 0, unsatisfied = 0;
	uint8_t *p = s->buf;

	for (unsigned int f = 0; f < NDN_FACES_MAX; f++)
		if (__atomic_load_n(&ndn_faces[f].up, __ATOMIC_ACQUIRE))
			for (unsigned int c = 0; c < NDN_FC_MAX; c++)
				tot[c] += ndn_face_counter(f, c);
	for (unsigned int k = 0; k < ndn_conf.n_fwd; k++) {
		const struct ndn_fwd *f = ndn_fwd[k];
		pit += __atomic_load_n(&f->pit_used, __ATOMIC_RELAXED);
		cs += __atomic_load_n(&f->cs_used, __ATOMIC_RELAXED);
		satisfied += __atomic_load_n(&f->st.pit_satisfied, __ATOMIC_RELAXED);
		unsatisfied += __atomic_load_n(&f->st.pit_expired, __ATOMIC_RELAXED);
	}
	p = put_str(p, T_NFD_VERSION, "twinplane");
	p = tp_ndn_nni_tlv_write(p, T_START_TIMESTAMP, start_ms);
	p = tp_ndn_nni_tlv_write(p, T_CURRENT_TIMESTAMP, (uint64_t)wall_ms());
	p = tp_ndn_nni_tlv_write(p, T_N_NAME_TREE, 0); /* no name tree: a hashed FIB, PCCT */
	p = tp_ndn_nni_tlv_write(p, T_N_FIB, ndn_fib_count());
	p = tp_ndn_nni_tlv_write(p, T_N_PIT, pit);
	p = tp_ndn_nni_tlv_write(p, T_N_MEASUREMENTS, 0);
	p = tp_ndn_nni_tlv_write(p, T_N_CS, cs);
	for (unsigned int i = 0; i < sizeof(sum); i += 2)
		p = tp_ndn_nni_tlv_write(p, sum[i], tot[sum[i + 1]]);
	p = tp_ndn_nni_tlv_write(p, T_N_SATISFIED, satisfied);
	p = tp_ndn_nni_tlv_write(p, T_N_UNSATISFIED, unsatisfied);
	s->len = (size_t)(p - s->buf);
}

void ndn_face_local_uri(unsigned int i, char *buf, size_t len)
{
	const struct ndn_face *f = &ndn_faces[i];
	const uint8_t *a = (const uint8_t *)&f->local_ip;
	uint64_t q;
	int fd;

	switch (f->kind) {
	case NDN_FACE_ETHER: {
		struct tp_port *p = tp_port_by_id(f->port);
		snprintf(buf, len, "dev://%s", p ? p->name : "?");
		break;
	}
	case NDN_FACE_UDP:
		snprintf(buf, len, "udp4://%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3], NDN_UDP_PORT);
		break;
	case NDN_FACE_UNIX:
	case NDN_FACE_TCP:
		ndn_stream_face_info(i, buf, len, &q, &fd);
		break;
	default:
		ndn_face_uri(i, buf, len);
	}
}

/* faces/list: a FaceStatus per face, by id (NFD Management, "Face Dataset") */
static void build_faces(struct snapshot *s)
{
	static const uint8_t ctr[] = {
	    T_N_IN_INTERESTS, NDN_FC_RX_INTEREST, T_N_IN_DATA,	     NDN_FC_RX_DATA,
	    T_N_IN_NACKS,     NDN_FC_RX_NACK,	  T_N_OUT_INTERESTS, NDN_FC_TX_INTEREST,
	    T_N_OUT_DATA,     NDN_FC_TX_DATA,	  T_N_OUT_NACKS,     NDN_FC_TX_NACK,
	    T_N_IN_BYTES,     NDN_FC_RX_BYTES,	  T_N_OUT_BYTES,     NDN_FC_TX_BYTES,
	};
	uint8_t v[512], *p;
	char uri[160];

	for (unsigned int i = 0; i < NDN_FACES_MAX; i++) {
		const struct ndn_face *f = &ndn_faces[i];
		if (!__atomic_load_n(&f->up, __ATOMIC_ACQUIRE))
			continue;
		p = tp_ndn_nni_tlv_write(v, T_FACE_ID, i);
		ndn_face_uri(i, uri, sizeof(uri));
		p = put_str(p, T_URI, uri);
		ndn_face_local_uri(i, uri, sizeof(uri));
		p = put_str(p, T_LOCAL_URI, uri);
		if (f->on_demand) { /* an idle one's time left */
			uint64_t idle = tp_ctl_now_ms() - f->last_rx_ms;
			uint64_t max = (uint64_t)ndn_limits.face_idle_s * 1000;
			p = tp_ndn_nni_tlv_write(p, T_EXPIRATION, idle < max ? max - idle : 0);
		}
		/* FaceScope 1 local; FacePersistency 0 on-demand (made by a peer: on-demand
		 * UDP, a stream connection, as NFD's), 1 persistent (the operator's), 2
		 * permanent (management's); LinkType 1 multi-access (an Ethernet group) */
		p = tp_ndn_nni_tlv_write(p, T_FACE_SCOPE, f->local ? 1 : 0);
		unsigned int pers = f->kind == NDN_FACE_INTERNAL_KIND		  ? 2
				    : f->on_demand || ndn_face_is_stream(f->kind) ? 0
										  : 1;
		p = tp_ndn_nni_tlv_write(p, T_FACE_PERSISTENCY, pers);
		bool multi =
		    f->kind == NDN_FACE_ETHER && rte_is_multicast_ether_addr(&f->remote_mac);
		p = tp_ndn_nni_tlv_write(p, T_LINK_TYPE, multi ? 1 : 0);
		p = tp_ndn_nni_tlv_write(p, T_MTU, f->mtu);
		for (unsigned int k = 0; k < sizeof(ctr); k += 2)
			p = tp_ndn_nni_tlv_write(p, ctr[k], ndn_face_counter(i, ctr[k + 1]));
		p = tp_ndn_nni_tlv_write(p, T_FLAGS, 0);
		if (!put(s, T_FACE_STATUS, v, (size_t)(p - v)))
			return;
	}
}

static void channel(const char *uri, unsigned int conns, uint64_t accepted, uint64_t refused,
		    void *arg)
{
	uint8_t v[160], *p;

	(void)conns, (void)accepted, (void)refused;
	p = put_str(v, T_LOCAL_URI, uri);
	put(arg, T_CHANNEL_STATUS, v, (size_t)(p - v));
}

/* faces/channels: a ChannelStatus per listener: UDP 6363 (the on-demand faces'),
 * then the stream listeners ('ndn face listen') */
static void build_channels(struct snapshot *s)
{
	char uri[32];

	snprintf(uri, sizeof(uri), "udp4://0.0.0.0:%u", NDN_UDP_PORT);
	channel(uri, 0, 0, 0, s);
	ndn_stream_listeners(channel, s);
}

/* fib/list: a FibEntry per entry, its next hops by cost */
static void fib_entry(const struct ndn_fib_entry *e, void *arg)
{
	uint8_t v[TP_NDN_NAME_MAX_LEN + 8 + NDN_NH_MAX * 16], *p;

	p = tp_ndn_tl_write(v, TP_NDN_T_NAME, e->name_len);
	memcpy(p, e->name, e->name_len);
	p += e->name_len;
	for (unsigned int i = 0; i < e->n_nh; i++) {
		uint8_t nh[16], *q = tp_ndn_nni_tlv_write(nh, T_FACE_ID, e->nh[i].face);
		q = tp_ndn_nni_tlv_write(q, T_COST, e->nh[i].cost);
		p = tp_ndn_tl_write(p, T_NEXT_HOP, (size_t)(q - nh));
		memcpy(p, nh, (size_t)(q - nh));
		p += q - nh;
	}
	put(arg, T_FIB_ENTRY, v, (size_t)(p - v));
}

static void build_fib(struct snapshot *s)
{
	ndn_fib_walk(fib_entry, s);
}

/* rib/list: a RibEntry per name, its Routes (grouped from the RIB's routes) */
struct rib_route {
	const uint8_t *name;
	uint16_t len, face;
	uint64_t origin, cost, flags, expires_ms;
};
struct rib_collect {
	struct rib_route *r;
	unsigned int n;
};

static void rib_route(const uint8_t *name, uint16_t len, uint16_t face, uint64_t origin,
		      uint64_t cost, uint64_t flags, uint64_t expires_ms, void *arg)
{
	struct rib_collect *c = arg;

	if (c->n < NDN_FIB_MAX)
		c->r[c->n++] = (struct rib_route){name, len, face, origin, cost, flags, expires_ms};
}

/* by name (the Name TLV-VALUE's length, then bytes), then face, then origin */
static int route_cmp(const void *a, const void *b)
{
	const struct rib_route *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	int c = memcmp(x->name, y->name, x->len);
	if (c)
		return c;
	if (x->face != y->face)
		return x->face < y->face ? -1 : 1;
	return x->origin < y->origin ? -1 : x->origin > y->origin;
}

static void build_rib(struct snapshot *s)
{
	static uint8_t v[TP_NDN_NAME_MAX_LEN + 8 + NDN_FIB_MAX * 48];
	struct rib_collect c = {malloc(NDN_FIB_MAX * sizeof(*c.r)), 0};
	uint64_t now = tp_ctl_now_ms();

	if (c.r == NULL)
		return;
	ndn_rib_walk(rib_route, &c);
	qsort(c.r, c.n, sizeof(*c.r), route_cmp);
	for (unsigned int i = 0, j; i < c.n; i = j) {
		uint8_t *p = tp_ndn_tl_write(v, TP_NDN_T_NAME, c.r[i].len);
		memcpy(p, c.r[i].name, c.r[i].len);
		p += c.r[i].len;
		for (j = i; j < c.n && c.r[j].len == c.r[i].len &&
			    memcmp(c.r[j].name, c.r[i].name, c.r[i].len) == 0;
		     j++) {
			const struct rib_route *r = &c.r[j];
			uint8_t rt[48], *q = tp_ndn_nni_tlv_write(rt, T_FACE_ID, r->face);
			q = tp_ndn_nni_tlv_write(q, T_ORIGIN, r->origin);
			q = tp_ndn_nni_tlv_write(q, T_COST, r->cost);
			q = tp_ndn_nni_tlv_write(q, T_FLAGS, r->flags);
			if (r->expires_ms)
				q = tp_ndn_nni_tlv_write(
				    q, T_EXPIRATION, r->expires_ms > now ? r->expires_ms - now : 0);
			p = tp_ndn_tl_write(p, T_ROUTE, (size_t)(q - rt));
			memcpy(p, rt, (size_t)(q - rt));
			p += q - rt;
		}
		if (!put(s, T_RIB_ENTRY, v, (size_t)(p - v)))
			break;
	}
	free(c.r);
}

/* NFD 22.12's versions of its strategies (fw/best-route-strategy.cpp v=5,
 * multicast-strategy.cpp v=4, asf-strategy.cpp v=5), by enum ndn_strategy */
static const uint8_t strategy_version[NDN_STRATEGY_MAX] = {5, 4, 5};

size_t ndn_strategy_tlv_write(uint8_t *buf, size_t cap, enum ndn_strategy s, uint32_t probe_ms)
{
	uint8_t name[128];
	char uri[128];
	int l;

	if ((unsigned int)s >= NDN_STRATEGY_MAX)
		return 0;
	/* NFD's instance name: the strategy's name, its version, then its parameters as
	 * given (fw/strategy.cpp makeInstanceName; asf's probing-interval~MS) */
	l = snprintf(uri, sizeof(uri), "/localhost/nfd/strategy/%s/v=%u", ndn_strategy_names[s],
		     strategy_version[s]);
	if (s == NDN_STRATEGY_ASF && probe_ms)
		snprintf(uri + l, sizeof(uri) - (size_t)l, "/probing-interval~%u", probe_ms);
	int nl = tp_ndn_name_from_uri(uri, name, sizeof(name));
	if (nl <= 0)
		return 0;
	size_t inner = 1 + tp_ndn_varnum_size((uint64_t)nl) + (size_t)nl;
	size_t total = tp_ndn_varnum_size(T_STRATEGY) + tp_ndn_varnum_size(inner) + inner;
	if (total > cap)
		return 0;
	uint8_t *p = tp_ndn_tl_write(buf, T_STRATEGY, inner); /* Strategy { Name } */
	p = tp_ndn_tl_write(p, TP_NDN_T_NAME, (size_t)nl);
	memcpy(p, name, (size_t)nl);
	return total;
}

/* strategy-choice/list: a StrategyChoice { Name, Strategy } per prefix chosen, the
 * root's first, set or not (NFD Management, "Strategy Choice Dataset") */
static void strategy_choice(const uint8_t *name, uint16_t len, enum ndn_strategy st,
			    uint32_t probe_ms, void *arg)
{
	uint8_t v[TP_NDN_NAME_MAX_LEN + 8 + 160], *p;

	p = tp_ndn_tl_write(v, TP_NDN_T_NAME, len);
	if (len)
		memcpy(p, name, len);
	p += len;
	p += ndn_strategy_tlv_write(p, sizeof(v) - (size_t)(p - v), st, probe_ms);
	put(arg, T_STRATEGY_CHOICE, v, (size_t)(p - v));
}

static void build_strategy_choices(struct snapshot *s)
{
	ndn_fib_strategy_walk(strategy_choice, s);
}

static const struct {
	const char *module, *dataset;
	dataset_build_fn build;
} datasets[] = {
    {"status", "general", build_general},
    {"faces", "list", build_faces},
    {"faces", "channels", build_channels},
    {"fib", "list", build_fib},
    {"rib", "list", build_rib},
    {"strategy-choice", "list", build_strategy_choices},
};
static struct snapshot snaps[RTE_DIM(datasets)];

static bool comp_is(const struct tp_ndn_name *n, unsigned int i, const char *s)
{
	uint16_t len;
	const uint8_t *c = tp_ndn_name_comp(n, i, &len);
	size_t sl = strlen(s);

	return len == sl + 2 && c[0] == TP_NDN_T_GENERIC && c[1] == sl && memcmp(c + 2, s, sl) == 0;
}

/* Component i of n as a number of TLV-TYPE type; false if it is not one. */
static bool comp_num(const struct tp_ndn_name *n, unsigned int i, uint8_t type, uint64_t *v)
{
	uint16_t len;
	const uint8_t *c = tp_ndn_name_comp(n, i, &len);

	return c[0] == type && tp_ndn_comp_number(c, len, v) == TP_NDN_E_OK;
}

void ndn_dataset_reset(void)
{
	for (unsigned int i = 0; i < RTE_DIM(snaps); i++) {
		rte_free(snaps[i].buf);
		snaps[i] = (struct snapshot){0};
	}
	start_ms = (uint64_t)wall_ms();
}

int ndn_dataset_answer(const struct tp_ndn_interest *in, uint8_t *buf, size_t cap)
{
	const struct tp_ndn_name *n = &in->name;
	unsigned int d;
	uint64_t ver = 0, seg = 0;

	/* /localhost/nfd/<module>/<dataset>[/<version>[/<segment>]] */
	if (n->n_comps < 4 || n->n_comps > 6 || !comp_is(n, 0, "localhost"))
		return 0;
	for (d = 0; d < RTE_DIM(datasets); d++)
		if (comp_is(n, 2, datasets[d].module) && comp_is(n, 3, datasets[d].dataset))
			break;
	if (d == RTE_DIM(datasets))
		return 0;
	if ((n->n_comps >= 5 && !comp_num(n, 4, T_VERSION_COMP, &ver)) ||
	    (n->n_comps == 6 && !comp_num(n, 5, T_SEGMENT_COMP, &seg)))
		return 0; /* a command's name (ControlParameters), not a dataset's */
	struct snapshot *s = &snaps[d];
	uint64_t now = tp_ctl_now_ms();
	if (n->n_comps == 4) {
		/* a new version, unless the last is very recent */
		if (s->version && now - s->built_ms < NDN_DATASET_REUSE_MS) {
			ndn_mgmt_ctr[NDN_M_DS_REUSED]++;
		} else {
			if (s->buf == NULL &&
			    (s->buf = rte_malloc("ndn_dataset", NDN_DATASET_MAX, 0)) == NULL) {
				ndn_mgmt_ctr[NDN_M_ANSWERS_LOST]++;
				return -ENOMEM;
			}
			s->len = 0;
			datasets[d].build(s);
			/* NFD's: the version is the time in ms (Naming Conventions 3.3) */
			s->version = RTE_MAX((uint64_t)wall_ms(), s->version + 1);
			s->built_ms = now;
			ndn_mgmt_ctr[NDN_M_DS_BUILT]++;
		}
		ver = s->version;
	}
	size_t n_seg = s->len ? (s->len + NDN_DATASET_SEG - 1) / NDN_DATASET_SEG : 1;
	if (s->version == 0 || ver != s->version || seg >= n_seg) {
		ndn_mgmt_ctr[NDN_M_DS_GONE]++;
		return -ENOENT;
	}
	/* the Data's name: the dataset's prefix, the version, the segment */
	uint8_t name[TP_NDN_NAME_MAX_LEN], last[16], *p;
	uint16_t pl = tp_ndn_name_prefix_len(n, 4);
	if (pl + 2 * 12u > sizeof(name)) {
		ndn_mgmt_ctr[NDN_M_ANSWERS_LOST]++;
		return -ENAMETOOLONG;
	}
	memcpy(name, n->value, pl);
	p = tp_ndn_nni_tlv_write(name + pl, T_VERSION_COMP, ver);
	p = tp_ndn_nni_tlv_write(p, T_SEGMENT_COMP, seg);
	uint8_t *le = tp_ndn_nni_tlv_write(last, T_SEGMENT_COMP, n_seg - 1);
	size_t off = seg * NDN_DATASET_SEG;
	struct tp_ndn_data_spec ds = {
	    .name_value = name,
	    .name_len = (uint16_t)(p - name),
	    .content_type = -1,
	    .freshness_ms = NDN_DATASET_FRESH_MS,
	    .final_block = last,
	    .final_block_len = (uint16_t)(le - last),
	    .content = s->buf ? s->buf + off : NULL,
	    .content_len = (uint32_t)RTE_MIN((size_t)NDN_DATASET_SEG, s->len - off),
	};
	int dl = tp_ndn_data_encode(buf, cap, &ds);
	if (dl <= 0) {
		ndn_mgmt_ctr[NDN_M_ANSWERS_LOST]++;
		return -ENOSPC;
	}
	ndn_mgmt_ctr[NDN_M_DS_SEGMENTS]++;
	return dl;
}
