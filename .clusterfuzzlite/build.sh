#!/bin/bash -eu
# Builds every harness in fuzz/harnesses.bzl for ClusterFuzzLite / OSS-Fuzz:
# $OUT/<h> (linked with $LIB_FUZZING_ENGINE), $OUT/<h>_seed_corpus.zip (seeds,
# merged corpus and regressions), $OUT/<h>.dict and $OUT/<h>.options.
#
# Outside the builder image, set OUT and SRC and it picks sensible defaults
# (clang++, ASan+UBSan, libFuzzer):
#   OUT=/tmp/cfl-out SRC=/tmp .clusterfuzzlite/build.sh
# The sources are $SRC/spsq-harness when that exists, else this checkout.

: "${OUT:?set OUT to the output directory}"
: "${SRC:?set SRC (the builder image sets it)}"
: "${CXX:=clang++}"
: "${CXXFLAGS:=-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fsanitize=fuzzer-no-link}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"

if [[ -d "$SRC/spsq-harness/fuzz" ]]; then
  root="$SRC/spsq-harness"
else
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi
mkdir -p "$OUT"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

harnesses=$(sed -n '/HARNESSES *= *\[/,/\]/p' "$root/fuzz/harnesses.bzl" | grep -o '"[a-z0-9_]*"' | tr -d '"')
if [[ -z "$harnesses" ]]; then
  echo "build.sh: no harnesses in $root/fuzz/harnesses.bzl" >&2
  exit 1
fi

# The queue core as one archive; the linker takes only what a harness uses.
includes=(-I"$root/core" -I"$root")
objs=()
for src in "$root"/core/common/*.cc "$root"/core/aicpu/*.cc "$root"/core/region/*.cc \
    "$root"/core/runtime/*.cc; do
  [[ -e "$src" && "$src" != *_test.cc ]] || continue
  obj="$work/$(basename "${src%.cc}").o"
  $CXX $CXXFLAGS -std=c++17 "${includes[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
ar rcs "$work/libspsq.a" "${objs[@]}"

zip_dir() {  # zip_dir ZIP DIR... : every file of the DIRs, flat
  local zip=$1; shift
  rm -f "$zip"
  local files=()
  for d in "$@"; do
    [[ -d "$d" ]] || continue
    while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$d" -type f -print0)
  done
  ((${#files[@]})) || return 0
  if command -v zip >/dev/null; then
    zip -q -j "$zip" "${files[@]}"
  else
    python3 -c 'import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1], "w")
for f in sys.argv[2:]: z.write(f, os.path.basename(os.path.dirname(f)) + "-" + os.path.basename(f))' "$zip" "${files[@]}"
  fi
}

# The differential harness's second endpoint: the reference again, in a second
# build configuration (own namespace, -O0), as //fuzz:diff_second_alt builds it.
alt=()
for src in "$root"/core/common/*.cc "$root/fuzz/diff_second_alt.cc"; do
  [[ -e "$src" && "$src" != *_test.cc ]] || continue
  obj="$work/alt_$(basename "${src%.cc}").o"
  $CXX $CXXFLAGS -O0 -Dspsc_queue=spsq_alt -std=c++17 "${includes[@]}" -c "$src" -o "$obj"
  alt+=("$obj")
done

for h in $harnesses; do
  extra=()
  [[ "$h" == differential ]] && extra=("$root/fuzz/diff_first.cc" "${alt[@]}")
  $CXX $CXXFLAGS -std=c++17 "${includes[@]}" "$root/fuzz/${h}_fuzz.cc" "${extra[@]}" \
    "$work/libspsq.a" $LIB_FUZZING_ENGINE -pthread -o "$OUT/$h"
  zip_dir "$OUT/${h}_seed_corpus.zip" "$root/corpora/$h/seeds" "$root/corpora/$h/corpus" \
    "$root/corpora/$h/regressions"
  [[ -f "$root/corpora/$h/$h.dict" ]] && cp "$root/corpora/$h/$h.dict" "$OUT/$h.dict"
  [[ -f "$root/fuzz/$h.options" ]] && cp "$root/fuzz/$h.options" "$OUT/$h.options"
  echo "built $OUT/$h"
done
