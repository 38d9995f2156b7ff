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
	# A venv without pip's own install (ensurepip: 6 s), uv put in by the system's pip, then
	# one uv run (one resolver pass): torch 2.13.0, the CPU build from find-links (other specs
	# download GBs), with parlor, its extras and pip (so the venv has one as usual). uv fetches
	# and unpacks in parallel: 16 s and 21 CPU-s here against pip's minute and 85 CPU-s
	# (docs/testing.md), the same versions. Like pip --no-compile it writes no bytecode: modules
	# compile when first imported, so the thousands of torch and Ray files the tests never load are not.
	test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(PY) install --disable-pip-version-check -q uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --python $(PY) $(foreach link,$(FIND_LINKS),--find-links $(link)) \
		torch==2.13.0 -e ".[train,dev,pictures,scale]" pip
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/parlor demo

# `make test` (what CI runs): ruff, mypy and every test not marked slow, in a few minutes;
# `make test-all` adds the slow ones (exhaustive and property runs, Ray clusters, training runs,
# the browser). docs/testing.md lists the tiers and the fast test that covers each slow one.
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: the install skips compiling,
# so without it every worker and every fresh interpreter of the tests compiles torch, Ray and
# parlor from source again. The tests start at once, and two jobs run beside them: mypy (~27
# CPU-s on a fresh clone; niced, so it takes what the tests leave idle; its report prints
# when the tests end and its failure fails the target too) and tests/warm_up.py, which
# compiles the numba kernels once. tests/compile_once.py has the second worker wait for the
# first one's collection (its bytecode) and a test that needs a kernel wait for that compile,
# rather than compiling the same code again.
# loadgroup: the Ray tests (xdist_group "ray") share one worker and one Ray instance
define checked_tests
	$(VENV)/bin/ruff check .
	tmp=$$(mktemp -d); export PARLOR_COMPILE_ONCE=$$tmp; \
	nice -n 10 $(VENV)/bin/mypy > $$tmp/mypy.txt 2>&1 & mypy=$$!; \
	$(PY) -m tests.warm_up > $$tmp/warm_up.txt 2>&1 & warm=$$!; \
	$(PY) -m pytest -p tests.compile_once -n 2 --dist loadgroup $(1) tests; tests=$$?; \
	wait $$warm || { echo "tests/warm_up.py (not a test; what failed fails again in its test):"; cat $$tmp/warm_up.txt; }; \
	wait $$mypy; typed=$$?; echo "mypy:"; cat $$tmp/mypy.txt; rm -rf $$tmp; test $$tests = 0 && test $$typed = 0
endef

test test-all: export PYTHONDONTWRITEBYTECODE =
test: $(STAMP)
	$(call checked_tests,-m "not slow and not browser")

test-all: $(STAMP)
	$(call checked_tests,)

# the replay page in a real browser: Debian's chromium, screenshots in runs/browser-test/
browser-test: $(STAMP)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	PARLOR_SCREENSHOTS=runs/browser-test $(PY) -m pytest -m browser tests -v

bench: $(STAMP)
	$(VENV)/bin/parlor bench

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache
