/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-nf: a sample network function for service chains (issue 12): forwards
 * between two ports (port 0 <-> port 1), optionally swapping MACs and spending cycles
 * per packet, and writes its counters to a JSON file. docs/NF.md tells how to use it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "../core/eal.h"
#include "../core/ethdev.h"
#include "../proto/json.h"
#include "../proto/parse.h"

#define NF_PROG "twinplane-nf"
#define NF_MAX_BURST 256
#define NF_POOL_MBUFS 8191 /* 2 ports x (1024 rx + 1024 tx descriptors) and the caches */
#define NF_BACKOFF_MAX_US 500u
#define NF_STATS_PERIOD_MS 100
#define NF_TEND_MS 100	      /* link states read, ports restarted: see ports_tend() */
#define NF_RETRY_MAX_MS 1000u /* a port that will not start: retried at least this often */

/* Exit statuses: 2 for a bad command line, 1 for a failure at start-up. */
#define NF_EXIT_USAGE 2

struct nf_port_stats {
	uint64_t rx;	   /* frames received on this port */
	uint64_t tx;	   /* frames sent out of this port */
	uint64_t tx_drop;  /* frames for this port its tx queue did not take: freed */
	uint64_t rx_bytes; /* bytes received (frame lengths, no FCS) */
	uint64_t starts;   /* successful rte_eth_dev_start()s: 1, more after peer losses */
	uint64_t link;	   /* 1 up, 0 down, as the loop last saw it */
};

/* Written by the forwarding loop only (relaxed stores), read by the stats thread
 * (relaxed loads): each counter is exact, a snapshot of all of them need not be. */
struct nf_stats {
	struct nf_port_stats port[2];
	uint64_t polls;	      /* passes of the loop, each polling both ports */
	uint64_t idle_polls;  /* passes that received nothing */
	uint64_t busy_cycles; /* TSC cycles of the passes that received something */
};

struct nf_opts {
	const char *devargs[2];
	const char *stats_path;
	unsigned int burst;
	unsigned int rxq; /* receive queues per port, polled in turn */
	uint64_t cycles;  /* TSC cycles of busy work per packet */
	bool swap_mac;
	bool backoff;
};

/* A port's state, the loop's own. */
struct nf_port {
	uint16_t id;
	bool started;
	bool was_up;	       /* its link came up since it started */
	uint64_t retry_at;     /* TSC: next start attempt, when not started */
	unsigned int retry_ms; /* the wait after the next failed attempt */
	char name[RTE_ETH_NAME_MAX_LEN];
};

struct nf {
	struct nf_opts o;
	const char *name;
	uint16_t port[2]; /* the ports' ids, for the fast path */
	struct nf_port p[2];
	struct nf_stats st;
};

static struct nf nf;
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

static inline bool nf_running(void)
{
	return !stop_requested;
}

static inline void ctr_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

static inline uint64_t ctr_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " NF_PROG " --port0 DEVARGS --port1 DEVARGS [options]\n"
	    "Forwards port 0 -> port 1 and port 1 -> port 0 on the main lcore.\n"
	    "  -n, --name NAME       instance name, also the DPDK file prefix (nf)\n"
	    "      --port0 DEVARGS   first port, e.g. net_memif0,role=client,socket=/tmp/a.sock\n"
	    "      --port1 DEVARGS   second port, e.g. net_virtio_user1,path=/tmp/vhost.sock\n"
	    "  -l, --lcores LIST     EAL lcores; the loop runs on the first (0)\n"
	    "      --no-huge         ordinary memory instead of hugepages\n"
	    "  -m, --mem MB          memory without hugepages (256)\n"
	    "      --eal 'ARGS'      extra EAL arguments\n"
	    "      --burst N         frames per rx burst, 1-%d (32)\n"
	    "      --rxq N           receive queues per port, polled in turn, 1-8 (1; 2 for a\n"
	    "                        memif peer that opens a ring per transmit queue: OVS-DPDK)\n"
	    "      --swap-mac        swap the source and destination MAC of each frame\n"
	    "      --cycles N        spend N TSC cycles of busy work per frame (0)\n"
	    "      --backoff         sleep after empty polls, 1 us doubling to %u us, so\n"
	    "                        several NFs can share a CPU (default: pure polling)\n"
	    "      --stats FILE      write the counters as JSON to FILE every %d ms and at exit\n"
	    "  -h, --help            this text\n"
	    "Stops on SIGINT or SIGTERM, writing the final counters.\n",
	    NF_MAX_BURST, NF_BACKOFF_MAX_US, NF_STATS_PERIOD_MS);
}

/* "--name" or "-m": the option of getopt's code c, for messages. */
static const char *opt_name(const struct option *lo, int c)
{
	static char buf[40];

	for (; lo->name; lo++)
		if (lo->val == c) {
			snprintf(buf, sizeof(buf), "--%s", lo->name);
			return buf;
		}
	snprintf(buf, sizeof(buf), "-%c", c);
	return buf;
}

/* --- the counters file ------------------------------------------------- */

/* The counters as one JSON object and its newline, through the project's writer
 * (proto/json.h); the length, or -ENOSPC. */
static int stats_format(char *buf, size_t len, bool final)
{
	struct tp_json j;

	tp_json_init_buf(&j, buf, len);
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "name", nf.name);
	tp_json_i64(&j, "pid", (int)getpid());
	tp_json_u64(&j, "tsc_hz", rte_get_tsc_hz());
	tp_json_bool(&j, "final", final);
	tp_json_arr(&j, "ports");
	for (int i = 0; i < 2; i++) {
		const struct nf_port_stats *p = &nf.st.port[i];

		tp_json_obj(&j, NULL);
		tp_json_i64(&j, "port", i);
		tp_json_str(&j, "name", nf.p[i].name);
		tp_json_str(&j, "link", ctr_read(&p->link) ? "up" : "down");
		tp_json_u64(&j, "rx", ctr_read(&p->rx));
		tp_json_u64(&j, "tx", ctr_read(&p->tx));
		tp_json_u64(&j, "tx_drop", ctr_read(&p->tx_drop));
		tp_json_u64(&j, "rx_bytes", ctr_read(&p->rx_bytes));
		tp_json_u64(&j, "starts", ctr_read(&p->starts));
		tp_json_end(&j, '}');
	}
	tp_json_end(&j, ']');
	tp_json_u64(&j, "polls", ctr_read(&nf.st.polls));
	tp_json_u64(&j, "idle_polls", ctr_read(&nf.st.idle_polls));
	tp_json_u64(&j, "busy_cycles", ctr_read(&nf.st.busy_cycles));
	tp_json_end(&j, '}');
	tp_json_raw(&j, "\n", 1);
	return tp_json_done(&j);
}

/* Write the counters to the stats file: PATH.tmp, then renamed over PATH, so a
 * reader sees a whole object. 0 or a negative errno. */
static int stats_write(bool final)
{
	char buf[2048], tmp[4096];
	int len;
	FILE *f;

	if (nf.o.stats_path == NULL)
		return 0;
	len = stats_format(buf, sizeof(buf), final);
	if (len < 0)
		return len;
	snprintf(tmp, sizeof(tmp), "%s.tmp", nf.o.stats_path);
	f = fopen(tmp, "w");
	if (f == NULL)
		return -errno;
	if (fwrite(buf, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	if (fclose(f) != 0 || rename(tmp, nf.o.stats_path) != 0) {
		int ret = -errno;
		unlink(tmp);
		return ret;
	}
	return 0;
}

static uint32_t stats_thread_stop;

/* The stats thread: rewrites the file every NF_STATS_PERIOD_MS until told to stop. */
static void *stats_thread(void *arg)
{
	const struct timespec period = {.tv_nsec = NF_STATS_PERIOD_MS * 1000000L};
	bool warned = false;

	while (!__atomic_load_n(&stats_thread_stop, __ATOMIC_RELAXED)) {
		nanosleep(&period, NULL);
		int ret = stats_write(false);
		if (ret < 0 && !warned) {
			fprintf(stderr, NF_PROG " %s: cannot write %s: %s\n", nf.name,
				nf.o.stats_path, strerror(-ret));
			warned = true;
		}
	}
	return NULL;
}

/* --- the fast path ----------------------------------------------------- */

static inline void swap_mac(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh;
	struct rte_ether_addr t;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh))
		return; /* a runt has no MACs to swap: forwarded as it is */
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&eh->src_addr, &t);
	rte_ether_addr_copy(&eh->dst_addr, &eh->src_addr);
	rte_ether_addr_copy(&t, &eh->dst_addr);
}

/* One direction: a burst from port `in`, out of the other port. Frames received. */
static inline uint16_t forward(int in, const struct nf_opts *o)
{
	struct rte_mbuf *pkts[NF_MAX_BURST];
	struct nf_port_stats *ri = &nf.st.port[in], *to = &nf.st.port[1 - in];
	uint64_t bytes = 0;
	uint16_t n, sent;

	n = rte_eth_rx_burst(nf.port[in], 0, pkts, (uint16_t)o->burst);
	for (uint16_t q = 1; n == 0 && q < o->rxq; q++)
		n = rte_eth_rx_burst(nf.port[in], q, pkts, (uint16_t)o->burst);
	if (n == 0)
		return 0;
	for (uint16_t i = 0; i < n; i++) {
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		if (o->swap_mac)
			swap_mac(pkts[i]);
	}
	if (o->cycles) {
		/* the modelled work: o->cycles per frame, spent for the burst at once */
		uint64_t until = rte_rdtsc() + o->cycles * n;
		while (rte_rdtsc() < until)
			rte_pause();
	}
	sent = rte_eth_tx_burst(nf.port[1 - in], 0, pkts, n);
	if (sent < n)
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	ctr_add(&ri->rx, n);
	ctr_add(&ri->rx_bytes, bytes);
	ctr_add(&to->tx, sent);
	ctr_add(&to->tx_drop, n - sent);
	return n;
}

/* Start port i; 0 or a negative errno. A port that is not started takes nothing
 * (ethdev's dummy burst functions): its tx is counted as tx_drop. */
static int port_start(int i, uint64_t now)
{
	struct nf_port *p = &nf.p[i];
	int ret = rte_eth_dev_start(p->id);

	if (ret == 0) {
		p->started = true;
		p->was_up = false;
		p->retry_ms = NF_TEND_MS;
		ctr_add(&nf.st.port[i].starts, 1);
		return 0;
	}
	p->retry_at = now + rte_get_tsc_hz() / 1000 * p->retry_ms;
	p->retry_ms = RTE_MIN(p->retry_ms * 2, NF_RETRY_MAX_MS);
	return ret;
}

/* Every NF_TEND_MS, from the loop (the ports' only user, so no lock): record each
 * port's link state for the stats thread; start a port that is not started, with
 * waits growing to NF_RETRY_MAX_MS (net_memif's client connects to its server in
 * rte_eth_dev_start() only, and fails there while the server is not there yet);
 * stop a port whose link was up and went down, to start it again (a memif client
 * whose server went away does not reconnect by itself). Control work in the loop's
 * thread: virtio_user's link state is a recv() on its socket; starts are system
 * calls too. */
static void ports_tend(uint64_t now)
{
	for (int i = 0; i < 2; i++) {
		struct nf_port *p = &nf.p[i];
		struct rte_eth_link link = {0};

		if (!p->started) {
			if (now >= p->retry_at)
				port_start(i, now);
			continue;
		}
		/* -ENOTSUP (a PMD without link state): seen as down */
		rte_eth_link_get_nowait(p->id, &link);
		__atomic_store_n(&nf.st.port[i].link, link.link_status, __ATOMIC_RELAXED);
		if (link.link_status) {
			p->was_up = true;
		} else if (p->was_up) {
			rte_eth_dev_stop(p->id);
			p->started = false;
			p->retry_at = now;
		}
	}
}

/* The forwarding loop, on the main lcore, until a signal. With --backoff an empty
 * pass sleeps (nanosleep: the one system call of the loop, on the idle path only),
 * 1 us doubling to NF_BACKOFF_MAX_US, back to 1 us once something arrives. */
static void nf_loop(void)
{
	const struct nf_opts o = nf.o;
	const uint64_t tend_period = rte_get_tsc_hz() / 1000 * NF_TEND_MS;
	uint64_t tend_at = 0;
	unsigned int backoff_us = 1;

	while (nf_running()) {
		uint64_t start = rte_rdtsc();
		unsigned int got;

		if (start >= tend_at) {
			ports_tend(start);
			tend_at = start + tend_period;
		}
		got = forward(0, &o);

		got += forward(1, &o);
		ctr_add(&nf.st.polls, 1);
		if (got) {
			ctr_add(&nf.st.busy_cycles, rte_rdtsc() - start);
			backoff_us = 1;
			continue;
		}
		ctr_add(&nf.st.idle_polls, 1);
		if (o.backoff) {
			rte_delay_us_sleep(backoff_us);
			backoff_us = RTE_MIN(backoff_us * 2, NF_BACKOFF_MAX_US);
		}
	}
}

/* --- set-up ------------------------------------------------------------ */

/* Probe and configure port i from its devargs (1 rx and 1 tx queue, rx from pool,
 * promiscuous where the PMD can), and try to start it: a port that does not start
 * (its peer is not there yet) is started later by the loop (ports_tend()). 0 or a
 * negative errno, said on stderr. */
static int port_open(int i, struct rte_mempool *pool)
{
	uint16_t rxd = 1024, txd = 1024, mtu = 0, txq = 1;
	struct nf_port *p = &nf.p[i];
	char err[256] = "";
	int ret;

	ret = tp_ethdev_probe(nf.o.devargs[i], &p->id, err, sizeof(err));
	if (ret < 0)
		goto fail;
	nf.port[i] = p->id;
	rte_eth_dev_get_name_by_port(p->id, p->name);
	ret = tp_ethdev_configure(p->id, (uint16_t)nf.o.rxq, &txq, &rxd, &txd, &mtu, err,
				  sizeof(err));
	if (ret < 0)
		goto close;
	ret = tp_ethdev_setup(p->id, (uint16_t)nf.o.rxq, 1, rxd, txd, pool, err, sizeof(err));
	if (ret < 0)
		goto close;
	ret = rte_eth_promiscuous_enable(p->id);
	if (ret < 0 && ret != -ENOTSUP)
		fprintf(stderr, NF_PROG " %s: port%d: promiscuous mode: %s (going on)\n", nf.name,
			i, strerror(-ret));
	p->retry_ms = NF_TEND_MS;
	ret = port_start(i, rte_rdtsc());
	if (ret < 0)
		fprintf(stderr,
			NF_PROG " %s: port%d %s: not started (%s): is its peer there? retrying\n",
			nf.name, i, p->name, strerror(-ret));
	return 0;
close:
	tp_ethdev_close(p->id);
fail:
	fprintf(stderr, NF_PROG " %s: port%d %s: %s\n", nf.name, i, nf.o.devargs[i], err);
	return ret;
}

/* net_virtio_user shares the NF's memory with the vhost-user server by file
 * descriptors, at most 8 regions (VHOST_MEMORY_MAX_NREGIONS): with hugepages the EAL
 * must keep them in one file per memseg list (--single-file-segments), which
 * --huge-unlink allows only with --in-memory (memfd-backed); without hugepages the
 * EAL's memory is one memfd already, and --in-memory is refused there (--no-huge
 * implies --legacy-mem). Adds both words, for hugepages only, when a port is
 * virtio_user. */
static void eal_for_vhost_user(struct tp_eal_opts *eo)
{
	bool virtio_user = false;

	for (int i = 0; i < 2; i++)
		virtio_user |= strncmp(nf.o.devargs[i], "net_virtio_user", 15) == 0;
	if (virtio_user)
		eo->extra_huge = "--in-memory --single-file-segments";
}

int main(int argc, char **argv)
{
	enum {
		O_PORT0 = 256,
		O_PORT1,
		O_NO_HUGE,
		O_EAL,
		O_BURST,
		O_RXQ,
		O_SWAP,
		O_CYCLES,
		O_BACKOFF,
		O_STATS
	};
	static const struct option lo[] = {
	    {"name", required_argument, NULL, 'n'},
	    {"lcores", required_argument, NULL, 'l'},
	    {"mem", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {"port0", required_argument, NULL, O_PORT0},
	    {"port1", required_argument, NULL, O_PORT1},
	    {"no-huge", no_argument, NULL, O_NO_HUGE},
	    {"eal", required_argument, NULL, O_EAL},
	    {"burst", required_argument, NULL, O_BURST},
	    {"rxq", required_argument, NULL, O_RXQ},
	    {"swap-mac", no_argument, NULL, O_SWAP},
	    {"cycles", required_argument, NULL, O_CYCLES},
	    {"backoff", no_argument, NULL, O_BACKOFF},
	    {"stats", required_argument, NULL, O_STATS},
	    {0},
	};
	struct tp_eal_opts eo = {.prog = NF_PROG, .name = "nf", .lcores = "0", .mem_mb = 256};
	struct rte_mempool *pool;
	pthread_t stats_tid;
	bool stats_started = false;
	char lock_path[256];
	int c, ret, lock_fd, status = EXIT_FAILURE;
	uint64_t v;

	nf.o.burst = 32;
	nf.o.rxq = 1;
	opterr = 0; /* our own message below */
	while ((c = getopt_long(argc, argv, ":n:l:m:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			eo.name = optarg;
			break;
		case 'l':
			eo.lcores = optarg;
			break;
		case 'm':
			if (tp_parse_u64(optarg, 64, 1 << 20, &v) < 0)
				goto bad_value;
			eo.mem_mb = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case O_PORT0:
		case O_PORT1:
			nf.o.devargs[c - O_PORT0] = optarg;
			break;
		case O_NO_HUGE:
			eo.no_huge = true;
			break;
		case O_EAL:
			eo.extra = optarg;
			break;
		case O_RXQ:
			if (tp_parse_u64(optarg, 1, 8, &v) < 0)
				goto bad_value;
			nf.o.rxq = (unsigned int)v;
			break;
		case O_BURST:
			if (tp_parse_u64(optarg, 1, NF_MAX_BURST, &v) < 0)
				goto bad_value;
			nf.o.burst = (unsigned int)v;
			break;
		case O_SWAP:
			nf.o.swap_mac = true;
			break;
		case O_CYCLES:
			if (tp_parse_u64(optarg, 0, UINT32_MAX, &v) < 0)
				goto bad_value;
			nf.o.cycles = v;
			break;
		case O_BACKOFF:
			nf.o.backoff = true;
			break;
		case O_STATS:
			nf.o.stats_path = optarg;
			break;
		case ':':
			fprintf(stderr, NF_PROG ": %s needs a value\n", argv[optind - 1]);
			goto usage;
		default:
			fprintf(stderr, NF_PROG ": unknown option %s\n", argv[optind - 1]);
			goto usage;
		}
		continue;
	bad_value:
		fprintf(stderr, NF_PROG ": bad value '%s' for %s\n", optarg, opt_name(lo, c));
		goto usage;
	}
	if (optind < argc) {
		fprintf(stderr, NF_PROG ": unexpected argument '%s'\n", argv[optind]);
		goto usage;
	}
	if (nf.o.devargs[0] == NULL || nf.o.devargs[1] == NULL) {
		fprintf(stderr, NF_PROG ": give both --port0 DEVARGS and --port1 DEVARGS\n");
		goto usage;
	}
	nf.name = eo.name;
	eal_for_vhost_user(&eo);

	lock_fd = tp_instance_lock(NF_PROG, eo.name, NULL, lock_path, sizeof(lock_path), NULL, 0);
	if (lock_fd < 0)
		return EXIT_FAILURE;
	if (tp_eal_start(&eo) < 0) {
		fprintf(stderr, NF_PROG " %s: EAL initialisation failed: %s\n", nf.name,
			rte_strerror(rte_errno));
		goto unlock;
	}
	/* --backoff: a 1 us sleep should take about 1 us, not the default 50 us slack */
	if (nf.o.backoff)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	pool = rte_pktmbuf_pool_create("nf", NF_POOL_MBUFS, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, NF_PROG " %s: mbuf pool: %s\n", nf.name, rte_strerror(rte_errno));
		goto eal_cleanup;
	}
	if (port_open(0, pool) < 0)
		goto pool_free;
	if (port_open(1, pool) < 0)
		goto close_port0;
	/* from here on a signal stops the loop; before, it ends the process as by default
	 * (a virtio_user port with server=1 waits in its probe for the switch to connect) */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = stats_write(false);
	if (ret < 0) {
		fprintf(stderr, NF_PROG " %s: cannot write %s: %s\n", nf.name, nf.o.stats_path,
			strerror(-ret));
		goto close_ports;
	}
	if (nf.o.stats_path) {
		ret = rte_ctrl_thread_create(&stats_tid, "nf-stats", NULL, stats_thread, NULL);
		if (ret != 0) {
			fprintf(stderr, NF_PROG " %s: stats thread: %s\n", nf.name,
				strerror(ret < 0 ? -ret : ret));
			goto close_ports;
		}
		stats_started = true;
	}
	printf(NF_PROG " %s: port0 %s port1 %s ready\n", nf.name, nf.p[0].name, nf.p[1].name);
	fflush(stdout);

	nf_loop();

	if (stats_started) {
		__atomic_store_n(&stats_thread_stop, 1, __ATOMIC_RELAXED);
		pthread_join(stats_tid, NULL);
	}
	ret = stats_write(true);
	if (ret < 0)
		fprintf(stderr, NF_PROG " %s: cannot write %s: %s\n", nf.name, nf.o.stats_path,
			strerror(-ret));
	else
		status = EXIT_SUCCESS;
close_ports:
	tp_ethdev_close(nf.p[1].id);
close_port0:
	tp_ethdev_close(nf.p[0].id);
pool_free:
	rte_mempool_free(pool);
eal_cleanup:
	rte_eal_cleanup();
unlock:
	unlink(lock_path);
	close(lock_fd);
	return status;
usage:
	usage(stderr);
	return NF_EXIT_USAGE;
}
