#!/usr/bin/env bash
# Writes gcc and clang wrappers into DIR whose compiles run with
# thp_preload.c preloaded (large anonymous mappings on transparent huge
# pages), and prints the .bazelrc lines that make Bazel compile and link with
# them. CI appends those lines to its .bazelrc.local (.ci/run).
#
#   tools/compilers/wrap.sh DIR >> .bazelrc.local
#
# The wrappers run the same compilers with the same arguments: only their
# memory is backed differently, so every output is the same. Nothing is
# printed, and Bazel keeps its plain compilers, if the library cannot be built
# or does not load; the reason goes to stderr.
set -euo pipefail
if [[ $# -ne 1 || -z $1 ]]; then
  echo "usage: $0 DIR  (the wrappers and their library are written there)" >&2
  exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
lib=$dir/libspsq_thp.so
# A library the loader cannot preload is only reported, on stderr, and the
# program still runs: so any output of the trial run counts as a failure.
if ! gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$lib.$$" "$here/thp_preload.c" ||
   [[ -n $(LD_PRELOAD=$lib.$$ /bin/true 2>&1) ]]; then
  rm -f "$lib.$$"
  echo "compilers: $here/thp_preload.c did not build or load; Bazel keeps its plain compilers" >&2
  exit 0
fi
mv -f "$lib.$$" "$lib"
for cc in gcc clang; do
  real=$(command -v "$cc") || { echo "compilers: no $cc on PATH; not wrapped" >&2; continue; }
  cat > "$dir/$cc.$$" <<EOF
#!/bin/sh
# $real with its large anonymous mappings (and malloc's) on transparent huge
# pages: written by $here/wrap.sh.
LD_PRELOAD="$lib\${LD_PRELOAD:+:\$LD_PRELOAD}" \\
GLIBC_TUNABLES="glibc.malloc.hugetlb=1\${GLIBC_TUNABLES:+:\$GLIBC_TUNABLES}" \\
exec "$real" "\$@"
EOF
  chmod +x "$dir/$cc.$$"
  mv -f "$dir/$cc.$$" "$dir/$cc"
  case $cc in
    gcc) echo "build --repo_env=CC=$dir/gcc" ;;
    clang) echo "build:clang --repo_env=CC=$dir/clang" ;;
  esac
done
