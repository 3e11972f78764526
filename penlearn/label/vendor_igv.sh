#!/bin/sh
# Refresh the vendored igv.js of the labeling page from the npm registry:
#     sh penlearn/label/vendor_igv.sh [VERSION]     (default: the pinned version below)
# It writes static/igv.min.js (the package's dist/igv.min.js, unchanged), its MIT license
# (static/igv.LICENSE) and the version (static/igv.VERSION). Needs npm (Debian: apt-get
# install npm). Nothing is fetched at run time: the page serves these files itself.
set -eu
version="${1:-3.8.10}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "igv@$version" >/dev/null && tar xzf "igv-$version.tgz")
cp "$tmp/package/dist/igv.min.js" "$here/static/igv.min.js"
cp "$tmp/package/LICENSE" "$here/static/igv.LICENSE"
printf '%s\n' "$version" > "$here/static/igv.VERSION"
echo "vendored igv.js $version into $here/static/"
