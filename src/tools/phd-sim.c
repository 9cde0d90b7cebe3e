/* SPDX-License-Identifier: BSD-3-Clause */
/* phd-sim: an ISO/IEEE 11073-20601 agent on a kernel UDP socket (one APDU per
 * datagram), for the demo and the functional tests. It lives a whole session:
 * associate, configure when the manager answers accepted-unknown-config,
 * confirmed scan reports at an interval with retransmission, release. Pulse
 * oximeter (10404, standard configuration 0x0190), activity monitor (10441) and
 * medication monitor (10472) with extended configurations. Prints one JSON
 * summary line. Built from the project's one MDER codec. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../proto/mder.h"
#include "../proto/phd_devices.h"
#include "../proto/phd_nomenclature.h"

static int sock;
static struct sockaddr_in gw;
static unsigned int timeout_ms = 500, tries = 4;
static unsigned long retransmissions, acked;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int send_apdu(const struct tp_phd_apdu *a)
{
	uint8_t buf[2048];
	int n = tp_phd_encode_apdu(a, buf, sizeof(buf));
	if (n < 0) {
		fprintf(stderr, "phd-sim: encode: %s\n", tp_phd_strerror(n));
		return n;
	}
	return sendto(sock, buf, (size_t)n, 0, (struct sockaddr *)&gw, sizeof(gw)) < 0 ? -errno : 0;
}

/* Send a and wait for an answer that match() accepts; retransmit on timeout. */
static int exchange(const struct tp_phd_apdu *a,
		    int (*match)(const struct tp_phd_apdu *, const void *), const void *arg,
		    struct tp_phd_apdu *out, uint8_t *rx, size_t rxlen)
{
	for (unsigned int t = 0; t < tries; t++) {
		if (t)
			retransmissions++;
		if (send_apdu(a) < 0)
			return -EIO;
		uint64_t until = now_ms() + timeout_ms;
		while (now_ms() < until) {
			struct pollfd p = {sock, POLLIN, 0};
			if (poll(&p, 1, (int)(until - now_ms())) <= 0)
				break;
			ssize_t n = recv(sock, rx, rxlen, 0);
			struct tp_phd_error err;
			if (n > 0 && tp_phd_decode_apdu(rx, (size_t)n, out, &err) == 0 &&
			    match(out, arg))
				return 0;
		}
	}
	return -ETIMEDOUT;
}

static int is_type(const struct tp_phd_apdu *a, const void *type)
{
	return a->type == *(const uint16_t *)type;
}

static int is_rsp(const struct tp_phd_apdu *a, const void *invoke)
{
	return a->type == TP_PHD_PRST && a->u.prst.choice == TP_PHD_RORS_CONF_EVENT_REPORT &&
	       a->u.prst.invoke_id == *(const uint16_t *)invoke;
}

/* Association flood: n agents (sysid + i), each its own socket, AARQ only, never
 * released. Prints how many the manager accepted and rejected. */
static int run_flood(const struct tp_phd_device *d, const uint8_t sysid[8], unsigned long n)
{
	unsigned long accepted = 0, rejected = 0, silent = 0;
	uint8_t rx[2048];

	for (unsigned long i = 0; i < n; i++) {
		uint8_t id[8];
		struct tp_phd_apdu a = {.type = TP_PHD_AARQ}, r;
		uint16_t want = TP_PHD_AARE;
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		memcpy(id, sysid, 8);
		id[6] = (uint8_t)(i >> 8);
		id[7] = (uint8_t)i;
		tp_phd_device_aarq(d, id, &a);
		sock = s; /* exchange() uses it; each agent keeps its own port open */
		if (exchange(&a, is_type, &want, &r, rx, sizeof(rx)) < 0)
			silent++;
		else if (r.u.aare.result == TP_PHD_ACCEPTED ||
			 r.u.aare.result == TP_PHD_ACCEPTED_UNKNOWN_CONFIG)
			accepted++;
		else
			rejected++;
	}
	printf("{\"flood\":%lu,\"accepted\":%lu,\"rejected\":%lu,\"unanswered\":%lu}\n", n,
	       accepted, rejected, silent);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"type", required_argument, NULL, 't'},
	    {"gw", required_argument, NULL, 'g'},
	    {"sysid", required_argument, NULL, 's'},
	    {"reports", required_argument, NULL, 'n'},
	    {"interval", required_argument, NULL, 'i'},
	    {"bind", required_argument, NULL, 'b'},
	    {"timeout", required_argument, NULL, 'T'},
	    {"no-release", no_argument, NULL, 'R'},
	    {"unconfirmed", no_argument, NULL, 'u'},
	    {"port", required_argument, NULL, 'p'},
	    {"no-associate", no_argument, NULL, 'A'},
	    {"flood", required_argument, NULL, 'F'},
	    {0},
	};
	const struct tp_phd_device *d = &tp_phd_devices[0];
	unsigned long reports = 3, interval_ms = 200;
	uint8_t sysid[8] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
	struct sockaddr_in me = {.sin_family = AF_INET};
	int c, release = 1, confirmed = 1, associate = 1;
	unsigned long flood = 0;
	char gwaddr[64] = "127.0.0.1:6024";

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			d = tp_phd_device_find(optarg);
			if (d == NULL) {
				fprintf(stderr,
					"phd-sim: --type "
					"pulse-oximeter|activity-monitor|medication-monitor\n");
				return 2;
			}
			break;
		case 'g':
			snprintf(gwaddr, sizeof(gwaddr), "%s", optarg);
			break;
		case 's':
			if (strlen(optarg) != 16) {
				fprintf(stderr, "phd-sim: --sysid takes 16 hex digits\n");
				return 2;
			}
			for (int i = 0; i < 8; i++)
				if (sscanf(optarg + 2 * i, "%2hhx", &sysid[i]) != 1)
					return 2;
			break;
		case 'n':
			reports = strtoul(optarg, NULL, 10);
			break;
		case 'i':
			interval_ms = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			if (inet_pton(AF_INET, optarg, &me.sin_addr) != 1)
				return 2;
			break;
		case 'T':
			timeout_ms = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			release = 0;
			break;
		case 'u':
			confirmed = 0;
			break;
		case 'p':
			me.sin_port = htons((uint16_t)atoi(optarg));
			break;
		case 'A':
			associate = 0; /* reports from an agent the manager does not know */
			release = 0;
			confirmed = 0;
			break;
		case 'F':
			flood = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
				"usage: phd-sim --type T --gw A.B.C.D:PORT [--sysid HEX16] "
				"[--reports N] [--interval MS] [--bind ADDR] [--timeout MS] "
				"[--unconfirmed] [--no-release] [--port N] [--no-associate] "
				"[--flood N]\n");
			return 2;
		}
	}
	char *colon = strchr(gwaddr, ':');
	gw.sin_family = AF_INET;
	gw.sin_port = htons(colon ? (uint16_t)atoi(colon + 1) : 6024);
	if (colon)
		*colon = '\0';
	if (inet_pton(AF_INET, gwaddr, &gw.sin_addr) != 1) {
		fprintf(stderr, "phd-sim: bad --gw\n");
		return 2;
	}
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("phd-sim: socket");
		return 1;
	}

	uint8_t rx[2048], store[2048], info[2048];
	struct tp_phd_apdu a = {.type = TP_PHD_AARQ}, r;
	if (flood)
		return run_flood(d, sysid, flood);
	tp_phd_device_aarq(d, sysid, &a);
	uint16_t want = TP_PHD_AARE;
	const char *result = "ok";
	int configured = 0;
	uint16_t invoke = 0;

	if (!associate) {
		r.u.aare.result = TP_PHD_ACCEPTED; /* pretend: report as if associated */
	} else if (exchange(&a, is_type, &want, &r, rx, sizeof(rx)) < 0) {
		result = "no AARE";
		goto out;
	}
	if (r.u.aare.result == TP_PHD_ACCEPTED_UNKNOWN_CONFIG) {
		struct tp_phd_config_report cfg;
		if (tp_phd_device_config(d, &cfg, store, sizeof(store)) < 0) {
			result = "config encode";
			goto out;
		}
		int n = tp_phd_encode_config_report(&cfg, info, sizeof(info));
		struct tp_phd_apdu p = {.type = TP_PHD_PRST};
		p.u.prst.invoke_id = invoke;
		p.u.prst.choice = TP_PHD_ROIV_CONF_EVENT_REPORT;
		p.u.prst.u.evt.obj_handle = TP_PHD_HANDLE_MDS;
		p.u.prst.u.evt.time = TP_PHD_TIME_NONE;
		p.u.prst.u.evt.type = MDC_NOTI_CONFIG;
		p.u.prst.u.evt.info = (struct tp_phd_octets){info, (uint16_t)n};
		if (n < 0 || exchange(&p, is_rsp, &invoke, &r, rx, sizeof(rx)) < 0) {
			result = "configuration not answered";
			goto out;
		}
		invoke++;
		configured = 1;
	} else if (r.u.aare.result != TP_PHD_ACCEPTED) {
		result = tp_phd_assoc_result_name(r.u.aare.result);
		goto out;
	}

	/* the value map the reports follow: the standard one, or ours */
	struct tp_phd_value_map map;
	if (!configured && !associate && d->config_id != 0x0190) {
		struct tp_phd_config_report cfg;
		struct tp_phd_error err;
		tp_phd_device_config(d, &cfg, store, sizeof(store));
		tp_phd_value_map_build(&cfg, &map, &err);
	} else if (!configured) {
		if (tp_phd_std_value_map(d->config_id, &map) < 0) {
			result = "no standard configuration";
			goto out;
		}
	} else {
		struct tp_phd_config_report cfg;
		struct tp_phd_error err;
		tp_phd_device_config(d, &cfg, store, sizeof(store));
		tp_phd_value_map_build(&cfg, &map, &err);
	}
	double last[TP_PHD_MAX_CFG_OBJS] = {0};
	for (unsigned long i = 0; i < reports; i++) {
		struct tp_phd_scan_report s = {0};
		uint8_t obs[TP_PHD_MAX_CFG_OBJS][64];
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		s.event_type = MDC_NOTI_SCAN_REPORT_FIXED;
		s.data_req_id = TP_PHD_DATA_REQ_ID_AGENT_INIT;
		s.scan_report_no = (uint16_t)i;
		for (unsigned int k = 0; k < map.nobjs && s.nobs < TP_PHD_MAX_OBS; k++) {
			const struct tp_phd_obj_map *om = &map.obj[k];
			size_t off = 0;
			if (om->n == 0 || om->total_len > sizeof(obs[k]))
				continue;
			for (unsigned int e = 0; e < om->n; e++) {
				uint8_t *p = obs[k] + off;
				memset(p, 0, om->e[e].len);
				if (om->e[e].attr_id == MDC_ATTR_NU_VAL_OBS_BASIC &&
				    om->e[e].len == 2) {
					uint16_t raw;
					last[k] = tp_phd_device_reading(d, om->handle, i);
					tp_phd_sfloat_encode(last[k], &raw);
					p[0] = (uint8_t)(raw >> 8);
					p[1] = (uint8_t)raw;
				} else if (om->e[e].attr_id == MDC_ATTR_TIME_STAMP_ABS &&
					   om->e[e].len == 8) {
					struct tp_phd_abs_time at = {
					    (uint8_t)((tm.tm_year + 1900) / 100),
					    (uint8_t)((tm.tm_year + 1900) % 100),
					    (uint8_t)(tm.tm_mon + 1),
					    (uint8_t)tm.tm_mday,
					    (uint8_t)tm.tm_hour,
					    (uint8_t)tm.tm_min,
					    (uint8_t)(tm.tm_sec % 60),
					    0,
					    0};
					tp_phd_abs_time_encode(&at, p);
				}
				off += om->e[e].len;
			}
			s.obs[s.nobs++] = (struct tp_phd_observation){
			    .handle = om->handle, .data = {obs[k], (uint16_t)off}};
		}
		int n = tp_phd_encode_scan_report(&s, info, sizeof(info));
		struct tp_phd_apdu p = {.type = TP_PHD_PRST};
		p.u.prst.invoke_id = invoke;
		p.u.prst.choice =
		    confirmed ? TP_PHD_ROIV_CONF_EVENT_REPORT : TP_PHD_ROIV_EVENT_REPORT;
		p.u.prst.u.evt.obj_handle = TP_PHD_HANDLE_MDS;
		p.u.prst.u.evt.time = TP_PHD_TIME_NONE;
		p.u.prst.u.evt.type = MDC_NOTI_SCAN_REPORT_FIXED;
		p.u.prst.u.evt.info = (struct tp_phd_octets){info, (uint16_t)(n > 0 ? n : 0)};
		if (n < 0) {
			result = "scan report encode";
			goto out;
		}
		if (confirmed) {
			if (exchange(&p, is_rsp, &invoke, &r, rx, sizeof(rx)) == 0)
				acked++;
		} else {
			send_apdu(&p);
		}
		invoke++;
		if (i + 1 < reports)
			usleep((useconds_t)interval_ms * 1000);
	}
	if (release) {
		struct tp_phd_apdu rl = {.type = TP_PHD_RLRQ};
		want = TP_PHD_RLRE;
		rl.u.reason = 0; /* normal */
		if (exchange(&rl, is_type, &want, &r, rx, sizeof(rx)) < 0)
			result = "no RLRE";
	}
	printf("{\"device\":\"%s\",\"result\":\"%s\",\"configured\":%s,\"reports\":%lu,"
	       "\"acked\":%lu,\"retransmissions\":%lu,\"last\":[",
	       d->name, result, configured ? "true" : "false", reports, acked, retransmissions);
	for (unsigned int k = 0; k < map.nobjs; k++)
		printf("%s{\"handle\":%u,\"value\":%g}", k ? "," : "", map.obj[k].handle, last[k]);
	printf("]}\n");
	return strcmp(result, "ok") == 0 ? 0 : 1;
out:
	printf("{\"device\":\"%s\",\"result\":\"%s\",\"retransmissions\":%lu}\n", d->name, result,
	       retransmissions);
	return 1;
}
