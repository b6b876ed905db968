#!/usr/bin/env bash
# Runs the tests of the library and of the decoding crate on a big-endian host: built for
# s390x-unknown-linux-gnu and run under qemu-user (`qemu-s390x`), every test, every trace and
# every property test case as on the native host, so that no result depends on the host's byte
# order. The command-line tool's tests run the built `etwc` directly and stay native.
#
# Usage: bash tools/big-endian/test.sh [cargo test arguments]   (from anywhere; installs
# qemu-user, the s390x cross linker and C library, and the target when they are missing). Builds
# go to target/s390x/ at the root of the repository, at opt-level 1 with debug assertions and
# overflow checks on, as a test build has them: on a 2-core machine the unoptimised tests took
# 10 minutes under emulation, build included, these take 4.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

# The emulator, the linker, and the C library it links against (which qemu-s390x also loads
# the programs' libc from, with -L below).
if ! command -v qemu-s390x >/dev/null 2>&1 || ! command -v s390x-linux-gnu-gcc >/dev/null 2>&1 ||
    [ ! -e /usr/s390x-linux-gnu/lib/libc.so ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        qemu-user gcc-s390x-linux-gnu libc6-dev-s390x-cross >/dev/null
fi
qemu-s390x --version | head -n 1
rustup target list --installed | grep -qx s390x-unknown-linux-gnu || rustup target add s390x-unknown-linux-gnu

export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu"
export CARGO_PROFILE_DEV_OPT_LEVEL=1 CARGO_PROFILE_TEST_OPT_LEVEL=1

cargo test --target s390x-unknown-linux-gnu --target-dir target/s390x \
    -p etw-classic -p etw-classic-decode --tests "$@"
