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
