"""Write the app icons (PNG) without Pillow: a tiny PNG encoder (zlib + struct) and a drawn bean.

Run: python pwa/tools/make_icons.py  ->  pwa/icons/icon-192.png, icon-512.png, maskable-512.png,
apple-touch-icon.png (180). The output is deterministic, so re-running changes nothing in git.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

GREEN = (46, 94, 62)  # theme colour (manifest theme_color #2e5e3e)
CREAM = (248, 240, 214)
BEAN = (122, 62, 38)
SHINE = (176, 112, 78)


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    """Return an 8-bit RGB PNG of `rows` (each width*3 bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + r for r in rows)  # filter type 0 per row
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def mix(a, b, t):
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))


def draw(size: int, *, safe: float) -> list[bytes]:
    """A cream disc with a kidney-shaped bean on green; `safe` shrinks the art into the maskable zone."""
    rows = []
    c = size / 2
    disc = size * 0.46 * safe
    ss = 3  # supersampling for smooth edges
    for y in range(size):
        row = bytearray()
        for x in range(size):
            acc = [0, 0, 0]
            for sy in range(ss):
                for sx in range(ss):
                    px = (x + (sx + 0.5) / ss - c) / (disc)
                    py = (y + (sy + 0.5) / ss - c) / (disc)
                    col = GREEN
                    if px * px + py * py <= 1:
                        col = CREAM
                        # The bean: an ellipse tilted by 30 degrees, with a notch cut out of one side.
                        a = math.radians(-30)
                        bx = px * math.cos(a) - py * math.sin(a)
                        by = px * math.sin(a) + py * math.cos(a)
                        inside = (bx / 0.62) ** 2 + (by / 0.40) ** 2 <= 1
                        notch = (bx / 0.22) ** 2 + ((by - 0.42) / 0.16) ** 2 <= 1
                        if inside and not notch:
                            col = BEAN
                            if ((bx + 0.25) / 0.18) ** 2 + ((by + 0.15) / 0.08) ** 2 <= 1:
                                col = SHINE
                    for i in range(3):
                        acc[i] += col[i]
            row += bytes(round(v / (ss * ss)) for v in acc)
        rows.append(bytes(row))
    return rows


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # Maskable icons may be cropped to a circle of 80% diameter: keep the art inside it.
    for name, size, safe in [("icon-192.png", 192, 1.0), ("icon-512.png", 512, 1.0),
                             ("maskable-512.png", 512, 0.78), ("apple-touch-icon.png", 180, 0.9)]:
        (out / name).write_bytes(png(size, size, draw(size, safe=safe)))
        print("wrote", out / name)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "icons")
