"""User-facing errors: raised for bad input, shown as one clear message.

The type is defined once, in the runs store below the engine, so that every layer raises and
catches the same class.
"""

from runstore.errors import InputError

__all__ = ["InputError"]
