#!/usr/bin/env bash
# Documentation of what the series adds, read from the applied tree
# (build/linux, tag "base" = Debian's source): every boot parameter in
# kernel-parameters.txt, every trace event and fault outcome in
# events-pks.rst, every API function and debugfs file in the PKS section
# of protection-keys.rst, help for every new Kconfig option, and no new
# kernel-doc warnings in the files that export the API.  TAP lines.
# PKS_DOCS_KPARAMS replaces kernel-parameters.txt (to prove the check can fail).
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

cd "$KSRC"
added=$(mktemp)
trap 'rm -f "$added"' EXIT
# Lines the series adds to C sources and headers, each as "FILE<TAB>LINE".
git diff --no-color -U0 base HEAD -- '*.c' '*.h' |
	awk '/^\+\+\+ b\//{f=substr($0,7)} /^\+[^+]/{print f "\t" substr($0,2)}' >"$added"

python3 - "$added" "${PKS_DOCS_KPARAMS:-Documentation/admin-guide/kernel-parameters.txt}" <<'PY'
import os, re, subprocess, sys

added = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[1])]
kparams = open(sys.argv[2]).read()
events_rst = open("Documentation/trace/events-pks.rst").read()
pk_rst = open("Documentation/core-api/protection-keys.rst").read()
pks_section = pk_rst.split("Protection Keys for Supervisor pages (PKS)\n=", 1)
pks_section = pks_section[1] if len(pks_section) == 2 else ""

failed = 0
def check(missing, desc):
    global failed
    print(("not ok - " if missing else "ok - ") + "docs: " + desc)
    if missing:
        failed += 1
        print("#   missing: " + ", ".join(missing))

# Boot parameters: early_param()/__setup() names, and module parameters of
# built-in code as MODNAME.NAME (KBUILD_MODNAME is the file's base name).
params = []
for path, line in added:
    m = re.search(r'\b(?:early_param|__setup)\("([^"=]+)=?"', line)
    if m:
        params.append(m.group(1))
    m = re.search(r'\bmodule_param(?:_cb|_named)?\((\w+)', line)
    if m:
        params.append(os.path.splitext(os.path.basename(path))[0] + "." + m.group(1))
documented = set(re.findall(r"^\t(\S+?)=?(?:\s|\[|$)", kparams, re.M))
check([p for p in params if p not in documented] + ([] if params else ["(no parameter found)"]),
      "kernel-parameters.txt has an entry for each of the %d boot parameters the series adds" % len(params))

# Trace events: each has its own section; each pks_fault mode and outcome named.
header = open("include/trace/events/pks.h").read()
events = re.findall(r"^(?:TRACE_EVENT\(|DEFINE_EVENT\(\w+,\s*)(\w+)", header, re.M)
headings = set(n for h in re.findall(r"^(.+)\n=+$", events_rst, re.M) for n in h.split(", "))
check([e for e in events if e not in headings] +
      ([] if events else ["(no event found)"]),
      "events-pks.rst has a section for each of the %d pks trace events" % len(events))
values = re.findall(r'\{\s*PKS_FAULT_\w+,\s*"(\w+)"\s*\}', header)
check([v for v in values if "(``%s``)" % v not in events_rst] + ([] if values else ["(none found)"]),
      "events-pks.rst explains each of the %d pks_fault modes and outcomes" % len(values))

# The API: every function <linux/pks.h> declares, and the window calls.
api = re.findall(r"^\w[\w\s\*]*?\b(\w+)\(", open("include/linux/pks.h").read(), re.M)
api = sorted(set(a for a in api if not a.startswith("__")) | {"dev_access_enable", "dev_access_disable", "dev_access_pkey"})
check([a for a in api if a not in pks_section] + ([] if pks_section else ["(no PKS section)"]),
      "protection-keys.rst's PKS section names each of the %d API functions" % len(api))

# debugfs files the series creates.
files = sorted(set(m.group(1) for _, line in added
                   for m in [re.search(r'debugfs_create_\w+\("([^"]+)"', line)] if m))
check([f for f in files if f not in pks_section] + ([] if files else ["(no debugfs file found)"]),
      "protection-keys.rst's PKS section names each of the %d debugfs files" % len(files))

# Kconfig options the series adds: each that users see (has a prompt) has help text.
diff = subprocess.run(["git", "diff", "--no-color", "-U0", "base", "HEAD", "--", "*Kconfig*"],
                      capture_output=True, text=True, check=True).stdout
new_opts, kconfigs = [], {}
for block in re.split(r"^diff --git ", diff, flags=re.M)[1:]:
    path = re.search(r"^\+\+\+ b/(\S+)", block, re.M)
    if path:
        for o in re.findall(r"^\+\s*config (\w+)", block, re.M):
            new_opts.append((path.group(1), o))
no_help = []
for path, opt in new_opts:
    text = kconfigs.setdefault(path, open(path).read())
    body = re.search(r"^config %s\n(.*?)(?=^(?:config|menuconfig|endmenu|menu|if|endif|source|choice|endchoice)\b|\Z)" % opt,
                     text, re.M | re.S)
    if not body:
        no_help.append(opt)
    elif (re.search(r'^\s+(?:bool|tristate|int|hex|string)\s+"', body.group(1), re.M) and
          not re.search(r"^\s+help\n\s+\S", body.group(1), re.M)):
        no_help.append(opt)
check(no_help + ([] if new_opts else ["(no option found)"]),
      "each of the %d Kconfig options the series adds has help text" % len(new_opts))

# kernel-doc of the files that export the API: no warnings the base lacks.
def kdoc_warnings(files, rev=None):
    out = []
    for f in files:
        src = subprocess.run(["git", "show", "%s:%s" % (rev, f)], capture_output=True,
                             text=True).stdout if rev else open(f).read()
        r = subprocess.run(["perl", "scripts/kernel-doc", "-none", "-Wall", "/dev/stdin"],
                           input=src, capture_output=True, text=True)
        out += [f + ": " + re.sub(r"^/dev/stdin:\d+: ", "", w)
                for w in r.stderr.splitlines() if "warning" in w]
    return out
kfiles = ["arch/x86/mm/pks.c", "mm/memremap.c", "include/linux/pks.h", "include/linux/memremap.h"]
base_w = set(kdoc_warnings([f for f in kfiles if subprocess.run(
    ["git", "cat-file", "-e", "base:" + f], capture_output=True).returncode == 0], "base"))
check([w for w in kdoc_warnings(kfiles) if w not in base_w],
      "kernel-doc -Wall: no new warnings in the files that export the PKS API")
sys.exit(1 if failed else 0)
PY
