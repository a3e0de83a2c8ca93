"""CLI subcommands, grouped by pipeline stage; each module exposes ``register(subparsers)``."""
