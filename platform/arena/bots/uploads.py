"""Checking an uploaded bot before anything is stored.

An upload is a single source file of any runtime (``bot.py``, ``bot.c``,
``Bot.java``, ...; the runtime from its suffix) or a ``.zip`` archive with
its runtime's main file (``main.py``, ``main.c``, ...) at its top level; the
uploader may name the runtime instead. Every refusal is its own exception
class whose message says what was wrong and how to fix it. Nothing here
touches the database or the storage: :func:`check_upload` only reads bytes
in memory.
"""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from arena.errors import ArenaError
from bots_sdk.runtimes import RUNTIMES, Runtime, runtime_for_file

from .models import CodeFormat

# Members smaller than this are not judged by compression ratio: tiny or empty
# files have meaningless ratios and cannot hurt.
_RATIO_MIN_BYTES = 64 * 1024
_READ_CHUNK = 64 * 1024
_ZIP_FLAG_ENCRYPTED = 0x1
_ZIP_FLAG_UTF8 = 0x800


@dataclass(frozen=True)
class UploadLimits:
    max_bytes: int
    max_uncompressed_bytes: int
    max_files: int
    max_ratio: int


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that passed every check, ready to be stored."""

    content: bytes
    code_format: CodeFormat
    sha256: str
    size: int
    #: The files of the bot, relative paths (the runtime's main file for a single file).
    files: tuple[str, ...]
    #: The runtime's id (``bots_sdk.runtimes``): named by the uploader, else found.
    runtime: str


class UploadError(ArenaError):
    """Base class of the reasons an upload is refused."""

    code = "upload_invalid"


class UploadTypeError(UploadError):
    code = "upload_type"


class UploadEmptyError(UploadError):
    code = "upload_empty"


class UploadTooLargeError(UploadError):
    code = "upload_too_large"


class SourceEncodingError(UploadError):
    code = "source_not_utf8"


class ArchiveCorruptError(UploadError):
    code = "archive_corrupt"


class ArchiveEncryptedError(UploadError):
    code = "archive_encrypted"


class ArchiveTooManyFilesError(UploadError):
    code = "archive_too_many_files"


class ArchiveTooLargeError(UploadError):
    code = "archive_too_large"


class ArchiveBombError(UploadError):
    code = "archive_bomb"


class ArchiveAbsolutePathError(UploadError):
    code = "archive_absolute_path"


class ArchiveParentPathError(UploadError):
    code = "archive_parent_path"


class ArchiveSymlinkError(UploadError):
    code = "archive_symlink"


class ArchiveNameEncodingError(UploadError):
    code = "archive_name_not_utf8"


class ArchiveDuplicateError(UploadError):
    code = "archive_duplicate_name"


class ArchiveMissingMainError(UploadError):
    code = "archive_missing_main"


class ArchiveAmbiguousMainError(UploadError):
    code = "archive_ambiguous_main"


class UnknownRuntimeError(UploadError):
    code = "runtime_unknown"


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n} bytes"


def check_upload(
    filename: str, content: bytes, limits: UploadLimits, *, runtime: str | None = None
) -> CheckedUpload:
    """Check an upload; raises an :class:`UploadError` subclass saying what to fix.

    ``runtime`` (an id of ``bots_sdk.runtimes``) is the uploader's choice;
    None finds it from the file's suffix or the archive's main file.
    """
    chosen = _chosen_runtime(runtime)
    suffix = PurePosixPath(filename.replace("\\", "/")).suffix.lower()
    if suffix != ".zip" and chosen is None:
        try:
            chosen = runtime_for_file(filename)
        except ValueError:
            raise UploadTypeError(
                f"{filename!r} is no bot file the arena knows: upload one source file "
                f"({_suffixes()}), or a .zip with its main file ({_mains()}) at the top; "
                "or choose the runtime."
            ) from None
    check_upload_size(filename, len(content), limits)
    if suffix == ".zip":
        files, chosen = _check_archive(filename, content, limits, chosen)
        code_format = CodeFormat.ZIP
    else:
        assert chosen is not None
        _check_utf8_source(filename, content, shown=filename)
        files = (chosen.main,)
        code_format = CodeFormat.FILE
    return CheckedUpload(
        content=content,
        code_format=code_format,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        files=files,
        runtime=chosen.id,
    )


#: The suffixes of every runtime's source files (their text is checked for UTF-8).
SOURCE_SUFFIXES = frozenset(suffix for r in RUNTIMES.values() for suffix in r.suffixes)


def _suffixes() -> str:
    return ", ".join(sorted(SOURCE_SUFFIXES))


def _mains() -> str:
    return ", ".join(r.main for r in RUNTIMES.values())


def _chosen_runtime(runtime: str | None) -> Runtime | None:
    if runtime is None or runtime == "":
        return None
    if runtime not in RUNTIMES:
        raise UnknownRuntimeError(
            f"{runtime!r} is not a runtime of the arena: choose one of {', '.join(RUNTIMES)}, "
            "or leave it out to take it from the file."
        )
    return RUNTIMES[runtime]


def check_upload_size(filename: str, size: int, limits: UploadLimits) -> None:
    """The size checks alone: callers holding a large upload on disk check before reading it."""
    if size == 0:
        raise UploadEmptyError(f"{filename!r} is empty: upload the file with your bot's code.")
    if size > limits.max_bytes:
        raise UploadTooLargeError(
            f"{filename!r} is {_size(size)}, above the {_size(limits.max_bytes)} "
            "upload limit: remove files the bot does not need (data, caches, tests)."
        )


def _check_utf8_source(name: str, data: bytes, *, shown: str) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SourceEncodingError(
            f"{shown!r} is not UTF-8 text (byte {error.start}, line {line}): save {name} "
            "with UTF-8 encoding."
        ) from None


def member_name(info: zipfile.ZipInfo) -> str:
    """The member's name as UTF-8 text, or an error naming the bad name."""
    if info.flag_bits & _ZIP_FLAG_UTF8 or info.filename.isascii():
        return info.filename
    # Without the UTF-8 flag zipfile decoded the raw bytes as cp437; many
    # tools write UTF-8 without setting the flag, so accept raw UTF-8 bytes.
    raw = info.filename.encode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        shown = raw.decode("utf-8", errors="replace")
        raise ArchiveNameEncodingError(
            f"the archive member name {shown!r} is not UTF-8: rename the file with UTF-8 "
            "(or plain ASCII) characters, or re-create the archive with a tool that stores "
            "UTF-8 names (Python's zipfile, Info-ZIP zip 3.0 or later)."
        ) from None


def _check_member_path(name: str) -> None:
    path = name.replace("\\", "/")
    if path.startswith("/") or (len(path) >= 2 and path[1] == ":"):
        raise ArchiveAbsolutePathError(
            f"the archive member {name!r} has an absolute path: store paths relative to the "
            "bot's folder (zip from inside the folder, e.g. `cd mybot && zip -r ../mybot.zip .`)."
        )
    if ".." in path.split("/"):
        raise ArchiveParentPathError(
            f"the archive member {name!r} contains '..', which would place it outside the bot's "
            "folder: keep every file inside the folder and zip it from there."
        )


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    # Unix tools keep the file mode in the high 16 bits of external_attr.
    return stat.S_ISLNK(info.external_attr >> 16)


def _check_archive(
    filename: str, content: bytes, limits: UploadLimits, chosen: Runtime | None
) -> tuple[tuple[str, ...], Runtime]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
        raise ArchiveCorruptError(
            f"{filename!r} is not a readable .zip archive ({error}): create it again with "
            "`zip -r` or your system's 'compress' command."
        ) from None
    with archive:
        infos = archive.infolist()
        names: list[str] = []
        seen: set[str] = set()
        declared_total = 0
        for info in infos:
            name = member_name(info)
            _check_member_path(name)
            if _is_symlink(info):
                raise ArchiveSymlinkError(
                    f"the archive member {name!r} is a symbolic link: links are not allowed; "
                    "put the file itself in the archive (zip without --symlinks / -y)."
                )
            if info.flag_bits & _ZIP_FLAG_ENCRYPTED:
                raise ArchiveEncryptedError(
                    f"the archive member {name!r} is encrypted: upload an archive without a "
                    "password."
                )
            if info.is_dir():
                continue
            key = name.replace("\\", "/").removeprefix("./")
            if key in seen:
                raise ArchiveDuplicateError(
                    f"the archive holds {name!r} twice: keep one copy of each file."
                )
            seen.add(key)
            names.append(key)
            if len(names) > limits.max_files:
                raise ArchiveTooManyFilesError(
                    f"the archive holds more than {limits.max_files} files: remove files the "
                    "bot does not need (tests, caches, .git, __pycache__)."
                )
            _check_ratio(name, info, limits)
            declared_total += info.file_size
            if declared_total > limits.max_uncompressed_bytes:
                raise _too_large(limits)
        if not names:
            raise UploadEmptyError(
                f"the archive {filename!r} holds no file: put your bot's main file "
                f"({_mains()}) at its top level, beside the files it uses."
            )
        runtime = _archive_runtime(names, chosen)
        _read_members(archive, infos, limits)
    return tuple(sorted(names)), runtime


def _archive_runtime(names: list[str], chosen: Runtime | None) -> Runtime:
    """The runtime named, or the one whose main file is at the archive's top."""
    if chosen is not None:
        if chosen.main not in names:
            raise _missing_main(names, (chosen,))
        return chosen
    mains = [r for r in RUNTIMES.values() if r.main in names]
    if not mains:
        raise _missing_main(names, tuple(RUNTIMES.values()))
    if len(mains) > 1:
        both = " and ".join(r.main for r in mains)
        raise ArchiveAmbiguousMainError(
            f"the archive has {both} at its top level: keep one main file, or choose the runtime."
        )
    return mains[0]


def _check_ratio(name: str, info: zipfile.ZipInfo, limits: UploadLimits) -> None:
    if info.file_size < _RATIO_MIN_BYTES:
        return
    ratio = info.file_size / max(info.compress_size, 1)
    if ratio > limits.max_ratio:
        raise ArchiveBombError(
            f"the archive member {name!r} expands {ratio:.0f} times (from "
            f"{_size(info.compress_size)} to {_size(info.file_size)}), more than the "
            f"{limits.max_ratio} times allowed: this looks like a zip bomb. Remove the file "
            "or make it smaller."
        )


def _too_large(limits: UploadLimits) -> ArchiveTooLargeError:
    return ArchiveTooLargeError(
        f"the archive expands to more than {_size(limits.max_uncompressed_bytes)}: remove "
        "large data files the bot does not need."
    )


def _missing_main(names: list[str], runtimes: tuple[Runtime, ...]) -> ArchiveMissingMainError:
    mains = {r.main for r in runtimes}
    nested = sorted(name for name in names if PurePosixPath(name).name in mains)
    hint = ""
    if nested:
        folder = str(PurePosixPath(nested[0]).parent)
        hint = (
            f" It has {nested[0]!r}: zip the contents of the folder {folder!r}, not the folder "
            "itself."
        )
    wanted = runtimes[0].main if len(runtimes) == 1 else f"main file ({_mains()})"
    return ArchiveMissingMainError(
        f"the archive has no {wanted} at its top level: the arena starts the bot there.{hint}"
    )


def _read_members(
    archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], limits: UploadLimits
) -> None:
    """Decompress every member: counts the real size and checks each CRC.

    The sizes declared in the archive are only claims; zipfile never returns
    more than the declared size of a member, and a member that would give
    more fails its CRC check here.
    """
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        name = member_name(info)
        chunks: list[bytes] = []
        keep = PurePosixPath(name).suffix in SOURCE_SUFFIXES
        try:
            with archive.open(info) as member:
                while chunk := member.read(_READ_CHUNK):
                    total += len(chunk)
                    if total > limits.max_uncompressed_bytes:
                        raise _too_large(limits)
                    if keep:
                        chunks.append(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError) as error:
            raise ArchiveCorruptError(
                f"the archive member {name!r} cannot be read ({error}): create the archive "
                "again with `zip -r` or your system's 'compress' command."
            ) from None
        if keep:
            _check_utf8_source(name, b"".join(chunks), shown=name)
