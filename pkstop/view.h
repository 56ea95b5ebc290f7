/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop's view of one interval: sorting, text and JSON output (all the
 * printing).  Pure functions of a struct pkstop_sample (model.h), so the
 * host tests can check them without BPF.
 */
#ifndef PKSTOP_VIEW_H
#define PKSTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "model.h"
#include "opts.h"
#include "rollup.h"

/* Sort rows in place (stable: ties by TID). */
void pkstop_sort_rows(struct pkstop_row *rows, size_t n, enum pkstop_sort sort);

/* "850ms" "12.3s" "4m05s" "2h03m" "3d04h"; buf of at least 16 bytes. */
const char *pkstop_fmt_duration(double s, char *buf, size_t len);

/*
 * @v in at most @width characters, for a column: "%.*f" when it fits,
 * else without decimals, else in k, M, G... (12345678.9 in 8 columns is
 * "12345679", in 6 "12346k", in 5 "12.3M").  @buf of at least 32 bytes.
 */
const char *pkstop_fmt_fit(double v, int prec, int width, char *buf, size_t len);

/* Rights of the allocated keys other than key 0 (the kernel's), e.g. "1:NA". */
int pkstop_fmt_rights(uint32_t pkrs, uint16_t keymask, char *buf, size_t len);

/*
 * The table's layout for a terminal @width columns wide (0: not a terminal,
 * no limit): the wide one (every column) when its rows fit, else the
 * compact one, under 80 columns with up to two keys besides key 0.
 */
bool pkstop_layout_wide(int width, uint16_t keymask);

/* One table line (no newline) and its header, in either layout. */
int pkstop_fmt_row(const struct pkstop_row *r, uint16_t keymask, double interval_s, bool wide,
		   char *buf, size_t len);
const char *pkstop_table_header(bool wide);

/* Lines pkstop_print_text() prints above the rows, at most (no wrapping). */
#define PKSTOP_TEXT_HEADER_LINES	7

/* Rows that pass -p and -n and fit -r. */
size_t pkstop_visible_rows(const struct pkstop_sample *s, const struct pkstop_opts *o,
			   size_t *shown);

/* "tid","pid","context","cpu","comm" of a row or thread (JSON members; @comm NUL-terminated). */
void pkstop_json_thread(FILE *f, uint32_t tid, uint32_t pid, enum pkstop_row_context context,
			uint32_t cpu, const char *comm);

/* "opens":N,...,"faults_per_s":X: counts and their rates (JSON members). */
void pkstop_json_counts(FILE *f, const struct pkstop_delta *d, double per_s);

void pkstop_print_text(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o);
void pkstop_print_json(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o);

/* The -K and -P tables: the entries of rollup.h. */
/* Text tables: header, and one line (no newline) per entry. */
const char *pkstop_key_header(void);
int pkstop_fmt_key(const struct pkstop_key_stat *k, const char *owner, double interval_s,
		   char *buf, size_t len);
const char *pkstop_proc_header(void);
int pkstop_fmt_proc(const struct pkstop_proc *p, double interval_s, char *buf, size_t len);

/* JSON members of one key's entry: "opens":N,...,"holders":N */
void pkstop_json_key_stat(FILE *f, const struct pkstop_key_stat *k, double per_s);
/* One process as a JSON object. */
void pkstop_json_proc(FILE *f, const struct pkstop_proc *p, double per_s);

#endif
