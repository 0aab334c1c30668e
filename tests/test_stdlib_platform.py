"""`platform/` is a plain directory on sys.path: it must not shadow stdlib `platform`."""

import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_stdlib_platform_module_is_importable() -> None:
    assert callable(platform.python_version)
    assert platform.python_version().startswith("3.")


def test_platform_module_comes_from_stdlib() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    module_file = getattr(platform, "__file__", None)
    assert module_file is not None, "platform resolved to a namespace package"
    assert Path(module_file).resolve().parent == stdlib


def test_platform_dir_is_not_a_package() -> None:
    assert not (REPO_ROOT / "platform" / "__init__.py").exists()


@pytest.mark.parametrize("script", sorted(path.name for path in (REPO_ROOT / "bench").glob("*.py")))
def test_every_bench_script_imports_the_stdlib_platform(script: str) -> None:
    # bench/platform.py shares the module's name: a script run from bench/ must
    # not pick it up when it (or celery, psycopg, the sandbox) imports platform.
    run = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
