// SPDX-License-Identifier: GPL-2.0
/*
 * pksfault output.  Text: one header line per event, then indented "ip:"
 * and stack lines.  JSON: one object per line with the same fields;
 * addresses as hex strings (JSON numbers lose precision past 2^53).
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "view.h"

#define SYM_LEN 160
/* A comm escaped for text: up to 4 bytes ("\xNN") for each of its bytes. */
#define TEXT_COMM_LEN (PKSFAULT_TASK_COMM_LEN * 4 + 1)

const char *pksfault_known_owner(const struct pksfault_env *env, int key, const char *ev_owner)
{
	if (ev_owner && ev_owner[0])
		return ev_owner;
	if (key >= 0 && key < PKS_NR_KEYS && env->owners[key][0])
		return env->owners[key];
	return NULL;
}

const char *pksfault_owner(const struct pksfault_env *env, int key, const char *ev_owner)
{
	const char *owner = pksfault_known_owner(env, key, ev_owner);

	return owner ? owner : "unallocated";
}

void pksfault_json_key(FILE *f, const struct pksfault_env *env, int key, const char *ev_owner)
{
	if (key >= 0)
		fprintf(f, "\"key\":%d,\"owner\":", key);
	else
		fputs("\"key\":null,\"owner\":", f);
	json_print_string(f, key >= 0 ? pksfault_known_owner(env, key, ev_owner) : NULL);
}

const char *pksfault_time(const struct pksfault_env *env, uint64_t ts_ns, char *buf, size_t len)
{
	int64_t real = (int64_t)ts_ns + env->mono_to_real_ns;
	time_t secs = real / 1000000000;
	struct tm tm;

	if (real < 0 || !localtime_r(&secs, &tm)) {
		snprintf(buf, len, "%" PRIu64, ts_ns);
		return buf;
	}
	snprintf(buf, len, "%02d:%02d:%02d.%06ld", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (long)(real % 1000000000 / 1000));
	return buf;
}

uint16_t pksfault_keymask(const struct pksfault_env *env, int key)
{
	uint16_t mask = env->keymask;

	if (key >= 0 && key < PKS_NR_KEYS)
		mask |= 1u << key;
	return mask;
}

const char *pksfault_ctx_name(int ctx)
{
	switch (ctx) {
	case PKS_CTX_TASK:
		return "task";
	case PKS_CTX_SOFTIRQ:
		return "softirq";
	case PKS_CTX_HARDIRQ:
		return "hardirq";
	}
	return "?";
}

static int nr_frames(int stack_sz)
{
	int n = stack_sz > 0 ? stack_sz / (int)sizeof(__u64) : 0;

	return n > PKSFAULT_MAX_STACK ? PKSFAULT_MAX_STACK : n;
}

/*
 * The first frame worth showing: the BPF program and the tracepoint
 * machinery that called it (bpf_trace_run*, __bpf_trace_*) say nothing
 * about who faulted or opened a window.
 */
int pksfault_first_frame(const struct pksfault_env *env, const __u64 *stack, int n, __u64 ip)
{
	const struct ksym *s;
	int i;

	/* A fault's stack runs through the exception: start where it hit. */
	for (i = 0; ip && i < n && stack[i]; i++)
		if (stack[i] == ip)
			return i;
	for (i = 0; i < n && stack[i]; i++) {
		s = ksyms_lookup(env->ks, stack[i]);
		if (!s || !((s->module && !strcmp(s->module, "bpf")) ||
			    !strncmp(s->name, "bpf_prog_", 9) ||
			    !strncmp(s->name, "bpf_trace_run", 13) ||
			    !strncmp(s->name, "__bpf_trace_", 12)))
			break;
	}
	return i < n && stack[i] ? i : 0;
}

void pksfault_print_stack(FILE *f, const struct pksfault_env *env, const __u64 *stack,
			  int stack_sz, __u64 ip, const char *indent)
{
	char sym[SYM_LEN];
	int i, n = nr_frames(stack_sz);

	if (stack_sz < 0)
		fprintf(f, "%s[stack unavailable: error %d]\n", indent, stack_sz);
	for (i = pksfault_first_frame(env, stack, n, ip); i < n && stack[i]; i++)
		fprintf(f, "%s%s\n", indent, ksyms_format(env->ks, stack[i], sym, sizeof(sym)));
}

void pksfault_json_stack(FILE *f, const struct pksfault_env *env, const __u64 *stack,
			 int stack_sz, __u64 ip)
{
	char sym[SYM_LEN];
	int i, first, n = nr_frames(stack_sz);

	fputc('[', f);
	first = pksfault_first_frame(env, stack, n, ip);
	for (i = first; i < n && stack[i]; i++) {
		if (i > first)
			fputc(',', f);
		json_print_string(f, ksyms_format(env->ks, stack[i], sym, sizeof(sym)));
	}
	fputc(']', f);
}

void pksfault_json_addrs(FILE *f, const __u64 *stack, int stack_sz)
{
	int i, n = nr_frames(stack_sz);

	fputc('[', f);
	for (i = 0; i < n && stack[i]; i++)
		fprintf(f, "%s\"0x%" PRIx64 "\"", i ? "," : "", (uint64_t)stack[i]);
	fputc(']', f);
}

/* "namespace0.0+0x4000000" for a fault's physical address, or "" if none. */
static const char *device_of(const struct pksfault_env *env, const struct pksfault_event *e,
			     char *buf, size_t len)
{
	const struct iomem_dev *d = e->phys ? iomem_lookup(&env->iomem, e->phys) : NULL;

	buf[0] = '\0';
	if (d)
		snprintf(buf, len, "%s+0x%" PRIx64, d->name, (uint64_t)(e->phys - d->start));
	return buf;
}

static void json_rights(FILE *f, uint32_t pkrs, uint16_t mask)
{
	int key, first = 1;

	fputc('{', f);
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (!(mask & (1u << key)))
			continue;
		fprintf(f, "%s\"%d\":\"%s\"", first ? "" : ",", key, pks_rights_name(pkrs, key));
		first = 0;
	}
	fputc('}', f);
}

/* @cpu: PKSFAULT_CPU_UNKNOWN for a record no event gave a CPU: null. */
static void json_task(FILE *f, const struct pksfault_env *env, uint64_t ts_ns, int64_t cpu,
		      __u32 pid, __u32 tid, const char *comm)
{
	char when[32];

	/* "time": wall clock, ISO 8601 UTC; "ts_ns": CLOCK_MONOTONIC, as the kernel's. */
	pks_iso8601((int64_t)ts_ns + env->mono_to_real_ns, when, sizeof(when));
	fprintf(f, "\"time\":\"%s\",\"ts_ns\":%" PRIu64 ",\"cpu\":", when, ts_ns);
	if (cpu == PKSFAULT_CPU_UNKNOWN)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, cpu);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"comm\":", pid, tid);
	json_print_string(f, comm);
}

void pksfault_print_fault(FILE *f, const struct pksfault_env *env, const struct pksfault_event *e)
{
	char when[32], dev[96], rights[128], ip[SYM_LEN], comm[PKSFAULT_TASK_COMM_LEN + 1];
	char owner[PKSFAULT_OWNER_LEN + 1], tcomm[TEXT_COMM_LEN], town[PKS_TEXT_OWNER_LEN];
	uint16_t mask = pksfault_keymask(env, e->key);

	/* The BPF side NUL-terminates, but never trust a record's strings. */
	snprintf(comm, sizeof(comm), "%.*s", PKSFAULT_TASK_COMM_LEN, e->comm);
	snprintf(owner, sizeof(owner), "%.*s", PKSFAULT_OWNER_LEN, e->owner);
	device_of(env, e, dev, sizeof(dev));
	pks_format_pkrs(e->pkrs, mask, rights, sizeof(rights));
	ksyms_format(env->ks, e->ip, ip, sizeof(ip));
	if (env->json) {
		pks_json_open(f, "fault");
		fputc(',', f);
		json_task(f, env, e->ts_ns, e->cpu, e->pid, e->tid, comm);
		fprintf(f, ",\"address\":\"0x%" PRIx64 "\",\"phys\":\"0x%" PRIx64 "\",\"device\":",
			(uint64_t)e->address, (uint64_t)e->phys);
		if (dev[0]) {
			const struct iomem_dev *d = iomem_lookup(&env->iomem, e->phys);

			json_print_string(f, d->name);
			fprintf(f, ",\"device_offset\":\"0x%" PRIx64 "\"", (uint64_t)(e->phys - d->start));
		} else {
			fputs("null,\"device_offset\":null", f);
		}
		fputc(',', f);
		pksfault_json_key(f, env, e->key, owner);
		fprintf(f, ",\"access\":\"%s\",\"write\":%s,\"ip\":\"0x%" PRIx64 "\",\"ip_sym\":",
			e->write ? "write" : "read", e->write ? "true" : "false", (uint64_t)e->ip);
		json_print_string(f, ip);
		fprintf(f, ",\"pkrs\":\"0x%08x\",\"rights\":", e->pkrs);
		json_rights(f, e->pkrs, mask);
		fprintf(f, ",\"depth\":%u,\"mode\":\"%s\",\"outcome\":\"%s\",\"context\":\"%s\","
			"\"stack\":", e->depth, pks_fault_mode_name(e->mode),
			pks_fault_outcome_name(e->outcome), pksfault_ctx_name(e->ctx));
		pksfault_json_stack(f, env, e->stack, e->stack_sz, e->ip);
		fputs(",\"stack_addrs\":", f);
		pksfault_json_addrs(f, e->stack, e->stack_sz);
		fputs("}\n", f);
		return;
	}
	/* Any task can name itself: no terminal escapes from its comm. */
	pks_escape_comm(e->comm, PKSFAULT_TASK_COMM_LEN, tcomm, sizeof(tcomm));
	fprintf(f, "%s FAULT cpu=%u pid=%u tid=%u comm=%s %s addr=0x%" PRIx64 "%s%s key=%d (%s) "
		"pkrs=0x%08x [%s] depth=%u mode=%s outcome=%s%s%s\n",
		pksfault_time(env, e->ts_ns, when, sizeof(when)), e->cpu, e->pid, e->tid, tcomm,
		e->write ? "write" : "read", (uint64_t)e->address, dev[0] ? " dev=" : "", dev,
		e->key, pks_text_owner(pksfault_owner(env, e->key, owner), town), e->pkrs, rights,
		e->depth,
		pks_fault_mode_name(e->mode), pks_fault_outcome_name(e->outcome),
		e->ctx ? " context=" : "", e->ctx ? pksfault_ctx_name(e->ctx) : "");
	fprintf(f, "    ip: %s\n", ip);
	pksfault_print_stack(f, env, e->stack, e->stack_sz, e->ip, "      ");
}

/*
 * Leak, leak end and still-open records share their fields.  A window
 * found open at attach has no opener: "opened_by=before-attach" and a
 * held time that counts from the attach.
 */
/* Whose stack a window record carries (PKSFAULT_WIN_STACK_*): JSON's name or the text's. */
static const char *stack_at(__u32 flags, bool json)
{
	if (flags & PKSFAULT_WIN_STACK_HOLDER)
		return json ? "holder" : "held at (holder's stack now)";
	if (flags & PKSFAULT_WIN_STACK_CLOSER)
		return json ? "close" : "closed at";
	return json ? "open" : "opened at";
}

static void print_window(FILE *f, const struct pksfault_env *env, const struct window_view *v)
{
	char when[32], opener[SYM_LEN], closer[SYM_LEN], comm[PKSFAULT_TASK_COMM_LEN + 1];
	char tcomm[TEXT_COMM_LEN], town[PKS_TEXT_OWNER_LEN];
	bool before = v->flags & PKSFAULT_WIN_SEEDED;
	const char *owner = v->key >= 0 ? pksfault_owner(env, v->key, NULL) : "key unknown";

	snprintf(comm, sizeof(comm), "%.*s", PKSFAULT_TASK_COMM_LEN, v->comm);
	ksyms_format(env->ks, v->open_caller, opener, sizeof(opener));
	ksyms_format(env->ks, v->close_caller, closer, sizeof(closer));
	if (env->json) {
		pks_json_open(f, v->type);
		fputc(',', f);
		json_task(f, env, v->ts_ns, v->cpu, v->pid, v->tid, comm);
		fputc(',', f);
		pksfault_json_key(f, env, v->key, NULL);
		fprintf(f, ",\"held_ms\":%.3f,\"held_ns\":%" PRIu64 ",\"still_open\":%s,"
			"\"opened_before_attach\":%s,\"opened_by\":", v->held_ns / 1e6, v->held_ns,
			v->still_open ? "true" : "false", before ? "true" : "false");
		if (before)
			fputs("null", f);
		else
			json_print_string(f, opener);
		fputs(",\"closed_by\":", f);
		if (v->still_open)
			fputs("null", f);
		else
			json_print_string(f, closer);
		fprintf(f, ",\"stack_at\":");
		if (v->stack_sz > 0)
			fprintf(f, "\"%s\"", stack_at(v->flags, true));
		else
			fputs("null", f);
		fputs(",\"stack\":", f);
		pksfault_json_stack(f, env, v->stack, v->stack_sz, 0);
		fputs(",\"stack_addrs\":", f);
		pksfault_json_addrs(f, v->stack, v->stack_sz);
		fputs("}\n", f);
		return;
	}
	pks_escape_comm(v->comm, PKSFAULT_TASK_COMM_LEN, tcomm, sizeof(tcomm));
	fprintf(f, "%s %s pid=%u tid=%u comm=%s key=%d (%s) %s %.3f ms opened_by=%s%s%s\n",
		pksfault_time(env, v->ts_ns, when, sizeof(when)), v->label, v->pid, v->tid, tcomm,
		v->key, pks_text_owner(owner, town), v->still_open ? "held so far" : "held",
		v->held_ns / 1e6,
		before ? "before-attach" : opener, v->still_open ? "" : " closed_by=",
		v->still_open ? "" : closer);
	if (v->stack_sz > 0)
		fprintf(f, "    %s:\n", stack_at(v->flags, false));
	pksfault_print_stack(f, env, v->stack, v->stack_sz, 0, "      ");
}

void pksfault_print_leak(FILE *f, const struct pksfault_env *env, const struct pksfault_event *e,
			 bool reported_open)
{
	struct window_view v = {
		.type = reported_open ? "leak_end" : "leak",
		.label = reported_open ? "LEAK-END" : "LEAK",
		.ts_ns = e->ts_ns, .cpu = e->cpu, .pid = e->pid, .tid = e->tid,
		.comm = e->comm, .key = e->key, .flags = e->win_flags,
		.held_ns = e->duration_ns,
		.open_caller = e->open_caller, .close_caller = e->close_caller,
		/* Its stack went out with the first report. */
		.stack = e->stack, .stack_sz = reported_open ? 0 : e->stack_sz,
	};

	print_window(f, env, &v);
}

void pksfault_print_open(FILE *f, const struct pksfault_env *env, const struct pksfault_window *w,
			 uint64_t now_ns, bool leak)
{
	struct window_view v = {
		.type = leak ? "leak" : "open_window",
		.label = leak ? "LEAK" : "OPEN",
		/* Found open by a walk over the map: no event, no CPU. */
		.ts_ns = leak ? now_ns : w->start_ns, .cpu = PKSFAULT_CPU_UNKNOWN,
		.pid = w->pid, .tid = w->tid,
		.comm = w->comm, .key = w->key, .flags = w->flags, .still_open = true,
		.held_ns = now_ns > w->start_ns ? now_ns - w->start_ns : 0,
		.open_caller = w->caller, .stack = w->stack, .stack_sz = w->stack_sz,
	};

	print_window(f, env, &v);
}

void pksfault_print_unbalanced(FILE *f, const struct pksfault_env *env,
			       const struct pksfault_event *e)
{
	char when[32], closer[SYM_LEN], comm[PKSFAULT_TASK_COMM_LEN + 1], tcomm[TEXT_COMM_LEN];
	char town[PKS_TEXT_OWNER_LEN];
	const char *owner = pksfault_owner(env, e->key, NULL);

	snprintf(comm, sizeof(comm), "%.*s", PKSFAULT_TASK_COMM_LEN, e->comm);
	ksyms_format(env->ks, e->close_caller, closer, sizeof(closer));
	if (env->json) {
		pks_json_open(f, "unbalanced_close");
		fputc(',', f);
		json_task(f, env, e->ts_ns, e->cpu, e->pid, e->tid, comm);
		fputc(',', f);
		pksfault_json_key(f, env, e->key, NULL);
		fputs(",\"closed_by\":", f);
		json_print_string(f, closer);
		fprintf(f, ",\"context\":\"%s\",\"stack\":", pksfault_ctx_name(e->ctx));
		pksfault_json_stack(f, env, e->stack, e->stack_sz, 0);
		fputs(",\"stack_addrs\":", f);
		pksfault_json_addrs(f, e->stack, e->stack_sz);
		fputs("}\n", f);
		return;
	}
	pks_escape_comm(e->comm, PKSFAULT_TASK_COMM_LEN, tcomm, sizeof(tcomm));
	fprintf(f, "%s UNBALANCED cpu=%u pid=%u tid=%u comm=%s key=%d (%s) closed_by=%s "
		"context=%s (closed a window that was not open)\n",
		pksfault_time(env, e->ts_ns, when, sizeof(when)), e->cpu, e->pid, e->tid, tcomm,
		e->key, pks_text_owner(owner, town), closer, pksfault_ctx_name(e->ctx));
	pksfault_print_stack(f, env, e->stack, e->stack_sz, 0, "      ");
}
