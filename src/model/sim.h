/* SPDX-License-Identifier: BSD-3-Clause */
/* The performance model's simulator (issue 11, seed 002): a discrete-event
 * simulation of the NDN forwarder's pipeline, consumer -> input stage -> NDT
 * dispatch -> forwarding lcores with bounded queues -> output stage -> producer
 * and back, with service times drawn from fitted distributions. A plain C library
 * (no DPDK), loaded by python/twinplane/model through ctypes: the Python side keeps
 * the statistics (SMC), this side only runs. Times are in nanoseconds. */
#ifndef TP_MODEL_SIM_H
#define TP_MODEL_SIM_H

#include <stdint.h>

/* A distribution, in scipy.stats's parameterisation (shape, loc, scale): a draw is
 * clamped at 0. TP_SIM_NONE: the stage is absent (no time, no queue). */
enum tp_sim_dist_kind {
	TP_SIM_NONE = 0,
	TP_SIM_CONST = 1,     /* loc */
	TP_SIM_EXPON = 2,     /* loc + scale * Exp(1) */
	TP_SIM_NORM = 3,      /* loc + scale * N(0,1) */
	TP_SIM_LOGNORM = 4,   /* loc + scale * exp(shape * N(0,1)) */
	TP_SIM_GAMMA = 5,     /* loc + scale * Gamma(shape) */
	TP_SIM_WEIBULL = 6,   /* loc + scale * (-ln U)^(1/shape) (weibull_min) */
	TP_SIM_BOXCOX = 7,    /* x whose Box-Cox transform with lambda = shape is N(loc, scale) */
	TP_SIM_EMPIRICAL = 8, /* one of samples[], uniformly */
};

struct tp_sim_dist {
	int32_t kind;
	int32_t pad;
	double shape, loc, scale;
	double add; /* added to every draw (a constant cost on top of the fitted one) */
	const double *samples;
	uint64_t n_samples;
};

enum tp_sim_dispatch {
	TP_SIM_NDT = 0,	 /* each Interest to a forwarding lcore at random (the NDT of its
			  * name), its Data back to the same one; a queue set per lcore */
	TP_SIM_POOL = 1, /* one queue set served by every lcore (M/M/c/K's shared queue) */
};

enum tp_sim_queues {
	TP_SIM_SEPARATE = 0, /* a queue per packet type (Interests, Data), Data served first */
	TP_SIM_SHARED = 1,   /* one FIFO for both types (the seed's NDN-DPDK), q_interest */
};

struct tp_sim_params {
	uint64_t n_interests; /* per run, warm-up included */
	uint64_t warmup;      /* the first ones: simulated, not counted */
	double interval;      /* mean time between Interests */
	int32_t poisson;      /* 1: exponential intervals; 0: fixed (the seed's consumer) */
	uint32_t n_fwd;	      /* forwarding lcores (1-256) */
	int32_t dispatch;     /* enum tp_sim_dispatch */
	int32_t queues;	      /* enum tp_sim_queues */
	uint32_t q_interest;  /* waiting room (not counting the one in service) */
	uint32_t q_data;
	uint32_t q_input;	 /* the input stage's (the port's RX ring) */
	uint32_t q_output;	 /* the output stage's */
	int32_t interest_only;	 /* 1: an Interest is done once forwarded (no producer) */
	int32_t placement;	 /* NUMA placement 1-4 (P1-P4 of seed 002); 0 = 1 */
	double numa_cross;	 /* added to a stage's service per NUMA crossing it makes */
	double producer_delay;	 /* from the Interest's output to its Data's input */
	int32_t rtc;		 /* 1: run to completion, one lcore does input, forwarding
				  * and output of a packet in one service (the queues are
				  * the ports' RX rings: Interests', Data's) */
	uint32_t poll_burst;	 /* 0: Data first; N: a lcore takes up to N packets of a
				  * type, then turns to the other (a poll loop over ports) */
	uint32_t arrival_burst;	 /* Interests sent together, every burst * interval (1) */
	struct tp_sim_dist in_i; /* input stage, per Interest (decode and dispatch) */
	struct tp_sim_dist in_d; /* input stage, per Data */
	struct tp_sim_dist fwd_i;
	struct tp_sim_dist fwd_d;
	struct tp_sim_dist out; /* output stage, per packet */
};

struct tp_sim_result {
	uint64_t sent;	    /* Interests counted (after the warm-up) */
	uint64_t satisfied; /* of those, Data back at the consumer (or forwarded, interest_only) */
	uint64_t drop_input, drop_fwd_interest, drop_fwd_data, drop_output;
	double rtt_mean; /* of the satisfied ones */
	double rtt_max;
	double fwd_busy; /* fraction of time the forwarding lcores were busy (mean) */
};

/* Run n_runs independent runs of p, run r seeded from (seed, r), results in
 * out[0..n_runs-1]; *events (when not NULL) gets the events handled. 0, or -1 with
 * p invalid (a message in err, err_len bytes) or memory short. */
int tp_sim_run(const struct tp_sim_params *p, uint64_t seed, uint32_t n_runs,
	       struct tp_sim_result *out, uint64_t *events, char *err, uint32_t err_len);

/* n draws of d (seeded): for the tests of the samplers against scipy. */
void tp_sim_draw_n(const struct tp_sim_dist *d, uint64_t seed, double *out, uint64_t n);

#endif
