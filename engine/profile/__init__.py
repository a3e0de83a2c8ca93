"""Profile a victim by natural-logic phenomenon (issue 50): which kinds of licensed edit fool it.

``phenomena``: what a phenomenon is (an operator family crossed with the polarity of the edit's
context). ``runner``: a profile run over a data file's pairs, stored in the runs store. ``card``:
the report card's table (failure rate per phenomenon and setup, with its interval and estimated
validity) and the difference between two victims.

In: a data file's pairs, setups, a built attack and a victim. Out: a stored profile run and its
report card's cells.
"""
