// SPDX-License-Identifier: GPL-2.0
/* pkstop output: sorting, the text table and the JSON document. */
#include <stdlib.h>
#include <string.h>

#include "view.h"

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_double(double a, double b)
{
	return a < b ? -1 : a > b;
}

/* Descending on the sort key, then ascending TID: a total order. */
static enum pkstop_sort sort_by;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct pkstop_row *a = pa, *b = pb;
	int c = 0;

	switch (sort_by) {
	case PKSTOP_SORT_DEPTH:
		c = cmp_u64(b->depth, a->depth);
		if (!c)
			c = cmp_double(b->held_s, a->held_s);
		if (!c)
			c = cmp_u64(b->max_depth, a->max_depth);
		if (!c)
			c = cmp_u64(b->d.opens, a->d.opens);
		break;
	case PKSTOP_SORT_OPENS:
		c = cmp_u64(b->d.opens, a->d.opens);
		break;
	case PKSTOP_SORT_OPENPCT:
		c = cmp_double(b->open_pct, a->open_pct);
		if (!c)
			c = cmp_double(b->held_s, a->held_s);
		break;
	case PKSTOP_SORT_FAULTS:
		c = cmp_u64(b->d.faults, a->d.faults);
		break;
	case PKSTOP_SORT_TID:
		break;
	}
	return c ? c : cmp_u64(a->tid, b->tid);
}

void pkstop_sort_rows(struct pkstop_row *rows, size_t n, enum pkstop_sort sort)
{
	sort_by = sort;
	qsort(rows, n, sizeof(*rows), cmp_rows);
}

const char *pkstop_fmt_duration(double s, char *buf, size_t len)
{
	unsigned long long t;

	if (s < 0)
		snprintf(buf, len, "-");
	else if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1000);
	else if (s < 60)
		snprintf(buf, len, "%.1fs", s);
	else if ((t = (unsigned long long)s) < 3600)
		snprintf(buf, len, "%llum%02llus", t / 60, t % 60);
	else if (t < 86400)
		snprintf(buf, len, "%lluh%02llum", t / 3600, t % 3600 / 60);
	else
		snprintf(buf, len, "%llud%02lluh", t / 86400, t % 86400 / 3600);
	return buf;
}

int pkstop_fmt_rights(uint32_t pkrs, uint16_t keymask, char *buf, size_t len)
{
	/* Key 0 is the kernel's own, always RW: not worth a column. */
	return pks_format_pkrs(pkrs, keymask & ~1u, buf, len);
}

const char *pkstop_table_header(void)
{
	return "    TID     PID COMM             PKRS       DEPTH MAXD  OPENS/s  OPEN%   UPD/s FAULTS    HELD RIGHTS";
}

int pkstop_fmt_row(const struct pkstop_row *r, uint16_t keymask, double interval_s,
		   char *buf, size_t len)
{
	char pkrs[16], depth[12], rights[128], held[16];
	double per_s = interval_s > 0 ? 1.0 / interval_s : 0;

	if (r->have_state) {
		snprintf(pkrs, sizeof(pkrs), "0x%08x", r->pkrs);
		snprintf(depth, sizeof(depth), "%u", r->depth);
		pkstop_fmt_rights(r->pkrs, keymask, rights, sizeof(rights));
	} else {
		snprintf(pkrs, sizeof(pkrs), "%s", r->exited ? "(exited)" : "-");
		snprintf(depth, sizeof(depth), "-");
		snprintf(rights, sizeof(rights), "-");
	}
	held[0] = r->held_s >= 0 && r->held_lower_bound ? '>' : '\0';
	held[1] = '\0';
	pkstop_fmt_duration(r->held_s, held + strlen(held), sizeof(held) - strlen(held));
	return snprintf(buf, len, "%7u %7u %-16.16s %-10s %5s %4u %8.1f %6.1f %7.1f %6llu %7s %s",
			r->tid, r->pid, r->comm, pkrs, depth, r->max_depth,
			r->d.opens * per_s, r->open_pct, r->d.updates * per_s,
			(unsigned long long)r->d.faults, held, rights);
}

static bool row_visible(const struct pkstop_row *r, const struct pkstop_opts *o)
{
	return !o->pid || r->pid == (uint32_t)o->pid;
}

/* -r: 0 means all; the default is 20 on screen and all in JSON. */
static size_t row_limit(const struct pkstop_opts *o)
{
	if (o->rows > 0)
		return o->rows;
	if (o->rows == 0 || o->json)
		return (size_t)-1;
	return 20;
}

size_t pkstop_visible_rows(const struct pkstop_sample *s, const struct pkstop_opts *o,
			   size_t *shown)
{
	size_t i, match = 0, limit = row_limit(o);

	for (i = 0; i < s->nrows; i++)
		match += row_visible(&s->rows[i], o);
	*shown = match < limit ? match : limit;
	return match;
}

static void pks_state(const struct pkstop_sample *s, char *buf, size_t len)
{
	if (!s->pks_present)
		snprintf(buf, len, "not present on this CPU (the kernel runs unprotected)");
	else if (s->pks_enabled)
		snprintf(buf, len, "present, enabled");
	else
		snprintf(buf, len, "present, no keys in use");
}

void pkstop_print_text(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o)
{
	char tbuf[32], state[80], line[512];
	double per_s = s->interval_s > 0 ? 1.0 / s->interval_s : 0;
	size_t i, match, shown, n = 0;
	struct tm tm;
	int key, nkeys = 0;

	localtime_r(&s->wall.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	pks_state(s, state, sizeof(state));
	fprintf(f, "pkstop - %s  interval %.2fs  PKS: %s\n", tbuf, s->interval_s, state);
	fprintf(f, "Keys:");
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (!(s->keymask & (1u << key)))
			continue;
		fprintf(f, "%s %d: %s", nkeys ? "," : "", key, s->owners[key]);
		nkeys++;
	}
	fprintf(f, "%s  (from %s)\n", nkeys ? "" : " none",
		s->keys_from_debugfs ? "debugfs" : "alloc/free events");
	fprintf(f, "Totals/s: opens %.1f  PKRS writes %.1f  updates %.1f  faults %.1f"
		"  (irq-context events %llu)\n",
		s->totals.opens * per_s, s->totals.pkrs_writes * per_s,
		s->totals.updates * per_s, s->totals.faults * per_s,
		(unsigned long long)s->irq_events);
	match = pkstop_visible_rows(s, o, &shown);
	fprintf(f, "Drops: %llu (thread map full %llu, BPF runs missed %llu)  "
		"threads: %zu shown of %zu, %llu tracked  pkstop CPU %.1fms\n\n",
		(unsigned long long)(s->map_full + s->missed),
		(unsigned long long)s->map_full, (unsigned long long)s->missed,
		shown, match, (unsigned long long)s->threads_tracked, s->self_cpu_ms);
	fprintf(f, "%s\n", pkstop_table_header());
	for (i = 0; i < s->nrows && n < shown; i++) {
		if (!row_visible(&s->rows[i], o))
			continue;
		pkstop_fmt_row(&s->rows[i], s->keymask, s->interval_s, line, sizeof(line));
		fprintf(f, "%s\n", line);
		n++;
	}
}

static void json_counts(FILE *f, const struct pkstop_delta *d, double per_s)
{
	fprintf(f, "\"opens\":%llu,\"enables\":%llu,\"pkrs_writes\":%llu,\"updates\":%llu,"
		"\"faults\":%llu,\"opens_per_s\":%.3f,\"pkrs_writes_per_s\":%.3f,"
		"\"updates_per_s\":%.3f,\"faults_per_s\":%.3f",
		(unsigned long long)d->opens, (unsigned long long)d->enables,
		(unsigned long long)d->pkrs_writes, (unsigned long long)d->updates,
		(unsigned long long)d->faults, d->opens * per_s, d->pkrs_writes * per_s,
		d->updates * per_s, d->faults * per_s);
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

static void json_row(FILE *f, const struct pkstop_row *r, uint16_t keymask, double per_s)
{
	int key, n = 0;

	fprintf(f, "{\"tid\":%u,\"pid\":%u,\"context\":\"%s\",\"cpu\":", r->tid, r->pid,
		pkstop_row_context_name(r->context));
	if (r->context == PKS_ROW_TASK)
		fputs("null", f);
	else
		fprintf(f, "%u", r->cpu);
	fputs(",\"comm\":", f);
	json_print_string(f, r->comm);
	if (r->have_state) {
		fprintf(f, ",\"pkrs\":\"0x%08x\",\"rights\":{", r->pkrs);
		for (key = 1; key < PKS_NR_KEYS; key++) {
			if (!(keymask & (1u << key)))
				continue;
			fprintf(f, "%s\"%d\":\"%s\"", n++ ? "," : "", key,
				pks_rights_name(r->pkrs, key));
		}
		fprintf(f, "},\"depth\":%u", r->depth);
	} else {
		fprintf(f, ",\"pkrs\":null,\"rights\":null,\"depth\":null");
	}
	fprintf(f, ",\"max_depth\":%u,", r->max_depth);
	json_counts(f, &r->d, per_s);
	fprintf(f, ",\"open_pct\":%.2f,\"held_s\":", r->open_pct);
	if (r->held_s >= 0)
		fprintf(f, "%.3f", r->held_s);
	else
		fputs("null", f);
	fprintf(f, ",\"held_at_least\":%s,\"exited\":%s}",
		r->held_lower_bound ? "true" : "false", r->exited ? "true" : "false");
}

void pkstop_print_json(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o)
{
	double per_s = s->interval_s > 0 ? 1.0 / s->interval_s : 0;
	size_t i, match, shown, n = 0;
	char tbuf[40];
	struct tm tm;
	int key, nkeys = 0;

	gmtime_r(&s->wall.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "{\"time\":\"%s\",\"timestamp\":%lld.%03ld,\"interval_s\":%.3f,",
		tbuf, (long long)s->wall.tv_sec, s->wall.tv_nsec / 1000000, s->interval_s);
	fprintf(f, "\"pks\":{\"present\":%s,\"enabled\":%s},\"keys\":[",
		s->pks_present ? "true" : "false", s->pks_enabled ? "true" : "false");
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (!(s->keymask & (1u << key)))
			continue;
		fprintf(f, "%s{\"key\":%d,\"owner\":", nkeys++ ? "," : "", key);
		json_print_string(f, s->owners[key]);
		fputc('}', f);
	}
	fprintf(f, "],\"keys_source\":\"%s\",\"totals\":{",
		s->keys_from_debugfs ? "debugfs" : "events");
	json_counts(f, &s->totals, per_s);
	fprintf(f, "},\"irq_events\":%llu,\"key_events\":%llu,"
		"\"drops\":{\"total\":%llu,\"map_full\":%llu,\"missed\":%llu},",
		(unsigned long long)s->irq_events, (unsigned long long)s->key_events,
		(unsigned long long)(s->map_full + s->missed),
		(unsigned long long)s->map_full, (unsigned long long)s->missed);
	match = pkstop_visible_rows(s, o, &shown);
	fprintf(f, "\"threads_tracked\":%llu,\"threads_matching\":%zu,\"self_cpu_ms\":%.3f,"
		"\"sort\":\"%s\",\"threads\":[",
		(unsigned long long)s->threads_tracked, match, s->self_cpu_ms,
		pkstop_sort_name(o->sort));
	for (i = 0; i < s->nrows && n < shown; i++) {
		if (!row_visible(&s->rows[i], o))
			continue;
		if (n++)
			fputc(',', f);
		json_row(f, &s->rows[i], s->keymask, per_s);
	}
	fputs("]}\n", f);
}
