"""The lock (requirements/*.txt) agrees with pyproject.toml's dependencies.

`make install` and the images install the lock with `pip --require-hashes`, never
pyproject.toml's ranges: a dependency added to, removed from or narrowed in
pyproject.toml without `make lock` fails here.
"""

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

REPO_ROOT = Path(__file__).resolve().parent.parent
PROJECT = "las-vegas-arena"
# The lock is resolved for this interpreter and platform (the Makefile's LOCK_FLAGS).
TARGET = {
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
}
# Each lock file and the extra it is resolved from.
LOCKS = {"platform": "requirements/platform.txt", "dev": "requirements/dev.txt"}
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")
# uv's annotation of a package the project itself requires.
VIA_PROJECT = re.compile(r"^las-vegas-arena \(pyproject\.toml\)$")


@dataclass
class Pin:
    version: Version
    hashes: frozenset[str]
    via: set[str] = field(default_factory=set)


def parse_lock(text: str) -> dict[NormalizedName, Pin]:
    """The pins of a `uv pip compile --generate-hashes` file, with their `# via` lines."""
    pins: dict[NormalizedName, Pin] = {}
    current: Pin | None = None
    in_via = False
    for line in text.replace("\\\n", " ").splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
            if current is not None and comment.startswith("via"):
                rest = comment.removeprefix("via").strip()
                if rest:
                    current.via.add(rest)
                in_via = not rest
            elif current is not None and in_via and comment:
                current.via.add(comment)
            continue
        in_via = False
        requirement, *options = stripped.split()
        match = PIN.fullmatch(requirement)
        if match is None:
            raise ValueError(f"not an exact pin: {stripped!r}")
        hashes = frozenset(options)
        if not hashes or not all(HASH.fullmatch(option) for option in hashes):
            raise ValueError(f"{requirement}: every pin needs sha256 hashes and nothing else")
        name = canonicalize_name(match["name"])
        if name in pins:
            raise ValueError(f"{name} is pinned twice")
        current = Pin(Version(match["version"]), hashes)
        pins[name] = current
    return pins


def project_requirements(extra: str) -> dict[NormalizedName, list[Requirement]]:
    """What pyproject.toml's extra asks for on the lock's target, its own extras expanded."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    wanted: dict[NormalizedName, list[Requirement]] = {}
    todo, seen = [extra], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in extras[name]:
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate(TARGET):
                continue
            if canonicalize_name(requirement.name) == PROJECT:
                todo.extend(requirement.extras)
            else:
                wanted.setdefault(canonicalize_name(requirement.name), []).append(requirement)
    return wanted


def load(extra: str) -> dict[NormalizedName, Pin]:
    return parse_lock((REPO_ROOT / LOCKS[extra]).read_text())


@pytest.mark.parametrize("extra", sorted(LOCKS))
def test_every_requirement_is_pinned_within_its_bounds(extra: str) -> None:
    pins = load(extra)
    for name, requirements in project_requirements(extra).items():
        assert name in pins, f"{name} is not in {LOCKS[extra]}: run `make lock`"
        for requirement in requirements:
            assert requirement.specifier.contains(pins[name].version, prereleases=True), (
                f"{LOCKS[extra]} pins {name}=={pins[name].version}, outside {requirement}:"
                " run `make lock`"
            )


@pytest.mark.parametrize("extra", sorted(LOCKS))
def test_the_lock_asks_for_what_pyproject_asks_for(extra: str) -> None:
    # A dependency removed from pyproject.toml is still "via las-vegas-arena" in a stale lock.
    direct = {name for name, pin in load(extra).items() if any(map(VIA_PROJECT.match, pin.via))}
    wanted = set(project_requirements(extra))
    assert direct == wanted, (
        f"run `make lock`: {LOCKS[extra]} lacks {sorted(wanted - direct)},"
        f" keeps {sorted(direct - wanted)}"
    )


def test_platform_pins_are_the_dev_pins() -> None:
    # Running and testing use the same versions, from the same files.
    dev = load("dev")
    for name, pin in load("platform").items():
        assert name in dev, f"{name} is in the platform lock only"
        assert (pin.version, pin.hashes) == (dev[name].version, dev[name].hashes), name


def test_the_stubs_follow_django() -> None:
    # django-stubs X.Y describes the API of Django X.Y, and mypy checks against it.
    pins = load("dev")
    django = pins[canonicalize_name("django")].version.release[:2]
    for stubs in ("django-stubs", "django-stubs-ext"):
        assert pins[canonicalize_name(stubs)].version.release[:2] == django, stubs


def test_parse_lock_refuses_what_pip_would_not_check() -> None:
    digest = "--hash=sha256:" + "0" * 64
    with pytest.raises(ValueError, match="needs sha256 hashes"):
        parse_lock("django==5.2.1\n")
    with pytest.raises(ValueError, match="not an exact pin"):
        parse_lock(f"django>=5.2 {digest}\n")
    with pytest.raises(ValueError, match="pinned twice"):
        parse_lock(f"django==5.2.1 {digest}\nDjango==5.2.1 {digest}\n")
    pins = parse_lock(
        f"redis==8.1.0 \\\n    {digest}\n    # via\n    #   -c requirements/dev.txt\n"
        "    #   las-vegas-arena (pyproject.toml)\n"
        f"vine==5.1.0 \\\n    {digest}\n    # via kombu\n"
    )
    assert pins[canonicalize_name("redis")].via == {
        "-c requirements/dev.txt",
        "las-vegas-arena (pyproject.toml)",
    }
    assert pins[canonicalize_name("vine")].via == {"kombu"}
