// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for pksfault's pure parts: PKRS decoding, the key list,
 * option parsing, JSON strings and records, kallsyms and /proc/iomem
 * resolution, histograms, the summary's verdict.  TAP lines
 * "ok - pksfault: ..." on stdout; exit 1 when any failed.
 *   pksfault_unit DATADIR           run the tests
 *   pksfault_unit DATADIR json      print sample JSON Lines (the shell
 *                                   script checks that python parses them)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "iomem.h"
#include "kallsyms.h"
#include "pks_common.h"
#include "pks_opts.h"
#include "view.h"
#include "opts.h"
#include "report.h"
#include "model.h"
#include "junit.h"
#include "replay.h"

static int failed, total;
static const char *datadir;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	total++;
	printf("%s - pksfault: ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		failed++;
}

/* ok() on two strings, showing both when they differ. */
static void ok_str(const char *got, const char *want, const char *what)
{
	ok(got && !strcmp(got, want), "%s", what);
	if (!got || strcmp(got, want))
		printf("#   got  '%s'\n#   want '%s'\n", got ? got : "(null)", want);
}

static const char *data(const char *name)
{
	static char path[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", datadir, name);
	return path[i];
}

/* Run a printer into a memory buffer (caller frees). */
#define CAPTURE(buf, call) do {						\
		size_t _len;						\
		FILE *_f = open_memstream(&(buf), &_len);		\
		call;							\
		fclose(_f);						\
	} while (0)
#define OUT _f

static void test_pkrs(void)
{
	char buf[128];
	int n;

	ok_str(pks_rights_name(PKS_PKRS_DEFAULT, 0), "RW", "default PKRS: key 0 RW");
	ok_str(pks_rights_name(PKS_PKRS_DEFAULT, 1), "NA", "default PKRS: key 1 NA");
	ok_str(pks_rights_name(PKS_PKRS_DEFAULT, 15), "NA", "default PKRS: key 15 NA");
	ok_str(pks_rights_name(0x55555550, 1), "RW", "window open: key 1 RW");
	ok_str(pks_rights_name(0x8, 1), "RO", "WD only: RO");
	ok_str(pks_rights_name(0xc, 1), "NA", "AD and WD: NA (AD wins)");
	ok_str(pks_rights_name(0x80000000, 15), "RO", "key 15 WD is bit 31");
	ok_str(pks_rights_name(0, 16), "??", "key out of range");
	n = pks_format_pkrs(PKS_PKRS_DEFAULT, 0x3, buf, sizeof(buf));
	ok_str(buf, "0:RW 1:NA", "format PKRS keys 0,1");
	ok(n == 9, "format returns the length (%d)", n);
	pks_format_pkrs(0x5555554c, 0x8006, buf, sizeof(buf));
	ok_str(buf, "1:NA 2:RW 15:NA", "format keys 1,2,15");
	n = pks_format_pkrs(PKS_PKRS_DEFAULT, 0x3, buf, 5);
	ok(n == 9 && !strcmp(buf, "0:RW"), "format truncates, NUL-terminated, full length (%d '%s')",
	   n, buf);
	pks_format_pkrs(PKS_PKRS_DEFAULT, 0, buf, sizeof(buf));
	ok_str(buf, "", "format with no keys is empty");
}

static void test_keys_cpuinfo(void)
{
	char owners[PKS_NR_KEYS][PKS_OWNER_LEN];
	uint16_t mask = 0xffff;
	int n;

	n = pks_read_keys(data("pks_keys_allocated.sample"), owners, &mask);
	ok(n == 3 && mask == 0xb, "keys file: 3 keys, mask 0xb (%d, %#x)", n, mask);
	ok_str(owners[1], "Device Memory", "keys file: owner of key 1");
	ok_str(owners[3], "pks test file", "keys file: owner with spaces");
	ok_str(owners[2], "", "keys file: unlisted key has no owner");
	n = pks_read_keys(data("no-such-file"), owners, &mask);
	ok(n == -ENOENT && mask == 0, "keys file missing: -ENOENT, empty mask");
	ok(pks_cpuinfo_has_pks(data("cpuinfo-pks.sample")), "cpuinfo with pks flag");
	ok(!pks_cpuinfo_has_pks(data("cpuinfo-nopks.sample")),
	   "cpuinfo without pks (pkss, 'bugs: pks' do not count)");
	ok(!pks_cpuinfo_has_pks(data("no-such-file")), "cpuinfo missing: no PKS");
}

static void test_userns(void)
{
	ok(pks_userns_is_init("user:[4026531837]") && !pks_userns_is_init("user:[4026532201]") &&
	   !pks_userns_is_init(""), "user namespace: only the initial one can load tracing BPF");
}

static void test_parse_long(void)
{
	long v = 7;

	ok(!pks_parse_long("15", 0, 15, &v) && v == 15, "parse_long: upper bound included");
	ok(pks_parse_long("16", 0, 15, &v) && v == 15, "parse_long: above range, value untouched");
	ok(pks_parse_long("", 0, 15, &v) && pks_parse_long("1 ", 0, 15, &v) &&
	   pks_parse_long("0x1", 0, 15, &v) && pks_parse_long("99999999999999999999", 0, 15, &v),
	   "parse_long: empty, trailing junk, hex, overflow rejected");
	ok(pks_parse_long(" 5", 0, 15, &v) && pks_parse_long("+5", 0, 15, &v) &&
	   pks_parse_long("-0", 0, 15, &v) && pks_parse_long("-5", 0, 15, &v) && v == 15,
	   "parse_long: leading blank, '+', a sign in a non-negative range rejected");
	ok(!pks_parse_long("-5", -10, 15, &v) && v == -5 &&
	   pks_parse_long("-99999999999999999999", -10, 15, &v),
	   "parse_long: a negative number where the range has them; underflow rejected");
}

/* The shared option contract (tools/lib/pks_opts.c): numbers and messages. */
static void test_opts_shared(void)
{
	static const char *const bad[] = {
		"", ".", "1e3", "inf", "nan", "0x10", " 2", "2 ", "-1", "+1", "1..2", "1,5",
	};
	struct pks_opts_common c = { .tool = "pkstop" };
	double d = 7;
	char *buf = NULL;
	size_t len = 0, i, rejected = 0;
	long v;

	ok(!pks_parse_seconds("0.5", 0.1, 10, &d) && d == 0.5 &&
	   !pks_parse_seconds("2", 0.1, 10, &d) && d == 2 && !pks_parse_seconds(".25", 0, 1, &d) &&
	   !pks_parse_seconds("3.", 0, 10, &d) && d == 3,
	   "parse_seconds: plain decimals");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		rejected += pks_parse_seconds(bad[i], 0, 100, &d) == -1;
	ok(rejected == sizeof(bad) / sizeof(bad[0]) && d == 3,
	   "parse_seconds: exponent, inf, nan, hex, blanks, signs, junk rejected (%zu of %zu)",
	   rejected, sizeof(bad) / sizeof(bad[0]));
	ok(pks_parse_seconds("0.05", 0.1, 10, &d) && pks_parse_seconds("100000", 0.1, 86400, &d),
	   "parse_seconds: out of range rejected");
	c.err = open_memstream(&buf, &len);
	ok(pks_opt_long(&c, "count", "12x", 1, 9, &v) == -1 && c.said,
	   "opt_long: a bad number is a usage error");
	fclose(c.err);
	ok(buf && !strcmp(buf, "pkstop: invalid count '12x' (want 1..9); see 'pkstop --help'\n"),
	   "usage error: one line, 'TOOL: what is wrong; see 'TOOL --help'' ('%s')", buf);
	free(buf);
}

static void test_json_string(void)
{
	char *buf = NULL;

	CAPTURE(buf, json_print_string(OUT, "plain"));
	ok_str(buf, "\"plain\"", "json string: plain");
	free(buf);
	CAPTURE(buf, json_print_string(OUT, "a\"b\\c/d"));
	ok_str(buf, "\"a\\\"b\\\\c/d\"", "json string: quote and backslash escaped");
	free(buf);
	CAPTURE(buf, json_print_string(OUT, "l1\nl2\tx\r\x01\x1f"));
	ok_str(buf, "\"l1\\nl2\\tx\\r\\u0001\\u001f\"", "json string: control characters");
	free(buf);
	CAPTURE(buf, json_print_string(OUT, "k\xff\x7f"));
	ok_str(buf, "\"k\\u00ff\\u007f\"", "json string: high bytes and DEL as \\u00XX");
	free(buf);
	CAPTURE(buf, json_print_string(OUT, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91 \xc2\xa0"));
	ok_str(buf, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91 \xc2\xa0\"",
	       "json string: valid UTF-8 (2, 3, 4 bytes) copied as is");
	free(buf);
	/* C1 CSI; overlong '/'; a surrogate; past U+10FFFF; a character cut short. */
	CAPTURE(buf, json_print_string(OUT,
				       "\xc2\x9b|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82"));
	ok_str(buf, "\"\\u009b|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080|\\u00f4\\u0090\\u0080\\u0080|"
	       "\\u00e2\\u0082\"",
	       "json string: C1 controls and non-UTF-8 bytes as \\u00XX (still valid JSON)");
	free(buf);
	CAPTURE(buf, json_print_string(OUT, NULL));
	ok_str(buf, "null", "json string: NULL is null");
	free(buf);
	CAPTURE(buf, json_print_string(OUT, ""));
	ok_str(buf, "\"\"", "json string: empty");
	free(buf);
}

/* Text output of a comm: a process chooses its own name, escape sequences included. */
static void test_escape_comm(void)
{
	char buf[64];
	size_t n;

	n = pks_escape_comm("a\x1b[2J\n\\\xff~ z", 64, buf, sizeof(buf));
	ok_str(buf, "a\\x1b[2J\\x0a\\\\\\xff~ z", "escape comm: ESC, newline, backslash, 0xff");
	ok(n == 21 && n == strlen(buf), "escape comm: returns the escaped length (%zu)", n);
	/* 16 bytes and no NUL, as a comm may come: stops at inlen. */
	n = pks_escape_comm("0123456789abcdef!!", 16, buf, sizeof(buf));
	ok(n == 16 && !strcmp(buf, "0123456789abcdef"), "escape comm: reads inlen bytes, no more");
	n = pks_escape_comm("ab\x1b" "cd", 16, buf, 6);
	ok(n == 8 && !strcmp(buf, "ab"), "escape comm: truncated between escapes, never in one "
	   "('%s', %zu)", buf, n);
	n = pks_escape_comm("a\x1b" "c", 16, buf, 5);
	ok(n == 6 && !strcmp(buf, "a"), "escape comm: nothing after an escape that did not fit "
	   "('%s')", buf);
	buf[0] = 'X';
	n = pks_escape_comm("abc", 3, buf, 0);
	ok(n == 3 && buf[0] == 'X', "escape comm: outlen 0 writes nothing");
}

/* Parse a command line given as one string; returns parse result. */
static int parse(const char *line, struct pksfault_opts *o, char **err_out)
{
	static char copy[512];
	char *argv[32], *tok, *save;
	size_t len;
	int argc = 0, ret;
	FILE *err;

	snprintf(copy, sizeof(copy), "pksfault %s", line);
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	*err_out = NULL;
	err = open_memstream(err_out, &len);
	/* -1: a usage error (exit 2); 0: run, or exit 0 after --help/--version. */
	ret = pksfault_parse_args(argc, argv, o, err) == PKS_EXIT_ERROR ? -1 : 0;
	fclose(err);
	return ret;
}

static void test_options(void)
{
	struct pksfault_opts o;
	char *err;
	int r;

	r = parse("", &o, &err);
	ok(!r && o.pid == 0 && o.key == -1 && o.leak_ms == -1 && !o.cmd && !o.json,
	   "options: defaults");
	free(err);
	r = parse("-p 42 -t 43 -k 1 -d 5 --leak 100 --hist --json -v", &o, &err);
	ok(!r && o.pid == 42 && o.tid == 43 && o.key == 1 && o.duration == 5 &&
	   o.leak_ms == 100 && o.hist && o.json && o.common.verbose, "options: all set");
	free(err);
	ok(!o.open_stacks, "options: no opener's stacks by default (an unwind per window)");
	r = parse("--leak 100 --open-stacks", &o, &err);
	ok(!r && o.leak_ms == 100 && o.open_stacks, "options: --open-stacks with --leak");
	free(err);
	r = parse("--open-stacks --hist", &o, &err);
	ok(r == -1 && strstr(err, "--open-stacks needs --leak") && !strchr(err, '\n')[1],
	   "options: --open-stacks without --leak rejected, one line");
	free(err);
	r = parse("--leak=0 -k0", &o, &err);
	ok(!r && o.leak_ms == 0 && o.key == 0, "options: --leak=0 and -k0 are valid");
	free(err);
	r = parse("--leak 50 -- fio --name=x -p 3", &o, &err);
	ok(!r && o.leak_ms == 50 && o.pid == 0 && o.cmd && !strcmp(o.cmd[0], "fio") &&
	   !strcmp(o.cmd[1], "--name=x") && !strcmp(o.cmd[2], "-p") && !o.cmd[4],
	   "options: everything after -- is the command's");
	free(err);
	r = parse("-k 16", &o, &err);
	ok(r == -1 && strstr(err, "invalid key '16'") && !strchr(err, '\n')[1],
	   "options: key 16 rejected, one line");
	free(err);
	r = parse("-p 12x", &o, &err);
	ok(r == -1 && strstr(err, "invalid PID '12x'"), "options: bad PID rejected");
	free(err);
	r = parse("-p -3", &o, &err);
	ok(r == -1, "options: negative PID rejected");
	free(err);
	r = parse("-d 0", &o, &err);
	ok(r == -1 && strstr(err, "invalid duration"), "options: -d 0 rejected");
	free(err);
	r = parse("--bogus", &o, &err);
	ok(r == -1 && strstr(err, "'--bogus'") && !strchr(err, '\n')[1],
	   "options: unknown option named, one line");
	free(err);
	r = parse("-p", &o, &err);
	ok(r == -1 && strstr(err, "missing argument"), "options: missing argument");
	free(err);
	r = parse("ls", &o, &err);
	ok(r == -1 && strstr(err, "unexpected argument 'ls'"), "options: command without --");
	free(err);
	r = parse("--", &o, &err);
	ok(r == -1 && strstr(err, "no command after"), "options: -- without a command");
	free(err);
	r = parse("-d 3 -- true", &o, &err);
	ok(r == -1 && strstr(err, "exclude"), "options: -d with a command rejected");
	free(err);
	r = parse("--timeout 30 -- make test", &o, &err);
	ok(!r && o.timeout == 30 && o.cmd, "options: --timeout with a command");
	free(err);
	r = parse("--timeout 30", &o, &err);
	ok(r == -1 && strstr(err, "--timeout needs a command") && !strchr(err, '\n')[1],
	   "options: --timeout without a command rejected, one line");
	free(err);
	r = parse("--version", &o, &err);
	ok(!r && o.common.done && !*err, "options: --version is accepted (exit 0)");
	free(err);
	r = parse("--json -o gate.jsonl -- make test", &o, &err);
	ok(!r && o.json && o.output && !strcmp(o.output, "gate.jsonl") && o.cmd,
	   "options: -o FILE");
	free(err);
	r = parse("--cgroup -- make test", &o, &err);
	ok(!r && o.cgroup_self && !o.cgroup, "options: --cgroup gates CMD's own cgroup");
	free(err);
	r = parse("-c /sys/fs/cgroup/ci -d 5", &o, &err);
	ok(!r && !o.cgroup_self && o.cgroup && !strcmp(o.cgroup, "/sys/fs/cgroup/ci"),
	   "options: -c PATH names a cgroup");
	free(err);
	r = parse("--cgroup -d 5", &o, &err);
	ok(r == -1 && strstr(err, "--cgroup gates a command") && !strchr(err, '\n')[1],
	   "options: --cgroup without a command rejected, one line");
	free(err);
}

/* --cgroup: the cgroup v2 directory this process is in. */
static void test_own_cgroup(void)
{
	char buf[256];

	ok(!pks_own_cgroup(data("cgroup.sample"), data("mounts.sample"), buf, sizeof(buf)) &&
	   !strcmp(buf, "/sys/fs/cgroup/ci/job-42"),
	   "cgroup: own cgroup from /proc/self/cgroup under the cgroup2 mount");
	ok(pks_own_cgroup(data("cgroup.sample"), data("cpuinfo-pks.sample"), buf, sizeof(buf)) ==
	   -ENOENT, "cgroup: no cgroup2 mount is an error, not a guess");
}

static void test_kallsyms(void)
{
	struct ksyms *ks = ksyms_load(data("kallsyms.sample"));
	char buf[160];

	ok(ks && ksyms_count(ks) == 14, "kallsyms: text symbols loaded (%zu)", ksyms_count(ks));
	if (!ks)
		return;
	ok_str(ksyms_format(ks, 0xffffffff812a4051, buf, sizeof(buf)),
	       "copy_to_kernel_nofault+0x51", "kallsyms: function+offset");
	ok_str(ksyms_format(ks, 0xffffffff81605e10, buf, sizeof(buf)), "run_inject+0x0",
	       "kallsyms: exact start is +0x0");
	ok_str(ksyms_format(ks, 0xffffffff812a40d8, buf, sizeof(buf)),
	       "copy_to_kernel_nofault.cold+0x8", "kallsyms: .cold part");
	ok_str(ksyms_format(ks, 0xffffffff81606280, buf, sizeof(buf)), "leak_thread+0x280",
	       "kallsyms: data symbols are skipped");
	ok_str(ksyms_format(ks, 0xffffffff81000010, buf, sizeof(buf)), "startup_64+0x10",
	       "kallsyms: aliases: the first listed wins");
	ok_str(ksyms_format(ks, 0xffffffffc0001010, buf, sizeof(buf)),
	       "pmem_submit_bio+0x10 [nd_pmem]", "kallsyms: module symbol");
	ok_str(ksyms_format(ks, 0xffffffffc0002004, buf, sizeof(buf)), "dax_io_helper+0x4 [dax]",
	       "kallsyms: last symbol");
	ok_str(ksyms_format(ks, 0xffffffff80000000, buf, sizeof(buf)), "0xffffffff80000000",
	       "kallsyms: below the first symbol: raw address");
	ok_str(ksyms_format(NULL, 0x1234, buf, sizeof(buf)), "0x1234", "kallsyms: no table: raw");
	/* A module loaded after the table was read: not dax's function + 0x1010. */
	ok_str(ksyms_format(ks, 0xffffffffc0003010, buf, sizeof(buf)), "dax_io_helper+0x1010 [dax]",
	       "kallsyms: without module extents, the nearest symbol wins");
	ok(ksyms_load_modules(ks, data("modules.sample")) == 0, "kallsyms: /proc/modules read");
	ok_str(ksyms_format(ks, 0xffffffffc0003010, buf, sizeof(buf)), "0xffffffffc0003010",
	       "kallsyms: an address past its module's end is not that module's");
	ok(ksyms_stale(ks, 0xffffffffc0003010) && !ksyms_stale(ks, 0xffffffffc0001010) &&
	   !ksyms_stale(ks, 0xffffffff80000000), "kallsyms: a miss in the module area asks for a reload");
	ok_str(ksyms_format(ks, 0xffffffffc0002ff0, buf, sizeof(buf)), "dax_io_helper+0xff0 [dax]",
	       "kallsyms: inside its module's extent");
	ok_str(ksyms_format(ks, 0xffffffffc0100010, buf, sizeof(buf)),
	       "bpf_prog_1f6c99e0bb9b8574_pks_fault+0x10 [bpf]",
	       "kallsyms: pseudo-modules ([bpf]) have no extent and stay unbounded");
	ksyms_free(ks);
	ok(!ksyms_load(data("no-such-file")) && errno == ENOENT, "kallsyms: missing file fails");
}

static void test_iomem(void)
{
	struct iomem_map map;
	const struct iomem_dev *d;
	int n;

	n = iomem_load(data("iomem.sample"), &map);
	ok(n == 3, "iomem: namespace, dax and pmem ranges (%d)", n);
	d = iomem_lookup(&map, 0x144000000);
	ok(d && !strcmp(d->name, "namespace0.0") && 0x144000000 - d->start == 0x4000000,
	   "iomem: address in namespace0.0 at +0x4000000");
	d = iomem_lookup(&map, 0x140300000);
	ok(d && !strcmp(d->name, "dax0.0"), "iomem: innermost range (dax0.0) wins");
	d = iomem_lookup(&map, 0x23fffffff);
	ok(d && !strcmp(d->name, "namespace0.0"), "iomem: end is inclusive");
	ok(!iomem_lookup(&map, 0x240000000), "iomem: between devices: none");
	ok(!iomem_lookup(&map, 0x1000), "iomem: System RAM is not a device");
	d = iomem_lookup(&map, 0x280001000);
	ok(d && !strcmp(d->name, "pmem1"), "iomem: legacy pmem");
	n = iomem_load(data("iomem-user.sample"), &map);
	ok(n == 0, "iomem: zeroed addresses (not root) give no ranges");
}

/*
 * The histogram of @slots in text (every line of @rows in it, NULL-ended,
 * and no terminal escapes) and in JSON (@json exactly).
 */
static void check_hist(const uint64_t *slots, const char *const *rows, const char *json,
		       const char *name)
{
	char *buf = NULL, text_name[128], json_name[128];
	bool all = true;

	CAPTURE(buf, hist_print_log2(OUT, slots, PKSFAULT_HIST_SLOTS, "usecs"));
	for (; *rows; rows++)
		all = all && strstr(buf, *rows);
	snprintf(text_name, sizeof(text_name), "hist: %s (text)", name);
	ok(all && !strchr(buf, '\033'), text_name);
	if (!all)
		printf("# %s\n", buf);
	free(buf);
	CAPTURE(buf, hist_json_log2(OUT, slots, PKSFAULT_HIST_SLOTS));
	snprintf(json_name, sizeof(json_name), "hist: %s (JSON)", name);
	ok_str(buf, json, json_name);
	free(buf);
}

static void test_hist(void)
{
	uint64_t slots[PKSFAULT_HIST_SLOTS] = {};
	static const char *const empty[] = { "no samples", NULL };
	static const char *const rows[] = {
		"         0 -> 1          : 1          |**********",
		"         8 -> 15         : 4          |****************************************|",
		"         4 -> 7          : 0          |                                        |",
		NULL };
	static const char *const overflow[] = {
		"1073741824 -> 2147483647 : 1 ", "2147483648 -> inf        : 2 ", NULL };
	char *buf = NULL;

	check_hist(slots, empty, "[]", "empty");
	slots[0] = 1;	/* 0..1 us */
	slots[3] = 4;	/* 8..15 us */
	check_hist(slots, rows, "[{\"from\":0,\"to\":1,\"count\":1},{\"from\":2,\"to\":3,\"count\":0},"
		   "{\"from\":4,\"to\":7,\"count\":0},{\"from\":8,\"to\":15,\"count\":4}]",
		   "log2 rows from the first to the last non-empty slot");
	CAPTURE(buf, hist_print_log2(OUT, slots, PKSFAULT_HIST_SLOTS, "usecs"));
	ok(!strstr(buf, "16 -> 31"), "hist: no rows past the last non-empty slot");
	free(buf);
	/* The last slot holds everything from 2^31 us up: open-ended. */
	memset(slots, 0, sizeof(slots));
	slots[PKSFAULT_HIST_SLOTS - 2] = 1;
	slots[PKSFAULT_HIST_SLOTS - 1] = 2;
	check_hist(slots, overflow, "[{\"from\":1073741824,\"to\":2147483647,\"count\":1},"
		   "{\"from\":2147483648,\"to\":null,\"count\":2}]",
		   "the last slot is the open-ended overflow bucket");
}

static void sample_env(struct pksfault_env *env, bool json)
{
	memset(env, 0, sizeof(*env));
	env->ks = ksyms_load(data("kallsyms.sample"));
	iomem_load(data("iomem.sample"), &env->iomem);
	pks_read_keys(data("pks_keys_allocated.sample"), env->owners, &env->keymask);
	env->json = json;
}

static void sample_fault(struct pksfault_event *e)
{
	memset(e, 0, sizeof(*e));
	e->type = PKSFAULT_EV_FAULT;
	e->cpu = 1;
	e->ts_ns = 5000000000ULL;
	e->pid = 321;
	e->tid = 322;
	strcpy(e->comm, "we\"ird\\sh");
	e->key = 1;
	e->address = 0xffff888144000000ULL;
	e->phys = 0x144000000ULL;
	e->ip = 0xffffffff812a4051ULL;
	e->pkrs = PKS_PKRS_DEFAULT;
	e->write = 1;
	e->mode = PKS_FAULT_STRICT;
	e->outcome = PKS_FAULT_FIXED_UP;
	strcpy(e->owner, "Device Memory");
	e->stack[0] = 0xffffffffc010026aULL;	/* the BPF program */
	e->stack[1] = 0xffffffff81180084ULL;	/* bpf_trace_run9 */
	e->stack[2] = 0xffffffff812a4051ULL;
	e->stack[3] = 0xffffffff81605e80ULL;
	e->stack_sz = 4 * sizeof(__u64);
}

static void sample_leak(struct pksfault_event *e)
{
	memset(e, 0, sizeof(*e));
	e->type = PKSFAULT_EV_LEAK;
	e->ts_ns = 6000000000ULL;
	e->pid = 2;
	e->tid = 77;
	strcpy(e->comm, "pks-leak");
	e->key = 1;
	e->duration_ns = 512345678;
	e->open_caller = 0xffffffff81606040ULL;
	e->close_caller = 0xffffffff81606090ULL;
	e->stack[0] = 0xffffffff81606040ULL;
	e->stack_sz = sizeof(__u64);
}

static void sample_unbalanced(struct pksfault_event *e)
{
	memset(e, 0, sizeof(*e));
	e->type = PKSFAULT_EV_UNBALANCED;
	e->ts_ns = 7000000000ULL;
	e->cpu = 1;
	e->pid = e->tid = 95;
	strcpy(e->comm, "sh");
	e->key = 1;
	e->close_caller = 0xffffffff81606090ULL;
	e->stack[0] = 0xffffffff81606090ULL;
	e->stack_sz = sizeof(__u64);
}

static void sample_window(struct pksfault_window *w)
{
	memset(w, 0, sizeof(*w));
	w->start_ns = 1000;
	w->pid = w->tid = 9;
	strcpy(w->comm, "fio");
	w->key = 1;
	w->caller = 0xffffffffc0001010ULL;
}

/* Windows still open: a leak found by a sweep, one open before attach. */
static void test_format_open(const struct pksfault_env *env)
{
	struct pksfault_window w;
	char *buf = NULL;

	sample_window(&w);
	CAPTURE(buf, pksfault_print_open(OUT, env, &w, 250001000ULL, true));
	ok(strstr(buf, " LEAK pid=9 tid=9 comm=fio key=1 (Device Memory) held so far 250.000 ms"
		  " opened_by=pmem_submit_bio+0x10 [nd_pmem]\n") != NULL,
	   "text leak still open: reported with how long so far, no closer");
	free(buf);
	w.flags = PKSFAULT_WIN_SEEDED;
	w.key = -1;
	w.caller = 0;
	CAPTURE(buf, pksfault_print_open(OUT, env, &w, 250001000ULL, false));
	ok(strstr(buf, " OPEN pid=9 tid=9 comm=fio key=-1 (key unknown) held so far 250.000 ms"
		  " opened_by=before-attach\n") != NULL,
	   "text window open before attach: opener unknown, held since attach");
	free(buf);
}

static void test_format(void)
{
	struct pksfault_env env;
	struct pksfault_event e;
	char *buf = NULL;

	sample_env(&env, false);
	sample_fault(&e);
	CAPTURE(buf, pksfault_print_fault(OUT, &env, &e));
	ok(strstr(buf, " FAULT cpu=1 pid=321 tid=322 comm=we\"ird\\\\sh write"
		  " addr=0xffff888144000000"
		  " dev=namespace0.0+0x4000000 key=1 (Device Memory) pkrs=0x55555554"
		  " [0:RW 1:NA 3:NA] depth=0 mode=strict outcome=fixed_up\n") != NULL,
	   "text fault line: task, device+offset, key owner, PKRS per key, mode, outcome");
	ok(strstr(buf, "    ip: copy_to_kernel_nofault+0x51\n      copy_to_kernel_nofault+0x51\n"
		      "      run_inject+0x70\n") && !strstr(buf, "bpf"),
	   "text fault: ip and stack symbolized, BPF and tracepoint frames skipped");
	if (!strstr(buf, "dev=namespace0.0"))
		printf("# %s", buf);
	free(buf);
	e.stack[1] = 0xffffffff81e00022ULL;	/* the exception entry: shown when ip is absent */
	e.ip = 0xffffffff812a4058ULL;
	CAPTURE(buf, pksfault_print_fault(OUT, &env, &e));
	ok(strstr(buf, "    ip: copy_to_kernel_nofault+0x58\n      asm_exc_page_fault+0x22\n") &&
	   !strstr(buf, "bpf"), "text fault: ip not on the stack: skips only the BPF frames");
	free(buf);
	sample_fault(&e);
	e.phys = 0x3000;	/* not a device: no dev= */
	e.owner[0] = '\0';
	e.key = 2;
	CAPTURE(buf, pksfault_print_fault(OUT, &env, &e));
	ok(!strstr(buf, "dev=") && strstr(buf, "key=2 (unallocated)") &&
	   strstr(buf, "[0:RW 1:NA 2:NA 3:NA]"),
	   "text fault: no device, unallocated key decoded too");
	free(buf);
	/* A comm chosen to clear the screen and fake a line of its own. */
	memcpy(e.comm, "\x1b[2J\nFAULT \\\xff", 14);
	CAPTURE(buf, pksfault_print_fault(OUT, &env, &e));
	ok(strstr(buf, " comm=\\x1b[2J\\x0aFAULT \\\\\\xff write ") && !strchr(buf, '\x1b') &&
	   !strchr(buf, '\xff') && strchr(buf, '\n') == strstr(buf, "\n    ip:"),
	   "text fault: comm escaped (ESC, newline, backslash, 0xff as \\xNN, \\\\)");
	free(buf);
	sample_leak(&e);
	memcpy(e.comm, "\x1b]0;x\x07", 7);
	CAPTURE(buf, pksfault_print_leak(OUT, &env, &e, false));
	ok(strstr(buf, " LEAK pid=2 tid=77 comm=\\x1b]0;x\\x07 key=1 ") && !strchr(buf, '\x1b') &&
	   !strchr(buf, '\x07'), "text leak: comm escaped");
	free(buf);
	sample_leak(&e);
	CAPTURE(buf, pksfault_print_leak(OUT, &env, &e, false));
	ok(strstr(buf, " LEAK pid=2 tid=77 comm=pks-leak key=1 (Device Memory) held 512.346 ms"
		  " opened_by=leak_thread+0x40 closed_by=leak_thread+0x90\n") &&
	   strstr(buf, "    opened at:\n      leak_thread+0x40\n"),
	   "text leak: duration, opener, closer, opening stack");
	free(buf);
	CAPTURE(buf, pksfault_print_leak(OUT, &env, &e, true));
	ok(strstr(buf, " LEAK-END pid=2 tid=77 comm=pks-leak key=1 (Device Memory) held 512.346 ms"
		  " opened_by=leak_thread+0x40 closed_by=leak_thread+0x90\n") &&
	   !strstr(buf, "opened at"),
	   "text leak end: a leak reported while open gets its total, not its stack again");
	free(buf);
	/* Without --open-stacks: the closer's stack, or the holder's. */
	e.win_flags = PKSFAULT_WIN_STACK_CLOSER;
	CAPTURE(buf, pksfault_print_leak(OUT, &env, &e, false));
	ok(strstr(buf, "    closed at:\n      leak_thread+0x40\n") && !strstr(buf, "opened at"),
	   "text leak found at its close: the stack is labelled the closer's");
	free(buf);
	e.win_flags = PKSFAULT_WIN_STACK_HOLDER;
	CAPTURE(buf, pksfault_print_leak(OUT, &env, &e, false));
	ok(strstr(buf, "    held at (holder's stack now):\n      leak_thread+0x40\n") &&
	   !strstr(buf, "opened at"), "text leak found open: the stack is labelled the holder's");
	free(buf);
	sample_unbalanced(&e);
	CAPTURE(buf, pksfault_print_unbalanced(OUT, &env, &e));
	ok(strstr(buf, " UNBALANCED cpu=1 pid=95 tid=95 comm=sh key=1 (Device Memory)"
		  " closed_by=leak_thread+0x90 context=task (closed a window that was not open)\n"
		  "      leak_thread+0x90\n") != NULL,
	   "text unbalanced close: task, key, the closer and its stack");
	free(buf);
	/* A key owner is a kernel string: escaped on a terminal all the same. */
	sample_fault(&e);
	strcpy(e.owner, "ev\x1b[2Jil");
	strcpy(env.owners[1], "ev\x1b[2Jil");
	CAPTURE(buf, pksfault_print_fault(OUT, &env, &e));
	ok(strstr(buf, " key=1 (ev\\x1b[2Jil) ") && !strchr(buf, '\x1b'),
	   "text fault line: a key owner's control bytes are escaped");
	free(buf);
	CAPTURE(buf, pksfault_print_unbalanced(OUT, &env, &e));
	ok(strstr(buf, " key=1 (ev\\x1b[2Jil) ") && !strchr(buf, '\x1b'),
	   "text unbalanced close: a key owner's control bytes are escaped");
	free(buf);
	strcpy(env.owners[1], "Device Memory");
	test_format_open(&env);
	ksyms_free(env.ks);
}

static void test_report(void)
{
	struct pksfault_report r;
	struct pksfault_event e;
	struct pksfault_env env, env0;
	char *buf = NULL;

	memset(&r, 0, sizeof(r));
	memset(&env0, 0, sizeof(env0));
	ok(report_exit_code(&r) == 0, "verdict: nothing seen is clean (0)");
	r.cmd_ran = true;
	r.cmd_exit = 4;
	ok(report_exit_code(&r) == 3, "verdict: command failed, nothing found (3)");
	r.cmd_exit = 0;
	r.cmd_signal = 9;
	ok(report_exit_code(&r) == 3, "verdict: command killed (3)");
	r.cmd_signal = 0;
	r.cmd_timed_out = true;
	ok(report_exit_code(&r) == 4, "verdict: command stopped after --timeout (4)");
	r.stats.v[PKSFAULT_STAT_FAULTS] = 1;
	ok(report_exit_code(&r) == 1, "verdict: faults win over a timeout (1)");
	r.stats.v[PKSFAULT_STAT_FAULTS] = 0;
	r.cmd_timed_out = false;
	r.stats.v[PKSFAULT_STAT_LOST] = 1;
	ok(report_exit_code(&r) == 5, "verdict: lost events are not clean, and not found (5)");
	r.stats.v[PKSFAULT_STAT_FAULTS] = 1;
	ok(report_exit_code(&r) == 1, "verdict: found beats lost (1)");
	r.stats.v[PKSFAULT_STAT_FAULTS] = 0;
	r.stats.v[PKSFAULT_STAT_LOST] = 0;
	r.stats.v[PKSFAULT_STAT_WIN_UNTRACKED] = 2;
	ok(report_exit_code(&r) == 5, "verdict: untracked windows are not clean (5)");
	r.stats.v[PKSFAULT_STAT_WIN_UNTRACKED] = 0;
	r.recursion_misses = 1;
	ok(report_exit_code(&r) == 5, "verdict: BPF runs the kernel skipped are not clean (5)");
	CAPTURE(buf, report_print(OUT, &env0, &r));
	ok(strstr(buf, "result: LOST 1 events: nothing found in what was seen, but no verdict (exit 5)\n") != NULL,
	   "summary text: a lossy run without findings says LOST, exit 5");
	free(buf);
	r.recursion_misses = 0;
	sample_unbalanced(&e);
	report_add_unbalanced(&r, &e);
	ok(report_exit_code(&r) == 1 && r.unbalanced == 1,
	   "verdict: an unbalanced close is not clean (1)");
	r.unbalanced = 0;
	r.stats.v[PKSFAULT_STAT_UNBALANCED] = 1;
	ok(report_exit_code(&r) == 1, "verdict: an unbalanced close whose record was lost counts (1)");
	r.stats.v[PKSFAULT_STAT_UNBALANCED] = 0;
	r.leak_enabled = true;
	r.leak_ms = 100;
	report_add_open(&r, 50000000);
	ok(report_exit_code(&r) == 0 && r.open_windows == 1, "verdict: young open window is fine");
	report_add_open(&r, 150000000);
	ok(report_exit_code(&r) == 1 && r.open_leaks == 1, "verdict: old open window is a leak");
	memset(&r, 0, sizeof(r));
	sample_fault(&e);
	report_add_fault(&r, &e);
	report_add_fault(&r, &e);
	e.stack[3] = 0xffffffff81606010ULL;
	report_add_fault(&r, &e);
	r.cmd_ran = true;
	r.cmd_exit = 2;
	ok(report_exit_code(&r) == 1, "verdict: faults win over the command's status (1)");
	ok(r.faults == 3 && r.faults_by_key[1] == 3 && r.nr_stacks == 2 &&
	   r.stacks[0].count == 2, "summary: faults grouped by key and by stack");
	sample_env(&env, false);
	r.stats.v[PKSFAULT_STAT_FAULTS] = 3;
	CAPTURE(buf, report_print(OUT, &env, &r));
	ok(strstr(buf, "faults: 3 (fixed_up 3, allowed 0, oops 0)\n  key 1 (Device Memory): 3\n"
		  "  2 x at copy_to_kernel_nofault+0x51\n") &&
	   strstr(buf, "command exited 2\n") && strstr(buf, "result: FOUND 3 faults, 0 leaks, 0 unbalanced closes\n"),
	   "summary text: counts, stacks, command status, result");
	free(buf);
	e.outcome = PKS_FAULT_OOPS;
	report_add_fault(&r, &e);
	e.outcome = 7;	/* from a newer kernel: counted, under no outcome */
	report_add_fault(&r, &e);
	CAPTURE(buf, report_print(OUT, &env, &r));
	ok(r.faults == 5 && r.faults_by_outcome[PKS_FAULT_OOPS] == 1 &&
	   strstr(buf, "faults: 5 (fixed_up 3, allowed 0, oops 1)\n") &&
	   !strcmp(pks_fault_outcome_name(PKS_FAULT_OOPS), "oops") &&
	   !strcmp(pks_fault_outcome_name(3), "?") &&
	   !strcmp(pks_fault_outcome_name(7), "?"),
	   "summary text: faults by outcome; unknown outcomes counted under none");
	free(buf);
	ksyms_free(env.ks);
}

/*
 * The open-window bookkeeping on a made-up map dump: closed records are
 * skipped, a leak is reported once while open, its close then is its end,
 * the sweep period follows the threshold.
 */
static void test_windows(void)
{
	struct pksfault_windows w = { .holder_iter_fd = -1 };
	struct pksfault_window *wins;
	struct pksfault_report r;
	struct pksfault_env env;
	__u64 *keys;
	char *buf = NULL;

	sample_env(&env, false);
	memset(&r, 0, sizeof(r));
	w.leak_ns = 100000000;	/* 100 ms */
	w.snap.cap = w.snap.n = 3;
	keys = w.snap.keys = calloc(3, sizeof(*keys));
	wins = w.snap.values = calloc(3, sizeof(*wins));
	sample_window(&wins[0]);	/* open since 1 us */
	sample_window(&wins[1]);
	wins[1].start_ns = 0;		/* a thread's record between windows */
	wins[1].tid = 10;
	sample_window(&wins[2]);
	wins[2].tid = 11;
	wins[2].start_ns = 200000000;	/* open since 200 ms */
	keys[0] = 9 << 2;
	keys[1] = 10 << 2;
	keys[2] = 11 << 2;
	windows_collect_open(&w);
	ok(w.nr_open == 2 && wins[1].tid == 11, "windows: closed records are not open windows");
	CAPTURE(buf, windows_sweep_open(&w, &env, &r, OUT, 250001000ULL));
	ok(buf && strstr(buf, " LEAK pid=9 tid=9 ") && !strstr(buf, "tid=11") &&
	   r.leaks_reported_open == 1, "windows: a sweep reports the one past the threshold");
	free(buf);
	CAPTURE(buf, windows_sweep_open(&w, &env, &r, OUT, 400001000ULL));
	ok(buf && strstr(buf, " LEAK pid=9 tid=11 ") && !strstr(buf, "tid=9 ") &&
	   r.leaks_reported_open == 2, "windows: each leak is reported once, the next when it crosses");
	free(buf);
	ok(windows_closed(&w, 9, 1000) && !windows_closed(&w, 9, 1000) && w.nr_reported == 1,
	   "windows: a reported leak's close is its end, once");
	CAPTURE(buf, windows_list_snapshot(&w, &env, &r, OUT, 400001000ULL, true));
	ok(r.open_windows == 2 && buf && strstr(buf, " OPEN pid=9 tid=11 "),
	   "windows: at exit every open window is counted and listed");
	free(buf);
	ok(windows_sweep_period_ns(100000000) == 20000000 &&
	   windows_sweep_period_ns(300000000) == 60000000 &&
	   windows_sweep_period_ns(1) == WINDOWS_SWEEP_MIN_NS &&
	   windows_sweep_period_ns(86400000000000ULL) == WINDOWS_SWEEP_MAX_NS,
	   "windows: sweeps every fifth of the threshold, 20 ms to 1 s");
	pks_map_dump_free(&w.snap);
	ksyms_free(env.ks);
}

/*
 * The direct window records: a snapshot takes the open ones, after the
 * hash map's, keyed by their thread as the BPF side keys them.
 */
static void test_windows_direct(void)
{
	static struct pksfault_window direct[PKSFAULT_DIRECT_WINDOWS];
	struct pksfault_windows w = { .direct = direct };
	struct pksfault_window *wins;
	__u64 *keys;

	sample_window(&direct[5]);	/* open, tid 9 */
	direct[6].tid = 6;		/* a thread's record between windows */
	w.snap.n = 1;			/* one record of the hash map first */
	ok(!windows_append_direct(&w) && w.snap.n == 2,
	   "windows: a snapshot takes the direct array's open record, not its closed one");
	keys = w.snap.keys;
	wins = w.snap.values;
	ok(w.snap.n == 2 && keys[1] == (9 << 2 | PKS_CTX_TASK) && wins[1].tid == 9 &&
	   wins[1].start_ns == direct[5].start_ns,
	   "windows: a direct record is keyed by its thread, after the hash map's");
	pks_map_dump_free(&w.snap);
}

/* --folded: outermost frame first, functions only, the count last. */
static void test_folded(void)
{
	struct pksfault_report r;
	struct pksfault_event e;
	struct pksfault_env env;
	char *buf = NULL;

	sample_env(&env, false);
	memset(&r, 0, sizeof(r));
	sample_fault(&e);
	report_add_fault(&r, &e);
	report_add_fault(&r, &e);
	CAPTURE(buf, report_print_folded(OUT, &env, &r));
	ok_str(buf, "run_inject;copy_to_kernel_nofault 2\n",
	       "folded: a fault stack, outermost first, functions only, with its count");
	free(buf);
	ksyms_free(env.ks);
}

/* A write error (a full disk: /dev/full) is one line and -1, never silence. */
static void test_check_output(void)
{
	FILE *full = fopen("/dev/full", "w"), *ok_f = tmpfile(), *err = tmpfile();
	char line[256] = "";
	int saved, rc_full, rc_ok, lines = 0;

	if (!full || !ok_f || !err) {
		ok(0, "output check: /dev/full and temporary files open");
		return;
	}
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(err), STDERR_FILENO);
	fputs("{\"type\":\"summary\"}\n", full);
	fputs("{\"type\":\"summary\"}\n", ok_f);
	rc_full = pks_check_output(full, "pksfault", "stdout");
	rc_ok = pks_check_output(ok_f, "pksfault", "stdout");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(err);
	while (fgets(line + (lines ? strlen(line) : 0), 128, err))
		lines++;
	ok(rc_full == -1 && rc_ok == 0 && lines == 1 &&
	   !strcmp(line, "pksfault: writing stdout: No space left on device\n"),
	   "output check: a full disk is one line and an error, a good file is not");
	if (lines != 1)
		printf("#   %d lines: %s", lines, line);
	fclose(full);
	fclose(ok_f);
	fclose(err);
}

/* Sample JSON Lines: checked by python3 in tests/host/pksfault.sh. */
static void print_json_samples(void)
{
	struct pksfault_report r;
	struct pksfault_event e;
	struct pksfault_env env;
	struct pksfault_window w;
	char *cmd[] = { "sh", "-c", "echo \"hi\"\t\\", NULL };

	sample_env(&env, true);
	memset(&r, 0, sizeof(r));
	sample_fault(&e);
	pksfault_print_fault(stdout, &env, &e);
	report_add_fault(&r, &e);
	e.phys = 0;
	e.comm[0] = '\x01';
	e.comm[1] = '\xfe';
	e.outcome = PKS_FAULT_ALLOWED;
	e.mode = PKS_FAULT_RELAXED;
	e.write = 0;
	pksfault_print_fault(stdout, &env, &e);
	report_add_fault(&r, &e);
	sample_leak(&e);
	pksfault_print_leak(stdout, &env, &e, false);
	report_add_leak(&r, &e);
	sample_window(&w);
	w.stack[0] = 0xffffffff81606040ULL;
	w.stack_sz = sizeof(__u64);
	w.flags = PKSFAULT_WIN_STACK_HOLDER;
	pksfault_print_open(stdout, &env, &w, 3000001000ULL, false);
	w.stack_sz = 0;
	w.flags = PKSFAULT_WIN_SEEDED;
	w.key = -1;
	pksfault_print_open(stdout, &env, &w, 3000001000ULL, true);
	r.leaks_reported_open = 1;
	e.win_flags = PKSFAULT_WIN_SEEDED;
	pksfault_print_leak(stdout, &env, &e, true);
	sample_unbalanced(&e);
	pksfault_print_unbalanced(stdout, &env, &e);
	report_add_unbalanced(&r, &e);
	r.leak_enabled = r.hist_enabled = true;
	r.leak_ms = 100;
	report_add_open(&r, 3000000000ULL);
	r.hist[2] = 5;
	r.stats.v[PKSFAULT_STAT_FAULTS] = 2;
	r.cmd = cmd;
	r.cmd_ran = true;
	r.cmd_exit = 0;
	report_print(stdout, &env, &r);
	ksyms_free(env.ks);
}

/* A finding's text record, as pksfault.c keeps them for --junit. */
static void keep(struct pksfault_report *r, enum report_kind kind, const struct pksfault_env *env,
		 const struct pksfault_event *e)
{
	char *buf;
	size_t len;
	FILE *m = report_finding_begin(r, kind, &buf, &len);

	if (!m)
		return;
	if (kind == REPORT_FAULT)
		pksfault_print_fault(m, env, e);
	else if (kind == REPORT_LEAK)
		pksfault_print_leak(m, env, e, false);
	else
		pksfault_print_unbalanced(m, env, e);
	report_finding_end(r, kind, m, &buf);
}

/*
 * Sample JUnit reports, checked with junitparser by tests/host/pksfault.sh:
 * "found" (a fault with an odd comm, a leak, an unbalanced close), then
 * after a NUL line "clean" (no --leak: that case skipped).
 */
static void print_junit_samples(void)
{
	struct pksfault_report r;
	struct pksfault_event e;
	struct pksfault_env env;
	char *cmd[] = { "make", "test", "A=<&>", NULL };

	sample_env(&env, false);
	memset(&r, 0, sizeof(r));
	r.keep_findings = true;
	r.leak_enabled = true;
	r.leak_ms = 100;
	r.elapsed_s = 2.5;
	sample_fault(&e);
	e.comm[0] = '\x01';
	report_add_fault(&r, &e);
	keep(&r, REPORT_FAULT, &env, &e);
	sample_leak(&e);
	report_add_leak(&r, &e);
	keep(&r, REPORT_LEAK, &env, &e);
	sample_unbalanced(&e);
	report_add_unbalanced(&r, &e);
	keep(&r, REPORT_UNBALANCED, &env, &e);
	r.cmd = cmd;
	r.cmd_ran = true;
	junit_print(stdout, &r);
	report_free_findings(&r);
	fputc('\0', stdout);
	memset(&r, 0, sizeof(r));
	junit_print(stdout, &r);
	ksyms_free(env.ks);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pksfault_unit DATADIR [json]\n");
		return 2;
	}
	datadir = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 3 && !strcmp(argv[2], "replay")) {	/* replay FILE: its JSON summary */
		struct pksfault_report r;
		struct pksfault_env env;
		FILE *in = fopen(argv[3], "r");
		int ret;

		sample_env(&env, true);
		ret = in ? replay_read(in, argv[3], &r, stderr) : -1;
		if (!ret)
			report_print(stdout, &env, &r);
		replay_free(&r);
		ksyms_free(env.ks);
		return ret ? 2 : report_exit_code(&r);
	}
	if (argc > 2 && !strcmp(argv[2], "args")) {	/* args ARGS...: main's option step */
		struct pksfault_opts o;

		argv[2] = "pksfault";
		return pksfault_parse_args(argc - 2, argv + 2, &o, stderr) == PKS_EXIT_ERROR ? 2 : 0;
	}
	if (argc > 2 && !strcmp(argv[2], "env"))	/* run under unshare -Ur by the script */
		return pks_check_environment("pksfault") ? 2 : 0;
	if (argc > 2 && !strcmp(argv[2], "junit")) {
		print_junit_samples();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "json")) {
		print_json_samples();
		return 0;
	}
	test_pkrs();
	test_keys_cpuinfo();
	test_parse_long();
	test_opts_shared();
	test_userns();
	test_json_string();
	test_escape_comm();
	test_options();
	test_own_cgroup();
	test_kallsyms();
	test_iomem();
	test_hist();
	test_format();
	test_report();
	test_windows();
	test_windows_direct();
	test_folded();
	test_check_output();
	printf("# pksfault unit: %d tests, %d failed\n", total, failed);
	return failed ? 1 : 0;
}
