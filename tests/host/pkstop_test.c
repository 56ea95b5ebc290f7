// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of pkstop's pure parts: option parsing, sorting, PKRS
 * decoding, formatting, JSON, and the interval accounting.  Prints TAP
 * lines "ok - pkstop: ..." / "not ok - pkstop: ...".
 *   pkstop_test            run the tests; exit 1 if any failed
 *   pkstop_test json       print a sample JSON document (for python3)
 *   pkstop_test selfcheck  one deliberately wrong expectation (must fail)
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "openmetrics.h"
#include "keys.h"
#include "report.h"
#include "opts.h"
#include "rollup.h"
#include "rows.h"
#include "view.h"

static int failed;

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - pkstop: ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		failed++;
}

static void check_str(const char *got, const char *want, const char *what)
{
	check(!strcmp(got, want), "%s: \"%s\"", what, want);
	if (strcmp(got, want))
		printf("#   got \"%s\"\n", got);
}

/* What the last parse() printed on stdout. */
static char parse_stdout[8192];

/* Parse a command line given as one string; stdout kept, stderr silenced. */
static int parse(const char *line, struct pkstop_opts *o)
{
	char buf[256], *argv[16], *tok, *save;
	int argc = 0, rc, out, err, null;
	FILE *tmp = tmpfile();
	size_t n;

	snprintf(buf, sizeof(buf), "pkstop %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 15; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	out = dup(1);
	err = dup(2);
	null = open("/dev/null", O_WRONLY);
	dup2(fileno(tmp), 1);
	dup2(null, 2);
	/* The old meaning of the result: 0 run, 1 help printed, 2 bad option. */
	rc = pkstop_parse_args(argc, argv, o, stderr);
	rc = rc < 0 ? 0 : rc == PKS_EXIT_CLEAN ? 1 : 2;
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	close(null);
	rewind(tmp);
	n = fread(parse_stdout, 1, sizeof(parse_stdout) - 1, tmp);
	parse_stdout[n] = '\0';
	fclose(tmp);
	return rc;
}

/* On a terminal: q quits, s and < > cycle the sort both ways, space pauses. */
static void test_keys(void)
{
	struct pkstop_opts o = { .sort = PKSTOP_SORT_DEPTH };
	bool paused = false;
	int i, seen = 0;

	check(pkstop_key('q', &o, &paused) == PKSTOP_KEY_QUIT, "keys: q quits");
	for (i = 0; i < 5; i++)
		if (pkstop_key('s', &o, &paused) == PKSTOP_KEY_REDRAW)
			seen |= 1 << o.sort;
	check(seen == 0x1f && o.sort == PKSTOP_SORT_DEPTH,
	      "keys: s takes every sort key in turn, then wraps");
	check(pkstop_key('<', &o, &paused) == PKSTOP_KEY_REDRAW && o.sort == PKSTOP_SORT_TID &&
	      pkstop_key('>', &o, &paused) == PKSTOP_KEY_REDRAW && o.sort == PKSTOP_SORT_DEPTH,
	      "keys: < and > step the sort back and forth");
	check(pkstop_key(' ', &o, &paused) == PKSTOP_KEY_PAUSE && paused &&
	      pkstop_key(' ', &o, &paused) == PKSTOP_KEY_PAUSE && !paused &&
	      pkstop_key('x', &o, &paused) == PKSTOP_KEY_NONE && !paused,
	      "keys: space pauses and resumes, other keys do nothing");
}

static void test_opts(void)
{
	static const char *const bad[] = {
		"-s bogus", "0", "abc", "1 0", "1 2 3", "-p 0", "-p x", "-r -1",
		"--nope", "-p", "0.01", "1e9", "-s", "1 -5", "--name=", "-n 0123456789abcdef",
		"-n", "-K -P", "-P -K", "--cgroup=",
	};
	struct pkstop_opts o;
	size_t i;

	check(parse("", &o) == 0 && o.interval == 1.0 && o.count == 0 && o.pid == 0 &&
	      o.rows == -1 && o.sort == PKSTOP_SORT_DEPTH && !o.json && !o.batch && !o.noclear,
	      "options: defaults (1 s, forever, all processes, sort by depth)");
	check(parse("5 10", &o) == 0 && o.interval == 5.0 && o.count == 10,
	      "options: [interval] [count]");
	check(parse("--version", &o) == 1 && !strncmp(parse_stdout, "pkstop ", 7) &&
	      strchr(parse_stdout, '\n'), "options: --version prints 'pkstop VERSION', exit 0");
	check(parse("0.5", &o) == 0 && o.interval == 0.5, "options: fractional interval");
	check(parse("-p 42 -r 3 -s faults -C -b --json -v 2", &o) == 0 && o.pid == 42 &&
	      o.rows == 3 && o.sort == PKSTOP_SORT_FAULTS && o.noclear && o.batch && o.json &&
	      o.common.verbose && o.interval == 2.0, "options: -p -r -s -C -b --json -v");
	check(parse("--pid=7 --rows=0 --sort=open%", &o) == 0 && o.pid == 7 && o.rows == 0 &&
	      o.sort == PKSTOP_SORT_OPENPCT, "options: long forms");
	check(parse("-n fio", &o) == 0 && o.name && !strcmp(o.name, "fio") && !o.pid &&
	      parse("--name=kworker/0:1 -p 3", &o) == 0 && !strcmp(o.name, "kworker/0:1") &&
	      o.pid == 3 && parse("-n 0123456789abcde", &o) == 0 && parse("", &o) == 0 && !o.name,
	      "options: -n/--name COMM (up to 15 bytes, a comm's), with -p; none by default");
	check(parse("-c /sys/fs/cgroup/a -K", &o) == 0 && !strcmp(o.cgroup, "/sys/fs/cgroup/a") &&
	      o.view == PKSTOP_VIEW_KEYS && parse("-P -P", &o) == 0 &&
	      o.view == PKSTOP_VIEW_PROCESSES && parse("", &o) == 0 && !o.cgroup &&
	      o.view == PKSTOP_VIEW_THREADS,
	      "options: -c CGROUP, -K, -P (one view; threads by default)");
	check(parse("-h", &o) == 1 && strstr(parse_stdout, "EXAMPLES:") &&
	      parse("--help", &o) == 1 && strstr(parse_stdout, "pkstop -s open%") &&
	      strstr(parse_stdout, "--json") && strstr(parse_stdout, "pkstop -n fio") &&
	      strstr(parse_stdout, "-n, --name=COMM"),
	      "options: -h/--help print help with examples (exit 0)");
	check(parse("-s nope", &o) == 2 && !parse_stdout[0], "options: errors print nothing on stdout");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(parse(bad[i], &o) == 2, "options: '%s' rejected (exit 2)", bad[i]);
}

static void test_sort_names(void)
{
	static const char *const names[] = { "depth", "opens", "open%", "faults", "tid" };
	size_t i;
	int ok = 1;

	for (i = 0; i < 5; i++)
		ok &= pkstop_sort_parse(names[i]) == (int)i &&
		      !strcmp(pkstop_sort_name(i), names[i]);
	check(ok, "sort: every -s name round-trips");
	check(pkstop_sort_parse("openpct") == PKSTOP_SORT_OPENPCT && pkstop_sort_parse("x") < 0 &&
	      pkstop_sort_parse("") < 0, "sort: alias openpct, unknown names refused");
}

static void test_decode(void)
{
	char buf[128];

	pkstop_fmt_rights(0x55555554, 0x3, buf, sizeof(buf));
	check_str(buf, "1:NA", "decode: default PKRS, keys 0+1 allocated (key 0 not shown)");
	pkstop_fmt_rights(0x55555550, 0x3, buf, sizeof(buf));
	check_str(buf, "1:RW", "decode: key 1 open (window)");
	pkstop_fmt_rights(0x55555558, 0x3, buf, sizeof(buf));
	check_str(buf, "1:RO", "decode: key 1 write-disabled only");
	pkstop_fmt_rights(0x5555555c, 0x3, buf, sizeof(buf));
	check_str(buf, "1:NA", "decode: AD wins over WD");
	pkstop_fmt_rights(0x55555544, 0x8007, buf, sizeof(buf));
	check_str(buf, "1:NA 2:RW 15:NA", "decode: several keys in key order");
	pkstop_fmt_rights(0x55555554, 0x1, buf, sizeof(buf));
	check_str(buf, "", "decode: only key 0 allocated: nothing to show");
}

static void test_duration(void)
{
	static const struct { double s; const char *want; } cases[] = {
		{ -1, "-" }, { 0, "0ms" }, { 0.25, "250ms" }, { 12.34, "12.3s" },
		{ 59.9, "59.9s" }, { 245, "4m05s" }, { 7380, "2h03m" }, { 90000, "1d01h" },
		{ 8643600, "100d" },	/* ">100d01h" would not fit HELD */
	};
	char buf[16], what[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "duration: %g s", cases[i].s);
		check_str(pkstop_fmt_duration(cases[i].s, buf, sizeof(buf)), cases[i].want, what);
	}
}

static struct pkstop_row mkrow(uint32_t tid, uint32_t depth, uint64_t opens, double pct,
			       uint64_t faults, double held)
{
	struct pkstop_row r = {
		.tid = tid, .pid = tid, .have_state = true, .pkrs = 0x55555554,
		.depth = depth, .max_depth = depth, .open_pct = pct, .held_s = held,
	};

	snprintf(r.comm, sizeof(r.comm), "t%u", tid);
	r.d.opens = opens;
	r.d.faults = faults;
	return r;
}

static void order(struct pkstop_row *rows, size_t n, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "", rows[i].tid);
}

static void test_sort(void)
{
	struct pkstop_row base[] = {
		mkrow(30, 0, 200, 20.0, 0, -1),
		mkrow(10, 1, 0, 100.0, 0, 12.0),
		mkrow(20, 0, 5, 1.0, 3, -1),
		mkrow(5, 0, 200, 50.0, 1, -1),
		mkrow(40, 1, 0, 100.0, 0, 30.0),
	};
	static const struct { enum pkstop_sort s; const char *want; } cases[] = {
		{ PKSTOP_SORT_DEPTH, "40,10,5,30,20" },
		{ PKSTOP_SORT_OPENS, "5,30,20,10,40" },
		{ PKSTOP_SORT_OPENPCT, "40,10,5,30,20" },
		{ PKSTOP_SORT_FAULTS, "20,5,10,30,40" },
		{ PKSTOP_SORT_TID, "5,10,20,30,40" },
	};
	struct pkstop_row rows[5];
	char got[64], what[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(rows, base, sizeof(rows));
		pkstop_sort_rows(rows, 5, cases[i].s);
		order(rows, 5, got, sizeof(got));
		snprintf(what, sizeof(what), "sort -s %s (ties by TID)", pkstop_sort_name(cases[i].s));
		check_str(got, cases[i].want, what);
	}
}

/* The pks-windows kthread's row: depth 3, 200 opens, 2 faults, held 4.25 s. */
static struct pkstop_row windows_row(void)
{
	struct pkstop_row r = mkrow(1234, 3, 200, 12.5, 2, 4.25);

	r.pid = 99;
	snprintf(r.comm, sizeof(r.comm), "pks-windows");
	r.pkrs = 0x55555550;
	r.d.updates = 400;
	return r;
}

static void test_row_format(void)
{
	struct pkstop_row r = windows_row();
	char buf[256];

	pkstop_fmt_row(&r, 0x3, 2.0, true, buf, sizeof(buf));
	check_str(buf, "   1234      99 pks-windows      0x55555550     3    3    100.0   12.5   200.0      2    4.2s 1:RW",
		  "format: a row (rates per second over a 2 s interval)");
	r.held_lower_bound = true;
	r.held_s = 75;
	pkstop_fmt_row(&r, 0x3, 1.0, true, buf, sizeof(buf));
	check(strstr(buf, " >1m15s ") != NULL, "format: held time open before start shows '>1m15s'");
	if (!strstr(buf, " >1m15s "))
		printf("#   got \"%s\"\n", buf);
	r.have_state = false;
	r.exited = true;
	r.held_s = -1;
	pkstop_fmt_row(&r, 0x3, 1.0, true, buf, sizeof(buf));
	check(strstr(buf, "(exited)") && strstr(buf, "       - -"),
	      "format: an exited thread shows (exited), no depth, no rights");
	check(strlen(pkstop_table_header(true)) > 0 && strstr(pkstop_table_header(true), "OPEN%") &&
	      strstr(pkstop_table_header(true), "HELD"), "format: table header names the columns");
}

/* The longest line of @s (newlines excluded), and whether all its bytes are printable. */
static size_t longest_line(const char *s, bool *printable)
{
	size_t max = 0, len = 0;

	*printable = true;
	for (; *s; s++) {
		if (*s == '\n') {
			len = 0;
			continue;
		}
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*printable = false;
		if (++len > max)
			max = len;
	}
	return max;
}

/* The widest a row gets: 7-digit TID and PID, a comm filling its 16 bytes, big counts. */
static struct pkstop_row worst_row(void)
{
	struct pkstop_row r = mkrow(4194304, 12, 98765432, 100.0, 9876543, 99 * 86400.0 + 82800);

	r.pid = 4194303;
	r.max_depth = 1234;
	r.d.updates = 198765432;
	r.held_lower_bound = true;
	r.pkrs = 0x55555550;
	memset(r.comm, 'w', sizeof(r.comm));	/* no NUL */
	return r;
}

static void test_layout(void)
{
	static const uint16_t masks[] = { 0x3, 0x7 };
	const char *hdr = pkstop_table_header(false);
	struct pkstop_row r = windows_row(), w;
	char buf[512];
	size_t i, max = strlen(hdr), wide_len = strlen(pkstop_table_header(true));

	pkstop_fmt_row(&r, 0x3, 2.0, false, buf, sizeof(buf));
	check_str(buf, "   1234      99 pks-windows         3    100.0   12.5      2    4.2s 1:RW",
		  "layout: a compact row");
	check(strstr(hdr, "RIGHTS") - hdr == strstr(buf, "1:RW") - buf &&
	      strstr(hdr, "HELD") - hdr + 4 == strstr(buf, "4.2s") - buf + 4 &&
	      strstr(hdr, "OPENS/s") - hdr + 7 == strstr(buf, "100.0") - buf + 5,
	      "layout: compact columns line up under their header");
	r.have_state = false;
	r.exited = true;
	pkstop_fmt_row(&r, 0x3, 1.0, false, buf, sizeof(buf));
	check(strstr(buf, "       -") && strstr(buf, " (exited)") && !strstr(buf, "0x5555"),
	      "layout: compact: an exited thread says so under RIGHTS, no depth");
	/* Every line of the compact table, for one key and for two, worst-case values. */
	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		w = worst_row();
		pkstop_fmt_row(&w, masks[i], 1.0, false, buf, sizeof(buf));
		max = strlen(buf) > max ? strlen(buf) : max;
		if (strlen(buf) > 80)
			printf("#   %zu: \"%s\"\n", strlen(buf), buf);
		w.have_state = false;
		w.exited = true;
		pkstop_fmt_row(&w, masks[i], 1.0, false, buf, sizeof(buf));
		max = strlen(buf) > max ? strlen(buf) : max;
	}
	check(max <= 80, "layout: compact header and worst-case rows (1 and 2 keys) fit 80 columns"
	      " (widest %zu)", max);
	check(!pkstop_layout_wide(80, 0x3) && !pkstop_layout_wide(wide_len - 1, 0x3) &&
	      pkstop_layout_wide(wide_len, 0x3) && pkstop_layout_wide(0, 0x3) &&
	      pkstop_layout_wide(0, 0xffff) && !pkstop_layout_wide(wide_len, 0xffff) &&
	      pkstop_layout_wide(200, 0xffff),
	      "layout: wide when its rows fit the terminal or there is none (0), else compact");
	/* Widths that do not fit: no overflow into the next column. */
	w = worst_row();
	pkstop_fmt_row(&w, 0x3, 1.0, true, buf, sizeof(buf));
	check(strstr(buf, " 98765432 ") && strstr(buf, " 198765k ") && strstr(buf, "  9877k ") &&
	      strstr(buf, " >99d23h ") && strlen(buf) == wide_len - strlen("RIGHTS") + 4,
	      "layout: wide: huge rates and counts shortened to their column (198765k)");
	if (strlen(buf) != wide_len - strlen("RIGHTS") + 4)
		printf("#   got \"%s\"\n", buf);
}

/* A process names itself: its comm must not reach the terminal raw. */
static void test_comm_escape(void)
{
	struct pkstop_row r = mkrow(42, 0, 1, 0, 0, -1);
	char buf[512];
	bool printable;

	memcpy(r.comm, "a\x1b\n\\\xff", 6);
	pkstop_fmt_row(&r, 0x3, 1.0, false, buf, sizeof(buf));
	check(strstr(buf, " a\\x1b\\x0a\\\\\\xff ") && longest_line(buf, &printable) && printable,
	      "comm: ESC, newline, backslash, 0xff escaped (compact row): a\\x1b\\x0a\\\\\\xff");
	if (!strstr(buf, " a\\x1b\\x0a\\\\\\xff "))
		printf("#   got \"%s\"\n", buf);
	pkstop_fmt_row(&r, 0x3, 1.0, true, buf, sizeof(buf));
	check(strstr(buf, " a\\x1b\\x0a\\\\\\xff ") && longest_line(buf, &printable) && printable,
	      "comm: escaped in the wide row too");
	memset(r.comm, 0x1b, sizeof(r.comm));	/* 64 characters escaped, 15 columns */
	pkstop_fmt_row(&r, 0x3, 1.0, false, buf, sizeof(buf));
	check(strstr(buf, "      42 \\x1b\\x1b\\x1b    ") != NULL,
	      "comm: cut to its column between escapes, never inside one");
	if (!strstr(buf, "      42 \\x1b\\x1b\\x1b    "))
		printf("#   got \"%s\"\n", buf);
}

static struct pkstop_row sample_rows[3];

static void mksample(struct pkstop_sample *s, bool pks)
{
	memset(s, 0, sizeof(*s));
	s->wall.tv_sec = 1700000000;
	s->interval_s = 1.0;
	s->pks_present = pks;
	s->pks_enabled = pks;
	if (pks) {
		snprintf(s->owners[0], PKS_OWNER_LEN, "kernel");
		snprintf(s->owners[1], PKS_OWNER_LEN, "Device \"Memory\"");
		s->keymask = 0x3;
		s->keys_source = PKS_KEYS_FROM_DEBUGFS;
	}
	sample_rows[0] = mkrow(11, 3, 200, 30.0, 0, 0.002);
	sample_rows[1] = mkrow(12, 1, 0, 100.0, 0, 5.5);
	sample_rows[2] = mkrow(13, 0, 7, 0.5, 1, -1);
	sample_rows[1].pid = 500;
	s->rows = sample_rows;
	s->nrows = 3;
	s->totals.opens = 207;
	s->totals.faults = 1;
}

static char *capture(void (*fn)(FILE *, const struct pkstop_sample *, const struct pkstop_opts *),
		     const struct pkstop_sample *s, const struct pkstop_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, s, o);
	fclose(f);
	return buf;
}

static int count_lines(const char *s, const char *prefix_re)
{
	int n = 0;
	const char *p;

	for (p = s; (p = strstr(p, prefix_re)); p++)
		n++;
	return n;
}

static void test_output(void)
{
	struct pkstop_sample s;
	struct pkstop_opts o = { .interval = 1, .rows = -1, .sort = PKSTOP_SORT_DEPTH };
	char *out;

	mksample(&s, true);
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "PKS: present, enabled") && strstr(out, "1: Device \"Memory\"") &&
	      strstr(out, "opens 207.0") && strstr(out, "threads: 3 shown of 3"),
	      "text: header with PKS state, keys and owners, totals per second");
	free(out);
	o.rows = 1;
	out = capture(pkstop_print_text, &s, &o);
	check(count_lines(out, "\n     1") == 1 && strstr(out, "threads: 1 shown of 3"), "text: -r 1 shows one row");
	free(out);
	o.rows = -1;
	o.pid = 500;
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "     12     500 ") && !strstr(out, "     11      11 "), "text: -p keeps only that process");
	free(out);
	o.name = "t12";
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "     12     500 ") && strstr(out, "threads: 1 shown of 1"),
	      "text: -n with -p: both match");
	free(out);
	o.name = "t11";
	out = capture(pkstop_print_text, &s, &o);
	check(!strstr(out, "     11      11 ") && strstr(out, "threads: 0 shown of 0"),
	      "text: -n with -p: the name alone is not enough");
	free(out);
	o.pid = 0;
	o.name = "1";
	sample_rows[2].comm[0] = 'x';
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "threads: 3 shown of 3") && strstr(out, " x13 "),
	      "text: -n matches a substring anywhere in the comm");
	free(out);
	o.name = "t1";
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "     11      11 t11 ") && strstr(out, "     12     500 t12 ") &&
	      !strstr(out, "x13") && strstr(out, "threads: 2 shown of 2"),
	      "text: -n leaves out the comms without it");
	free(out);
	memset(sample_rows[2].comm, 'y', sizeof(sample_rows[2].comm));
	sample_rows[2].comm[15] = 'z';	/* 16 bytes, no NUL */
	o.name = "yz";
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "threads: 1 shown of 1") && strstr(out, "yyyyyyyyyyyyyyyz"),
	      "text: -n reads a comm's 16 bytes, without a NUL too");
	free(out);
	o.name = "t12";
	o.json = true;
	out = capture(pkstop_print_json, &s, &o);
	check(strstr(out, "\"threads_matching\":1,") && strstr(out, "\"comm\":\"t12\"") &&
	      !strstr(out, "\"comm\":\"t11\""), "json: -n filters the threads too");
	free(out);
	o.json = false;
	o.name = NULL;
	mksample(&s, false);
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "PKS: not present on this CPU") && strstr(out, "Keys: none"),
	      "text: without PKS the header says so");
	free(out);
	mksample(&s, true);
	o.json = true;
	out = capture(pkstop_print_json, &s, &o);
	check(count_lines(out, "\n") == 1 && out[strlen(out) - 1] == '\n',
	      "json: one document on one line");
	check(strstr(out, "\"owner\":\"Device \\\"Memory\\\"\"") && strstr(out, "\"rights\":{\"1\":\"NA\"}") &&
	      strstr(out, "\"held_s\":null") && strstr(out, "\"opens\":207"),
	      "json: escaped owner, rights per key, null held time, totals");
	free(out);
}

/* On an 80-column terminal, the whole screen fits, header lines included. */
static void test_screen(void)
{
	struct pkstop_opts o = { .interval = 1, .rows = -1, .width = 80 };
	struct pkstop_sample s;
	const char *p;
	char *out;
	bool printable;
	int lines = 0;

	mksample(&s, false);
	sample_rows[0] = worst_row();
	s.interval_s = 86400;
	s.totals.opens = s.totals.pkrs_writes = s.totals.updates = 9876543210ull * 86400;
	s.totals.faults = 98765432ull * 86400;
	s.map_full = s.missed = s.irq_events = s.threads_tracked = 123456789012ull;
	s.self_cpu_ms = 123456.7;
	out = capture(pkstop_print_text, &s, &o);
	check(longest_line(out, &printable) <= 80 && strstr(out, pkstop_table_header(false)) &&
	      strstr(out, "\nThreads: 3 shown of 3, 123457M tracked"),
	      "text: width 80: every line fits, long numbers shortened (widest %zu)",
	      longest_line(out, &printable));
	for (p = out; p < strstr(out, pkstop_table_header(false)); p++)
		lines += *p == '\n';
	check(lines + 1 == PKSTOP_TEXT_HEADER_LINES,
	      "text: width 80: PKSTOP_TEXT_HEADER_LINES (%d) lines above the rows", lines + 1);
	free(out);
	o.width = 0;
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, pkstop_table_header(true)) && strstr(out, "0x55555550") &&
	      strstr(out, "(the kernel runs unprotected)"),
	      "text: not a terminal (width 0): the wide table, every column");
	free(out);
}

/* The accounting of one thread over intervals, from made-up map values. */
static void test_account(void)
{
	const uint64_t s = 1000000000ull;
	struct pkstop_tstate st = { .tid = 77 };
	struct pkstop_thread t = { .pid = 70, .comm = "pks-windows" };
	struct pkstop_task task = { .tid = 77, .pid = 70, .depth = 0, .pkrs = 0x55555554,
				    .comm = "pks-windows" };
	struct pkstop_row row;

	/* Interval gen 0 (slot 0): 200 opens, depth 3, window open 0.3 s in all. */
	t.c[0].opens = 200;
	t.c[0].enables = 600;
	t.max_gen[0] = 0;
	t.max_depth[0] = 3;
	t.open_ns = 300000000;
	pkstop_account(&st, &t, &task, 0, 10 * s, s, &row);
	check(row.d.opens == 200 && row.d.enables == 600 && row.max_depth == 3 &&
	      row.open_pct > 29.9 && row.open_pct < 30.1 && row.held_s < 0,
	      "account: first interval (slot 0): opens, max depth, open%%");
	/* gen 1 (slot 1): slot 0 untouched, 100 more in slot 1; stale max in slot 0 ignored. */
	t.c[1].opens = 100;
	t.open_ns += 100000000;
	pkstop_account(&st, &t, &task, 1, 11 * s, s, &row);
	check(row.d.opens == 100 && row.max_depth == 0 && row.open_pct > 9.9 && row.open_pct < 10.1,
	      "account: second interval (slot 1): only its own counts, stale max depth ignored");
	/* gen 2 (slot 0 again, cumulative): 250 -> delta 50. */
	t.c[0].opens = 250;
	t.max_gen[0] = 2;
	t.max_depth[0] = 2;
	pkstop_account(&st, &t, &task, 2, 12 * s, s, &row);
	check(row.d.opens == 50 && row.max_depth == 2, "account: slots are cumulative: delta 50");
	/* gen 3: a leak, opened 2.5 s ago, still open; no events. */
	t.open_since = 13 * s - 2500000000ull;
	task.depth = 1;
	task.pkrs = 0x55555550;
	pkstop_account(&st, &t, &task, 3, 13 * s, s, &row);
	check(row.held_s > 2.49 && row.held_s < 2.51 && !row.held_lower_bound && row.depth == 1 &&
	      row.max_depth == 1 && row.open_pct == 100.0 && pkstop_row_interesting(&row),
	      "account: idle thread holding a window: held 2.5 s, open 100%%, shown");
	/* Found open when we started: held is a lower bound. */
	t.flags = PKSTOP_F_OPEN_UNKNOWN;
	pkstop_account(&st, &t, &task, 4, 14 * s, s, &row);
	check(row.held_lower_bound && row.max_depth == 1, "account: window open before start: held is 'at least'");
	/* Exited: no iterator record. */
	t.flags = 0;
	t.open_since = 0;
	pkstop_account(&st, &t, NULL, 5, 15 * s, s, &row);
	check(row.exited && !row.have_state && st.absent == 1 && row.max_depth == 1 &&
	      pkstop_row_interesting(&row),
	      "account: exited in the interval: shown once (was at depth 1), counted absent");
	pkstop_account(&st, &t, NULL, 6, 16 * s, s, &row);
	check(row.exited && st.absent == 2 && !pkstop_row_interesting(&row),
	      "account: exited and quiet: not shown any more, absent twice (entry can go)");
	check(pkstop_open_ns(&(struct pkstop_thread){ .open_ns = 5, .open_since = 20 }, 10) == 5,
	      "account: a window opened after the sample time counts next interval");
}

/* Idle tasks and softirqs: one row per CPU each, named, never "exited". */
static void test_cpu_rows(void)
{
	const uint64_t s = 1000000000ull;
	struct pkstop_tstate st = { .tid = PKS_ROW_SOFTIRQ | 1 };
	struct pkstop_thread t = { .pid = 0 };
	struct pkstop_row row;

	t.c[0].faults = 1;
	pkstop_account(&st, &t, NULL, 0, 10 * s, s, &row);
	check(row.context == PKS_ROW_SOFTIRQS && row.cpu == 1 && row.tid == 0 &&
	      !strcmp(row.comm, "softirq/1") && !row.exited && st.absent == 0 &&
	      row.d.faults == 1, "account: CPU 1's softirq row: named softirq/1, not exited");
	st = (struct pkstop_tstate){ .tid = PKS_ROW_IDLE | 3 };
	pkstop_account(&st, &t, NULL, 0, 10 * s, s, &row);
	check(row.context == PKS_ROW_IDLE_TASK && row.cpu == 3 && !strcmp(row.comm, "idle/3") &&
	      !row.exited, "account: CPU 3's idle task: its own row, idle/3");
	st = (struct pkstop_tstate){ .tid = 4000000 };
	pkstop_account(&st, &t, NULL, 0, 10 * s, s, &row);
	check(row.context == PKS_ROW_TASK && row.tid == 4000000 && row.exited,
	      "account: a TID up to PID_MAX_LIMIT is a thread");
}

/* --openmetrics: cumulative counters, gauges, escaped labels, "# EOF". */
static void test_openmetrics(void)
{
	struct pkstop_om om = {};
	struct pkstop_sample s;
	char *buf = NULL, path[] = "/tmp/pkstop-om.XXXXXX", file[64];
	size_t len = 0;
	FILE *f;
	int fd;

	mksample(&s, true);
	snprintf(s.owners[1], PKS_OWNER_LEN, "Device Memory");
	snprintf(s.owners[2], PKS_OWNER_LEN, "odd \"owner\"\\");
	s.keymask = 0x7;
	s.faults_by[1][PKS_FAULT_FIXED_UP] = 1;
	s.faults_by[5][PKS_FAULT_ALLOWED] = 3;	/* a key nobody owns now */
	s.opens_by[1] = 207;
	s.pkrs_writes_by[1] = 10;
	s.pkrs_writes_by[2] = 4;
	s.pkrs_writes_by[6] = 1;		/* freed since */
	pkstop_om_add(&om, &s);
	pkstop_om_add(&om, &s);	/* two intervals: counters add up */
	f = open_memstream(&buf, &len);
	pkstop_om_format(f, &om, &s);
	fclose(f);
	check(strstr(buf, "# TYPE pks_window_opens_total counter\n"
			  "pks_window_opens_total{key=\"1\",owner=\"Device Memory\"} 414\n") != NULL,
	      "openmetrics: counters cumulative over intervals, windows labelled with the device key");
	check(strstr(buf, "\npks_window_opens_total{key=\"2\",owner=\"odd \\\"owner\\\"\\\\\"} 0\n") &&
	      strstr(buf, "\npks_pkrs_writes_total{key=\"1\",owner=\"Device Memory\"} 20\n"
			  "pks_pkrs_writes_total{key=\"2\",owner=\"odd \\\"owner\\\"\\\\\"} 8\n"
			  "pks_pkrs_writes_total{key=\"6\",owner=\"unallocated\"} 2\n") &&
	      !strstr(buf, "pks_pkrs_writes_total{key=\"0\"") &&
	      !strstr(buf, "\npks_pkrs_writes_total ") && !strstr(buf, "\npks_window_opens_total "),
	      "openmetrics: window opens and PKRS writes by key, zeros for allocated keys, key 0 left out");
	check(strstr(buf, "\npks_faults_total{key=\"1\",owner=\"Device Memory\",outcome=\"fixed_up\"} 2\n"
			  "pks_faults_total{key=\"1\",owner=\"Device Memory\",outcome=\"allowed\"} 0\n") &&
	      strstr(buf, "\npks_faults_total{key=\"1\",owner=\"Device Memory\",outcome=\"oops\"} 0\n") &&
	      !strstr(buf, "outcome=\"opened\"") &&
	      strstr(buf, "\npks_faults_total{key=\"5\",owner=\"unallocated\",outcome=\"allowed\"} 6\n") &&
	      !strstr(buf, "pks_faults_total{key=\"0\"") && !strstr(buf, "\npks_faults_total "),
	      "openmetrics: faults by key, owner and outcome, zeros for allocated keys, key 0 left out");
	check(strstr(buf, "\npks_windows_open 2\n") &&
	      strstr(buf, "\npks_window_held_seconds_max 5.500000\n") &&
	      strstr(buf, "\npks_keys_allocated 2\n"),
	      "openmetrics: gauges: windows open now, longest held, keys allocated");
	check(strstr(buf, "pks_key_info{key=\"2\",owner=\"odd \\\"owner\\\"\\\\\"} 1\n") &&
	      !strstr(buf, "# EOF"),
	      "prometheus: label values escaped, no OpenMetrics '# EOF' in a Prometheus 0.0.4 file");
	free(buf);
	fd = mkstemp(path);
	close(fd);
	unlink(path);
	mkdir(path, 0700);
	snprintf(file, sizeof(file), "%s/pks.prom", path);
	check(!pkstop_om_write(file, &om, &s) && access(file, R_OK) == 0 &&
	      pkstop_om_write("/nonexistent/dir/pks.prom", &om, &s) == -ENOENT,
	      "openmetrics: written through a temporary file; a missing directory is -ENOENT");
	unlink(file);
	rmdir(path);
}

static char *capture_summary(const struct pkstop_summary *sum, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pkstop_summary_print(f, sum, json);
	fclose(f);
	return buf;
}

/* Two intervals of mksample(): t12 holds a window, t11 nests 3 deep. */
static void two_intervals(struct pkstop_summary *sum, const struct pkstop_opts *o)
{
	struct pkstop_sample s;

	memset(sum, 0, sizeof(*sum));
	mksample(&s, true);
	s.map_full = 1;
	pkstop_summary_add(sum, &s, o);
	mksample(&s, true);
	sample_rows[1].held_s = 6.5;		/* the same window, a second later */
	sample_rows[1].held_lower_bound = true;
	sample_rows[0].max_depth = 2;		/* shallower this time */
	s.map_full = 3;				/* cumulative in the maps */
	s.missed = 2;
	pkstop_summary_add(sum, &s, o);
}

static void test_summary(void)
{
	struct pkstop_opts o = { .interval = 1, .rows = -1 };
	struct pkstop_summary sum;
	char *out;

	two_intervals(&sum, &o);
	check(sum.intervals == 2 && sum.duration_s == 2.0 && sum.totals.opens == 414 &&
	      sum.totals.faults == 2 && sum.row_faults == 2,
	      "summary: intervals, duration and totals add up");
	check(sum.held_max_s == 6.5 && sum.held_max_lower_bound && sum.held_by.tid == 12 &&
	      sum.depth_max == 3 && sum.depth_by.tid == 11,
	      "summary: longest held window and deepest nesting, and whose");
	check(sum.map_full == 3 && sum.missed == 2,
	      "summary: drops are the maps' cumulative counts, not summed");
	out = capture_summary(&sum, false);
	check(strstr(out, "=== pkstop summary (2.0 s, 2 intervals) ===\n") &&
	      strstr(out, "totals: opens 414, enables 0, PKRS writes 0,\n"
			  "        updates 0, faults 2, irq events 0\n") &&
	      strstr(out, "longest window held: >6.5s by t12 (TID 12, PID 500)\n") &&
	      strstr(out, "deepest nesting: 3 by t11 (TID 11, PID 11)\n") &&
	      strstr(out, "drops: 5 (map full 3, BPF runs missed 2)\n"),
	      "summary text: totals, who held longest, who nested deepest, drops");
	free(out);
	o.pid = 13;
	two_intervals(&sum, &o);
	check(sum.held_max_s == 0 && sum.depth_max == 0 && sum.row_faults == 2 &&
	      sum.totals.opens == 414, "summary: -p: only that process's rows, totals system-wide");
	out = capture_summary(&sum, false);
	check(strstr(out, "longest window held: none open at the end of an interval\n") &&
	      strstr(out, "deepest nesting: no windows\n"), "summary text: nothing held, no nesting");
	free(out);
	/* Twelve-digit counters, a 15-character name, 7-digit TIDs: still 80 columns. */
	sum.totals = (struct pkstop_delta){ 999999999999ULL, 999999999999ULL, 999999999999ULL,
					    999999999999ULL, 999999999999ULL };
	sum.irq_events = sum.map_full = sum.missed = sum.row_faults = 999999999999ULL;
	sum.held_max_s = 300000;
	sum.depth_max = 4000000000u;
	sum.held_by = (struct pkstop_summary_who){ .tid = 9999999, .pid = 9999999 };
	memcpy(sum.held_by.comm, "kworker/u16:123", 15);
	sum.depth_by = sum.held_by;
	out = capture_summary(&sum, false);
	{
		bool printable;
		size_t longest = longest_line(out, &printable);

		check(longest <= 80, "summary text fits 80 columns (longest %zu)", longest);
	}
	free(out);
}

/*
 * A run ended by SIGINT 0.4 s into its second interval: the windows of
 * that part go in a last sample marked partial, and in the summary's
 * totals, so that the totals are every window that ran while attached.
 */
static void test_partial(void)
{
	struct pkstop_opts o = { .interval = 1, .rows = -1 };
	struct pkstop_summary sum = {};
	struct pkstop_sample s;
	char *out;

	mksample(&s, true);
	pkstop_summary_add(&sum, &s, &o);
	mksample(&s, true);
	s.interval_s = 0.4;
	s.totals.opens = 49000;
	s.partial = true;
	pkstop_summary_add(&sum, &s, &o);
	check(sum.intervals == 2 && sum.partial && sum.totals.opens == 207 + 49000 &&
	      sum.duration_s > 1.39 && sum.duration_s < 1.41,
	      "partial: the interrupted interval's windows are in the summary's totals");
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "interval 0.40s (partial)  PKS:") != NULL,
	      "partial: the text header marks the last sample partial");
	free(out);
	o.json = true;
	out = capture(pkstop_print_json, &s, &o);
	check(strstr(out, "\"interval_s\":0.400,\"partial\":true,") != NULL,
	      "partial: the JSON sample says \"partial\":true");
	free(out);
	out = capture_summary(&sum, true);
	check(strstr(out, "\"intervals\":2,\"last_partial\":true,") != NULL,
	      "partial: the JSON summary says its last interval was partial");
	free(out);
	out = capture_summary(&sum, false);
	check(strstr(out, "(1.4 s, 2 intervals, the last partial) ===") != NULL,
	      "partial: the text summary says so too");
	free(out);
}

/*
 * -K and -P add up the rows: mksample()'s three (t13 made a thread of
 * process 11) and t14, which has key 2 open in its PKRS and no window.
 */
static void test_rollups(void)
{
	struct pkstop_opts o = { .interval = 1, .rows = -1, .sort = PKSTOP_SORT_OPENS };
	struct pkstop_key_stat keys[PKS_NR_KEYS];
	struct pkstop_row rows[4];
	struct pkstop_sample s;
	struct pkstop_proc *procs;
	char line[256], *out;
	long np;
	size_t nk;

	mksample(&s, true);
	memcpy(rows, sample_rows, 3 * sizeof(rows[0]));
	rows[0].key = 1;	/* t11: windows on key 1 */
	rows[1].key = -1;	/* t12: held since before pkstop: key unknown */
	rows[2].key = 1;
	rows[2].pid = 11;	/* t13: a thread of 11 */
	rows[3] = mkrow(14, 0, 0, 0, 0, -1);
	rows[3].key = -1;
	rows[3].pkrs = 0x55555554 & ~(3u << 4);	/* key 2 RW by its PKRS */
	s.rows = rows;
	s.nrows = 4;
	s.keymask = 0x7;
	snprintf(s.owners[2], PKS_OWNER_LEN, "test");
	s.opens_by[1] = 207;
	s.pkrs_writes_by[2] = 4;
	s.faults_by[1][PKS_FAULT_FIXED_UP] = 1;
	s.faults_by[5][PKS_FAULT_ALLOWED] = 2;	/* a key nobody listed */

	nk = pkstop_key_stats(&s, keys);
	check(nk == 4 && keys[0].key == 0 && keys[1].key == 1 && keys[2].key == 2 &&
	      keys[3].key == 5, "-K: allocated keys and active ones, in order (%zu)", nk);
	check(keys[1].opens == 207 && keys[1].faults == 1 && keys[1].holders == 2 &&
	      keys[1].open_pct > 130.49 && keys[1].open_pct < 130.51,
	      "-K: key 1: opens, faults; the window held since before start counts for it "
	      "(holders %u, open %.2f%%)", keys[1].holders, keys[1].open_pct);
	check(keys[2].holders == 1 && keys[2].pkrs_writes == 4 && keys[2].opens == 0 &&
	      keys[0].holders == 0 && keys[3].faults == 2,
	      "-K: a key opened by PKRS alone is held; key 0 never; faults on an unlisted key");
	pkstop_fmt_key(&keys[1], s.owners[1], 1.0, line, sizeof(line));
	check(strlen(line) == strlen(pkstop_key_header()) && strlen(line) < 80,
	      "-K: a line as wide as its header, under 80 columns (%zu)", strlen(line));

	np = pkstop_processes(&s, &o, &procs);
	check(np == 3 && procs[0].pid == 11 && procs[0].threads == 2 &&
	      procs[0].d.opens == 207 && procs[0].d.faults == 1 && procs[0].holding == 1 &&
	      procs[0].max_depth == 3 && !strcmp(procs[0].comm, "t11"),
	      "-P: threads 11 and 13 are process 11: counts added, main thread's name");
	check(np == 3 && procs[1].pid == 14 && procs[2].pid == 500 && procs[2].held_s == 5.5,
	      "-P: sorted by -s, ties by PID; longest held window kept");
	pkstop_fmt_proc(&procs[0], 1.0, line, sizeof(line));
	check(strlen(line) == strlen(pkstop_proc_header()) && strlen(line) < 80,
	      "-P: a line as wide as its header, under 80 columns (%zu)", strlen(line));
	free(procs);
	o.name = "t13";
	np = pkstop_processes(&s, &o, &procs);
	check(np == 1 && procs[0].threads == 1 && procs[0].d.opens == 7,
	      "-P: -n filters threads before they are added up");
	free(procs);
	o.name = NULL;

	o.view = PKSTOP_VIEW_KEYS;
	out = capture(pkstop_print_text, &s, &o);
	check(strstr(out, "KEY OWNER") && strstr(out, "  2 test ") && strstr(out, "  5 ? ") &&
	      !strstr(out, "    TID"), "-K text: the key table replaces the thread table");
	free(out);
	o.view = PKSTOP_VIEW_PROCESSES;
	o.json = true;
	out = capture(pkstop_print_json, &s, &o);
	check(strstr(out, "\"processes\":[{\"pid\":11,") && strstr(out, "\"holders\":2"),
	      "-P JSON: a processes array; keys carry their figures");
	free(out);
}

/*
 * The direct rows: a sample takes the live ones, each under its own TID,
 * and freeing one resets it (key -1) and leaves the others; a TID whose
 * slot another thread owns, or a per-CPU row, is not the array's.
 */
static void test_direct_rows(void)
{
	static struct pkstop_thread rows[PKSTOP_DIRECT_ROWS];
	struct pks_map_dump snap = {};
	const __u32 *keys;
	const struct pkstop_thread *vals;
	__u32 a = 7, b = PKSTOP_DIRECT_ROWS + 9;
	int err;

	pkstop_rows_init(rows);
	check(rows[0].key == -1 && !rows[0].tid && rows[PKSTOP_DIRECT_ROWS - 1].key == -1,
	      "direct rows: all free (key -1, no TID) before the programs attach");
	rows[a].tid = a;
	rows[a].c[1].opens = 5;
	rows[b % PKSTOP_DIRECT_ROWS].tid = b;
	rows[b % PKSTOP_DIRECT_ROWS].pid = 3;
	err = pkstop_rows_append(rows, &snap);
	check(!err && snap.n == 2, "direct rows: a sample takes the 2 live rows (took %zu)", snap.n);
	keys = snap.keys;
	vals = snap.values;
	check(snap.n == 2 && keys[0] == a && vals[0].c[1].opens == 5 && keys[1] == b &&
	      vals[1].pid == 3, "direct rows: each under its own TID, with its counts");
	check(!pkstop_rows_forget(rows, a + PKSTOP_DIRECT_ROWS) && rows[a].tid == a,
	      "direct rows: a TID whose slot another thread owns is not freed there");
	check(!pkstop_rows_forget(rows, PKS_ROW_IDLE | (a & 0xff)),
	      "direct rows: a per-CPU row is never the array's");
	check(pkstop_rows_forget(rows, a) && !rows[a].tid && rows[a].key == -1 &&
	      !rows[a].c[1].opens && rows[b % PKSTOP_DIRECT_ROWS].tid == b,
	      "direct rows: freeing one resets it (key -1, counts 0) and leaves the others");
	err = pkstop_rows_append(rows, &snap);
	check(!err && snap.n == 3, "direct rows: a sample appends to the hash map's rows (2 + 1 live)");
	pks_map_dump_free(&snap);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "json")) {
		struct pkstop_sample s;
		struct pkstop_opts o = { .interval = 1, .rows = -1, .json = true };

		mksample(&s, true);
		snprintf(sample_rows[2].comm, sizeof(sample_rows[2].comm), "we\\ird\x01\"c");
		/* UTF-8 stays UTF-8; a C1 control and a stray byte are escaped. */
		snprintf(sample_rows[1].comm, sizeof(sample_rows[1].comm), "%s",
			 "caf\xc3\xa9 \xc2\x9b\xff");
		sample_rows[2].exited = true;
		sample_rows[2].have_state = false;
		pkstop_print_json(stdout, &s, &o);
		mksample(&s, false);
		pkstop_print_json(stdout, &s, &o);
		{
			struct pkstop_summary sum;

			o.json = false;
			two_intervals(&sum, &o);
			pkstop_summary_print(stdout, &sum, true);
		}
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "prom")) {	/* checked by promtool */
		struct pkstop_om om = {};
		struct pkstop_sample s;

		mksample(&s, true);
		snprintf(s.owners[1], PKS_OWNER_LEN, "Device Memory");
		snprintf(s.owners[2], PKS_OWNER_LEN, "odd \"owner\"\\");
		s.keymask = 0x7;
		s.faults_by[5][PKS_FAULT_ALLOWED] = 3;
		s.opens_by[1] = 207;
		pkstop_om_add(&om, &s);
		pkstop_om_format(stdout, &om, &s);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "args")) {	/* args ARGS...: main's option step */
		struct pkstop_opts o;

		argv[1] = "pkstop";
		return pkstop_parse_args(argc - 1, argv + 1, &o, stderr) == PKS_EXIT_ERROR ? 2 : 0;
	}
	if (argc > 1 && !strcmp(argv[1], "selfcheck")) {
		char buf[16];

		check_str(pkstop_fmt_duration(1.5, buf, sizeof(buf)), "2.5s", "selfcheck (must fail)");
		return failed ? 1 : 0;
	}
	test_opts();
	test_direct_rows();
	test_cpu_rows();
	test_openmetrics();
	test_keys();
	test_sort_names();
	test_decode();
	test_duration();
	test_sort();
	test_row_format();
	test_layout();
	test_comm_escape();
	test_output();
	test_screen();
	test_account();
	test_summary();
	test_partial();
	test_rollups();
	printf("# pkstop unit tests: %d failed\n", failed);
	return failed ? 1 : 0;
}
