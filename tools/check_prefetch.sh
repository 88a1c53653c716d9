#!/usr/bin/env bash
# tools/check_prefetch.sh: fails when GCC would drop a look-ahead request.
#
# GCC takes a function whose only effect is __builtin_prefetch for a pure
# one, and deletes the calls it does not inline: the request silently goes.
# This compiles csrc/agents/ and csrc/batch/ (the frame loop and the
# planners, where the requests are) as the build does, -O2, and lists every
# function with a prefetch that GCC's pure-const pass marks pure while some
# function still calls it after early inlining. Fix one by requesting in
# the caller's own body (a macro) or by inlining the helper always
# (sp_agent_prefetch). Needs gcc; passes without it.
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
command -v gcc >/dev/null || exit 0
dumps="$(mktemp -d)"
trap 'rm -rf "$dumps"' EXIT
# the include folders, as a gcc response file
for d in "$ROOT"/csrc "$ROOT"/csrc/*/; do printf -- '-I"%s"\n' "$d"; done >"$dumps/includes"
files=("$ROOT"/csrc/agents/*.c "$ROOT"/csrc/batch/*.c)
# every file at once, a compiler per core
printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c '
  base="$1/$(basename "$2" .c)"
  gcc -O2 -DNDEBUG -fPIC -std=c11 "@$1/includes" -c "$2" -o "$base.o" \
    -fdump-tree-einline="$base.inline" -fdump-tree-local-pure-const1="$base.pure"' \
  _ "$dumps" {}
# then, per file: the pure-const dump lists each function's body, then
# whether it was found pure; the early inliner's dump, the calls left after
# inlining (a pure function inlined everywhere has none left to drop)
found=0
for f in "${files[@]}"; do
  base="$dumps/$(basename "$f" .c)"
  if awk -v file="${f#"$ROOT"/}" '
      function call(callee) {
        if (index(calls[callee] " ", " " fn " ") == 0) calls[callee] = calls[callee] " " fn
      }
      FNR == 1 { part++ }
      /^;; Function / { fn = $3; has = 0; next }
      part == 1 && /^  [A-Za-z_][A-Za-z_0-9.]* \(/ { call($1) }
      part == 1 && /^  [A-Za-z_0-9.]+ = [A-Za-z_][A-Za-z_0-9.]* \(/ { call($3) }
      part == 2 && /__builtin_prefetch/ { has = 1 }
      part == 2 && /Function found to be/ && has { pure[fn] = 1 }
      END {
        for (p in pure) if (p in calls) {
          print file ": " p " requests lines ahead and GCC found it pure: its calls from" calls[p] " may be dropped"
          bad = 1
        }
        exit bad
      }' "$base.inline" "$base.pure"; then :; else found=1; fi
done
exit "$found"
