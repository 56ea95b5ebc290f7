// SPDX-License-Identifier: GPL-2.0
/* pksfault summary and verdict; see pksfault_report.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "opts.h"
#include "report.h"

#define SUMMARY_STACKS 5	/* distinct stacks shown in the text summary */

static int frames(int stack_sz)
{
	return stack_sz > 0 ? stack_sz / (int)sizeof(__u64) : 0;
}

static bool same_stack(const struct report_stack *s, const struct pksfault_event *e)
{
	return s->ip == e->ip && s->stack_sz == e->stack_sz &&
	       !memcmp(s->stack, e->stack, frames(e->stack_sz) * sizeof(__u64));
}

void report_add_fault(struct pksfault_report *r, const struct pksfault_event *e)
{
	struct report_stack *s;
	int i;

	r->faults++;
	if (e->key >= 0 && e->key < PKS_NR_KEYS) {
		r->faults_by_key[e->key]++;
		if (e->owner[0] && !r->owner_by_key[e->key][0])
			snprintf(r->owner_by_key[e->key], PKS_OWNER_LEN, "%.*s",
				 PKSFAULT_OWNER_LEN, e->owner);
	}
	if (e->outcome >= 0 && e->outcome < PKS_FAULT_NR_OUTCOMES)
		r->faults_by_outcome[e->outcome]++;
	for (i = 0; i < r->nr_stacks; i++)
		if (same_stack(&r->stacks[i], e)) {
			r->stacks[i].count++;
			return;
		}
	if (r->nr_stacks == REPORT_MAX_STACKS) {
		r->stacks_dropped++;
		return;
	}
	s = &r->stacks[r->nr_stacks++];
	s->ip = e->ip;
	s->stack_sz = e->stack_sz;
	memset(s->stack, 0, sizeof(s->stack));
	memcpy(s->stack, e->stack, frames(e->stack_sz) * sizeof(__u64));
	s->count = 1;
}

void report_add_leak(struct pksfault_report *r, const struct pksfault_event *e)
{
	r->leaks++;
}

void report_add_unbalanced(struct pksfault_report *r, const struct pksfault_event *e)
{
	r->unbalanced++;
}

/* Counted in BPF too: one whose record was lost still counts. */
static uint64_t unbalanced(const struct pksfault_report *r)
{
	uint64_t counted = r->stats.v[PKSFAULT_STAT_UNBALANCED];

	return r->unbalanced > counted ? r->unbalanced : counted;
}

/* Windows found open at attach, less the seeds that were opens in flight. */
static uint64_t open_at_attach(const struct pksfault_report *r)
{
	uint64_t seeded = r->stats.v[PKSFAULT_STAT_WIN_SEEDED];
	uint64_t raced = r->stats.v[PKSFAULT_STAT_SEED_RACED];

	return seeded > raced ? seeded - raced : 0;
}

FILE *report_finding_begin(struct pksfault_report *r, enum report_kind kind, char **buf,
			   size_t *len)
{
	struct report_findings *fi = &r->findings[kind];
	FILE *m;

	if (!r->keep_findings)
		return NULL;
	if (fi->n == REPORT_MAX_FINDINGS) {
		fi->dropped++;
		return NULL;
	}
	*buf = NULL;
	m = open_memstream(buf, len);
	if (!m)
		fi->dropped++;
	return m;
}

void report_finding_end(struct pksfault_report *r, enum report_kind kind, FILE *m, char **buf)
{
	struct report_findings *fi = &r->findings[kind];

	/* fclose() sets *buf: read it only after. */
	if (fclose(m) || !*buf) {
		free(*buf);
		fi->dropped++;
		return;
	}
	fi->text[fi->n++] = *buf;
}

void report_free_findings(struct pksfault_report *r)
{
	int k, i;

	for (k = 0; k < REPORT_KINDS; k++) {
		for (i = 0; i < r->findings[k].n; i++)
			free(r->findings[k].text[i]);
		r->findings[k].n = 0;
	}
}

uint64_t report_faults(const struct pksfault_report *r)
{
	uint64_t counted = r->stats.v[PKSFAULT_STAT_FAULTS];

	return r->faults > counted ? r->faults : counted;
}

uint64_t report_unbalanced(const struct pksfault_report *r)
{
	return unbalanced(r);
}

void report_add_open(struct pksfault_report *r, uint64_t held_ns)
{
	r->open_windows++;
	if (r->leak_enabled && held_ns > (uint64_t)r->leak_ms * 1000000)
		r->open_leaks++;
}

uint64_t report_lost(const struct pksfault_report *r)
{
	/* A skipped run may be a fault or an open never seen: as bad as a drop. */
	return r->stats.v[PKSFAULT_STAT_LOST] + r->stats.v[PKSFAULT_STAT_WIN_UNTRACKED] +
	       r->recursion_misses;
}

int report_exit_code(const struct pksfault_report *r)
{
	/* Faults are counted in BPF too: a fault whose record was lost still counts. */
	if (r->faults || r->stats.v[PKSFAULT_STAT_FAULTS] || r->leaks || r->open_leaks ||
	    unbalanced(r))
		return PKS_EXIT_FOUND;
	/* Nothing found, but not everything seen: no verdict, never clean. */
	if (report_lost(r))
		return PKS_EXIT_LOST;
	if (r->cmd_timed_out)
		return PKS_EXIT_TIMEOUT;
	if (r->cmd_ran && (r->cmd_exit != 0 || r->cmd_signal))
		return PKS_EXIT_CMD;
	return PKS_EXIT_CLEAN;
}

static const char *verdict(const struct pksfault_report *r)
{
	switch (report_exit_code(r)) {
	case PKS_EXIT_CLEAN:
		return "clean";
	case PKS_EXIT_CMD:
		return "command failed";
	case PKS_EXIT_TIMEOUT:
		return "command timed out";
	case PKS_EXIT_LOST:
		return "events lost";
	}
	return "found";
}

/* Sort order for the summary: most frequent stacks first (small n: selection). */
static void order_stacks(const struct pksfault_report *r, int *idx)
{
	int i, j, t;

	for (i = 0; i < r->nr_stacks; i++)
		idx[i] = i;
	for (i = 0; i < r->nr_stacks; i++)
		for (j = i + 1; j < r->nr_stacks; j++)
			if (r->stacks[idx[j]].count > r->stacks[idx[i]].count) {
				t = idx[i];
				idx[i] = idx[j];
				idx[j] = t;
			}
}

static const char *key_owner(const struct pksfault_env *env, const struct pksfault_report *r,
			     int key)
{
	return pksfault_owner(env, key, r->owner_by_key[key]);
}

static void print_json(FILE *f, const struct pksfault_env *env, const struct pksfault_report *r,
		       const int *idx)
{
	const struct pksfault_stats *st = &r->stats;
	char ip[160];
	int i, key, first = 1;

	pks_json_open(f, "summary");
	fprintf(f, ",\"elapsed_s\":%.3f,\"faults\":%" PRIu64
		",\"faults_counted\":%" PRIu64 ",\"faults_by_key\":[", r->elapsed_s, r->faults,
		(uint64_t)st->v[PKSFAULT_STAT_FAULTS]);
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (!r->faults_by_key[key])
			continue;
		fputs(first ? "{" : ",{", f);
		pksfault_json_key(f, env, key, r->owner_by_key[key]);
		fprintf(f, ",\"count\":%" PRIu64 "}", r->faults_by_key[key]);
		first = 0;
	}
	fputs("],\"faults_by_outcome\":{", f);
	for (i = 0; i < PKS_FAULT_NR_OUTCOMES; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", pks_fault_outcome_name(i),
			r->faults_by_outcome[i]);
	fputs("},\"fault_stacks\":[", f);
	for (i = 0; i < r->nr_stacks; i++) {
		const struct report_stack *s = &r->stacks[idx[i]];

		fprintf(f, "%s{\"count\":%" PRIu64 ",\"ip_sym\":", i ? "," : "", s->count);
		json_print_string(f, ksyms_format(env->ks, s->ip, ip, sizeof(ip)));
		fputs(",\"stack\":", f);
		pksfault_json_stack(f, env, s->stack, s->stack_sz, s->ip);
		fputc('}', f);
	}
	fprintf(f, "],\"leak_ms\":");
	if (r->leak_enabled)
		fprintf(f, "%ld", r->leak_ms);
	else
		fputs("null", f);
	fprintf(f, ",\"leaks\":%" PRIu64 ",\"still_open_leaks\":%" PRIu64 ",\"open_windows\":%"
		PRIu64 ",\"windows_opened\":%" PRIu64 ",\"windows_closed\":%" PRIu64
		",\"windows_unmatched\":%" PRIu64 ",\"irq_events_ignored\":%" PRIu64
		",\"lost_events\":%" PRIu64 ",\"ringbuf_drops\":%" PRIu64
		",\"untracked_windows\":%" PRIu64 ",\"recursion_misses\":%" PRIu64
		",\"leaks_reported_open\":%" PRIu64 ",\"windows_open_at_attach\":%" PRIu64
		",\"seeds_in_flight\":%" PRIu64 ",\"unbalanced_closes\":%" PRIu64,
		r->leaks, r->open_leaks, r->open_windows,
		(uint64_t)st->v[PKSFAULT_STAT_WIN_OPENED], (uint64_t)st->v[PKSFAULT_STAT_WIN_CLOSED],
		(uint64_t)st->v[PKSFAULT_STAT_WIN_UNMATCHED],
		(uint64_t)st->v[PKSFAULT_STAT_IRQ_EVENTS], report_lost(r),
		(uint64_t)st->v[PKSFAULT_STAT_LOST], (uint64_t)st->v[PKSFAULT_STAT_WIN_UNTRACKED],
		r->recursion_misses, r->leaks_reported_open, open_at_attach(r),
		(uint64_t)st->v[PKSFAULT_STAT_SEED_RACED], unbalanced(r));
	if (r->hist_enabled) {
		fputs(",\"hist_usecs\":", f);
		hist_json_log2(f, r->hist, PKSFAULT_HIST_SLOTS);
	}
	fputs(",\"command\":", f);
	if (r->cmd) {
		fputc('[', f);
		for (i = 0; r->cmd[i]; i++) {
			if (i)
				fputc(',', f);
			json_print_string(f, r->cmd[i]);
		}
		fprintf(f, "],\"command_exit\":");
		if (r->cmd_ran && !r->cmd_signal)
			fprintf(f, "%d", r->cmd_exit);
		else
			fputs("null", f);
		fprintf(f, ",\"command_signal\":%d,\"command_timed_out\":%s", r->cmd_signal,
			r->cmd_timed_out ? "true" : "false");
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"verdict\":\"%s\",\"exit\":%d}\n", verdict(r), report_exit_code(r));
}

void report_print_folded(FILE *f, const struct pksfault_env *env, const struct pksfault_report *r)
{
	char sym[160];
	int i, j, first, n;

	for (i = 0; i < r->nr_stacks; i++) {
		const struct report_stack *s = &r->stacks[i];

		n = frames(s->stack_sz);
		if (n > PKSFAULT_MAX_STACK)
			n = PKSFAULT_MAX_STACK;
		while (n > 0 && !s->stack[n - 1])
			n--;
		first = pksfault_first_frame(env, s->stack, n, s->ip);
		for (j = n - 1; j >= first; j--) {
			ksyms_format(env->ks, s->stack[j], sym, sizeof(sym));
			sym[strcspn(sym, "+ ;")] = '\0';	/* the function: folded lines merge on it */
			fprintf(f, "%s%s", j == n - 1 ? "" : ";", sym);
		}
		fprintf(f, " %" PRIu64 "\n", s->count);
	}
}

void report_print(FILE *f, const struct pksfault_env *env, const struct pksfault_report *r)
{
	const struct pksfault_stats *st = &r->stats;
	int idx[REPORT_MAX_STACKS], i, key;
	char ip[160], town[PKS_TEXT_OWNER_LEN];

	order_stacks(r, idx);
	if (env->json) {
		print_json(f, env, r, idx);
		return;
	}
	fprintf(f, "\n=== pksfault summary (%.1f s) ===\n", r->elapsed_s);
	fprintf(f, "faults: %" PRIu64 " (", r->faults);
	for (i = 0; i < PKS_FAULT_NR_OUTCOMES; i++)
		fprintf(f, "%s%s %" PRIu64, i ? ", " : "", pks_fault_outcome_name(i),
			r->faults_by_outcome[i]);
	fputs(")\n", f);
	for (key = 0; key < PKS_NR_KEYS; key++)
		if (r->faults_by_key[key])
			fprintf(f, "  key %d (%s): %" PRIu64 "\n", key,
				pks_text_owner(key_owner(env, r, key), town), r->faults_by_key[key]);
	for (i = 0; i < r->nr_stacks && i < SUMMARY_STACKS; i++) {
		const struct report_stack *s = &r->stacks[idx[i]];

		fprintf(f, "  %" PRIu64 " x at %s\n", s->count,
			ksyms_format(env->ks, s->ip, ip, sizeof(ip)));
		pksfault_print_stack(f, env, s->stack, s->stack_sz, s->ip, "      ");
	}
	if (r->nr_stacks > SUMMARY_STACKS)
		fprintf(f, "  ... %d more distinct stacks\n", r->nr_stacks - SUMMARY_STACKS);
	if (r->leak_enabled)
		fprintf(f, "leaks (windows held > %ld ms): %" PRIu64 " closed, %" PRIu64
			" still open (%" PRIu64 " reported while open)\n", r->leak_ms, r->leaks,
			r->open_leaks, r->leaks_reported_open);
	if (r->leak_enabled || r->hist_enabled)
		fprintf(f, "windows: %" PRIu64 " opened, %" PRIu64 " closed, %" PRIu64
			" open at exit, %" PRIu64 " open at attach, %" PRIu64
			" closes without a traced open, %" PRIu64 " hardirq/NMI events ignored\n",
			(uint64_t)st->v[PKSFAULT_STAT_WIN_OPENED],
			(uint64_t)st->v[PKSFAULT_STAT_WIN_CLOSED], r->open_windows,
			open_at_attach(r),
			(uint64_t)st->v[PKSFAULT_STAT_WIN_UNMATCHED],
			(uint64_t)st->v[PKSFAULT_STAT_IRQ_EVENTS]);
	fprintf(f, "unbalanced closes (a window closed that was not open): %" PRIu64 "\n",
		unbalanced(r));
	if (r->hist_enabled) {
		fprintf(f, "window durations:\n");
		hist_print_log2(f, r->hist, PKSFAULT_HIST_SLOTS, "usecs");
	}
	fprintf(f, "events lost: %" PRIu64 " (ring buffer full %" PRIu64 ", windows untracked %"
		PRIu64 ", BPF runs skipped %" PRIu64 ")\n", report_lost(r),
		(uint64_t)st->v[PKSFAULT_STAT_LOST], (uint64_t)st->v[PKSFAULT_STAT_WIN_UNTRACKED],
		r->recursion_misses);
	if (r->cmd_timed_out)
		fprintf(f, "command timed out: stopped with its process group\n");
	if (r->cmd_ran) {
		if (r->cmd_signal)
			fprintf(f, "command killed by signal %d\n", r->cmd_signal);
		else
			fprintf(f, "command exited %d\n", r->cmd_exit);
	}
	switch (report_exit_code(r)) {
	case PKS_EXIT_CLEAN:
		fprintf(f, "result: clean\n");
		break;
	case PKS_EXIT_CMD:
		fprintf(f, "result: clean, but the command failed (exit 3)\n");
		break;
	case PKS_EXIT_TIMEOUT:
		fprintf(f, "result: clean, but the command ran past --timeout and was stopped (exit 4)\n");
		break;
	case PKS_EXIT_LOST:
		fprintf(f, "result: LOST %" PRIu64 " events: nothing found in what was seen, "
			"but no verdict (exit 5)\n", report_lost(r));
		break;
	default:
		fprintf(f, "result: FOUND %" PRIu64 " faults, %" PRIu64 " leaks, %" PRIu64
			" unbalanced closes%s\n",
			r->faults > st->v[PKSFAULT_STAT_FAULTS] ? r->faults
								 : (uint64_t)st->v[PKSFAULT_STAT_FAULTS],
			r->leaks + r->open_leaks, unbalanced(r),
			report_lost(r) ? ", events lost" : "");
	}
}
