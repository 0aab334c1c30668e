"""Building bots of every runtime in the real sandbox, with the real toolchains.

Each runtime's tiny bot (``tests/bots_sdk/runtimes/<id>/``) is built and plays
a sandboxed game through the referee: building and running every toolchain
under the sandbox's seccomp allow-list is the proof that the list lets them
work. Bad bots end as reports that say what is wrong and how to fix it;
compile bombs end at the build's limits, quickly, without touching this
process.
"""

from __future__ import annotations

import io
import json
import re
import resource
import shutil
import stat
import subprocess
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from bots_sdk.build import BUILD_IDLE_SECONDS, BUILD_LIMITS, BuildResult, build, build_key
from bots_sdk.faults import FaultKind
from bots_sdk.kits import KITS, write_kit
from bots_sdk.launcher import BotNotFoundError, build_bot, house_bot, resolve_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, Match
from bots_sdk.runtimes import (
    RUNTIMES,
    Stage,
    ToolchainMissingError,
    UnknownRuntimeError,
    runtime_for_file,
)
from bots_sdk.sandbox import MiB, SandboxLimits
from vegas_engine import describe

from .botkit import processes_with
from .test_cli import cli
from .test_sandbox import MakeBot, bots_root, make_bot, sandbox  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

TINY_BOTS = Path(__file__).parent / "runtimes"
SIMPLIFY = "was stopped: simplify what makes"
#: Smaller limits where a bomb needs only to pass them: the same stop, sooner.
SMALL = replace(BUILD_LIMITS, memory_bytes=256 * MiB)


def tiny_bot(make_bot: MakeBot, runtime_id: str) -> Path:  # noqa: F811
    """A copy of a runtime's tiny bot in a folder the bot user may read."""
    folder = make_bot()
    for path in (TINY_BOTS / runtime_id).iterdir():
        shutil.copyfile(path, folder / path.name)
        (folder / path.name).chmod(0o644)
    return folder


def files(make_bot: MakeBot, **sources: str) -> Path:  # noqa: F811
    return make_bot(files=sources)


def play_one(spec_dir: Path) -> tuple[GameRecord, Match]:
    """One sandboxed 2-seat classic game of the bot in ``spec_dir`` against random."""
    spec = build_bot(resolve_bot(str(spec_dir)))
    assert not spec.trusted
    with Match([spec, house_bot("random")], Limits()) as match:
        record = match.play(describe("classic", 2), 11, [0, 1])
    return record, match


def assert_bomb_stopped(result: BuildResult, message: str, bot_dir: Path, grown_kib: int) -> None:
    assert not result.ok and result.output == message, result.output
    assert result.program == b""
    assert processes_with(str(bot_dir)) == []  # its sandbox is gone (the cgroup took the rest)
    # Compiled in the sandbox, not here: this process grew by far less than the bomb took.
    assert grown_kib < 64 * 1024, grown_kib


def max_rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ------------------------------------------------------------------ every runtime

#: What each runtime's build leaves in /build (a zip; nothing for the checkers).
PROGRAMS = {
    "python": [],
    "js": [],
    "c": ["bot"],
    "cpp": ["bot"],
    "java": ["Main.class"],
    "rust": ["bot"],
    "go": ["bot"],
}


def test_every_runtime_has_a_tiny_bot() -> None:
    assert sorted(PROGRAMS) == sorted(RUNTIMES)
    for runtime in RUNTIMES.values():
        assert (TINY_BOTS / runtime.id / runtime.main).is_file()


@pytest.mark.parametrize("runtime_id", list(PROGRAMS))
def test_each_runtime_builds_in_the_sandbox_and_plays_a_sandboxed_game(
    make_bot: MakeBot,  # noqa: F811
    runtime_id: str,
) -> None:
    folder = tiny_bot(make_bot, runtime_id)
    runtime = RUNTIMES[runtime_id]
    result = build(folder, runtime, trusted=False)
    # No output at all: a warning (say, a JVM or Go runtime refused a system call
    # by seccomp) would show here.
    assert result.ok and result.output == "", result.output
    if PROGRAMS[runtime_id]:
        archive = zipfile.ZipFile(io.BytesIO(result.program))
        assert archive.namelist() == PROGRAMS[runtime_id]
        if runtime_id != "java":
            mode = archive.getinfo("bot").external_attr >> 16
            assert mode & stat.S_IXUSR and archive.read("bot")[:4] == b"\x7fELF"
    else:
        assert result.program == b""

    record, match = play_one(folder)
    assert not record.faults, record.faults
    assert record.seats[0].decision_ms and record.seats[0].startup_ms is not None
    assert not record.result[0]["forfeited"]
    (outcome,) = match.outcomes[0]
    # It left when asked (shutdown), said nothing on stderr, and was sandboxed.
    assert not outcome.trusted and outcome.exit_code == 0 and outcome.signal is None
    assert outcome.stderr_tail == b"", outcome.stderr_tail
    assert outcome.memory_peak_bytes


@pytest.mark.parametrize("lang", sorted(KITS))
def test_each_starter_kit_builds_and_plays_in_the_sandbox(
    make_bot: MakeBot,  # noqa: F811
    lang: str,
) -> None:
    """The kits as an author gets them (``new --lang``), built and played sandboxed."""
    folder = make_bot() / f"kit-{lang}"
    write_kit(folder.name, lang, folder)
    for path in (folder, *folder.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    record, match = play_one(folder)
    assert not record.faults, [fault.describe() for fault in record.faults]
    assert not record.result[0]["forfeited"]
    (outcome,) = match.outcomes[0]
    assert not outcome.trusted and outcome.exit_code == 0


def test_a_program_is_addressed_by_its_content(make_bot: MakeBot) -> None:  # noqa: F811
    c = RUNTIMES["c"]
    first, second = tiny_bot(make_bot, "c"), tiny_bot(make_bot, "c")
    key = build_key(first, c)
    assert len(key) == 64 and build_key(first, c) == key
    (first / "main.c").touch()  # a new mtime is no new program
    assert build_key(second, c) == key  # another folder, the same files: built once
    assert build_key(first, RUNTIMES["cpp"]) != key  # another runtime's command
    (second / "notes.txt").write_text("any file of the bot counts\n")
    assert build_key(second, c) != key
    (second / "notes.txt").unlink()
    assert build_key(second, c) == key
    source = (second / "main.c").read_text()
    (second / "main.c").write_text(source.replace("tiny c", "tiny C"))
    assert build_key(second, c) != key


def test_multi_file_bots_build_every_source(make_bot: MakeBot) -> None:  # noqa: F811
    for runtime_id, sources in {
        "c": {"main.c": "int answer(void);\nint main(void) { return answer() - 42; }\n",
              "answer.c": "int answer(void) { return 42; }\n"},
        "java": {"main.java": "class Main { public static void main(String[] a) "
                              "{ System.exit(Helper.answer() - 42); } }\n",
                 "Helper.java": "class Helper { static int answer() { return 42; } }\n"},
        "rust": {"main.rs": "mod helper;\n"
                            "fn main() { std::process::exit(helper::answer() - 42); }\n",
                 "helper.rs": "pub fn answer() -> i32 { 42 }\n"},
        "go": {"main.go": "package main\n\nimport \"os\"\n\n"
                          "func main() { os.Exit(answer() - 42) }\n",
               "answer.go": "package main\n\nfunc answer() int { return 42 }\n"},
    }.items():  # fmt: skip
        result = build(files(make_bot, **sources), RUNTIMES[runtime_id], trusted=False)
        assert result.ok, result.output


# ------------------------------------------------------------------ clear errors


def test_an_unknown_suffix_names_the_runtimes(tmp_path: Path) -> None:
    known = (
        "main.py (python), main.js (js), main.c (c), main.cpp (cpp), main.java (java), "
        "main.rs (rust), main.go (go)"
    )
    with pytest.raises(UnknownRuntimeError) as error:
        runtime_for_file("x.pl")
    assert str(error.value) == (
        f"x.pl: no runtime takes .pl; a bot is one of {known}, "
        "or a folder or zip with one of them at its top"
    )
    (tmp_path / "x.pl").write_text("print 1;\n")
    with pytest.raises(BotNotFoundError) as found:
        resolve_bot(str(tmp_path / "x.pl"))
    assert str(found.value) == (
        f"{tmp_path}/x.pl: not a bot source file (main.py, main.js, main.c, main.cpp, "
        "main.java, main.rs, main.go) and not executable"
    )


def test_a_script_for_an_interpreter_the_sandbox_lacks_is_refused(tmp_path: Path) -> None:
    """A Perl or shell bot: bwrap alone would say "No such file or directory"."""
    cases = (
        ("bot.pl", "#!/usr/bin/perl", "/usr/bin/perl"),
        ("bot.sh", "#!/bin/bash -e", "/usr/bin/bash"),
    )
    for name, first, interpreter in cases:
        script = tmp_path / name
        script.write_text(f"{first}\nprint 1\n")
        script.chmod(0o755)
        with pytest.raises(BotNotFoundError) as error:
            resolve_bot(str(script))
        assert str(error.value).startswith(
            f"{script}: a script for {interpreter}, which the sandbox does not have: write "
            "the bot in one of the arena's languages (Python 3.11, JavaScript (Node.js), "
        )
        assert resolve_bot(str(script), trusted=True).executable == name  # bare: it runs
    python = tmp_path / "bot.py3"
    python.write_text("#!/usr/bin/python3\nprint(1)\n")
    python.chmod(0o755)
    assert resolve_bot(str(python)).executable == "bot.py3"


def test_an_executable_that_is_no_program_is_refused(tmp_path: Path) -> None:
    blob = tmp_path / "bot"
    blob.write_text("place 1\n")
    blob.chmod(0o755)
    with pytest.raises(BotNotFoundError) as error:
        resolve_bot(str(blob))
    assert str(error.value) == (
        f"{blob}: executable, but not a program: an executable bot is a Linux (ELF) binary "
        "or a script whose first line is #! and its interpreter"
    )
    blob.write_text("#!/usr/bin/python3\n")
    assert resolve_bot(str(blob)).executable == "bot"


def test_a_folder_needs_exactly_one_main_file(make_bot: MakeBot) -> None:  # noqa: F811
    none = files(make_bot, **{"bot.c": "int main(void) { return 0; }\n"})
    with pytest.raises(BotNotFoundError) as error:
        resolve_bot(str(none))
    assert str(error.value) == (
        f"{none}: no main file at the top of the bot: put one of main.py, main.js, main.c, "
        "main.cpp, main.java, main.rs, main.go there"
    )
    # build() itself, as the platform calls it with the runtime it stored.
    result = build(none, RUNTIMES["c"], trusted=False)
    assert not result.ok and result.output == (
        "no main.c at the top of the bot: a C (gcc 12, C17) bot starts there (rename your "
        "main file, or upload a zip with main.c at its top)"
    )
    two = files(make_bot, **{"main.c": "", "main.go": ""})
    with pytest.raises(BotNotFoundError) as error:
        resolve_bot(str(two))
    assert str(error.value) == (
        f"{two}: the bot has main.c and main.go at its top: keep one main file, or name the runtime"
    )


def test_a_missing_toolchain_names_its_packages_and_the_install_script(
    make_bot: MakeBot,  # noqa: F811
) -> None:
    absent = replace(RUNTIMES["c"], toolchain=("/opt/no-such-gcc/bin/gcc",))
    with pytest.raises(ToolchainMissingError) as error:
        build(tiny_bot(make_bot, "c"), absent, trusted=False)
    assert str(error.value) == (
        "the C (gcc 12, C17) toolchain is not installed on this machine "
        "(/opt/no-such-gcc/bin/gcc is missing): as root, run scripts/install_system.sh "
        "(Debian packages: gcc, libc6-dev)"
    )


@pytest.mark.parametrize(
    ("runtime_id", "source", "report"),
    [
        (
            "c",
            "int main(void) {\n    return 0\n}\n",
            "the build failed: gcc exited with status 1:\n/bot/main.c: In function 'main':\n"
            "/bot/main.c:2:13: error: expected ';' before '}' token",
        ),
        (
            "cpp",
            "int main() { undeclared(); }\n",
            "the build failed: g++ exited with status 1:\n"
            "/bot/main.cpp: In function 'int main()':\n"
            "/bot/main.cpp:1:14: error: 'undeclared' was not declared in this scope",
        ),
        (
            "java",
            'class Main { void f() { int x = "s"; } }\n',
            "the build failed: javac exited with status 1:\n"
            "/bot/main.java:1: error: incompatible types: String cannot be converted to int",
        ),
        (
            "java",
            "public class Main { public static void main(String[] a) {} }\n",
            "the build failed: javac exited with status 1:\n/bot/main.java:1: error: class Main "
            "is public, should be declared in a file named Main.java",
        ),
        (
            "rust",
            'fn main() { let x: i32 = "s"; }\n',
            "the build failed: rustc exited with status 1:\n"
            "error[E0308]: mismatched types\n --> /bot/main.rs:1:26",
        ),
        (
            "go",
            "package main\n\nfunc main() { x := 1 }\n",
            "the build failed: go exited with status 2:\n# command-line-arguments\n"
            "./main.go:3:15: x declared but not used",
        ),
        (
            "python",
            "def f(:\n    pass\n",
            "main.py, line 1: invalid syntax",  # a checker's own list: no prefix
        ),
        (
            "js",
            "let x = ;\n",
            "/bot/main.js:1\nlet x = ;\n        ^\n\nSyntaxError: Unexpected token ';'",
        ),
    ],
    ids=["c", "cpp", "java", "java-public-main", "rust", "go", "python", "js"],
)
def test_a_compile_error_reports_the_compiler_s_message(
    make_bot: MakeBot,  # noqa: F811
    runtime_id: str,
    source: str,
    report: str,
) -> None:
    runtime = RUNTIMES[runtime_id]
    result = build(files(make_bot, **{runtime.main: source}), runtime, trusted=False)
    assert not result.ok and result.program == b""
    assert result.output.startswith(report), result.output
    assert result.describe() == result.output
    if runtime_id == "java" and "public" in source:
        assert result.output.endswith(
            "\nA bot's main file is main.java: write `class Main`, not `public class Main`."
        )


def test_a_java_bot_without_class_main_crashes_with_the_jvm_s_message(
    make_bot: MakeBot,  # noqa: F811
) -> None:
    folder = files(
        make_bot, **{"main.java": "class Bot { public static void main(String[] a) {} }\n"}
    )
    record, _ = play_one(folder)
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.CRASHED, fault
    assert fault.message == "the process exited with status 1" and fault.exit_code == 1
    assert fault.request is None  # during start-up
    assert fault.stderr_tail.startswith("Error: Could not find or load main class Main\n")


def test_a_program_that_exits_at_once_is_a_fault_of_its_seat(make_bot: MakeBot) -> None:  # noqa: F811
    record, _ = play_one(files(make_bot, **{"main.c": "int main(void) { return 0; }\n"}))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.EXITED, fault
    assert fault.message == "the process exited (status 0) in the middle of the game"
    assert fault.request is None and fault.exit_code == 0
    record, _ = play_one(files(make_bot, **{"main.c": "int main(void) { return 3; }\n"}))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.CRASHED, fault
    assert fault.message == "the process exited with status 3"
    assert record.result[0]["forfeited"] and record.result[1]["rank"] == 1


# ------------------------------------------------------------------ compile bombs


def out_of_memory(tool: str, limits: SandboxLimits = SMALL) -> str:
    return (
        f"the build ran out of memory (limit {limits.memory_bytes // MiB} MiB) and "
        f"{SIMPLIFY} {tool} work so hard"
    )


def test_include_dev_zero_stops_at_the_default_memory_limit(make_bot: MakeBot) -> None:  # noqa: F811
    folder = files(make_bot, **{"main.c": '#include "/dev/zero"\nint main(void) { return 0; }\n'})
    before = max_rss_kib()
    result = build(folder, RUNTIMES["c"], trusted=False)  # BUILD_LIMITS, BUILD_SECONDS
    assert_bomb_stopped(result, out_of_memory("gcc", BUILD_LIMITS), folder, max_rss_kib() - before)


@pytest.mark.parametrize("path", ["/dev/stdin", "/proc/self/fd/0"])
def test_include_stdin_reads_nothing_and_never_waits(make_bot: MakeBot, path: str) -> None:  # noqa: F811
    # The compiler's stdin is /dev/null: the include is empty, the build goes on.
    folder = files(make_bot, **{"main.c": f'#include "{path}"\nint main(void) {{ return 0; }}\n'})
    result = build(folder, RUNTIMES["c"], trusted=False, seconds=10)
    assert result.ok and result.output == "", result.output


#: The start of the report of a build stopped for waiting on input that never comes.
IDLE = f"the build was stopped after {BUILD_IDLE_SECONDS:g} s without working: "


@pytest.mark.parametrize(
    ("runtime_id", "include", "path"),
    [
        ("c", '#include "/proc/self/fd/1"', "/proc/self/fd/1"),
        ("c", '#include "/proc/self/fd/2"', "/proc/self/fd/2"),
        ("c", '#include "/dev/stdout"', "/dev/stdout"),
        ("cpp", '#include "/proc/self/fd/1"', "/proc/self/fd/1"),
        # The pipes of the sandbox's other processes (bubblewrap, the build's helper).
        ("c", '#include "/proc/1/fd/1"', "/proc/1/fd/1"),
        ("c", '#include "/proc/2/fd/1"', "/proc/2/fd/1"),
    ],
    ids=["c-fd1", "c-fd2", "c-dev-stdout", "cpp-fd1", "c-sandbox-stdout", "c-helper-stdout"],
)
def test_include_of_the_compiler_s_own_output_is_refused_at_once(
    make_bot: MakeBot,  # noqa: F811
    runtime_id: str,
    include: str,
    path: str,
) -> None:
    # The 52-byte upload that held a worker for the whole build limit: the compiler's
    # output was a pipe it then read, waiting on itself. Now a file it may not open.
    runtime = RUNTIMES[runtime_id]
    folder = files(make_bot, **{runtime.main: f"{include}\nint main(void) {{ return 0; }}\n"})
    result = build(folder, runtime, trusted=False)
    tool = "gcc" if runtime_id == "c" else "g++"
    assert not result.ok
    assert result.output.startswith(f"the build failed: {tool} exited with status 1:"), (
        result.output
    )
    assert f"fatal error: {path}: Permission denied" in result.output
    assert "took more than" not in result.output and IDLE not in result.output
    assert processes_with(str(folder)) == []


@pytest.mark.parametrize(
    ("runtime_id", "source", "tool"),
    [
        # A new pseudo-terminal: nothing ever types into it.
        ("c", '#include "/dev/ptmx"\nint main(void) { return 0; }\n', "gcc"),
        ("cpp", '#include "/dev/ptmx"\nint main() { return 0; }\n', "g++"),
        ("rust", 'const X: &str = include_str!("/dev/ptmx");\nfn main() {}\n', "rustc"),
    ],
    ids=["c-ptmx", "cpp-ptmx", "rust-ptmx"],
)
def test_a_build_waiting_for_input_that_never_comes_is_stopped_as_such(
    make_bot: MakeBot,  # noqa: F811
    runtime_id: str,
    source: str,
    tool: str,
) -> None:
    runtime = RUNTIMES[runtime_id]
    folder = files(make_bot, **{runtime.main: source})
    result = build(folder, runtime, trusted=False)  # BUILD_SECONDS: not what stops it
    assert not result.ok and result.program == b""
    assert result.output == (
        f"{IDLE}{tool} waited for input that never comes (a build reads only the bot's own "
        "files, never a device, a pipe or /proc: see what the code includes or embeds)"
    ), result.output
    assert processes_with(str(folder)) == []


def test_a_busy_build_is_never_taken_for_an_idle_one(make_bot: MakeBot) -> None:  # noqa: F811
    # Past the idle time, working all along: it ends at its time limit, not as idle.
    source = (
        "#if __INCLUDE_LEVEL__ < 40\n#include __FILE__\n#include __FILE__\n#endif\n"
        "#if __INCLUDE_LEVEL__ == 0\nint main(void) { return 0; }\n#endif\n"
    )
    folder = files(make_bot, **{"main.c": source})
    result = build(folder, RUNTIMES["c"], trusted=False, seconds=BUILD_IDLE_SECONDS + 3)
    assert not result.ok
    assert result.output.startswith("the build took more than"), result.output


@pytest.mark.parametrize(
    ("runtime_id", "source", "tool"),
    [
        # 1.3 KB: each macro twice the one before, 2^40 tokens.
        (
            "c",
            "#define A0 x+x\n"
            + "".join(f"#define A{i} A{i - 1}+A{i - 1}\n" for i in range(1, 40))
            + "int x;\nint f(void) { return A39; }\nint main(void) { return 0; }\n",
            "gcc",
        ),
        # /dev/urandom never ends.
        ("c", '#include "/dev/urandom"\nint main(void) { return 0; }\n', "gcc"),
        # 2^40 distinct instantiations.
        (
            "cpp",
            "template <int N, long M> struct T {\n"
            "    static const long v = T<N - 1, 2 * M>::v + T<N - 1, 2 * M + 1>::v;\n};\n"
            "template <long M> struct T<0, M> { static const long v = M; };\n"
            "int main() { return T<40, 0>::v & 1; }\n",
            "g++",
        ),
        # A macro that doubles its tokens at each step, long before the recursion limit.
        (
            "rust",
            "macro_rules! x { (@ $($t:tt)*) => { x!(@ $($t)* $($t)*) }; }\n"
            "fn main() { x!(@ a); }\n",
            "rustc",
        ),
        # Constant strings doubling: s39 is 8 TiB, computed by the type checker.
        (
            "go",
            'package main\n\nconst s0 = "xxxxxxxxxxxxxxxx"\n'
            + "".join(f"const s{i} = s{i - 1} + s{i - 1}\n" for i in range(1, 40))
            + "\nfunc main() { println(len(s39)) }\n",
            "go",
        ),
        # 2 MB of additions (ported from test_source_check).
        ("python", "x = " + "1+" * 1_000_000 + "1\n", "python3"),
        # 100,000 definitions (ported from test_source_check).
        (
            "python",
            "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(100_000)),
            "python3",
        ),
    ],
    ids=["c-macros", "c-urandom", "cpp-templates", "rust-macro", "go-const", "py-expr", "py-defs"],
)
def test_a_compile_bomb_runs_out_of_memory(
    make_bot: MakeBot,  # noqa: F811
    runtime_id: str,
    source: str,
    tool: str,
) -> None:
    runtime = RUNTIMES[runtime_id]
    folder = files(make_bot, **{runtime.main: source})
    before = max_rss_kib()
    result = build(folder, runtime, trusted=False, limits=SMALL, seconds=30)
    assert_bomb_stopped(result, out_of_memory(tool), folder, max_rss_kib() - before)


def test_a_huge_c_source_runs_out_of_memory(make_bot: MakeBot) -> None:  # noqa: F811
    folder = make_bot()
    with (folder / "main.c").open("w") as handle:  # 20 MB, written in pieces
        handle.write("unsigned char data[] = {\n")
        for _ in range(10):
            handle.write("0," * 1_000_000 + "\n")
        handle.write("};\nint main(void) { return data[5]; }\n")
    (folder / "main.c").chmod(0o644)
    before = max_rss_kib()
    result = build(folder, RUNTIMES["c"], trusted=False, limits=SMALL, seconds=30)
    assert_bomb_stopped(result, out_of_memory("gcc"), folder, max_rss_kib() - before)


def test_a_build_past_its_time_is_stopped(make_bot: MakeBot) -> None:  # noqa: F811
    # The file includes itself twice, 40 deep: 2^40 includes, one at a time, in little memory.
    source = (
        "#if __INCLUDE_LEVEL__ < 40\n#include __FILE__\n#include __FILE__\n#endif\n"
        "#if __INCLUDE_LEVEL__ == 0\nint main(void) { return 0; }\n#endif\n"
    )
    folder = files(make_bot, **{"main.c": source})
    result = build(folder, RUNTIMES["c"], trusted=False, seconds=2)
    assert_bomb_stopped(
        result,
        f"the build took more than 2 s and {SIMPLIFY} gcc work so hard (huge literals, deep "
        "templates or nesting, generated code)",
        folder,
        0,
    )


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("(" * 20_000 + "1" + ")" * 20_000, "at jdk.compiler/com.sun.tools.javac.parser"),
        ("1+" * 100_000 + "1", "at jdk.compiler/com.sun.tools.javac."),
    ],
    ids=["parentheses", "additions"],
)
def test_a_deeply_nested_java_expression_is_javac_s_clear_error(
    make_bot: MakeBot,  # noqa: F811
    source: str,
    words: str,
) -> None:
    code = f"class Main {{ public static void main(String[] a) {{ int x = {source}; }} }}\n"
    result = build(files(make_bot, **{"main.java": code}), RUNTIMES["java"], trusted=False)
    assert not result.ok
    assert result.output.startswith(
        "the build failed: javac exited with status 3:\n\n\nThe system is out of resources.\n"
        "Consult the following stack trace for details.\njava.lang.StackOverflowError\n"
    ), result.output
    assert words in result.output


EVIL_PROCESSOR = """\
import java.util.Set;
import javax.annotation.processing.*;
import javax.lang.model.element.TypeElement;

@SupportedAnnotationTypes("*")
public class Evil extends AbstractProcessor {
    @Override
    public synchronized void init(ProcessingEnvironment env) {
        throw new RuntimeException("an uploaded annotation processor ran in javac");
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        return false;
    }
}
"""


def test_javac_runs_no_annotation_processor_of_the_upload(
    make_bot: MakeBot,  # noqa: F811
    tmp_path: Path,
) -> None:
    # javac's processor path is its class path, the upload (/bot): a compiled processor
    # named in META-INF/services would run inside the compiler.
    runtime = RUNTIMES["java"]
    folder = files(
        make_bot, **{"main.java": "class Main { public static void main(String[] a) {} }\n"}
    )
    (tmp_path / "Evil.java").write_text(EVIL_PROCESSOR)
    subprocess.run(["javac", "-d", str(folder), str(tmp_path / "Evil.java")], check=True)
    services = folder / "META-INF" / "services"
    services.mkdir(parents=True)
    (services / "javax.annotation.processing.Processor").write_text("Evil\n")
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert "-proc:none" in runtime.command(Stage.BUILD, sources=["main.java"])

    result = build(folder, runtime, trusted=False)
    assert result.ok, result.output
    assert "annotation processor" not in result.output
    # The flag is what keeps it out: without it, the same upload runs its processor.
    processing = replace(
        runtime, build_command=tuple(w for w in runtime.build_command if w != "-proc:none")
    )
    ran = build(folder, processing, trusted=False)
    assert not ran.ok and "an uploaded annotation processor ran in javac" in ran.output


def test_a_python_file_the_compiler_gives_up_on(make_bot: MakeBot) -> None:  # noqa: F811
    # Ported from test_source_check: 0.2 MB of unary minus.
    folder = files(make_bot, **{"main.py": "-" * 200_000 + "1\n"})
    result = build(folder, RUNTIMES["python"], trusted=False)
    assert not result.ok
    assert result.output == "main.py: MemoryError (the compiler gave up on this file)"


def test_a_python_check_past_its_time_is_stopped(make_bot: MakeBot) -> None:  # noqa: F811
    source = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(20_000))
    result = build(
        files(make_bot, **{"main.py": source}), RUNTIMES["python"], trusted=False, seconds=0.05
    )
    assert not result.ok and result.output == (
        f"the build took more than 0.05 s and {SIMPLIFY} python3 work so hard (huge literals, "
        "deep templates or nesting, generated code)"
    )


def test_the_worker_builds_on_after_the_bombs(make_bot: MakeBot) -> None:  # noqa: F811
    result = build(tiny_bot(make_bot, "c"), RUNTIMES["c"], trusted=False)
    assert result.ok, result.output


# ------------------------------------------------------------------ the CLI


def test_cli_validate_and_play_c_java_and_go_bots(make_bot: MakeBot) -> None:  # noqa: F811
    c_file = TINY_BOTS / "c" / "main.c"
    validated = cli("validate", str(c_file), "--players", "2")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.startswith("ok: c completed the handshake in ")
    java = cli("validate", str(TINY_BOTS / "java"), "--players", "2", "--json")
    assert java.returncode == 0, java.stdout + java.stderr
    assert json.loads(java.stdout)["ok"] is True
    played = cli(
        "play", str(TINY_BOTS / "go" / "main.go"), str(TINY_BOTS / "java"), str(TINY_BOTS / "c"),
        "--rules", "classic", "--players", "3", "--games", "3", "--json",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    games = json.loads(played.stdout)["games"]
    assert len(games) == 3 and games[0]["players"] == ["go", "java", "c"]
    assert not any(seat["forfeited"] for game in games for seat in game["seats"])


def test_cli_validate_of_a_bot_that_does_not_build_exits_1(make_bot: MakeBot) -> None:  # noqa: F811
    folder = files(make_bot, **{"main.c": "int main(void) {\n    return 0\n}\n"})
    run = cli("validate", str(folder))
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith(
        f"FAILED: {folder.name} (C (gcc 12, C17)) does not build:\n"
        "the build failed: gcc exited with status 1:\n/bot/main.c: In function 'main':\n"
        "/bot/main.c:2:13: error: expected ';' before '}' token\n"
    ), run.stdout
    as_json = cli("validate", str(folder), "--json")
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and report["ok"] is False and report["bot"] == folder.name
    assert "/bot/main.c:2:13: error: expected ';' before '}' token" in report["build"]
    unknown = cli("validate", str(folder / "nothing.pl"))
    assert unknown.returncode == 2 and "no such file or folder" in unknown.stderr


def test_the_install_script_installs_every_runtime_s_toolchain() -> None:
    """scripts/install_system.sh checks each runtime by its toolchain and names its packages."""
    script = (Path(__file__).resolve().parents[2] / "scripts" / "install_system.sh").read_text()
    for runtime in RUNTIMES.values():
        assert any(path in script for path in runtime.toolchain), runtime.id
        for package in runtime.packages:
            word = rf"(?<![\w+.-]){re.escape(package)}(?![\w+.-])"
            assert re.search(word, script), (runtime.id, package)
