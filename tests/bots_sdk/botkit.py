"""Helpers for the bots SDK tests: bot programs written to a folder, process scans."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from bots_sdk.launcher import BotSpec

#: A bot without the SDK: plain Python and JSON lines. ``MODE`` picks a fault,
#: made at request number ``AT`` (1-based, counted over the process's life).
RAW_BOT = """\
import json, os, signal, subprocess, sys, time

MODE = {mode!r}
AT = {at}
MARKER = {marker!r}


def send(message):
    os.write(1, (json.dumps(message) + "\\n").encode())


requests = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print("raw bot starting", MARKER, file=sys.stderr, flush=True)
        if MODE == "slow_start":
            time.sleep(30)
        if MODE == "bad_hello":
            os.write(1, b'{{"type": "ready", "protocol": 99}}\\n')
            continue
        send({{"type": "ready", "protocol": 1, "name": "raw-" + MODE}})
    elif kind == "request":
        requests += 1
        legal = message["observation"]["legal_actions"]
        reply = {{"type": "action", "id": message["id"], "action": legal[0]}}
        if MODE == "bank":
            time.sleep(0.15)
        if MODE == "flood" and requests >= AT:
            reply["pad"] = "y" * 3000  # unknown fields are allowed, but count as output
        if requests == AT:
            print("fault now:", MODE, MARKER, file=sys.stderr, flush=True)
            if MODE == "crash":
                os._exit(3)
            if MODE == "signal":
                os.kill(os.getpid(), signal.SIGSEGV)
            if MODE == "exit":
                sys.exit(0)
            if MODE == "timeout":
                time.sleep(30)
            if MODE == "garbage":
                os.write(1, b"i would like to place 3 please\\n")
                continue
            if MODE == "wrong_id":
                reply["id"] = message["id"] + 1
            if MODE == "illegal":
                reply["action"] = "place 9"
            if MODE in ("early", "early_flood"):
                # The reply and a guess at the next request in one write (so the
                # referee has both before it could send that request), then a flood.
                guess = json.dumps(dict(reply, id=message["id"] + 1))
                os.write(1, (json.dumps(reply) + "\\n" + guess + "\\n").encode())
                while MODE == "early_flood":  # blocks once the pipe is full
                    os.write(1, (guess + "\\n").encode())
                continue
            if MODE == "long_line":
                os.write(1, b"x" * 100_000)
                time.sleep(30)
            if MODE == "close_stdout":
                os.close(1)
                time.sleep(30)
            if MODE == "child_crash":
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", MARKER])
                time.sleep(0.2)
                os._exit(4)
        send(reply)
    elif kind == "game_over" and MODE == "stray":
        send({{"type": "action", "id": 0, "action": "good game"}})
    elif kind == "shutdown":
        break
"""


def raw_bot(folder: Path, mode: str = "ok", at: int = 3, name: str | None = None) -> BotSpec:
    """Write a raw (SDK-less) bot to ``folder``; its path is the process marker."""
    folder.mkdir(parents=True, exist_ok=True)
    main = f"bot_{name or mode}.py"
    marker = str(folder / main)
    (folder / main).write_text(RAW_BOT.format(mode=mode, at=at, marker=marker))
    return BotSpec(name=name or mode, bot_dir=folder, main=main, trusted=True)


def sdk_bot(folder: Path, source: str, name: str = "sdkbot") -> BotSpec:
    """Write an SDK bot's source (dedented) to ``folder/name.py``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(source))
    return BotSpec(name=name, bot_dir=folder, main=f"{name}.py", trusted=True)


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != b"Z":
            found.append(int(entry))
    return found


def gone(pid: int) -> bool:
    """True when ``pid`` no longer exists (reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
