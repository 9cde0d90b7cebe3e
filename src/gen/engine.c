/* SPDX-License-Identifier: BSD-3-Clause */
/* Generator engine: ports, streams, pacing, receive accounting. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "../core/ethdev.h"
#include "../proto/coap.h"
#include "../proto/ip4.h"
#include "../proto/udp.h"
#include "engine.h"
#include "ndn_producer.h"

#define FRAME_CACHE_BYTES (16u << 20) /* prebuilt frames per stream, at most */

struct gen_engine gen;

int gen_engine_init(unsigned int nb_mbufs)
{
	gen.tsc_hz = rte_get_tsc_hz();
	gen.pool = rte_pktmbuf_pool_create("gen_pool", nb_mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					   SOCKET_ID_ANY);
	return gen.pool ? 0 : -rte_errno;
}

void gen_engine_fini(void)
{
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++)
		if (gen.streams[i].used)
			gen_stream_del(gen.streams[i].name);
	/* stop them all, then close the last added first: a memif client and its server
	 * in this one process must not see their peer vanish while they are open */
	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++)
		if (gen.ports[i].used)
			rte_eth_dev_stop(gen.ports[i].id);
	for (unsigned int i = TP_GEN_MAX_PORTS; i-- > 0;) {
		if (!gen.ports[i].used)
			continue;
		tp_ethdev_close(gen.ports[i].id);
		/* a memif peer in this process learns of the close on the EAL interrupt
		 * thread: let it handle that before its own port is freed under it (a
		 * rare crash at exit in CI without this pause) */
		rte_delay_us_sleep(100 * 1000);
	}
	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++) {
		gen_ndn_producer_free(gen.ports[i].ndn);
		gen.ports[i].ndn = NULL;
	}
}

struct gen_port *gen_port_find(const char *name, unsigned int *idx)
{
	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++) {
		if (gen.ports[i].used && strcmp(gen.ports[i].name, name) == 0) {
			if (idx)
				*idx = i;
			return &gen.ports[i];
		}
	}
	return NULL;
}

int gen_port_add(const char *name, const char *devargs, uint16_t rxd, uint16_t txd, uint16_t rxq,
		 bool coap_sink, double ack_delay_us, struct gen_ndn_producer *ndn, char *err,
		 size_t errlen)
{
	struct gen_port *p = NULL;
	struct rte_eth_link link;
	struct rte_ether_addr mac;
	int ret;

	if (strlen(name) == 0 || strlen(name) >= sizeof(p->name)) {
		snprintf(err, errlen, "bad port name '%s'", name);
		return -EINVAL;
	}
	if (gen_port_find(name, NULL)) {
		snprintf(err, errlen, "port '%s' exists", name);
		return -EEXIST;
	}
	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS && p == NULL; i++)
		if (!gen.ports[i].used)
			p = &gen.ports[i];
	if (p == NULL) {
		snprintf(err, errlen, "at most %d ports", TP_GEN_MAX_PORTS);
		return -ENOSPC;
	}
	memset(p, 0, sizeof(*p));
	p->nb_rxd = rxd ? rxd : 1024;
	p->nb_txd = txd ? txd : 1024;
	p->nb_rxq = rxq ? rxq : 1;
	ret = tp_ethdev_probe(devargs, &p->id, err, errlen);
	if (ret < 0)
		return ret;
	uint16_t nb_txq = 1;
	ret = tp_ethdev_configure(p->id, p->nb_rxq, &nb_txq, &p->nb_rxd, &p->nb_txd, &p->mtu, err,
				  errlen);
	if (ret == 0)
		ret = tp_ethdev_start(p->id, p->nb_rxq, 1, p->nb_rxd, p->nb_txd, gen.pool, err,
				      errlen);
	if (ret < 0) {
		tp_ethdev_close(p->id);
		return ret;
	}
	rte_eth_promiscuous_enable(p->id);
	p->speed_bps = 10000000000ull;
	if (rte_eth_link_get_nowait(p->id, &link) == 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		p->speed_bps = (uint64_t)link.link_speed * 1000000ull;
	if (rte_eth_macaddr_get(p->id, &mac) == 0)
		memcpy(p->mac, mac.addr_bytes, 6);
	p->coap_sink = coap_sink;
	p->ndn = ndn;
	p->ack_delay_tsc = (uint64_t)(ack_delay_us * (double)gen.tsc_hz / 1e6);
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->devargs, sizeof(p->devargs), "%s", devargs);
	p->used = true;
	return 0;
}

struct gen_stream *gen_stream_find(const char *name)
{
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++)
		if (gen.streams[i].used && strcmp(gen.streams[i].name, name) == 0)
			return &gen.streams[i];
	return NULL;
}

int gen_stream_build(struct gen_stream *s, uint32_t max_bytes)
{
	uint32_t v = s->tmpl->variants(s->state);
	uint32_t cap = max_bytes / s->frame_len ? max_bytes / s->frame_len : 1;

	s->n_frames = v < cap ? v : cap;
	if (s->n_frames == 0)
		s->n_frames = 1;
	s->frames = malloc((size_t)s->n_frames * s->frame_len);
	if (s->frames == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_frames; i++)
		s->tmpl->build(s->state, i, s->frames + (size_t)i * s->frame_len, s->frame_len);
	return 0;
}

int gen_stream_add(const char *name, unsigned int port, const char *tmpl, uint32_t wire_size,
		   int argc, char **argv, char *err, size_t errlen)
{
	const struct tp_gen_template *t = tp_gen_template_find(tmpl);
	struct gen_stream *s = NULL;
	int ret;

	if (t == NULL) {
		snprintf(err, errlen, "unknown template '%s'", tmpl);
		return -EINVAL;
	}
	if (strlen(name) == 0 || strlen(name) >= sizeof(s->name) || strchr(name, ',')) {
		snprintf(err, errlen, "bad stream name '%s'", name);
		return -EINVAL;
	}
	if (gen_stream_find(name)) {
		snprintf(err, errlen, "stream '%s' exists", name);
		return -EEXIST;
	}
	if (wire_size < 64 || wire_size > 9018) {
		snprintf(err, errlen, "size %u: frames are 64 to 9018 bytes (with FCS)", wire_size);
		return -EINVAL;
	}
	/* every frame is sent from one mbuf of the pool (the pcap mode has none: any size) */
	if (gen.pool != NULL &&
	    wire_size - 4 > (uint32_t)rte_pktmbuf_data_room_size(gen.pool) - RTE_PKTMBUF_HEADROOM) {
		snprintf(err, errlen,
			 "size %u: larger than the generator's mbufs (%u bytes with FCS at most: "
			 "it sends a frame from one mbuf)",
			 wire_size,
			 (uint32_t)rte_pktmbuf_data_room_size(gen.pool) - RTE_PKTMBUF_HEADROOM + 4);
		return -EMSGSIZE;
	}
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS && s == NULL; i++)
		if (!gen.streams[i].used)
			s = &gen.streams[i];
	if (s == NULL) {
		snprintf(err, errlen, "at most %d streams", TP_GEN_MAX_STREAMS);
		return -ENOSPC;
	}
	memset(s, 0, sizeof(*s));
	s->id = (uint16_t)(s - gen.streams);
	s->port = (uint16_t)port;
	s->tmpl = t;
	s->frame_len = wire_size - 4;
	s->state = t->parse(argc, argv, s->frame_len, err, errlen);
	if (s->state == NULL)
		return -EINVAL;
	if (t->frame_len) {
		/* the template chose the length (its frames are at least size - 4 bytes) */
		s->frame_len = t->frame_len(s->state);
		if (gen.pool != NULL &&
		    s->frame_len >
			(uint32_t)rte_pktmbuf_data_room_size(gen.pool) - RTE_PKTMBUF_HEADROOM) {
			snprintf(err, errlen,
				 "frames of %u bytes with FCS: larger than the generator's mbufs "
				 "(%u bytes with FCS at most)",
				 s->frame_len + 4,
				 (uint32_t)rte_pktmbuf_data_room_size(gen.pool) -
				     RTE_PKTMBUF_HEADROOM + 4);
			ret = -EMSGSIZE;
			goto free_state;
		}
	}
	s->sig_off = t->sig_offset ? t->sig_offset(s->state) : s->frame_len - TP_GEN_SIG_LEN;
	ret = gen_stream_build(s, FRAME_CACHE_BYTES);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory for the stream's frames");
		goto free_state;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	tp_rxstats_reset(&s->rx);
	s->used = true;
	return 0;
free_state:
	t->free(s->state);
	return ret;
}

int gen_stream_del(const char *name)
{
	struct gen_stream *s = gen_stream_find(name);

	if (s == NULL)
		return -ENOENT;
	s->used = false;
	s->tmpl->free(s->state);
	free(s->frames);
	s->frames = NULL;
	return 0;
}

void gen_stream_frame(struct gen_stream *s, uint8_t *buf, uint8_t trial, uint64_t tsc)
{
	struct tp_gen_sig sig = tp_gen_sig_make(trial, (uint8_t)s->id, s->seq, tsc);

	memcpy(buf, s->frames + (size_t)s->next_frame * s->frame_len, s->frame_len);
	if (s->tmpl->update)
		s->tmpl->update(s->state, s->id, s->life_frames, buf, s->frame_len);
	memcpy(buf + s->sig_off, &sig, sizeof(sig));
	if (s->tmpl->finish)
		s->tmpl->finish(s->state, buf, s->frame_len, s->sig_off);
	if (++s->next_frame == s->n_frames)
		s->next_frame = 0;
	s->seq++;
	s->life_frames++;
}

/* --- worker --- */

/* An answer to a request stream (rx_decode): a Data is the request's round trip,
 * a Nack is counted by reason. Returns 1 when one of the trial's templates knew
 * the frame. */
static int rx_answer(struct rte_mbuf *m, const struct gen_trial *t, uint64_t now, uint64_t ns_mult)
{
	static uint8_t flat[RTE_MBUF_DEFAULT_BUF_SIZE * 5]; /* the worker's: a chained frame */
	const uint8_t *frame;
	struct tp_gen_rx rx;
	unsigned int k;

	if (m->pkt_len > sizeof(flat))
		return 0;
	frame = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
	for (k = 0; k < t->n_rx_tmpl; k++)
		if (t->rx_tmpl[k]->rx_decode(frame, m->pkt_len, &rx))
			break;
	if (k == t->n_rx_tmpl)
		return 0;
	if (rx.sig.magic != TP_GEN_SIG_MAGIC || rx.sig.trial != t->gen ||
	    rx.sig.stream >= TP_GEN_MAX_STREAMS || !gen.streams[rx.sig.stream].used) {
		gen.rx_stray++;
		return 1;
	}
	struct gen_stream *s = &gen.streams[rx.sig.stream];
	if (rx.kind == TP_GEN_RX_NACK) {
		s->nacks[rx.nack < TP_GEN_NACK_N ? rx.nack : TP_GEN_NACK_OTHER]++;
		return 1;
	}
	tp_rxstats_seq(&s->rx, rx.sig.seq);
	tp_rxstats_latency(&s->rx, (tp_gen_sig_age(&rx.sig, now) * ns_mult) >> 32);
	return 1;
}

/* Account one received frame to its stream; returns 1 when it was a frame of
 * this trial's streams (an answer, or a frame carrying our signature). */
static inline int rx_account(struct rte_mbuf *m, uint8_t trial, uint64_t now, uint64_t ns_mult)
{
	struct tp_gen_sig sig;
	const struct tp_gen_sig *p;

	if (gen.trial.n_rx_tmpl && rx_answer(m, &gen.trial, now, ns_mult))
		return 1;
	if (m->pkt_len < TP_GEN_SIG_LEN) {
		gen.rx_stray++;
		return 0;
	}
	p = rte_pktmbuf_read(m, m->pkt_len - TP_GEN_SIG_LEN, sizeof(sig), &sig);
	if (p == NULL || p->magic != TP_GEN_SIG_MAGIC || p->trial != trial ||
	    p->stream >= TP_GEN_MAX_STREAMS || !gen.streams[p->stream].used) {
		gen.rx_stray++;
		return 0;
	}
	struct tp_rxstats *st = &gen.streams[p->stream].rx;
	tp_rxstats_seq(st, p->seq);
	tp_rxstats_latency(st, (tp_gen_sig_age(p, now) * ns_mult) >> 32);
	return 1;
}

/* A CoAP sink port's frame: UDP to port 5683 holding a CoAP request. A
 * confirmable one becomes its ACK (2.01 Created, same message id and token),
 * sent back where it came from; returns 1 when m was consumed that way. */
static int coap_sink(struct gen_port *p, struct rte_mbuf *m, bool count)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *), *ip = eth + TP_ETH_HDR_LEN, tmp[6];
	uint32_t len = rte_pktmbuf_data_len(m);

	if (len < TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + 8 + 4 || eth[12] != 0x08 || eth[13] != 0x00 ||
	    ip[0] != 0x45 || ip[9] != 17)
		return 0;
	uint8_t *udp = ip + TP_IP4_HDR_LEN, *coap = udp + TP_UDP_HDR_LEN;
	struct tp_udp_view uv;
	int plen = tp_udp_read(udp, len - TP_ETH_HDR_LEN - TP_IP4_HDR_LEN, &uv);
	if (plen < 4 || uv.dport != 5683)
		return 0;
	struct tp_coap_msg req;
	if (tp_coap_decode(coap, (size_t)plen, &req) < 0)
		return 0;
	if (req.type == TP_COAP_NON) {
		p->rx_coap_non += count;
		return 0;
	}
	if (req.type != TP_COAP_CON)
		return 0;
	p->rx_coap_con += count;
	struct tp_coap_msg ack = {
	    .type = TP_COAP_ACK, .code = TP_COAP_CODE(2, 1), .mid = req.mid, .tkl = req.tkl};
	memcpy(ack.token, req.token, req.tkl);
	int n = tp_coap_encode(coap, 64, &ack);
	if (n < 0)
		return 0;
	uint32_t src, dst;
	memcpy(tmp, eth, 6);
	memcpy(eth, eth + 6, 6);
	memcpy(eth + 6, tmp, 6);
	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	tp_ip4_write(ip, dst, src, 17, 64, (uint16_t)(TP_UDP_HDR_LEN + n), 0);
	tp_udp_write(udp, uv.dport, uv.sport, (uint16_t)n); /* back where it came from */
	m->data_len = m->pkt_len = (uint32_t)(TP_ETH_HDR_LEN + TP_IP4_HDR_LEN + 8 + n);
	if (p->ack_delay_tsc == 0) {
		if (rte_eth_tx_burst(p->id, 0, &m, 1) == 1)
			p->coap_acked += count;
		else
			rte_pktmbuf_free(m);
		return 1;
	}
	if (p->ackq_tail - p->ackq_head == TP_GEN_ACKQ) {
		rte_pktmbuf_free(m); /* the server is saturated: no answer */
		return 1;
	}
	p->ackq[p->ackq_tail % TP_GEN_ACKQ] = m;
	p->ackq_due[p->ackq_tail % TP_GEN_ACKQ] = rte_rdtsc() + p->ack_delay_tsc;
	p->ackq_tail++;
	return 1;
}

/* Send the delayed ACKs whose time has come. */
static void coap_sink_due(struct gen_port *p, bool count)
{
	uint64_t now = rte_rdtsc();

	while (p->ackq_head != p->ackq_tail && p->ackq_due[p->ackq_head % TP_GEN_ACKQ] <= now) {
		struct rte_mbuf *m = p->ackq[p->ackq_head % TP_GEN_ACKQ];
		if (rte_eth_tx_burst(p->id, 0, &m, 1) != 1)
			break; /* the wire is full: next time */
		p->coap_acked += count;
		p->ackq_head++;
	}
}

static unsigned int poll_rx(uint8_t trial, bool count, uint64_t ns_mult)
{
	struct rte_mbuf *pkts[64];
	unsigned int total = 0;

	for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++) {
		struct gen_port *p = &gen.ports[i];
		if (!p->used)
			continue;
		if (p->ackq_head != p->ackq_tail)
			coap_sink_due(p, count);
		uint16_t n = 0;
		/* every queue in turn, from the one after the last that had frames */
		for (uint16_t k = 0; n == 0 && k < p->nb_rxq; k++) {
			uint16_t q = (uint16_t)((p->rxq_turn + k) % p->nb_rxq);
			n = rte_eth_rx_burst(p->id, q, pkts, RTE_DIM(pkts));
			if (n)
				p->rxq_turn = (uint16_t)(q + 1);
		}
		if (n == 0)
			continue;
		total += n;
		p->rx += count ? n : 0;
		if (p->coap_sink) {
			uint16_t kept = 0;
			for (uint16_t k = 0; k < n; k++)
				if (!coap_sink(p, pkts[k], count))
					pkts[kept++] = pkts[k];
			n = kept;
		} else if (p->ndn) {
			n = gen_ndn_produce(p, pkts, n, count);
		}
		if (count) {
			uint64_t now = rte_rdtsc();
			for (uint16_t k = 0; k < n; k++)
				p->rx_tagged += (uint64_t)rx_account(pkts[k], trial, now, ns_mult);
		}
		rte_pktmbuf_free_bulk(pkts, n);
	}
	return total;
}

/* Send one burst of up to n frames of stream s; returns frames offered. */
static unsigned int send_burst(struct gen_stream *s, unsigned int n, uint8_t trial)
{
	struct rte_mbuf *pkts[TP_GEN_BURST_MAX];
	uint16_t port = gen.ports[s->port].id;

	if (rte_pktmbuf_alloc_bulk(gen.pool, pkts, n) != 0) {
		s->tx_nombuf += n;
		return 0;
	}
	uint64_t tsc = rte_rdtsc();
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
		gen_stream_frame(s, buf, trial, tsc);
		m->data_len = (uint16_t)s->frame_len;
		m->pkt_len = s->frame_len;
	}
	uint16_t sent = rte_eth_tx_burst(port, 0, pkts, (uint16_t)n);
	s->tx += sent;
	if (sent < n) {
		/* the wire (or the DUT's ring) refused them: offered, and lost */
		s->tx_full += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	return n;
}

/* The thread's CPU time against the TSC at a mark: how long it was off its CPU since.
 * A system call (CLOCK_THREAD_CPUTIME_ID has no vDSO path), made every GEN_MARK_US
 * and after a gap, never per frame or per pass. */
struct gen_cpu_mark {
	uint64_t tsc;
	uint64_t cpu_ns;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void gen_cpu_mark(struct gen_cpu_mark *m, uint64_t tsc)
{
	m->tsc = tsc;
	m->cpu_ns = thread_cpu_ns();
}

/* TSC cycles since the mark that the thread did not run */
static uint64_t gen_cpu_off(const struct gen_cpu_mark *m, uint64_t now)
{
	uint64_t cpu = thread_cpu_ns();
	double ran = (double)(cpu > m->cpu_ns ? cpu - m->cpu_ns : 0) * (double)gen.tsc_hz / 1e9;
	double wall = (double)(now - m->tsc);

	return wall > ran ? (uint64_t)(wall - ran) : 0;
}

/* Offer count frames at rate, over the trial's streams in proportion to their
 * weights (each burst to the stream furthest behind its share). */
static void paced_send(struct gen_trial *t, uint64_t count, uint64_t ns_mult, bool measure)
{
	double tpp = (double)gen.tsc_hz / t->rate_pps; /* TSC cycles per frame */
	double share[TP_GEN_MAX_STREAMS] = {0};
	uint64_t start = rte_rdtsc(), sent = 0, last = start;
	/* A pass of this loop takes microseconds. After a gap of more than GEN_STALL_US
	 * between two passes, the thread's CPU time tells whether it lost its CPU (a
	 * neighbour ran) or was busy (a transmit system call doing the kernel's work, as
	 * AF_XDP's is): only time off the CPU pauses the schedule. The frames due during a
	 * pause are not sent as one burst when the thread returns (a wire never carries
	 * more than its rate, and such a burst overflows any DUT's ring); the schedule
	 * moves on by the time lost, which is counted. A generator merely too slow for
	 * the rate is never paused: it falls behind, and its offered rate shows it.
	 * Behind its schedule, it catches up at GEN_CATCHUP times the rate at most: a gap
	 * the thread's CPU time does not show (the host held its vCPU; the guest's clock
	 * counts that as running) used to end in one burst of every frame due meanwhile
	 * at the generator's top speed (at 500k/s, 10 ms of it overflowed the 4096-slot
	 * ring into an idle DUT). Where twice the rate is above its top speed, as near
	 * the ceilings it is searched at, this changes nothing. */
	const uint64_t stall = gen.tsc_hz / 1000000 * GEN_STALL_US;
	const uint64_t window = gen.tsc_hz / 1000000 * GEN_MARK_US;
	const double pace = tpp / GEN_CATCHUP; /* TSC cycles per frame, catching up */
	uint64_t next_ok = start;
	struct gen_cpu_mark mark;

	gen_cpu_mark(&mark, start);
	if (measure) {
		t->paused_tsc = 0;
		t->pauses = 0;
		t->held = 0;
		t->lag_max_tsc = 0;
	}
	while (sent < count && gen.running) {
		if (unlikely(gen.spin_us)) {
			uint32_t us = gen.spin_us;
			gen.spin_us = 0;
			rte_delay_us_block(us);
		}
		uint64_t now = rte_rdtsc();
		if (unlikely(now - last > stall)) {
			uint64_t off = gen_cpu_off(&mark, now);
			if (off > stall) {
				start += off;
				if (measure) {
					t->paused_tsc += off;
					t->pauses++;
				}
			}
			gen_cpu_mark(&mark, now);
		} else if (unlikely(now - mark.tsc > window)) {
			/* the window over which time off the CPU is measured stays short */
			gen_cpu_mark(&mark, now);
		}
		last = now;
		uint64_t due = start + (uint64_t)((double)sent * tpp);
		if (now >= due && now >= next_ok) {
			unsigned int n = t->burst, pick = 0;
			double best = -1;
			if (measure && unlikely(due < next_ok))
				t->held++; /* due before the catch-up pace let it go */
			if (measure && now - due > t->lag_max_tsc)
				t->lag_max_tsc = now - due;
			if (n > count - sent)
				n = (unsigned int)(count - sent);
			for (unsigned int id = 0; id < TP_GEN_MAX_STREAMS; id++) {
				if (!(t->streams & (1ull << id)))
					continue;
				if (best < 0 || share[id] < best) {
					best = share[id];
					pick = id;
				}
			}
			send_burst(&gen.streams[pick], n, t->gen);
			share[pick] += (double)n / t->weight[pick];
			sent += n;
			next_ok = now + (uint64_t)((double)n * pace);
		}
		poll_rx(t->gen, measure, ns_mult);
	}
	if (measure)
		t->sent = sent;
}

int gen_worker_main(void *arg)
{
	uint64_t ns_mult = (uint64_t)((1e9 * 4294967296.0) / (double)gen.tsc_hz);
	struct gen_trial *t = &gen.trial;

	while (gen.running) {
		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != TRIAL_ARMED) {
			/* idle: keep the ports drained, count nothing */
			if (poll_rx(t->gen, false, ns_mult) == 0)
				rte_delay_us_sleep(50);
			continue;
		}
		if (t->warmup_count) {
			__atomic_store_n(&t->state, TRIAL_WARMUP, __ATOMIC_RELEASE);
			t->gen++; /* the warm-up's frames are not the trial's */
			paced_send(t, t->warmup_count, ns_mult, false);
			uint64_t until = rte_rdtsc() + t->drain_tsc;
			while (rte_rdtsc() < until)
				poll_rx(t->gen, false, ns_mult);
		}
		t->gen++;
		for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++) {
			struct gen_stream *s = &gen.streams[i];
			if (!(t->streams & (1ull << i)))
				continue;
			s->tx = s->tx_full = s->tx_nombuf = 0;
			s->seq = 0;
			tp_rxstats_reset(&s->rx);
			memset(s->nacks, 0, sizeof(s->nacks));
		}
		gen.rx_stray = 0;
		for (unsigned int i = 0; i < TP_GEN_MAX_PORTS; i++) {
			gen.ports[i].rx = gen.ports[i].rx_tagged = gen.ports[i].rx_coap_non =
			    gen.ports[i].rx_coap_con = gen.ports[i].coap_acked = 0;
			if (gen.ports[i].ndn)
				gen_ndn_producer_trial_reset(gen.ports[i].ndn);
		}
		__atomic_store_n(&t->state, TRIAL_RUN, __ATOMIC_RELEASE);
		t->start_tsc = rte_rdtsc();
		paced_send(t, t->count, ns_mult, true);
		t->end_tsc = rte_rdtsc();
		__atomic_store_n(&t->state, TRIAL_DRAIN, __ATOMIC_RELEASE);
		uint64_t until = t->end_tsc + t->drain_tsc;
		while (rte_rdtsc() < until && gen.running)
			poll_rx(t->gen, true, ns_mult);
		__atomic_store_n(&t->state, TRIAL_DONE, __ATOMIC_RELEASE);
	}
	return 0;
}

int gen_trial_start(uint64_t streams, const double *weight, double rate_pps, uint64_t count,
		    uint64_t warmup_count, uint32_t burst, double drain_s)
{
	struct gen_trial *t = &gen.trial;
	int st = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

	if (st != TRIAL_IDLE && st != TRIAL_DONE)
		return -EBUSY;
	t->streams = streams;
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++)
		t->weight[i] = weight && weight[i] > 0 ? weight[i] : 1.0;
	t->rate_pps = rate_pps;
	t->count = count;
	t->warmup_count = warmup_count;
	t->burst = burst;
	t->drain_tsc = (uint64_t)(drain_s * (double)gen.tsc_hz);
	t->n_rx_tmpl = 0;
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++) {
		const struct tp_gen_template *tm = gen.streams[i].tmpl;
		unsigned int k = 0;
		if (!(streams & (1ull << i)) || tm->rx_decode == NULL)
			continue;
		while (k < t->n_rx_tmpl && t->rx_tmpl[k] != tm)
			k++;
		if (k == t->n_rx_tmpl)
			t->rx_tmpl[t->n_rx_tmpl++] = tm;
	}
	__atomic_store_n(&t->state, TRIAL_ARMED, __ATOMIC_RELEASE);
	return 0;
}

int gen_trial_state(void)
{
	if (__atomic_load_n(&gen.trial.state, __ATOMIC_ACQUIRE) == TRIAL_DONE)
		return 0;
	return gen.running ? 1 : -EINTR;
}
