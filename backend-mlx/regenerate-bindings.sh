#!/usr/bin/env bash
# Regenerates the jextract bindings of mlx-c in src/generated/java (committed).
#
#   JEXTRACT=/path/to/jextract/bin/jextract MLX_C_INCLUDE=/path/to/mlx-c ./regenerate-bindings.sh
#
# MLX_C_INCLUDE is the folder that holds mlx/c/mlx.h (an mlx-c checkout or its install's include/).
# This script only runs jextract: it fetches and builds nothing. The bindings are restricted to
# mlx-c's own symbols (jextract --dump-includes, filtered to headers under mlx/c/), so no libc
# declarations leak in. After regenerating, update src/generated/BINDINGS.md (mlx-c commit, MLX version).
set -euo pipefail
: "${JEXTRACT:?set JEXTRACT to the jextract launcher}"
: "${MLX_C_INCLUDE:?set MLX_C_INCLUDE to the folder holding mlx/c/mlx.h}"
here="$(cd "$(dirname "$0")" && pwd)"
header="$MLX_C_INCLUDE/mlx/c/mlx.h"
[ -f "$header" ] || { echo "MLX_C_INCLUDE: expected $header to exist" >&2; exit 2; }
out="$here/src/generated/java"
package=panamax.backend.mlx.c
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$JEXTRACT" --dump-includes "$work/all.txt" -I "$MLX_C_INCLUDE" "$header" >/dev/null 2>&1
# keep only declarations whose header lies under mlx/c/ (drops libc, stdint, stdbool...)
grep -E '^--include-[a-z]+ .*# header: .*/mlx/c/[^/]+\.h$' "$work/all.txt" | sed 's/ *#.*$//' > "$work/mlx-c.txt"
echo "$(wc -l < "$work/mlx-c.txt") mlx-c declarations"

rm -rf "$out/panamax/backend/mlx/c"
"$JEXTRACT" -I "$MLX_C_INCLUDE" --output "$out" --target-package "$package" \
    --header-class-name MlxC @"$work/mlx-c.txt" "$header"
echo "bindings written to $out/${package//.//}"
