# SPDX-License-Identifier: MIT
# Sourced by the .ci scripts that copy files out of Debian packages:
#   ensure_packages WHO PACKAGE...   installs the missing ones (as root) or names them and exits.
ensure_packages() {
    local who=$1 p
    shift
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    if [[ $(id -u) -eq 0 ]]; then
        apt-get install -y --no-install-recommends "${missing[@]}"
    else
        echo "$who: missing packages: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
}
