#!/bin/sh
# Re-fetch the browser editor (Ace, ace-builds on npm) into the web app's static files.
#
# Only what the editor page loads is kept: the no-conflict minified build of
# ace.js, the modes of the arena's languages, the search box, and the CSS
# that Ace's strict-CSP mode needs (with the images it names). To update,
# change VERSION, run this script, and delete the folder of the old version.
set -eu

VERSION=1.45.2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST="$ROOT/platform/arena/web/static/vendor/ace-$VERSION"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "ace-builds@$VERSION" >/dev/null && tar xzf "ace-builds-$VERSION.tgz")
SRC="$WORK/package"

rm -rf "$DEST"
mkdir -p "$DEST/css"
for file in ace.js ext-searchbox.js mode-python.js mode-javascript.js mode-c_cpp.js \
    mode-java.js mode-rust.js mode-golang.js; do
    cp "$SRC/src-min-noconflict/$file" "$DEST/$file"
done
cp "$SRC/css/ace.css" "$DEST/css/ace.css"
# The images ace.css names (gutter icons, fold widgets).
grep -o 'url("\./[^"]*")' "$SRC/css/ace.css" | sed 's/url("\.\/\(.*\)")/\1/' | sort -u |
    while read -r image; do cp "$SRC/css/$image" "$DEST/css/$image"; done
cp "$SRC/LICENSE" "$DEST/LICENSE"
cat >"$DEST/README.md" <<MD
Ace $VERSION (https://ace.c9.io), the browser editor of the /editor/ page: files
from the npm package ace-builds@$VERSION (BSD-3-Clause, see LICENSE), as fetched
by scripts/vendor_editor.sh, which also updates them (change its VERSION).
MD
echo "Ace $VERSION vendored in $DEST"
