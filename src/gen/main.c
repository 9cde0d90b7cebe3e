/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-gen: the traffic generator (API server on the main lcore, the
 * transmit/receive loop on the next one), or, with --pcap, a pcap writer. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "../api/api.h"
#include "../control/api_server.h"
#include "../control/cmd.h"
#include "../control/control.h"
#include "../core/eal.h"
#include "../core/log.h"
#include "engine.h"
#include "pcap.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: twinplane-gen [options]\n"
		   "  -n, --name NAME       instance name, also the DPDK file prefix (gen)\n"
		   "  -s, --socket PATH     API socket (" TP_API_DEFAULT_DIR "/NAME.sock)\n"
		   "  -c, --config FILE     commands to run at start, one a line\n"
		   "  -l, --lcores LIST     EAL lcores: API, then the tx/rx loop (e.g. 0@1,1@1)\n"
		   "      --log-file PATH   log there instead of stderr\n"
		   "      --no-huge         ordinary memory\n"
		   "  -m, --mem MB          memory without hugepages (512)\n"
		   "      --mbufs N         mbufs in the pool (32767)\n"
		   "      --eal 'ARGS'      extra EAL arguments\n"
		   "in-memory mode (no DPDK port, no API):\n"
		   "      --pcap FILE --count N --stream 'template T size S [options]'\n"
		   "                        write N frames of the stream to a pcap file\n");
}

static void on_signal(int sig)
{
	gen.running = false;
}

/* --pcap: the same templates, written to a file for net_pcap replay. */
/* An option's number in [min, max] into *v; otherwise says which value is wrong on
 * stderr and returns -EINVAL. */
static int opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	if (tp_parse_u64(s, min, max, v) == 0)
		return 0;
	fprintf(stderr, "twinplane-gen: %s: bad value '%s' (%" PRIu64 "-%" PRIu64 ")\n", opt, s,
		min, max);
	return -EINVAL;
}

static int write_pcap(const char *path, unsigned long count, const char *spec)
{
	char buf[1024], *argv[64], err[256] = "";
	int argc;
	FILE *f;

	snprintf(buf, sizeof(buf), "%s", spec);
	argc = tp_cmd_split(buf, argv, 64);
	if (argc < 4 || strcmp(argv[0], "template") || strcmp(argv[2], "size")) {
		fprintf(stderr, "twinplane-gen: --stream 'template T size S [options]'\n");
		return EXIT_FAILURE;
	}
	uint64_t size = 0;
	if (tp_parse_u64(argv[3], 0, UINT32_MAX, &size) < 0) {
		fprintf(stderr, "twinplane-gen: --stream: bad size '%s' (bytes)\n", argv[3]);
		return EXIT_FAILURE;
	}
	if (gen_stream_add("pcap", 0, argv[1], (uint32_t)size, argc - 4, argv + 4, err,
			   sizeof(err)) < 0) {
		fprintf(stderr, "twinplane-gen: --stream: %s\n", err[0] ? err : "bad size");
		return EXIT_FAILURE;
	}
	struct gen_stream *s = gen_stream_find("pcap");
	uint8_t *frame = malloc(s->frame_len);
	f = fopen(path, "wb");
	if (f == NULL || frame == NULL) {
		fprintf(stderr, "twinplane-gen: %s: %s\n", path, strerror(errno));
		return EXIT_FAILURE;
	}
	int ret = tp_pcap_header(f);
	for (unsigned long i = 0; i < count && ret == 0; i++) {
		gen_stream_frame(s, frame, 0, 0);
		ret = tp_pcap_record(f, frame, s->frame_len, i);
	}
	if (fclose(f) != 0 || ret < 0) {
		fprintf(stderr, "twinplane-gen: writing %s failed\n", path);
		return EXIT_FAILURE;
	}
	free(frame);
	gen_stream_del("pcap");
	printf("%s: %lu frames of %u bytes (+4 FCS on the wire)\n", path, count, s->frame_len);
	return EXIT_SUCCESS;
}

static char sock[108], prev_sock[256];
static bool default_sock;
static int status = EXIT_FAILURE;
static struct tp_api_opts api_opts = {.gid = (gid_t)-1};

/* The configuration ran (or there was none): open the API. */
static void start_api(int ret, void *arg)
{
	char err[256];

	if (ret < 0) {
		fprintf(stderr, "twinplane-gen: configuration %s failed (see the log)\n",
			(const char *)arg);
		gen.running = false;
		return;
	}
	ret = tp_api_init(sock, &api_opts, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "twinplane-gen: API socket %s: %s\n", sock,
			err[0] ? err : strerror(-ret));
		gen.running = false;
		return;
	}
	TP_LOG(INFO, "generator ready, API on %s", sock);
	status = EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"name", required_argument, NULL, 'n'},	{"socket", required_argument, NULL, 's'},
	    {"config", required_argument, NULL, 'c'},	{"lcores", required_argument, NULL, 'l'},
	    {"log-file", required_argument, NULL, 'L'}, {"no-huge", no_argument, NULL, 'H'},
	    {"mem", required_argument, NULL, 'm'},	{"mbufs", required_argument, NULL, 'M'},
	    {"eal", required_argument, NULL, 'E'},	{"pcap", required_argument, NULL, 'P'},
	    {"count", required_argument, NULL, 'C'},	{"stream", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},		{0},
	};
	struct tp_eal_opts eo = {.prog = "twinplane-gen", .name = "gen", .mem_mb = 512};
	const char *config = NULL, *log_file = NULL, *pcap = NULL, *stream = NULL;
	unsigned long count = 0, mbufs = 32767;
	uint64_t v;
	bool count_given = false;
	char lock_path[256];
	int c, lock_fd;
	unsigned int worker;
	FILE *log = NULL;

	while ((c = getopt_long(argc, argv, "n:s:c:l:m:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			eo.name = optarg;
			break;
		case 's':
			if (strlen(optarg) >= sizeof(sock)) {
				fprintf(stderr,
					"twinplane-gen: --socket: path too long (%zu bytes, %zu at "
					"most: a unix socket's)\n",
					strlen(optarg), sizeof(sock) - 1);
				return EXIT_FAILURE;
			}
			strcpy(sock, optarg);
			break;
		case 'c':
			config = optarg;
			break;
		case 'l':
			eo.lcores = optarg;
			break;
		case 'L':
			log_file = optarg;
			break;
		case 'H':
			eo.no_huge = true;
			break;
		case 'm':
			if (opt_u64("--mem", optarg, 64, 1 << 20, &v) < 0)
				return EXIT_FAILURE;
			eo.mem_mb = (unsigned int)v;
			break;
		case 'M':
			/* rte_mempool: the per-lcore cache of 256 needs 384 mbufs at least */
			if (opt_u64("--mbufs", optarg, 512, 1u << 26, &v) < 0)
				return EXIT_FAILURE;
			mbufs = (unsigned long)v;
			break;
		case 'E':
			eo.extra = optarg;
			break;
		case 'P':
			pcap = optarg;
			break;
		case 'C':
			if (opt_u64("--count", optarg, 0, UINT64_MAX, &v) < 0)
				return EXIT_FAILURE;
			count = (unsigned long)v;
			count_given = true;
			break;
		case 'S':
			stream = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (pcap) {
		if (!count_given || stream == NULL) {
			fprintf(stderr, "twinplane-gen: --pcap needs --count N and --stream SPEC "
					"(--count 0 writes an empty capture)\n");
			return EXIT_FAILURE;
		}
		return write_pcap(pcap, count, stream);
	}
	if (sock[0] == '\0') {
		snprintf(sock, sizeof(sock), TP_API_DEFAULT_DIR "/%s.sock", eo.name);
		default_sock = true;
	}
	lock_fd = tp_instance_lock("twinplane-gen", eo.name, sock, lock_path, sizeof(lock_path),
				   prev_sock, sizeof(prev_sock));
	if (lock_fd < 0)
		return EXIT_FAILURE;
	if (log_file) {
		log = fopen(log_file, "a");
		if (log == NULL) {
			fprintf(stderr, "twinplane-gen: --log-file %s: %s\n", log_file,
				strerror(errno));
			goto unlock;
		}
		setvbuf(log, NULL, _IOLBF, 0);
		rte_openlog_stream(log);
	}
	if (tp_eal_start(&eo) < 0) {
		fprintf(stderr, "twinplane-gen: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		goto unlock;
	}
	worker = rte_get_next_lcore(rte_get_main_lcore(), 1, 0);
	if (worker >= RTE_MAX_LCORE) {
		fprintf(stderr, "twinplane-gen: give two lcores (e.g. --lcores 0@1,1@1): the API, "
				"then the tx/rx loop\n");
		goto eal_cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (gen_engine_init((unsigned int)mbufs) < 0 || tp_ctl_init() < 0) {
		fprintf(stderr, "twinplane-gen: start-up failed: %s\n", rte_strerror(rte_errno));
		goto eal_cleanup;
	}
	api_opts.may_remove_stale = default_sock || strcmp(prev_sock, sock) == 0;
	gen.running = true;
	gen.worker_lcore = worker;
	rte_eal_remote_launch(gen_worker_main, NULL, worker);
	if (config == NULL)
		start_api(0, NULL);
	else if (tp_cmd_run_file(config, start_api, (void *)(uintptr_t)config) < 0)
		gen.running = false;
	tp_ctl_loop(&gen.running);
	rte_eal_mp_wait_lcore();
	tp_api_fini();
	gen_engine_fini();
	tp_ctl_fini();
eal_cleanup:
	rte_eal_cleanup();
unlock:
	unlink(lock_path);
	close(lock_fd);
	if (log)
		fclose(log);
	return status;
}
