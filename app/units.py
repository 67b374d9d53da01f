"""The units the app converts between, named once."""

MIB = 1048576  # bytes per MiB: also Oracle's "MB" (the AWR report, the views' *_MEGABYTES columns)
DAY = 86400  # seconds
