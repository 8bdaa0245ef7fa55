#!/bin/sh
# What the web face's browser tests need (tests/test_web_browser.py): Debian's Chromium and
# its WebDriver. Idempotent and quiet: nothing is done when both are there already.
# Run as root (.ci/run calls it); the Python side (selenium) is the `test` extra.
set -eu
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-browser: run as root to install chromium and chromium-driver" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
command -v chromium >/dev/null && command -v chromedriver >/dev/null
