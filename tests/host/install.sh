#!/usr/bin/env bash
# make install: both tools, their man pages and bash completions land
# under DESTDIR/PREFIX with the right modes; the completions load and
# complete; nothing is installed when the tools are not built.  Stand-in
# binaries: host tests run before the kernel (and so the tools) is built.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
rc=0
ok() { echo "ok - install: $*"; }
not_ok() { echo "not ok - install: $*"; rc=1; }

mkdir -p "$t/out"
for b in pksfault pkstop; do
	printf '#!/bin/sh\necho %s\n' "$b" >"$t/out/$b"
	chmod 755 "$t/out/$b"
done
if make -s -C "$ROOT" install DESTDIR="$t/dest" PREFIX=/usr TOOLS_OUT="$t/out" >"$t/log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr runs"
else
	not_ok "make install DESTDIR=... PREFIX=/usr runs"
	sed 's/^/#   /' "$t/log"
fi
want="0755 usr/sbin/pksfault
0755 usr/sbin/pkstop
0644 usr/share/bash-completion/completions/pksfault
0644 usr/share/bash-completion/completions/pkstop
0644 usr/share/man/man8/pksfault.8
0644 usr/share/man/man8/pkstop.8"
got=$(cd "$t/dest" 2>/dev/null && find . -type f -printf '%m %P\n' | sed 's/^755/0755/; s/^644/0644/' | sort -k2)
if [ "$got" = "$want" ]; then
	ok "binaries in sbin (0755), man pages in man8, completions in bash-completion (0644), nothing else"
else
	not_ok "installed files"
	diff <(echo "$want") <(echo "$got") | sed 's/^/#   /' || true
fi
if out=$(MANWIDTH=80 man -l "$t/dest/usr/share/man/man8/pksfault.8" 2>/dev/null | grep -c '^EXIT STATUS') &&
	[ "$out" = 1 ] && MANWIDTH=80 man -l "$t/dest/usr/share/man/man8/pkstop.8" 2>/dev/null |
	grep -q '^EXIT STATUS'; then
	ok "installed man pages render, each with its EXIT STATUS"
else
	not_ok "installed man pages render with EXIT STATUS"
fi
# The completions load in bash and complete options, sort keys, keys.
if out=$(bash -c '
	_command_offset() { :; }
	. "$1/pksfault"; . "$1/pkstop"
	COMP_WORDS=(pksfault --ver); COMP_CWORD=1; _pksfault; echo "${COMPREPLY[*]}"
	COMP_WORDS=(pkstop -s op); COMP_CWORD=2; _pkstop; echo "${COMPREPLY[*]}"
	COMP_WORDS=(pksfault -k 1); COMP_CWORD=2; _pksfault; echo "${COMPREPLY[*]}"
	complete -p pksfault pkstop' _ "$t/dest/usr/share/bash-completion/completions" 2>&1) &&
	[ "$out" = "--verbose --version
opens open%
1 10 11 12 13 14 15
complete -F _pksfault pksfault
complete -F _pkstop pkstop" ]; then
	ok "bash completions load and complete options, sort names and keys"
else
	not_ok "bash completions"
	printf '%s\n' "$out" | sed 's/^/#   /'
fi
# Without built tools: a message and exit 2, nothing installed.
if ! make -s -C "$ROOT" install DESTDIR="$t/none" TOOLS_OUT="$t/nothing" >"$t/log2" 2>&1 &&
	grep -q 'make tools first' "$t/log2" && [ ! -e "$t/none" ]; then
	ok "tools not built: says 'make tools first', installs nothing"
else
	not_ok "tools not built: refuses"
	sed 's/^/#   /' "$t/log2"
fi
exit "$rc"
