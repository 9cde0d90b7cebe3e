/* SPDX-License-Identifier: BSD-3-Clause */
/* coap-tool: builds oneM2M CoAP create requests with the project's codec, prints them as
 * hex or sends them over UDP and prints the response as JSON; also sends raw hex and decodes. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../src/proto/coap.h"
#include "../../src/proto/onem2m.h"
#include "../../src/proto/parse.h"

#define MSG_MAX 65507 /* the largest UDP payload over IPv4 */
#define BODY_MAX 8192

/* exit statuses */
enum {
	EXIT_2XX = 0,	    /* success response, or sent (NON without --wait), or printed */
	EXIT_ERROR_RSP = 1, /* 4.xx / 5.xx response or Reset */
	EXIT_USAGE = 2,	    /* bad arguments, encoding error, socket error */
	EXIT_TIMEOUT = 3,   /* no response in time */
	EXIT_BAD_RSP = 4,   /* the response does not decode */
};

static void usage(FILE *f)
{
	fputs("usage:\n"
	      "  coap-tool create --path P [--query Q] --ty N --from ORIG --rqi ID [--rvi R]\n"
	      "                   [--type con|non] [--mid N] [--token HEX] [--cf N] BODY\n"
	      "                   [--to HOST:PORT [--wait] [--timeout S]]\n"
	      "     BODY: --payload TEXT | --ae RN [--api API] | --cnt RN [--mni N]\n"
	      "           | --cin CON [--cnf CNF] | --value NUM [--unit U] [--time T]\n"
	      "           | --mantissa M --exponent E [--unit U] [--time T]\n"
	      "     without --to: print the request as hex; with --to: send it, and for CON\n"
	      "     (or with --wait) print the response as JSON\n"
	      "  coap-tool send --to HOST:PORT --hex HEX [--wait] [--timeout S]\n"
	      "     send raw bytes; waits for a response when they decode as CON or with --wait\n"
	      "  coap-tool decode HEX\n"
	      "     print a message as JSON\n"
	      "exit: 0 2.xx (or sent/printed), 1 error response or reset, 2 usage, 3 timeout,\n"
	      "      4 undecodable response\n",
	      f);
}

static void print_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno == 0 && *s != '\0' && *end == '\0' && *v <= max && s[0] != '-';
}

static const char *type_name(uint8_t t)
{
	static const char *const names[] = {"CON", "NON", "ACK", "RST"};
	return names[t & 3];
}

/* Names of the options we print; unknown ones print by number only. */
static const struct optinfo {
	uint16_t num;
	const char *name;
	bool is_uint;
} optinfo[] = {
    {TP_COAP_OPT_IF_MATCH, "If-Match", false},
    {TP_COAP_OPT_URI_HOST, "Uri-Host", false},
    {TP_COAP_OPT_ETAG, "ETag", false},
    {TP_COAP_OPT_IF_NONE_MATCH, "If-None-Match", false},
    {TP_COAP_OPT_OBSERVE, "Observe", true},
    {TP_COAP_OPT_URI_PORT, "Uri-Port", true},
    {TP_COAP_OPT_LOCATION_PATH, "Location-Path", false},
    {TP_COAP_OPT_URI_PATH, "Uri-Path", false},
    {TP_COAP_OPT_CONTENT_FORMAT, "Content-Format", true},
    {TP_COAP_OPT_MAX_AGE, "Max-Age", true},
    {TP_COAP_OPT_URI_QUERY, "Uri-Query", false},
    {TP_COAP_OPT_ACCEPT, "Accept", true},
    {TP_COAP_OPT_LOCATION_QUERY, "Location-Query", false},
    {TP_COAP_OPT_BLOCK2, "Block2", true},
    {TP_COAP_OPT_BLOCK1, "Block1", true},
    {TP_COAP_OPT_SIZE2, "Size2", true},
    {TP_COAP_OPT_PROXY_URI, "Proxy-Uri", false},
    {TP_COAP_OPT_PROXY_SCHEME, "Proxy-Scheme", false},
    {TP_COAP_OPT_SIZE1, "Size1", true},
    {TP_M2M_OPT_OT, "oneM2M-OT", false},
    {TP_M2M_OPT_RTURI, "oneM2M-RTURI", false},
    {TP_M2M_OPT_TY, "oneM2M-TY", true},
    {TP_M2M_OPT_RVI, "oneM2M-RVI", false},
    {TP_M2M_OPT_ASRI, "oneM2M-ASRI", false},
    {TP_M2M_OPT_FR, "oneM2M-FR", false},
    {TP_M2M_OPT_RQI, "oneM2M-RQI", false},
    {TP_M2M_OPT_RQET, "oneM2M-RQET", false},
    {TP_M2M_OPT_RSET, "oneM2M-RSET", false},
    {TP_M2M_OPT_OET, "oneM2M-OET", false},
    {TP_M2M_OPT_EC, "oneM2M-EC", true},
    {TP_M2M_OPT_RSC, "oneM2M-RSC", true},
    {TP_M2M_OPT_GID, "oneM2M-GID", false},
    {TP_M2M_OPT_CTO, "oneM2M-CTO", true},
    {TP_M2M_OPT_CTS, "oneM2M-CTS", true},
    {TP_M2M_OPT_ATI, "oneM2M-ATI", false},
    {TP_M2M_OPT_VSI, "oneM2M-VSI", false},
    {TP_M2M_OPT_GTM, "oneM2M-GTM", false},
    {TP_M2M_OPT_AUS, "oneM2M-AUS", false},
};

static const struct optinfo *opt_lookup(uint16_t num)
{
	for (size_t i = 0; i < sizeof(optinfo) / sizeof(optinfo[0]); i++)
		if (optinfo[i].num == num)
			return &optinfo[i];
	return NULL;
}

/* Well-formed UTF-8 without NULs (so it can go into a JSON string). */
static bool is_text(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = p[i];
		size_t k;
		if (c == 0)
			return false;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if ((c & 0xf0) == 0xe0)
			k = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3;
		else
			return false;
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
		i += k + 1;
	}
	return true;
}

static void print_json_string(const uint8_t *p, size_t n)
{
	static char esc[6 * MSG_MAX + 1];

	if (tp_m2m_json_escape(esc, sizeof(esc), (const char *)p, n) < 0)
		esc[0] = '\0';
	printf("\"%s\"", esc);
}

/* The message as one line of JSON; payload as text, or payload_hex when not text. */
static void print_msg(const struct tp_coap_msg *m)
{
	printf("{\"type\":\"%s\",\"code\":\"%u.%02u\",\"mid\":%u,\"token\":\"", type_name(m->type),
	       TP_COAP_CODE_CLASS(m->code), TP_COAP_CODE_DETAIL(m->code), m->mid);
	print_hex(stdout, m->token, m->tkl);
	printf("\",\"options\":[");
	for (unsigned int i = 0; i < m->n_opts; i++) {
		const struct tp_coap_opt *o = &m->opts[i];
		const struct optinfo *info = opt_lookup(o->num);
		uint32_t v;
		printf("%s{\"num\":%u", i ? "," : "", o->num);
		if (info != NULL)
			printf(",\"name\":\"%s\"", info->name);
		if (info != NULL && info->is_uint && tp_coap_opt_uint(o, &v) == 0) {
			printf(",\"value\":%u", v);
		} else if (is_text(o->val, o->len)) {
			printf(",\"value\":");
			print_json_string(o->val, o->len);
		} else {
			printf(",\"hex\":\"");
			print_hex(stdout, o->val, o->len);
			printf("\"");
		}
		printf("}");
	}
	printf("]");
	if (tp_m2m_rsc(m) >= 0)
		printf(",\"rsc\":%d", tp_m2m_rsc(m));
	if (m->payload != NULL) {
		if (is_text(m->payload, m->payload_len)) {
			printf(",\"payload\":");
			print_json_string(m->payload, m->payload_len);
		} else {
			printf(",\"payload_hex\":\"");
			print_hex(stdout, m->payload, m->payload_len);
			printf("\"");
		}
	}
	printf("}\n");
}

static int print_decoded(const uint8_t *p, size_t n)
{
	struct tp_coap_msg m;
	int rc = tp_coap_decode(p, n, &m);

	if (rc < 0) {
		printf("{\"error\":\"%s\",\"hex\":\"", tp_coap_strerror(rc));
		print_hex(stdout, p, n);
		printf("\"}\n");
		return EXIT_BAD_RSP;
	}
	print_msg(&m);
	return EXIT_2XX;
}

/* "host:port", "[v6]:port" or "host" (port 5683): a connected UDP socket, or -1. */
static int udp_connect(const char *to)
{
	char host[256];
	const char *port = "5683";
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *res, *ai;
	int fd = -1;

	if (strlen(to) >= sizeof(host))
		return -1;
	strcpy(host, to);
	if (host[0] == '[') {
		char *close = strchr(host, ']');
		if (close == NULL || (close[1] != ':' && close[1] != '\0'))
			return -1;
		*close = '\0';
		if (close[1] == ':')
			port = close + 2;
		memmove(host, host + 1, strlen(host + 1) + 1);
	} else {
		char *colon = strchr(host, ':');
		if (colon != NULL && strchr(colon + 1, ':') == NULL) {
			*colon = '\0';
			port = colon + 1;
		}
	}
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai != 0) {
		fprintf(stderr, "coap-tool: %s: %s\n", to, gai_strerror(gai));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "coap-tool: %s: %s\n", to, strerror(errno));
	return fd;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int exit_for(const struct tp_coap_msg *m)
{
	if (m->type == TP_COAP_RST)
		return EXIT_ERROR_RSP;
	return TP_COAP_CODE_CLASS(m->code) == 2 ? EXIT_2XX : EXIT_ERROR_RSP;
}

/* Send req; when wait, wait for its response (RFC 7252 5.2: piggybacked in the ACK,
 * or separate after an empty ACK) and print it. CON requests are retransmitted
 * after 2, 4, 8 s (RFC 7252 4.2, ACK_TIMEOUT 2 s) until timeout. */
static int exchange(const char *to, const uint8_t *req, size_t len, bool wait, double timeout)
{
	static uint8_t rbuf[MSG_MAX];
	struct tp_coap_msg q, m;
	int fd = udp_connect(to);
	bool con, acked = false;

	if (fd < 0)
		return EXIT_USAGE;
	/* raw bytes that do not decode are still sent; nothing to match a response with */
	bool decoded = tp_coap_decode(req, len, &q) == 0;
	con = decoded && q.type == TP_COAP_CON;
	if (send(fd, req, len, 0) < 0) {
		fprintf(stderr, "coap-tool: send: %s\n", strerror(errno));
		close(fd);
		return EXIT_USAGE;
	}
	if (!wait && !con) {
		printf("{\"sent\":%zu}\n", len);
		close(fd);
		return EXIT_2XX;
	}
	double start = now_s(), deadline = start + timeout, interval = 2.0, next = start + interval;
	for (;;) {
		double t = now_s();
		if (t >= deadline)
			break;
		if (con && !acked && t >= next) {
			if (send(fd, req, len, 0) < 0)
				break;
			interval *= 2;
			next = t + interval;
		}
		double until = (con && !acked && next < deadline) ? next : deadline;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int pr = poll(&pfd, 1, (int)((until - t) * 1000) + 1);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0)
			continue;
		ssize_t n = recv(fd, rbuf, sizeof(rbuf), 0);
		if (n < 0) {
			/* ICMP port unreachable on a connected socket: nobody listens */
			fprintf(stderr, "coap-tool: recv: %s\n", strerror(errno));
			if (errno == ECONNREFUSED)
				continue;
			break;
		}
		int rc = tp_coap_decode(rbuf, (size_t)n, &m);
		if (rc < 0) {
			close(fd);
			return print_decoded(rbuf, (size_t)n);
		}
		bool same_mid = decoded && m.mid == q.mid;
		bool same_token = decoded && m.tkl == q.tkl && memcmp(m.token, q.token, q.tkl) == 0;
		if ((m.type == TP_COAP_ACK || m.type == TP_COAP_RST) && same_mid) {
			if (m.type == TP_COAP_ACK && m.code == TP_COAP_EMPTY) {
				acked = true; /* a separate response follows (RFC 7252 5.2.2) */
				continue;
			}
		} else if ((m.type == TP_COAP_CON || m.type == TP_COAP_NON) && same_token &&
			   TP_COAP_CODE_CLASS(m.code) >= 2) {
			if (m.type == TP_COAP_CON) {
				uint8_t ack[4];
				struct tp_coap_writer w;
				tp_coap_begin(&w, ack, sizeof(ack), TP_COAP_ACK, TP_COAP_EMPTY,
					      m.mid, NULL, 0);
				if (send(fd, ack, 4, 0) < 0)
					fprintf(stderr, "coap-tool: send ack: %s\n",
						strerror(errno));
			}
		} else if (decoded) {
			continue; /* not ours */
		}
		print_msg(&m);
		close(fd);
		return exit_for(&m);
	}
	close(fd);
	fprintf(stderr, "coap-tool: no response from %s within %gs\n", to, timeout);
	printf("{\"error\":\"timeout\"}\n");
	return EXIT_TIMEOUT;
}

struct args {
	const char *path, *query, *from, *rqi, *rvi, *to, *hex, *token_hex;
	const char *payload, *ae, *api, *cnt, *cin, *cnf, *value, *unit, *time;
	const char *mantissa, *exponent;
	unsigned long ty, mid, cf, mni;
	bool have_mid, wait, con;
	double timeout;
};

enum {
	O_PATH = 256,
	O_TY,
	O_FROM,
	O_RQI,
	O_RVI,
	O_TYPE,
	O_MID,
	O_TOKEN,
	O_CF,
	O_PAYLOAD,
	O_AE,
	O_API,
	O_CNT,
	O_MNI,
	O_CIN,
	O_CNF,
	O_VALUE,
	O_UNIT,
	O_TIME,
	O_MANT,
	O_EXP,
	O_TO,
	O_WAIT,
	O_TIMEOUT,
	O_HEX,
	O_QUERY,
	O_HELP,
};

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
	    {"path", required_argument, NULL, O_PATH},
	    {"ty", required_argument, NULL, O_TY},
	    {"from", required_argument, NULL, O_FROM},
	    {"rqi", required_argument, NULL, O_RQI},
	    {"rvi", required_argument, NULL, O_RVI},
	    {"type", required_argument, NULL, O_TYPE},
	    {"mid", required_argument, NULL, O_MID},
	    {"token", required_argument, NULL, O_TOKEN},
	    {"cf", required_argument, NULL, O_CF},
	    {"payload", required_argument, NULL, O_PAYLOAD},
	    {"ae", required_argument, NULL, O_AE},
	    {"api", required_argument, NULL, O_API},
	    {"cnt", required_argument, NULL, O_CNT},
	    {"mni", required_argument, NULL, O_MNI},
	    {"cin", required_argument, NULL, O_CIN},
	    {"cnf", required_argument, NULL, O_CNF},
	    {"value", required_argument, NULL, O_VALUE},
	    {"unit", required_argument, NULL, O_UNIT},
	    {"time", required_argument, NULL, O_TIME},
	    {"mantissa", required_argument, NULL, O_MANT},
	    {"exponent", required_argument, NULL, O_EXP},
	    {"to", required_argument, NULL, O_TO},
	    {"wait", no_argument, NULL, O_WAIT},
	    {"timeout", required_argument, NULL, O_TIMEOUT},
	    {"hex", required_argument, NULL, O_HEX},
	    {"query", required_argument, NULL, O_QUERY},
	    {"help", no_argument, NULL, O_HELP},
	    {0},
	};
	int c;

	a->con = true;
	a->timeout = 5.0;
	a->api = "Ntwinplane.coap-tool";
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case O_PATH:
			a->path = optarg;
			break;
		case O_FROM:
			a->from = optarg;
			break;
		case O_RQI:
			a->rqi = optarg;
			break;
		case O_RVI:
			a->rvi = optarg;
			break;
		case O_TOKEN:
			a->token_hex = optarg;
			break;
		case O_PAYLOAD:
			a->payload = optarg;
			break;
		case O_AE:
			a->ae = optarg;
			break;
		case O_API:
			a->api = optarg;
			break;
		case O_CNT:
			a->cnt = optarg;
			break;
		case O_CIN:
			a->cin = optarg;
			break;
		case O_CNF:
			a->cnf = optarg;
			break;
		case O_VALUE:
			a->value = optarg;
			break;
		case O_UNIT:
			a->unit = optarg;
			break;
		case O_TIME:
			a->time = optarg;
			break;
		case O_MANT:
			a->mantissa = optarg;
			break;
		case O_EXP:
			a->exponent = optarg;
			break;
		case O_TO:
			a->to = optarg;
			break;
		case O_HEX:
			a->hex = optarg;
			break;
		case O_QUERY:
			a->query = optarg;
			break;
		case O_WAIT:
			a->wait = true;
			break;
		case O_TY:
			if (!parse_ulong(optarg, UINT16_MAX, &a->ty))
				goto bad;
			break;
		case O_MID:
			if (!parse_ulong(optarg, UINT16_MAX, &a->mid))
				goto bad;
			a->have_mid = true;
			break;
		case O_CF:
			if (!parse_ulong(optarg, UINT16_MAX, &a->cf))
				goto bad;
			break;
		case O_MNI:
			if (!parse_ulong(optarg, UINT32_MAX, &a->mni))
				goto bad;
			break;
		case O_TYPE:
			if (strcmp(optarg, "con") == 0 || strcmp(optarg, "CON") == 0)
				a->con = true;
			else if (strcmp(optarg, "non") == 0 || strcmp(optarg, "NON") == 0)
				a->con = false;
			else
				goto bad;
			break;
		case O_TIMEOUT: {
			char *end;
			a->timeout = strtod(optarg, &end);
			if (*end != '\0' || a->timeout <= 0)
				goto bad;
			break;
		}
		case O_HELP:
			usage(stdout);
			exit(EXIT_2XX);
		default:
			usage(stderr);
			return -1;
		}
	}
	return 0;
bad:
	fprintf(stderr, "coap-tool: bad value for --%s: %s\n", lo[c - O_PATH].name, optarg);
	return -1;
}

/* The request body chosen by the BODY options, built by the oneM2M codec. */
static int build_body(const struct args *a, char *body, size_t cap)
{
	int given = !!a->payload + !!a->ae + !!a->cnt + !!a->cin + !!a->value + !!a->mantissa;

	if (given > 1) {
		fprintf(
		    stderr,
		    "coap-tool: give one of --payload, --ae, --cnt, --cin, --value, --mantissa\n");
		return -TP_COAP_E_INVAL;
	}
	if (a->payload != NULL) {
		if (strlen(a->payload) >= cap)
			return -TP_COAP_E_NOSPC;
		strcpy(body, a->payload);
		return (int)strlen(body);
	}
	if (a->ae != NULL)
		return tp_m2m_ae_json(body, cap, a->ae, a->api);
	if (a->cnt != NULL)
		return tp_m2m_cnt_json(body, cap, a->cnt, (uint32_t)a->mni);
	if (a->cin != NULL)
		return tp_m2m_cin_json(body, cap, a->cnf, a->cin);
	if (a->value != NULL || a->mantissa != NULL) {
		char num[64];
		struct tp_m2m_measure m = {.value = a->value, .unit = a->unit, .time = a->time};
		if (a->mantissa != NULL) {
			char *e1, *e2;
			long mant = strtol(a->mantissa, &e1, 0);
			long ex = strtol(a->exponent != NULL ? a->exponent : "0", &e2, 0);
			if (*e1 != '\0' || *e2 != '\0' || mant < INT32_MIN || mant > INT32_MAX ||
			    ex < INT8_MIN || ex > INT8_MAX)
				return -TP_COAP_E_INVAL;
			int rc = tp_m2m_decimal(num, sizeof(num), (int32_t)mant, (int8_t)ex);
			if (rc < 0)
				return rc;
			m.value = num;
		}
		return tp_m2m_cin_measure_json(body, cap, &m);
	}
	body[0] = '\0';
	return 0;
}

static void random_bytes(void *p, size_t n)
{
	if (getrandom(p, n, 0) != (ssize_t)n) {
		uint8_t *b = p;
		srand((unsigned int)(time(NULL) ^ getpid()));
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rand();
	}
}

static int cmd_create(const struct args *a)
{
	static uint8_t msg[MSG_MAX];
	static char body[BODY_MAX];
	uint8_t token[TP_COAP_TOKEN_MAX];
	long tkl = 4;
	uint16_t mid;

	if (a->path == NULL || a->from == NULL || a->rqi == NULL || a->ty == 0) {
		fprintf(stderr, "coap-tool create: --path, --ty, --from and --rqi are required\n");
		return EXIT_USAGE;
	}
	random_bytes(token, sizeof(token));
	random_bytes(&mid, sizeof(mid));
	if (a->have_mid)
		mid = (uint16_t)a->mid;
	if (a->token_hex != NULL) {
		tkl = tp_hex_decode(a->token_hex, token, sizeof(token), NULL);
		if (tkl < 0) {
			fprintf(stderr, "coap-tool: --token: 0-8 bytes of hex\n");
			return EXIT_USAGE;
		}
	}
	int blen = build_body(a, body, sizeof(body));
	if (blen < 0) {
		fprintf(stderr, "coap-tool: body: %s\n", tp_coap_strerror(blen));
		return EXIT_USAGE;
	}
	struct tp_m2m_create r = {
	    .type = a->con ? TP_COAP_CON : TP_COAP_NON,
	    .mid = mid,
	    .token = token,
	    .tkl = (uint8_t)tkl,
	    .path = a->path,
	    .query = a->query,
	    .ty = (uint16_t)a->ty,
	    .from = a->from,
	    .rqi = a->rqi,
	    .rvi = a->rvi,
	    .cf = (uint16_t)a->cf,
	    .payload = body,
	    .payload_len = (size_t)blen,
	};
	int n = tp_m2m_create_req(msg, sizeof(msg), &r);
	if (n < 0) {
		fprintf(stderr, "coap-tool: encode: %s\n", tp_coap_strerror(n));
		return EXIT_USAGE;
	}
	if (a->to == NULL) {
		print_hex(stdout, msg, (size_t)n);
		printf("\n");
		return EXIT_2XX;
	}
	return exchange(a->to, msg, (size_t)n, a->wait, a->timeout);
}

int main(int argc, char **argv)
{
	static uint8_t raw[MSG_MAX];
	struct args a = {0};

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_2XX;
	}
	if (parse_args(argc - 1, argv + 1, &a) < 0)
		return EXIT_USAGE;
	if (strcmp(cmd, "create") == 0)
		return cmd_create(&a);
	if (strcmp(cmd, "send") == 0 || strcmp(cmd, "decode") == 0) {
		const char *hex = a.hex;
		if (strcmp(cmd, "decode") == 0 && optind + 1 < argc)
			hex = argv[optind + 1];
		long n = hex != NULL ? tp_hex_decode(hex, raw, sizeof(raw), NULL) : -1;
		if (n < 0) {
			fprintf(stderr, "coap-tool %s: hex bytes required\n", cmd);
			return EXIT_USAGE;
		}
		if (strcmp(cmd, "decode") == 0)
			return print_decoded(raw, (size_t)n);
		if (a.to == NULL) {
			fprintf(stderr, "coap-tool send: --to required\n");
			return EXIT_USAGE;
		}
		return exchange(a.to, raw, (size_t)n, a.wait, a.timeout);
	}
	fprintf(stderr, "coap-tool: unknown command %s\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
