#!/bin/sh
# A differential fuzzing campaign: N seeds from FIRST, J in parallel, each seed's program in the
# two configurations it draws; failures (program, configuration, both outputs, stderr, run
# report, reproduce.sh) go to FAILURES, the summary (JSON) to FAILURES/summary.json.
#
#   tests/end-to-end/fuzz/campaign.sh BUILD [FIRST] [COUNT] [JOBS] [FAILURES]
#
# BUILD is a configured build directory where `ninja clsplit fuzz_driver` has run.
# One failing seed again: python3 tests/end-to-end/fuzz/fuzz.py case --build BUILD \
#   --driver BUILD/tests/end-to-end/fuzz/bin/fuzz_driver --seed S [--config DEVICES/STRATEGY]
set -eu
build=$(cd "${1:?usage: campaign.sh BUILD [FIRST] [COUNT] [JOBS] [FAILURES]}" && pwd)
first=${2:-1000}
count=${3:-300}
jobs=${4:-2}
failures=${5:-$build/tests/end-to-end/fuzz/failures-$first-$count}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$failures"
exec python3 "$here/fuzz.py" campaign --build "$build" --driver "$build/tests/end-to-end/fuzz/bin/fuzz_driver" \
  --work "$build/tests/end-to-end/fuzz/work/campaign-$first" --first "$first" --count "$count" -j "$jobs" \
  --failures "$failures" --summary "$failures/summary.json"
