/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_iotgw's view inside the gateway's control-side queues: early.c and delivery.c
 * compiled here as they are (not a copy: this file includes them), so that the
 * target's property checks can read their private state. The two files share one
 * static name (agent_io), renamed for the first. */
#define agent_io early_agent_io
#include "../../src/nf/iotgw/control/early.c"
#undef agent_io
#include "../../src/nf/iotgw/control/delivery.c"

#include "fuzz.h"

void fuzz_iotgw_early_check(void);
void fuzz_iotgw_delivery_check(void);

/* Reports held before their AE is ready: the slots in use are n_held, each agent's
 * within EARLY_PER_AGENT, each APDU within its buffer; and every report taken is
 * handed on, dropped or still held. */
void fuzz_iotgw_early_check(void)
{
	static uint8_t per[TP_AE_MAX];
	unsigned int used = 0;

	memset(per, 0, sizeof(per));
	for (unsigned int i = 0; i < EARLY_MAX; i++) {
		const struct held *h = &held[i];
		if (!h->used)
			continue;
		used++;
		must(h->idx >= 0 && h->idx < TP_AE_MAX && h->len <= EARLY_APDU_MAX);
		/* one session's: a slot reused by another session counts apart (gen) */
		if (same_session(h))
			must(++per[h->idx] <= EARLY_PER_AGENT);
	}
	must(used == n_held && n_held == tp_iotgw_early_held() && n_held <= EARLY_MAX);
	must(tp_iotgw_early.held ==
	     tp_iotgw_early.released + tp_iotgw_early.dropped + tp_iotgw_early_held());
}

/* The confirmed delivery queue: measurements queued or in flight are those not free,
 * within max_pending and the window; per table slot within agent_pending, and the
 * slots' shares add up to the whole; each report record's outstanding measurements
 * are its measurements waiting; what was queued is stored, refused or waiting. */
void fuzz_iotgw_delivery_check(void)
{
	static uint8_t rep_free_mark[65536];
	static uint32_t rep_pend[65536];
	uint64_t shares = 0;
	uint32_t busy = 0;

	if (!active)
		return;
	uint32_t pending = q_len + n_flight;
	must(cap == tp_iotgw.max_pending && cap <= 65536);
	must(pending <= cap && n_flight <= WINDOW && n_pfree + pending == cap && n_rfree <= cap);
	memset(rep_free_mark, 0, cap);
	memset(rep_pend, 0, cap * sizeof(rep_pend[0]));
	for (uint32_t i = 0; i < n_rfree; i++) {
		must(rfree[i] < cap && !rep_free_mark[rfree[i]]);
		rep_free_mark[rfree[i]] = 1;
	}
	for (uint32_t i = 0; i < q_len; i++)
		must(pend[queue[(q_head + i) % cap]].state == P_QUEUED);
	for (uint32_t i = 0; i < n_flight; i++)
		must(pend[flight[i]].state == P_FLIGHT);
	for (uint32_t p = 0; p < cap; p++) {
		if (pend[p].state == P_FREE)
			continue;
		busy++;
		must(pend[p].rep < cap && !rep_free_mark[pend[p].rep]);
		rep_pend[pend[p].rep]++;
	}
	must(busy == pending);
	for (uint32_t r = 0; r < cap; r++)
		if (!rep_free_mark[r])
			must(reps[r].outstanding == rep_pend[r] && reps[r].outstanding > 0);
	for (int i = 0; i < TP_AE_MAX; i++) {
		must(agent_pend[i] <= tp_iotgw.agent_pending);
		shares += agent_pend[i];
	}
	must(shares == pending);
	must(tp_iotgw_deliv.cin_queued ==
	     tp_iotgw_deliv.cin_stored + tp_iotgw_deliv.cin_refused + pending);
}
