"""Seat tokens and join/transfer codes.

A seat token is 256 random bits (secrets.token_urlsafe(32)); the server keeps only its SHA-256, so a
leaked store reveals no usable token. Codes are short, for typing on a phone, and guarded by expiry,
single use and a per-address rate limit.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

# No 0/O, 1/I/L: codes are read aloud and typed from another phone's screen.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6


def new_token() -> str:
    """Return a fresh seat token (43 URL-safe characters)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """Return the hex SHA-256 of a token, the only form the store ever sees."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seat_of(token: str | None, seat_hashes: list[str | None]) -> int | None:
    """Return the seat whose stored hash matches `token`, or None (no token, or no match)."""
    if not token:
        return None
    digest = token_hash(token)
    found = None
    for seat, stored in enumerate(seat_hashes):
        # Constant-time comparison, and no early exit: timing reveals nothing about the hashes.
        if stored is not None and hmac.compare_digest(stored, digest):
            found = seat
    return found


def bearer_token(header: str | None) -> str | None:
    """Return the token of an `Authorization: Bearer <token>` header; None when there is no header.

    Raises ValueError when the header is present but is not a bearer token.
    """
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise ValueError("Authorization must be 'Bearer <seat token>'")
    return token


REALM = "alcabohne"


def challenge(header: str | None) -> str:
    """Return the `WWW-Authenticate` value of a 401 (RFC 6750 §3): the bearer scheme, and why the
    request's Authorization header (None: absent) was refused. The token itself is never echoed."""
    if header is None:
        return f'Bearer realm="{REALM}"'
    try:
        bearer_token(header)
    except ValueError:
        return (f'Bearer realm="{REALM}", error="invalid_request", '
                f'error_description="Authorization must be Bearer and a seat token"')
    return (f'Bearer realm="{REALM}", error="invalid_token", '
            f'error_description="The token holds no seat of this game"')


def new_code() -> str:
    """Return a random join/transfer code (about 29.7 bits; guessing is throttled per address)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str | None:
    """Return the canonical form of a typed code (case and separators ignored), or None if impossible."""
    cleaned = "".join(ch for ch in code.upper() if ch not in " -_.")
    if len(cleaned) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in cleaned):
        return None
    return cleaned
