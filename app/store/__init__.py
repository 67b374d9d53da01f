"""Stores: one per configured target, each an SqliteStore or an OracleStore behind the same interface."""

from app.store.base import Store


def open_stores(settings) -> dict[str, Store]:
    """A Store per target alias. Nothing connects here: Oracle pools connect on first use."""
    stores = {}
    for alias, target in settings.all_targets().items():
        if not isinstance(target, dict):
            raise ValueError(f"target {alias!r} must be a JSON object")
        if "sqlite" in target:
            from app.store.sqlite import SqliteStore

            stores[alias] = SqliteStore(alias, target["sqlite"], settings)
        elif "reports" in target:
            from app.store.reports import ReportStore

            stores[alias] = ReportStore(alias, target["reports"], settings)
        elif "dsn" in target:
            from app.store.oracle import OracleStore  # imports the driver only when Oracle is configured

            stores[alias] = OracleStore(alias, target, settings)
        else:
            raise ValueError(
                f"target {alias!r} needs \"sqlite\": path, \"reports\": path (imported report files) or \"dsn\": "
                "an Oracle DSN"
            )
    return stores
