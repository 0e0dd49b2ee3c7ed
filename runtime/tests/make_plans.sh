#!/usr/bin/env bash
# Recompiles the runtime tests' plans from their designs (runtime/tests/designs), after a change
# to the compiler or the plan format: the tests read these files and never run the compiler.
set -euo pipefail
cd "$(dirname "$0")/../.."
for design in runtime/tests/designs/*.json; do
  npx stagecraft compile "$design" -o "runtime/tests/plans/$(basename "$design")"
done
npx biome format --write runtime/tests/plans >/dev/null
