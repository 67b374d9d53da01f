"""Oracle's Automatic Workload Repository, the source family awrlens reads: its views by release and prefix (views)
and the statements that read them (queries). Another source family (Statspack) would sit beside it, as
app/store/<family>/ with its own views and statements."""
