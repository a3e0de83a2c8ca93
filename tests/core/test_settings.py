"""Settings: defaults, config file, secrets table and environment, in that priority."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.settings import PROJECT_ROOT, SettingsError, load_settings


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
