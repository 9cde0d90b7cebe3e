/* SPDX-License-Identifier: BSD-3-Clause */
/* Starting the NDN forwarder ('ndn enable'): its forwarding contexts (a PIT-CS and
 * rings per forwarding lcore), the NDT, the output rings, faces, FIB, management,
 * and its entry points (UDP port 6363 on ip4's local table, ethertype 0x8624 on
 * ip4's l3 mode); and the "ndn" port mode (every frame NDN). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "../../../control/control.h"
#include "../../../control/port.h"
#include "../../../core/input.h"
#include "../../../core/tp.h"
#include "../../../tables/keyed_hash.h"
#include "../../ip4/datapath/udp_local.h"
/* the ethertype table of ip4's l3 mode: NDN depends on ip4 */
#include "../../ip4/l3mode.h"
#include "../ndn.h"

static struct tp_port_mode ndn_mode = {
    .name = "ndn",
    .help = "every frame is NDN (ethertype 0x8624) for the port's Ethernet faces",
    .input = ndn_ether_input,
};
TP_PORT_MODE_REGISTER(ndn_mode)

/* err (of len bytes) says why: returns -errnum */
static int fail(char *err, size_t len, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -errnum;
}

int ndn_enable(struct ndn_conf *c, char *err, size_t len)
{
	int ret;

	if (ndn_conf.enabled) /* after the syntax: a bad word is named first */
		return fail(err, len, EALREADY, "the forwarder is running already");
	/* forwarding contexts: the forwarding lcores, else every worker */
	c->n_fwd = 0;
	for (int role = TP_ROLE_FORWARDING; c->n_fwd == 0 && role >= TP_ROLE_WORKER; role--)
		for (unsigned int i = 0; i < tp.n_workers && c->n_fwd < NDN_CTX_MAX; i++)
			if (tp.workers[i]->conf->role == role)
				c->fwd_worker[c->n_fwd++] = i;
	if (c->n_fwd == 0)
		return fail(err, len, ENODEV, "no data-plane lcore of role forwarding or worker");
	/* output lcores, if any: they send what the forwarding lcores forward */
	c->n_out = 0;
	for (unsigned int i = 0; i < tp.n_workers && c->n_out < NDN_OUT_MAX; i++)
		if (tp.workers[i]->conf->role == TP_ROLE_OUTPUT)
			c->out_worker[c->n_out++] = i;
	/* the NDT's key from the kernel's generator (rte_rand is not one an outsider
	 * cannot predict: security review N4) */
	if (tp_random_bytes(c->siphash_key, sizeof(c->siphash_key)) < 0)
		return fail(err, len, EIO, "no random key for the NDT");
	ndn_conf = *c;

	ndn_ndt = rte_zmalloc("ndn_ndt", 1u << c->ndt_bits, 64);
	if (ndn_ndt == NULL)
		return fail(err, len, ENOMEM, "no memory for the NDT");
	for (unsigned int i = 0; i < (1u << c->ndt_bits); i++)
		ndn_ndt[i] = (uint8_t)(i % c->n_fwd);
	for (unsigned int i = 0; i < c->n_fwd; i++) {
		struct ndn_fwd *f = rte_zmalloc("ndn_fwd", sizeof(*f), 64);
		if (f == NULL)
			return fail(err, len, ENOMEM, "no memory");
		f->idx = i;
		f->worker = c->fwd_worker[i];
		if ((ret = ndn_pcct_create(f, SOCKET_ID_ANY)) < 0)
			return fail(err, len, -ret,
				    "no memory for a PIT-CS of %u + %u entries "
				    "(hugepages?)",
				    c->pit_capacity, c->cs_capacity);
		static const char *const kinds[4] = {"interest", "data", "nack", "handback"};
		for (unsigned int k = 0; k < 4; k++) {
			char name[TP_RING_NAME_MAX];
			/* one data-plane lcore runs every stage to completion: it is the
			 * input lcore of every port and hands packets to its own context
			 * directly, so nothing would ever enqueue an Interest, Data or
			 * Nack, and the loop would poll three empty rings on every pass */
			if (k < 3 && tp.n_workers == 1) {
				f->ring[k] = NULL;
				continue;
			}
			if (c->shared_queue && (k == 1 || k == 2)) { /* the Interests' ring */
				f->ring[k] = f->ring[0];
				continue;
			}
			snprintf(name, sizeof(name), "ndn-%s-%u",
				 c->shared_queue && k == 0 ? "packets" : kinds[k], i);
			f->ring[k] =
			    tp_ring_create(name, "ndn", k < 3 ? c->queue[k] : 1024, f->worker, 0,
					   k < 3 ? ndn_fwd_ring : ndn_rx_ring, f);
			if (f->ring[k] == NULL)
				return fail(err, len, rte_errno, "ring %s: %s", name,
					    rte_strerror(rte_errno));
		}
		ndn_fwd[i] = f;
	}
	for (unsigned int j = 0; j < c->n_out; j++) {
		char name[TP_RING_NAME_MAX];
		snprintf(name, sizeof(name), "ndn-output-%u", j);
		ndn_out_ring[j] = tp_ring_create(name, "ndn", c->out_queue, c->out_worker[j], 0,
						 ndn_out_ring_fn, NULL);
		if (ndn_out_ring[j] == NULL)
			return fail(err, len, rte_errno, "ring %s: %s", name,
				    rte_strerror(rte_errno));
	}
	ndn_limits_apply();
	if ((ret = ndn_faces_init()) < 0 || (ret = ndn_fib_init()) < 0 ||
	    (ret = ndn_mgmt_init()) < 0 || (ret = ndn_lp_init()) < 0)
		return fail(err, len, -ret, "%s", strerror(-ret));
	if ((ret = tp_udp_local_register(NDN_UDP_PORT, ndn_udp_input, "ndn")) < 0 ||
	    (ret = tp_ethertype_register(NDN_ETHERTYPE, ndn_ether_input, "ndn")) < 0 ||
	    (ret = tp_ctl_add_poller(ndn_mgmt_poll)) < 0)
		return fail(err, len, -ret, "%s", strerror(-ret));
	/* each lcore's context before the first packet: the input stage hands the
	 * lcore's own context its packets directly, the others through their rings */
	for (unsigned int i = 0; i < c->n_fwd; i++) {
		struct tp_worker *w = tp.workers[c->fwd_worker[i]];
		__atomic_store_n(&ndn_lcore(w)->fwd, ndn_fwd[i], __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ndn_conf.enabled, true, __ATOMIC_RELEASE);
	return 0;
}

void ndn_limits_apply(void)
{
	for (unsigned int i = 0; i < ndn_conf.n_fwd; i++) {
		struct ndn_fwd *f = ndn_fwd[i];
		uint64_t max = (uint64_t)f->pit_cap * ndn_limits.pit_face_share / 100;
		__atomic_store_n(&f->pit_face_max, (uint32_t)RTE_MAX(max, (uint64_t)1),
				 __ATOMIC_RELAXED);
	}
}
