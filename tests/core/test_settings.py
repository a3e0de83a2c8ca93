"""Settings: defaults, config file, secrets table and environment, in that priority."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from engine.core.settings import (
    DEFAULT_SETTINGS,
    PROJECT_ROOT,
    SECTION_FIELDS,
    Settings,
    SettingsError,
    load_settings,
)


def test_defaults_point_inside_the_project(tmp_path: Path) -> None:
    s = load_settings({"NATLOG_CONFIG": str(tmp_path / "absent.toml")})
    assert s.db_path == PROJECT_ROOT / "var" / "natlog.sqlite"
    assert (s.parser, s.top_k, s.query_budget, s.annotations_k) == ("spacy", 100, 500, 3)


def test_config_file_then_environment(tmp_path: Path) -> None:
    config = tmp_path / "natlog.toml"
    config.write_text('top_k = 20\nparser = "stanza"\ndata_dir = "%s"\n' % (tmp_path / "d"))
    s = load_settings({"NATLOG_CONFIG": str(config), "NATLOG_TOP_K": "7"})
    assert s.top_k == 7 and s.parser == "stanza"
    assert s.db_path == tmp_path / "d" / "natlog.sqlite"
    assert s.nltk_data == tmp_path / "d" / "nltk_data"


def test_relative_paths_are_project_relative(tmp_path: Path) -> None:
    s = load_settings({"NATLOG_CONFIG": str(tmp_path / "x.toml"), "NATLOG_DB_PATH": "var/other.sqlite"})
    assert s.db_path == PROJECT_ROOT / "var" / "other.sqlite"


def test_bad_values_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="top_k"):
        load_settings({"NATLOG_CONFIG": str(tmp_path / "x.toml"), "NATLOG_TOP_K": "many"})
    bad = tmp_path / "bad.toml"
    bad.write_text("top_k = [")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings({"NATLOG_CONFIG": str(bad)})
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("colour = 'red'\n")
    with pytest.raises(SettingsError, match="unknown setting 'colour'"):
        load_settings({"NATLOG_CONFIG": str(unknown)})


def test_every_setting_is_in_one_typed_section() -> None:
    names = [f.name for f in fields(Settings)]
    placed = [name for section in SECTION_FIELDS.values() for name in section]
    assert sorted(placed) == sorted(names) and len(placed) == len(set(placed))
    s = Settings()
    assert s.search.top_k == s.top_k and s.paths.db_path == s.db_path and s.annotation.annotations_k == 3
    assert s.conventions.indefinite_reading == "auto" and s.components.disabled_operators == s.disabled_operators
    assert DEFAULT_SETTINGS == Settings()


def test_a_config_file_may_group_settings_by_section(tmp_path: Path) -> None:
    config = tmp_path / "natlog.toml"
    config.write_text('[search]\ntop_k = 20\n[conventions]\nnumeral_reading = "at-least"\n[models]\ndevice = "cpu"\n')
    s = load_settings({"NATLOG_CONFIG": str(config)})
    assert (s.search.top_k, s.conventions.numeral_reading, s.models.device) == (20, "at-least", "cpu")
    config.write_text("[search]\nparser = 'stanza'\n")
    with pytest.raises(SettingsError, match=r"\[search\] has no setting 'parser'; it has: query_budget"):
        load_settings({"NATLOG_CONFIG": str(config)})
    config.write_text("[colours]\nred = 1\n")
    with pytest.raises(SettingsError, match=r"\[colours\] is not a settings section; sections: paths, models"):
        load_settings({"NATLOG_CONFIG": str(config)})
    config.write_text('[conventions]\nnumeral_reading = "roughly"\n')
    with pytest.raises(SettingsError, match="'roughly' is not one of exactly, at-least"):
        load_settings({"NATLOG_CONFIG": str(config)})


def test_a_stage_needs_its_settings_and_the_defaults_do_not_read_the_environment(tmp_path: Path) -> None:
    """Only the edges read the configuration: a stage takes its settings as an argument (no silent
    fallback), and the defaults it may be given do not follow NATLOG_*."""
    script = ("from engine.edits.operators import select_operators\n"
              "from engine.core.settings import DEFAULT_SETTINGS\n"
              "from engine.models.language import resolve_device\n"
              "try:\n    resolve_device()\nexcept TypeError:\n    pass\nelse:\n    raise SystemExit('resolve_device ran without settings')\n"
              "print(resolve_device(DEFAULT_SETTINGS).type, DEFAULT_SETTINGS.top_k)\n")
    env = {**os.environ, "NATLOG_DEVICE": "cuda:7", "NATLOG_TOP_K": "3"}
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    # Read from the environment, "cuda:7" would stop it (no such device) and top_k would be 3.
    assert done.returncode == 0, done.stderr
    device, top_k = done.stdout.split()
    assert device in ("cpu", "cuda") and top_k == "100"
