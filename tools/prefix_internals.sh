#!/usr/bin/env bash
# tools/prefix_internals.sh [ARCHIVE]: gives every internal symbol of the static C library the prefix sp__.
#
# The symbols ARCHIVE (default build/libsaspu.a: build it first) defines that no
# public header declares (csrc/saspu*.h, as ./dev's clib stage reads them) are
# renamed in csrc/, tests/ and bench/ (sources, headers, comments): sp_name
# becomes sp__name, any other name (cl_cycle, step_end) sp__name; a file name
# (sp_classify.h) keeps its name. The C files
# changed are formatted again (./dev format). Mechanical, so it can be run again
# after a merge brings new internals; ./dev test clib checks the archive.
# Prints the sed script it applied.
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
archive=${1:-build/libsaspu.a}
[ -f "$archive" ] || { echo "prefix_internals: $archive not found: build first" >&2; exit 1; }
public="$(./dev public-symbols)"
script="$(mktemp)"
trap 'rm -f "$script"' EXIT
nm -g --defined-only "$archive" | awk 'NF == 3 { print $3 }' | sort -u |
  grep -vxF -f <(printf '%s\n' "$public") | grep -v '^sp__' |
  sed -E 's/^(sp_)?(.*)$/s\/\\b&\\b([^.]|\\.[^ch]|\\.$|$)\/sp__\2\\1\/g/' >"$script" || true
if [ ! -s "$script" ]; then
  echo "prefix_internals: every internal symbol of $archive has the prefix sp__ already"
  exit 0
fi
mapfile -t files < <(git ls-files csrc tests bench | grep -E '\.(c|h)$' | xargs grep -lwE "$(sed -E 's/^s\/\\b([a-z0-9_]*)\\b.*$/\1/' "$script" | paste -sd'|')" || true)
[ ${#files[@]} -gt 0 ] && sed -i -E -f "$script" "${files[@]}"
./dev format "${files[@]}" >/dev/null
cat "$script"
echo "prefix_internals: $(wc -l <"$script") symbols renamed in ${#files[@]} files" >&2
