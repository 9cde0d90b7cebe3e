/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane daemon: EAL set-up, lcores, modules, control plane, clean exit.
 * It names no network function: they register themselves (core/nf.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "../api/api.h"
#include "../control/api_server.h"
#include "../control/cmd.h"
#include "../control/control.h"
#include "../control/exception.h"
#include "../control/metrics_server.h"
#include "../control/port.h"
#include "eal.h"
#include "lcore.h"
#include "log.h"
#include "nf.h"
#include "rcu.h"
#include "tp.h"

#define NF_OPT_BASE 1000

struct opts {
	const char *name;
	char socket[108];
	const char *config;
	const char *lcores;
	const char *log_file;
	const char *eal_extra;
	const char *metrics;
	int no_huge;
	unsigned int mem_mb;
	uint64_t exc_rate, exc_burst, exc_rate_signaling;
	gid_t gid;
	bool default_socket;
};

static int status = EXIT_FAILURE;
static struct opts o = {.gid = (gid_t)-1};
static char prev_socket[256];

static void usage(FILE *f)
{
	fprintf(f,
		"usage: twinplane [options]\n"
		"  -n, --name NAME         instance name, also the DPDK file prefix (twinplane)\n"
		"  -s, --socket PATH       API socket (" TP_API_DEFAULT_DIR "/NAME.sock)\n"
		"      --socket-group GRP  the socket's group: its members may use the API\n"
		"                          (besides root and the daemon's user)\n"
		"  -c, --config FILE       start-up configuration: twinctl commands, one a line\n"
		"  -l, --lcores LIST       lcores: the first runs the control plane, the others\n"
		"                          are data-plane lcores (default: all, e.g. 0,1)\n"
		"      --log-file PATH     write the log there instead of stderr\n"
		"      --metrics A.B.C.D:PORT  serve Prometheus metrics at /metrics there\n"
		"                          (off unless given; 'metrics listen' at run time)\n"
		"      --no-backoff        lcores never sleep when idle (benchmarks)\n"
		"      --no-huge           use ordinary memory even if hugepages are there\n"
		"  -m, --mem MB            memory without hugepages (512)\n"
		"      --exception-rate N  packets/s each port may hand to the control plane, per\n"
		"                          class: control, arp, other (20000), signaling (50000\n"
		"                          unless given), error (1000 at most)\n"
		"      --exception-burst N burst of those token buckets (256; error: 50 at most)\n"
		"      --eal 'ARGS'        extra EAL arguments\n"
		"  -V, --version\n"
		"  -h, --help\n"
		"options of the modules:\n");
	tp_nf_options_usage(f);
}

static int parse_opts(int argc, char **argv)
{
	static struct option lo[64] = {
	    {"name", required_argument, NULL, 'n'},
	    {"socket", required_argument, NULL, 's'},
	    {"socket-group", required_argument, NULL, 'G'},
	    {"config", required_argument, NULL, 'c'},
	    {"lcores", required_argument, NULL, 'l'},
	    {"log-file", required_argument, NULL, 'L'},
	    {"metrics", required_argument, NULL, 'M'},
	    {"no-backoff", no_argument, NULL, 'B'},
	    {"no-huge", no_argument, NULL, 'H'},
	    {"mem", required_argument, NULL, 'm'},
	    {"exception-rate", required_argument, NULL, 'r'},
	    {"exception-burst", required_argument, NULL, 'b'},
	    {"eal", required_argument, NULL, 'E'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	};
	unsigned int n = 0;
	struct group *g;
	int c, ret;

	while (lo[n].name)
		n++;
	if ((ret = tp_nf_options_getopt(lo, n, RTE_DIM(lo), NF_OPT_BASE)) < 0) {
		fprintf(stderr, "twinplane: too many module options\n");
		return ret;
	}
	o.name = "twinplane";
	o.mem_mb = 512;
	o.exc_rate = 20000;
	o.exc_rate_signaling = TP_PUNT_SIGNALING_RATE;
	o.exc_burst = 256;
	tp.backoff = true;
	tp.backoff_max_us = 256;
	while ((c = getopt_long(argc, argv, "n:s:c:l:m:Vh", lo, NULL)) != -1) {
		if (c >= NF_OPT_BASE) {
			if ((ret = tp_nf_option_run(c - NF_OPT_BASE, optarg)) < 0)
				return ret;
			continue;
		}
		switch (c) {
		case 'n':
			o.name = optarg;
			break;
		case 's':
			if (strlen(optarg) >= sizeof(o.socket)) {
				fprintf(stderr, "twinplane: --socket: path too long\n");
				return -EINVAL;
			}
			strcpy(o.socket, optarg);
			break;
		case 'G':
			g = getgrnam(optarg);
			if (g == NULL) {
				fprintf(stderr, "twinplane: --socket-group: no group named '%s'\n",
					optarg);
				return -EINVAL;
			}
			o.gid = g->gr_gid;
			break;
		case 'c':
			o.config = optarg;
			break;
		case 'l':
			o.lcores = optarg;
			break;
		case 'L':
			o.log_file = optarg;
			break;
		case 'M':
			o.metrics = optarg;
			break;
		case 'B':
			tp.backoff = false;
			break;
		case 'H':
			o.no_huge = 1;
			break;
		case 'E':
			o.eal_extra = optarg;
			break;
		case 'm':
		case 'r':
		case 'b': {
			uint64_t v;
			if (tp_parse_u64(optarg, 1, UINT64_MAX, &v) < 0) {
				fprintf(stderr, "twinplane: bad number '%s'\n", optarg);
				return -EINVAL;
			}
			if (c == 'm')
				o.mem_mb = (unsigned int)v;
			else if (c == 'r')
				o.exc_rate = o.exc_rate_signaling = v;
			else
				o.exc_burst = v;
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
	if (tp_instance_name_check("twinplane", o.name) < 0)
		return -EINVAL;
	if (o.socket[0] == '\0') {
		snprintf(o.socket, sizeof(o.socket), TP_API_DEFAULT_DIR "/%s.sock", o.name);
		o.default_socket = true;
	}
	return 0;
}

static void on_signal(int sig)
{
	tp.running = false;
}

static unsigned int rcu_poller(void)
{
	return tp_rcu_reclaim();
}

/* The configuration ran (or there was none): open the API. */
static void start_api(int ret, void *arg)
{
	struct tp_api_opts ao = {
	    .gid = o.gid,
	    /* ours: the default path, or the one this instance recorded last time */
	    .may_remove_stale = o.default_socket || strcmp(prev_socket, o.socket) == 0,
	};
	char err[256];

	if (ret < 0) {
		fprintf(stderr, "twinplane: configuration %s failed (see the log)\n", o.config);
		tp.running = false;
		return;
	}
	ret = tp_api_init(o.socket, &ao, err, sizeof(err));
	if (ret < 0) {
		TP_LOG(ERR, "API socket %s: %s", o.socket, err[0] ? err : strerror(-ret));
		fprintf(stderr, "twinplane: API socket %s: %s\n", o.socket,
			err[0] ? err : strerror(-ret));
		tp.running = false;
		return;
	}
	/* the same path as the 'metrics listen' command */
	if (o.metrics && (ret = tp_metrics_listen(o.metrics, err, sizeof(err))) < 0) {
		TP_LOG(ERR, "--metrics: %s", err[0] ? err : strerror(-ret));
		fprintf(stderr, "twinplane: --metrics: %s\n", err[0] ? err : strerror(-ret));
		tp.running = false;
		return;
	}
	TP_LOG(INFO, "ready: %u data-plane lcore(s), API on %s", tp.n_workers, o.socket);
	status = EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	char lock_path[256];
	int lock_fd, ret;
	FILE *log = NULL;

	if (parse_opts(argc, argv) < 0)
		return EXIT_FAILURE;
	lock_fd = tp_instance_lock("twinplane", o.name, o.socket, lock_path, sizeof(lock_path),
				   prev_socket, sizeof(prev_socket));
	if (lock_fd < 0)
		return EXIT_FAILURE;
	if (o.log_file) {
		/* as root: never through a symbolic link, only a regular file */
		int lfd =
		    open(o.log_file,
			 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0640);
		struct stat lst;
		if (lfd >= 0 && (fstat(lfd, &lst) < 0 || !S_ISREG(lst.st_mode))) {
			close(lfd);
			fprintf(stderr, "twinplane: --log-file %s: not a regular file\n",
				o.log_file);
			goto unlock;
		}
		log = lfd >= 0 ? fdopen(lfd, "a") : NULL;
		if (log == NULL) {
			fprintf(stderr, "twinplane: --log-file %s: %s\n", o.log_file,
				errno == ELOOP ? "it is a symbolic link" : strerror(errno));
			if (lfd >= 0)
				close(lfd);
			goto unlock;
		}
		setvbuf(log, NULL, _IOLBF, 0);
		rte_openlog_stream(log);
	}
	struct tp_eal_opts eo = {
	    .prog = argv[0],
	    .name = o.name,
	    .lcores = o.lcores,
	    .no_huge = o.no_huge,
	    .mem_mb = o.mem_mb,
	    .extra = o.eal_extra,
	};
	if (tp_eal_start(&eo) < 0) {
		fprintf(stderr, "twinplane: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		goto unlock;
	}
	tp.tsc_hz = rte_get_tsc_hz();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	if ((ret = tp_lcores_create(TP_EXC_RING_SIZE)) < 0)
		goto lcores_destroy;
	tp_punt_rate_set(TP_PUNT_CLASSES, o.exc_rate, o.exc_burst);
	/* signaling: a device's association costs two messages (AARQ, RLRQ) and its
	 * answers are the control plane's only work for it; 20,000 associations/s of
	 * re-associating devices (seed 000 Fig. 6's 40,000 control messages) pass */
	tp_punt_rate_set(TP_PUNT_SIGNALING, o.exc_rate_signaling, o.exc_burst);
	/* what only earns an ICMP error: at most the kernel's own global ICMP error rate
	 * (net.ipv4.icmp_msgs_per_sec 1000, icmp_msgs_burst 50), so a flood without a
	 * route costs a counter, not a TAP write */
	tp_punt_rate_set(TP_PUNT_ERROR, RTE_MIN(o.exc_rate, TP_PUNT_ERROR_RATE),
			 RTE_MIN(o.exc_burst, TP_PUNT_ERROR_BURST));
	if ((ret = tp_ctl_init()) < 0 || (ret = tp_exc_init()) < 0 ||
	    (ret = tp_ctl_add_poller(rcu_poller)) < 0) {
		TP_LOG(ERR, "control plane: %s", strerror(-ret));
		goto ctl_fini;
	}
	if ((ret = tp_nf_init_all()) < 0) {
		fprintf(stderr, "twinplane: a module failed to start (see the log)\n");
		goto ctl_fini;
	}

	tp.running = true;
	tp_lcores_launch();
	tp_nf_start_all();
	if (o.config) {
		if (tp_cmd_run_file(o.config, start_api, NULL) < 0) {
			fprintf(stderr, "twinplane: cannot read configuration %s\n", o.config);
			tp.running = false;
		}
	} else {
		start_api(0, NULL);
	}
	tp_ctl_loop(&tp.running);
	TP_LOG(INFO, "shutting down");
	tp_lcores_join();
	tp_lcores_drain(); /* before any pool goes: ports' and modules' */
	tp_api_fini();
	tp_metrics_stop();
	tp_port_del_all();
	tp_nf_fini_all();
ctl_fini:
	tp_rcu_reclaim(); /* what the modules deferred */
lcores_destroy:
	tp_lcores_destroy();
	tp_ctl_fini();
	rte_eal_cleanup();
unlock:
	unlink(lock_path);
	close(lock_fd);
	if (log)
		fclose(log);
	return status;
}
