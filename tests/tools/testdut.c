/* SPDX-License-Identifier: BSD-3-Clause */
/* tp-testdut: a synthetic device under test for the generator's own tests. It
 * forwards between two ports and misbehaves on purpose: drops every Nth frame,
 * swaps neighbours (reordering), duplicates, or caps its rate (token bucket),
 * so the generator's loss, reordering and RFC 2544 search have known answers. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "../../src/core/eal.h"
#include "../../src/core/ethdev.h"

static volatile bool running = true;

static void on_signal(int sig)
{
	running = false;
}

struct opts {
	unsigned long drop_every, swap_every, dup_every;
	double rate_pps;
};

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"name", required_argument, NULL, 'n'},
	    {"lcores", required_argument, NULL, 'l'},
	    {"port", required_argument, NULL, 'p'},
	    {"drop-every", required_argument, NULL, 'd'},
	    {"swap-every", required_argument, NULL, 'w'},
	    {"dup-every", required_argument, NULL, 'u'},
	    {"rate-pps", required_argument, NULL, 'r'},
	    {"no-huge", no_argument, NULL, 'H'},
	    {0},
	};
	struct tp_eal_opts eo = {.prog = "tp-testdut", .name = "testdut", .mem_mb = 256};
	struct opts o = {0};
	const char *devargs[2] = {NULL, NULL};
	uint16_t ports[2];
	int c, np = 0;
	char err[256];

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			eo.name = optarg;
			break;
		case 'l':
			eo.lcores = optarg;
			break;
		case 'p':
			if (np == 2) {
				fprintf(stderr, "tp-testdut: two --port\n");
				return 1;
			}
			devargs[np++] = optarg;
			break;
		case 'd':
			o.drop_every = strtoul(optarg, NULL, 10);
			break;
		case 'w':
			o.swap_every = strtoul(optarg, NULL, 10);
			break;
		case 'u':
			o.dup_every = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			o.rate_pps = strtod(optarg, NULL);
			break;
		case 'H':
			eo.no_huge = true;
			break;
		default:
			fprintf(
			    stderr,
			    "usage: tp-testdut --name N --lcores L --port DEVARGS --port DEVARGS "
			    "[--drop-every N] [--swap-every N] [--dup-every N] [--rate-pps R]\n");
			return 1;
		}
	}
	if (np != 2) {
		fprintf(stderr, "tp-testdut: give two --port DEVARGS\n");
		return 1;
	}
	if (tp_eal_start(&eo) < 0) {
		fprintf(stderr, "tp-testdut: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	struct rte_mempool *pool =
	    rte_pktmbuf_pool_create("dut", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	for (int i = 0; i < 2; i++) {
		uint16_t rxd = 1024, txd = 1024, mtu = 0, txq = 1;
		if (pool == NULL || tp_ethdev_probe(devargs[i], &ports[i], err, sizeof(err)) < 0 ||
		    tp_ethdev_configure(ports[i], 1, &txq, &rxd, &txd, &mtu, err, sizeof(err)) <
			0 ||
		    tp_ethdev_start(ports[i], 1, 1, rxd, txd, pool, err, sizeof(err)) < 0) {
			fprintf(stderr, "tp-testdut: port %s: %s\n", devargs[i], err);
			return 1;
		}
		rte_eth_promiscuous_enable(ports[i]);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("tp-testdut: forwarding\n");
	fflush(stdout);

	uint64_t hz = rte_get_tsc_hz(), seen = 0, fwd = 0, dropped = 0;
	double tokens = 0, max_tokens = o.rate_pps > 0 ? o.rate_pps / 1000.0 + 32 : 0;
	uint64_t last = rte_rdtsc();
	while (running) {
		for (int i = 0; i < 2; i++) {
			struct rte_mbuf *in[32], *out[64];
			uint16_t n = rte_eth_rx_burst(ports[i], 0, in, 32), k = 0;
			if (o.rate_pps > 0) {
				uint64_t now = rte_rdtsc();
				tokens += (double)(now - last) * o.rate_pps / (double)hz;
				last = now;
				if (tokens > max_tokens)
					tokens = max_tokens;
			}
			for (uint16_t j = 0; j < n; j++) {
				seen++;
				if ((o.drop_every && seen % o.drop_every == 0) ||
				    (o.rate_pps > 0 && tokens < 1)) {
					rte_pktmbuf_free(in[j]);
					dropped++;
					continue;
				}
				if (o.rate_pps > 0)
					tokens -= 1;
				out[k++] = in[j];
				if (o.dup_every && seen % o.dup_every == 0) {
					struct rte_mbuf *d =
					    rte_pktmbuf_copy(in[j], pool, 0, UINT32_MAX);
					if (d)
						out[k++] = d;
				}
				/* swap this frame with the previous one: one reordering */
				if (o.swap_every && seen % o.swap_every == 0 && k >= 2) {
					struct rte_mbuf *t = out[k - 1];
					out[k - 1] = out[k - 2];
					out[k - 2] = t;
				}
			}
			uint16_t sent = rte_eth_tx_burst(ports[1 - i], 0, out, k);
			fwd += sent;
			if (sent < k)
				rte_pktmbuf_free_bulk(&out[sent], k - sent);
		}
	}
	printf("tp-testdut: seen %lu forwarded %lu dropped %lu\n", seen, fwd, dropped);
	for (int i = 0; i < 2; i++)
		tp_ethdev_close(ports[i]);
	rte_eal_cleanup();
	return 0;
}
