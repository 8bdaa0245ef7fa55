# Two commands do all the set-up on a fresh machine (python3 is all it needs):
#   make demo   a sample game played by mail in ./var (about a minute, then the engine compiles)
#   make test   the test suite (the engine compiled first)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The engine compiled with mypyc (docs/architecture.md), again whenever a source changes. Where
# it cannot be compiled (no C compiler), the Python sources run: slower, the same results.
COMPILED := engine/compiled.json
ENGINE   := $(shell find engine -name '*.py')

.PHONY: demo test build wheel locale

$(STAMP): pyproject.toml
	@echo "make: creating $(VENV) and installing the project with its dependencies (about a minute)..."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e '.[test,compile]'
	touch $(STAMP)

$(COMPILED): $(STAMP) $(ENGINE) tools/compile_engine.py
	-$(BIN)/python tools/compile_engine.py

# what a deployment from the checkout needs: .venv with the project, the engine compiled
build: $(STAMP) $(COMPILED)

# a wheel to install elsewhere (`pip install dist/talisman_pbem-*.whl`): the engine compiled in it
# (pip -q hides the build's own lines: tools/progress.py says every 25 s that it goes on)
wheel: $(STAMP)
	@echo "make: building the wheel in dist/ (the engine compiles: a few minutes)..."
	$(BIN)/python tools/progress.py "building the wheel" $(BIN)/python -m pip wheel -q --no-deps -w dist .
	@ls dist/talisman_pbem-*.whl

# the demo runs first (on the engine's Python sources if it is not compiled yet), the compile after:
# the first command shows something within a minute, never waits silently on the compiler
demo: $(STAMP)
	$(BIN)/python -m pbem.demo
	@$(MAKE) --no-print-directory $(COMPILED)

# pytest's own exit code is kept in .venv/.pytest-status (make itself exits 2 on any failure); the
# suite spread over every core by pytest-xdist (-n auto): serial it passed the 10 minutes
test: $(STAMP) $(COMPILED)
	rm -f $(VENV)/.pytest-status
	$(BIN)/python -m pytest -q -n auto; status=$$?; echo $$status > $(VENV)/.pytest-status; exit $$status

# the message catalogues (docs/translating.md): every text of the templates and the code extracted
# into pbem/locale/pbem.pot (the engine's messages, engine/text.py, into engine.pot), each language's .po brought up to date with it, then compiled to the
# .mo files the service reads (and the wheel ships); tests/test_languages.py fails on a text a
# language lacks
LOCALE := pbem/locale
locale: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k N_ -k _ -k ngettext:1,2 --add-location=file --sort-by-file \
		--no-wrap --omit-header -o $(LOCALE)/pbem.pot .
	$(BIN)/pybabel update -i $(LOCALE)/pbem.pot -d $(LOCALE) -D pbem --no-wrap --no-fuzzy-matching --ignore-pot-creation-date \
		--ignore-obsolete
	$(BIN)/pybabel compile -d $(LOCALE) -D pbem --statistics
	$(BIN)/pybabel extract -F babel-engine.cfg --no-default-keywords -k msg --add-location=file --sort-by-file \
		--no-wrap --omit-header -o $(LOCALE)/engine.pot .
	$(BIN)/pybabel update -i $(LOCALE)/engine.pot -d $(LOCALE) -D engine --no-wrap --no-fuzzy-matching --ignore-pot-creation-date \
		--ignore-obsolete
	$(BIN)/pybabel compile -d $(LOCALE) -D engine --statistics
