#!/bin/bash
# Provoke a stray write to a key open for reading only, with no handler:
# the kernel must oops, and the host checks that the report and the
# register dump show the PKRS of the faulting code, not the default.
set -uo pipefail
exec 3<>/sys/kernel/debug/x86/run_pks
echo "# oops: stray write via run_pks '8'"
printf 8 >&3
echo "not ok - oops: the stray write was not stopped"
