#!/usr/bin/env bash
# The install step (cmake/Install.cmake) end to end: `cmake --install` of the runtime component
# into a fresh prefix; an unmodified program run through the installed launcher prints what it
# prints on PoCL directly; the vendors file names the installed library; and after the tree is
# moved (a bundle carried elsewhere), the launcher still finds its library.
# usage: check-install.sh <build dir> <program> <pocl vendors dir>
set -euo pipefail
build=$1 program=$2 pocl=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/clsplit-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
export POCL_DEVICES="pthread pthread" POCL_MAX_PTHREAD_COUNT=1 CLSPLIT_CONFIG=/dev/null
export TMPDIR=$work # the launcher's vendors directory for a moved tree goes here

cmake --install "$build" --prefix "$work/prefix" --component runtime > "$work/install.log"
for f in bin/clsplit bin/clsplit-regions bin/clsplit-plan lib/libclsplit.so vendors/clsplit.icd share/clsplit/report.py share/clsplit/clsplit_report.py; do
  [[ -e $work/prefix/$f ]] || { echo "FAIL: the install lacks $f"; exit 1; }
done
[[ $(cat "$work/prefix/vendors/clsplit.icd") == "$work/prefix/lib/libclsplit.so" ]] ||
  { echo "FAIL: vendors/clsplit.icd names $(cat "$work/prefix/vendors/clsplit.icd")"; exit 1; }

OCL_ICD_VENDORS=$pocl "$program" > "$work/direct.out"
run() { # prefix label
  CLSPLIT_VENDORS=$pocl CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=uniform "$1/bin/clsplit" -- "$program" > "$work/$2.out" 2> "$work/$2.err" ||
    { echo "FAIL: $2: exit status $?"; tail -5 "$work/$2.err"; exit 1; }
  cmp -s "$work/direct.out" "$work/$2.out" || { echo "FAIL: $2: output differs"; diff "$work/direct.out" "$work/$2.out" | head; exit 1; }
  grep -q "^  \[0\] CPU" <(CLSPLIT_VENDORS=$pocl "$1/bin/clsplit" --list-devices) || { echo "FAIL: $2: --list-devices"; exit 1; }
  echo "ok $2"
}
run "$work/prefix" installed
mv "$work/prefix" "$work/moved"
run "$work/moved" moved
ls "$work"/clsplit-vendors-*/clsplit.icd > /dev/null || { echo "FAIL: no vendors directory made for the moved tree"; exit 1; }
