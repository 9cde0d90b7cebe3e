/* SPDX-License-Identifier: BSD-3-Clause */
/* The pipeline simulator of sim.h: one event heap, FIFO stations of a few servers
 * each, one packet slot per Interest (an Interest becomes its Data at the producer,
 * so at most one packet of an exchange is in flight). */
#include "sim.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- random numbers: xoshiro256**, seeded by splitmix64 --- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* uniform on (0, 1] */
static inline double unif(struct rng *r)
{
	return (double)((next(r) >> 11) + 1) * 0x1.0p-53;
}

static inline uint32_t below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((unsigned __int128)next(r) * n) >> 64);
}

static double normal(struct rng *r)
{
	double u, v, s;
	do {
		u = 2 * unif(r) - 1;
		v = 2 * unif(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

/* Marsaglia and Tsang; shape < 1 by Gamma(shape + 1) * U^(1/shape) */
static double gamma_draw(struct rng *r, double k)
{
	if (k < 1)
		return gamma_draw(r, k + 1) * pow(unif(r), 1 / k);
	double d = k - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x = normal(r), v = 1 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = unif(r);
		if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

static double draw(const struct tp_sim_dist *d, struct rng *r)
{
	double x;

	switch (d->kind) {
	case TP_SIM_CONST:
		x = d->loc;
		break;
	case TP_SIM_EXPON:
		x = d->loc - d->scale * log(unif(r));
		break;
	case TP_SIM_NORM:
		x = d->loc + d->scale * normal(r);
		break;
	case TP_SIM_LOGNORM:
		x = d->loc + d->scale * exp(d->shape * normal(r));
		break;
	case TP_SIM_GAMMA:
		x = d->loc + d->scale * gamma_draw(r, d->shape);
		break;
	case TP_SIM_WEIBULL:
		x = d->loc + d->scale * pow(-log(unif(r)), 1 / d->shape);
		break;
	case TP_SIM_BOXCOX: {
		double y = d->loc + d->scale * normal(r);
		if (d->shape == 0) {
			x = exp(y);
		} else {
			double b = d->shape * y + 1;
			x = b > 0 ? pow(b, 1 / d->shape) : 0;
		}
		break;
	}
	case TP_SIM_EMPIRICAL:
		x = d->samples[(uint64_t)(((unsigned __int128)next(r) * d->n_samples) >> 64)];
		break;
	default:
		x = 0;
	}
	x = x > 0 ? x : 0;
	return d->kind == TP_SIM_NONE ? 0 : x + d->add;
}

void tp_sim_draw_n(const struct tp_sim_dist *d, uint64_t seed, double *out, uint64_t n)
{
	struct rng r;

	rng_seed(&r, seed, 0);
	for (uint64_t i = 0; i < n; i++)
		out[i] = draw(d, &r);
}

/* --- the pipeline --- */

enum { PKT_INTEREST = 0, PKT_DATA = 1 };
enum { EV_ARRIVE, EV_DONE, EV_PRODUCED };
enum { ST_INPUT = 0, ST_OUTPUT = 1, ST_FWD = 2 }; /* station ids: forwarding from 2 */

struct ev {
	double t;
	uint32_t pkt;
	uint16_t kind;
	uint16_t st;
};

struct pkt {
	double t0;
	uint32_t fwd; /* its forwarding station */
	uint8_t type;
};

struct fifo {
	uint32_t *buf;
	uint32_t cap, head, n;
};

struct station {
	uint32_t servers, busy;
	uint32_t cur, taken; /* poll_burst: the type being taken, how many in a row */
	struct fifo q[2];    /* by packet type; q[0] alone when shared */
	bool shared;
	double service; /* total service time given */
};

struct sim {
	const struct tp_sim_params *p;
	struct rng rng;
	struct ev *heap;
	uint32_t n_heap;
	struct pkt *pkts;
	struct station *st;
	uint32_t n_st;
	bool has_input, has_output;
	uint8_t cross_in[2], cross_out[2]; /* NUMA crossings by packet type */
	double now;
	uint64_t events;
	struct tp_sim_result res;
	double rtt_sum;
};

static void heap_push(struct sim *s, double t, uint32_t pkt, uint16_t kind, uint16_t st)
{
	uint32_t i = s->n_heap++;
	struct ev e = {t, pkt, kind, st};
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (s->heap[up].t <= t)
			break;
		s->heap[i] = s->heap[up];
		i = up;
	}
	s->heap[i] = e;
}

static struct ev heap_pop(struct sim *s)
{
	struct ev top = s->heap[0], last = s->heap[--s->n_heap];
	uint32_t i = 0, n = s->n_heap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && s->heap[c + 1].t < s->heap[c].t)
			c++;
		if (last.t <= s->heap[c].t)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return top;
}

static double service(struct sim *s, uint16_t st, const struct pkt *k)
{
	const struct tp_sim_params *p = s->p;
	double t;

	if (st == ST_INPUT)
		return draw(k->type == PKT_INTEREST ? &p->in_i : &p->in_d, &s->rng);
	if (st == ST_OUTPUT)
		return draw(&p->out, &s->rng) + p->numa_cross * s->cross_out[k->type];
	t = draw(k->type == PKT_INTEREST ? &p->fwd_i : &p->fwd_d, &s->rng) +
	    p->numa_cross * s->cross_in[k->type];
	if (p->rtc) /* the same lcore decodes, forwards and sends it */
		t += draw(k->type == PKT_INTEREST ? &p->in_i : &p->in_d, &s->rng) +
		     draw(&p->out, &s->rng);
	if (!s->has_output)
		t += p->numa_cross * s->cross_out[k->type];
	return t;
}

static void start(struct sim *s, uint16_t st, uint32_t pkt)
{
	double t = service(s, st, &s->pkts[pkt]);

	s->st[st].service += t;
	heap_push(s, s->now + t, pkt, EV_DONE, st);
}

static void drop(struct sim *s, uint16_t st, uint32_t pkt)
{
	if (pkt < s->p->warmup)
		return;
	if (st == ST_INPUT)
		s->res.drop_input++;
	else if (st == ST_OUTPUT)
		s->res.drop_output++;
	else if (s->pkts[pkt].type == PKT_INTEREST)
		s->res.drop_fwd_interest++;
	else
		s->res.drop_fwd_data++;
}

static void enter(struct sim *s, uint16_t st, uint32_t pkt)
{
	struct station *x = &s->st[st];

	if (x->busy < x->servers) {
		x->busy++;
		start(s, st, pkt);
		return;
	}
	struct fifo *q = &x->q[x->shared ? 0 : s->pkts[pkt].type];
	if (q->n == q->cap) {
		drop(s, st, pkt);
		return;
	}
	uint32_t tail = q->head + q->n;
	q->buf[tail >= q->cap ? tail - q->cap : tail] = pkt;
	q->n++;
}

static void done_ok(struct sim *s, uint32_t pkt)
{
	if (pkt < s->p->warmup)
		return;
	double rtt = s->now - s->pkts[pkt].t0;
	s->res.satisfied++;
	s->rtt_sum += rtt;
	if (rtt > s->res.rtt_max)
		s->res.rtt_max = rtt;
}

/* A packet out of its output stage (or out of forwarding, without one). */
static void leave(struct sim *s, uint32_t pkt)
{
	if (s->pkts[pkt].type == PKT_INTEREST)
		heap_push(s, s->now + s->p->producer_delay, pkt, EV_PRODUCED, 0);
	else
		done_ok(s, pkt);
}

static void to_fwd(struct sim *s, uint32_t pkt)
{
	enter(s, (uint16_t)(ST_FWD + s->pkts[pkt].fwd), pkt);
}

static void to_input(struct sim *s, uint32_t pkt)
{
	if (s->has_input)
		enter(s, ST_INPUT, pkt);
	else
		to_fwd(s, pkt);
}

static void done(struct sim *s, uint16_t st, uint32_t pkt)
{
	struct station *x = &s->st[st];
	struct fifo *q = NULL;

	/* the server takes the next one: Data first when the types have their queues,
	 * or by turns of up to poll_burst */
	if (x->shared || (x->q[1].n == 0 && s->p->poll_burst == 0)) {
		q = x->q[0].n ? &x->q[0] : NULL;
	} else if (s->p->poll_burst == 0) {
		q = &x->q[1];
	} else {
		if (x->taken >= s->p->poll_burst || x->q[x->cur].n == 0) {
			x->cur ^= 1;
			x->taken = 0;
		}
		if (x->q[x->cur].n == 0) {
			x->cur ^= 1;
			x->taken = 0;
		}
		q = x->q[x->cur].n ? &x->q[x->cur] : NULL;
		x->taken += q != NULL;
	}
	if (q != NULL) {
		uint32_t nx = q->buf[q->head];
		q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
		q->n--;
		start(s, st, nx);
	} else {
		x->busy--;
	}
	if (st == ST_INPUT) {
		to_fwd(s, pkt);
	} else if (st == ST_OUTPUT) {
		leave(s, pkt);
	} else if (s->p->interest_only) {
		done_ok(s, pkt);
	} else if (s->has_output) {
		enter(s, ST_OUTPUT, pkt);
	} else {
		leave(s, pkt);
	}
}

static int check(const struct tp_sim_params *p, char *err, uint32_t len)
{
	const char *why = NULL;

	if (p->n_interests == 0 || p->n_interests >= UINT32_MAX)
		why = "n_interests: 1 to 2^32-2";
	else if (p->warmup >= p->n_interests)
		why = "warmup: fewer than n_interests";
	else if (!(p->interval > 0))
		why = "interval: positive";
	else if (p->n_fwd < 1 || p->n_fwd > 256)
		why = "n_fwd: 1 to 256";
	else if (p->placement < 0 || p->placement > 4)
		why = "placement: 1 to 4 (0: 1)";
	else if (p->fwd_i.kind == TP_SIM_NONE ||
		 (!p->interest_only && p->fwd_d.kind == TP_SIM_NONE))
		why = "the forwarding stage needs its service distributions";
	else if ((uint64_t)p->q_interest + p->q_data + p->q_input + p->q_output > (1u << 26))
		why = "queue capacities: 2^26 in all at most";
	else if (p->rtc && (p->n_fwd != 1 || p->dispatch != TP_SIM_NDT))
		why = "rtc: one lcore (n_fwd 1, dispatch ndt)";
	else if (!(p->numa_cross >= 0) || !(p->producer_delay >= 0))
		why = "numa_cross, producer_delay: not negative";
	const struct tp_sim_dist *d[] = {&p->in_i, &p->in_d, &p->fwd_i, &p->fwd_d, &p->out};
	for (unsigned int i = 0; why == NULL && i < 5; i++) {
		if (d[i]->kind < TP_SIM_NONE || d[i]->kind > TP_SIM_EMPIRICAL)
			why = "a distribution of unknown kind";
		else if (d[i]->kind == TP_SIM_EMPIRICAL &&
			 (d[i]->samples == NULL || !d[i]->n_samples))
			why = "an empirical distribution without samples";
		else if ((d[i]->kind == TP_SIM_GAMMA || d[i]->kind == TP_SIM_WEIBULL ||
			  d[i]->kind == TP_SIM_LOGNORM) &&
			 !(d[i]->shape > 0))
			why = "gamma, weibull, lognorm: shape positive";
	}
	if (why == NULL)
		return 0;
	if (err && len)
		snprintf(err, len, "%s", why);
	return -1;
}

static bool fifo_alloc(struct fifo *q, uint32_t cap)
{
	q->cap = cap;
	q->buf = cap ? malloc(sizeof(*q->buf) * cap) : NULL;
	return cap == 0 || q->buf != NULL;
}

int tp_sim_run(const struct tp_sim_params *p, uint64_t seed, uint32_t n_runs,
	       struct tp_sim_result *out, uint64_t *events, char *err, uint32_t err_len)
{
	struct sim s = {.p = p};
	int ret = -1;
	/* nodes of the client face, the server face, the forwarding lcores (seed 002) */
	static const uint8_t place[5][3] = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {0, 1, 1}, {0, 0, 1}};

	if (check(p, err, err_len) < 0)
		return -1;
	const uint8_t *pl = place[p->placement];
	/* an Interest comes in on the client's face and goes out on the server's; Data
	 * the other way */
	s.cross_in[PKT_INTEREST] = pl[0] != pl[2];
	s.cross_out[PKT_INTEREST] = pl[2] != pl[1];
	s.cross_in[PKT_DATA] = pl[1] != pl[2];
	s.cross_out[PKT_DATA] = pl[2] != pl[0];
	s.has_input = !p->rtc && (p->in_i.kind != TP_SIM_NONE || p->in_d.kind != TP_SIM_NONE);
	s.has_output = !p->rtc && p->out.kind != TP_SIM_NONE;
	uint32_t n_fwd_st = p->dispatch == TP_SIM_POOL ? 1 : p->n_fwd;
	s.n_st = ST_FWD + n_fwd_st;
	s.heap = malloc(sizeof(*s.heap) * (p->n_interests + 2));
	s.pkts = malloc(sizeof(*s.pkts) * p->n_interests);
	s.st = calloc(s.n_st, sizeof(*s.st));
	if (s.heap == NULL || s.pkts == NULL || s.st == NULL)
		goto out;
	bool shared = p->queues == TP_SIM_SHARED;
	if (!fifo_alloc(&s.st[ST_INPUT].q[0], p->q_input) ||
	    !fifo_alloc(&s.st[ST_OUTPUT].q[0], p->q_output))
		goto out;
	s.st[ST_INPUT].shared = s.st[ST_OUTPUT].shared = true;
	s.st[ST_INPUT].servers = s.st[ST_OUTPUT].servers = 1;
	for (uint32_t i = ST_FWD; i < s.n_st; i++) {
		s.st[i].shared = shared;
		s.st[i].servers = p->dispatch == TP_SIM_POOL ? p->n_fwd : 1;
		if (!fifo_alloc(&s.st[i].q[0], p->q_interest) ||
		    !fifo_alloc(&s.st[i].q[1], shared ? 0 : p->q_data))
			goto out;
	}
	uint64_t n_ev = 0;
	for (uint32_t r = 0; r < n_runs; r++) {
		rng_seed(&s.rng, seed, r + 1);
		memset(&s.res, 0, sizeof(s.res));
		s.rtt_sum = 0;
		s.now = 0;
		s.events = 0;
		s.n_heap = 0;
		for (uint32_t i = 0; i < s.n_st; i++) {
			s.st[i].busy = s.st[i].cur = s.st[i].taken = 0;
			s.st[i].service = 0;
			s.st[i].q[0].head = s.st[i].q[0].n = 0;
			s.st[i].q[1].head = s.st[i].q[1].n = 0;
		}
		heap_push(&s, 0, 0, EV_ARRIVE, 0);
		while (s.n_heap) {
			struct ev e = heap_pop(&s);
			s.now = e.t;
			s.events++;
			switch (e.kind) {
			case EV_ARRIVE: {
				struct pkt *k = &s.pkts[e.pkt];
				k->t0 = s.now;
				k->type = PKT_INTEREST;
				k->fwd = n_fwd_st > 1 ? below(&s.rng, n_fwd_st) : 0;
				if (e.pkt >= p->warmup)
					s.res.sent++;
				if (e.pkt + 1 < p->n_interests) {
					uint32_t b = p->arrival_burst > 1 ? p->arrival_burst : 1;
					double gap = p->poisson
							 ? -p->interval * b * log(unif(&s.rng))
							 : p->interval * b;
					if (b > 1 && (e.pkt + 1) % b != 0)
						gap = 0; /* the rest of the burst at once */
					heap_push(&s, s.now + gap, e.pkt + 1, EV_ARRIVE, 0);
				}
				to_input(&s, e.pkt);
				break;
			}
			case EV_DONE:
				done(&s, e.st, e.pkt);
				break;
			default: /* the producer's Data */
				s.pkts[e.pkt].type = PKT_DATA;
				to_input(&s, e.pkt);
			}
		}
		double busy = 0;
		for (uint32_t i = ST_FWD; i < s.n_st; i++)
			busy += s.st[i].service;
		s.res.fwd_busy = s.now > 0 ? busy / (s.now * p->n_fwd) : 0;
		s.res.rtt_mean = s.res.satisfied ? s.rtt_sum / (double)s.res.satisfied : 0;
		out[r] = s.res;
		n_ev += s.events;
	}
	if (events)
		*events = n_ev;
	ret = 0;
out:
	if (ret < 0 && err && err_len && err[0] == 0)
		snprintf(err, err_len, "out of memory");
	if (s.st)
		for (uint32_t i = 0; i < s.n_st; i++) {
			free(s.st[i].q[0].buf);
			free(s.st[i].q[1].buf);
		}
	free(s.st);
	free(s.pkts);
	free(s.heap);
	return ret;
}
