"""Launching a bot under bubblewrap, and the handle on the running bot."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import resource
import select
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from ._cgroups import BotCgroup
from ._cpu import CpuTimes, thread_times
from ._host import DEFAULT_CONFIG, Host, SandboxConfig, check_host
from ._pidns import PidNamespace, enter
from ._runtime import BOT_MOUNT, BotRuntime
from ._seccomp import BOT_FILTER
from ._types import ProcessOutcome, SandboxError, SandboxLimits

_SIGNALS = {int(s) for s in signal.Signals}


def _memfd_with(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _stderr_memfd(cap: int) -> int:
    """An in-memory file that cannot grow past ``cap`` bytes (sealed).

    The bot's writes past the cap fail (EPERM) instead of blocking, the
    pages are charged to the writer's (the bot's) memory cgroup, and the
    shared file offset tells how much was written.
    """
    fd = os.memfd_create("vegas-bot-stderr", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, cap)
        fcntl.fcntl(
            fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
        )
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_arg(value: str, what: str) -> str:
    if not isinstance(value, str) or "\0" in value:
        raise ValueError(f"{what} must be a str without NUL: {value!r}")
    return value


def _readable_by(path: Path, uid: int, gid: int) -> str | None:
    """Why ``uid``/``gid`` cannot list ``path``, or None if it can."""
    chain = [*reversed(path.parents), path]
    for index, directory in enumerate(chain):
        st = os.stat(directory)
        need = stat.S_IXOTH | (stat.S_IROTH if index == len(chain) - 1 else 0)
        if st.st_uid == uid:
            need <<= 6
        elif st.st_gid == gid:
            need <<= 3
        if st.st_mode & need != need:
            return f"{directory} (mode {stat.filemode(st.st_mode)})"
    return None


def _accessible(path: Path) -> str | None:
    """Why this process cannot list ``path``, or None if it can (groups and ACLs counted)."""
    chain = [*reversed(path.parents), path]
    for index, directory in enumerate(chain):
        if not os.access(directory, os.X_OK | (os.R_OK if index == len(chain) - 1 else 0)):
            return f"{directory} (mode {stat.filemode(os.stat(directory).st_mode)})"
    return None


def _allows(st: os.stat_result, uid: int, gid: int, need: int) -> bool:
    """Whether the "other" permission bits ``need`` are granted to ``uid``/``gid``."""
    if st.st_uid == uid:
        need <<= 6
    elif st.st_gid == gid:
        need <<= 3
    return st.st_mode & need == need


#: At most this many entries of a folder are checked by :func:`unreadable`.
_CHECKED_ENTRIES = 10_000


def unreadable(
    path: Path | str, config: SandboxConfig | None = None, names: Sequence[str] | None = None
) -> str | None:
    """What keeps the sandbox from reading the folder ``path`` and what is in it
    (``names`` only, when given), or None when nothing does: the first folder or
    file in the way, with its mode. As root the bot user needs ``o+x`` on the
    parents, ``o+rx`` on the folders and ``o+r`` on the files; otherwise the
    caller needs its own rights. Raises SandboxUnavailableError when the sandbox
    cannot run."""
    host = check_host(config or DEFAULT_CONFIG)
    resolved = Path(path).resolve()
    if host.privileged:
        blocked = _readable_by(resolved, host.uid, host.gid)
    else:
        blocked = _accessible(resolved)
    if blocked is not None:
        return blocked
    entries: list[tuple[str, int]] = []
    if names is not None:
        entries = [(os.path.join(resolved, name), os.R_OK) for name in names]
    for folder, dirs, files in os.walk(resolved) if names is None else ():
        entries += [(os.path.join(folder, d), os.R_OK | os.X_OK) for d in dirs]
        entries += [(os.path.join(folder, f), os.R_OK) for f in files]
        if len(entries) >= _CHECKED_ENTRIES:
            break
    for entry, need in entries[:_CHECKED_ENTRIES]:
        try:
            st = os.lstat(entry)
        except OSError:
            continue  # gone meanwhile
        if stat.S_ISLNK(st.st_mode):
            continue  # resolved in the sandbox's own view, not the host's
        if host.privileged:
            other = (stat.S_IROTH | stat.S_IXOTH) if need & os.X_OK else stat.S_IROTH
            allowed = _allows(st, host.uid, host.gid, other)
        else:
            allowed = os.access(entry, need)
        if not allowed:
            return f"{entry} (mode {stat.filemode(st.st_mode)})"
    return None


def bwrap_arguments(
    command: Sequence[str],
    *,
    bot_dir: Path,
    limits: SandboxLimits,
    runtime: BotRuntime,
    env: Mapping[str, str],
    seccomp_fd: int,
    hostname: str = "vegas-bot",
    extra_binds: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The bubblewrap arguments that run ``command`` for one bot; ``extra_binds``
    are this bot's own read-only ``(host, sandbox)`` binds (its built program)."""
    args = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        hostname,
    ]
    for path in runtime.ro_paths:
        args += ["--ro-bind", path, path]
    for path in runtime.optional_paths:
        args += ["--ro-bind-try", path, path]
    for source, dest in runtime.binds:
        args += ["--ro-bind", source, dest]
    for target, link in runtime.symlinks:
        args += ["--symlink", target, link]
    args += ["--ro-bind", str(bot_dir), BOT_MOUNT, "--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(limits.shm_bytes), "--perms", "1777", "--tmpfs", "/dev/shm"]
    args += ["--size", str(limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    for path, size in runtime.tmpfs:
        args += ["--size", str(size), "--perms", "1777", "--tmpfs", path]
    for source, dest in extra_binds:
        args += ["--ro-bind", source, dest]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", BOT_MOUNT, "--clearenv"]
    for key, value in env.items():
        if not key or "=" in key:
            raise ValueError(f"bad environment variable name: {key!r}")
        args += ["--setenv", _check_arg(key, "env name"), _check_arg(value, "env value")]
    args += ["--seccomp", str(seccomp_fd), "--"]
    args += [_check_arg(word, "command argument") for word in command]
    return args


def _split_options(args: list[str]) -> tuple[list[str], list[str]]:
    """bwrap reads options (never the command) from ``--args FD``."""
    cut = args.index("--")
    return args[:cut], args[cut:]


#: Run by /bin/sh between the worker and bwrap: join the bot's cgroup(s) (as
#: root, "0" meaning the writer itself), set the rlimits, then exec the rest
#: (setpriv dropping to the bot user, then bwrap). Values come as arguments:
#: $1 RLIMIT_NOFILE, $2 RLIMIT_FSIZE in 512-byte blocks, cgroup.procs files
#: up to "--", then the command. Using exec'd helpers instead of a Python
#: preexec_fn lets subprocess use vfork: a big worker forks no slower.
_SPAWN_SH = (
    'n=$1; f=$2; shift 2; while [ "$1" != -- ]; do echo 0 >"$1" || exit 125; shift; done; '
    'shift; ulimit -c 0 && ulimit -n "$n" && ulimit -f "$f" || exit 125; exec "$@"'
)


def spawn_prefix(host: Host, join_paths: Sequence[str], limits: SandboxLimits) -> list[str]:
    """The command that puts what follows in the bot cgroup, under the bot's
    rlimits and uid (the exec chain sh -> setpriv -> bwrap keeps one pid)."""
    fsize_blocks = -(-limits.file_size_bytes // 512)
    prefix = [
        "/bin/sh",
        "-c",
        _SPAWN_SH,
        "vegas-spawn",
        str(limits.open_files),
        str(fsize_blocks),
        *join_paths,
        "--",
    ]
    if not host.privileged:  # the caller's own uid: bwrap makes the user namespace
        return prefix
    return [
        *prefix,
        host.setpriv,
        f"--reuid={host.uid}",
        f"--regid={host.gid}",
        "--clear-groups",
        "--",
    ]


class BotProcess:
    """A running bot: its pipes, and the way to end it and learn how it went.

    ``stdin`` is unbuffered (each ``write`` reaches the bot at once);
    ``stdout`` is a buffered reader (``readline()`` is cheap). ``close()``
    always leaves nothing of the bot running and is idempotent.
    """

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        stdin: io.FileIO,
        stdout: io.BufferedReader,
        stderr_fd: int,
        stderr_cap: int,
        cgroup: BotCgroup | None,
        started: float,
        namespace: PidNamespace | None = None,
    ) -> None:
        self._popen = popen
        self.stdin = stdin
        self.stdout = stdout
        self.pid = popen.pid
        self.trusted = cgroup is None and namespace is None
        self._stderr_fd = stderr_fd
        self._stderr_cap = stderr_cap
        self._cgroup = cgroup
        #: a sandbox without a cgroup (not root): its pid namespace
        self._namespace = namespace
        self._started = started
        self._lock = threading.Lock()
        self._returncode: int | None = None
        self._rusage: resource.struct_rusage | None = None
        self._ended: float | None = None
        self._outcome: ProcessOutcome | None = None
        self._status_lost = False
        self._pidfd = os.pidfd_open(popen.pid)
        #: the pipes' inodes, to find which processes hold their other ends
        self._pipe_inodes = (os.fstat(stdin.fileno()).st_ino, os.fstat(stdout.fileno()).st_ino)

    # -------------------------------------------------------------- state
    def poll(self) -> int | None:
        """The raw exit status of the bot's top process, or None if running."""
        with self._lock:
            if self._returncode is None:
                try:
                    pid, status, usage = os.wait4(self.pid, os.WNOHANG)
                except ChildProcessError:  # reaped by someone else: status unknown
                    pid, status, usage = self.pid, 0, None
                    self._status_lost = True
                if pid:
                    self._ended = time.monotonic()
                    self._returncode = os.waitstatus_to_exitcode(status)
                    self._rusage = usage
                    self._popen.returncode = self._returncode
            return self._returncode

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait until the bot's top process ends (on its pidfd, no polling
        loop, no lock held: another thread may ``kill()`` meanwhile); return
        its raw exit status, or None if ``timeout`` seconds passed first."""
        if self._returncode is None:
            poller = select.poll()
            poller.register(self._pidfd, select.POLLIN)
            poller.poll(None if timeout is None else max(0, round(timeout * 1000)))
        return self.poll()

    def exit_fd(self) -> int:
        """A pidfd that becomes readable when the bot ends (for event loops)."""
        return self._pidfd

    def kill(self) -> None:
        """SIGKILL every process of the bot now (does not wait)."""
        if self._outcome is not None:
            return
        if self._cgroup is not None:
            self._cgroup.kill_all()
        elif self._namespace is not None:
            self._namespace.kill_all()
        else:  # its process group (a pgid is not reused while the group lives)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def closed_pipes(self) -> tuple[bool, bool] | None:
        """Whether the bot closed its stdin, its stdout: ``(stdin, stdout)``.

        Sandboxed, bubblewrap's own two processes (the monitor and the pid-1
        reaper) hold the bot's stdin and stdout for its whole life, so a bot
        that closes them causes no EOF or EPIPE: this looks at the pipes
        held by the bot's processes (everything in its cgroup but those
        two). None when it cannot tell: trusted (the pipes themselves tell),
        ended, or no process of the bot running.
        """
        group = self._cgroup or self._namespace
        if group is None or self._outcome is not None:
            return None
        held: set[str] = set()
        found = False
        for pid in group.pids():
            if pid == self.pid or _parent_pid(pid) in (self.pid, None):
                continue  # bwrap's monitor, its reaper, or a process already gone
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            found = True
            for fd in fds:
                try:
                    held.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except PermissionError:
                    # No right to read it (a worker without CAP_SYS_PTRACE, as in some
                    # containers): unknown, never "closed", or a slow bot is misjudged.
                    return None
                except OSError:
                    continue  # closed meanwhile
        if not found:
            return None
        stdin_inode, stdout_inode = self._pipe_inodes
        return f"pipe:[{stdin_inode}]" not in held, f"pipe:[{stdout_inode}]" not in held

    def cpu_times(self) -> CpuTimes:
        """CPU used and time waited for one so far, by all the bot's processes (sandboxed:
        its cgroup's; trusted: the threads of its top process). Unknown once it has ended."""
        if self._outcome is not None:
            return CpuTimes(None, None)
        if self._cgroup is not None:
            return self._cgroup.cpu_times()
        if self._namespace is not None:
            return self._namespace.cpu_times()
        return thread_times((self.pid,))

    def usage(self) -> dict[str, int | float | None]:
        """The peaks so far of a running bot, as its outcome will give them at the end."""
        if self._outcome is not None:
            return {}
        if self._namespace is not None:
            return {
                "memory_peak_bytes": self._namespace.memory_bytes(),
                "cpu_seconds": self._namespace.cpu_times().cpu_seconds,
                "pids_peak": None,
            }
        if self._cgroup is None:
            return {}
        stats = self._cgroup.stats()
        return {
            "memory_peak_bytes": stats.memory_peak_bytes,
            "cpu_seconds": stats.cpu_seconds,
            "pids_peak": stats.pids_peak,
        }

    def stderr_written(self) -> int:
        """How many bytes of stderr were kept so far (at most the cap)."""
        return min(os.lseek(self._stderr_fd, 0, os.SEEK_CUR), self._stderr_cap)

    def stderr_full(self) -> bool:
        """Whether the stderr kept reached its cap: the bot's later writes are lost."""
        return self.stderr_written() >= self._stderr_cap

    def stderr_read(self, start: int, size: int) -> bytes:
        """Up to ``size`` bytes of the stderr kept, from offset ``start`` (a value
        :meth:`stderr_written` gave): what the bot wrote since then."""
        end = min(start + size, self.stderr_written())
        return os.pread(self._stderr_fd, end - start, start) if end > start else b""

    def stderr_tail(self, n: int = 4096) -> bytes:
        """The last ``n`` bytes of the stderr kept so far."""
        end = self.stderr_written()
        start = max(0, end - n)
        return os.pread(self._stderr_fd, end - start, start) if end > start else b""

    # -------------------------------------------------------------- end
    def close(self, timeout: float = 0.0, stderr_bytes: int = 4096) -> ProcessOutcome:
        """Close stdin, give the bot ``timeout`` seconds to exit, then kill all
        that is left (daemons too), collect the resource peaks, release
        everything and return the outcome (the same one on later calls)."""
        if self._outcome is not None:
            return self._outcome
        with contextlib.suppress(OSError):
            self.stdin.close()
        if timeout > 0:
            self.wait(timeout)
        killed = self.poll() is None
        if self._namespace is not None:
            self._namespace.sample()
        self.kill()
        returncode = self.wait()
        assert returncode is not None
        memory = cpu = pids = None
        cpu_wait: float | None = None
        oom = False
        if self._cgroup is not None:
            stats = self._cgroup.release()
            memory, cpu, pids = stats.memory_peak_bytes, stats.cpu_seconds, stats.pids_peak
            cpu_wait = stats.cpu_wait_seconds
            oom = stats.oom_kills > 0
        elif self._namespace is not None:  # bwrap's monitor's rusage is its own only
            memory, cpu = self._namespace.memory_seen, self._namespace.cpu_seen
            self._namespace.release()
        elif self._rusage is not None:
            memory = self._rusage.ru_maxrss * 1024
            cpu = self._rusage.ru_utime + self._rusage.ru_stime
        exit_code: int | None = returncode
        sig: int | None = None
        if self._status_lost:
            exit_code = None
        elif returncode < 0:
            exit_code, sig = None, -returncode
        elif not self.trusted and returncode > 128 and returncode - 128 in _SIGNALS:
            exit_code, sig = None, returncode - 128  # bwrap reports death by signal N as 128+N
        written = self.stderr_written()
        self._outcome = ProcessOutcome(
            exit_code=exit_code,
            signal=sig,
            killed=killed,
            oom_killed=oom,
            memory_peak_bytes=memory,
            cpu_seconds=cpu,
            cpu_wait_seconds=cpu_wait,
            pids_peak=pids,
            wall_seconds=(self._ended or time.monotonic()) - self._started,
            stderr_tail=self.stderr_tail(stderr_bytes),
            stderr_truncated=written >= self._stderr_cap,
            trusted=self.trusted,
        )
        for closing in (self.stdout.close, lambda: os.close(self._stderr_fd)):
            with contextlib.suppress(OSError):
                closing()
        os.close(self._pidfd)
        return self._outcome

    @property
    def outcome(self) -> ProcessOutcome | None:
        return self._outcome

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "trusted" if self.trusted else "sandboxed"
        return f"<BotProcess pid={self.pid} {mode} returncode={self._returncode}>"


def _parent_pid(pid: int) -> int | None:
    """The parent of ``pid`` (from /proc), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # after the command name (which may hold spaces and parentheses): state, ppid
    return int(stat[stat.rfind(b")") + 2 :].split()[1])


def rewrite_for_host(command: Sequence[str], mounts: Mapping[str, str]) -> list[str]:
    """``command`` with each sandbox path (``/bot/...``) turned into its host path."""
    out = []
    for word in command:
        for inside, host in mounts.items():
            if word == inside or word.startswith(inside + "/"):
                word = host + word[len(inside) :]
                break
        out.append(word)
    return out


def launch(
    command: Sequence[str],
    *,
    bot_dir: Path | str,
    limits: SandboxLimits,
    trusted: bool = False,
    env: Mapping[str, str] | None = None,
    config: SandboxConfig | None = None,
    extra_binds: Sequence[tuple[Path | str, str]] = (),
) -> BotProcess:
    """Start ``command`` as a bot whose files are ``bot_dir``.

    Sandboxed (the default), the command runs under bubblewrap as the bot
    user, in its own cgroup, and sees ``bot_dir`` read-only at ``/bot`` (its
    working directory); ``bot_dir`` and its parents must be searchable by the
    bot user. ``env`` adds to the runtime's environment; nothing of the
    worker's environment is passed.

    ``trusted=True`` (house bots, local development) runs the command
    directly, in a new session with ``bot_dir`` as working directory and
    ``/bot/...`` arguments rewritten to ``bot_dir``: no isolation at all.

    ``extra_binds`` are ``(host path, sandbox path)`` pairs bound read-only
    (a built program at ``/build``); trusted, their arguments are rewritten too.
    """
    if isinstance(command, str) or not command:
        raise ValueError("command must be a non-empty sequence of arguments")
    config = config or DEFAULT_CONFIG
    bot_path = Path(bot_dir).resolve()
    if not bot_path.is_dir():
        raise SandboxError(f"bot_dir is not a directory: {bot_path}")
    bot_env = config.runtime.environment(env)
    binds = [(str(Path(source).resolve()), dest) for source, dest in extra_binds]
    if trusted:
        mounts = {BOT_MOUNT: str(bot_path), **{dest: source for source, dest in binds}}
        return _launch_trusted(rewrite_for_host(command, mounts), bot_path, limits, bot_env)
    host = check_host(config)
    for label, path in [("bot_dir ", bot_path), *(("", Path(source)) for source, _ in binds)]:
        if not host.privileged:
            blocked = _accessible(path)
            if blocked is not None:
                raise SandboxError(f"{label}{path} cannot be read: {blocked} lacks permission")
            continue
        blocked = _readable_by(path, host.uid, host.gid)
        if blocked is not None:
            raise SandboxError(
                f"{label}{path} cannot be read by the bot user {config.user!r}: "
                f"{blocked} lacks permission (make it o+rx, or its parents o+x)"
            )
    return _launch_sandboxed(list(command), bot_path, limits, bot_env, config, host, binds)


def _launch_sandboxed(
    command: list[str],
    bot_dir: Path,
    limits: SandboxLimits,
    env: dict[str, str],
    config: SandboxConfig,
    host: Host,
    extra_binds: Sequence[tuple[str, str]],
) -> BotProcess:
    cgroup = None if host.cgroups is None else host.cgroups.create(limits)
    spawn_only: list[int] = []  # the child's copies: closed once it is started
    kept: list[int] = []  # the parent's ends: closed only if the start fails
    handshake: tuple[int, int] | None = None  # no cgroup: bwrap's info and block pipes
    try:
        seccomp_fd = _memfd_with("vegas-bot-seccomp", BOT_FILTER)
        spawn_only.append(seccomp_fd)
        args = bwrap_arguments(
            command,
            bot_dir=bot_dir,
            limits=limits,
            runtime=config.runtime,
            env=env,
            seccomp_fd=seccomp_fd,
            hostname=config.hostname,
            extra_binds=extra_binds,
        )
        # Options through a file: the bot's /proc/1/cmdline shows no host path.
        options, tail = _split_options(args)
        handshake_fds: tuple[int, ...] = ()
        if cgroup is None:
            info_r, info_w = os.pipe()
            kept.append(info_r)
            spawn_only.append(info_w)
            block_r, block_w = os.pipe()
            kept.append(block_w)
            spawn_only.append(block_r)
            options += ["--info-fd", str(info_w), "--block-fd", str(block_r)]
            handshake, handshake_fds = (info_r, block_w), (info_w, block_r)
        args_fd = _memfd_with("vegas-bot-args", b"".join(a.encode() + b"\0" for a in options))
        spawn_only.append(args_fd)
        stderr_fd = _stderr_memfd(limits.stderr_bytes)
        kept.append(stderr_fd)
        stdin_r, stdin_w = os.pipe()
        spawn_only.append(stdin_r)
        kept.append(stdin_w)
        stdout_r, stdout_w = os.pipe()
        spawn_only.append(stdout_w)
        kept.append(stdout_r)
        started = time.monotonic()
        joins = () if cgroup is None else cgroup.join_paths
        argv = [*spawn_prefix(host, joins, limits), host.bwrap, "--args", str(args_fd)]
        popen = subprocess.Popen(
            [*argv, *tail],
            stdin=stdin_r,
            stdout=stdout_w,
            stderr=stderr_fd,
            env={},  # bwrap's own environment is visible as /proc/1/environ
            cwd="/",
            pass_fds=(args_fd, seccomp_fd, *handshake_fds),
        )
    except BaseException as exc:
        for fd in kept:
            os.close(fd)
        if cgroup is not None:
            cgroup.remove()
        if isinstance(exc, subprocess.SubprocessError):
            raise SandboxError(f"cannot start the sandbox: {exc}") from exc
        raise
    finally:
        for fd in spawn_only:
            os.close(fd)
    namespace = None
    if handshake is not None:
        try:
            namespace = enter(*handshake, limits)
        except BaseException as exc:
            popen.kill()
            popen.wait()
            said = os.pread(stderr_fd, 4096, 0).split(b"\0", 1)[0].decode(errors="replace")
            for fd in (stdin_w, stdout_r, stderr_fd):
                os.close(fd)
            if isinstance(exc, SandboxError) and said.strip():
                raise SandboxError(f"{exc}: {said.strip()}") from exc
            raise
    return BotProcess(
        popen,
        stdin=open(stdin_w, "wb", buffering=0),
        stdout=open(stdout_r, "rb"),
        stderr_fd=stderr_fd,
        stderr_cap=limits.stderr_bytes,
        cgroup=cgroup,
        started=started,
        namespace=namespace,
    )


def _launch_trusted(
    command: list[str], bot_dir: Path, limits: SandboxLimits, env: dict[str, str]
) -> BotProcess:
    stderr_fd = _stderr_memfd(limits.stderr_bytes)
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    started = time.monotonic()
    try:
        popen = subprocess.Popen(
            command,
            stdin=stdin_r,
            stdout=stdout_w,
            stderr=stderr_fd,
            env=env,
            cwd=bot_dir,
            start_new_session=True,
        )
    except BaseException:
        for fd in (stdin_w, stdout_r, stderr_fd):
            os.close(fd)
        raise
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
    return BotProcess(
        popen,
        stdin=open(stdin_w, "wb", buffering=0),
        stdout=open(stdout_r, "rb"),
        stderr_fd=stderr_fd,
        stderr_cap=limits.stderr_bytes,
        cgroup=None,
        started=started,
    )
