"""Probe suites: generated (or released) NLI items with solver-derived labels, run on a victim.

In: a suite name, a seed (or a released file). Out: ``ProbeItem`` records with derived labels, and a
victim's predictions on them (probe runs in the store).

Public API: :class:`ProbeItem`, :func:`read_items`, :func:`write_items`, :func:`get_suite`,
:func:`suite_names`.
"""

from engine.probes.record import ProbeItem, read_items, write_items
from engine.probes.suites import Suite, get_suite, register_suite, suite_names

__all__ = ["ProbeItem", "Suite", "get_suite", "read_items", "register_suite", "suite_names", "write_items"]
