"""The starter kits: each built as the platform builds it, then played for real.

Every kit is compiled (or checked) with the platform's command, warnings
turned on, into a temporary folder, then plays full games through the
referee as a trusted process. Each kit's JSON handling is fed a nasty but
valid line directly, and ``new`` is run for every language.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

import pytest

from bots_sdk import cli
from bots_sdk.kits import KITS, KitError, kit_text, kit_zip, kit_zip_name, write_kit
from bots_sdk.launcher import BotSpec, house_bot
from bots_sdk.referee import GameRecord, play_series
from vegas_engine import describe
from vegas_engine.log import loads
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow

LANGS = list(KITS)
COMPILED = ["c", "cpp", "java", "rust", "go"]
#: The kits that pick uniformly with splitmix64: equal seeds, equal choices, in
#: every one of these languages.
SPLITMIX_KITS = ["js", *COMPILED]
KEY = bytes(range(32))
GO_ENV = {"CGO_ENABLED": "0", "GOCACHE": "/tmp/go-cache", "GOPATH": "/tmp/go", "HOME": "/tmp"}

#: Each language's tool, for a clear skip where it is not installed.
TOOLS = {
    "python": "/usr/bin/python3",
    "js": "/usr/bin/node",
    "c": "/usr/bin/gcc",
    "cpp": "/usr/bin/g++",
    "java": "/usr/bin/javac",
    "rust": "/usr/bin/rustc",
    "go": "/usr/bin/go",
}


def run_tool(command: list[str], env: dict[str, str] | None = None) -> None:
    """Run a build command; it must succeed and print nothing (no warnings)."""
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PATH": "/usr/bin:/bin", **(env or {})},
    )
    assert done.returncode == 0 and not (done.stdout + done.stderr).strip(), (
        f"{' '.join(command)}:\n{done.stdout}{done.stderr}"
    )


def build(lang: str, src: Path, out: Path) -> BotSpec:
    """Build the kit in ``src`` into ``out`` with the platform's command (plus
    warnings), and the spec that runs the result as a trusted process."""
    if not Path(TOOLS[lang]).exists():
        pytest.skip(f"{TOOLS[lang]} is not installed (scripts/install_system.sh)")
    out.mkdir(parents=True, exist_ok=True)
    main = src / KITS[lang].main
    name = f"kit-{lang}"
    if lang == "python":
        return BotSpec(name=name, bot_dir=src, main=main.name, trusted=True)
    if lang == "c":
        run_tool(
            ["gcc", "-std=c17", "-O2", "-Wall", "-Wextra", "-o", f"{out}/bot", str(main), "-lm"]
        )
    elif lang == "cpp":
        run_tool(["g++", "-std=c++20", "-O2", "-Wall", "-Wextra", "-o", f"{out}/bot", str(main)])
    elif lang == "rust":
        run_tool(
            ["/usr/bin/rustc", "--edition", "2021", "-C", "opt-level=2", "-C", "strip=symbols",
             "-D", "warnings", "-o", f"{out}/bot", str(main)]
        )  # fmt: skip
    elif lang == "go":
        run_tool(["/usr/bin/go", "vet", str(main)], GO_ENV)
        run_tool(["/usr/bin/go", "build", "-o", f"{out}/bot", str(main)], GO_ENV)
        return BotSpec(
            name=name, bot_dir=out, main=None, executable="bot", trusted=True,
            env={"GOMAXPROCS": "1"},
        )  # fmt: skip
    elif lang == "java":
        run_tool(
            ["javac", "-Xlint:all", "-Werror", "-encoding", "UTF-8", "-d", str(out), str(main)]
        )
        return wrapped(
            name, out,
            ["/usr/bin/java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:MaxRAM=256m",
             "-cp", f"{out}:{src}", "Main"],
        )  # fmt: skip
    elif lang == "js":
        run_tool(["/usr/bin/node", "--check", str(main)])
        return wrapped(name, out, ["/usr/bin/node", str(main)])
    return BotSpec(name=name, bot_dir=out, main=None, executable="bot", trusted=True)


def wrapped(name: str, out: Path, command: list[str]) -> BotSpec:
    """A bot run by an interpreter: a shell script that execs it is the executable."""
    script = out / "run.sh"
    script.write_text("#!/bin/sh\nexec " + " ".join(command) + "\n")
    script.chmod(0o755)
    return BotSpec(name=name, bot_dir=out, main=None, executable="run.sh", trusted=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], BotSpec]:
    """The kits, each built once for the module, on demand."""
    specs: dict[str, BotSpec] = {}

    def get(lang: str) -> BotSpec:
        if lang not in specs:
            specs[lang] = build(lang, KITS[lang].folder, tmp_path_factory.mktemp(lang))
        return specs[lang]

    return get


def command(spec: BotSpec) -> tuple[list[str], dict[str, str]]:
    """How to run a built kit by hand: its command line and environment."""
    if spec.main is not None:  # the SDK is importable from the running interpreter
        return [sys.executable, str(spec.bot_dir / spec.main)], {}
    return [str(spec.bot_dir / str(spec.executable))], dict(spec.env)


def kit_seat(record: GameRecord) -> int:
    """The seat player 0 (the kit) had in this game."""
    return next(seat.seat for seat in record.seats if seat.player == 0)


#: The note each kit sends with every answer (the Python kit's says more).
KIT_NOTE = re.compile(r"\d+ legal actions(, best top note \$[\d,]+)?")


def assert_played_cleanly(records: list[GameRecord]) -> None:
    for record in records:
        assert not record.faults, [fault.describe() for fault in record.faults]
        seat = record.log["referee"]["seats"][kit_seat(record)]
        assert seat["decisions"] > 0 and not seat["forfeited"]
        replay(loads(json.dumps(record.log)))  # the log replays: every action was legal
        # Every answer carried the kit's note, which the trace keeps at its move.
        assert len(seat["trace"]) == seat["decisions"]
        for entry in seat["trace"]:
            assert KIT_NOTE.fullmatch(entry["note"]), entry
            assert record.moves_log["moves"][entry["move"]][0] == seat["seat"]


# ------------------------------------------------------------------ games


@pytest.mark.parametrize("lang", LANGS)
def test_kit_plays_full_classic_games(lang: str, built: Callable[[str], BotSpec]) -> None:
    spec = built(lang)
    two = play_series(
        [spec, house_bot("greedy")],
        [(describe("classic", 2), seed) for seed in (11, 12)],
        bot_seed_key=KEY,
    )
    four = play_series(
        [spec, house_bot("greedy"), house_bot("random"), house_bot("gambler")],
        [(describe("classic", 4), 13)],
        bot_seed_key=KEY,
    )
    assert_played_cleanly(two + four)
    # One process played both two-seat games, from both seats.
    assert [kit_seat(record) for record in two] == [0, 1]
    assert two[1].log["referee"]["seats"][1]["startup_ms"] is None


@pytest.mark.parametrize("lang", LANGS)
def test_kit_plays_every_rule_system(lang: str, built: Callable[[str], BotSpec]) -> None:
    spec = built(lang)
    games = [
        (describe("boulevard", 3), 21),
        (describe("cardgame", 3), 22),
        (describe("royale", 3), 23),
        (describe("sixdice", 3), 24),
    ]
    records = play_series([spec, house_bot("random"), house_bot("greedy")], games)
    assert_played_cleanly(records)
    assert [record.description.rules for record in records] == [
        "boulevard", "cardgame", "royale", "sixdice",
    ]  # fmt: skip


def events(spec: BotSpec, seats: int = 2) -> list[object]:
    others = [house_bot("random")] * (seats - 1)
    games = [(describe("boulevard", seats), 31), (describe("classic", seats), 32)]
    return [
        record.log["events"] for record in play_series([spec, *others], games, bot_seed_key=KEY)
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_the_same_bot_seed_gives_the_same_choices(
    lang: str, built: Callable[[str], BotSpec]
) -> None:
    spec = built(lang)
    first = events(spec)
    assert events(spec) == first
    other = play_series(
        [spec, house_bot("random")],
        [(describe("boulevard", 2), 31), (describe("classic", 2), 32)],
        bot_seed_key=bytes(32),
    )
    assert [record.log["events"] for record in other] != first  # another key, other choices


def test_the_splitmix_kits_choose_alike_in_every_language(
    built: Callable[[str], BotSpec],
) -> None:
    """One generator, one rule (index = next % count): equal seeds, equal games."""
    games = {lang: events(built(lang), seats=3) for lang in SPLITMIX_KITS}
    assert all(played == games["c"] for played in games.values())


# ------------------------------------------------------------------ JSON


def splitmix64(seed: int) -> int:
    """The first output of splitmix64 seeded with ``seed``, as the kits compute it."""
    mask = 2**64 - 1
    z = (seed + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


LEGAL = [
    'place "1"',
    "kick \u00e9\U0001f600 \\ / \b\f\n\r\t \x00 \x1f \u2028 x",
    "slot 6",
]
SEED = 2**63 - 25  # beyond 2^53: a double would round it

# Valid JSON every receiver must take: whitespace everywhere, escapes of every
# kind (a surrogate pair, a lone surrogate in a field no one reads), numbers
# with exponents and beyond 64 bits, unknown nested fields, a nested "type"
# before the real one, keys with escapes, a long unknown field, CRLF.
NASTY = (
    ' \t{ "unknown" : {"type" : "shutdown", "a": [ {"b": [[], {}, [[[]]]]}, null, true, false ] },'
    ' "n\\"ame\\u00e9" : [1e5, -0.0, 1E-7, -12.5e+3, 123456789012345678901234567890, 0],'
    ' "lone" : "\\udc00\\ud800x", "pad": "' + "x" * 200_000 + '",'
    ' "type"\r: "request", "id"  :\t7, "game_id": 1, "time_left_ms": 1000, "bank_left_ms": 1e3,'
    ' "observation": { "rules": "classic", "extra": {"legal_actions": []},'
    ' "legal_actions" : ' + json.dumps(LEGAL, ensure_ascii=False) + ', "seat": 1, "seats": 2 } }  '
)
ESCAPED_ALL = json.dumps(LEGAL)  # \\u escapes only, a surrogate pair among them


def lines_for(request: str) -> str:
    return "\n".join(
        [
            '{"type":"hello","protocol":1,"limits":{"startup_ms":5000,"decision_ms":1000,'
            '"bank_ms":20000,"max_line_bytes":16384,"max_output_bytes":1048576,'
            '"memory_bytes":268435456,"cpu_cores":1.0},"future":{"x":[1.5e300]}}',
            "this line is not JSON",
            "",
            '{"type":"a_type_from_the_future","id":99}',
            '{"type":"new_game","game_id":1,"seat":1,"bank_ms":20000,'
            f'"bot_seed":{SEED},"game":{{"rules":"classic","options":{{"neutral_dice":false}},'
            '"seats":2},"later":null}',
            request,
            request.replace('"id"  :\t7', '"id":8').replace(
                json.dumps(LEGAL, ensure_ascii=False), ESCAPED_ALL
            ),
            '{"type":"game_over","game_id":1,"seat":1,"result":[]}\r',
            '{"type":"shutdown"}',
            '{"type":"request","id":9}',  # after shutdown: never read
        ]
    )


@pytest.mark.parametrize("lang", SPLITMIX_KITS)
def test_kit_reads_nasty_json_and_writes_escaped_actions(
    lang: str, built: Callable[[str], BotSpec]
) -> None:
    argv, env = command(built(lang))
    done = subprocess.run(
        argv,
        input=lines_for(NASTY).encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    assert out.endswith("\n")
    # Split at "\n" only, as the referee does: a raw U+2028 is inside a line.
    replies = [json.loads(line) for line in out[:-1].split("\n")]
    assert replies[0] == {"type": "ready", "protocol": 1, "name": f"starter-{lang}"}
    # The generator seeded from the full 63-bit seed: the first two draws.
    state, picks = SEED, []
    for _ in range(2):
        picks.append(LEGAL[splitmix64(state) % len(LEGAL)])
        state = (state + 0x9E3779B97F4A7C15) % 2**64
    note = f"{len(LEGAL)} legal actions"  # each kit's example note
    assert replies[1:] == [
        {"type": "action", "id": 7, "action": picks[0], "note": note},
        {"type": "action", "id": 8, "action": picks[1], "note": note},
    ]
    assert "not JSON" in done.stderr.decode()  # the bad line is logged, then ignored


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**53 + 1, 2**63 - 1])
@pytest.mark.parametrize("lang", SPLITMIX_KITS)
def test_the_generator_takes_the_whole_seed(
    lang: str, seed: int, built: Callable[[str], BotSpec]
) -> None:
    """The first pick is splitmix64's first output modulo the count, whatever the seed."""
    argv, env = command(built(lang))
    request = NASTY.replace('"pad": "' + "x" * 200_000 + '"', '"pad": ""')
    text = lines_for(request).replace(f'"bot_seed":{SEED}', f'"bot_seed":{seed}')
    done = subprocess.run(
        argv, input=text.encode(), capture_output=True, timeout=60, check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    replies = done.stdout.decode()[:-1].split("\n")
    actions = [json.loads(line)["action"] for line in replies[1:]]
    assert actions[0] == LEGAL[splitmix64(seed) % len(LEGAL)]


def test_kits_exit_at_end_of_input_without_shutdown(built: Callable[[str], BotSpec]) -> None:
    for lang in LANGS:
        argv, env = command(built(lang))
        done = subprocess.run(
            argv,
            input=b'{"type":"hello","protocol":1,"limits":{}}\n',
            capture_output=True,
            timeout=60,
            check=False,
            env={"PATH": "/usr/bin:/bin", **env},
        )
        assert done.returncode == 0, (lang, done.stderr.decode())
        assert json.loads(done.stdout)["type"] == "ready", lang


# ------------------------------------------------------------------ new, zips


@pytest.mark.parametrize("lang", LANGS)
def test_new_copies_the_kit_with_the_bots_name(
    lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "lucky_seven"
    assert cli.main(["new", str(folder), "--lang", lang]) == 0
    main = folder / KITS[lang].main
    assert f"created {main}" in capsys.readouterr().out
    assert sorted(path.name for path in folder.iterdir()) == sorted(["README.md", main.name])
    text = main.read_text()
    assert "starter-" not in text and '"lucky_seven"' in text
    assert f"python -m bots_sdk play {folder}" in (folder / "README.md").read_text()
    if lang == "python":
        assert "class LuckySeven(Bot)" in text and "run(LuckySeven)" in text

    # Never over an existing folder, even an empty one.
    assert cli.main(["new", str(folder), "--lang", lang]) == 2
    assert "exists already" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert cli.main(["new", str(tmp_path / "empty"), "--lang", lang]) == 2
    assert not any((tmp_path / "empty").iterdir())


def test_new_defaults_to_python_and_refuses_unknown_languages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["new", str(tmp_path / "mine")]) == 0
    assert (tmp_path / "mine" / "main.py").is_file()
    assert cli.main(["new", str(tmp_path / "other"), "--lang", "cobol"]) == 2
    error = capsys.readouterr().err
    assert "no starter kit for 'cobol'" in error
    assert "python, js, c, cpp, java, rust, go" in error
    assert not (tmp_path / "other").exists()
    with pytest.raises(KitError, match="choose one of"):
        write_kit("x", "Python", tmp_path / "x")


def test_odd_names_stay_inside_string_literals(
    tmp_path: Path, built: Callable[[str], BotSpec]
) -> None:
    folder = tmp_path / "we\"ird\\na'me $(x)"
    write_kit(folder.name, "c", folder)
    text = (folder / "main.c").read_text()
    assert 'BOT_NAME = "we-ird-na-me --x-";' in text
    spec = build("c", folder, tmp_path / "out")
    (record,) = play_series([spec, house_bot("random")], [(describe("classic", 2), 3)])
    assert not record.faults
    write_kit("class", "python", tmp_path / "class")
    assert "class Class(Bot)" in (tmp_path / "class" / "main.py").read_text()
    write_kit("9 lives", "python", tmp_path / "nine")
    assert "class MyBot(Bot)" in (tmp_path / "nine" / "main.py").read_text()


@pytest.mark.parametrize("lang", LANGS)
def test_kit_zip_holds_the_kit_at_its_top(lang: str) -> None:
    data = kit_zip(lang)
    assert kit_zip(lang) == data  # fixed dates: equal kits, equal bytes
    assert kit_zip_name(lang) == f"vegas-kit-{lang}.zip"
    with zipfile.ZipFile(BytesIO(data)) as archive:
        assert sorted(archive.namelist()) == sorted(["README.md", KITS[lang].main])
        main = archive.read(KITS[lang].main).decode()
    assert main == kit_text(lang, KITS[lang].main)
    assert f"starter-{lang}" in main


def test_every_kit_points_to_the_docs_and_marks_its_choose_function() -> None:
    for lang, kit in KITS.items():
        text = kit_text(lang, kit.main)
        assert "docs/observation.md" in text and "docs/actions.md" in text, lang
        assert "the one place to edit" in text, lang
        assert "time_left" in text.lower() or "timeleft" in text.lower(), lang
        assert len(text.splitlines()) < 400, lang
        readme = kit_text(lang, "README.md")
        assert "python -m bots_sdk validate ./mybot --rules classic" in readme, lang
        assert f"`{kit.main}` alone, or a zip with `{kit.main}` at its top" in readme, lang


def test_the_kit_folders_hold_only_the_kits() -> None:
    """The kits are package data, zipped as they are: nothing else may land there."""
    for kit in KITS.values():
        names = {path.name for path in kit.folder.iterdir()}
        assert names <= {"README.md", kit.main, "__pycache__"}, names
