/* SPDX-License-Identifier: BSD-3-Clause */
/* The IPv4 router as a module: its counters, and IPv4 and ARP on l3 ports. */
#include "../../core/input.h"
#include "../../proto/ip4.h"
#include "ip4.h"

static const struct tp_ctr_desc ip4_ctrs[] = {IP4_COUNTERS(TP_CTR_DESC)};

static int ip4_init(void)
{
	/* IPv4 sees each burst first, whole: the router's fast test checks MAC, type and
	 * header in one compare, with no demultiplexing pass before it */
	int ret = tp_l3_first_register(TP_ETHERTYPE_IP4, tp_ip4_input, "ip4");

	return ret < 0 ? ret : tp_ethertype_register(TP_ETHERTYPE_ARP, tp_ip4_arp_input, "ip4");
}

struct tp_nf tp_ip4_nf = {
    .name = "ip4",
    .help = "IPv4 router: RFC 1812 checks, LPM, neighbours, local UDP functions",
    .ctrs = ip4_ctrs,
    .n_ctrs = RTE_DIM(ip4_ctrs),
    .init = ip4_init,
};
TP_NF_REGISTER(tp_ip4_nf)
