# Two entry points for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test install bench clean browser-test

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# the CPU build of torch that lies on disk on these machines; other specs download GBs
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e ".[train,dev,pictures,scale]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/parlor demo

# loadgroup: the Ray tests (xdist_group "ray") share one worker and one Ray instance
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 --dist loadgroup tests

# the replay page in a real browser: Debian's chromium, screenshots in runs/browser-test/
browser-test: $(STAMP)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	PARLOR_SCREENSHOTS=runs/browser-test $(PY) -m pytest -m browser tests -v

bench: $(STAMP)
	$(VENV)/bin/parlor bench

clean:
	rm -rf $(VENV) runs .pytest_cache
