"""User-facing errors: raised for bad input, shown as one clear message (never a traceback)."""


class InputError(ValueError):
    """The user's input (text, file, option) cannot be processed as given."""
