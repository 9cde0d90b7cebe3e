/* SPDX-License-Identifier: BSD-3-Clause */
/* twinplane-sockgw: the IoT gateway on kernel sockets, no DPDK: seed 000's
 * "previous single plane IoT system", the baseline of its comparisons. The same
 * codec, report path (report.c), session manager (session.c) and registration
 * steps (register.c) as the daemon; one thread does everything in turn, and a
 * device's registration on the IN-CSE is waited for inline (the datagrams that
 * arrive meanwhile wait in the socket's receive buffer).
 *
 *   twinplane-sockgw --cse A.B.C.D[:PORT] [--listen A.B.C.D] [--port 6024]
 *                    [--cse-name NAME] [--timeout S] [--max-sessions N]
 *                    [--rcvbuf BYTES] [--stats FILE] [--profile]
 *
 * Counters (the daemon's names) are written as JSON to the --stats file on
 * SIGUSR1 and at exit. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../proto/ip4.h"
#include "../proto/parse.h"
#include "../nf/iotgw/iotgw.h"
#include "../nf/iotgw/control/control.h"

#define BATCH 32
#define DGRAM_MAX 2048
#define OUT_MAX (BATCH * TP_AE_MAX_METRICS)

struct tp_iotgw_conf tp_iotgw = TP_IOTGW_CONF_DEFAULT;

static volatile sig_atomic_t stop, dump;
static uint64_t ctrs[TP_IOTGW_CTR_MAX];
static struct tp_iotgw_dp dp = {.ctr = ctrs};
/* the registration has its own socket (so its own port): a CoAP server
 * deduplicates by (endpoint, message id), and the NON requests of the report
 * path number theirs independently */
static int agent_sock = -1, cse_sock = -1, reg_sock = -1;
static const char *stats_path;

/* CoAP requests of one receive batch, sent together */
static uint8_t out_buf[OUT_MAX][512];
static struct iovec out_iov[OUT_MAX];
static struct mmsghdr out_msg[OUT_MAX];
static unsigned int n_out;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void flush_out(void)
{
	unsigned int done = 0;

	while (done < n_out) {
		int r = sendmmsg(cse_sock, out_msg + done, n_out - done, 0);
		if (r <= 0) {
			dp.ctr[TP_IOTGW_NOMBUF] += n_out - done; /* the kernel refused them */
			dp.ctr[TP_IOTGW_CIN_SENT] -= n_out - done;
			break;
		}
		done += (unsigned int)r;
	}
	n_out = 0;
}

static void emit_cin(void *ctx, struct tp_iotgw_dp *d, const struct tp_ae *ae,
		     const struct tp_ae_metric *mt, const struct tp_m2m_measure *meas)
{
	(void)ctx;
	if (n_out == OUT_MAX)
		flush_out();
	int n = tp_iotgw_cin_request(d, out_buf[n_out], sizeof(out_buf[0]), ae, mt, meas);
	if (n < 0) {
		d->ctr[TP_IOTGW_NOMBUF]++;
		return;
	}
	out_iov[n_out] = (struct iovec){out_buf[n_out], (size_t)n};
	out_msg[n_out].msg_hdr = (struct msghdr){.msg_iov = &out_iov[n_out], .msg_iovlen = 1};
	n_out++;
	d->ctr[TP_IOTGW_CIN_SENT]++;
}

static int agent_send(struct tp_iotgw_io *io, const uint8_t *buf, size_t len, uint32_t ip,
		      uint16_t port)
{
	struct sockaddr_in to = {
	    .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(ip)};
	(void)io;
	return sendto(agent_sock, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ? -errno : 0;
}

static int cse_send(struct tp_iotgw_reg_link *l, const uint8_t *buf, size_t len)
{
	(void)l;
	return send(reg_sock, buf, len, 0) < 0 ? -errno : 0;
}

static int cse_recv(struct tp_iotgw_reg_link *l, uint8_t *buf, size_t cap, uint64_t deadline)
{
	struct pollfd p = {.fd = reg_sock, .events = POLLIN};

	(void)l;
	for (;;) {
		uint64_t now = now_ms();
		if (now >= deadline || stop)
			return -ETIMEDOUT;
		int r = poll(&p, 1, (int)(deadline - now));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0) {
			ssize_t n = recv(reg_sock, buf, cap, MSG_DONTWAIT);
			if (n >= 0)
				return (int)n;
		}
	}
}

static uint64_t link_now(struct tp_iotgw_reg_link *l)
{
	(void)l;
	return now_ms();
}

static struct tp_iotgw_reg_link link_ = {.send = cse_send, .recv = cse_recv, .now_ms = link_now};

static void sync_registration(struct tp_iotgw_io *io, int idx)
{
	(void)io;
	flush_out(); /* what is converted leaves before the wait */
	(void)tp_iotgw_register_sync(idx, &link_);
}

static struct tp_iotgw_io io = {.send = agent_send, .registration = sync_registration};

static uint32_t last_seen(int idx)
{
	return dp.agent[idx].seen;
}

static void write_stats(void)
{
	char tmp[4096];
	const struct tp_iotgw_session_stats *s = &tp_iotgw_sess;
	FILE *f;

	if (stats_path == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_path);
	if ((f = fopen(tmp, "w")) == NULL)
		return;
	fprintf(
	    f,
	    "{\"plane\": \"socket\", \"sessions\": %u, \"report_cycles\": %llu, \"data_plane\": {",
	    tp_ae_count(), (unsigned long long)dp.proc_cycles);
	for (unsigned int i = 0; i < TP_IOTGW_CTR_MAX; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", tp_iotgw_ctr_names[i],
			(unsigned long long)dp.ctr[i]);
	fprintf(f, "}, \"control_plane\": {");
#define F(x, sep) fprintf(f, "\"" #x "\": %llu" sep, (unsigned long long)s->x)
	F(received, ", ");
	F(sent, ", ");
	F(send_errors, ", ");
	F(bad, ", ");
	F(ignored, ", ");
	F(unassociated, ", ");
	F(associated, ", ");
	F(configured, ", ");
	F(rejected, ", ");
	F(rejected_full, ", ");
	F(released, ", ");
	F(aborted, ", ");
	F(timed_out, ", ");
	F(reg_requests, ", ");
	F(reg_retries, ", ");
	F(reg_ready, ", ");
	F(reg_failed, ", ");
	F(reg_server_errors, "");
#undef F
	fprintf(f, "}}\n");
	fclose(f);
	rename(tmp, stats_path);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: twinplane-sockgw --cse A.B.C.D[:PORT] [--listen A.B.C.D] [--port N]\n"
		   "                        [--cse-name NAME] [--timeout S] [--max-sessions N]\n"
		   "                        [--rcvbuf BYTES] [--stats FILE] [--profile]\n");
}

static int parse_u32(const char *opt, const char *s, unsigned long min, unsigned long max,
		     uint32_t *v)
{
	uint64_t x;

	if (tp_parse_u64(s, min, max, &x) < 0) {
		fprintf(stderr, "twinplane-sockgw: bad %s '%s' (%lu-%lu)\n", opt, s, min, max);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"cse", required_argument, NULL, 'c'},
	    {"listen", required_argument, NULL, 'l'},
	    {"port", required_argument, NULL, 'p'},
	    {"cse-name", required_argument, NULL, 'n'},
	    {"timeout", required_argument, NULL, 't'},
	    {"max-sessions", required_argument, NULL, 'm'},
	    {"rcvbuf", required_argument, NULL, 'r'},
	    {"stats", required_argument, NULL, 's'},
	    {"profile", no_argument, NULL, 'P'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	uint32_t listen_ip = 0, v, rcvbuf = 1 << 20;
	int c;

	/* seed 000's socket baseline registers at once, without reading the MDS
	 * attributes (as the single plane; README, Decisions) */
	tp_iotgw.no_mds_get = true;
	/* nor did it bound the sessions of one source: the benchmark's agents share one
	 * address */
	tp_iotgw.max_per_source = 0;
	io.last_seen = last_seen;
	tp_iotgw.delivery = TP_IOTGW_DELIVERY_FORGET; /* NON, as its old system */
	tp_iotgw.ae_retention_s = 0; /* AEs without an et, as its old system (none refreshes) */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *colon;
		switch (c) {
		case 'c':
			if ((colon = strchr(optarg, ':')) != NULL) {
				*colon = '\0';
				if (parse_u32("--cse port", colon + 1, 1, 65535, &v) < 0)
					return 2;
				tp_iotgw.cse_port = (uint16_t)v;
			}
			if (tp_ip4_parse_addr(optarg, &tp_iotgw.cse_ip) < 0 ||
			    tp_iotgw.cse_ip == 0) {
				fprintf(stderr, "twinplane-sockgw: bad --cse address '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			if (tp_ip4_parse_addr(optarg, &listen_ip) < 0) {
				fprintf(stderr, "twinplane-sockgw: bad --listen address '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (parse_u32("--port", optarg, 1, 65535, &v) < 0)
				return 2;
			tp_iotgw.port = (uint16_t)v;
			break;
		case 'n':
			if (strlen(optarg) == 0 || strlen(optarg) >= sizeof(tp_iotgw.cse_name) ||
			    strchr(optarg, '/')) {
				fprintf(stderr, "twinplane-sockgw: bad --cse-name '%s'\n", optarg);
				return 2;
			}
			snprintf(tp_iotgw.cse_name, sizeof(tp_iotgw.cse_name), "%s", optarg);
			break;
		case 't':
			if (parse_u32("--timeout", optarg, 1, 86400, &v) < 0)
				return 2;
			tp_iotgw.session_timeout_ms = v * 1000;
			break;
		case 'm':
			if (parse_u32("--max-sessions", optarg, 1, TP_AE_MAX,
				      &tp_iotgw.max_sessions) < 0)
				return 2;
			break;
		case 'r':
			if (parse_u32("--rcvbuf", optarg, 4096, 1u << 30, &rcvbuf) < 0)
				return 2;
			break;
		case 's':
			stats_path = optarg;
			break;
		case 'P':
			tp_iotgw.profile = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || tp_iotgw.cse_ip == 0) {
		fprintf(stderr,
			optind < argc ? "twinplane-sockgw: unexpected argument '%s'\n"
				      : "twinplane-sockgw: give the IN-CSE: --cse A.B.C.D%s\n",
			optind < argc ? argv[optind] : "");
		usage(stderr);
		return 2;
	}
	if (tp_ae_init() < 0) {
		fprintf(stderr, "twinplane-sockgw: out of memory\n");
		return 1;
	}

	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(tp_iotgw.port),
				 .sin_addr.s_addr = htonl(listen_ip)};
	struct sockaddr_in cse = {.sin_family = AF_INET,
				  .sin_port = htons(tp_iotgw.cse_port),
				  .sin_addr.s_addr = htonl(tp_iotgw.cse_ip)};
	int rb = (int)rcvbuf;
	agent_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cse_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	reg_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (agent_sock < 0 || cse_sock < 0 || reg_sock < 0 ||
	    (setsockopt(agent_sock, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0 &&
	     setsockopt(agent_sock, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb)) < 0) ||
	    bind(agent_sock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    connect(cse_sock, (struct sockaddr *)&cse, sizeof(cse)) < 0 ||
	    connect(reg_sock, (struct sockaddr *)&cse, sizeof(cse)) < 0) {
		fprintf(stderr, "twinplane-sockgw: sockets: %s\n", strerror(errno));
		return 1;
	}

	struct sigaction act = {.sa_handler = on_signal};
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGUSR1, &act, NULL);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "twinplane-sockgw: listening on UDP %u, IN-CSE %s:%u/%s\n", tp_iotgw.port,
		inet_ntoa(cse.sin_addr), tp_iotgw.cse_port, tp_iotgw.cse_name);

	static uint8_t buf[BATCH][DGRAM_MAX];
	static struct iovec iov[BATCH];
	static struct sockaddr_in from[BATCH];
	static struct mmsghdr msg[BATCH];
	uint64_t next_tick = 0;

	while (!stop) {
		struct pollfd p = {.fd = agent_sock, .events = POLLIN};
		uint64_t now = now_ms();

		if (now >= next_tick) {
			tp_iotgw_wall_s = (uint64_t)time(NULL);
			io.now_ms = now;
			tp_iotgw_session_tick(&io);
			tp_iotgw_session_expire(now, last_seen);
			next_tick = now + 100;
		}
		if (dump) {
			dump = 0;
			write_stats();
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		for (int i = 0; i < BATCH; i++) {
			iov[i] = (struct iovec){buf[i], DGRAM_MAX};
			msg[i].msg_hdr = (struct msghdr){.msg_name = &from[i],
							 .msg_namelen = sizeof(from[i]),
							 .msg_iov = &iov[i],
							 .msg_iovlen = 1};
		}
		int n = recvmmsg(agent_sock, msg, BATCH, MSG_DONTWAIT, NULL);
		for (int i = 0; i < n; i++) {
			uint32_t ip = ntohl(from[i].sin_addr.s_addr);
			uint16_t port = ntohs(from[i].sin_port);
			enum tp_iotgw_ctr drop;
			struct tp_phd_apdu a;
			uint8_t rsp[64];

			switch (tp_iotgw_report(&dp, buf[i], msg[i].msg_len, ip, port, &a, emit_cin,
						NULL, &drop)) {
			case TP_IOTGW_V_SIGNALING:
				dp.ctr[TP_IOTGW_SIGNALING_INLINE]++;
				io.now_ms = now_ms();
				tp_iotgw_session_input(&io, buf[i], msg[i].msg_len, ip, port);
				break;
			case TP_IOTGW_V_DROP:
				dp.ctr[drop]++;
				break;
			case TP_IOTGW_V_DONE:
				break;
			case TP_IOTGW_V_ANSWER: {
				int len = tp_iotgw_answer(&a.u.prst, rsp, sizeof(rsp));
				if (len > 0 && agent_send(&io, rsp, (size_t)len, ip, port) == 0)
					dp.ctr[TP_IOTGW_RESPONSES]++;
				break;
			}
			}
		}
		flush_out();
	}
	write_stats();
	return 0;
}
