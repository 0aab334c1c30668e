"""Typed readers of environment variables for the settings module.

Each reader names the variable in its error, so a bad deployment setting
fails at start-up with a message saying which variable to fix.
"""

from __future__ import annotations

import json
import os
from typing import Any

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_secret(name: str, default: str) -> str:
    """A secret (a key, a password, a URL holding one): ``name``, or the content of the
    file ``name_FILE`` names (Docker's and Compose's secrets), without its last newline."""
    if name in os.environ:
        return os.environ[name]
    path = os.environ.get(f"{name}_FILE")
    if not path:
        return default
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().removesuffix("\n")
    except OSError as error:
        raise ImproperlyConfigured(
            f"{name}_FILE={path!r}: cannot read it ({error.strerror}): give the path of a "
            f"readable file holding {name}"
        ) from None


#: Values shipped in examples (or guessed first): refused for secrets outside DEBUG.
PLACEHOLDERS = frozenset(
    {"", "arena", "changeme", "change-me", "password", "postgres", "secret", "example"}
)


def refuse_placeholder(name: str, value: str | None, *, fix: str) -> None:
    """Stop the start-up if ``value`` of the secret ``name`` is a placeholder."""
    if value is not None and value.strip().lower() in PLACEHOLDERS:
        raise ImproperlyConfigured(
            f"{name} is the placeholder {value!r}: set a secret of your own ({fix}), "
            "or DEBUG=1 for development only"
        )


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected an integer") from None


def env_count(name: str, default: int, what: str) -> int:
    """A count of ``what`` (0 or more), e.g. the proxies in front of the web."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if value < 0:
        raise ImproperlyConfigured(
            f"{name}={raw!r}: expected the number of {what}, a whole number 0 or more"
        )
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_json_object(name: str) -> dict[str, Any]:
    raw = os.environ.get(name)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ImproperlyConfigured(f"{name}: not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name}: expected a JSON object, got {type(value).__name__}")
    return value
