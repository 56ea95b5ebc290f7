// SPDX-License-Identifier: GPL-2.0
/*
 * pksfault --replay; see pksfault_replay.h.  The reader knows only the
 * dialect pksfault writes: one object per line, its members strings,
 * numbers, true/false/null, arrays and objects (skipped unless wanted).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* A member of the line's top-level object: its name and raw value text. */
struct member {
	const char *name;	/* in the line, not NUL-terminated */
	size_t name_len;
	const char *val;
	size_t val_len;
};

#define MAX_MEMBERS 64

/* The end of the string starting at @p (after its opening quote), or NULL. */
static const char *skip_string(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* The end of the value at @p, or NULL. */
static const char *skip_value(const char *p)
{
	int depth = 0;

	if (*p == '"')
		return skip_string(p + 1);
	for (; *p; p++) {
		if (*p == '"') {
			p = skip_string(p + 1);
			if (!p)
				return NULL;
			p--;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if (*p == ']' || *p == '}') {
			if (!depth)
				return p;	/* the end of the enclosing container */
			if (!--depth)
				return p + 1;
		} else if (*p == ',' && !depth) {
			return p;
		}
	}
	return depth ? NULL : p;
}

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* The members of the object on @line: their count, or -1 when it is none. */
static int parse_object(const char *line, struct member *m, int max)
{
	const char *p = ws(line), *e;
	int n = 0;

	if (*p++ != '{')
		return -1;
	p = ws(p);
	if (*p == '}')
		return 0;
	for (;;) {
		if (*p != '"' || n == max)
			return -1;
		e = skip_string(p + 1);
		if (!e)
			return -1;
		m[n].name = p + 1;
		m[n].name_len = e - p - 2;
		p = ws(e);
		if (*p++ != ':')
			return -1;
		p = ws(p);
		e = skip_value(p);
		if (!e || e == p)
			return -1;
		m[n].val = p;
		m[n].val_len = e - p;
		n++;
		p = ws(e);
		if (*p == '}')
			return n;
		if (*p++ != ',')
			return -1;
		p = ws(p);
	}
}

static const struct member *get(const struct member *m, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (m[i].name_len == strlen(name) && !memcmp(m[i].name, name, m[i].name_len))
			return &m[i];
	return NULL;
}

/* A number member (a JSON number, or a "0x..." string): 0 when absent or null. */
static uint64_t num(const struct member *m, int n, const char *name)
{
	const struct member *v = get(m, n, name);

	if (!v || *v->val == 'n')
		return 0;
	return strtoull(v->val + (*v->val == '"'), NULL, 0);
}

static double dbl(const struct member *m, int n, const char *name)
{
	const struct member *v = get(m, n, name);

	return v && *v->val != 'n' ? strtod(v->val, NULL) : 0;
}

static bool is_null(const struct member *m, int n, const char *name)
{
	const struct member *v = get(m, n, name);

	return !v || *v->val == 'n';
}

/* Decode the JSON string at @p (its opening quote) into @out; returns the end. */
static const char *string(const char *p, char *out, size_t len)
{
	size_t o = 0;
	unsigned int cp;

	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		char c = *p;

		if (c == '\\') {
			c = *++p;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'u':
				if (sscanf(p + 1, "%4x", &cp) != 1)
					return NULL;
				p += 4;
				/* Our writer escapes bytes and C0/C1 controls only. */
				if (cp >= 0x80 && cp < 0x800 && o + 2 < len) {
					out[o++] = 0xc0 | cp >> 6;
					c = 0x80 | (cp & 0x3f);
				} else {
					c = cp;
				}
				break;
			case '\0':
				return NULL;
			}
		}
		if (o + 1 < len)
			out[o++] = c;
	}
	if (len)
		out[o] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

static void str(const struct member *m, int n, const char *name, char *out, size_t len)
{
	const struct member *v = get(m, n, name);

	out[0] = '\0';
	if (v && *v->val == '"' && !string(v->val, out, len))
		out[0] = '\0';
}

/* The hex strings of array member @name into @addrs: how many. */
static int addrs(const struct member *m, int n, const char *name, __u64 *addrs, int max)
{
	const struct member *v = get(m, n, name);
	const char *p, *end;
	int k = 0;

	if (!v || *v->val != '[')
		return 0;
	end = v->val + v->val_len;
	for (p = v->val + 1; p < end && k < max; p++)
		if (*p == '"') {
			addrs[k++] = strtoull(p + 1, NULL, 16);
			p = skip_string(p + 1) - 1;
		}
	return k;
}

static int outcome_of(const char *name)
{
	int o;

	for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++)
		if (!strcmp(name, pks_fault_outcome_name(o)))
			return o;
	return -1;
}

static void add_fault(struct pksfault_report *r, const struct member *m, int n)
{
	struct pksfault_event e;
	char outcome[32];
	int k;

	memset(&e, 0, sizeof(e));
	e.type = PKSFAULT_EV_FAULT;
	e.key = (int)num(m, n, "key");
	str(m, n, "owner", e.owner, sizeof(e.owner));
	if (!strcmp(e.owner, "unallocated"))
		e.owner[0] = '\0';
	str(m, n, "outcome", outcome, sizeof(outcome));
	e.outcome = outcome_of(outcome);
	e.ip = num(m, n, "ip");
	k = addrs(m, n, "stack_addrs", e.stack, PKSFAULT_MAX_STACK);
	e.stack_sz = k * sizeof(e.stack[0]);
	report_add_fault(r, &e);
}

/* The recorded command's words: NUL-separated in one buffer, then the array. */
static void add_command(struct pksfault_report *r, const struct member *m, int n)
{
	const struct member *v = get(m, n, "command");
	const char *p, *end;
	char **argv, *buf;
	size_t len, used = 0;
	int words = 0, i;

	if (!v || *v->val != '[')
		return;
	end = v->val + v->val_len;
	for (p = v->val + 1; p < end; p++)
		if (*p == '"') {
			words++;
			p = skip_string(p + 1) - 1;
		}
	len = v->val_len + 1;
	argv = calloc(words + 1, sizeof(*argv));
	buf = malloc(len);
	if (!argv || !buf) {
		free(argv);
		free(buf);
		return;
	}
	for (i = 0, p = v->val + 1; p < end && i < words; p++)
		if (*p == '"') {
			argv[i++] = buf + used;
			string(p, buf + used, len - used);
			used += strlen(buf + used) + 1;
			p = skip_string(p + 1) - 1;
		}
	r->cmd = argv;
	r->cmd_ran = !is_null(m, n, "command_exit") || num(m, n, "command_signal");
	r->cmd_exit = is_null(m, n, "command_exit") ? -1 : (int)num(m, n, "command_exit");
	r->cmd_signal = num(m, n, "command_signal");
	r->cmd_timed_out = get(m, n, "command_timed_out") &&
			   *get(m, n, "command_timed_out")->val == 't';
}

/* The counters only the live run had, from its summary. */
static void add_summary(struct pksfault_report *r, const struct member *m, int n)
{
	__u64 *v = r->stats.v;
	uint64_t in_flight = num(m, n, "seeds_in_flight");

	r->elapsed_s = dbl(m, n, "elapsed_s");
	v[PKSFAULT_STAT_FAULTS] = num(m, n, "faults_counted");
	r->leak_enabled = !is_null(m, n, "leak_ms");
	r->leak_ms = num(m, n, "leak_ms");
	r->leaks = num(m, n, "leaks");
	r->open_leaks = num(m, n, "still_open_leaks");
	r->open_windows = num(m, n, "open_windows");
	v[PKSFAULT_STAT_WIN_OPENED] = num(m, n, "windows_opened");
	v[PKSFAULT_STAT_WIN_CLOSED] = num(m, n, "windows_closed");
	v[PKSFAULT_STAT_WIN_UNMATCHED] = num(m, n, "windows_unmatched");
	v[PKSFAULT_STAT_IRQ_EVENTS] = num(m, n, "irq_events_ignored");
	v[PKSFAULT_STAT_LOST] = num(m, n, "ringbuf_drops");
	v[PKSFAULT_STAT_WIN_UNTRACKED] = num(m, n, "untracked_windows");
	r->recursion_misses = num(m, n, "recursion_misses");
	r->leaks_reported_open = num(m, n, "leaks_reported_open");
	v[PKSFAULT_STAT_WIN_SEEDED] = num(m, n, "windows_open_at_attach") + in_flight;
	v[PKSFAULT_STAT_SEED_RACED] = in_flight;
	v[PKSFAULT_STAT_UNBALANCED] = num(m, n, "unbalanced_closes");
	add_command(r, m, n);
}

int replay_read(FILE *in, const char *name, struct pksfault_report *r, FILE *err)
{
	struct member m[MAX_MEMBERS];
	char *line = NULL, type[32];
	size_t cap = 0;
	int n, lineno = 0, summaries = 0, ret = 0;

	memset(r, 0, sizeof(*r));
	r->cmd_exit = -1;
	while (getline(&line, &cap, in) > 0) {
		lineno++;
		if (!*ws(line))
			continue;
		n = parse_object(line, m, MAX_MEMBERS);
		str(m, n > 0 ? n : 0, "type", type, sizeof(type));
		if (n < 0 || !type[0] || num(m, n, "schema") != PKS_JSON_SCHEMA) {
			fprintf(err, "pksfault: %s:%d: not a pksfault --json record (schema %d)\n",
				name, lineno, PKS_JSON_SCHEMA);
			ret = -1;
			break;
		}
		if (!strcmp(type, "fault")) {
			add_fault(r, m, n);
		} else if (!strcmp(type, "unbalanced_close")) {
			r->unbalanced++;
		} else if (!strcmp(type, "summary")) {
			if (summaries++)
				replay_free(r);
			add_summary(r, m, n);
		}
	}
	free(line);
	if (!ret && !summaries) {
		fprintf(err, "pksfault: %s: no summary record (the run did not end)\n", name);
		ret = -1;
	}
	return ret;
}

void replay_free(struct pksfault_report *r)
{
	if (r->cmd) {
		free(r->cmd[0]);
		free(r->cmd);
		r->cmd = NULL;
	}
}
