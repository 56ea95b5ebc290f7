/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pksfault --replay FILE: re-summarise a recorded --json run.  Fault
 * records give the faults by key, outcome and stack (their raw
 * addresses, "stack_addrs", re-symbolised against the symbols given);
 * the recorded summary gives the counters only the live run could count
 * (windows, losses, the command).  Pure but for reading FILE: unit-tested.
 */
#ifndef PKSFAULT_REPLAY_H
#define PKSFAULT_REPLAY_H

#include <stdio.h>

#include "report.h"

/*
 * Read JSON Lines from @in into @r (zeroed first).  @cmd_buf receives the
 * recorded command's words (r->cmd points into it; freed with
 * replay_free()).  Returns 0, or -1 after one line on @err naming the
 * line that is not a record of ours (no summary is an error too).
 */
int replay_read(FILE *in, const char *name, struct pksfault_report *r, FILE *err);
void replay_free(struct pksfault_report *r);

#endif /* PKSFAULT_REPLAY_H */
