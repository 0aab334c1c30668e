"""The source check: untrusted code is compiled in the sandbox, under limits of its own.

Compile bombs (a tiny file the compiler needs gigabytes or minutes for) end as
a clear report of the bot's; the caller's process is never touched.
"""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from bots_sdk.source_check import CHECK_LIMITS, check_sources

from .test_sandbox import MakeBot, bots_root, make_bot, sandbox  # noqa: F401 (fixtures)

SIMPLIFY = "simplify what makes the compiler work so hard"


def sources(make_bot: MakeBot, **files: str) -> Path:  # noqa: F811
    return make_bot(files={name.replace("__", "/"): text for name, text in files.items()})


def test_every_python_file_is_compiled_and_each_error_names_its_line(make_bot: MakeBot) -> None:  # noqa: F811
    bot = sources(make_bot, **{"main.py": "import helper\n", "helper.py": "def f(:\n    pass\n"})
    check = check_sources(bot, trusted=False)
    assert check.checked == ["helper.py", "main.py"]
    assert check.errors == ["helper.py, line 1: invalid syntax"] and not check.passed


def test_good_sources_pass(make_bot: MakeBot) -> None:  # noqa: F811
    check = check_sources(sources(make_bot, **{"main.py": "print('hi')\n"}), trusted=False)
    assert check.passed and check.checked == ["main.py"]


@pytest.mark.parametrize(
    ("source", "words"),
    [
        # 0.2 MB of unary minus: the compiler's recursion gives up on it.
        ("-" * 200_000 + "1\n", "main.py: MemoryError (the compiler gave up on this file)"),
        # 2 MB of additions: one expression the compiler needs far more than 256 MiB for.
        ("x = " + "1+" * 1_000_000 + "1\n", f"it ran out of memory (limit 256 MiB); {SIMPLIFY}"),
        # 100,000 definitions.
        (
            "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(100_000)),
            f"it ran out of memory (limit 256 MiB); {SIMPLIFY}",
        ),
    ],
    ids=["deep-unary", "huge-expression", "many-definitions"],
)
def test_a_compile_bomb_ends_as_the_bot_s_clear_error(
    make_bot: MakeBot,  # noqa: F811
    source: str,
    words: str,
) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    (error,) = check_sources(sources(make_bot, **{"main.py": source}), trusted=False).errors
    assert words in error
    # Not compiled here: this process grew by far less than the bomb needs.
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < CHECK_LIMITS.memory_bytes // 1024 // 4


def test_a_check_that_overruns_its_time_is_stopped(make_bot: MakeBot) -> None:  # noqa: F811
    source = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(20_000))
    check = check_sources(sources(make_bot, **{"main.py": source}), trusted=False, seconds=0.05)
    assert check.errors == [
        f"checking the sources took more than 0.05 s: {SIMPLIFY} (huge literals, deep nesting, "
        "generated code)"
    ]
