"""How the server hands out the client: headers, caching, what is (not) reachable. No browser needed."""

from __future__ import annotations

import json
import re

import pytest

from api import create_app
from api.http.web import PWA_DIR


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": True}).test_client()


def get(client, path):
    resp = client.get(path)
    resp.get_data()  # read it all, then close: file responses hold the file open until closed
    resp.close()
    return resp


def test_index_has_a_csp_without_inline_scripts(client):
    resp = get(client, "/")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert resp.headers["Cache-Control"] == "no-cache"
    csp = resp.headers["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]+)", csp).group(1).split()
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    # Only our origin plus the one hash of the import map (data, not code).
    assert script_src[0] == "'self'" and all(s.startswith("'sha256-") for s in script_src[1:])
    assert len(script_src) == 2
    assert "default-src 'self'" in csp and "object-src 'none'" in csp and "frame-ancestors 'none'" in csp


def test_no_other_origin_is_referenced():
    for path in PWA_DIR.rglob("*"):
        if path.suffix in {".html", ".js", ".css", ".json", ".webmanifest"} and "package" not in path.name \
                and path.parent.name in {"pwa", "js", "views", "css", "i18n"}:
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"https?://(?!www\.w3\.org)", text), path


def test_service_worker_is_fresh_and_versioned(client):
    resp = get(client, "/sw.js")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-cache"
    text = resp.get_data(as_text=True)
    assert "__BUILD__" not in text and re.search(r"alcabohne-shell-[0-9a-f]{12}", text)
    # Every file the worker precaches exists (a typo would make its install fail).
    for url in json.loads("[" + re.search(r"const SHELL = \[(.*?)\];", text, re.S).group(1)
                          .replace("'", '"').rstrip().rstrip(",") + "]"):
        assert get(client, url).status_code == 200, url


def test_assets_are_cacheable_and_typed(client):
    js = get(client, "/js/app.js")
    assert js.status_code == 200 and "javascript" in js.mimetype
    assert js.headers["Cache-Control"] == "no-cache" and js.headers["X-Content-Type-Options"] == "nosniff"
    assert js.headers.get("ETag")  # revalidation answers 304, not the whole file
    assert get(client, "/vendor/preact/preact.mjs").headers["Cache-Control"].endswith("max-age=604800")
    manifest = get(client, "/manifest.webmanifest")
    assert manifest.mimetype == "application/manifest+json"
    body = json.loads(manifest.get_data())
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in body["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in body["icons"]:
        png = get(client, icon["src"])
        assert png.status_code == 200 and png.get_data()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("path", ["/tools/make_icons.py", "/package.json", "/js/../tools/vendor.sh",
                                  "/vendor/axe-core/axe.min.js", "/i18n/../package-lock.json"])
def test_only_the_client_is_served(client, path):
    assert get(client, path).status_code == 404


def test_watch_qr_is_a_standalone_svg(client):
    resp = get(client, "/watch/abc_DEF-123.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    assert b'xmlns="http://www.w3.org/2000/svg"' in resp.get_data()
    assert get(client, "/watch/bad.id.svg").status_code == 404


def _eager_modules() -> set[str]:
    """The modules the first load needs: app.js and everything it imports statically, transitively.
    A module reached only through import('...') (the rules page, the coach) is fetched on demand."""
    seen: set[str] = set()
    todo = ["/js/app.js"]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        src = (PWA_DIR / url.lstrip("/")).read_text(encoding="utf-8")
        for rel in re.findall(r"^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}/[^']+)'", src, re.M):
            base = url.rsplit("/", 1)[0]
            parts = (base + "/" + rel).split("/")
            out: list[str] = []
            for p in parts:
                if p == "..":
                    out.pop()
                elif p not in (".", ""):
                    out.append(p)
            todo.append("/" + "/".join(out))
    return seen


def test_every_module_is_precached_and_preloaded(client):
    """A module missing from sw.js would break the offline start; one of the first load missing from
    index.html would only be slower (one more round trip), and a module loaded on demand that index.html
    preloads would cost every first load. The lists are hand-written, so check them against the files."""
    sw = get(client, "/sw.js").get_data(as_text=True)
    index = (PWA_DIR / "index.html").read_text(encoding="utf-8")
    eager = _eager_modules()
    assert {"/js/app.js", "/js/views/game.js", "/js/views/table.js"} <= eager
    for path in sorted((PWA_DIR / "js").rglob("*.js")):
        url = "/" + path.relative_to(PWA_DIR).as_posix()
        assert f"'{url}'" in sw, f"{url} is not in sw.js SHELL"
        if url in eager:
            assert f'href="{url}"' in index, f"{url} has no modulepreload in index.html"
        else:
            assert f'href="{url}"' not in index, f"{url} is loaded on demand: no modulepreload"
