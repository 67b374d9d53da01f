"""Cache validators: closed ranges cacheable and revalidated with 304, open ranges cached briefly.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

from contract import AAS, url


def test_closed_range_is_cacheable_and_revalidates_with_304(api, dbs, window):
    lo, hi = window
    for query in (
        {"name": AAS, "begin_snap": lo, "end_snap": hi},
        {"name": AAS, "begin_snap": lo, "end_snap": hi, "format": "csv"},
    ):
        first = api.get(url(dbs["rac"], "/series"), query_string=query)
        assert first.status_code == 200 and first.cache_control.public
        assert first.cache_control.max_age >= 3600
        etag = first.headers["ETag"]
        again = api.get(url(dbs["rac"], "/series"), query_string=query, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
        other = api.get(url(dbs["rac"], "/series"), query_string=query, headers={"If-None-Match": '"stale"'})
        assert other.status_code == 200 and other.data == first.data


def test_open_range_is_cached_briefly(api, dbs, summary):
    last = summary[dbs["rac"]]["snapshots"]["last_snap"]
    for path, query in (
        (url(dbs["rac"], "/series"), {"name": AAS}),
        (url(dbs["rac"], "/series"), {"name": AAS, "begin_snap": last - 5, "end_snap": last}),
        (url(dbs["rac"], "/series"), {"name": AAS, "to": "2027-01-01", "from": "2026-11-01"}),
        (url(dbs["rac"], "/top-sql"), {}),
        ("/api/v1/dbs", {}),
        (url(dbs["rac"], "/catalog"), {}),
    ):
        r = api.get(path, query_string=query)
        assert r.status_code == 200 and 0 < r.cache_control.max_age <= 300, (path, query)
    closed = api.get(
        url(dbs["rac"], "/series"), query_string={"name": AAS, "begin_snap": last - 5, "end_snap": last - 1}
    )
    assert closed.cache_control.max_age >= 3600


def test_compare_is_cacheable_only_when_both_periods_are_closed(api, dbs, window, summary):
    lo, hi = window
    last = summary[dbs["rac"]]["snapshots"]["last_snap"]
    closed, open_ = {"begin_snap": lo, "end_snap": hi}, {"begin_snap": last - 4, "end_snap": last}
    for a, b, long in ((closed, closed, True), (closed, open_, False), (open_, closed, False), (open_, open_, False)):
        q = {**{f"a_{k}": v for k, v in a.items()}, **{f"b_{k}": v for k, v in b.items()}}
        r = api.get(url(dbs["rac"], "/compare"), query_string=q)
        assert r.status_code == 200 and (r.cache_control.max_age >= 3600) is long, (a, b)
