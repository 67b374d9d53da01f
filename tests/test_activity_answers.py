"""activity.py's answers (§22): compute's ranges and windows, the kept range, AAS from the samples and the totals."""
