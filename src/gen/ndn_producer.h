/* SPDX-License-Identifier: BSD-3-Clause */
/* "producer ndn": a generator port that answers every NDN Interest it receives
 * with a Data of the Interest's name (or with a Nack), on the same port. */
#ifndef TP_GEN_NDN_PRODUCER_H
#define TP_GEN_NDN_PRODUCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "engine.h"

struct gen_ndn_producer_conf {
	bool on;	      /* "producer ndn" was given */
	uint32_t payload;     /* Content bytes */
	int64_t freshness_ms; /* -1: no FreshnessPeriod */
	uint32_t nack_reason; /* with nack: the NackReason (0: none written) */
	bool nack;	      /* answer with Nacks instead of Data */
	bool sign_digest;     /* DigestSha256; else the null signature (type 200, empty value) */
};

/* Each a named reason the producer took a frame, answered it, or dropped it. */
struct gen_ndn_producer_counters {
	uint64_t rx_interests; /* Interests received */
	uint64_t tx_data;      /* Data sent */
	uint64_t tx_nacks;     /* Nacks sent */
	uint64_t rx_malformed; /* NDN frames (0x8624 or UDP 6363) that are no valid Interest,
				* fragments included (not reassembled) */
	uint64_t drop_tx_full; /* answers the port refused */
	uint64_t drop_nombuf;  /* no mbuf for an answer */
	uint64_t drop_too_big; /* an answer larger than an mbuf (a long name) */
};

struct gen_ndn_producer {
	struct gen_ndn_producer_conf conf;
	uint8_t *content; /* sign digest: payload zero bytes */
	uint8_t *tail;	  /* null signature: MetaInfo, Content, SignatureInfo, SignatureValue */
	uint32_t tail_len;
	/* per trial (measured phase and drain, as the CoAP sink's), and since the port
	 * was added; both written by the worker only */
	struct gen_ndn_producer_counters trial, total;
};

/* One "KEY VALUE" pair of port add: 1 when it is a producer word (taken into c),
 * 0 when it is not, -EINVAL with err set when its value is bad. */
int gen_ndn_producer_option(struct gen_ndn_producer_conf *c, const char *k, const char *v,
			    char *err, size_t errlen);
/* A producer for conf c, checked: NULL with err set when an answer could not fit
 * an mbuf of data_room bytes. The caller owns it until gen_port_add takes it. */
struct gen_ndn_producer *gen_ndn_producer_new(const struct gen_ndn_producer_conf *c,
					      uint32_t data_room, char *err, size_t errlen);
void gen_ndn_producer_free(struct gen_ndn_producer *p);
void gen_ndn_producer_trial_reset(struct gen_ndn_producer *p);
/* The worker's: answer the Interests of pkts[0..n-1] received on port p (those
 * mbufs are consumed) and move the frames that are not NDN to the front; returns
 * how many of those remain for the engine's accounting. count: add to the trial's
 * counters too. */
uint16_t gen_ndn_produce(struct gen_port *p, struct rte_mbuf **pkts, uint16_t n, bool count);
/* The name of a Nack reason ("congestion"...), or NULL for none. */
const char *gen_ndn_nack_name(uint32_t reason);

#endif
