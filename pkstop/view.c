// SPDX-License-Identifier: GPL-2.0
/* pkstop output: sorting, the text table and the JSON document. */
#include <stdlib.h>
#include <string.h>

#include "rollup.h"
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
	else if (t < 100 * 86400)
		snprintf(buf, len, "%llud%02lluh", t / 86400, t % 86400 / 3600);
	else	/* at most 6 characters below 1000 years, '>' included: the HELD column */
		snprintf(buf, len, "%llud", t / 86400);
	return buf;
}

const char *pkstop_fmt_fit(double v, int prec, int width, char *buf, size_t len)
{
	static const char suffix[] = "kMGTPE";
	int i;

	if (snprintf(buf, len, "%.*f", prec, v) <= width ||
	    snprintf(buf, len, "%.0f", v) <= width)
		return buf;
	for (i = 0; suffix[i]; i++) {
		v /= 1000;
		if (snprintf(buf, len, "%.1f%c", v, suffix[i]) <= width ||
		    snprintf(buf, len, "%.0f%c", v, suffix[i]) <= width)
			break;
	}
	return buf;
}

int pkstop_fmt_rights(uint32_t pkrs, uint16_t keymask, char *buf, size_t len)
{
	/* Key 0 is the kernel's own, always RW: not worth a column. */
	return pks_format_pkrs(pkrs, keymask & ~1u, buf, len);
}

/*
 * Two layouts.  Wide (100 columns and more): every column, for a terminal
 * that has the room and for output that is not a terminal (logs, scripts).
 * Compact (under 80 with up to two device-memory keys), for an 80-column
 * terminal: no PKRS (RIGHTS decodes it), no MAXD, no UPD/s; an exited
 * thread says so under RIGHTS.  JSON has everything either way.
 */
#define WIDE_FMT	"%7s %7s %-16s %-10s %5s %4s %8s %6s %7s %6s %7s %s"
#define COMPACT_FMT	"%7s %7s %-15s %5s %8s %6s %6s %7s %s"
#define COMPACT_COMM	15
#define WIDE_COMM	16

const char *pkstop_table_header(bool wide)
{
	if (wide)
		return "    TID     PID COMM             PKRS       DEPTH MAXD  OPENS/s  OPEN%"
		       "   UPD/s FAULTS    HELD RIGHTS";
	return "    TID     PID COMM            DEPTH  OPENS/s  OPEN% FAULTS    HELD RIGHTS";
}

bool pkstop_layout_wide(int width, uint16_t keymask)
{
	/* The rights of every allocated key take the same room in every row. */
	int rights = pkstop_fmt_rights(0, keymask, NULL, 0);
	int before = strlen(pkstop_table_header(true)) - strlen("RIGHTS");

	return width <= 0 || width >= before + (rights > 6 ? rights : 6);
}

int pkstop_fmt_row(const struct pkstop_row *r, uint16_t keymask, double interval_s, bool wide,
		   char *buf, size_t len)
{
	char tid[16], pid[16], comm[WIDE_COMM + 1], pkrs[16], depth[16], maxd[16];
	char opens[32], pct[16], upd[32], faults[32], rights[128], held[16];
	double per_s = interval_s > 0 ? 1.0 / interval_s : 0;

	snprintf(tid, sizeof(tid), "%u", r->tid);
	snprintf(pid, sizeof(pid), "%u", r->pid);
	/* Whole escapes that fit the column: the name is the task's to choose. */
	pks_escape_comm(r->comm, sizeof(r->comm), comm, wide ? WIDE_COMM + 1 : COMPACT_COMM + 1);
	if (r->have_state) {
		snprintf(pkrs, sizeof(pkrs), "0x%08x", r->pkrs);
		snprintf(depth, sizeof(depth), "%u", r->depth);
		pkstop_fmt_rights(r->pkrs, keymask, rights, sizeof(rights));
	} else {
		snprintf(pkrs, sizeof(pkrs), "%s", r->exited ? "(exited)" : "-");
		snprintf(depth, sizeof(depth), "-");
		/* Compact has no PKRS column: "(exited)" goes here. */
		snprintf(rights, sizeof(rights), "%s", wide ? "-" : pkrs);
	}
	snprintf(maxd, sizeof(maxd), "%u", r->max_depth);
	pkstop_fmt_fit(r->d.opens * per_s, 1, 8, opens, sizeof(opens));
	snprintf(pct, sizeof(pct), "%.1f", r->open_pct);
	pkstop_fmt_fit(r->d.updates * per_s, 1, 7, upd, sizeof(upd));
	pkstop_fmt_fit(r->d.faults, 0, 6, faults, sizeof(faults));
	held[0] = r->held_s >= 0 && r->held_lower_bound ? '>' : '\0';
	held[1] = '\0';
	pkstop_fmt_duration(r->held_s, held + strlen(held), sizeof(held) - strlen(held));
	if (wide)
		return snprintf(buf, len, WIDE_FMT, tid, pid, comm, pkrs, depth, maxd, opens, pct,
				upd, faults, held, rights);
	return snprintf(buf, len, COMPACT_FMT, tid, pid, comm, depth, opens, pct, faults, held,
			rights);
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
		match += pkstop_row_visible(&s->rows[i], o);
	*shown = match < limit ? match : limit;
	return match;
}

static void pks_state(const struct pkstop_sample *s, bool wide, char *buf, size_t len)
{
	if (!s->pks_present)
		snprintf(buf, len, "not present on this CPU%s",
			 wide ? " (the kernel runs unprotected)" : "");
	else if (s->pks_enabled)
		snprintf(buf, len, "present, enabled");
	else
		snprintf(buf, len, "present, no keys in use");
}

/* -K: every key allocated or active; the header's counts are the totals. */
static void print_keys(FILE *f, const struct pkstop_sample *s)
{
	struct pkstop_key_stat keys[PKS_NR_KEYS];
	size_t i, n = pkstop_key_stats(s, keys);
	char line[256];

	fprintf(f, "%s\n", pkstop_key_header());
	for (i = 0; i < n; i++) {
		pkstop_fmt_key(&keys[i], s->owners[keys[i].key], s->interval_s, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
}

/* -P: the visible rows by process, within -r. */
static void print_processes(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o)
{
	size_t i, limit = row_limit(o);
	struct pkstop_proc *procs;
	char line[256];
	long n = pkstop_processes(s, o, &procs);

	fprintf(f, "%s\n", pkstop_proc_header());
	for (i = 0; n > 0 && i < (size_t)n && i < limit; i++) {
		pkstop_fmt_proc(&procs[i], s->interval_s, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (n < 0)
		fprintf(f, "(out of memory)\n");
	else
		free(procs);
}

void pkstop_print_text(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o)
{
	char tbuf[32], state[80], line[512], n1[32], n2[32], n3[32], n4[32];
	char town[PKS_TEXT_OWNER_LEN];
	double per_s = s->interval_s > 0 ? 1.0 / s->interval_s : 0;
	bool wide = pkstop_layout_wide(o->width, s->keymask);
	size_t i, match, shown, n = 0;
	struct tm tm;
	int key, nkeys = 0;

	localtime_r(&s->wall.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	pks_state(s, wide, state, sizeof(state));
	fprintf(f, "pkstop - %s  interval %.2fs%s  PKS: %s  sort: %s\n", tbuf, s->interval_s,
		s->partial ? " (partial)" : "", state, pkstop_sort_name(o->sort));
	fprintf(f, "Keys:");
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (!(s->keymask & (1u << key)))
			continue;
		fprintf(f, "%s %d: %s", nkeys ? "," : "", key, pks_text_owner(s->owners[key], town));
		nkeys++;
	}
	fprintf(f, "%s  (from %s)\n", nkeys ? "" : " none",
		s->keys_source == PKS_KEYS_FROM_EVENTS ? "alloc/free events" :
		pks_keys_source_name(s->keys_source));
	match = pkstop_visible_rows(s, o, &shown);
	if (wide) {
		fprintf(f, "Totals/s: opens %.1f  PKRS writes %.1f  updates %.1f  faults %.1f"
			"  (irq-context events %llu)\n",
			s->totals.opens * per_s, s->totals.pkrs_writes * per_s,
			s->totals.updates * per_s, s->totals.faults * per_s,
			(unsigned long long)s->irq_events);
		fprintf(f, "Drops: %llu (thread map full %llu, BPF runs missed %llu)  "
			"threads: %zu shown of %zu, %llu tracked  pkstop CPU %.1fms\n\n",
			(unsigned long long)(s->map_full + s->missed),
			(unsigned long long)s->map_full, (unsigned long long)s->missed,
			shown, match, (unsigned long long)s->threads_tracked, s->self_cpu_ms);
	} else {
		/* The same, in lines under 80 columns (PKSTOP_TEXT_HEADER_LINES). */
		fprintf(f, "Totals/s: opens %s  PKRS writes %s  updates %s  faults %s\n",
			pkstop_fmt_fit(s->totals.opens * per_s, 1, 7, n1, sizeof(n1)),
			pkstop_fmt_fit(s->totals.pkrs_writes * per_s, 1, 7, n2, sizeof(n2)),
			pkstop_fmt_fit(s->totals.updates * per_s, 1, 7, n3, sizeof(n3)),
			pkstop_fmt_fit(s->totals.faults * per_s, 1, 7, n4, sizeof(n4)));
		fprintf(f, "Drops: %s (map full %s, missed %s)  irq-context events %s\n",
			pkstop_fmt_fit(s->map_full + s->missed, 0, 7, n1, sizeof(n1)),
			pkstop_fmt_fit(s->map_full, 0, 7, n2, sizeof(n2)),
			pkstop_fmt_fit(s->missed, 0, 7, n3, sizeof(n3)),
			pkstop_fmt_fit(s->irq_events, 0, 7, n4, sizeof(n4)));
		fprintf(f, "Threads: %zu shown of %zu, %s tracked  pkstop CPU %.1fms\n\n",
			shown, match, pkstop_fmt_fit(s->threads_tracked, 0, 7, n1, sizeof(n1)),
			s->self_cpu_ms);
	}
	switch (o->view) {
	case PKSTOP_VIEW_KEYS:
		print_keys(f, s);
		return;
	case PKSTOP_VIEW_PROCESSES:
		print_processes(f, s, o);
		return;
	case PKSTOP_VIEW_THREADS:
		break;
	}
	fprintf(f, "%s\n", pkstop_table_header(wide));
	for (i = 0; i < s->nrows && n < shown; i++) {
		if (!pkstop_row_visible(&s->rows[i], o))
			continue;
		pkstop_fmt_row(&s->rows[i], s->keymask, s->interval_s, wide, line, sizeof(line));
		fprintf(f, "%s\n", line);
		n++;
	}
}

void pkstop_json_counts(FILE *f, const struct pkstop_delta *d, double per_s)
{
	fprintf(f, "\"opens\":%llu,\"enables\":%llu,\"pkrs_writes\":%llu,\"updates\":%llu,"
		"\"faults\":%llu,\"opens_per_s\":%.3f,\"pkrs_writes_per_s\":%.3f,"
		"\"updates_per_s\":%.3f,\"faults_per_s\":%.3f",
		(unsigned long long)d->opens, (unsigned long long)d->enables,
		(unsigned long long)d->pkrs_writes, (unsigned long long)d->updates,
		(unsigned long long)d->faults, d->opens * per_s, d->pkrs_writes * per_s,
		d->updates * per_s, d->faults * per_s);
}

void pkstop_json_thread(FILE *f, uint32_t tid, uint32_t pid, enum pkstop_row_context context,
			uint32_t cpu, const char *comm)
{
	fprintf(f, "\"tid\":%u,\"pid\":%u,\"context\":\"%s\",\"cpu\":", tid, pid,
		pkstop_row_context_name(context));
	if (context == PKS_ROW_TASK)
		fputs("null", f);
	else
		fprintf(f, "%u", cpu);
	fputs(",\"comm\":", f);
	json_print_string(f, comm);
}

static void json_row(FILE *f, const struct pkstop_row *r, uint16_t keymask, double per_s)
{
	int key, n = 0;

	fputc('{', f);
	pkstop_json_thread(f, r->tid, r->pid, r->context, r->cpu, r->comm);
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
	pkstop_json_counts(f, &r->d, per_s);
	fprintf(f, ",\"open_pct\":%.2f,\"held_s\":", r->open_pct);
	if (r->held_s >= 0)
		fprintf(f, "%.3f", r->held_s);
	else
		fputs("null", f);
	fprintf(f, ",\"held_at_least\":%s,\"exited\":%s}",
		r->held_lower_bound ? "true" : "false", r->exited ? "true" : "false");
}

/* ,"processes":[...] (-P), within -r like the threads. */
static void json_processes(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o,
			   double per_s)
{
	size_t i, limit = row_limit(o);
	struct pkstop_proc *procs;
	long n = pkstop_processes(s, o, &procs);

	fputs(",\"processes\":", f);
	if (n < 0) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (i = 0; i < (size_t)n && i < limit; i++) {
		if (i)
			fputc(',', f);
		pkstop_json_proc(f, &procs[i], per_s);
	}
	fputc(']', f);
	free(procs);
}

void pkstop_print_json(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o)
{
	double per_s = s->interval_s > 0 ? 1.0 / s->interval_s : 0;
	struct pkstop_key_stat keys[PKS_NR_KEYS];
	size_t i, match, shown, n = 0, nkeys = pkstop_key_stats(s, keys);
	char tbuf[40];
	int key, oc;

	pks_iso8601((int64_t)s->wall.tv_sec * 1000000000 + s->wall.tv_nsec, tbuf, sizeof(tbuf));
	pks_json_open(f, "sample");
	fprintf(f, ",\"time\":\"%s\",\"timestamp\":%lld.%03ld,\"interval_s\":%.3f,\"partial\":%s,",
		tbuf, (long long)s->wall.tv_sec, s->wall.tv_nsec / 1000000, s->interval_s,
		s->partial ? "true" : "false");
	fprintf(f, "\"pks\":{\"present\":%s,\"enabled\":%s},\"keys\":[",
		s->pks_present ? "true" : "false", s->pks_enabled ? "true" : "false");
	/* Allocated keys, and any other with activity (owner unknown: ""). */
	for (i = 0; i < nkeys; i++) {
		key = keys[i].key;
		fprintf(f, "%s{\"key\":%d,\"owner\":", i ? "," : "", key);
		json_print_string(f, s->owners[key][0] ? s->owners[key] : NULL);
		fputs(",\"faults\":{", f);
		for (oc = 0; oc < PKS_FAULT_NR_OUTCOMES; oc++)
			fprintf(f, "%s\"%s\":%llu", oc ? "," : "", pks_fault_outcome_name(oc),
				(unsigned long long)s->faults_by[key][oc]);
		fputs("},", f);
		pkstop_json_key_stat(f, &keys[i], per_s);
		fputc('}', f);
	}
	fprintf(f, "],\"keys_source\":\"%s\",\"interval\":{",
		pks_keys_source_name(s->keys_source));
	pkstop_json_counts(f, &s->totals, per_s);
	fprintf(f, "},\"irq_events\":%llu,\"key_events_total\":%llu,"
		"\"drops_total\":{\"all\":%llu,\"map_full\":%llu,\"missed\":%llu},",
		(unsigned long long)s->irq_events, (unsigned long long)s->key_events,
		(unsigned long long)(s->map_full + s->missed),
		(unsigned long long)s->map_full, (unsigned long long)s->missed);
	match = pkstop_visible_rows(s, o, &shown);
	fprintf(f, "\"threads_tracked\":%llu,\"threads_matching\":%zu,\"self_cpu_ms\":%.3f,"
		"\"sort\":\"%s\",\"threads\":[",
		(unsigned long long)s->threads_tracked, match, s->self_cpu_ms,
		pkstop_sort_name(o->sort));
	for (i = 0; i < s->nrows && n < shown; i++) {
		if (!pkstop_row_visible(&s->rows[i], o))
			continue;
		if (n++)
			fputc(',', f);
		json_row(f, &s->rows[i], s->keymask, per_s);
	}
	fputc(']', f);
	if (o->view == PKSTOP_VIEW_PROCESSES)
		json_processes(f, s, o, per_s);
	fputs("}\n", f);
}

/* The -K and -P tables (the entries of rollup.h): text and JSON. */
const char *pkstop_key_header(void)
{
	return "KEY OWNER                  OPENS/s    OPEN%  PKRS-W/s  FAULTS HOLDERS";
}

int pkstop_fmt_key(const struct pkstop_key_stat *k, const char *owner, double interval_s,
		   char *buf, size_t len)
{
	char name[21], opens[32], pct[32], writes[32], faults[32];
	double per_s = interval_s > 0 ? 1.0 / interval_s : 0;

	/* An owner is a kernel string, but escaped like a comm all the same. */
	pks_escape_comm(owner && *owner ? owner : "?", PKS_OWNER_LEN, name, sizeof(name));
	pkstop_fmt_fit(k->opens * per_s, 1, 9, opens, sizeof(opens));
	pkstop_fmt_fit(k->open_pct, 1, 8, pct, sizeof(pct));
	pkstop_fmt_fit(k->pkrs_writes * per_s, 1, 9, writes, sizeof(writes));
	pkstop_fmt_fit(k->faults, 0, 7, faults, sizeof(faults));
	return snprintf(buf, len, "%3d %-20s %9s %8s %9s %7s %7u", k->key, name, opens, pct,
			writes, faults, k->holders);
}

const char *pkstop_proc_header(void)
{
	return "    PID COMM              THR HOLD MAXD  OPENS/s   OPEN%  FAULTS    HELD";
}

int pkstop_fmt_proc(const struct pkstop_proc *p, double interval_s, char *buf, size_t len)
{
	char comm[17], opens[32], pct[32], faults[32], held[16];
	double per_s = interval_s > 0 ? 1.0 / interval_s : 0;

	pks_escape_comm(p->comm, sizeof(p->comm), comm, sizeof(comm));
	pkstop_fmt_fit(p->d.opens * per_s, 1, 8, opens, sizeof(opens));
	pkstop_fmt_fit(p->open_pct, 1, 7, pct, sizeof(pct));
	pkstop_fmt_fit(p->d.faults, 0, 7, faults, sizeof(faults));
	held[0] = p->held_s >= 0 && p->held_lower_bound ? '>' : '\0';
	held[1] = '\0';
	pkstop_fmt_duration(p->held_s, held + strlen(held), sizeof(held) - strlen(held));
	return snprintf(buf, len, "%7u %-16s %4u %4u %4u %8s %7s %7s %7s", p->pid, comm,
			p->threads, p->holding, p->max_depth, opens, pct, faults, held);
}

void pkstop_json_key_stat(FILE *f, const struct pkstop_key_stat *k, double per_s)
{
	fprintf(f, "\"opens\":%llu,\"opens_per_s\":%.3f,\"pkrs_writes\":%llu,"
		"\"pkrs_writes_per_s\":%.3f,\"faults_sum\":%llu,\"open_pct\":%.2f,"
		"\"holders\":%u",
		(unsigned long long)k->opens, k->opens * per_s,
		(unsigned long long)k->pkrs_writes, k->pkrs_writes * per_s,
		(unsigned long long)k->faults, k->open_pct, k->holders);
}

void pkstop_json_proc(FILE *f, const struct pkstop_proc *p, double per_s)
{
	fprintf(f, "{\"pid\":%u,\"context\":\"%s\",\"cpu\":", p->pid,
		pkstop_row_context_name(p->context));
	if (p->context == PKS_ROW_TASK)
		fputs("null", f);
	else
		fprintf(f, "%u", p->cpu);
	fputs(",\"comm\":", f);
	json_print_string(f, p->comm);
	fprintf(f, ",\"threads\":%u,\"holding\":%u,\"max_depth\":%u,", p->threads, p->holding,
		p->max_depth);
	pkstop_json_counts(f, &p->d, per_s);
	fprintf(f, ",\"open_pct\":%.2f,\"held_s\":", p->open_pct);
	if (p->held_s >= 0)
		fprintf(f, "%.3f", p->held_s);
	else
		fputs("null", f);
	fprintf(f, ",\"held_at_least\":%s}", p->held_lower_bound ? "true" : "false");
}
