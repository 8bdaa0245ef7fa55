# Two commands do all the set-up on a fresh machine (python3 is all it needs):
#   make demo   a sample game played by mail in ./var
#   make test   the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The engine compiled with mypyc (docs/architecture.md), again whenever a source changes. Where
# it cannot be compiled (no C compiler), the Python sources run: slower, the same results.
COMPILED := engine/compiled.json
ENGINE   := $(shell find engine -name '*.py')

.PHONY: demo test build

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e '.[test,compile]'
	touch $(STAMP)

$(COMPILED): $(STAMP) $(ENGINE) tools/compile_engine.py
	-$(BIN)/python tools/compile_engine.py

# what a deployment needs: .venv with the project, the engine compiled (deploy/pbem.service)
build: $(STAMP) $(COMPILED)

demo: $(STAMP) $(COMPILED)
	$(BIN)/python -m pbem.demo

# pytest's own exit code is kept in .venv/.pytest-status (make itself exits 2 on any failure)
test: $(STAMP) $(COMPILED)
	rm -f $(VENV)/.pytest-status
	$(BIN)/python -m pytest -q; status=$$?; echo $$status > $(VENV)/.pytest-status; exit $$status
