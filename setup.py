"""The build backend's extra step (pyproject.toml holds everything else): a wheel
(`pip wheel .`, `pip install .`) carries the engine compiled with mypyc -- a platform wheel,
with engine/compiled.json, the record engine/compiled.py checks the build against in the
installed copy too. Where mypyc or a C compiler is missing, or PBEM_PURE_WHEEL=1 is set, the
wheel is pure Python instead (py3-none-any): the same results, slower. An editable install
(`pip install -e .`, what `make` does) compiles nothing here: tools/compile_engine.py builds
in the tree.
"""
import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import find_packages, setup
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


def compiled_engine() -> list:
    if not WHEEL or os.environ.get("PBEM_PURE_WHEEL"):
        return []
    if not _have_compiler():
        print("setup.py: no C compiler (or no Python headers): a pure wheel", file=sys.stderr)
        return []
    global RECORD
    try:
        print("setup.py: compiling the engine with mypyc (a minute or more)...", file=sys.stderr, flush=True)
        RECORD = _tool().record()  # before mypyc reads them: a source edited meanwhile shows as changed
        return _tool().extensions("build/mypyc-wheel")
    except Exception as e:  # noqa: BLE001 -- no mypy, a type error: the pure wheel
        print(f"setup.py: the engine is not compiled ({type(e).__name__}: {e}); a pure wheel", file=sys.stderr)
        return []


RECORD = ""
EXTENSIONS = compiled_engine()


class BuildExt(build_ext):
    """Writes engine/compiled.json beside the compiled modules once they are built; if the
    compiler fails after all, the wheel holds no record and its engine runs the sources."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # noqa: BLE001
            print(f"setup.py: compiling failed ({e}); the engine in this wheel runs its sources", file=sys.stderr)
            return
        if self.extensions:
            (Path(self.build_lib) / "engine" / "compiled.json").write_text(RECORD)


# The mail and page templates live at the top of the checkout, beside engine/ and pbem/, and are
# shipped as the package pbem.templates (pbem/outbound/render.py finds them by that name).
PACKAGES = find_packages(include=["engine*", "pbem*"]) + ["pbem.templates"]

setup(packages=PACKAGES, package_dir={"pbem.templates": "templates"}, ext_modules=EXTENSIONS,
      cmdclass={"build_ext": BuildExt})
