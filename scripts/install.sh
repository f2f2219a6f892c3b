#!/usr/bin/env bash
# Installs Larder system-wide: release build, binary, default config (never overwriting one that
# exists), systemd units. `scripts/install.sh uninstall` removes them again (config and cache stay).
# PREFIX (default /usr/local) and DESTDIR are honoured for packaging.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${PREFIX:-/usr/local}
dest=${DESTDIR:-}
unitdir="$dest/etc/systemd/system"

if [ "${1:-install}" = "uninstall" ]; then
  if command -v systemctl >/dev/null && [ -z "$dest" ]; then
    systemctl disable --now larder.socket larder.service 2>/dev/null || true
  fi
  rm -f "$dest$prefix/bin/larder" "$unitdir/larder.service" "$unitdir/larder.socket"
  [ -z "$dest" ] && command -v systemctl >/dev/null && systemctl daemon-reload 2>/dev/null || true
  echo "larder removed; /etc/larder and the cache directory were left in place"
  exit 0
fi

scripts/deps.sh
swift build -c release --product larder
install -D -m 0755 .build/release/larder "$dest$prefix/bin/larder"
install -d -m 0755 "$dest/etc/larder"
if [ -e "$dest/etc/larder/larder.json" ]; then
  echo "keeping the existing /etc/larder/larder.json"
else
  install -m 0644 config/larder.json "$dest/etc/larder/larder.json"
fi
install -d "$unitdir"
sed "s|/usr/local/bin/larder|$prefix/bin/larder|" systemd/larder.service >"$unitdir/larder.service"
install -m 0644 systemd/larder.socket "$unitdir/larder.socket"
chmod 0644 "$unitdir/larder.service"
if [ -z "$dest" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
  systemctl daemon-reload
fi
echo "installed $prefix/bin/larder; start it with: systemctl enable --now larder"
