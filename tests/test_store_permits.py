"""The in-flight permits of a remote target (app/store/base.py, AWRLENS_MAX_IN_FLIGHT): a statement that fails gives
its permit back, so a failing database does not use up the server's places one error at a time."""

import pytest
import sqlalchemy as sa

from app.errors import ApiError, TargetBusy
from app.settings import Settings
from app.store.sqlite import SqliteStore


class RemoteSqlite(SqliteStore):
    remote = True  # limited as an Oracle target is


@pytest.fixture()
def store(demo_store):
    return RemoteSqlite("far", demo_store[0], Settings.from_env({}, max_in_flight=1))


def one(store):
    return store.rows(sa.select(sa.literal(1)))


@pytest.mark.parametrize("raised", [RuntimeError("driver failed"), ApiError("already translated")])
def test_a_failed_fetch_gives_its_permit_back(store, monkeypatch, raised):
    assert one(store) == [(1,)]
    real = store.fetch
    monkeypatch.setattr(store, "fetch", lambda *a, **k: (_ for _ in ()).throw(raised))
    for _ in range(3):  # more failures than permits
        with pytest.raises(ApiError) as caught:
            one(store)
        assert not isinstance(caught.value, TargetBusy)
    monkeypatch.setattr(store, "fetch", real)
    assert one(store) == [(1,)]


def test_a_failed_transaction_gives_its_permit_back(store, monkeypatch):
    def broken():
        raise RuntimeError("connection lost")

    monkeypatch.setattr(store, "read_transaction", broken)
    for _ in range(3):
        with pytest.raises(ApiError) as caught:
            store.rows_together(sa.select(sa.literal(1)))
        assert not isinstance(caught.value, TargetBusy)
    monkeypatch.undo()
    assert store.rows_together(sa.select(sa.literal(1))) == [[(1,)]]


def test_a_permit_held_makes_the_next_call_busy(store, monkeypatch):
    """The check of the tests above: with the one permit taken, a call is refused at once."""
    real = store.fetch

    def nested(*a, **k):
        with pytest.raises(TargetBusy):
            one(store)
        return real(*a, **k)

    monkeypatch.setattr(store, "fetch", nested)
    assert one(store) == [(1,)]
