/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-fetch: downloads a URL over HTTP/1.1 with the project's own TCP/IP stack on
 * one DPDK port (issue 13, seed 001). src/fetch/README.md describes it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "../core/eal.h"
#include "../core/ethdev.h"
#include "../proto/ip4.h"
#include "../proto/json.h"
#include "../proto/parse.h"
#include "dl.h"

#define PROG "twinplane-fetch"
#define POOL_MBUFS 16383 /* rx and tx rings, TCP_OOO_BUDGET queued segments, writer batches */
#define LINGER_MS 1000	 /* after the download: time for the FIN exchange */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " --port DEVARGS --addr A.B.C.D/LEN [--gw A.B.C.D] URL [-o FILE]\n"
	    "       [--sha256 HEX] [--connections N] [--json] [options]\n"
	    "Downloads URL (http://IPv4[:port]/path) with its own TCP/IP stack on one DPDK port.\n"
	    "  -p, --port DEVARGS     the port: net_af_xdp0,iface=veth0, a PCI address, ...\n"
	    "  -a, --addr A/LEN       our IPv4 address and subnet on that port\n"
	    "  -g, --gw A.B.C.D       the gateway for destinations off the subnet\n"
	    "  -o, --output FILE      where the body goes (default: the URL's last path\n"
	    "                         segment, index.html if it has none)\n"
	    "      --sha256 HEX       the expected SHA-256 of the body: exit 9 if it differs\n"
	    "      --no-digest        no SHA-256 of the body (as curl and wget; the JSON's\n"
	    "                         sha256 is then null)\n"
	    "      --connections N    split the file over N parallel ranges, up to 15 (1)\n"
	    "      --no-direct        write through the page cache (pwritev) also where the\n"
	    "                         file system takes O_DIRECT (a block device's; tmpfs\n"
	    "                         is always written through the page cache)\n"
	    "      --json             a JSON summary on stdout\n"
	    "      --timeout S        give up after S seconds without progress (30)\n"
	    "      --max-time S       give up after S seconds in all, whatever the progress\n"
	    "                         (exit 4; default: no limit, as curl's)\n"
	    "      --window BYTES     TCP receive window (4194304)\n"
	    "      --max-redirect N   redirects followed (20)\n"
	    "  -q, --quiet            no progress line\n"
	    "  -n, --name NAME        instance name, the DPDK file prefix (fetch)\n"
	    "  -l, --lcores LIST      EAL lcores (0)\n"
	    "      --no-huge          ordinary memory instead of hugepages\n"
	    "  -m, --mem MB           memory without hugepages (512)\n"
	    "      --eal 'ARGS'       extra EAL arguments\n"
	    "  -h, --help             this text\n"
	    "Exit status: 0 done; 1 start-up failure; 2 usage; 3 file error; 4 network\n"
	    "failure (ARP, refused, reset, unreachable, timeout); 5 short body (the connection\n"
	    "ended first); 7 malformed response or too many redirects; 8 server error\n"
	    "(4xx, 5xx); 9 SHA-256 mismatch.\n");
}

/* The default file name: the URL path's last segment (wget's choice). */
static const char *default_output(const char *url, char *buf, size_t len)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	p += strcspn(p, "/");
	size_t pl = strcspn(p, "?#");
	const char *seg = p + pl;
	while (seg > p && seg[-1] != '/')
		seg--;
	size_t sl = (size_t)(p + pl - seg);
	if (sl == 0 || sl >= len || (sl <= 2 && seg[0] == '.'))
		return "index.html";
	memcpy(buf, seg, sl);
	buf[sl] = '\0';
	return buf;
}

/* The loop's own cost: every pass's cycles, and those of the passes that did something
 * (received, sent, wrote or hashed), as the workers' busy_cycles; the busy passes' cycles
 * split by stage: the PMD's receive, our stack and the download (file writes apart), the
 * file writes (pwritev, dl.write_cycles), the PMD's transmit (af_xdp: the sendto kick).
 * The time the thread slept in O_DIRECT writes, waiting for the device
 * (dl.write_wait_cycles), is off the CPU: not in busy_cycles nor in the split's write. */
struct loop_cycles {
	uint64_t total;
	uint64_t busy;
	uint64_t passes;
	uint64_t busy_passes;
	uint64_t rx, stack, tx;
};

static void summary_json(FILE *f, const struct dl *d, const struct dl_opts *o,
			 const struct fetch_net *n, unsigned int outstanding,
			 const struct loop_cycles *lc, const struct rte_eth_stats *ps)
{
	uint64_t t_end = d->t_end ? d->t_end : n->now;
	double secs = (double)(t_end - d->t_start) / (double)n->hz;
	struct tp_json j;

	tp_json_init_file(&j, f, false);
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "url", o->url);
	tp_json_str(&j, "final_url", d->url_s);
	tp_json_str(&j, "file", o->out);
	tp_json_i64(&j, "status", d->status);
	tp_json_i64(&j, "exit", d->exit);
	tp_json_str(&j, "framing", d->framing);
	tp_json_u64(&j, "bytes", d->bytes);
	tp_json_u64(&j, "written", d->written);
	tp_json_u64(&j, "resumed_from", d->resumed_from);
	tp_json_numf(&j, "seconds", "%.6f", secs);
	tp_json_numf(&j, "goodput_bps", "%.0f", secs > 0 ? (double)d->bytes * 8 / secs : 0.0);
	tp_json_bool(&j, "digest", o->digest);
	tp_json_str(&j, "sha256", o->digest ? d->sha_hex : NULL);
	tp_json_u64(&j, "connections", d->nparts ? d->nparts : 1);
	tp_json_u64(&j, "redirects", d->redirects);
	tp_json_u64(&j, "retransmissions", d->retransmits);
	tp_json_u64(&j, "out_of_order", d->ooo_segs);
	tp_json_u64(&j, "duplicates", d->dup_segs);
	tp_json_u64(&j, "tsc_hz", n->hz);
	tp_json_u64(&j, "loop_cycles", lc->total);
	tp_json_u64(&j, "busy_cycles",
		    lc->busy > d->write_wait_cycles ? lc->busy - d->write_wait_cycles : 0);
	tp_json_u64(&j, "polls", lc->passes);
	tp_json_u64(&j, "busy_polls", lc->busy_passes);
	tp_json_obj(&j, "busy_split");
	tp_json_u64(&j, "rx", lc->rx);
	tp_json_u64(&j, "stack", lc->stack > d->write_cycles ? lc->stack - d->write_cycles : 0);
	tp_json_u64(&j, "write", d->write_cycles - d->write_wait_cycles);
	tp_json_u64(&j, "tx", lc->tx);
	tp_json_end(&j, '}');
	tp_json_u64(&j, "file_writes", d->writes);
	tp_json_str(&j, "direct", d->direct);
	tp_json_u64(&j, "direct_bytes", d->direct_bytes);
	tp_json_u64(&j, "write_wait_cycles", d->write_wait_cycles);
	tp_json_u64(&j, "direct_slow_writes", d->direct_slow);
	tp_json_u64(&j, "direct_max_wait_us", d->direct_max_wait * 1000000 / n->hz);
	/* the port's own: frames the PMD (af_xdp: the kernel's rings) could not deliver */
	tp_json_obj(&j, "port");
	tp_json_u64(&j, "ipackets", ps->ipackets);
	tp_json_u64(&j, "imissed", ps->imissed);
	tp_json_u64(&j, "ierrors", ps->ierrors);
	tp_json_u64(&j, "rx_nombuf", ps->rx_nombuf);
	tp_json_u64(&j, "opackets", ps->opackets);
	tp_json_u64(&j, "oerrors", ps->oerrors);
	tp_json_end(&j, '}');
	tp_json_u64(&j, "mbufs_outstanding", outstanding);
	tp_json_str(&j, "error", d->exit ? d->err : NULL);
	tp_json_obj(&j, "counters");
#define X(name, what) tp_json_u64(&j, #name, n->c.name);
	FETCH_COUNTERS(X)
#undef X
	tp_json_end(&j, '}');
	tp_json_end(&j, '}');
	fputc('\n', f);
}

/* Open the port: probe, one rx and one tx queue, started; our MAC and MTU. */
static int port_open(struct fetch_net *n, const char *devargs)
{
	uint16_t rxd = 2048, txd = 1024, txq = 1, mtu = 0;
	char err[256] = "";
	int ret;

	ret = tp_ethdev_probe(devargs, &n->port, err, sizeof(err));
	if (ret < 0)
		goto fail;
	ret = tp_ethdev_configure(n->port, 1, &txq, &rxd, &txd, &mtu, err, sizeof(err));
	if (ret < 0)
		goto close;
	ret = tp_ethdev_setup(n->port, 1, 1, rxd, txd, n->pool, err, sizeof(err));
	if (ret < 0)
		goto close;
	ret = rte_eth_dev_start(n->port);
	if (ret < 0) {
		snprintf(err, sizeof(err), "start: %s", strerror(-ret));
		goto close;
	}
	rte_eth_macaddr_get(n->port, &n->mac);
	n->mtu = mtu > 1500 ? 1500 : mtu; /* our MSS follows the port's MTU */
	if (n->mtu < 576)
		n->mtu = 576;
	return 0;
close:
	tp_ethdev_close(n->port);
fail:
	fprintf(stderr, PROG ": port %s: %s\n", devargs, err);
	return ret;
}

int main(int argc, char **argv)
{
	enum {
		O_SHA = 256,
		O_NO_DIGEST,
		O_NO_DIRECT,
		O_CONN,
		O_JSON,
		O_TIMEOUT,
		O_MAX_TIME,
		O_WINDOW,
		O_REDIR,
		O_NO_HUGE,
		O_EAL
	};
	static const struct option lo[] = {
	    {"port", required_argument, NULL, 'p'},
	    {"addr", required_argument, NULL, 'a'},
	    {"gw", required_argument, NULL, 'g'},
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"continue", no_argument, NULL, 'c'},
	    {"name", required_argument, NULL, 'n'},
	    {"lcores", required_argument, NULL, 'l'},
	    {"mem", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {"sha256", required_argument, NULL, O_SHA},
	    {"no-digest", no_argument, NULL, O_NO_DIGEST},
	    {"no-direct", no_argument, NULL, O_NO_DIRECT},
	    {"connections", required_argument, NULL, O_CONN},
	    {"json", no_argument, NULL, O_JSON},
	    {"timeout", required_argument, NULL, O_TIMEOUT},
	    {"max-time", required_argument, NULL, O_MAX_TIME},
	    {"window", required_argument, NULL, O_WINDOW},
	    {"max-redirect", required_argument, NULL, O_REDIR},
	    {"no-huge", no_argument, NULL, O_NO_HUGE},
	    {"eal", required_argument, NULL, O_EAL},
	    {0},
	};
	struct tp_eal_opts eo = {.prog = PROG, .name = "fetch", .lcores = "0", .mem_mb = 512};
	struct dl_opts o = {.window = 4u << 20,
			    .timeout_s = 30,
			    .max_redirects = 20,
			    .digest = true,
			    .direct = true};
	static struct fetch_net net;
	static struct dl d;
	const char *devargs = NULL, *addr = NULL, *gw = NULL;
	char outbuf[256], lock_path[256];
	bool json = false, quiet = false;
	unsigned int connections = 1;
	int c, lock_fd, status = DL_E_GENERIC;
	uint64_t v;
	uint8_t depth;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:a:g:o:qcn:l:m:h", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			devargs = optarg;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'g':
			gw = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'c':
			o.resume = true;
			break;
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
			return DL_OK;
		case O_SHA:
			if (strlen(optarg) != 64 || strspn(optarg, "0123456789abcdefABCDEF") != 64)
				goto bad_value;
			o.sha256_hex = optarg;
			break;
		case O_NO_DIGEST:
			o.digest = false;
			break;
		case O_NO_DIRECT:
			o.direct = false;
			break;
		case O_CONN:
			if (tp_parse_u64(optarg, 1, FETCH_MAX_CONN - 1, &v) < 0)
				goto bad_value;
			connections = (unsigned int)v;
			break;
		case O_JSON:
			json = true;
			break;
		case O_TIMEOUT:
			if (tp_parse_u64(optarg, 1, 86400, &v) < 0)
				goto bad_value;
			o.timeout_s = (unsigned int)v;
			break;
		case O_MAX_TIME:
			if (tp_parse_u64(optarg, 1, 7 * 86400, &v) < 0)
				goto bad_value;
			o.max_time_s = (unsigned int)v;
			break;
		case O_WINDOW:
			if (tp_parse_u64(optarg, 1024, 1u << 30, &v) < 0)
				goto bad_value;
			o.window = (uint32_t)v;
			break;
		case O_REDIR:
			if (tp_parse_u64(optarg, 0, 100, &v) < 0)
				goto bad_value;
			o.max_redirects = (unsigned int)v;
			break;
		case O_NO_HUGE:
			eo.no_huge = true;
			break;
		case O_EAL:
			eo.extra = optarg;
			break;
		case ':':
			fprintf(stderr, PROG ": %s needs a value\n", argv[optind - 1]);
			goto usage;
		default:
			fprintf(stderr, PROG ": unknown option %s\n", argv[optind - 1]);
			goto usage;
		}
		continue;
	bad_value : {
		/* "--opt VALUE": the option is the word before; "--opt=VALUE": this one */
		const char *opt =
		    optind >= 2 && argv[optind - 1] == optarg ? argv[optind - 2] : argv[optind - 1];
		fprintf(stderr, PROG ": bad value '%s' for %.*s\n", optarg, (int)strcspn(opt, "="),
			opt);
	}
		goto usage;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": %s\n",
			optind >= argc ? "give one URL" : "give only one URL");
		goto usage;
	}
	o.url = argv[optind];
	if (o.sha256_hex && !o.digest) {
		fprintf(stderr, PROG ": --sha256 needs the digest: not with --no-digest\n");
		goto usage;
	}
	if (tp_instance_name_check(PROG, eo.name) < 0)
		goto usage;
	if (devargs == NULL || addr == NULL) {
		fprintf(stderr, PROG ": give --port DEVARGS and --addr A.B.C.D/LEN\n");
		goto usage;
	}
	if (tp_ip4_parse_prefix(addr, &net.ip, &depth) < 0 || depth == 0 || depth > 30) {
		fprintf(stderr, PROG ": bad --addr '%s' (A.B.C.D/LEN, LEN 1-30)\n", addr);
		goto usage;
	}
	net.mask = depth ? ~0u << (32 - depth) : 0;
	if (gw &&
	    (tp_ip4_parse_addr(gw, &net.gw) < 0 || (net.gw & net.mask) != (net.ip & net.mask))) {
		fprintf(stderr, PROG ": bad --gw '%s': an address on %s's subnet\n", gw, addr);
		goto usage;
	}
	o.connections = connections;
	{
		/* the URL's errors before the EAL starts */
		struct tp_url u;
		char err[256];
		if (tp_url_parse(o.url, &u, err, sizeof(err)) < 0) {
			fprintf(stderr, PROG ": bad URL '%s': %s\n", o.url, err);
			return DL_E_USAGE;
		}
	}
	if (o.out == NULL)
		o.out = default_output(o.url, outbuf, sizeof(outbuf));
	o.progress = !quiet && isatty(STDERR_FILENO);

	lock_fd = tp_instance_lock(PROG, eo.name, NULL, lock_path, sizeof(lock_path), NULL, 0);
	if (lock_fd < 0)
		return DL_E_GENERIC;
	if (tp_eal_start(&eo) < 0) {
		fprintf(stderr, PROG ": EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		goto unlock;
	}
	net.hz = rte_get_tsc_hz();
	net.now = rte_rdtsc();
	net.pool = rte_pktmbuf_pool_create("fetch", POOL_MBUFS, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					   (int)rte_socket_id());
	if (net.pool == NULL) {
		fprintf(stderr, PROG ": mbuf pool: %s\n", rte_strerror(rte_errno));
		goto eal_cleanup;
	}
	if (port_open(&net, devargs) < 0)
		goto pool_free;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* what the PMD holds for its rx ring: the baseline of the leak check */
	unsigned int in_use_start = rte_mempool_in_use_count(net.pool);

	status = dl_start(&d, &net, &o);
	if (status) {
		fprintf(stderr, PROG ": %s\n", d.err);
		goto port_close;
	}

	/* the loop: receive a burst, run it through the stack, timers, transmit; the file
	 * writes (pwritev) are its only system calls besides the PMD's */
	uint64_t linger_until = 0;
	struct loop_cycles lc = {0};
	uint64_t t0 = rte_rdtsc(), t_loop = t0;
	while (!stop_requested) {
		struct rte_mbuf *pkts[FETCH_BURST];
		uint64_t tx0 = net.c.tx_frames, wr0 = d.written, h0 = d.hashed;
		net.now = t0;
		uint16_t nb = rte_eth_rx_burst(net.port, 0, pkts, FETCH_BURST);
		uint64_t t_rx = rte_rdtsc();
		for (uint16_t i = 0; i < nb; i++)
			net_input(&net, pkts[i]);
		tcp_poll(&net);
		dl_poll(&d);
		uint64_t t_stack = rte_rdtsc();
		net_flush(&net);
		/* the pass ends where the next one starts */
		uint64_t t1 = rte_rdtsc();
		lc.passes++;
		if (nb || net.c.tx_frames != tx0 || d.written != wr0 || d.hashed != h0) {
			lc.busy += t1 - t0;
			lc.busy_passes++;
			lc.rx += t_rx - t0;
			lc.stack += t_stack - t_rx;
			lc.tx += t1 - t_stack;
		}
		t0 = t1;
		if (d.finished) {
			if (linger_until == 0)
				linger_until = net.now + net.hz / 1000 * LINGER_MS;
			if (dl_closed(&d) || net.now >= linger_until || d.exit != DL_OK)
				break;
		}
	}
	if (stop_requested && !d.finished) {
		snprintf(d.err, sizeof(d.err), "interrupted by signal %d", (int)stop_requested);
		d.exit = DL_E_NET;
		d.t_end = net.now;
	}
	lc.total = t0 - t_loop;
	status = dl_finish(&d);
	net_flush(&net);
	/* af_xdp takes back the frames of its last transmit (zero copy: the mbufs are the
	 * UMEM's) only at its next one: an empty burst, once they are done, returns them */
	rte_delay_us_block(1000);
	rte_eth_tx_burst(net.port, 0, NULL, 0);
	/* every queue of ours is empty now: what is out of the pool beyond the rx ring's
	 * share is held by the PMD or leaked */
	unsigned int in_use_end = rte_mempool_in_use_count(net.pool);
	unsigned int outstanding = in_use_end > in_use_start ? in_use_end - in_use_start : 0;
	struct rte_eth_stats ps = {0};
	rte_eth_stats_get(net.port, &ps);
	tp_ethdev_close(net.port);
	if (json)
		summary_json(stdout, &d, &o, &net, outstanding, &lc, &ps);
	if (status)
		fprintf(stderr, PROG ": %s\n", d.err);
	goto pool_free;
port_close:
	tp_ethdev_close(net.port);
pool_free:
	rte_mempool_free(net.pool);
eal_cleanup:
	rte_eal_cleanup();
unlock:
	unlink(lock_path);
	close(lock_fd);
	return status;
usage:
	usage(stderr);
	return DL_E_USAGE;
}
