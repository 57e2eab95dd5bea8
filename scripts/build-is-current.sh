#!/bin/sh
# Exits 0 when dist/ is the compiled build of the current sources: it was stamped (dist/.built) and
# no TypeScript source it compiles from changed since. npm start and the benchmarks ask it.
cd "$(dirname "$0")/.." || exit 1
[ -f dist/.built ] && [ -z "$(find src generated sdk/src -name '*.ts' -newer dist/.built -print 2>/dev/null | head -n 1)" ]
