#!/usr/bin/env bash
# Refresh pwa/vendor/ from the versions pinned in pwa/package.json + package-lock.json.
# npm runs in a temporary directory so that no node_modules/ ever lands in the repository.
set -euo pipefail
pwa="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$pwa/package.json" "$pwa/package-lock.json" "$tmp/" 2>/dev/null || cp "$pwa/package.json" "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --ignore-scripts 2>/dev/null || npm install --no-audit --no-fund --ignore-scripts)
cp "$tmp/package-lock.json" "$pwa/package-lock.json"
m="$tmp/node_modules"
install -D -m 644 "$m/preact/dist/preact.mjs" "$pwa/vendor/preact/preact.mjs"
install -D -m 644 "$m/preact/hooks/dist/hooks.mjs" "$pwa/vendor/preact/hooks.mjs"
install -D -m 644 "$m/preact/LICENSE" "$pwa/vendor/preact/LICENSE"
install -D -m 644 "$m/htm/dist/htm.mjs" "$pwa/vendor/htm/htm.mjs"
install -D -m 644 "$m/htm/LICENSE" "$pwa/vendor/htm/LICENSE"
# axe-core is only loaded by the accessibility tests (tests/e2e), never by the app.
install -D -m 644 "$m/axe-core/axe.min.js" "$pwa/vendor/axe-core/axe.min.js"
install -D -m 644 "$m/axe-core/LICENSE" "$pwa/vendor/axe-core/LICENSE"
# Source maps point at files we do not ship; strip the comment so devtools do not 404 on them.
sed -i '/^\/\/# sourceMappingURL=/d' "$pwa/vendor/preact/preact.mjs" "$pwa/vendor/preact/hooks.mjs"
echo "vendored into $pwa/vendor"
