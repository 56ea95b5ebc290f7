#!/usr/bin/env bash
# Authorship of the exported series (kernel/patches, or $PKS_PATCHES):
# the patches derived from the RFC V2 seeds name the seed's author in
# From: and carry its Co-developed-by/Signed-off-by chain, then the
# project's Signed-off-by; every other patch is the project's alone.
# The expected values are in kernel/authors.  TAP lines.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

mapfile -t patches < <(series)
python3 - "$ROOT/kernel/authors" "${patches[@]}" <<'PY'
import email, email.policy, re, sys

project, derived = None, {}
for line in open(sys.argv[1]):
    if line.startswith("# project\t"):
        project = line.split("\t", 1)[1].strip()
    if line.startswith("#") or not line.strip():
        continue
    subject, seed, author, trailers = line.rstrip("\n").split("\t")
    derived[subject] = (seed, author, [t.strip() for t in trailers.split(";")])

failed = 0
def check(ok, desc, why=""):
    global failed
    print(("ok - " if ok else "not ok - ") + "authorship: " + desc)
    if not ok:
        failed += 1
        print("#   " + why)

seen, own_bad = set(), []
for path in sys.argv[2:]:
    msg = email.message_from_binary_file(open(path, "rb"), policy=email.policy.default)
    subject = re.sub(r"^\[[^]]*PATCH[^]]*\]\s*", "", str(msg["Subject"]))
    author = str(msg["From"])
    body = msg.get_payload(decode=True).decode("utf-8", "replace").split("\n---\n")[0]
    trailers = [l for l in body.splitlines()
                if re.match(r"(Signed-off-by|Co-developed-by|From): ", l)]
    if subject in derived:
        seed, want_author, want = derived[subject]
        seen.add(subject)
        want = want + ["Signed-off-by: " + project]
        check(author == want_author and trailers == want,
              f"'{subject}' keeps RFC V2 {seed}'s author and Signed-off-by chain",
              f"From: {author}; trailers {trailers}; want From: {want_author}; {want}")
    elif author != project or trailers != ["Signed-off-by: " + project]:
        own_bad.append(f"{subject}: From: {author}; trailers {trailers}")
check(not own_bad, "every other patch is the project's (From: and one Signed-off-by)",
      "; ".join(own_bad))
missing = sorted(set(derived) - seen)
check(not missing, "every seed-derived patch in kernel/authors is in the series",
      "missing: " + "; ".join(missing))
sys.exit(1 if failed else 0)
PY
