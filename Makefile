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
# parlor from source again. tests/warm_up.py compiles once what each test process would compile
# for itself, in two processes (the collection, the kernels). mypy runs in the background from
# the start, beside the warm-up and then the tests, so that no core idles while another job
# finishes (on a fresh clone mypy takes ~27 CPU-s, the warm-up ~75); its report prints when the
# tests end, and its failure fails the target too.
# loadgroup: the Ray tests (xdist_group "ray") share one worker and one Ray instance
define checked_tests
	$(VENV)/bin/ruff check .
	out=$$(mktemp); $(VENV)/bin/mypy > $$out 2>&1 & mypy=$$!; \
	$(PY) -m tests.warm_up $(1) && $(PY) -m pytest -n 2 --dist loadgroup $(1) tests; tests=$$?; \
	wait $$mypy; typed=$$?; echo "mypy:"; cat $$out; rm -f $$out; test $$tests = 0 && test $$typed = 0
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
