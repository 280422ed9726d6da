#!/usr/bin/env bash
# What one device call would send (docs/gpu-browser.md, "Reproduce"): the tracked files, the untracked files git does
# not ignore, and the carried paths, against the 64 MiB a call may carry. Run it before each call of a planned lease:
# a call refused for its size costs the lease's idle window (about 30 s), and with it the Chromium already sent.
#   bash scripts/bench/carry-size.sh bench/out/chromium-kit/part-ac bench/out/gpu-kit/gl ...
set -euo pipefail
cd "$(dirname "$0")/../.."
bytes() { if [ -e "$1" ]; then du -sb "$1" | cut -f1; else echo 0; fi; }
tree=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 -r stat -c %s 2>/dev/null | awk '{s+=$1} END {print s+0}')
total=$tree
printf '%10.1f MiB  tree (tracked + untracked, not ignored)\n' "$(echo "$tree / 1048576" | bc -l)"
for p in "$@"; do
  b=$(bytes "$p"); total=$((total + b))
  [ -e "$p" ] || echo "missing: $p" >&2
  printf '%10.1f MiB  %s\n' "$(echo "$b / 1048576" | bc -l)" "$p"
done
limit=$((64 * 1048576))
printf '%10.1f MiB  total (limit 64 MiB)\n' "$(echo "$total / 1048576" | bc -l)"
[ "$total" -le "$limit" ] || { echo "over the limit: carry less" >&2; exit 1; }
