#!/bin/sh
# npm start: the compiled build (dist/, which npm ci's prepare step and npm run build make) when no
# TypeScript source changed since it was built, so a fresh clone runs lean (no compiler in memory);
# otherwise the sources through tsx, as npm run dev does, saying so. exec: the supervisor's signal
# reaches the server itself, not this shell.
cd "$(dirname "$0")/.." || exit 1
if sh scripts/build-is-current.sh; then
  exec node --max-semi-space-size=4 dist/src/main.js
fi
if [ -f dist/.built ]; then
  echo "npm start: TypeScript sources changed since the last build; running them through tsx (npm run build brings the compiled build up to date)" >&2
else
  echo "npm start: no compiled build (npm run build makes it); running the sources through tsx" >&2
fi
exec node --import tsx --conditions=subbridge-source src/main.ts
