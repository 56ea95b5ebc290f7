// SPDX-License-Identifier: GPL-2.0
/* Shared user-space helpers for the PKS BPF tools; see pks_common.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "pks_common.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

const char *pks_rights_name(uint32_t pkrs, int key)
{
	if (key < 0 || key >= PKS_NR_KEYS)
		return "??";
	if (pkrs & (1u << (2 * key)))
		return "NA";
	if (pkrs & (2u << (2 * key)))
		return "RO";
	return "RW";
}

int pks_format_pkrs(uint32_t pkrs, uint16_t keymask, char *buf, size_t len)
{
	int total = 0, n, key;

	if (len)
		buf[0] = '\0';
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (!(keymask & (1u << key)))
			continue;
		n = snprintf(len > (size_t)total ? buf + total : NULL,
			     len > (size_t)total ? len - total : 0, "%s%d:%s",
			     total ? " " : "", key, pks_rights_name(pkrs, key));
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

int pks_read_keys(const char *path, char owners[PKS_NR_KEYS][PKS_OWNER_LEN],
		  uint16_t *mask)
{
	char line[256], *end, *name;
	int count = 0;
	long key;
	FILE *f;

	for (key = 0; key < PKS_NR_KEYS; key++)
		owners[key][0] = '\0';
	*mask = 0;
	f = fopen(path ? path : PKS_KEYS_PATH, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		key = strtol(line, &end, 10);
		if (end == line || *end != ':' || key < 0 || key >= PKS_NR_KEYS)
			continue;	/* not a "N: owner" line */
		name = end + 1;
		while (*name == ' ' || *name == '\t')
			name++;
		name[strcspn(name, "\r\n")] = '\0';
		snprintf(owners[key], PKS_OWNER_LEN, "%s", name);
		if (!(*mask & (1u << key)))
			count++;
		*mask |= 1u << key;
	}
	fclose(f);
	return count;
}

bool pks_cpuinfo_has_pks(const char *path)
{
	char *line = NULL, *tok, *save;
	bool found = false;
	size_t cap = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		tok = strchr(line, ':');
		if (!tok)
			continue;
		for (tok = strtok_r(tok + 1, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(tok, "pks")) {
				found = true;
				break;
			}
		break;	/* every CPU lists the same flags */
	}
	free(line);
	fclose(f);
	return found;
}

bool pks_cpu_has_pks(void)
{
	return pks_cpuinfo_has_pks("/proc/cpuinfo");
}

/* Effective capability @cap, via capget(2) (no libcap for a static link). */
static bool have_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

int pks_kernel_has_tracepoints(void)
{
	struct btf *btf;
	int id;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		return -errno ? -errno : -ENOENT;
	id = btf__find_by_name_kind(btf, "btf_trace_pks_fault", BTF_KIND_TYPEDEF);
	btf__free(btf);
	return id > 0;
}

int pks_check_environment(const char *tool)
{
	int ret;

	if (geteuid() != 0 && !have_cap(CAP_SYS_ADMIN) &&
	    !(have_cap(CAP_BPF) && have_cap(CAP_PERFMON))) {
		fprintf(stderr, "%s: needs root (or CAP_BPF and CAP_PERFMON)\n", tool);
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "%s: no kernel BTF (/sys/kernel/btf/vmlinux): "
			"needs CONFIG_DEBUG_INFO_BTF=y\n", tool);
		return -1;
	}
	ret = pks_kernel_has_tracepoints();
	if (ret < 0) {
		fprintf(stderr, "%s: cannot read kernel BTF: %s\n", tool, strerror(-ret));
		return -1;
	}
	if (!ret) {
		fprintf(stderr, "%s: this kernel has no pks tracepoints "
			"(btf_trace_pks_fault missing): not a PKS kernel\n", tool);
		return -1;
	}
	return 0;
}

void json_print_string(FILE *f, const char *s)
{
	const unsigned char *p;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

int pks_parse_long(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

const char *pks_fault_mode_name(int mode)
{
	switch (mode) {
	case PKS_FAULT_STRICT:
		return "strict";
	case PKS_FAULT_RELAXED:
		return "relaxed";
	}
	return "?";
}

const char *pks_fault_outcome_name(int outcome)
{
	switch (outcome) {
	case PKS_FAULT_FIXED_UP:
		return "fixed_up";
	case PKS_FAULT_ALLOWED:
		return "allowed";
	case PKS_FAULT_OOPS:
		return "oops";
	}
	return "?";
}

static bool libbpf_verbose;

static int libbpf_message(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN && !libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void pks_libbpf_messages(bool verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_message);
}
