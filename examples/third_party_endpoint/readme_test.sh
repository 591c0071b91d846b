#!/usr/bin/env bash
# Runs README.md's steps as a user types them: every ```sh block, in order, in
# a copy of the harness checkout, with /path/to/acme_spsq pointing at a copy of
# acme_spsq/ outside it (a repository of its own, as a third party's is). Fails
# when a step fails or the certification does not pass.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
output_base=
cleanup() {
  if [[ -n $output_base ]]; then (cd "$work/harness" && bazel shutdown) || true; rm -rf "$output_base"; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The user's endpoint, outside the checkout.
cp -r "$here/acme_spsq" "$work/acme_spsq"
# The user's checkout: the files git knows, as they are in this working tree,
# and the machine-local Bazel settings (CI's disk cache) if there are any.
mkdir "$work/harness"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
  tar --null --no-recursion -T - -cf -) | tar -xf - -C "$work/harness"
[[ -f $top/.bazelrc.local ]] && cp "$top/.bazelrc.local" "$work/harness/"

# The steps: every ```sh block of the README, its list indentation removed.
python3 - "$here/README.md" "$work/acme_spsq" > "$work/steps.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^( *)```sh\n(.*?)^\1```$", text, re.S | re.M)
if not blocks:
    sys.exit("README.md: no ```sh blocks")
print("set -euxo pipefail")
for indent, body in blocks:
    lines = [l[len(indent):] if l.startswith(indent) else l for l in body.splitlines()]
    print("\n".join(lines).replace("/path/to/acme_spsq", sys.argv[2]))
PY
cd "$work/harness"
output_base=$(bazel info output_base 2>/dev/null)
bash "$work/steps.sh"
