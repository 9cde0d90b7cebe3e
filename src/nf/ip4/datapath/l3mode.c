/* SPDX-License-Identifier: BSD-3-Clause */
/* The l3 port mode: the ethertype table, the first handler (IPv4) and the mode's
 * input function (l3mode.h). */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_prefetch.h>

#include "../../../core/dispatch.h"
#include "../../../tables/iface.h"
#include "../l3mode.h"

/* --- the ethertype table --- */
static struct tp_dispatch ethertypes;

int tp_ethertype_register(uint16_t ethertype, tp_input_fn fn, const char *owner)
{
	return tp_dispatch_add(&ethertypes, rte_cpu_to_be_16(ethertype), (tp_dispatch_fn)fn, owner);
}

int tp_ethertype_get(unsigned int i, uint16_t *ethertype, const char **owner)
{
	if (i >= __atomic_load_n(&ethertypes.n, __ATOMIC_ACQUIRE))
		return -ENOENT;
	*ethertype = rte_be_to_cpu_16(ethertypes.e[i].key_be);
	*owner = ethertypes.e[i].owner;
	return 0;
}

/* The first handlers (their ethertypes in network order): each sees every burst that
 * starts with one of its frames whole, and the runs of its frames in the others.
 * Entries are written before n_first counts them (release), never changed after. */
static struct {
	uint16_t type_be;
	tp_l3_first_fn fn;
} firsts[TP_L3_FIRST_MAX];
static unsigned int n_first;

/* A run of n frames of one ethertype; taken: the first handler that was given the
 * burst whole (it has taken all of its frames), or n_first. */
static void run_dispatch(struct tp_worker *w, struct rte_mbuf **run, uint16_t n, uint16_t type_be,
			 unsigned int nf, unsigned int taken)
{
	tp_input_fn fn;

	/* a run of a first handler's frames in a burst that did not start with one */
	for (unsigned int f = 0; f < nf; f++) {
		if (f == taken || type_be != firsts[f].type_be)
			continue;
		struct rte_mbuf *rest[TP_BURST];
		uint16_t k = firsts[f].fn(w, run, n, rest);
		/* every frame of the run is of its type and holds an Ethernet header: it
		 * hands none back; should it, nothing else takes them */
		for (uint16_t i = 0; i < k; i++)
			tp_drop(w, rest[i], TP_DROP_L2_UNSUPPORTED);
		return;
	}
	fn = (tp_input_fn)tp_dispatch_find(&ethertypes, type_be);

	if (likely(fn != NULL)) {
		fn(w, run, n);
		return;
	}
	for (uint16_t i = 0; i < n; i++)
		tp_drop(w, run[i], TP_DROP_L2_UNSUPPORTED);
}

int tp_l3_first_register(uint16_t ethertype, tp_l3_first_fn fn, const char *owner)
{
	unsigned int nf = __atomic_load_n(&n_first, __ATOMIC_RELAXED);
	int ret;

	if (nf == TP_L3_FIRST_MAX)
		return -ENOSPC;
	/* listed in the table too (show modules; a second registration of the type is
	 * refused there), but never looked up there */
	ret = tp_dispatch_add(&ethertypes, rte_cpu_to_be_16(ethertype), NULL, owner);
	if (ret < 0)
		return ret;
	firsts[nf].type_be = rte_cpu_to_be_16(ethertype);
	firsts[nf].fn = fn;
	__atomic_store_n(&n_first, nf + 1, __ATOMIC_RELEASE);
	return 0;
}

/* The ethertype (network order) of a frame, or 0 when it holds no Ethernet header. */
static inline uint16_t frame_type_be(const struct rte_mbuf *m)
{
	uint16_t type = 0;

	if (likely(rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN))
		memcpy(&type, rte_pktmbuf_mtod_offset(m, const uint8_t *, 12), sizeof(type));
	return type;
}

/* Frames to our MAC, a group address (multicast, broadcast) or nothing else. A burst
 * that starts with a frame of a first handler's type goes to it whole (the routed
 * port's common case: one compare more than the handler's own); it takes its own, the
 * rest follow. Then consecutive frames of one ethertype go to their handler as one
 * run, the first handlers' included: a burst of other frames (NDN) never passes
 * through a first handler's per-frame test. */
void tp_l3_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *run[TP_BURST], *others[TP_BURST];
	unsigned int nf = __atomic_load_n(&n_first, __ATOMIC_ACQUIRE), taken = nf;
	uint64_t mac = 0;
	uint16_t nr = 0, cur = 0;

	TP_TRACE_BURST(w, pkts, n, "l3.input");
	if (unlikely(n == 0))
		return;
	uint16_t type0 = frame_type_be(pkts[0]);
	for (unsigned int f = 0; f < nf; f++) {
		if (type0 != firsts[f].type_be)
			continue;
		n = firsts[f].fn(w, pkts, n, others);
		if (likely(n == 0))
			return;
		pkts = others;
		taken = f; /* it has taken all of its frames */
		break;
	}

	/* one burst comes from one rx queue, so from one port */
	memcpy(&mac, &tp_iface_table[pkts[0]->port].mac, RTE_ETHER_ADDR_LEN);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
		uint64_t dst;
		uint16_t type;

		if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
			tp_drop(w, m, TP_DROP_L2_TOO_SHORT);
			continue;
		}
		memcpy(&dst, eth,
		       sizeof(dst)); /* the source's first bytes come along: shifted out */
		if (unlikely(((dst ^ mac) << 16) != 0 && !(eth[0] & 1))) {
			tp_drop(w, m, TP_DROP_L2_OTHER_HOST);
			continue;
		}
		memcpy(&type, eth + 12, sizeof(type));
		if (nr && type != cur) {
			run_dispatch(w, run, nr, cur, nf, taken);
			nr = 0;
		}
		cur = type;
		run[nr++] = m;
	}
	if (nr)
		run_dispatch(w, run, nr, cur, nf, taken);
}

struct tp_port_mode tp_mode_l3 = {
    .name = "l3",
    .help = "routed port: IPv4, ARP and what modules register by ethertype",
    .input = tp_l3_input,
    .is_default = true,
};
TP_PORT_MODE_REGISTER(tp_mode_l3)
