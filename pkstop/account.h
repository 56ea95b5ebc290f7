/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning the BPF side's cumulative per-thread counters into one
 * interval's row: deltas per slot, window-open time, maximum depth, held
 * time.  Pure, so host tests can feed it made-up map values.
 */
#ifndef PKSTOP_ACCOUNT_H
#define PKSTOP_ACCOUNT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "pkstop.h"
#include "model.h"

/* What user space remembers of one TID between intervals. */
struct pkstop_tstate {
	uint32_t tid;
	struct pkstop_counts prev[2];	/* last value read of each slot */
	uint64_t prev_open_ns;		/* cumulative open time at the last sample */
	bool seen;			/* prev_open_ns is valid */
	uint32_t prev_depth;		/* depth at the last sample (iterator) */
	unsigned int absent;		/* samples in a row the iterator missed it */
};

/* Cumulative window-open time of @t at monotonic time @now. */
uint64_t pkstop_open_ns(const struct pkstop_thread *t, uint64_t now);

/* Differences of two counter sets, as a delta. */
void pkstop_counts_delta(const struct pkstop_counts *cur, const struct pkstop_counts *prev,
			 struct pkstop_delta *d);

/*
 * Fill @row from map value @t read after interval @old_gen closed at
 * monotonic @now (interval @interval_ns long) and the iterator record
 * @task (NULL when the iterator did not see the thread: it exited).
 * Updates @st for the next interval.
 */
void pkstop_account(struct pkstop_tstate *st, const struct pkstop_thread *t,
		    const struct pkstop_task *task, uint64_t old_gen, uint64_t now,
		    uint64_t interval_ns, struct pkstop_row *row);

/*
 * Map id @id is a per-CPU row (bpf/pks_ctx.h): name it "idle/N" or
 * "softirq/N", TID and PID 0.  Thread rows are left alone.
 */
void pkstop_name_cpu_row(uint32_t id, struct pkstop_row *row);

/* A row for a thread with state but no events ever (iterator only). */
void pkstop_row_from_task(const struct pkstop_task *task, struct pkstop_row *row);

/* The row is worth showing: activity in the interval, or state. */
bool pkstop_row_interesting(const struct pkstop_row *row);

#endif
