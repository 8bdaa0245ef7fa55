"""The build backend's extra step (pyproject.toml holds everything else): a wheel
(`pip wheel .`, `pip install .`) carries the engine compiled with mypyc -- a platform wheel,
with engine/compiled.json, the record engine/compiled.py checks the build against in the
installed copy too. Where mypyc or a C compiler is missing, or PBEM_PURE_WHEEL=1 is set, the
wheel is pure Python instead (py3-none-any): the same results, slower. An editable install
(`pip install -e .`, what `make` does) compiles nothing here: tools/compile_engine.py builds
in the tree.
"""
import importlib.util
import io
import os
import re
import shutil
import sys
import sysconfig
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
WHEEL = "bdist_wheel" in sys.argv  # not egg_info, sdist or editable_wheel


def _tool():
    spec = importlib.util.spec_from_file_location("compile_engine", ROOT / "tools" / "compile_engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _have_compiler() -> bool:
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return bool(shutil.which(cc)) and (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file()


def _pure(why: str, result: str = "a pure wheel") -> list:
    print(f"setup.py: the engine is not compiled ({why}): {result}, whose engine runs its Python sources",
          file=sys.stderr, flush=True)
    return []


def _why(error: BaseException, said: str) -> str:
    """One line for a failed compile: mypy's first error and how many there were, or where mypyc
    itself broke, else the exception."""
    errors = [line.strip() for line in said.splitlines() if ": error: " in line]
    if errors:
        return f"mypyc: {errors[0]}" + (f" and {len(errors) - 1} more errors" if len(errors) > 1 else "")
    crashed = [line.strip() for line in said.splitlines() if re.match(r"\S+\.py:\d+: (?!note:)", line)]
    if crashed:
        return f"mypyc: {crashed[0]}" + (" (an internal mypyc error)" if "internal mypyc error" in said else "")
    return f"{type(error).__name__}: {error}".strip()


def compiled_engine() -> list:
    """The engine's extension modules, or [] for a pure wheel. Any failure -- no C compiler, no
    mypy, a type error, mypyc's own sys.exit -- makes the pure wheel, saying why in one line."""
    if not WHEEL:
        return []
    if os.environ.get("PBEM_PURE_WHEEL"):
        return _pure("PBEM_PURE_WHEEL is set")
    if not _have_compiler():
        return _pure("no C compiler, or no Python headers")
    global RECORD
    said = io.StringIO()  # mypy's and mypyc's messages: every type error, a line each; summed up below
    try:
        print("setup.py: compiling the engine with mypyc (a few minutes)...", file=sys.stderr, flush=True)
        tool = _tool()
        RECORD = tool.record()  # before mypyc reads them: a source edited meanwhile shows as changed
        with redirect_stdout(said), redirect_stderr(said):
            return tool.extensions("build/mypyc-wheel")
    except (Exception, SystemExit) as e:  # noqa: BLE001 -- whatever it was, the pure wheel
        return _pure(_why(e, said.getvalue()))


RECORD = ""
EXTENSIONS = compiled_engine()


class BuildExt(build_ext):
    """Writes engine/compiled.json beside the compiled modules once they are built; if the
    C compiler fails after all, the wheel holds no record and its engine runs the sources."""

    def finalize_options(self):
        super().finalize_options()
        self.parallel = self.parallel or os.cpu_count() or 1  # mypyc writes a C file per module

    def run(self):
        if not self.extensions:
            return super().run()
        try:
            with _tool().heartbeat("compiling the engine's C code"):
                super().run()
        except (Exception, SystemExit) as e:  # noqa: BLE001
            _pure(f"the C compiler failed: {type(e).__name__}: {e}", "a platform wheel")
            return
        if self.extensions:
            (Path(self.build_lib) / "engine" / "compiled.json").write_text(RECORD)


# The mail and page templates live at the top of the checkout, beside engine/ and pbem/, and are
# shipped as the package pbem.templates (pbem/outbound/render.py finds them by that name). Every
# folder is named a package, data folders too (engine/content/..., pbem/locale/..., templates/web):
# setuptools warned at every build of each one it found importable and left out of `packages`
# (their files went in anyway, by pyproject.toml's package-data; the wheel holds the same files).
PACKAGES = find_namespace_packages(include=["engine*", "pbem*"], exclude=["*.__pycache__"]) + [
    "pbem.templates", "pbem.templates.web"]

setup(packages=PACKAGES, package_dir={"pbem.templates": "templates", "pbem.templates.web": "templates/web"},
      ext_modules=EXTENSIONS, cmdclass={"build_ext": BuildExt})
