"""Statspack as a source: the history Oracle's free STATSPACK package keeps in PERFSTAT.STATS$* tables, on any
edition and with no management pack (docs/awr-rules.md §31). `tables` declares the tables as the package creates
them; `views` reads them in the shape of the AWR views, so every question of app.store.awr.queries asks Statspack
the same way."""
