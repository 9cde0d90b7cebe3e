/* SPDX-License-Identifier: BSD-3-Clause */
/* The generator engine: ports, streams, and the worker that paces transmission
 * and accounts what comes back.
 *
 * The control thread creates ports and streams while no trial runs, fills a
 * trial and arms it; the worker owns every stream's counters from then until it
 * marks the trial done (release/acquire on the trial state). */
#ifndef TP_GEN_ENGINE_H
#define TP_GEN_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "stats.h"
#include "template.h"

#define TP_GEN_MAX_PORTS 8
#define TP_GEN_MAX_STREAMS 64
#define TP_GEN_BURST_MAX 256
#define TP_GEN_ACKQ 4096 /* a power of two */

struct gen_ndn_producer; /* ndn_producer.h */

struct gen_port {
	char name[32];
	char devargs[256];
	uint16_t id;
	uint16_t nb_rxd, nb_txd, mtu;
	uint16_t nb_rxq; /* polled in turn (a memif peer with several rings) */
	uint16_t rxq_turn;
	uint8_t mac[6];
	uint64_t speed_bps; /* nominal line rate: the link speed, 10 Gbit/s if unknown */
	bool used;
	/* "sink coap": an IN-CSE stand-in for throughput runs. Confirmable CoAP
	 * requests (a gateway registering devices) get a 2.01 Created ACK at once;
	 * the rest is counted. Counters per trial (measured phase and drain). */
	bool coap_sink;
	uint64_t ack_delay_tsc; /* "delay-us N": answer N us after the request (a server's time) */
	uint64_t rx, rx_coap_non, rx_coap_con, coap_acked;
	uint64_t rx_tagged; /* of rx: frames of this trial's streams (signature or answer) */
	/* ACKs waiting for their time, oldest first */
	struct rte_mbuf *ackq[TP_GEN_ACKQ];
	uint64_t ackq_due[TP_GEN_ACKQ];
	unsigned int ackq_head, ackq_tail;
	/* "producer ndn": answers Interests with Data or Nacks (ndn_producer.c) */
	struct gen_ndn_producer *ndn;
};

struct gen_stream {
	char name[32];
	uint16_t id;
	uint16_t port; /* index into the engine's ports */
	const struct tp_gen_template *tmpl;
	void *state;
	uint32_t frame_len; /* without FCS */
	uint32_t sig_off;   /* where the signature goes in each frame */
	uint32_t n_frames;  /* prebuilt variants */
	uint8_t *frames;    /* n_frames * frame_len bytes */
	bool used;
	/* per trial, written by the worker */
	uint64_t tx, tx_full, tx_nombuf;
	uint32_t next_frame;
	uint32_t seq;
	uint64_t life_frames;	       /* frames built over the stream's life, never reset */
	struct tp_rxstats rx;	       /* answers (NDN: Data) and their round-trip times */
	uint64_t nacks[TP_GEN_NACK_N]; /* negative answers by reason (rx_decode templates) */
};

enum gen_trial_state { TRIAL_IDLE, TRIAL_ARMED, TRIAL_WARMUP, TRIAL_RUN, TRIAL_DRAIN, TRIAL_DONE };

struct gen_trial {
	/* set by the control thread before arming */
	uint64_t streams;		   /* bit mask of stream ids */
	double weight[TP_GEN_MAX_STREAMS]; /* share of the rate per stream (default equal) */
	double rate_pps;
	uint64_t count;
	uint64_t warmup_count;
	uint32_t burst;
	uint64_t drain_tsc;
	/* the templates of the trial's streams that decode answers (rx_decode) */
	const struct tp_gen_template *rx_tmpl[TP_GEN_MAX_STREAMS];
	unsigned int n_rx_tmpl;
	/* kept by the worker */
	volatile int state;
	uint8_t gen;
	uint64_t start_tsc, end_tsc;
	uint64_t paused_tsc; /* the worker lost its CPU: the schedule moved on (paced_send) */
	uint64_t pauses;
	/* bursts that went out later than due because of the catch-up pace (GEN_CATCHUP) */
	uint64_t held;
	uint64_t lag_max_tsc; /* the furthest behind its schedule a burst went out */
	uint64_t sent;	      /* offered in the measured phase */
};

/* a gap between two passes of the sending loop longer than this is a stall */
#define GEN_STALL_US 50
/* ... and the thread's CPU time is marked again after this long (a system call:
 * every 64 passes, as it was, cost the NDN consumer-producer loop a fifth of its
 * CPU; time off the CPU within the window is what a gap measures, however long) */
#define GEN_MARK_US 500
/* behind its schedule, the worker catches up at most this many times the trial's
 * rate: a gap the thread's CPU time does not show (the host held its vCPU) ends in
 * a catch-up at twice the rate, not in one burst of every frame due meanwhile */
#define GEN_CATCHUP 2.0

struct gen_engine {
	struct gen_port ports[TP_GEN_MAX_PORTS];
	struct gen_stream streams[TP_GEN_MAX_STREAMS];
	struct gen_trial trial;
	struct rte_mempool *pool;
	volatile bool running;
	unsigned int worker_lcore;
	uint64_t tsc_hz;
	uint64_t rx_stray; /* frames with no (current) signature */
	/* 'debug spin US': the sending loop busy-waits once on its CPU for US, a gap its
	 * CPU time does not show as a pause (as when the host holds the vCPU) */
	volatile uint32_t spin_us;
};

extern struct gen_engine gen;

int gen_engine_init(unsigned int nb_mbufs);
void gen_engine_fini(void);
/* ndn: a producer (gen_ndn_producer_new) the port owns from then on, or NULL. */
int gen_port_add(const char *name, const char *devargs, uint16_t rxd, uint16_t txd, uint16_t rxq,
		 bool coap_sink, double ack_delay_us, struct gen_ndn_producer *ndn, char *err,
		 size_t errlen);
struct gen_port *gen_port_find(const char *name, unsigned int *idx);
/* words: the stream's template words after "size N". */
int gen_stream_add(const char *name, unsigned int port, const char *tmpl, uint32_t wire_size,
		   int argc, char **argv, char *err, size_t errlen);
int gen_stream_del(const char *name);
struct gen_stream *gen_stream_find(const char *name);
/* Prebuild a stream's frames (also used by the pcap writer). */
int gen_stream_build(struct gen_stream *s, uint32_t max_bytes);
/* Write the next frame of s into buf (frame_len bytes) with signature (trial, seq, tsc). */
void gen_stream_frame(struct gen_stream *s, uint8_t *buf, uint8_t trial, uint64_t tsc);

/* Start a trial on the tx/rx lcore and return: 0, or -EBUSY (one is running). */
int gen_trial_start(uint64_t streams, const double *weight, double rate_pps, uint64_t count,
		    uint64_t warmup_count, uint32_t burst, double drain_s);
/* The trial: 1 running, 0 over (its results in gen.trial and the streams), -EINTR the
 * generator is stopping. */
int gen_trial_state(void);

/* The worker lcore's loop. */
int gen_worker_main(void *arg);

#endif
