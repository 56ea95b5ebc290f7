// SPDX-License-Identifier: GPL-2.0
/* pkstop's model: the arithmetic of counts, and which rows pass -p and -n. */
#include <stdio.h>
#include <string.h>

#include "model.h"

bool pkstop_delta_any(const struct pkstop_delta *d)
{
	return d->opens || d->enables || d->pkrs_writes || d->updates || d->faults;
}

void pkstop_faults_add(uint64_t sum[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES],
		       const uint64_t add[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES])
{
	int key, o;

	for (key = 0; key < PKS_NR_KEYS; key++)
		for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++)
			sum[key][o] += add[key][o];
}

void pkstop_delta_add(struct pkstop_delta *sum, const struct pkstop_delta *d)
{
	sum->opens += d->opens;
	sum->enables += d->enables;
	sum->pkrs_writes += d->pkrs_writes;
	sum->updates += d->updates;
	sum->faults += d->faults;
}

const char *pkstop_row_context_name(enum pkstop_row_context c)
{
	switch (c) {
	case PKS_ROW_IDLE_TASK:
		return "idle";
	case PKS_ROW_SOFTIRQS:
		return "softirq";
	default:
		return "task";
	}
}

bool pkstop_row_visible(const struct pkstop_row *r, const struct pkstop_opts *o)
{
	char comm[sizeof(r->comm) + 1];

	if (o->pid && r->pid != (uint32_t)o->pid)
		return false;
	if (!o->name)
		return true;
	/* The raw bytes, as the kernel has them; comm need not end in a NUL. */
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(r->comm), r->comm);
	return strstr(comm, o->name);
}
