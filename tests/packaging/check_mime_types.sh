#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_mime_types.sh MIME_XML DATA_DIR: builds a MIME database from the system's
# freedesktop.org.xml and MIME_XML in a temporary folder and asks GIO (gio info) what each kind
# of file is there: our point clouds, .ply, sktime .ts and .npy files get our types, while an
# MPEG transport stream, a Qt Linguist .ts, an unknown .pcd and an unknown .ts keep theirs.
# Exits 77 (skipped) without update-mime-database, gio or the system's freedesktop.org.xml.
set -euo pipefail
xml=${1:?MIME XML}
data=${2:?shared data folder}
system=/usr/share/mime/packages/freedesktop.org.xml
for tool in update-mime-database gio; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
[ -r "$system" ] || { echo "SKIP: no $system (shared-mime-info)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share/mime/packages" "$tmp/home" "$tmp/f"
cp "$system" "$tmp/share/mime/packages/"
cp "$xml" "$tmp/share/mime/packages/clusterscope.xml"
XDG_DATA_DIRS=$tmp/share update-mime-database "$tmp/share/mime"

f=$tmp/f
printf '# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z\n' >"$f/cloud.pcd"
printf 'VERSION .7\nFIELDS x y z\nSIZE 4 4 4\n' >"$f/bare.pcd"
head -c 4096 /dev/urandom >"$f/photo.pcd"
printf 'ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n' >"$f/cloud.ply"
printf '\x93NUMPY\x01\x00v\x00{}' >"$f/array.npy"
printf '@problemName demo\n@univariate true\n@classLabel true a b\n@data\n1,2,3:a\n' >"$f/plain_header.ts"
{ for i in $(seq 40); do printf '# a comment line of a UCR archive file, number %s\n' "$i"; done
  printf '@problemName GunPoint\n@timeStamps false\n@data\n1,2,3:1\n'; } >"$f/commented.ts"
printf '@timestamps false\n@univariate true\n@classlabel false\n@data\n1,2,3\n' >"$f/lower.ts"
printf '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="de">\n</TS>\n' >"$f/translation.ts"
head -c 1128 /dev/zero | tr '\0' '\107' >"$f/video.ts"  # 0x47 sync bytes every 188
printf 'hello\n' >"$f/other.ts"

expect() {  # expect FILE TYPE
    local got
    got=$(XDG_DATA_HOME=$tmp/home XDG_DATA_DIRS=$tmp/share gio info -a standard::content-type "$f/$1" |
          sed -n 's/^ *standard::content-type: //p')
    if [ "$got" = "$2" ]; then
        echo "PASS: $1 is $got"
    else
        echo "FAIL: $1 is $got, expected $2"
        failed=1
    fi
}
failed=0
expect cloud.pcd application/x-pcd-point-cloud
expect bare.pcd application/x-pcd-point-cloud
expect photo.pcd image/x-photo-cd
expect cloud.ply application/vnd.ply
expect array.npy application/x-npy
expect plain_header.ts text/x-sktime-ts
expect commented.ts text/x-sktime-ts
expect lower.ts text/x-sktime-ts
expect translation.ts text/vnd.trolltech.linguist
expect video.ts video/mp2t
expect other.ts text/vnd.trolltech.linguist
if [ -d "$data" ]; then
    for real in "$data"/points/bunny.pcd "$data"/ucr/GunPoint/GunPoint_TRAIN.ts "$data"/ucr/BasicMotions/BasicMotions_TEST.ts; do
        [ -r "$real" ] || continue
        cp "$real" "$f/"
        case $real in *.pcd) expect "$(basename "$real")" application/x-pcd-point-cloud ;;
                      *.ts) expect "$(basename "$real")" text/x-sktime-ts ;; esac
    done
fi
exit $failed
