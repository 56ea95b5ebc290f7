/* SPDX-License-Identifier: GPL-2.0 */
/* pksfault event output, text and JSON Lines (pure: unit-tested on the host). */
#ifndef PKSFAULT_VIEW_H
#define PKSFAULT_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "pks_common.h"
#include "iomem.h"
#include "kallsyms.h"
#include "pksfault.h"

/* What the formatter resolves addresses, keys and times against. */
struct pksfault_env {
	struct ksyms *ks;		/* NULL: addresses printed raw */
	struct iomem_map iomem;		/* pmem/dax ranges */
	char owners[PKS_NR_KEYS][PKS_OWNER_LEN];	/* from pks_keys_allocated */
	uint16_t keymask;		/* keys listed there */
	int64_t mono_to_real_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	bool json;
};

/* The owner of @key: the event's, else the key table's, else NULL (unknown). */
const char *pksfault_known_owner(const struct pksfault_env *env, int key, const char *ev_owner);
/* The same for text: "unallocated" when unknown. */
const char *pksfault_owner(const struct pksfault_env *env, int key, const char *ev_owner);
/*
 * JSON members "key":K,"owner":"..." (the one vocabulary of both tools):
 * key null when not known (@key < 0), owner null when not known.
 */
void pksfault_json_key(FILE *f, const struct pksfault_env *env, int key, const char *ev_owner);
/* "HH:MM:SS.uuuuuu" (local time) for a bpf_ktime_get_ns() timestamp. */
const char *pksfault_time(const struct pksfault_env *env, uint64_t ts_ns, char *buf, size_t len);
/* The keys whose rights a fault line decodes: the allocated ones plus @key. */
uint16_t pksfault_keymask(const struct pksfault_env *env, int key);
const char *pksfault_ctx_name(int ctx);

void pksfault_print_fault(FILE *f, const struct pksfault_env *env, const struct pksfault_event *e);
#define PKSFAULT_CPU_UNKNOWN	(-1)

/* What a window record shows (the leak and open printers fill it). */
struct window_view {
	const char *type;	/* JSON "type": leak, leak_end, open_window */
	const char *label;	/* text: LEAK, LEAK-END, OPEN */
	uint64_t ts_ns;
	int64_t cpu;		/* PKSFAULT_CPU_UNKNOWN: null in JSON */
	__u32 pid, tid;
	const char *comm;	/* not NUL-terminated at PKSFAULT_TASK_COMM_LEN */
	int key;		/* -1: found open at attach, not seen closing */
	__u32 flags;		/* PKSFAULT_WIN_* */
	bool still_open;
	uint64_t held_ns;
	__u64 open_caller, close_caller;
	const __u64 *stack;
	int stack_sz;
};

/*
 * A window closed after more than the --leak threshold; @reported_open:
 * it was already reported as a leak while open, and this is its end.
 */
void pksfault_print_leak(FILE *f, const struct pksfault_env *env, const struct pksfault_event *e,
			 bool reported_open);
/*
 * A window still open at @now_ns: @leak, a leak crossing the threshold
 * (reported once, as soon as a sweep sees it), else listed at exit.
 */
void pksfault_print_open(FILE *f, const struct pksfault_env *env, const struct pksfault_window *w,
			 uint64_t now_ns, bool leak);
/* A close of a window that was not open, with the closer's stack. */
void pksfault_print_unbalanced(FILE *f, const struct pksfault_env *env,
			       const struct pksfault_event *e);
/*
 * Index of the first frame worth showing: the one at @ip (a fault's
 * interrupted context) if present, else the first below the BPF program
 * and tracepoint glue.
 */
int pksfault_first_frame(const struct pksfault_env *env, const __u64 *stack, int n, __u64 ip);
/* Stack frames (from pksfault_first_frame() on), one "    func+0x1a" line each (text) or a JSON array. */
void pksfault_print_stack(FILE *f, const struct pksfault_env *env, const __u64 *stack,
			  int stack_sz, __u64 ip, const char *indent);
void pksfault_json_stack(FILE *f, const struct pksfault_env *env, const __u64 *stack,
			 int stack_sz, __u64 ip);
/* Every frame's raw address, hex strings: "stack_addrs" (--replay re-symbolises them). */
void pksfault_json_addrs(FILE *f, const __u64 *stack, int stack_sz);

#endif /* PKSFAULT_VIEW_H */
