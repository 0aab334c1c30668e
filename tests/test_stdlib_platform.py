"""`platform/` is a plain directory on sys.path: it must not shadow stdlib `platform`."""

import platform
import sysconfig
from pathlib import Path

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
