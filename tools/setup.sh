#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds with, only when missing
# (apt-get update runs once, and only if something has to be installed).
set -euo pipefail
packages=(
  bazel-bootstrap bazel-bootstrap-source g++ clang libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev afl++ libboost-dev
  libreaderwriterqueue-dev pybind11-dev python3-dev python3
  patch  # applies the mutant and variant diffs (selftest/edited_reference.bzl)
  chromium  # the browser test of report.html
  llvm-14  # llvm-profdata and llvm-cov: tools/certify --coverage
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
