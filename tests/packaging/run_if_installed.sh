#!/bin/sh
# SPDX-License-Identifier: MIT
# run_if_installed.sh TOOL ARGS...: runs TOOL ARGS..., or exits 77 (ctest: skipped) when TOOL
# is not installed here (desktop-file-utils, appstream).
tool=$1
command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
exec "$@"
