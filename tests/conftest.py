"""Shared fixtures: the real shared NLI data (skipped with a reason when absent) and settings."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.attack.build import Attack
from engine.core.settings import PROJECT_ROOT, Settings, get_settings
from engine.data.readers import read_pairs
from engine.victim.model import Victim, load_victim
from tests.attacking import attack_of
from tests.tiny_models import build_tiny_classifier

# Beside the checkout, as for a user, unless NATLOG_SHARED_DATA_DIR names another folder (as the
# settings read it): .ci/run does when it cannot clone beside the checkout.
SHARED_DATA = Path(os.environ.get("NATLOG_SHARED_DATA_DIR") or PROJECT_ROOT.parent / "shared" / "data")


def pytest_configure(config: pytest.Config) -> None:
    """Tests see the built-in modifier inventory (unless they pass one), whatever ``mine-pps``
    has written to var/, and every edit operator; subprocesses (CLI, served app) inherit both."""
    scratch = Path(tempfile.mkdtemp(prefix="natlog-tests-"))
    os.environ["NATLOG_PP_INVENTORY"] = str(scratch / "pp_inventory.json")
    # Pages run without a store of their own (AppTest of app/main.py) use a scratch store, never
    # the developer's var/natlog.sqlite.
    os.environ["NATLOG_DB_PATH"] = str(scratch / "natlog.sqlite")
    # The tests exercise every operator, including those off by default (tests of the defaults
    # read ``Settings()``).
    os.environ["NATLOG_DISABLED_OPERATORS"] = "none"
    # No page starts training the real offline victim behind a test's back (tests/app/test_browser.py
    # turns it on, with a tiny backbone, to test that path).
    os.environ["NATLOG_AUTO_TRAIN_VICTIM"] = "0"
    get_settings.cache_clear()
    # Under pytest-xdist (make test: one process per core) each process keeps to its share of the
    # cores, so that the processes do not fight over them.
    # Subprocesses (a served app, the CLI, Ray's actors) keep to the same share: each would otherwise
    # start one torch thread per core, and on 2 cores a run of the suite once went from 20 to over
    # 40 runnable threads, with tests that take 7 s alone taking 6 minutes.
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
    if workers > 1:
        import torch

        share = max(1, (os.cpu_count() or 1) // workers)
        torch.set_num_threads(share)
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NATLOG_TORCH_THREADS"):
            os.environ.setdefault(name, str(share))


@pytest.fixture(autouse=True)
def _main_module_kept() -> Iterator[None]:
    """Put back the process's ``__main__`` after each test. AppTest runs a page script as
    ``__main__`` and leaves it there, and a child process started by spawn or a fork server runs
    the parent's ``__main__`` first: twenty annotator processes of a later test each ran a
    Streamlit page and died (exit 1)."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


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


# The attack tests' shared parts: a tiny real BERT victim that answers "contradiction" on every
# input, the configured attack without AltLM, and real SNLI contradiction pairs.
@pytest.fixture(scope="module")
def victim(tmp_path_factory: pytest.TempPathFactory, settings) -> Victim:
    folder = build_tiny_classifier(tmp_path_factory.mktemp("victim"), bias=(0.0, 0.0, 3.0))
    return load_victim(str(folder), settings=settings)


@pytest.fixture(scope="module")
def attack(settings) -> Attack:
    """The attack the test settings describe (every operator), AltLM off."""
    return attack_of(settings)


@pytest.fixture(scope="module")
def contradictions(shared_data: Path) -> list:
    """Real SNLI contradiction pairs with short hypotheses."""
    pairs = read_pairs(shared_data / "snli_test.tsv", "snli")
    return [p for p in pairs if p.label == "contradiction" and len(p.hypothesis.split()) <= 6][:4]
