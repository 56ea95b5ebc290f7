/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pksfault --junit FILE: the gate's verdict as a JUnit XML report, the
 * format Jenkins and GitLab read: one test case per check the gate makes
 * (stray faults, leaked windows, unbalanced closes, lost events), each
 * failure carrying its findings' text records with their stacks.  Pure:
 * unit-tested on the host.
 */
#ifndef PKSFAULT_JUNIT_H
#define PKSFAULT_JUNIT_H

#include <stdio.h>

#include "report.h"

/* The report on @f. */
void junit_print(FILE *f, const struct pksfault_report *r);
/* ... into @path: 0 or -errno. */
int junit_write(const char *path, const struct pksfault_report *r);

#endif /* PKSFAULT_JUNIT_H */
