"""Starter kits: one bot per language, each a single ``main.<ext>`` and a README.

Every kit speaks the whole protocol (``docs/protocol.md``) and has one
function to edit, ``choose`` (``act`` in Python), which plays a legal action
at random with a generator seeded from ``bot_seed``. The files live next to
this module, in ``<lang>/``; ``python -m bots_sdk new NAME --lang LANG`` copies
one (:func:`write_kit`) and the website serves them as zips (:func:`kit_zip`).
"""

from __future__ import annotations

import io
import keyword
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

KITS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Kit:
    """One language's kit: ``main`` is its source file, ``build`` how the platform
    builds it (empty: nothing to build) and ``run`` how it runs, with the
    sources under ``/bot`` and the build output under ``/build``."""

    lang: str
    title: str
    main: str
    build: str
    run: str

    @property
    def folder(self) -> Path:
        return KITS_DIR / self.lang

    @property
    def placeholder(self) -> str:
        """The bot's name in the kit's files, replaced by :func:`write_kit`."""
        return f"starter-{self.lang}"

    def files(self) -> list[Path]:
        """The kit's files: README.md and the main file."""
        return [self.folder / "README.md", self.folder / self.main]


#: The kits by language id, in the order they are shown. ``build`` and ``run``
#: are the platform's commands, for the kits page (the build step has its own).
KITS: Mapping[str, Kit] = {
    kit.lang: kit
    for kit in (
        Kit("python", "Python 3", "main.py", "", "python3 -I /bot/main.py"),
        Kit("js", "JavaScript (Node 18)", "main.js", "node --check /bot/main.js",
            "node /bot/main.js"),
        Kit("c", "C (gcc 12, C17)", "main.c",
            "gcc -std=c17 -O2 -o /build/bot /bot/*.c -lm", "/build/bot"),
        Kit("cpp", "C++ (g++ 12, C++20)", "main.cpp",
            "g++ -std=c++20 -O2 -o /build/bot /bot/*.cpp", "/build/bot"),
        Kit("java", "Java (OpenJDK 17)", "main.java",
            "javac -encoding UTF-8 -d /build /bot/*.java",
            "java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp /build:/bot Main"),
        Kit("rust", "Rust (rustc 1.63)", "main.rs",
            "rustc --edition 2021 -C opt-level=2 -C strip=symbols -o /build/bot /bot/main.rs",
            "/build/bot"),
        Kit("go", "Go 1.19", "main.go", "go build -o /build/bot /bot/*.go", "/build/bot"),
    )
}  # fmt: skip


class KitError(ValueError):
    """An unknown language, or a destination that cannot be written; says what to do."""


def kit(lang: str) -> Kit:
    """The kit of ``lang``; :class:`KitError` lists the languages when there is none."""
    try:
        return KITS[lang]
    except KeyError:
        raise KitError(f"no starter kit for {lang!r}: choose one of {', '.join(KITS)}") from None


def display_name(name: str) -> str:
    """``name`` made safe inside a double-quoted string literal of every kit's
    language: letters, digits and `` _.+-`` kept, anything else becomes ``-``."""
    safe = re.sub(r"[^A-Za-z0-9 _.+-]", "-", name).strip()[:200]
    return safe or "bot"


def class_name(name: str) -> str:
    """A Python class name for a bot called ``name`` (``lucky_seven`` -> ``LuckySeven``)."""
    parts = re.split(r"[^A-Za-z0-9]+", name)
    cls = "".join(part[:1].upper() + part[1:] for part in parts)
    if not cls.isidentifier() or keyword.iskeyword(cls) or cls in ("Bot", "run"):
        return "MyBot"
    return cls


def kit_text(lang: str, filename: str, *, name: str | None = None, shown: str = "./mybot") -> str:
    """The text of one of the kit's files; with ``name``, made that bot's: its
    display name (and class, in Python), and ``shown`` as its folder in the
    commands the file quotes."""
    chosen = kit(lang)
    text = (chosen.folder / filename).read_text(encoding="utf-8")
    if name is None:
        return text
    text = text.replace(chosen.placeholder, display_name(name)).replace("./mybot", shown)
    if lang == "python":
        cls = class_name(name)
        text = text.replace("class Starter(Bot)", f"class {cls}(Bot)")
        text = text.replace("run(Starter)", f"run({cls})")
    return text


def write_kit(name: str, lang: str, dest: Path) -> list[Path]:
    """Copy the kit of ``lang`` into the new folder ``dest`` for a bot called
    ``name``; returns the files written. Refuses (:class:`KitError`) an
    unknown language or a ``dest`` that exists: nothing is overwritten."""
    chosen = kit(lang)
    if dest.exists():
        raise KitError(f"{dest} exists already: choose another name, or remove it first")
    shown = str(dest) if dest.is_absolute() or str(dest).startswith(".") else f"./{dest}"
    try:
        dest.mkdir(parents=True)
    except OSError as error:
        raise KitError(f"cannot create {dest}: {error.strerror}") from None
    written = []
    for source in chosen.files():
        target = dest / source.name
        target.write_text(kit_text(lang, source.name, name=name, shown=shown), encoding="utf-8")
        written.append(target)
    return written


def kit_zip_name(lang: str) -> str:
    """The download's file name: ``vegas-kit-<lang>.zip``."""
    return f"vegas-kit-{kit(lang).lang}.zip"


def kit_zip(lang: str) -> bytes:
    """The kit as a zip with its files at the top (as the platform takes an
    upload), with fixed dates so equal kits give equal bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in kit(lang).files():
            info = zipfile.ZipInfo(path.name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


__all__ = [
    "KITS",
    "Kit",
    "KitError",
    "class_name",
    "display_name",
    "kit",
    "kit_text",
    "kit_zip",
    "kit_zip_name",
    "write_kit",
]
