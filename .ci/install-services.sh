#!/usr/bin/env bash
# Install the external services the test suite runs against (as root):
# PostgreSQL server binaries from the Debian packages, for the ledger's
# PostgreSQL backend (tests/accounting/conftest.py starts a throwaway server
# with initdb + pg_ctl under the `postgres` system user; nothing is started
# here). Idempotent: does nothing when the binaries are already installed.
set -euo pipefail

find_pg_bin() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

if pg_bin="$(find_pg_bin)" && id -u postgres >/dev/null 2>&1; then
    echo "PostgreSQL already installed: $pg_bin"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-services.sh: PostgreSQL is missing and installing it needs root" >&2
    echo "  (run: apt-get update && apt-get install -y postgresql)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends postgresql
pg_bin="$(find_pg_bin)"
echo "PostgreSQL installed: $pg_bin"
