// SPDX-License-Identifier: GPL-2.0
/* pkstop's summary on exit; see summary.h. */
#include <string.h>

#include "report.h"

static void note_who(struct pkstop_summary_who *who, const struct pkstop_row *r)
{
	who->tid = r->tid;
	who->pid = r->pid;
	memcpy(who->comm, r->comm, sizeof(who->comm));
	who->context = r->context;
	who->cpu = r->cpu;
}

void pkstop_summary_add(struct pkstop_summary *sum, const struct pkstop_sample *s,
			const struct pkstop_opts *o)
{
	size_t i;

	sum->intervals++;
	sum->partial = s->partial;
	sum->duration_s += s->interval_s;
	pkstop_delta_add(&sum->totals, &s->totals);
	sum->irq_events += s->irq_events;
	sum->map_full = s->map_full;
	sum->missed = s->missed;
	for (i = 0; i < s->nrows; i++) {
		const struct pkstop_row *r = &s->rows[i];

		if (!pkstop_row_visible(r, o))
			continue;
		sum->row_faults += r->d.faults;
		/* Held time is known at each interval's end: the longest seen then. */
		if (r->held_s > sum->held_max_s) {
			sum->held_max_s = r->held_s;
			sum->held_max_lower_bound = r->held_lower_bound;
			note_who(&sum->held_by, r);
		}
		if (r->max_depth > sum->depth_max) {
			sum->depth_max = r->max_depth;
			note_who(&sum->depth_by, r);
		}
	}
}

static void text_who(FILE *f, const struct pkstop_summary_who *who)
{
	char comm[4 * sizeof(who->comm) + 1];

	pks_escape_comm(who->comm, sizeof(who->comm), comm, sizeof(comm));
	if (who->context == PKS_ROW_TASK)
		fprintf(f, "%s (TID %u, PID %u)", comm, who->tid, who->pid);
	else
		fprintf(f, "%s", comm);
}

static void json_who(FILE *f, const struct pkstop_summary_who *who)
{
	/* Copied from a row, whose comm model.c NUL-terminates. */
	pkstop_json_thread(f, who->tid, who->pid, who->context, who->cpu, who->comm);
}

static void print_json(FILE *f, const struct pkstop_summary *sum)
{
	double per_s = sum->duration_s > 0 ? 1.0 / sum->duration_s : 0;

	pks_json_open(f, "summary");
	fprintf(f, ",\"intervals\":%lu,\"last_partial\":%s,\"duration_s\":%.3f,\"totals\":{",
		sum->intervals, sum->partial ? "true" : "false", sum->duration_s);
	pkstop_json_counts(f, &sum->totals, per_s);
	fprintf(f, "},\"irq_events\":%llu,\"row_faults\":%llu,\"held_max\":",
		(unsigned long long)sum->irq_events, (unsigned long long)sum->row_faults);
	if (sum->held_max_s > 0) {
		fprintf(f, "{\"held_s\":%.3f,\"held_at_least\":%s,", sum->held_max_s,
			sum->held_max_lower_bound ? "true" : "false");
		json_who(f, &sum->held_by);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(",\"depth_max\":", f);
	if (sum->depth_max) {
		fprintf(f, "{\"depth\":%u,", sum->depth_max);
		json_who(f, &sum->depth_by);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"drops_total\":{\"all\":%llu,\"map_full\":%llu,\"missed\":%llu}}\n",
		(unsigned long long)(sum->map_full + sum->missed),
		(unsigned long long)sum->map_full, (unsigned long long)sum->missed);
}

void pkstop_summary_print(FILE *f, const struct pkstop_summary *sum, bool json)
{
	char held[16];

	if (json) {
		print_json(f, sum);
		return;
	}
	fprintf(f, "\n=== pkstop summary (%.1f s, %lu intervals%s) ===\n", sum->duration_s,
		sum->intervals, sum->partial ? ", the last partial" : "");
	/* Two lines: the block, like the table, fits 80 columns. */
	fprintf(f, "totals: opens %llu, enables %llu, PKRS writes %llu,\n"
		"        updates %llu, faults %llu, irq events %llu\n",
		(unsigned long long)sum->totals.opens, (unsigned long long)sum->totals.enables,
		(unsigned long long)sum->totals.pkrs_writes,
		(unsigned long long)sum->totals.updates, (unsigned long long)sum->totals.faults,
		(unsigned long long)sum->irq_events);
	fprintf(f, "longest window held: ");
	if (sum->held_max_s > 0) {
		pkstop_fmt_duration(sum->held_max_s, held, sizeof(held));
		fprintf(f, "%s%s by ", sum->held_max_lower_bound ? ">" : "", held);
		text_who(f, &sum->held_by);
		fputc('\n', f);
	} else {
		fprintf(f, "none open at the end of an interval\n");
	}
	fprintf(f, "deepest nesting: ");
	if (sum->depth_max) {
		fprintf(f, "%u by ", sum->depth_max);
		text_who(f, &sum->depth_by);
		fputc('\n', f);
	} else {
		fprintf(f, "no windows\n");
	}
	fprintf(f, "faults on the rows shown: %llu\n", (unsigned long long)sum->row_faults);
	fprintf(f, "drops: %llu (map full %llu, BPF runs missed %llu)\n",
		(unsigned long long)(sum->map_full + sum->missed),
		(unsigned long long)sum->map_full, (unsigned long long)sum->missed);
}
