# Two entry points for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-all install bench clean browser-test

# Where pip finds the CPU build of torch that lies on disk on these machines (pip's find-links,
# from the environment or pip's config): uv reads no pip configuration, so it is passed on.
FIND_LINKS ?= $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
UV_VERSION := 0.13.9

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# uv, then one uv run (one resolver pass): torch 2.13.0, the CPU build from find-links
	# (other specs download GBs), with parlor and its extras. uv fetches and unpacks in
	# parallel: 16 s and 21 CPU-s here against pip's minute and 85 CPU-s (docs/testing.md),
	# the same versions. Like pip --no-compile it writes no bytecode: modules compile when
	# first imported, so the thousands of torch and Ray files the tests never load are not.
	$(PY) -m pip install --disable-pip-version-check -q uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --python $(PY) $(foreach link,$(FIND_LINKS),--find-links $(link)) \
		torch==2.13.0 -e ".[train,dev,pictures,scale]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/parlor demo

# `make test` (what CI runs): ruff, mypy and every test not marked slow, in a few minutes;
# `make test-all` adds the slow ones (exhaustive and property runs, Ray clusters, training runs,
# the browser). docs/testing.md lists the tiers and the fast test that covers each slow one.
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: the install skips compiling,
# so without it every worker and every fresh interpreter of the tests compiles torch, Ray and
# parlor from source again. mypy (one core) runs beside tests/warm_up.py (the other), which
# compiles once what each test process would compile for itself; its failures show in the run.
# loadgroup: the Ray tests (xdist_group "ray") share one worker and one Ray instance
test test-all: export PYTHONDONTWRITEBYTECODE =
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy & mypy=$$!; $(PY) -m tests.warm_up -m "not slow and not browser"; wait $$mypy
	$(PY) -m pytest -n 2 --dist loadgroup -m "not slow and not browser" tests

test-all: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy & mypy=$$!; $(PY) -m tests.warm_up; wait $$mypy
	$(PY) -m pytest -n 2 --dist loadgroup tests

# the replay page in a real browser: Debian's chromium, screenshots in runs/browser-test/
browser-test: $(STAMP)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	PARLOR_SCREENSHOTS=runs/browser-test $(PY) -m pytest -m browser tests -v

bench: $(STAMP)
	$(VENV)/bin/parlor bench

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache
