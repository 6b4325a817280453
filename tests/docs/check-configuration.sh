#!/usr/bin/env bash
# docs/configuration.md must list every setting exactly as `clsplit --list-settings --markdown`
# prints it (the settings table in icd/config/Settings.cpp is the source of truth).
set -euo pipefail
launcher=$1 doc=$2
missing=0
while IFS= read -r line; do
  if ! grep -qxF -- "$line" "$doc"; then
    echo "docs/configuration.md lacks or differs on: $line"
    missing=1
  fi
done < <("$launcher" --list-settings --markdown)
exit $missing
