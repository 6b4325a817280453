#!/usr/bin/env bash
# Sanitizer runs (issue 8): an ASan+UBSan build running the whole test suite, and a TSan build
# running the threaded tests. Too slow for CI's 2 cores; the last results are recorded in
# docs/reliability.md. Usage: scripts/sanitize.sh [asan|tsan|all] (default all).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=${JOBS:-$(nproc)}

configure_and_build() { # dir, sanitizers
  # The system Python: a pyenv build crashes at start under the TSan runtime.
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLSPLIT_SANITIZE="$2" \
    -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
  nice ninja -C "$1" -j"$jobs"
}

# Vendors (PoCL, Oclgrind) and system tools (clinfo, python) are not instrumented: the runtime is
# preloaded so that the instrumented libclsplit.so can be loaded into them, and leaks are not
# checked (the vendors' own allocations at exit would drown ours).
if [[ $what == asan || $what == all ]]; then
  configure_and_build build-asan "address,undefined"
  LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure --timeout 900 -E '^fuzz\.generator$' \
      | tee build-asan/sanitize.log
  # fuzz.generator runs programs under the oclgrind tool, whose own LD_PRELOAD displaces the
  # sanitizer runtime; it does not involve clsplit (it checks the generator's programs).
fi
if [[ $what == tsan || $what == all ]]; then
  configure_and_build build-tsan "thread"
  # Not over rusticl: its Rust locks are futexes TSan cannot see (every access between its own
  # threads shows as a race inside it), and its llvmpipe JIT holds more locks than TSan's
  # deadlock detector tracks (a CHECK failure inside TSan).
  LD_PRELOAD="$(gcc -print-file-name=libtsan.so)" TSAN_OPTIONS="halt_on_error=1 report_signal_unsafe=0" \
    ctest --test-dir build-tsan -R "integration\.(threads|events|queues|lifetime|device)\." -E rusticl -j"$jobs" \
      --output-on-failure --timeout 900 | tee build-tsan/sanitize.log
fi
