#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages against the built executables' --help:
#   check_man_pages.sh cli CLUSTERSCOPE_CLI MAN_PAGE
#     every subcommand (bench's too) has a section `.SS "<path>"` in MAN_PAGE; each option and
#     positional its --help lists is named in that section, and each option the section lists
#     (an item header after .TP) exists
#   check_man_pages.sh gui CLUSTERSCOPE MAN_PAGE
#     every option, --param name (ALGO.NAME) and --export ending that --help lists is named in
#     MAN_PAGE, and each option MAN_PAGE lists under OPTIONS exists
# Prints one line per problem and exits 1 if there was any, else 0.
set -euo pipefail
set -f  # the words iterated over include export patterns such as *_knn.csv: no globbing

mode=${1:?mode: cli or gui}
exe=${2:?executable}
page=${3:?man page}
[ -x "$exe" ] || { echo "not an executable: $exe" >&2; exit 1; }
[ -r "$page" ] || { echo "no man page: $page" >&2; exit 1; }

problems=0
problem() {
    echo "FAIL: $*"
    problems=$((problems + 1))
}

# The page as text to search: roff's \- as -, font changes, \& and \% dropped.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\[&%]//g' -e 's/\\(mu/x/g'; }
# Whether $2 names the word $1 (an option, a name), not merely a longer one that starts alike.
names() {
    grep -qE -- "(^|[^-A-Za-z0-9_.])$(printf '%s' "$1" | sed 's/[.*]/\\&/g')([^-A-Za-z0-9_]|$)" <<<"$2"
}
# Option names from a help text's lines that start with an option: "  -h,--help", "  --as TEXT".
help_options() {
    grep -E '^  +-' | sed -E 's/^ +//; s/[ ].*//; s/,/\n/g' | grep -E '^--' |
        sed -E 's/[=:].*//' | grep -vx -- '--help' || true
}
# The .TP item headers of a stretch of roff: the first word after each .TP that is an option.
page_options() {
    awk '/^\.TP/ { tp = 1; next } tp { print; tp = 0 }' | plain |
        sed -E 's/^\.[A-Z]+ +//; s/"//g; s/ .*//' | grep -E '^--[a-z]' || true
}

section_of() {  # the .SS "<path>" section of the page: up to the next .SS or .SH
    awk -v want="$1" '
        /^\.S[SH] / {
            title = $0; sub(/^\.S[SH] +/, "", title); gsub(/"/, "", title)
            inside = ($1 == ".SS" && title == want); next
        }
        inside' "$page"
}

if [ "$mode" = cli ]; then
    check_command() {  # $@: the subcommand path, e.g. "bench" "knn"
        local path="$*" help section opt pos sub
        help=$("$exe" "$@" --help)
        section=$(section_of "$path")
        if [ -z "$section" ]; then
            problem "$(basename "$page"): no section .SS \"$path\" for the subcommand '$path'"
            return
        fi
        local text
        text=$(plain <<<"$section")
        for opt in $(help_options <<<"$help"); do
            names "$opt" "$text" || problem "$(basename "$page"): '$path' does not mention its option $opt"
        done
        # Positionals: "  FILE TEXT REQUIRED   ...".
        for pos in $(awk '/^Positionals:/ { p = 1; next } /^[^ ]/ { p = 0 } p && /^  [A-Z_]+ / { print $1 }' <<<"$help"); do
            names "$pos" "$text" || problem "$(basename "$page"): '$path' does not mention its argument $pos"
        done
        local listed
        listed=$(help_options <<<"$help")
        for opt in $(page_options <<<"$section"); do
            grep -qx -- "$opt" <<<"$listed" ||
                problem "$(basename "$page"): '$path' lists $opt, which '$(basename "$exe") $path --help' does not have"
        done
        for sub in $(awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [a-z]/ { print $1 }' <<<"$help"); do
            check_command "$@" "$sub"
        done
    }
    top=$("$exe" --help)
    for opt in $(help_options <<<"$top"); do
        names "$opt" "$(plain <"$page")" || problem "$(basename "$page"): does not mention the option $opt"
    done
    subcommands=$(awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [a-z]/ { print $1 }' <<<"$top")
    [ -n "$subcommands" ] || problem "$(basename "$exe") --help lists no subcommands"
    for sub in $subcommands; do
        check_command "$sub"
    done
elif [ "$mode" = gui ]; then
    help=$(QT_QPA_PLATFORM=offscreen "$exe" --help)
    text=$(plain <"$page")
    options=$(help_options <<<"$help")
    [ -n "$options" ] || problem "$(basename "$exe") --help lists no options"
    for opt in $options; do
        names "$opt" "$text" || problem "$(basename "$page"): does not mention the option $opt"
    done
    grep -qE -- '^  -h, --help' <<<"$help" && ! names "-h" "$text" && problem "$(basename "$page"): does not mention -h"
    # "  dbscan.eps  neighbourhood radius ..." under "Parameters".
    for p in $(awk '/^Parameters/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [a-zA-Z]+\.[a-zA-Z]+  / { print $1 }' <<<"$help"); do
        names "$p" "$text" || problem "$(basename "$page"): does not mention the parameter $p"
    done
    # "  *_knn.csv  kNN graph edges ..." under "Results --export writes".
    for e in $(awk '/^Results/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  \*/ { print $1 }' <<<"$help"); do
        grep -qF -- "$e" <<<"$text" || problem "$(basename "$page"): does not mention the export $e"
    done
    optsection=$(awk '/^\.SH / { inside = ($2 == "OPTIONS") ; next } inside' "$page")
    for opt in $(page_options <<<"$optsection"); do
        grep -qx -- "$opt" <<<"$options" ||
            problem "$(basename "$page") lists $opt, which $(basename "$exe") --help does not have"
    done
else
    echo "unknown mode '$mode' (cli or gui)" >&2
    exit 2
fi

if ((problems)); then
    echo "$problems problem(s): update $page"
    exit 1
fi
echo "PASS: $(basename "$page") names everything $(basename "$exe") --help lists"
