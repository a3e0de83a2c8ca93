"""Readers for NLI data files: every supported format yields the same ``NLIPair`` record.

In: a file path and format. Out: ``NLIPair`` records.
"""
