"""Batch runs: one process, Ray actors, and the worker that drains the job queue.

In: a data file, a setup, a victim. Out: attack records in the runs store.
"""
