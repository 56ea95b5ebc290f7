// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics text for node exporter's textfile collector, in the Prometheus
 * text format 0.0.4, which that collector parses (and promtool checks):
 * counters are named *_total with the TYPE line naming them so, units
 * are in the names (seconds), every family has HELP and TYPE.  Not
 * OpenMetrics (whose counter families drop _total and whose files end in
 * "# EOF"): one format, named as what it is.  Names are documented in
 * pkstop(8).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "openmetrics.h"

#define DEVICE_OWNER "Device Memory"

void pkstop_om_add(struct pkstop_om *om, const struct pkstop_sample *s)
{
	pkstop_delta_add(&om->totals, &s->totals);
	for (int key = 0; key < PKS_NR_KEYS; key++) {
		om->opens_by[key] += s->opens_by[key];
		om->pkrs_writes_by[key] += s->pkrs_writes_by[key];
	}
	pkstop_faults_add(om->faults_by, s->faults_by);
	om->irq_events += s->irq_events;
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* {key="K",owner="O"} of the device-memory key windows belong to, or "". */
static void device_labels(FILE *f, const struct pkstop_sample *s)
{
	int key;

	for (key = 1; key < PKS_NR_KEYS; key++)
		if ((s->keymask & (1u << key)) && !strcmp(s->owners[key], DEVICE_OWNER)) {
			fprintf(f, "{key=\"%d\",owner=\"", key);
			label_value(f, s->owners[key]);
			fputs("\"}", f);
			return;
		}
}

/* {key="K",owner="O"}: "unallocated" for a key nobody owns now. */
static void key_labels(FILE *f, const struct pkstop_sample *s, int key, const char *more)
{
	fprintf(f, "{key=\"%d\",owner=\"", key);
	label_value(f, (s->keymask & (1u << key)) ? s->owners[key] : "unallocated");
	fprintf(f, "\"%s}", more);
}

/*
 * A counter by key: a sample for every allocated key but key 0, the
 * kernel's own (zeros included, so that rates exist from the start), and
 * for any other key with a count, as pks_faults_total has.
 */
static void by_key(FILE *f, const char *name, const uint64_t by[PKS_NR_KEYS],
		   const struct pkstop_sample *s)
{
	int key;

	for (key = 0; key < PKS_NR_KEYS; key++) {
		if ((!key || !(s->keymask & (1u << key))) && !by[key])
			continue;
		fputs(name, f);
		key_labels(f, s, key, "");
		fprintf(f, " %llu\n", (unsigned long long)by[key]);
	}
}

/*
 * pks_faults_total{key,owner,outcome}: a sample for every outcome of every
 * allocated key but key 0, the kernel's own (zeros included, so that rates
 * exist from the start), and for any other key that faulted.
 */
static void faults(FILE *f, const struct pkstop_om *om, const struct pkstop_sample *s)
{
	uint64_t any;
	int key, o;

	for (key = 0; key < PKS_NR_KEYS; key++) {
		for (any = 0, o = 0; o < PKS_FAULT_NR_OUTCOMES; o++)
			any |= om->faults_by[key][o];
		if ((!key || !(s->keymask & (1u << key))) && !any)
			continue;
		for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++) {
			char outcome[48];

			snprintf(outcome, sizeof(outcome), ",outcome=\"%s\"",
				 pks_fault_outcome_name(o));
			fputs("pks_faults_total", f);
			key_labels(f, s, key, outcome);
			fprintf(f, " %llu\n", (unsigned long long)om->faults_by[key][o]);
		}
	}
}

void pkstop_om_format(FILE *f, const struct pkstop_om *om, const struct pkstop_sample *s)
{
	unsigned int open = 0, allocated = 0;
	double held_max = 0;
	size_t i;
	int key;

	for (i = 0; i < s->nrows; i++) {
		const struct pkstop_row *r = &s->rows[i];

		if (r->have_state && r->depth)
			open++;
		if (r->held_s > held_max)
			held_max = r->held_s;
	}
	family(f, "pks_window_opens_total", "counter",
	       "Outermost device-access windows opened (dev_access_enable at depth 1), by key.");
	by_key(f, "pks_window_opens_total", om->opens_by, s);
	family(f, "pks_window_enables_total", "counter",
	       "dev_access_enable calls at any depth.");
	fputs("pks_window_enables_total", f);
	device_labels(f, s);
	fprintf(f, " %llu\n", (unsigned long long)om->totals.enables);
	family(f, "pks_protection_updates_total", "counter", "pks_update_protection calls (windows not included).");
	fprintf(f, "pks_protection_updates_total %llu\n", (unsigned long long)om->totals.updates);
	family(f, "pks_pkrs_writes_total", "counter",
	       "PKRS MSR writes by windows and protection updates, by key.");
	by_key(f, "pks_pkrs_writes_total", om->pkrs_writes_by, s);
	family(f, "pks_faults_total", "counter",
	       "Stray accesses to protected pages (pks_fault events), any context, by key and outcome.");
	faults(f, om, s);
	family(f, "pks_irq_events_total", "counter",
	       "PKS events in hardirq or NMI context (on no thread's row).");
	fprintf(f, "pks_irq_events_total %llu\n", (unsigned long long)om->irq_events);
	family(f, "pks_events_dropped_total", "counter",
	       "Events pkstop could not account: thread map full, BPF runs skipped.");
	fprintf(f, "pks_events_dropped_total %llu\n",
		(unsigned long long)(s->map_full + s->missed));
	family(f, "pks_windows_open", "gauge", "Threads holding a device-access window now.");
	fprintf(f, "pks_windows_open %u\n", open);
	family(f, "pks_window_held_seconds_max", "gauge",
	       "Longest time a window still open has been held (0: none open).");
	fprintf(f, "pks_window_held_seconds_max %.6f\n", held_max);
	family(f, "pks_key_info", "gauge", "Allocated protection keys and their owners (1 each).");
	for (key = 1; key < PKS_NR_KEYS; key++) {
		if (!(s->keymask & (1u << key)))
			continue;
		allocated++;
		fprintf(f, "pks_key_info{key=\"%d\",owner=\"", key);
		label_value(f, s->owners[key]);
		fputs("\"} 1\n", f);
	}
	family(f, "pks_keys_allocated", "gauge", "Protection keys allocated (key 0 not counted).");
	fprintf(f, "pks_keys_allocated %u\n", allocated);
	family(f, "pks_present", "gauge", "1 if the CPU has PKS.");
	fprintf(f, "pks_present %d\n", s->pks_present);
	family(f, "pks_enabled", "gauge", "1 if the kernel uses PKS (a key is allocated).");
	fprintf(f, "pks_enabled %d\n", s->pks_enabled);
}

int pkstop_om_write(const char *path, const struct pkstop_om *om, const struct pkstop_sample *s)
{
	size_t len = strlen(path) + 5;
	char *tmp = malloc(len);
	int err = 0;
	FILE *f;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		free(tmp);
		return err;
	}
	pkstop_om_format(f, om, s);
	if (fflush(f) || ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	/* The collector reads whole files only: never a half-written one. */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
