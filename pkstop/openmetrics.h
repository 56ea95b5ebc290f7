/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop --prometheus FILE: the counters as a metrics text file (the
 * Prometheus text format 0.0.4) for node exporter's textfile collector,
 * rewritten atomically
 * every interval.  Pure formatting, so host tests can check it.
 */
#ifndef PKSTOP_OPENMETRICS_H
#define PKSTOP_OPENMETRICS_H

#include <stdio.h>

#include "model.h"

/* Counters since pkstop started: the sum of every interval's totals. */
struct pkstop_om {
	struct pkstop_delta totals;
	uint64_t opens_by[PKS_NR_KEYS];
	uint64_t pkrs_writes_by[PKS_NR_KEYS];
	uint64_t faults_by[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES];
	uint64_t irq_events;
};

/* Add interval @s to the counters in @om. */
void pkstop_om_add(struct pkstop_om *om, const struct pkstop_sample *s);
/* The text: counters from @om, gauges from sample @s. */
void pkstop_om_format(FILE *f, const struct pkstop_om *om, const struct pkstop_sample *s);
/* Write it to @path through @path.tmp and rename(): 0 or -errno. */
int pkstop_om_write(const char *path, const struct pkstop_om *om, const struct pkstop_sample *s);

#endif
