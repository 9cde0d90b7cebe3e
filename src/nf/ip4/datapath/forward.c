/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 forwarding's cold stages: a packet that does not forward (TTL expired, no
 * route, a special, unfit or unresolved next hop). The forwarding itself (LPM, next
 * hop, MTU, L2 rewrite, TTL, TX buffering) runs inline in tp_ip4_input: ip4_one,
 * ip4_stages.h. */
#include <rte_lpm.h>
#include <rte_mbuf.h>

#include "../../../proto/ip4.h"
#include "../../../tables/iface.h"
#include "../control/nexthop.h"
#include "../control/route.h"
#include "../ip4.h"
#include "ip4_stages.h"

/* TTL <= 1: for us, it is ours (OSPF and eBGP send TTL 1 to their peers); to be
 * forwarded, it expires and the kernel sends Time Exceeded (RFC 1812 5.3.1). */
__rte_noinline void tp_ip4_ttl_low(struct tp_worker *w, struct rte_mbuf *m, uint32_t d)
{
	uint32_t e = tp_route_entry(tp_route_lpm, d);

	TP_TRACE_STAGE(w, m, "ip4.ttl_low");
	if ((e & RTE_LPM_LOOKUP_SUCCESS) && (e & 0x00ffffff) == TP_NH_PUNT)
		tp_ip4_local(w, m);
	else
		tp_ip4_punt(w, m, IP4_C_TTL);
}

/* A packet whose next hop does not forward: no route (the kernel answers Destination
 * Unreachable, RFC 1812 5.2.7.1), a kernel blackhole, unreachable or prohibit route,
 * a route that does not fit in the tables or covers one that does not (the kernel,
 * which has the route, forwards it), one of our addresses, or a neighbour not
 * resolved (the kernel resolves it and forwards through the TAP, or answers Host
 * Unreachable when that fails). */
__rte_noinline void tp_ip4_no_forward(struct tp_worker *w, struct rte_mbuf *m, uint32_t id,
				      uint64_t v)
{
	TP_TRACE_STAGE(w, m, "ip4.no_forward");
	switch (id) {
	case UINT32_MAX:
		tp_ip4_punt(w, m, IP4_C_NO_ROUTE);
		return;
	case TP_NH_BLACKHOLE:
		tp_drop(w, m, IP4_CTR(BLACKHOLE));
		return;
	case TP_NH_UNREACHABLE:
		tp_ip4_punt(w, m, IP4_C_UNREACHABLE_ROUTE);
		return;
	case TP_NH_PROHIBIT:
		tp_ip4_punt(w, m, IP4_C_PROHIBITED_ROUTE);
		return;
	case TP_NH_UNFIT:
		tp_ip4_punt(w, m, IP4_C_ROUTE_UNFIT);
		return;
	default:
		if (tp_nh_l2_flags(v) & TP_NH_F_PUNT)
			tp_ip4_local(w, m);
		else
			tp_ip4_punt(w, m, IP4_C_UNRESOLVED);
	}
}
