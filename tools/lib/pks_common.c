// SPDX-License-Identifier: GPL-2.0
/* Shared user-space helpers for the PKS BPF tools; see pks_common.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
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

int pks_parse_keys(FILE *f, char owners[PKS_NR_KEYS][PKS_OWNER_LEN], uint16_t *mask)
{
	char line[256], *end, *name;
	int count = 0;
	long key;

	for (key = 0; key < PKS_NR_KEYS; key++)
		owners[key][0] = '\0';
	*mask = 0;
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
	return count;
}

int pks_read_keys(const char *path, char owners[PKS_NR_KEYS][PKS_OWNER_LEN],
		  uint16_t *mask)
{
	int count;
	FILE *f;

	f = fopen(path ? path : PKS_KEYS_PATH, "r");
	if (!f) {
		for (count = 0; count < PKS_NR_KEYS; count++)
			owners[count][0] = '\0';
		*mask = 0;
		return -errno;
	}
	count = pks_parse_keys(f, owners, mask);
	fclose(f);
	return count;
}

const char *pks_keys_source_name(enum pks_keys_source source)
{
	switch (source) {
	case PKS_KEYS_FROM_KERNEL:
		return "kernel";
	case PKS_KEYS_FROM_DEBUGFS:
		return "debugfs";
	default:
		return "events";
	}
}

/* Read a task iterator's text output through its own stream. */
static int read_keys_iter(struct bpf_program *iter,
			  char owners[PKS_NR_KEYS][PKS_OWNER_LEN], uint16_t *mask)
{
	struct bpf_link *link;
	int fd, count;
	FILE *f;

	link = bpf_program__attach_iter(iter, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		count = -errno;
		bpf_link__destroy(link);
		return count;
	}
	f = fdopen(fd, "r");
	if (!f) {
		count = -errno;
		close(fd);
		bpf_link__destroy(link);
		return count;
	}
	count = pks_parse_keys(f, owners, mask);
	count = ferror(f) ? -EIO : count;
	fclose(f);
	bpf_link__destroy(link);
	return count;
}

int pks_load_keys(struct bpf_program *iter, const char *path,
		  char owners[PKS_NR_KEYS][PKS_OWNER_LEN], uint16_t *mask,
		  enum pks_keys_source *source)
{
	int ret;

	if (iter && bpf_program__fd(iter) >= 0) {
		ret = read_keys_iter(iter, owners, mask);
		if (ret >= 0) {
			*source = PKS_KEYS_FROM_KERNEL;
			return ret;
		}
	}
	ret = pks_read_keys(path, owners, mask);
	if (ret >= 0)
		*source = PKS_KEYS_FROM_DEBUGFS;
	return ret;
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

bool pks_have_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

/* The kernel BTF has a type @name of @kind: 1, 0, or -errno. */
/*
 * Whether the kernel's BTF has a type @name of @kind: the BTF in $PKS_BTF
 * when it is set (PKS_OPEN_OPTS), so that a probe and the relocations it
 * decides about describe the same kernel.
 */
static int kernel_btf_has(const char *name, int kind)
{
	const char *path = getenv("PKS_BTF");
	struct btf *btf;
	int id;

	btf = path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	if (!btf)
		return -errno ? -errno : -ENOENT;
	id = btf__find_by_name_kind(btf, name, kind);
	btf__free(btf);
	return id > 0;
}

int pks_cgroup_id(const char *path, uint64_t *id)
{
	struct statfs sfs;
	struct stat st;

	if (statfs(path, &sfs) || stat(path, &st))
		return -errno;
	if (sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*id = st.st_ino;
	return 0;
}

int pks_cgroup_attach(struct bpf_map *map, const char *path)
{
	__u32 zero = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(map), &zero, &fd, BPF_ANY))
		err = -errno;
	close(fd);
	return err;
}

int pks_own_cgroup(const char *cgroup_file, const char *mounts_file, char *buf, size_t len)
{
	char line[4096], dev[256], dir[PATH_MAX], type[64], rel[PATH_MAX] = "";
	bool found = false;
	FILE *f;

	f = fopen(cgroup_file ? cgroup_file : "/proc/self/cgroup", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {	/* the v2 hierarchy */
			snprintf(rel, sizeof(rel), "%s", line + 3);
			rel[strcspn(rel, "\n")] = '\0';
			found = true;
			break;
		}
	fclose(f);
	if (!found)
		return -ENOENT;
	f = fopen(mounts_file ? mounts_file : "/proc/self/mounts", "r");
	if (!f)
		return -errno;
	found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 &&
			!strcmp(type, "cgroup2");
	fclose(f);
	if (!found)
		return -ENOENT;
	if ((size_t)snprintf(buf, len, "%s%s", dir, strcmp(rel, "/") ? rel : "") >= len)
		return -ENAMETOOLONG;
	return 0;
}

int pks_kernel_has_event(const char *event)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", event);
	return kernel_btf_has(name, BTF_KIND_TYPEDEF);
}

bool pks_keys_iter_prepare(struct bpf_program *iter)
{
	bool have = kernel_btf_has("bpf_pks_key_owner", BTF_KIND_FUNC) == 1;

	bpf_program__set_autoload(iter, have);
	return have;
}

int pks_kernel_has_tracepoints(void)
{
	return pks_kernel_has_event("pks_fault");
}

#define PKS_USERNS_INIT_INO	4026531837u	/* PROC_USER_INIT_INO */

bool pks_userns_is_init(const char *link)
{
	char want[32];

	snprintf(want, sizeof(want), "user:[%u]", PKS_USERNS_INIT_INO);
	return !strcmp(link, want);
}

int pks_check_environment(const char *tool)
{
	char link[64];
	ssize_t n;
	int ret;

	/*
	 * Root in a user namespace passes the checks below (its capabilities
	 * are the namespace's) and then fails to load with a bare EPERM.
	 */
	n = readlink("/proc/self/ns/user", link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		if (!pks_userns_is_init(link)) {
			fprintf(stderr, "%s: in a user namespace (%s): loading BPF needs root, or "
				"CAP_BPF and CAP_PERFMON, in the initial one\n", tool, link);
			return -1;
		}
	}
	if (geteuid() != 0 && !pks_have_cap(CAP_SYS_ADMIN) &&
	    !(pks_have_cap(CAP_BPF) && pks_have_cap(CAP_PERFMON))) {
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

/*
 * Length of the valid UTF-8 sequence at @p (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF), or 0.  @p is NUL-terminated, and
 * NUL is no continuation byte: this never reads past the end.
 */
static int utf8_len(const unsigned char *p, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range rules out overlongs, surrogates and > U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	*cp = p[0] & (0xff >> (n + 1));
	for (i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

void pks_json_open(FILE *f, const char *type)
{
	fprintf(f, "{\"type\":\"%s\",\"schema\":%d", type, PKS_JSON_SCHEMA);
}

const char *pks_iso8601(int64_t ns, char *buf, size_t len)
{
	time_t secs = ns / 1000000000;
	struct tm tm;

	if (ns < 0 || !gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "%" PRId64, ns);
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (long)(ns % 1000000000 / 1000));
	return buf;
}

void json_print_string(FILE *f, const char *s)
{
	const unsigned char *p;
	uint32_t cp;
	int n;

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
			if (*p < 0x80) {
				if (*p < 0x20 || *p == 0x7f)
					fprintf(f, "\\u%04x", *p);
				else
					fputc(*p, f);
				break;
			}
			n = utf8_len(p, &cp);
			/*
			 * C1 controls (U+0080-U+009F; U+009B is CSI to some
			 * terminals) escaped: the same characters to a JSON
			 * reader, harmless when the line reaches a terminal.
			 */
			if (n && cp >= 0xa0) {
				fwrite(p, 1, n, f);
				p += n - 1;
			} else if (n) {
				fprintf(f, "\\u%04x", cp);
				p += n - 1;
			} else {
				fprintf(f, "\\u%04x", *p);
			}
		}
	}
	fputc('"', f);
}

size_t pks_escape_comm(const char *in, size_t inlen, char *out, size_t outlen)
{
	size_t i, total = 0, w;
	char esc[8];

	if (outlen)
		out[0] = '\0';
	for (i = 0; i < inlen && in[i]; i++) {
		unsigned char c = in[i];

		if (c == '\\')
			w = snprintf(esc, sizeof(esc), "\\\\");
		else if (c >= 0x20 && c <= 0x7e)
			w = snprintf(esc, sizeof(esc), "%c", c);
		else
			w = snprintf(esc, sizeof(esc), "\\x%02x", c);
		/*
		 * Whole escapes only ("\x1" would read as another byte).  total
		 * counts what did not fit too: nothing fits after it, no gaps.
		 */
		if (total + w < outlen)
			memcpy(out + total, esc, w + 1);
		total += w;
	}
	return total;
}

#define PKS_DUMP_BATCH	256	/* entries per syscall; a hash bucket always fits */

static int dump_grow(struct pks_map_dump *d, size_t key_size, size_t value_size)
{
	size_t cap = d->cap ? d->cap * 2 : 4 * PKS_DUMP_BATCH;
	void *k, *v;

	k = realloc(d->keys, cap * key_size);
	if (!k)
		return -ENOMEM;
	d->keys = k;
	v = realloc(d->values, cap * value_size);
	if (!v)
		return -ENOMEM;
	d->values = v;
	d->cap = cap;
	return 0;
}

int pks_map_dump(int fd, size_t key_size, size_t value_size, struct pks_map_dump *d)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 token[8] = {};	/* the batch cursor: a hash map's bucket, a key at most */
	bool first = true;
	__u32 count;
	int err;

	if (key_size > sizeof(token))
		return -EINVAL;
	d->n = 0;
	for (;;) {
		if (d->cap - d->n < PKS_DUMP_BATCH && (err = dump_grow(d, key_size, value_size)))
			return err;
		count = d->cap - d->n;
		err = bpf_map_lookup_batch(fd, first ? NULL : token, token,
					   (char *)d->keys + d->n * key_size,
					   (char *)d->values + d->n * value_size, &count, &opts);
		if (err && errno != ENOENT)
			return -errno;
		d->n += count;
		first = false;
		if (err)	/* ENOENT: that was the last batch */
			return 0;
	}
}

int pks_map_dump_reserve(struct pks_map_dump *d, size_t extra, size_t key_size,
			 size_t value_size)
{
	size_t need = d->n + extra;
	void *k, *v;

	if (d->cap >= need)
		return 0;
	k = realloc(d->keys, need * key_size);
	if (!k)
		return -ENOMEM;
	d->keys = k;
	v = realloc(d->values, need * value_size);
	if (!v)
		return -ENOMEM;
	d->values = v;
	d->cap = need;
	return 0;
}

void pks_map_dump_free(struct pks_map_dump *d)
{
	free(d->keys);
	free(d->values);
	memset(d, 0, sizeof(*d));
}

int pks_check_output(FILE *f, const char *tool, const char *name)
{
	int err = 0;

	errno = 0;
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (!err)
		return 0;
	fprintf(stderr, "%s: writing %s: %s\n", tool, name, strerror(err));
	return -1;
}

const char *pks_text_owner(const char *owner, char buf[PKS_TEXT_OWNER_LEN])
{
	pks_escape_comm(owner, PKS_OWNER_LEN, buf, PKS_TEXT_OWNER_LEN);
	return buf;
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
