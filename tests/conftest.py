"""Shared fixtures: the real shared NLI data (skipped with a reason when absent) and settings."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from engine.settings import PROJECT_ROOT, Settings, get_settings

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"


def pytest_configure(config: pytest.Config) -> None:
    """Tests see the built-in modifier inventory (unless they pass one), whatever ``mine-pps``
    has written to var/; subprocesses (CLI, served app) inherit the setting."""
    os.environ["NATLOG_PP_INVENTORY"] = str(Path(tempfile.mkdtemp(prefix="natlog-tests-")) / "pp_inventory.json")
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of real NLI data sets beside the checkout."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared NLI data not found at {SHARED_DATA} (CI provides it)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def settings() -> Settings:
    return get_settings()


@pytest.fixture()
def tmp_settings(tmp_path: Path) -> Settings:
    """Settings whose data directory (and so SQLite file) is a fresh temporary folder."""
    base = get_settings()
    return base.with_overrides(db_path=tmp_path / "natlog.sqlite", models_dir=tmp_path / "models")
