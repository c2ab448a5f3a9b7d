#!/bin/sh
# SPDX-License-Identifier: MIT
# gpu_only.sh CLI COMMAND...: runs COMMAND when CLI's auto backend is CUDA (a GPU is here), else
# exits 77 (the test is skipped).
cli=$1
shift
"$cli" backends | grep -q '"auto":"cuda"' || { echo "no CUDA device"; exit 77; }
exec "$@"
