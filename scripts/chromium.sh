#!/usr/bin/env bash
# Prints the path of a Chromium the browser tests can drive (headless), installing Debian's
# `chromium` package when none is found (as scripts/db.sh does for PostgreSQL).
#   1. $CHROMIUM when it is set;
#   2. else chromium, chromium-browser, google-chrome or headless-shell on the PATH;
#   3. else `apt-get install chromium` (as root, or through sudo).
# Everything but the path goes to stderr.
set -euo pipefail

if [ -n "${CHROMIUM:-}" ]; then echo "$CHROMIUM"; exit 0; fi

find_browser() {
  for name in chromium chromium-browser google-chrome headless-shell; do
    if p=$(command -v "$name" 2>/dev/null); then echo "$p"; return 0; fi
  done
  return 1
}

if p=$(find_browser); then echo "$p"; exit 0; fi

echo "chromium.sh: no Chromium found; installing Debian's chromium package" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
find_browser
