# Sourced by bin/run and bin/test: make this machine able to run LPS, idempotently and quickly when it can.
# Installs Debian's Chromium and the Python venv module when missing (as root, or through sudo), creates
# .venv and installs requirements.txt when it changed. Never downloads a browser build of its own.
set -euo pipefail

LPS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$LPS_ROOT"

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "error: need root (or sudo) to run: $*" >&2
        return 1
    fi
}

apt_packages=()
command -v python3 >/dev/null || apt_packages+=(python3)
python3 -c 'import ensurepip, venv' 2>/dev/null || apt_packages+=(python3-venv)
if [ -z "${LPS_CHROMIUM:-}" ] && ! command -v chromium >/dev/null; then apt_packages+=(chromium); fi
# Korean product titles render as boxes in screenshots (admin tests, failure snapshots) without a Hangul font.
if command -v dpkg >/dev/null && ! dpkg -s fonts-nanum >/dev/null 2>&1; then apt_packages+=(fonts-nanum); fi
if [ ${#apt_packages[@]} -gt 0 ]; then
    echo "installing Debian packages: ${apt_packages[*]}" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=".venv/.requirements.sha256"
wanted="$(sha256sum requirements.txt | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
    echo "$wanted" > "$stamp"
fi
export PATH="$LPS_ROOT/.venv/bin:$PATH"
export PYTHONUNBUFFERED=1
