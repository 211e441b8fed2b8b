#!/usr/bin/env bash
# Prints a PostgreSQL connection URL for `make run` and `make test`:
#   1. $DATABASE_URL when it is set;
#   2. else a reachable local server (127.0.0.1:5432 or the Debian socket, user postgres, trust auth);
#   3. else a private cluster of the project's own under .pg/ (port 55432), started here, after
#      installing Debian's postgresql package when it is absent. initdb refuses to run as root, so
#      as root the cluster belongs to the `postgres` system user the package creates.
# Everything but the URL goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${DATABASE_URL:-}" ]; then echo "$DATABASE_URL"; exit 0; fi

PRIVATE_PORT=${OUTREACHD_PG_PORT:-55432}
PRIVATE_DIR=${OUTREACHD_PG_DIR:-$PWD/.pg}

reachable() { command -v psql >/dev/null 2>&1 && psql "$1" -Atqc 'select 1' >/dev/null 2>&1; }

for url in \
  "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" \
  "postgres:///postgres?host=/var/run/postgresql&user=postgres&sslmode=disable" \
  "postgres://postgres@127.0.0.1:${PRIVATE_PORT}/postgres?sslmode=disable"; do
  if reachable "$url"; then echo "$url"; exit 0; fi
done

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pgbin)" ]; then
  echo "db.sh: no PostgreSQL found; installing Debian's postgresql package" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
fi
BIN=$(pgbin)

as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}
if [ ! -f "$PRIVATE_DIR/PG_VERSION" ]; then
  echo "db.sh: creating a private cluster in $PRIVATE_DIR" >&2
  mkdir -p "$PRIVATE_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PRIVATE_DIR" && chmod 700 "$PRIVATE_DIR"
  # the data folder's parents must be traversable by its owner
  as_owner "'$BIN/initdb' -D '$PRIVATE_DIR' -U postgres --auth=trust -E UTF8 >/dev/null"
fi
if ! as_owner "'$BIN/pg_ctl' -D '$PRIVATE_DIR' status" >/dev/null 2>&1; then
  echo "db.sh: starting the private cluster on 127.0.0.1:$PRIVATE_PORT" >&2
  as_owner "'$BIN/pg_ctl' -D '$PRIVATE_DIR' -w -l '$PRIVATE_DIR/server.log' \
    -o \"-p $PRIVATE_PORT -k '$PRIVATE_DIR' -c listen_addresses=127.0.0.1 -c max_connections=300\" start" >&2
fi
echo "postgres://postgres@127.0.0.1:${PRIVATE_PORT}/postgres?sslmode=disable"
