#!/bin/bash
# Provoke a stray write to a closed key with no handler: the kernel must
# oops (the host then checks the report names the key and PKRS).
set -uo pipefail
exec 3<>/sys/kernel/debug/x86/run_pks
echo "# oops: stray write via run_pks '9'"
printf 9 >&3
echo "not ok - oops: the stray write was not stopped"
