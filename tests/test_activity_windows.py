"""Activity's windows, filters and names (docs/awr-rules.md §22): the ranges ASH reads, the runs of one offset, the
filters' binds and the groups' names, each checked against the rule applied to a store made here."""
