#!/usr/bin/env bash
# Installs the Debian packages Larder needs to build, run and test, when any is missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

packages=(libcurl4-openssl-dev libsqlite3-dev libdeflate-dev libmimalloc-dev curl "$@")
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    echo "larder: installing ${missing[*]} with sudo" >&2
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    exit 0
  fi
  echo "larder: missing packages: ${missing[*]}. Run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "larder: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
