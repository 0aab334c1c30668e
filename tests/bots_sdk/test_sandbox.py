"""bots_sdk.sandbox against real bubblewrap, real cgroups and hostile bots.

Nothing is mocked. When the sandbox is unavailable the tests fail with the
self-test's message (after one attempt, as root, to run
scripts/install_bot_runtime.sh). Hostile bots are real files in ``hostile/``;
they report what they managed on stdout as JSON, and most tests also run a
control (trusted mode, or a looser limit) to show that the probe can see
the thing it is denied.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bots_sdk.sandbox import (
    DEBIAN_PYTHON3,
    BotProcess,
    MiB,
    ProcessOutcome,
    SandboxConfig,
    SandboxError,
    SandboxLimits,
    SandboxUnavailableError,
    SelfTestReport,
    check_host,
    launch,
    runtime_python_command,
    self_test,
)
from bots_sdk.sandbox._cgroups import worker_prefix

HOSTILE = Path(__file__).parent / "hostile"
REPO = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO / "scripts" / "install_bot_runtime.sh"
LIMITS = SandboxLimits()

MakeBot = Callable[..., Path]


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def sandbox() -> SelfTestReport:
    """The self-test report; fails (never skips) when the sandbox is unusable."""
    try:
        return self_test()
    except SandboxUnavailableError as exc:
        first = exc
    if os.geteuid() != 0 or not INSTALL_SCRIPT.exists():
        pytest.fail(str(first), pytrace=False)
    install = subprocess.run(
        ["bash", str(INSTALL_SCRIPT)], capture_output=True, text=True, check=False
    )
    check_host.cache_clear()
    try:
        return self_test()
    except SandboxUnavailableError as exc:
        pytest.fail(
            f"{exc}\n{INSTALL_SCRIPT.name} exited {install.returncode}:\n"
            f"{install.stdout[-2000:]}{install.stderr[-2000:]}",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def bots_root() -> Iterator[Path]:
    """A directory the bot user may traverse (0711) but not list."""
    root = Path(tempfile.mkdtemp(prefix="vegas-bots-"))
    root.chmod(0o711)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def make_bot(sandbox: SelfTestReport, bots_root: Path) -> MakeBot:
    """make_bot('x.py', ..., files={'name': 'text'}) -> a bot directory."""

    def make(*scripts: str, files: dict[str, str] | None = None) -> Path:
        bot_dir = Path(tempfile.mkdtemp(dir=bots_root, prefix="bot-"))
        bot_dir.chmod(0o755)
        for script in scripts:
            shutil.copyfile(HOSTILE / script, bot_dir / script)
        for name, text in (files or {}).items():
            (bot_dir / name).write_text(text)
        for path in bot_dir.iterdir():
            path.chmod(0o644)
        return bot_dir

    return make


# ------------------------------------------------------------------ helpers


def start(
    bot_dir: Path,
    script: str,
    *args: str,
    limits: SandboxLimits = LIMITS,
    trusted: bool = False,
) -> BotProcess:
    return launch(
        runtime_python_command(script, *args), bot_dir=bot_dir, limits=limits, trusted=trusted
    )


def read_line(bot: BotProcess, timeout: float = 15.0) -> bytes:
    """One line of the bot's stdout; the bot is killed if it takes too long."""
    timer = threading.Timer(timeout, bot.kill)
    timer.start()
    try:
        return bot.stdout.readline()
    finally:
        timer.cancel()


def read_json(bot: BotProcess, timeout: float = 15.0) -> Any:
    line = read_line(bot, timeout)
    assert line, f"bot printed nothing; stderr: {bot.stderr_tail().decode(errors='replace')}"
    return json.loads(line)


def run_json(
    bot_dir: Path,
    script: str,
    *args: str,
    limits: SandboxLimits = LIMITS,
    trusted: bool = False,
) -> tuple[Any, ProcessOutcome]:
    bot = start(bot_dir, script, *args, limits=limits, trusted=trusted)
    try:
        report = read_json(bot)
    finally:
        outcome = bot.close(timeout=10)
    return report, outcome


def processes_with(token: str) -> dict[int, str]:
    """Host pid -> /proc/<pid>/status of every process whose command line has token."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if token.encode() in cmdline:
            found[int(entry)] = status
    return found


def status_ids(status: str, key: str) -> list[int]:
    for line in status.splitlines():
        if line.startswith(key + ":"):
            return [int(v) for v in line.split()[1:]]
    raise AssertionError(f"no {key} in status")


def bot_cgroups(report: SelfTestReport) -> set[str]:
    return {
        f"{parent}/{name}"
        for parent in report.cgroup_parents
        for name in os.listdir(parent)
        if name.startswith(worker_prefix())
    }


# ------------------------------------------------------------------ self-test


def test_self_test_reports_a_working_sandbox(sandbox: SelfTestReport) -> None:
    print(f"\n{sandbox}")
    assert sandbox.cgroup_version in (1, 2)
    assert sandbox.uid != 0 and sandbox.gid != 0
    assert sandbox.seccomp_mode == 2
    assert dict(sandbox.modules).get("numpy")
    assert all(os.path.isdir(parent) for parent in sandbox.cgroup_parents)


def test_missing_prerequisites_are_named(sandbox: SelfTestReport, make_bot: MakeBot) -> None:
    broken = SandboxConfig(user="vegas-no-such-user", bwrap="vegas-no-such-bwrap")
    with pytest.raises(SandboxUnavailableError) as caught:
        check_host(broken)
    missing = " | ".join(caught.value.missing)
    assert "bubblewrap not installed" in missing
    assert "vegas-no-such-user" in missing
    with pytest.raises(SandboxUnavailableError, match="vegas-no-such-user"):
        launch(["true"], bot_dir=make_bot(), limits=LIMITS, config=broken)


def test_bot_dir_must_be_readable_by_the_bot_user(sandbox: SelfTestReport, tmp_path: Path) -> None:
    private = tmp_path / "bot"
    private.mkdir()
    tmp_path.chmod(0o700)
    with pytest.raises(SandboxError, match="cannot be read by the bot user"):
        launch(["/usr/bin/python3", "-I", "-c", "pass"], bot_dir=private, limits=LIMITS)


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError, match="memory_bytes"):
        SandboxLimits(memory_bytes=0)
    with pytest.raises(ValueError, match="cpu_quota"):
        SandboxLimits(cpu_quota=0)
    with pytest.raises(ValueError, match="main_py"):
        runtime_python_command("../escape.py")
    assert runtime_python_command("main.py") == ["/usr/bin/python3", "-I", "/bot/main.py"]


# ------------------------------------------------------------------ basics


def test_exit_codes_signals_and_the_message_path(make_bot: MakeBot) -> None:
    bot_dir = make_bot(
        files={
            "echo.py": (
                "import sys\n"
                "for line in sys.stdin.buffer:\n"
                "    sys.stdout.buffer.write(line)\n"
                "    sys.stdout.buffer.flush()\n"
                "sys.exit(3)\n"
            ),
            "term.py": "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n",
        }
    )
    bot = start(bot_dir, "echo.py")
    for n in range(300):
        message = json.dumps({"type": "ping", "n": n}).encode() + b"\n"
        bot.stdin.write(message)
        assert read_line(bot) == message
    outcome = bot.close(timeout=5)
    assert (outcome.exit_code, outcome.signal, outcome.killed) == (3, None, False)
    assert outcome.oom_killed is False and outcome.trusted is False
    assert outcome.cpu_seconds is not None and 0 < outcome.cpu_seconds < 5
    assert outcome.memory_peak_bytes is not None and outcome.memory_peak_bytes > 1 * MiB
    assert bot.close() is outcome  # idempotent
    # Its speed is bench/referee.py's to measure (a test asserts no time).

    outcome = start(bot_dir, "term.py").close(timeout=5)
    assert (outcome.exit_code, outcome.signal) == (None, signal.SIGTERM)


# ------------------------------------------------------------------ resources


def test_memory_hog_is_oom_killed_and_recorded(make_bot: MakeBot) -> None:
    limits = SandboxLimits(memory_bytes=128 * MiB)
    bot = start(make_bot("alloc_memory.py"), "alloc_memory.py", limits=limits)
    lines = []
    while line := read_line(bot):
        lines.append(line)
    outcome = bot.close(timeout=5)
    assert lines and lines[0] == b"allocated 32 MiB\n"
    assert b"survived\n" not in lines
    assert len(lines) < 128 // 32 + 1
    assert outcome.oom_killed
    assert outcome.signal == signal.SIGKILL
    assert outcome.memory_peak_bytes is not None
    assert 64 * MiB < outcome.memory_peak_bytes <= 128 * MiB + 1 * MiB


def test_busy_loop_is_throttled_and_killed(make_bot: MakeBot) -> None:
    limits = SandboxLimits(cpu_quota=0.25)
    bot = start(make_bot("busy_loop.py"), "busy_loop.py", limits=limits)
    assert read_line(bot) == b"spinning\n"
    assert read_line(bot) == b"spinning\n"  # the forked child spins too
    time.sleep(1.0)
    outcome = bot.close()
    assert outcome.killed and outcome.signal == signal.SIGKILL
    assert outcome.cpu_seconds is not None
    # two spinning processes on a 2-core host would use ~2 CPU-s per second
    assert 0.1 < outcome.cpu_seconds < 0.25 * outcome.wall_seconds + 0.15


def test_fork_bomb_hits_the_pids_limit_and_nothing_survives(make_bot: MakeBot) -> None:
    token = uuid.uuid4().hex
    limits = SandboxLimits(pids=16)
    bot = start(make_bot("fork_bomb.py"), "fork_bomb.py", token, limits=limits)
    report = read_json(bot, timeout=30)
    assert report["failures"] >= 20 and report["errno"] == errno.EAGAIN
    assert 5 < len(processes_with(token)) <= 16  # bwrap's two processes included
    outcome = bot.close()
    assert outcome.pids_peak is None or outcome.pids_peak <= 16
    assert processes_with(token) == {}


def test_setsid_daemon_is_killed_at_close(sandbox: SelfTestReport, make_bot: MakeBot) -> None:
    token = uuid.uuid4().hex
    before = bot_cgroups(sandbox)
    bot = start(make_bot("daemon.py"), "daemon.py", token)
    assert read_line(bot) == b"daemon started\n"
    running = processes_with(token)
    sessions = {status_ids(s, "NSsid")[0] for s in running.values()}
    assert len(running) >= 3  # bwrap, its pid-1 reaper, the bot, the daemon
    assert len(sessions) >= 2  # the daemon has its own session
    for status in running.values():
        # every process of the bot runs as the bot user on the host, never root
        assert set(status_ids(status, "Uid")) == {sandbox.uid}
        assert set(status_ids(status, "Gid")) == {sandbox.gid}
    assert len(bot_cgroups(sandbox) - before) == len(sandbox.cgroup_parents)  # one per hierarchy
    outcome = bot.close()
    assert outcome.killed
    assert processes_with(token) == {}
    assert bot_cgroups(sandbox) == before  # the bot's cgroup is gone too


def test_stderr_flood_is_capped_without_blocking(make_bot: MakeBot) -> None:
    limits = SandboxLimits(stderr_bytes=64 * 1024)
    report, outcome = run_json(make_bot("stderr_flood.py"), "stderr_flood.py", limits=limits)
    assert 64 * 1024 - 4096 <= report["written"] <= 64 * 1024
    assert report["errors"] > 0
    assert outcome.exit_code == 0
    assert outcome.stderr_truncated
    assert len(outcome.stderr_tail) == 4096
    assert re.fullmatch(rb"[flod \n]+", outcome.stderr_tail)
    assert b"flood flood" in outcome.stderr_tail


def test_disk_writes_are_limited(make_bot: MakeBot) -> None:
    bot_dir = make_bot("fill_disk.py")
    limits = SandboxLimits(tmp_bytes=4 * MiB, shm_bytes=1 * MiB, file_size_bytes=64 * MiB)
    report, outcome = run_json(bot_dir, "fill_disk.py", limits=limits)
    assert outcome.exit_code == 0
    assert report["/tmp/big"]["errno"] == errno.ENOSPC
    assert 3 * MiB <= report["/tmp/big"]["written"] <= 4 * MiB
    assert report["/dev/shm/big"]["errno"] == errno.ENOSPC
    assert report["/dev/shm/big"]["written"] <= 1 * MiB
    assert report["/bot/big"] == {"written": 0, "errno": errno.EROFS}
    assert report["/big"] == {"written": 0, "errno": errno.EROFS}
    assert not (bot_dir / "big").exists()

    small_files = SandboxLimits(tmp_bytes=4 * MiB, file_size_bytes=1 * MiB)
    report, _ = run_json(bot_dir, "fill_disk.py", limits=small_files)
    assert report["/tmp/big"] == {"written": 1 * MiB, "errno": errno.EFBIG}


def test_open_files_are_limited(make_bot: MakeBot) -> None:
    report, _ = run_json(
        make_bot("open_files.py"), "open_files.py", limits=SandboxLimits(open_files=32)
    )
    assert report["errno"] == errno.EMFILE
    assert 10 < report["opened"] < 32


# ------------------------------------------------------------------ isolation


def test_no_network_to_the_host_loopback(make_bot: MakeBot) -> None:
    bot_dir = make_bot("connect_tcp.py")
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        port = str(server.getsockname()[1])
        report, _ = run_json(bot_dir, "connect_tcp.py", port)
        assert report["connected"] is False
        with pytest.raises(BlockingIOError):
            server.accept()
        control, _ = run_json(bot_dir, "connect_tcp.py", port, trusted=True)
        assert control["connected"] is True
        server.accept()[0].close()


def test_no_abstract_unix_socket_of_the_host(make_bot: MakeBot) -> None:
    bot_dir = make_bot("connect_abstract.py")
    name = f"vegas-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind("\0" + name)
        server.listen()
        server.setblocking(False)
        report, _ = run_json(bot_dir, "connect_abstract.py", name)
        assert report["connected"] is False
        with pytest.raises(BlockingIOError):
            server.accept()
        control, _ = run_json(bot_dir, "connect_abstract.py", name, trusted=True)
        assert control["connected"] is True


def test_host_files_other_bots_and_worker_environment_are_invisible(
    sandbox: SelfTestReport,
    make_bot: MakeBot,
    bots_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = f"worker-secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("VEGAS_WORKER_SECRET", secret)
    other_secret = f"other-bot-{uuid.uuid4().hex}"
    other_bot = make_bot(files={"main.py": f"# {other_secret}\n"})
    private = tmp_path / "worker-private.txt"
    private.write_text(secret)
    private.chmod(0o644)
    tmp_path.chmod(0o755)  # even readable by others: still not in the sandbox
    targets = [str(other_bot / "main.py"), str(private), str(REPO / "pyproject.toml")]
    bot_dir = make_bot("snoop.py")

    report, outcome = run_json(bot_dir, "snoop.py", *targets)
    dump = json.dumps(report)
    assert outcome.exit_code == 0
    assert secret not in dump and other_secret not in dump
    assert report["uid"] == sandbox.uid != 0 and report["gid"] == sandbox.gid != 0
    assert 0 not in report["groups"]
    assert report["cwd"] == "/bot"
    assert report["environ"] == dict(DEBIAN_PYTHON3.env) | {"PWD": "/bot"}
    assert report["proc_environs"], "the probe should read at least its own environ"
    assert report["etc_passwd"].startswith("<FileNotFoundError")
    assert set(report["root"]) <= {"bin", "bot", "dev", "etc", "lib", "lib64", "proc", "tmp", "usr"}
    assert str(bot_dir) not in report["proc_1_cmdline"]  # bwrap got its mounts through a file
    assert all(not found["exists"] for found in report["paths"].values())
    assert report["hostname"] == "vegas-bot"

    control, _ = run_json(bot_dir, "snoop.py", *targets, trusted=True)
    assert control["paths"][str(other_bot / "main.py")]["exists"] is True
    assert other_secret in control["paths"][str(other_bot / "main.py")]["content"]


def test_signals_cannot_reach_outside_the_sandbox(
    sandbox: SelfTestReport, make_bot: MakeBot
) -> None:
    # a process of the bot user outside any sandbox, and another sandboxed bot
    outsider = subprocess.Popen(
        ["sleep", "30"], user=sandbox.uid, group=sandbox.gid, extra_groups=[], env={}
    )
    neighbour = start(
        make_bot(files={"wait.py": "import sys\nprint('up', flush=True)\nsys.stdin.readline()\n"}),
        "wait.py",
    )
    try:
        assert read_line(neighbour) == b"up\n"
        report, outcome = run_json(make_bot("signals.py"), "signals.py", str(outsider.pid))
        assert outcome.exit_code == 0  # the bot did not manage to kill itself either
        assert report["ppid"] == 1  # its parent is the sandbox's own pid 1
        assert report["results"]["host_pid"] == f"errno {errno.ESRCH}"
        time.sleep(0.05)
        assert outsider.poll() is None
        assert neighbour.poll() is None
        neighbour.stdin.write(b"bye\n")
        assert neighbour.close(timeout=5).exit_code == 0
    finally:
        outsider.kill()
        outsider.wait()
        neighbour.close()


def test_dangerous_syscalls_return_eperm(make_bot: MakeBot) -> None:
    bot_dir = make_bot("syscalls.py")
    report, outcome = run_json(bot_dir, "syscalls.py")
    assert outcome.exit_code == 0
    assert report["seccomp"] == "2" and report["no_new_privs"] == "1"
    assert int(report["cap_eff"], 16) == 0
    calls = report["calls"]
    assert calls.pop("clone3") == [-1, errno.ENOSYS]  # libc falls back to clone
    assert calls.pop("cachestat") == [-1, errno.ENOSYS]  # newer than the filter knows
    assert calls.pop("io_setup") == [-1, errno.ENOSYS]  # not on the allow-list
    assert calls.pop("vmsplice") == [-1, errno.ENOSYS]
    for name in ("ptrace", "unshare_newuser", "keyctl", "io_uring_setup", "bpf", "mount"):
        assert name in calls
    for name in ("memfd_secret", "landlock_create_ruleset", "pidfd_open", "clone_pidfd"):
        assert name in calls
    denied = {name: result for name, result in calls.items() if result != [-1, errno.EPERM]}
    assert denied == {}

    # control: outside the sandbox the same probe sees these calls succeed
    control, _ = run_json(bot_dir, "syscalls.py", "control", trusted=True)
    for name in ("keyctl", "add_key", "process_vm_readv", "clone3", "pidfd_open", "clone_pidfd"):
        assert control["calls"][name][0] >= 0, (name, control["calls"][name])
    # These depend on the kernel's build (secretmem, landlock): never EPERM, though.
    assert control["calls"]["io_setup"][0] == 0, control["calls"]["io_setup"]
    assert control["calls"]["vmsplice"] == [-1, errno.EBADF]
    for name in ("memfd_secret", "landlock_create_ruleset", "modify_ldt", "cachestat"):
        assert control["calls"][name][1] not in (errno.EPERM, errno.ENOSYS), name


def test_sockets_are_unix_sockets_only(make_bot: MakeBot) -> None:
    bot_dir = make_bot("sockets.py")
    report, outcome = run_json(bot_dir, "sockets.py")
    assert outcome.exit_code == 0
    refused = f"errno {errno.EAFNOSUPPORT}"
    assert report == {
        "AF_VSOCK": refused,
        "AF_INET": refused,
        "AF_INET_udp": refused,
        "AF_INET6": refused,
        "AF_NETLINK": refused,
        "AF_PACKET": refused,
        "AF_UNIX": "ok",
        "socketpair_AF_UNIX": "ok",
        "socketpair_AF_INET": refused,
    }
    # control: outside the sandbox the families the kernel has do open
    control, _ = run_json(bot_dir, "sockets.py", trusted=True)
    for label in ("AF_INET", "AF_INET_udp", "AF_NETLINK", "AF_UNIX", "socketpair_AF_UNIX"):
        assert control[label] == "ok", (label, control)


def test_trusted_mode_is_opt_in_and_runs_without_sandbox(make_bot: MakeBot) -> None:
    bot_dir = make_bot(files={"who.py": "import os\nprint(os.getcwd(), os.getuid(), flush=True)\n"})
    default = start(bot_dir, "who.py")
    assert read_line(default).split()[0] == b"/bot"
    assert default.close(timeout=5).trusted is False
    trusted = start(bot_dir, "who.py", trusted=True)
    cwd, uid = read_line(trusted).split()
    outcome = trusted.close(timeout=5)
    assert cwd == str(bot_dir).encode() and int(uid) == os.getuid()
    assert outcome.trusted and outcome.exit_code == 0 and outcome.pids_peak is None


def test_cgroups_left_by_a_dead_worker_are_cleaned_up(sandbox: SelfTestReport) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()  # a worker pid that no longer runs
    name = f"bot-{dead.pid}-1"
    leftover = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        for parent in sandbox.cgroup_parents:
            os.mkdir(f"{parent}/{name}")
            Path(f"{parent}/{name}/cgroup.procs").write_text(str(leftover.pid))
        check_host.cache_clear()
        check_host()  # the first check of a worker sweeps dead workers' bot cgroups
        assert leftover.wait(timeout=5) == -signal.SIGKILL
        assert not any(os.path.exists(f"{parent}/{name}") for parent in sandbox.cgroup_parents)
    finally:
        leftover.kill()
        leftover.wait()
        for parent in sandbox.cgroup_parents:
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(f"{parent}/{name}")


def test_stale_cleanup_judges_only_its_own_pid_namespace(sandbox: SelfTestReport) -> None:
    """A worker in a container shares the host's cgroups but sees none of its pids."""
    from bots_sdk.sandbox._cgroups import detect

    no_such_pid = 2**22 + 7  # above the kernel's largest pid_max: never alive
    namespace = worker_prefix().split("-")[1]
    ours, foreign = f"bot-{namespace}-{no_such_pid}-0", f"bot-1-{no_such_pid}-0"
    for parent in sandbox.cgroup_parents:
        for name in (ours, foreign):
            os.mkdir(f"{parent}/{name}")
    try:
        removed = detect().cleanup_stale()
        assert ours in removed and foreign not in removed
        assert all(os.path.isdir(f"{p}/{foreign}") for p in sandbox.cgroup_parents)
        assert not any(os.path.exists(f"{p}/{ours}") for p in sandbox.cgroup_parents)
    finally:
        for parent in sandbox.cgroup_parents:
            for name in (ours, foreign):
                with contextlib.suppress(OSError):
                    os.rmdir(f"{parent}/{name}")


def test_empty_bot_cgroups_a_dead_container_left_long_ago_are_removed(
    sandbox: SelfTestReport,
) -> None:
    """Another pid namespace's bot cgroups (a container's, sharing the host's cgroups):
    removed once empty and older than FOREIGN_STALE_SECONDS; a young one, or one with a
    process in it, stays (a live container's bot)."""
    from bots_sdk.sandbox._cgroups import FOREIGN_STALE_SECONDS, detect

    old = time.time() - FOREIGN_STALE_SECONDS - 60
    left, young, busy = "bot-1-7-1", "bot-1-7-2", "bot-1-7-3"
    names = (left, young, busy)
    for parent in sandbox.cgroup_parents:
        for name in names:
            os.mkdir(f"{parent}/{name}")
        for name in (left, busy):
            os.utime(f"{parent}/{name}", (old, old))
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for parent in sandbox.cgroup_parents:
            with open(f"{parent}/{busy}/cgroup.procs", "w") as procs:
                procs.write(str(sleeper.pid))
        removed = detect().cleanup_stale()
        assert left in removed and young not in removed and busy not in removed
        assert not any(os.path.exists(f"{p}/{left}") for p in sandbox.cgroup_parents)
        assert sleeper.poll() is None  # a foreign cgroup's process is never killed
    finally:
        sleeper.kill()
        sleeper.wait()
        for parent in sandbox.cgroup_parents:
            for name in names:
                with contextlib.suppress(OSError):
                    os.rmdir(f"{parent}/{name}")
