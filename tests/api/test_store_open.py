"""open_store: which backend a URL names, and where the embedded default keeps its file."""

from __future__ import annotations

import pytest

from api.store import default_data_dir, is_multiprocess_safe, open_store
from api.store.memory import MemoryStore
from api.store.redis import RedisStore
from api.store.sqlite import SqliteStore


def test_no_url_means_sqlite_in_the_data_dir(tmp_path) -> None:
    store = open_store(None, str(tmp_path / "data"))
    try:
        assert isinstance(store, SqliteStore)
        assert store.path == str(tmp_path / "data" / "games.db")
        assert not is_multiprocess_safe(store)
    finally:
        store.close()


def test_default_data_dir_follows_xdg(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "alcabohne"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "alcabohne"


def test_sqlite_urls(tmp_path) -> None:
    absolute = open_store(f"sqlite:///{tmp_path}/abs/x.db")  # tmp_path starts with "/": four slashes
    relative = open_store("sqlite:///rel/y.db", str(tmp_path / "d"))
    try:
        assert absolute.path == str(tmp_path / "abs" / "x.db")
        assert relative.path == str(tmp_path / "d" / "rel" / "y.db")
    finally:
        absolute.close()
        relative.close()


def test_memory_and_redis_urls() -> None:
    memory = open_store("memory://")
    assert isinstance(memory, MemoryStore)
    assert not is_multiprocess_safe(memory)
    # Connecting is lazy: no server is needed to build the object.
    for url in ("redis://127.0.0.1:1/0", "rediss://example.invalid:6380/1"):
        store = open_store(url)
        try:
            assert isinstance(store, RedisStore)
            assert is_multiprocess_safe(store)
        finally:
            store.close()


@pytest.mark.parametrize("url", ["postgres://x/y", "games.db", "sqlite://", "sqlite:///", "sqlite:///dir/"])
def test_bad_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        open_store(url)
