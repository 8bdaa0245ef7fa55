# Two commands do all the set-up on a fresh machine (python3 is all it needs):
#   make demo   a sample game played by mail in ./var
#   make test   the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m pbem.demo

# pytest's own exit code is kept in .venv/.pytest-status (make itself exits 2 on any failure)
test: $(STAMP)
	rm -f $(VENV)/.pytest-status
	$(BIN)/python -m pytest -q; status=$$?; echo $$status > $(VENV)/.pytest-status; exit $$status
