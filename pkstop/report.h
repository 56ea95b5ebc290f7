/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop's summary on exit: the whole run in a few lines (or one JSON
 * object), so that a run in a script or a CI log ends with its answer:
 * how long the longest window was held and by whom, the deepest nesting,
 * the totals, and what was dropped.  Pure, for the host tests.
 */
#ifndef PKSTOP_REPORT_H
#define PKSTOP_REPORT_H

#include <stdio.h>

#include "model.h"
#include "view.h"	/* its JSON pieces */

/* One thread's record, as its row named it. */
struct pkstop_summary_who {
	uint32_t tid;
	uint32_t pid;
	char comm[16];
	enum pkstop_row_context context;
	uint32_t cpu;
};

struct pkstop_summary {
	unsigned long intervals;
	bool partial;			/* the last interval was cut short (signal, q) */
	double duration_s;		/* sum of the intervals' measured lengths */
	struct pkstop_delta totals;	/* system-wide, like the header's */
	uint64_t irq_events;
	uint64_t map_full;		/* since start (the last sample's) */
	uint64_t missed;
	double held_max_s;		/* longest window seen held; 0: none */
	bool held_max_lower_bound;	/* it was open before pkstop started */
	struct pkstop_summary_who held_by;
	uint32_t depth_max;		/* deepest nesting seen; 0: none */
	struct pkstop_summary_who depth_by;
	uint64_t row_faults;		/* faults on the rows shown (-p/-n) */
};

/* Add interval @s; rows count only if they pass -p/-n (@o). */
void pkstop_summary_add(struct pkstop_summary *sum, const struct pkstop_sample *s,
			const struct pkstop_opts *o);
/* The text block ("=== pkstop summary ..."), or one {"type":"summary"} line. */
void pkstop_summary_print(FILE *f, const struct pkstop_summary *sum, bool json);

#endif
