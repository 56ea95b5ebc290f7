/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The other two views of a sample: per key (-K) and per process (-P),
 * rolled up from the system totals and the thread rows, so that they add
 * up to what the thread view shows.
 */
#ifndef PKSTOP_ROLLUP_H
#define PKSTOP_ROLLUP_H

#include "model.h"

/* One key over one interval. */
struct pkstop_key_stat {
	int key;
	uint64_t opens;		/* outermost window opens on it */
	uint64_t pkrs_writes;	/* PKRS writes by its windows and updates */
	uint64_t faults;	/* stray faults on it, every outcome */
	double open_pct;	/* its windows' open time, % of the interval,
				 * summed over threads: 200 = two threads all along */
	uint32_t holders;	/* threads with its window open or its rights
				 * opened (PKRS), at the end of the interval */
};

/*
 * Every key that is allocated or had activity, in key order; returns how
 * many.  A window found open before pkstop saw it open has no known key:
 * it counts for the key that other windows opened on (all device-access
 * windows share one), if any did.
 */
size_t pkstop_key_stats(const struct pkstop_sample *s,
			struct pkstop_key_stat out[PKS_NR_KEYS]);

/* One process: its visible threads' rows added up. */
struct pkstop_proc {
	uint32_t pid;			/* 0: a per-CPU row, alone */
	enum pkstop_row_context context;
	uint32_t cpu;
	char comm[16];			/* the main thread's, else the first's */
	uint32_t threads;		/* rows added */
	uint32_t holding;		/* of those, with a window open now */
	uint32_t max_depth;
	struct pkstop_delta d;
	double open_pct;		/* summed over its threads */
	double held_s;			/* its longest-held open window; < 0: none */
	bool held_lower_bound;
};

/*
 * The rows that pass -p and -n, one entry per process (per-CPU rows stay
 * one each), sorted by -s as rows are (tid: by PID).  Returns how many, in
 * *@out (malloc'ed, the caller frees it), or -1 without memory.
 */
long pkstop_processes(const struct pkstop_sample *s, const struct pkstop_opts *o,
		      struct pkstop_proc **out);

#endif
