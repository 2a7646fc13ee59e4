#!/usr/bin/env bash
# Makes sure Prometheus and promtool (Debian's `prometheus` package) are installed: the alert-rule
# tests and the real-Prometheus end-to-end test need them.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-prometheus: installing Debian's prometheus package" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  exit 0
fi
echo "ensure-prometheus: install Prometheus and promtool (Debian/Ubuntu: sudo apt-get install prometheus)" >&2
exit 1
