/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared user-space helpers for the PKS BPF tools (pksfault, pkstop):
 * PKRS decoding, the allocated-key list, environment checks, JSON strings.
 * Pure functions here have host unit tests (tests/host/pksfault.sh).
 */
#ifndef PKS_COMMON_H
#define PKS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pks_ctx.h"	/* PKS_NR_KEYS, PKS_OWNER_LEN, PKS_PKRS_DEFAULT */

/* Both tools' --version; the build may set it from git describe. */
#ifndef PKS_TOOLS_VERSION
#define PKS_TOOLS_VERSION	"1.1"
#endif

/*
 * Exit statuses, one table for both tools (EXIT STATUS in pksfault(8)
 * and pkstop(8)).  Found beats lost: a run that found something says so
 * even if it also lost events.
 */
enum pks_exit {
	PKS_EXIT_CLEAN = 0,	/* nothing found, nothing lost (pkstop: ran to its end) */
	PKS_EXIT_FOUND = 1,	/* pksfault: stray faults, leaked windows or unbalanced closes */
	PKS_EXIT_ERROR = 2,	/* the tool's own error (options, privileges, BPF, output) */
	PKS_EXIT_CMD = 3,	/* pksfault: clean, but CMD exited non-zero or was killed */
	PKS_EXIT_TIMEOUT = 4,	/* pksfault: clean, but CMD ran past --timeout */
	PKS_EXIT_LOST = 5,	/* nothing found, but events were lost: no verdict */
};

/*
 * Flush @f and check it for a write error (a full disk, a closed pipe):
 * prints "TOOL: writing NAME: REASON" on stderr and returns -1, else 0.
 */
int pks_check_output(FILE *f, const char *tool, const char *name);

/*
 * A copy of a BPF map's entries, read in batches (a few syscalls for the
 * whole map, where a get_next_key walk takes two per entry and restarts
 * when the entry under its cursor goes).  Buffers grow as needed and are
 * kept for the next dump.
 */
struct pks_map_dump {
	void *keys, *values;
	size_t n, cap;
};

/* Dump map @fd (keys of @key_size, values of @value_size) into @d: 0 or -errno. */
int pks_map_dump(int fd, size_t key_size, size_t value_size, struct pks_map_dump *d);
void pks_map_dump_free(struct pks_map_dump *d);
/* Room in @d for @extra more entries, to add by hand: 0 or -ENOMEM. */
int pks_map_dump_reserve(struct pks_map_dump *d, size_t extra, size_t key_size,
			 size_t value_size);

/* Values of the pks_fault tracepoint's mode and outcome arguments. */
enum pks_fault_mode {
	PKS_FAULT_STRICT = 0,
	PKS_FAULT_RELAXED = 1,
};

enum pks_fault_outcome {
	PKS_FAULT_FIXED_UP = 0,	/* exception-table fixup, access did not happen */
	PKS_FAULT_ALLOWED = 1,	/* relaxed mode: reported, then the access proceeded */
	PKS_FAULT_OOPS = 2,	/* the kernel dies */
	PKS_FAULT_NR_OUTCOMES
};

#define PKS_KEYS_PATH	"/sys/kernel/debug/x86/pks_keys_allocated"
#define PKS_CPU_PKRS_PATH "/sys/kernel/debug/x86/pks_cpu_pkrs"
#define PKS_FAULT_MODE_PATH "/sys/module/memremap/parameters/pks_fault_mode"

/* Rights of @key in @pkrs: "NA" (access disabled), "RO" (write disabled), "RW". */
const char *pks_rights_name(uint32_t pkrs, int key);

/*
 * "1:NA 2:RW" for every key whose bit is set in @keymask (bit k = key k),
 * in key order.  Returns the length of the full string like snprintf
 * (it is truncated, still NUL-terminated, when @len is too small).
 */
int pks_format_pkrs(uint32_t pkrs, uint16_t keymask, char *buf, size_t len);

/*
 * Parse pks_keys_allocated ("N: owner" lines) from @path (NULL: the
 * debugfs file).  Fills owners[N] and sets bit N of *@mask for each key
 * listed; other owners[] are emptied.  Returns the number of keys read or
 * -errno (e.g. -ENOENT without PKS or debugfs).
 */
int pks_read_keys(const char *path, char owners[PKS_NR_KEYS][PKS_OWNER_LEN],
		  uint16_t *mask);

/* The same parse from a stream (the debugfs file, or a keys iterator's text). */
int pks_parse_keys(FILE *f, char owners[PKS_NR_KEYS][PKS_OWNER_LEN], uint16_t *mask);

/* Where a tool's key table came from, for its output. */
enum pks_keys_source {
	PKS_KEYS_FROM_EVENTS,	/* alloc/free events seen since attach only */
	PKS_KEYS_FROM_DEBUGFS,	/* the root-only debugfs file */
	PKS_KEYS_FROM_KERNEL,	/* the bpf_pks_key_owner() kfunc */
};
const char *pks_keys_source_name(enum pks_keys_source source);

struct bpf_program;

/*
 * A tool's skeleton open options: CO-RE relocations against the BTF file
 * in $PKS_BTF when it is set, the running kernel's otherwise.  For tests:
 * tests/guest/btf_without.c makes a BTF that lacks a member, so that the
 * tools' guards for other kernel configurations run on this one.
 */
#define PKS_OPEN_OPTS(name)						\
	LIBBPF_OPTS(bpf_object_open_opts, name, .btf_custom_path = getenv("PKS_BTF"))

/*
 * A tool's "keys" iterator (pks_iter_keys() in bpf/pks_bpf.h) calls the
 * kernel's bpf_pks_key_owner() kfunc, which needs only the capabilities
 * the tool already has; debugfs needs root.  Before load: keep @iter only
 * when the kernel has the kfunc (else it would not load).  Returns whether
 * it does.
 */
bool pks_keys_iter_prepare(struct bpf_program *iter);

/*
 * The key table: from the loaded @iter when there is one, else from
 * debugfs (@path, NULL for the real file).  Returns as pks_read_keys()
 * and says where the table came from in *@source (on success only).
 */
int pks_load_keys(struct bpf_program *iter, const char *path,
		  char owners[PKS_NR_KEYS][PKS_OWNER_LEN], uint16_t *mask,
		  enum pks_keys_source *source);

/* The CPU has PKS: /proc/cpuinfo flags contain "pks". */
bool pks_cpu_has_pks(void);
/* The same check on a cpuinfo-format file (for tests). */
bool pks_cpuinfo_has_pks(const char *path);

/*
 * Can @tool trace PKS here?  Root or CAP_SYS_ADMIN or CAP_BPF+CAP_PERFMON,
 * kernel BTF in /sys/kernel/btf/vmlinux, and the pks tracepoints in it.
 * On failure prints "TOOL: <reason>" (one line on stderr) and returns -1.
 */
int pks_check_environment(const char *tool);

/*
 * The /proc/self/ns/user link @link names the initial user namespace
 * (the only one whose capabilities let a process load tracing BPF).
 */
bool pks_userns_is_init(const char *link);

/* Effective capability @cap (CAP_*), via capget(2): no libcap to link. */
bool pks_have_cap(int cap);

/*
 * The id BPF's bpf_get_current_cgroup_id() gives threads in the cgroup v2
 * directory @path (its inode number).  Returns 0, -ENOTDIR when @path is
 * no cgroup v2 directory, or -errno.
 */
int pks_cgroup_id(const char *path, uint64_t *id);

struct bpf_map;

/*
 * After load: put the cgroup v2 directory @path in a tool's pks_cgroup
 * map (bpf/pks_bpf.h), for bpf_current_task_under_cgroup().  0 or -errno.
 */
int pks_cgroup_attach(struct bpf_map *map, const char *path);

/*
 * The cgroup v2 directory this process is in, from /proc/self/cgroup and
 * the cgroup2 mount in /proc/self/mounts (@cgroup_file, @mounts_file:
 * NULL for those; files for tests).  0 or -errno.
 */
int pks_own_cgroup(const char *cgroup_file, const char *mounts_file, char *buf, size_t len);

/* The kernel BTF has the btf_trace_pks_fault typedef (i.e. the tracepoints). */
int pks_kernel_has_tracepoints(void);
/* ... and btf_trace_@event: 1 yes, 0 no, -errno when BTF is unreadable. */
int pks_kernel_has_event(const char *event);
/*
 * @s as a quoted JSON string: '"' and '\\' escaped, control characters
 * (C0, DEL, and C1 even when validly encoded) as \u00XX.  Valid UTF-8 is
 * copied as is, so names stay readable; a byte that is not part of valid
 * UTF-8 (e.g. a comm cut inside a character) becomes \u00XX, its Latin-1
 * reading, so arbitrary comm bytes still make valid JSON.  NULL prints null.
 */
void json_print_string(FILE *f, const char *s);

/*
 * Both tools write one JSON dialect (documented in their man pages): each
 * line an object that starts with its "type" and the dialect's "schema"
 * version, timestamps as ISO 8601 UTC, the same names for the same things.
 * A change that renames or removes a field bumps the version.
 */
#define PKS_JSON_SCHEMA 2
/* Start an object: {"type":"TYPE","schema":N (no comma after). */
void pks_json_open(FILE *f, const char *type);
/* @ns since the epoch as "2026-12-05T11:30:28.968691Z"; buf of 32 bytes. */
const char *pks_iso8601(int64_t ns, char *buf, size_t len);

/*
 * A task's comm (attacker-chosen bytes) for text output on a terminal:
 * printable ASCII 0x20-0x7e as is except the backslash (doubled), every
 * other byte as "\xNN", so a name cannot carry escape sequences and an
 * escape in the output cannot be mistaken for a name's own bytes.  Reads @in up to
 * @inlen bytes or a NUL.  @out is always NUL-terminated when @outlen > 0,
 * and truncated between escapes, never inside one.  Returns the length of
 * the whole escaped name, like snprintf.
 */
size_t pks_escape_comm(const char *in, size_t inlen, char *out, size_t outlen);

/* A key owner (a kernel string, escaped all the same) for text: escaped like a comm. */
#define PKS_TEXT_OWNER_LEN	(PKS_OWNER_LEN * 4 + 1)
const char *pks_text_owner(const char *owner, char buf[PKS_TEXT_OWNER_LEN]);

/* Names of the pks_fault mode ("strict", "relaxed") and outcome ("fixed_up",
 * "allowed", "oops"); "?" for values not listed above. */
const char *pks_fault_mode_name(int mode);
const char *pks_fault_outcome_name(int outcome);

/*
 * libbpf's messages on stderr: its warnings and errors always (a failed
 * load says why, as libbpf-tools do), its info and debug lines with
 * @verbose (-v) only.
 */
void pks_libbpf_messages(bool verbose);

#endif /* PKS_COMMON_H */
