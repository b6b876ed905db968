#!/usr/bin/env bash
# Builds the no-panic binary for thumbv7em-none-eabihf in the release profile (opt-level 3), in
# release-small (opt-level "s") and in release-smallest (opt-level "z"). The link fails, and so does this script, if any panic path
# of the library survives optimisation in code reachable from `_start`.
set -euo pipefail
cd "$(dirname "$0")"
rustup target add thumbv7em-none-eabihf >/dev/null
for profile in release release-small release-smallest; do
    cargo build --quiet --profile "$profile" --target thumbv7em-none-eabihf
    echo "no panic path survives in the $profile profile"
done
