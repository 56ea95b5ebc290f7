// SPDX-License-Identifier: GPL-2.0
/* pksfault's JUnit XML report; see pksfault_junit.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "junit.h"

/*
 * Text in an attribute or element: the five XML specials as entities, the
 * bytes XML 1.0 cannot carry at all (C0 controls but tab and newline) as
 * "\xNN", as the text records write odd comm bytes.
 */
static void xml_text(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if (*p < 0x20 && *p != '\t' && *p != '\n')
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
}

struct junit_case {
	const char *name;
	const char *type;	/* the failure's type */
	uint64_t found;		/* 0: passed */
	const char *what;	/* "stray faults" in the message */
	const char *skipped;	/* not checked in this run: why */
	const struct report_findings *findings;
};

static void print_case(FILE *f, const struct junit_case *c, double secs)
{
	char msg[160];
	int i;

	fputs("    <testcase classname=\"pksfault\" name=\"", f);
	xml_text(f, c->name);
	fprintf(f, "\" time=\"%.3f\"", secs);
	if (c->skipped) {
		fputs(">\n      <skipped message=\"", f);
		xml_text(f, c->skipped);
		fputs("\"/>\n    </testcase>\n", f);
		return;
	}
	if (!c->found) {
		fputs("/>\n", f);
		return;
	}
	snprintf(msg, sizeof(msg), "%" PRIu64 " %s", c->found, c->what);
	fputs(">\n      <failure message=\"", f);
	xml_text(f, msg);
	fprintf(f, "\" type=\"%s\">", c->type);
	for (i = 0; c->findings && i < c->findings->n; i++)
		xml_text(f, c->findings->text[i]);
	if (c->findings && c->findings->dropped)
		fprintf(f, "... %" PRIu64 " more not listed\n", c->findings->dropped);
	fputs("</failure>\n    </testcase>\n", f);
}

void junit_print(FILE *f, const struct pksfault_report *r)
{
	const struct pksfault_stats *st = &r->stats;
	char lost[200];
	struct junit_case cases[] = {
		{ "stray faults", "stray_fault", report_faults(r), "stray faults", NULL,
		  &r->findings[REPORT_FAULT] },
		{ "leaked windows", "leaked_window", r->leaks + r->open_leaks,
		  "device-access windows held too long", r->leak_enabled ? NULL :
		  "windows not followed (no --leak)", &r->findings[REPORT_LEAK] },
		{ "unbalanced closes", "unbalanced_close", report_unbalanced(r),
		  "closes of a window that was not open", NULL, &r->findings[REPORT_UNBALANCED] },
		{ "lost events", "lost_events", report_lost(r), "events lost: the run did not see "
		  "everything", NULL, NULL },
	};
	int i, n = sizeof(cases) / sizeof(cases[0]), failures = 0, skipped = 0;

	for (i = 0; i < n; i++) {
		failures += !cases[i].skipped && cases[i].found;
		skipped += cases[i].skipped != NULL;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"pksfault\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"skipped=\"%d\" time=\"%.3f\">\n", n, failures, skipped, r->elapsed_s);
	fprintf(f, "  <testsuite name=\"pksfault\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"skipped=\"%d\" time=\"%.3f\">\n", n, failures, skipped, r->elapsed_s);
	for (i = 0; i < n; i++)
		print_case(f, &cases[i], r->elapsed_s);
	/* What the run was: the command and its status, the losses by cause. */
	fputs("    <system-out>", f);
	if (r->cmd) {
		fputs("command:", f);
		for (i = 0; r->cmd[i]; i++) {
			fputc(' ', f);
			xml_text(f, r->cmd[i]);
		}
		if (r->cmd_signal)
			fprintf(f, "\ncommand killed by signal %d", r->cmd_signal);
		else if (r->cmd_ran)
			fprintf(f, "\ncommand exited %d", r->cmd_exit);
		fputc('\n', f);
	}
	snprintf(lost, sizeof(lost), "events lost: %" PRIu64 " (ring buffer full %" PRIu64
		 ", windows untracked %" PRIu64 ", BPF runs skipped %" PRIu64 ")\n",
		 report_lost(r), (uint64_t)st->v[PKSFAULT_STAT_LOST],
		 (uint64_t)st->v[PKSFAULT_STAT_WIN_UNTRACKED], r->recursion_misses);
	xml_text(f, lost);
	fprintf(f, "exit status: %d</system-out>\n", report_exit_code(r));
	fputs("  </testsuite>\n</testsuites>\n", f);
}

int junit_write(const char *path, const struct pksfault_report *r)
{
	FILE *f = fopen(path, "we");
	int err = 0;

	if (!f)
		return -errno;
	junit_print(f, r);
	if (fflush(f) || ferror(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}
