"""The phone client (pwa/) served from our own origin: no CDN, no build step.

Only the client's own folders are reachable (never pwa/tools or package files). `index.html`, `sw.js`
and the app's own modules are sent with `no-cache` (kept, but revalidated by ETag) so an update reaches
phones at once and whole; the pinned vendor files and icons are cached for a week. Every page
carries a Content-Security-Policy without inline scripts: the one inline element is the import map, which
is data, and it is allowed by its SHA-256 hash, computed here from the file as served.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
from functools import cache
from pathlib import Path

import segno
from flask import Blueprint, abort, current_app, request, send_from_directory

from api.game.model import GAME_ID_RE

PWA_DIR = Path(__file__).resolve().parents[2] / "pwa"
# Folders (and top-level files) of pwa/ that are part of the client; anything else is not served.
FOLDERS = ("js", "css", "i18n", "vendor", "icons")
TOP_FILES = ("manifest.webmanifest",)
# Pinned third-party files and icons change only with a commit that re-vendors them.
LONG_CACHE = ("vendor", "icons")

bp = Blueprint("web", __name__)


@cache
def _importmap_hash(pwa_dir: Path) -> str:
    html = (pwa_dir / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    if not found:
        return ""
    digest = hashlib.sha256(found.group(1).encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


@cache
def build_id(pwa_dir: Path) -> str:
    """Return a short hash over every served file: the service worker's cache name changes with it."""
    h = hashlib.sha256()
    for folder in FOLDERS:
        for path in sorted((pwa_dir / folder).rglob("*")):
            if path.is_file() and "axe-core" not in path.parts:
                h.update(str(path.relative_to(pwa_dir)).encode())
                h.update(path.read_bytes())
    for name in (*TOP_FILES, "index.html", "sw.js"):
        h.update((pwa_dir / name).read_bytes())
    return h.hexdigest()[:12]


def _csp() -> str:
    # The socket is same-origin; naming ws(s)://host explicitly covers browsers whose 'self' skips ws.
    # The Host header is the client's word: keep only host characters so it cannot add directives.
    host = re.sub(r"[^A-Za-z0-9.:\[\]-]", "", request.host)
    return "; ".join([
        "default-src 'self'",
        f"script-src 'self' {_importmap_hash(_pwa_dir())}",
        "style-src 'self'",
        "img-src 'self' data: blob:",  # blob: the join QR, fetched with the seat token
        f"connect-src 'self' ws://{host} wss://{host}",
        "manifest-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


def _pwa_dir() -> Path:
    # PWA_DIR (config) lets a deployment serve a copy of the client from elsewhere; default: ./pwa.
    return Path(current_app.config.get("PWA_DIR") or PWA_DIR)


def _send(folder: Path, name: str, cache_control: str):
    resp = send_from_directory(folder, name)
    resp.headers["Cache-Control"] = cache_control
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@bp.after_request
def _security_headers(resp):
    if resp.mimetype == "text/html":
        resp.headers["Content-Security-Policy"] = _csp()
    return resp


@bp.get("/")
def index():
    """Serve the client's entry page."""
    return _send(_pwa_dir(), "index.html", "no-cache")


@bp.get("/sw.js")
def service_worker():
    """Serve the service worker with the build id filled in (its cache name follows the files)."""
    text = (_pwa_dir() / "sw.js").read_text(encoding="utf-8").replace("__BUILD__", build_id(_pwa_dir()))
    resp = current_app.response_class(text, mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp


@bp.get("/manifest.webmanifest")
def manifest():
    """Serve the web app manifest."""
    resp = _send(_pwa_dir(), "manifest.webmanifest", "public, max-age=3600")
    resp.mimetype = "application/manifest+json"
    return resp


@bp.get("/<any(js, css, i18n, vendor, icons):folder>/<path:name>")
def asset(folder: str, name: str):
    """Serve a file of the client (send_from_directory refuses paths that leave the folder)."""
    if folder == "vendor" and name.startswith("axe-core/"):
        abort(404)  # the a11y scanner is read from disk by the tests only; phones never download it
    if folder in LONG_CACHE:
        return _send(_pwa_dir() / folder, name, "public, max-age=604800")
    # The app's own modules are kept but revalidated (ETag, a 304 on a LAN): a phone without a service
    # worker (plain http) must never run new modules next to old ones after an update.
    return _send(_pwa_dir() / folder, name, "no-cache")


@bp.get("/watch/<name>.svg")
def watch_qr(name: str):
    """Draw the link that shows a game on a tablet (table view: the game id only, no token) as a QR."""
    if not GAME_ID_RE.match(name):
        abort(404)
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    link = f"{base.rstrip('/')}/#watch={name}"
    # A standalone document with the SVG namespace (svg_inline omits it, and <img> then shows nothing).
    buf = io.BytesIO()
    segno.make(link, error="m").save(buf, kind="svg", xmldecl=False, scale=8, border=2,
                                     title="Show on the table")
    svg = buf.getvalue()
    resp = current_app.response_class(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "public, max-age=3600"
    return resp


# -- the Swagger UI (api.http.openapi, bundled by flask-swagger-ui) -------------------------------------

DOCS_PREFIX = "/api/docs"
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


@bp.after_app_request
def _docs_csp(resp):
    """Give the Swagger UI a Content-Security-Policy: its files from here only, its one inline script
    (the configuration flask-swagger-ui renders into the page) allowed by its SHA-256 hash, nothing
    framed, posted or loaded from elsewhere; "Try it out" fetches from this origin only. Its styles
    are its own files, and the inline styles its script sets on elements."""
    if not request.path.startswith(DOCS_PREFIX) or resp.direct_passthrough:
        return resp
    scripts = []
    if resp.mimetype == "text/html":
        for body in _INLINE_SCRIPT.findall(resp.get_data()):
            digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
            scripts.append(f"'sha256-{digest}'")
    resp.headers["Content-Security-Policy"] = "; ".join([
        "default-src 'none'",
        f"script-src 'self' {' '.join(scripts)}".rstrip(),
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ])
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    return resp
