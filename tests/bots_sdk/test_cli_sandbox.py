"""``python -m bots_sdk`` in the sandbox as a user that is not root, and bots in
folders the sandbox cannot read.

Run as root, the tests switch to a test user (made once, kept); run as another
user, they run as that user. They skip, saying why, where no such user can run
the SDK or the host lets no user make user namespaces. Every bot here is a real
file played in a real game through the command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bots_sdk import launcher
from bots_sdk.launcher import UnreadableBotError, readable_bot, resolve_bot, sandbox_problem
from bots_sdk.protocol import Limits
from bots_sdk.sandbox._cgroups import delegation_problem

ROOT = Path(__file__).resolve().parents[2]
TEST_USER = "vegas-sdk-user"
#: What the tasks of a sandbox without a cgroup may number: bubblewrap's monitor,
#: outside, is the one of the limit it does not hold.
SANDBOX_TASKS = launcher.sandbox_limits(Limits()).pids - 1


@dataclass(frozen=True)
class User:
    """Who runs the command line, and with which Python."""

    name: str
    uid: int
    gid: int
    python: str
    #: a user made for the tests: any process of it left behind is a leak
    dedicated: bool

    def run(self, *args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        """``python -m bots_sdk ARGS`` as this user; its whole session killed after."""
        return self.command([self.python, "-m", "bots_sdk", *args], cwd=cwd, timeout=timeout)

    def command(
        self, argv: list[str], *, cwd: Path, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
            "TMPDIR": "/tmp",
        }
        switch = os.geteuid() == 0  # else: already this user
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            user=self.uid if switch else None,
            group=self.gid if switch else None,
            extra_groups=[] if switch else None,
        )
        try:
            out, err = process.communicate(timeout=timeout)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def private_folder(self) -> Path:
        """A new folder of this user's only it can open (as ``mktemp -d`` makes)."""
        folder = Path(tempfile.mkdtemp(prefix="vegas-private-"))
        if os.geteuid() == 0:
            os.chown(folder, self.uid, self.gid)
        folder.chmod(0o700)
        return folder


def _test_user() -> User | str:
    """The user the tests run the command line as, or why there is none."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.getuid())
        return User(me.pw_name, me.pw_uid, me.pw_gid, sys.executable, dedicated=False)
    try:
        entry = pwd.getpwnam(TEST_USER)
    except KeyError:
        made = subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home",
             "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", TEST_USER],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if made.returncode != 0:
            return (
                f"cannot make the test user {TEST_USER}: {made.stderr.strip() or made.returncode}"
            )
        entry = pwd.getpwnam(TEST_USER)
    # The test's own Python may live where the user cannot go (a venv under /root):
    # the engine and the SDK need only the standard library of a Python 3.11 or later.
    for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        user = User(TEST_USER, entry.pw_uid, entry.pw_gid, python, dedicated=True)
        check = "import sys, bots_sdk; assert sys.version_info >= (3, 11)"
        with contextlib.suppress(OSError):  # not even executable by the user
            if user.command([python, "-c", check], cwd=Path("/"), timeout=60).returncode == 0:
                return user
    return f"{TEST_USER} cannot import bots_sdk from {ROOT} with a Python 3.11 it may run"


@pytest.fixture(scope="module")
def user() -> User:
    found = _test_user()
    if isinstance(found, str):
        pytest.skip(found)
    probe = "from bots_sdk import sandbox\nsandbox.allow_unprivileged()\nsandbox.check_host()\n"
    checked = found.command([found.python, "-c", probe], cwd=Path("/"), timeout=60)
    if checked.returncode != 0:
        pytest.skip(f"the sandbox cannot run as {found.name} here: {checked.stderr.strip()[-600:]}")
    return found


@pytest.fixture
def private(user: User) -> Iterator[Path]:
    folder = user.private_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def user_processes(user: User) -> list[str]:
    """The processes the dedicated test user has now (not zombies: ended, being reaped)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if not entry.isdigit() or os.stat(f"/proc/{entry}").st_uid != user.uid:
                continue
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            if stat.rsplit(b")", 1)[1].split()[0] != b"Z":
                found.append(stat[: stat.rfind(b")") + 1].decode(errors="replace"))
        except OSError:
            continue
    return found


def no_process_left(user: User) -> None:
    if user.dedicated:
        assert user_processes(user) == []


def bot_file(folder: Path, user: User, source: str) -> Path:
    bot = folder / "main.py"
    bot.write_text(source)
    if os.geteuid() == 0:
        os.chown(bot, user.uid, user.gid)
    return folder


def stderr_of(game: dict[str, object], seat: int) -> str:
    seats = game["seats"]
    assert isinstance(seats, list)
    return "".join(entry["stderr"] for entry in seats[seat]["trace"])


# ------------------------------------------------------------------ as a user


def test_a_game_tournament_and_validate_run_sandboxed_as_a_user(user: User, private: Path) -> None:
    made = user.run("new", str(private / "mybot"), cwd=private)
    assert made.returncode == 0, made.stderr
    played = user.run(
        "play", str(private / "mybot"), "greedy",
        "--rules", "classic", "--players", "2", "--seed", "5", "--json", cwd=private,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "Traceback" not in played.stderr
    (note,) = [line for line in played.stderr.splitlines() if line.startswith("note: ")]
    assert f"not root: the bots run sandboxed as {user.name}" in note
    assert "not enforced" in note or "delegated cgroup" in note
    if "not enforced" in note:
        assert "memory and CPU limits" in note and "run as root" in note
    (game,) = json.loads(played.stdout)["games"]
    assert game["players"] == ["mybot", "greedy"]
    assert not any(seat["forfeited"] for seat in game["seats"])

    table = user.run(
        "tournament", str(private / "mybot"), "greedy", "random",
        "--rules", "classic", "--players", "2", "--games", "1", "--seed", "5", "--json",
        cwd=private,
    )  # fmt: skip
    assert table.returncode == 0, table.stderr
    standings = json.loads(table.stdout)["standings"]
    assert {row["name"] for row in standings} == {"mybot", "greedy", "random"}
    assert all(row["forfeits"] == 0 for row in standings)

    validated = user.run("validate", str(private / "mybot"), cwd=private)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.startswith("ok: mybot")
    no_process_left(user)


PROBE_BOT = """\
import errno, os, socket
from bots_sdk import Bot, run


def attempt(what, action):
    try:
        action()
        result = "done"
    except OSError as error:
        result = errno.errorcode.get(error.errno, str(error.errno))
    print(f"probe {{what}}: {{result}}", flush=True)


def write(path):
    with open(path, "w") as handle:
        handle.write("escaped")


class Probe(Bot):
    done = False

    def act(self, observation):
        if not self.done:
            self.done = True
            attempt("tcp", lambda: socket.create_connection(("127.0.0.1", {port}), 1).close())
            attempt("inet", lambda: socket.socket(socket.AF_INET).close())
            attempt("write home", lambda: write({home!r} + "/escaped"))
            attempt("write bot", lambda: write("/bot/escaped"))
            print(f"probe root: {{sorted(os.listdir('/'))}}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Probe)
"""


def test_a_hostile_bot_gets_no_network_and_no_host_files(user: User, private: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        port = server.getsockname()[1]
        bot = bot_file(private, user, PROBE_BOT.format(port=port, home=str(private)))
        played = user.run(
            "play", str(bot), "random", "--rules", "classic", "--players", "2",
            "--seed", "3", "--json", "--debug", cwd=private,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing reached the host's loopback
    (game,) = json.loads(played.stdout)["games"]
    said = stderr_of(game, game["players"].index(bot.name))
    assert "probe tcp: EAFNOSUPPORT" in said and "probe inet: EAFNOSUPPORT" in said
    assert "probe write home: ENOENT" in said  # the host's folders are not there
    assert "probe write bot: EROFS" in said  # its own, read-only
    assert "probe root: ['bin', 'bot', 'dev', 'etc', 'lib', 'lib64', 'proc', 'tmp', 'usr']" in said
    assert not (private / "escaped").exists()
    no_process_left(user)


FORK_BOT = """\
import errno, os, time
from bots_sdk import Bot, run


class Forks(Bot):
    done = False

    def act(self, observation):
        if not self.done:
            self.done = True
            forks, error = 0, None
            while error is None and forks < 1000:
                try:
                    pid = os.fork()
                except OSError as failed:
                    error = errno.errorcode.get(failed.errno, str(failed.errno))
                    break
                if pid == 0:
                    os.closerange(0, 3)
                    time.sleep(600)  # left for the sandbox to end
                    os._exit(0)
                forks += 1
            seen = sum(name.isdigit() for name in os.listdir("/proc"))
            print(f"forks {forks} then {error}, {seen} processes", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Forks)
"""


def test_forks_are_capped_and_none_outlives_the_game(user: User, private: Path) -> None:
    bot = bot_file(private, user, FORK_BOT)
    played = user.run(
        "play", str(bot), "random", "--rules", "classic", "--players", "2",
        "--seed", "3", "--json", "--debug", cwd=private,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    (game,) = json.loads(played.stdout)["games"]
    said = stderr_of(game, game["players"].index(bot.name))
    forks, _, failed, seen = said.split("forks ", 1)[1].split()[:4]
    assert failed == "EAGAIN,"
    # pid 1 (bwrap's reaper), the bot and its children; a cgroup counts bwrap's monitor too
    assert 2 < int(seen.strip(",")) <= SANDBOX_TASKS
    assert int(forks) <= SANDBOX_TASKS - 2
    no_process_left(user)


def test_without_allow_unprivileged_the_sandbox_refuses_a_user(user: User) -> None:
    """A platform worker that is not root is refused, as it always was."""
    strict = user.command(
        [user.python, "-c", "from bots_sdk import sandbox; sandbox.check_host()"], cwd=Path("/")
    )
    assert strict.returncode != 0
    assert "the worker must run as root" in strict.stderr


def test_a_missing_bubblewrap_is_named(user: User, private: Path) -> None:
    probe = (
        "from bots_sdk import sandbox\n"
        "sandbox.allow_unprivileged()\n"
        "try:\n"
        "    sandbox.check_host(sandbox.SandboxConfig(bwrap='vegas-no-such-bwrap'))\n"
        "except sandbox.SandboxUnavailableError as error:\n"
        "    print(*error.missing, sep='\\n')\n"
    )
    said = user.command([user.python, "-c", probe], cwd=private)
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith("bubblewrap not installed")


# ------------------------------------------------------------------ as root


root_sandbox = pytest.mark.skipif(
    os.geteuid() != 0 or sandbox_problem() is not None,
    reason=f"needs root and the sandbox: {sandbox_problem()}",
)


@root_sandbox
@pytest.mark.parametrize("single_file", [False, True], ids=["folder", "single-file"])
def test_as_root_a_bot_in_a_private_folder_is_copied_and_plays(
    tmp_path: Path, single_file: bool
) -> None:
    """pytest's tmp_path is root's alone (0700), as a ``mktemp -d`` folder."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    bot = private / ("lucky.py" if single_file else "main.py")
    bot.write_text((ROOT / "bots_sdk" / "house" / "random_bot.py").read_text())
    bot.chmod(0o600)
    played = subprocess.run(
        [sys.executable, "-m", "bots_sdk", "play", str(bot if single_file else private),
         "greedy", "--rules", "classic", "--players", "2", "--seed", "2", "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=180, check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "Traceback" not in played.stderr and "note:" not in played.stderr
    (game,) = json.loads(played.stdout)["games"]
    assert game["players"] == ["lucky" if single_file else "private", "greedy"]
    assert not any(seat["forfeited"] for seat in game["seats"])


@root_sandbox
def test_as_root_a_folder_too_big_to_copy_is_one_line_of_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "main.py").write_text("print('a bot')\n")
    monkeypatch.setattr(launcher, "COPY_FILES", 0)
    with pytest.raises(UnreadableBotError) as caught:
        readable_bot(resolve_bot(str(private)))
    message = str(caught.value)
    assert "\n" not in message and "too big to copy" in message
    assert "the sandbox cannot read /" in message and "(mode drwx------)" in message
    assert "make the folders on the way o+x" in message


# ------------------------------------------------------------------ delegation


def test_a_cgroup_is_used_only_when_delegated_with_its_controllers_and_held_alone(
    tmp_path: Path,
) -> None:
    """The checks read a cgroup's files: a folder with the same files stands in for one."""
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    (tmp_path / "cgroup.procs").write_text(f"{os.getpid()}\n")
    assert delegation_problem(str(tmp_path)) is None
    (tmp_path / "cgroup.procs").write_text(f"{os.getpid()}\n{os.getppid()}\n")
    assert "holds 1 other process" in str(delegation_problem(str(tmp_path)))
    (tmp_path / "cgroup.procs").write_text(f"{os.getpid()}\n")
    (tmp_path / "cgroup.controllers").write_text("cpu io\n")
    assert "offers no memory, pids controller" in str(delegation_problem(str(tmp_path)))
    if os.geteuid() != 0:  # root may write anywhere
        (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
        (tmp_path / "cgroup.procs").chmod(0o444)
        assert "not delegated" in str(delegation_problem(str(tmp_path)))
