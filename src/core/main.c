/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane daemon: EAL set-up, workers, shared tables, control plane, clean exit. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "../api/api.h"
#include "../control/api_server.h"
#include "../control/cmd.h"
#include "../control/control.h"
#include "../control/exception.h"
#include "../control/netlink.h"
#include "../control/port.h"
#include "../nf/iotgw/iotgw.h"
#include "../tables/neigh.h"
#include "../tables/nexthop.h"
#include "../tables/route.h"
#include "eal.h"
#include "log.h"
#include "tp.h"


struct opts {
	const char *name;
	char socket[108];
	const char *config;
	const char *lcores;
	const char *log_file;
	const char *eal_extra;
	int no_huge;
	int no_sysctl;
	unsigned int mem_mb;
	uint64_t exc_rate, exc_burst;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: twinplane [options]\n"
		"  -n, --name NAME         instance name, also the DPDK file prefix (twinplane)\n"
		"  -s, --socket PATH       API socket (" TP_API_DEFAULT_DIR "/NAME.sock)\n"
		"  -c, --config FILE       start-up configuration: twinctl commands, one a line\n"
		"  -l, --lcores LIST       lcores: the first runs the control plane, the others\n"
		"                          are workers (default: all, e.g. 0,1)\n"
		"      --log-file PATH     write the log there instead of stderr\n"
		"      --no-backoff        workers never sleep when idle (benchmarks)\n"
		"      --no-huge           use ordinary memory even if hugepages are there\n"
		"  -m, --mem MB            memory without hugepages (512)\n"
		"      --exception-rate N  packets/s the workers may hand to the control plane (20000)\n"
		"      --exception-burst N burst of that token bucket (256)\n"
		"      --no-sysctl         leave the namespace's ip_forward/rp_filter/redirects alone\n"
		"      --single-plane      IoT gateway: handle signaling inline on the worker, waiting\n"
		"                          for the IN-CSE (seed 000's old architecture, a baseline)\n"
		"      --eal 'ARGS'        extra EAL arguments\n"
		"  -V, --version\n"
		"  -h, --help\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"name", required_argument, NULL, 'n'},
		{"socket", required_argument, NULL, 's'},
		{"config", required_argument, NULL, 'c'},
		{"lcores", required_argument, NULL, 'l'},
		{"log-file", required_argument, NULL, 'L'},
		{"no-backoff", no_argument, NULL, 'B'},
		{"no-huge", no_argument, NULL, 'H'},
		{"mem", required_argument, NULL, 'm'},
		{"exception-rate", required_argument, NULL, 'r'},
		{"exception-burst", required_argument, NULL, 'b'},
		{"no-sysctl", no_argument, NULL, 'S'},
		{"single-plane", no_argument, NULL, 'P'},
		{"eal", required_argument, NULL, 'E'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;
	char *end;

	o->name = "twinplane";
	o->mem_mb = 512;
	o->exc_rate = 20000;
	o->exc_burst = 256;
	tp.backoff = true;
	tp.backoff_max_us = 256;
	while ((c = getopt_long(argc, argv, "n:s:c:l:m:Vh", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->name = optarg;
			break;
		case 's':
			if (strlen(optarg) >= sizeof(o->socket)) {
				fprintf(stderr, "twinplane: --socket: path too long\n");
				return -EINVAL;
			}
			strcpy(o->socket, optarg);
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'l':
			o->lcores = optarg;
			break;
		case 'L':
			o->log_file = optarg;
			break;
		case 'B':
			tp.backoff = false;
			break;
		case 'H':
			o->no_huge = 1;
			break;
		case 'S':
			o->no_sysctl = 1;
			break;
		case 'P':
			tp_iotgw.single_plane = true;
			break;
		case 'E':
			o->eal_extra = optarg;
			break;
		case 'm':
		case 'r':
		case 'b': {
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || v == 0) {
				fprintf(stderr, "twinplane: bad number '%s'\n", optarg);
				return -EINVAL;
			}
			if (c == 'm')
				o->mem_mb = (unsigned int)v;
			else if (c == 'r')
				o->exc_rate = v;
			else
				o->exc_burst = v;
			break;
		}
		case 'V':
			printf("twinplane " TP_VERSION "\n");
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "twinplane: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	for (const char *p = o->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_')) {
			fprintf(stderr, "twinplane: bad --name '%s' (letters, digits, - and _)\n",
				o->name);
			return -EINVAL;
		}
	if (o->socket[0] == '\0')
		snprintf(o->socket, sizeof(o->socket), TP_API_DEFAULT_DIR "/%s.sock", o->name);
	return 0;
}

static void sysctl_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		TP_LOG(WARNING, "cannot set %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* The kernel behind the TAPs forwards what the workers punt (unresolved
 * neighbours, TTL expiry): it must route, and must not answer with redirects. */
static void kernel_setup(void)
{
	sysctl_set("/proc/sys/net/ipv4/ip_forward", "1");
	sysctl_set("/proc/sys/net/ipv4/conf/all/send_redirects", "0");
	sysctl_set("/proc/sys/net/ipv4/conf/default/send_redirects", "0");
	sysctl_set("/proc/sys/net/ipv4/conf/all/rp_filter", "0");
	sysctl_set("/proc/sys/net/ipv4/conf/default/rp_filter", "0");
}

static void on_signal(int sig)
{
	tp.running = false;
}

static int workers_create(void)
{
	unsigned int lcore, n = 0;
	size_t sz;

	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (n == TP_MAX_WORKERS)
			break;
		struct tp_worker *w = rte_zmalloc("tp_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
		if (w == NULL)
			return -ENOMEM;
		w->id = n;
		w->lcore = lcore;
		tp.workers[n++] = w;
	}
	tp.n_workers = n;
	if (n == 0) {
		TP_LOG(ERR, "no worker lcore: give at least two lcores (-l 0,1), the first one runs "
			    "the control plane");
		return -EINVAL;
	}
	sz = rte_rcu_qsbr_get_memsize(n);
	tp.qs = rte_zmalloc("tp_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (tp.qs == NULL || rte_rcu_qsbr_init(tp.qs, n) != 0)
		return -ENOMEM;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	char lock_path[256];
	int lock_fd, ret, status = EXIT_FAILURE;
	FILE *log = NULL;

	if (parse_opts(argc, argv, &o) < 0)
		return EXIT_FAILURE;
	lock_fd = tp_instance_lock("twinplane", o.name, lock_path, sizeof(lock_path));
	if (lock_fd < 0)
		return EXIT_FAILURE;
	if (o.log_file) {
		log = fopen(o.log_file, "a");
		if (log == NULL) {
			fprintf(stderr, "twinplane: --log-file %s: %s\n", o.log_file, strerror(errno));
			goto unlock;
		}
		setvbuf(log, NULL, _IOLBF, 0);
		rte_openlog_stream(log);
	}
	struct tp_eal_opts eo = {
		.prog = argv[0], .name = o.name, .lcores = o.lcores, .no_huge = o.no_huge,
		.mem_mb = o.mem_mb, .extra = o.eal_extra,
	};
	if (tp_eal_start(&eo) < 0) {
		fprintf(stderr, "twinplane: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		goto unlock;
	}
	tp.tsc_hz = rte_get_tsc_hz();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (!o.no_sysctl)
		kernel_setup();

	if ((ret = workers_create()) < 0)
		goto eal_cleanup;
	if ((ret = tp_nh_init()) < 0 || (ret = tp_neigh_init(tp.qs, 1 << 16)) < 0 ||
	    (ret = tp_route_init(tp.qs, 1 << 16)) < 0) {
		TP_LOG(ERR, "shared tables: %s", rte_strerror(-ret));
		goto tables_fini;
	}
	if ((ret = tp_ctl_pool_init()) < 0 || (ret = tp_exc_init(1024)) < 0) {
		TP_LOG(ERR, "exception path: %s", rte_strerror(-ret));
		goto exc_fini;
	}
	tp_exception_rate_set(o.exc_rate, o.exc_burst);
	if ((ret = tp_ctl_init()) < 0 || (ret = tp_ctl_add_tick(tp_exc_tick)) < 0 ||
	    (ret = tp_ctl_add_tick(tp_nl_tick)) < 0 || (ret = tp_nl_init()) < 0) {
		TP_LOG(ERR, "control plane: %s", strerror(-ret));
		goto ctl_fini;
	}
	if ((ret = tp_api_init(o.socket)) < 0) {
		TP_LOG(ERR, "API socket %s: %s", o.socket, strerror(-ret));
		goto ctl_fini;
	}

	tp.running = true;
	for (unsigned int i = 0; i < tp.n_workers; i++)
		rte_eal_remote_launch(tp_worker_main, tp.workers[i], tp.workers[i]->lcore);
	tp_nl_resync();
	if (o.config && tp_cmd_run_file(o.config) < 0) {
		fprintf(stderr, "twinplane: configuration %s failed (see the log)\n", o.config);
		tp.running = false;
	} else {
		TP_LOG(INFO, "ready: %u worker(s), API on %s", tp.n_workers, o.socket);
		status = EXIT_SUCCESS;
	}
	tp_ctl_loop(&tp.running);
	TP_LOG(INFO, "shutting down");
	rte_eal_mp_wait_lcore();
	tp_api_fini();
	tp_port_del_all();
ctl_fini:
	tp_nl_fini();
	tp_ctl_fini();
exc_fini:
	tp_exc_fini();
tables_fini:
	tp_route_fini();
	tp_neigh_fini();
	tp_nh_fini();
eal_cleanup:
	rte_eal_cleanup();
unlock:
	unlink(lock_path);
	close(lock_fd);
	if (log)
		fclose(log);
	return status;
}
