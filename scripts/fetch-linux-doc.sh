#!/usr/bin/env bash
# Fetches the Linux kernel documentation (Debian's linux-doc package, reStructuredText sources)
# and writes it as one document per line, `ID<TAB>TEXT`, to OUTPUT: ID is the file's path under
# Documentation/ (`admin-guide/README.rst`), TEXT the file with every run of whitespace (line
# feeds and TABs included) made one space. Files in path order (bytewise), so the output is the
# same on every machine for the same package version.
#
#   scripts/fetch-linux-doc.sh OUTPUT
#
# Environment: LINUX_DOC_PACKAGE (default linux-doc-6.1; a version can be pinned as
# linux-doc-6.1=6.1.176-1). Needs apt-get (Debian), dpkg-deb, gzip, perl. When the download
# fails it runs `apt-get update` once and tries again. The package version used is printed on
# standard error and written to OUTPUT.version.
set -euo pipefail

if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -eq 1 ] && exit 0 || exit 2
fi
output=$1
package=${LINUX_DOC_PACKAGE:-linux-doc-6.1}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
if ! apt-get download "$package" >download.log 2>&1; then
    echo "fetch-linux-doc: apt-get download $package failed; running apt-get update" >&2
    apt-get update >/dev/null
    apt-get download "$package" >download.log 2>&1 || { cat download.log >&2; exit 1; }
fi
deb=$(ls ./*.deb)
version=$(dpkg-deb -W --showformat='${Package} ${Version}' "$deb")
dpkg-deb -x "$deb" tree
docs=$(find tree -type d -path '*/usr/share/doc/linux-doc-*/Documentation' | head -n 1)
[ -n "$docs" ] || { echo "fetch-linux-doc: no Documentation/ in $deb" >&2; exit 1; }
cd - >/dev/null

# One line per file: the id, a TAB, the text with whitespace runs collapsed.
(cd "$work/$docs" && find . -name '*.rst.gz' -type f | sed 's|^\./||' | LC_ALL=C sort) \
    | (cd "$work/$docs" && while IFS= read -r file; do
        printf '%s\t' "${file%.gz}"
        gzip -dc -- "$file" | perl -0777 -pe 's/\s+/ /g; s/^ //; s/ $//'
        printf '\n'
    done) >"$output.partial"
mv "$output.partial" "$output"
echo "$version" >"$output.version"
echo "fetch-linux-doc: $(wc -l <"$output") documents from $version -> $output" >&2
