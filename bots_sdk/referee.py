"""The referee: plays engine games between bot processes and enforces the limits.

A :class:`Match` holds N players (bot programs) and their processes across a
series of games, so a process starts once per match (``games_per_process``
bounds that). Each game is played with :meth:`Match.play`. Every wait is a
``poll`` on the bot's stdout and pidfd bounded by a deadline, and every read
is bounded by the line and output limits, so the referee never hangs (no
sleeps, no blocking reads). The deadline is the bot's, not the host's: a
decision is charged the time the bot could run (:class:`_Clock`), so a
loaded host moves the deadline on rather than forfeiting the bot. A
seat that faults is recorded with the cause, its process is killed, it is
ranked last as forfeited, and a random policy makes its remaining decisions.
"""

from __future__ import annotations

import codecs
import contextlib
import hmac
import math
import os
import secrets
import select
import selectors
import signal
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import TracebackType
from typing import Any, NoReturn

from vegas_engine import GameDescription, LogMode, SeatResult, State, new_game, observe
from vegas_engine.log import expand, game_log
from vegas_engine.policies import policy_rng, random_policy
from vegas_engine.state import JsonDict

from . import protocol, sandbox
from .faults import SENT_KEPT_BYTES, STDERR_KEPT_BYTES, Fault, FaultKind, clip
from .launcher import BotSpec, Launcher, RunningSeat, launch_bot
from .protocol import Limits, ProtocolError
from .sandbox import CpuTimes, cpu_steal, most_stolen, own_wait

#: Called with a game's id and its state, before each decision is asked and once the
#: game is over. The state keeps its moves (``log="moves"``): read it, never change
#: it; ``vegas_engine.log.events_of(state)`` makes its events so far, when wanted.
Progress = Callable[[int, State], None]

READ_CHUNK = 64 * 1024
#: After EOF on stdout, how long to wait for the process to exit before calling
#: it "closed stdout" (exit closes the pipes just before the status is ready).
EXIT_GRACE_S = 0.5
#: How long bots get to exit by themselves after ``shutdown``.
SHUTDOWN_GRACE_S = 1.0
#: Of what a bot writes to stderr during one decision, the first this many bytes
#: are kept in its trace (docs/protocol.md, *Debug output*).
DECISION_STDERR_BYTES = 1024
#: At most this many bytes of a seat's stderr are kept in the traces of one game:
#: a bot that floods stderr cannot make its log grow with it.
GAME_STDERR_BYTES = 16 * 1024


#: A decision (or start-up) still unanswered after this many times its limit in wall
#: time, or STALL_FLOOR_S, whichever is longer, while the bot was charged less than its
#: limit: the host gave it so little CPU that the game cannot be played fairly here.
STALL_FACTOR = 30
STALL_FLOOR_S = 60.0


class HostStalledError(RuntimeError):
    """The host starved a bot of CPU for far longer than its limit: not the bot's fault,
    and no fair result is possible. The platform fails the attempt and plays it again."""


class _Clock:
    """The time one decision (or start-up) is charged: what the bot could run.

    Wall time since the request, less the time the bot's processes were runnable
    but waiting for a CPU (:meth:`~bots_sdk.sandbox.BotProcess.cpu_times`), the
    time the referee itself waited for one (it may read a reply late) and the time
    the hypervisor stole from the CPU that lost the most meanwhile, but never
    less than the CPU the bot used: a bot that spins threads beyond its CPU quota
    is charged what it burnt. A bot that is slow by itself (computing, sleeping,
    blocked) is charged all of it, as before. The deadline starts at the limit
    and moves on by whatever the limit has left each time it passes.
    """

    __slots__ = ("base", "budget", "deadline", "process", "referee_wait", "started", "steal")

    def __init__(
        self,
        process: RunningSeat,
        budget_s: float,
        started: float,
        *,
        base: CpuTimes | None = None,
        referee_wait: float | None = None,
        steal: tuple[float, ...] | None = None,
    ) -> None:
        self.process = process
        self.budget = budget_s
        self.started = started
        self.deadline = started + budget_s
        self.base = process.cpu_times() if base is None else base
        self.referee_wait = own_wait() if referee_wait is None else referee_wait
        self.steal = cpu_steal() if steal is None else steal

    def charged(self, now: float) -> tuple[float, float, float | None]:
        """Seconds charged so far, seconds waited for a CPU, and CPU seconds used
        (None where the kernel cannot tell)."""
        elapsed = now - self.started
        times = self.process.cpu_times()
        waited = max(0.0, own_wait() - self.referee_wait)
        bot_waited = 0.0
        if times.wait_seconds is not None and self.base.wait_seconds is not None:
            bot_waited = times.wait_seconds - self.base.wait_seconds
        if times.run_delay_seconds is not None and self.base.run_delay_seconds is not None:
            bot_waited = max(bot_waited, times.run_delay_seconds - self.base.run_delay_seconds)
        waited += max(0.0, bot_waited)
        # A thread running when its virtual CPU is stolen neither runs nor waits for the
        # kernel: only the host's steal counter sees it (the CPU floor below still holds).
        waited += most_stolen(self.steal, cpu_steal())
        cpu = None
        if times.cpu_seconds is not None and self.base.cpu_seconds is not None:
            cpu = max(0.0, times.cpu_seconds - self.base.cpu_seconds)
        charged = max(elapsed - waited, cpu or 0.0)
        return min(max(charged, 0.0), elapsed), min(waited, elapsed), cpu

    def expired(self, now: float) -> bool:
        """Whether the limit is used up; if not, the deadline moves on to when it could be."""
        if now < self.deadline:
            return False
        charged, _, _ = self.charged(now)
        left = self.budget - charged
        if left <= 0:
            return True
        if now - self.started > max(STALL_FACTOR * self.budget, STALL_FLOOR_S):
            raise HostStalledError(
                f"the host gave a bot {charged:.3f} s of its {self.budget:.3f} s in"
                f" {now - self.started:.1f} s: too loaded to play fairly"
            )
        self.deadline = now + max(left, 0.001)
        return False


class _BotFault(Exception):
    """Raised inside the referee when a bot fails; ``kind`` None means the
    process ended, and the kind follows from its exit status."""

    def __init__(self, kind: FaultKind | None, message: str, sent: bytes | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.sent = sent


class _Connection:
    """One running bot process and the referee's end of its pipes."""

    def __init__(
        self,
        process: RunningSeat,
        limits: Limits,
        started: float,
        referee_wait: float,
        steal: tuple[float, ...],
    ) -> None:
        self.process = process
        self.limits = limits
        self.started = started
        #: The start-up's clock: a new process has used and waited nothing yet.
        self.clock = _Clock(
            process,
            limits.startup_ms / 1000,
            started,
            base=CpuTimes(0.0, 0.0, 0.0),
            referee_wait=referee_wait,
            steal=steal,
        )
        #: The process's CPU seconds when the current game began (a process plays several).
        self.game_cpu_start = 0.0
        self.in_fd = process.stdin.fileno()
        self.out_fd = process.stdout.fileno()
        self.exit_fd = process.exit_fd()
        os.set_blocking(self.in_fd, False)
        os.set_blocking(self.out_fd, False)
        self.buffer = bytearray()
        self.output_bytes = 0
        self.next_request = 1
        self.games = 0
        #: The seeds of the games this process played (``Match.seed_once_per_process``).
        self.seeds: set[int] = set()
        self.name: str | None = None
        #: Where the bot's stderr stood when the pending request was sent, and when
        #: its reply was read: what it wrote between them belongs to that decision.
        self.stderr_start = 0
        self.stderr_end = 0
        self.poller = select.poll()  # for waits on this bot alone (the usual case)
        self.poller.register(self.out_fd, select.POLLIN)
        self.poller.register(self.exit_fd, select.POLLIN)

    # ---------------------------------------------------------------- write
    def send(self, message: JsonDict, deadline: float) -> None:
        self.send_line(protocol.encode(message), deadline)

    def send_line(self, line: bytes, deadline: float) -> None:
        """Write one line; a bot that does not read its input times out."""
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(self.in_fd, view) :]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                self._ended_or(FaultKind.CLOSED_STDIN, "closed its stdin")
            with selectors.DefaultSelector() as selector:
                selector.register(self.in_fd, selectors.EVENT_WRITE)
                selector.register(self.exit_fd, selectors.EVENT_READ)
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise self.silence_cause(
                        _BotFault(FaultKind.TIMEOUT, "did not read its input before the deadline")
                    )

    def mark_request(self) -> None:
        """The request is about to be written: its decision's stderr starts here."""
        self.stderr_start = self.stderr_end = self.process.stderr_written()

    def received(self) -> float:
        """A reply line is complete: the decision's stderr ends here; returns the time."""
        self.stderr_end = self.process.stderr_written()
        return time.monotonic()

    def decision_stderr(self, *, replied: bool, left: int) -> tuple[str, int, bool]:
        """What the bot wrote to stderr during the pending decision: the text (cut to
        DECISION_STDERR_BYTES and to ``left`` bytes), the bytes kept, and whether
        anything was cut. Without a reply it runs to now."""
        process = self.process
        start = self.stderr_start
        end = self.stderr_end if replied else process.stderr_written()
        written = max(0, end - start)
        text = ""
        kept = min(written, DECISION_STDERR_BYTES, left)
        data = b""
        if kept:  # most decisions write nothing: no read, no decoder
            data = process.stderr_read(start, kept)
            # A cut may split a character: the incremental decoder leaves its start out.
            text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(
                data, final=len(data) == written
            )
        # A full capture loses what the bot writes next: whether it wrote is unknown.
        return text, len(data), kept < written or process.stderr_full()

    # ----------------------------------------------------------------- read
    def check_quiet(self, request_id: int) -> None:
        """Before a request is sent: the bot has written nothing since its last reply.

        Bytes on stdout now were written before the request exists, so they
        answer nothing: they are a fault, never taken as the reply (which
        would then seem to take no time). One small read at most, so a flood
        of early lines costs the referee nothing; an empty pipe at end of
        input is left to the wait for the reply, which tells why it ended.
        """
        if not self.buffer:
            try:
                data = os.read(self.out_fd, SENT_KEPT_BYTES)
            except BlockingIOError:
                return
            if not data:
                return
            self.output_bytes += len(data)
            self.buffer += data
        raise _BotFault(
            FaultKind.GARBAGE,
            f"wrote to stdout before request {request_id} was sent",
            bytes(self.buffer),
        )

    def pop_line(self) -> bytes | None:
        """A complete line from the buffer, checking the line length limit."""
        end = self.buffer.find(b"\n")
        limit = self.limits.max_line_bytes
        if end < 0:
            if len(self.buffer) > limit:
                raise _BotFault(
                    FaultKind.LINE_TOO_LONG,
                    f"a line longer than {limit} bytes",
                    bytes(self.buffer),
                )
            return None
        if end > limit:
            raise _BotFault(
                FaultKind.LINE_TOO_LONG,
                f"a line of {end} bytes (limit {limit})",
                bytes(self.buffer[:end]),
            )
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line

    def read_line(self, *, ended: bool = False) -> bytes | None:
        """Read what stdout has now; returns a complete line or None.

        ``ended``: the process is gone, so an empty pipe means no more data.
        """
        allowance = self.limits.max_output_bytes - self.output_bytes
        try:
            data = os.read(self.out_fd, min(READ_CHUNK, allowance + 1))
        except BlockingIOError:
            if ended:  # a child of the bot still holds stdout open
                raise _BotFault(None, "the process ended", bytes(self.buffer) or None) from None
            return None
        if not data:
            self._ended_or(FaultKind.CLOSED_STDOUT, "closed its stdout", bytes(self.buffer))
        size = len(data)
        self.output_bytes += size
        if (
            not self.buffer
            and data.find(b"\n") == size - 1
            and size <= self.limits.max_line_bytes
            and self.output_bytes <= self.limits.max_output_bytes
        ):
            return data[:-1]  # the usual case: exactly one whole line, nothing buffered
        self.buffer += data
        if self.output_bytes > self.limits.max_output_bytes:
            raise _BotFault(
                FaultKind.OUTPUT_LIMIT,
                f"wrote more than {self.limits.max_output_bytes} bytes to stdout in one game",
                bytes(self.buffer[-1024:]),
            )
        return self.pop_line()

    def await_line(self, clock: _Clock, timeout_kind: FaultKind) -> tuple[bytes, float] | _BotFault:
        """The next line and when it was complete, or the fault; the hot path."""
        try:
            line = self.pop_line() if self.buffer else None
            while line is None:
                now = time.monotonic()
                if now >= clock.deadline and clock.expired(now):
                    partial = bytes(self.buffer) or None
                    return _BotFault(timeout_kind, "no reply in time", partial)
                remaining = clock.deadline - now
                for fd, _ in self.poller.poll(math.ceil(remaining * 1000)):
                    line = self.read_line() if fd == self.out_fd else self.on_exit()
                    if line is not None:
                        break
        except _BotFault as error:
            return error
        return line, self.received()

    def on_exit(self) -> bytes | None:
        """The process ended: deliver a last complete line if it wrote one."""
        while True:
            line = self.read_line(ended=True)  # raises once the pipe is drained
            if line is not None:
                return line

    def silence_cause(self, fault: _BotFault) -> _BotFault:
        """The exact fault of a bot that went silent: it may have closed a pipe.

        A sandboxed bot that closes stdout or stdin causes no EOF or EPIPE
        (bubblewrap's own processes keep both pipes open), so the sandbox is
        asked which pipes the bot's processes still hold.
        """
        closed = self.process.closed_pipes()
        if closed is not None:
            stdin_closed, stdout_closed = closed
            if stdout_closed:
                message = "closed its stdout but kept running"
                return _BotFault(FaultKind.CLOSED_STDOUT, message, fault.sent)
            if stdin_closed:
                message = "closed its stdin but kept running"
                return _BotFault(FaultKind.CLOSED_STDIN, message, fault.sent)
        return fault

    def _ended_or(self, kind: FaultKind, message: str, sent: bytes | None = None) -> NoReturn:
        """A pipe closed: the process ended (kind from its status) or closed it."""
        with selectors.DefaultSelector() as selector:
            selector.register(self.exit_fd, selectors.EVENT_READ)
            if selector.select(EXIT_GRACE_S):
                raise _BotFault(None, "the process ended", sent or None)
        raise _BotFault(kind, message + " but kept running", sent or None)

    def close(self, timeout: float = 0.0) -> sandbox.ProcessOutcome:
        process = self.process
        if process.poll() is not None:
            if process.trusted:
                # The bot ended, but processes it started may live on in its process
                # group (the sandbox kills only a group whose leader still runs).
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
        elif timeout <= 0:
            # Killed now, before its stdin closes: else a bot that exits at end of
            # input could win the race, and its record would say "exit status 0"
            # or "killed by SIGKILL" by chance.
            process.kill()
        return process.close(timeout=timeout, stderr_bytes=STDERR_KEPT_BYTES)


@dataclass
class TraceEntry:
    """One request sent to a seat, as its trace keeps it (docs/protocol.md, *Debug output*)."""

    #: Index in the moves form's ``moves`` of the move this request decided (the
    #: fallback policy's move when the request ended in a fault).
    move: int
    request: int
    #: The time the reply was charged (:class:`_Clock`); None when no reply was read.
    elapsed_ms: float | None
    note: str
    #: What the bot wrote to stderr from the request's writing to its reply's reading.
    stderr: str
    #: Whether the note or the stderr was cut to its cap.
    truncated: bool

    def to_json(self) -> JsonDict:
        return {
            "move": self.move,
            "request": self.request,
            "ms": self.elapsed_ms,
            "note": self.note,
            "stderr": self.stderr,
            "truncated": self.truncated,
        }


@dataclass
class SeatRecord:
    """What one seat did in one game."""

    seat: int
    player: int
    name: str
    decision_ms: list[float] = field(default_factory=list)
    startup_ms: float | None = None
    fault: Fault | None = None
    resources: JsonDict = field(default_factory=dict)
    #: The seat's own limits, when they are not the match's (``player_limits``).
    limits: Limits | None = None
    #: The bot seed the seat received in ``new_game`` (None: it never got one).
    bot_seed: int | None = None
    #: One entry per request sent to the seat, in order.
    trace: list[TraceEntry] = field(default_factory=list)
    #: How much more of the seat's stderr this game's trace may keep (GAME_STDERR_BYTES).
    stderr_left: int = field(default=GAME_STDERR_BYTES, repr=False)
    #: Time charged for the seat's start-up and decisions in this game, and time its
    #: processes waited for a CPU meanwhile (not charged), in ms: in ``resources``.
    charged_ms: float = 0.0
    cpu_wait_ms: float = 0.0

    def clocked(self, clock: _Clock, now: float) -> float:
        """Count a start-up's or decision's clock, read at ``now``; its charged ms."""
        charged, waited, _ = clock.charged(now)
        self.charged_ms += charged * 1000
        self.cpu_wait_ms += waited * 1000
        return _ms(charged)

    def set_resources(self, peaks: JsonDict, cpu_seconds: float | None) -> None:
        """The seat's resources in this game: the process's peaks so far (its life may
        span games), the CPU it used in this game, the time charged and waited."""
        self.resources = {
            "memory_peak_bytes": peaks.get("memory_peak_bytes"),
            "cpu_seconds": None if cpu_seconds is None else round(max(0.0, cpu_seconds), 4),
            "pids_peak": peaks.get("pids_peak"),
            "oom_killed": bool(peaks.get("oom_killed", False)),
            "charged_ms": round(self.charged_ms, 3),
            "cpu_wait_ms": round(self.cpu_wait_ms, 3),
        }

    def to_json(self) -> JsonDict:
        times = sorted(self.decision_ms)
        own = {"limits": self.limits.to_json()} if self.limits is not None else {}
        return own | {
            "seat": self.seat,
            "player": self.player,
            "name": self.name,
            "forfeited": self.fault is not None,
            "startup_ms": self.startup_ms,
            "decisions": len(times),
            "decision_ms": self.decision_ms,
            "decision_ms_median": times[len(times) // 2] if times else None,
            "decision_ms_max": times[-1] if times else None,
            "fault": self.fault.to_json() if self.fault else None,
            "resources": self.resources,
            "bot_seed": self.bot_seed,
            "trace": [decision.to_json() for decision in self.trace],
        }


@dataclass
class GameRecord:
    """One finished game: standings with forfeits, seats, and its log."""

    game_id: int
    description: GameDescription
    #: The seed that dealt the game (in the log too, never sent to the bots).
    seed: int
    result: list[JsonDict]
    seats: list[SeatRecord]
    #: The log as kept, in the moves form, with the referee's section: what the
    #: platform stores (docs/game-log.md).
    moves_log: JsonDict
    #: The key the bots' seeds were derived with (never in the log; kept out of
    #: repr): passed back as ``bot_seed_key``, it repeats the game exactly.
    bot_seed_key: bytes = field(default=b"", repr=False)

    @cached_property
    def log(self) -> JsonDict:
        """The log in the events form, made from the moves when first asked."""
        return expand(self.moves_log)

    @property
    def faults(self) -> list[Fault]:
        return [seat.fault for seat in self.seats if seat.fault is not None]


class Match:
    """Players (bot programs) and their processes across a series of games.

    Use as a context manager: leaving it shuts every process down, and kills
    what does not exit by itself.

    ``bot_seed_key`` is the secret the bots' seeds are derived with (see
    :func:`bot_seed`): give the same key to repeat a match; without one, a
    random key is drawn, kept as :attr:`bot_seed_key` and in every
    :class:`GameRecord`.

    ``player_limits`` gives some players limits of their own (by index in
    ``players``; the others have ``limits``): a person's seat gets minutes where
    bots get a second. ``on_progress`` follows the games as they are played
    (:data:`Progress`), e.g. to show a replay that grows.

    ``seed_once_per_process``: no process plays two games dealt by the same
    seed; a player whose process played the seed gets a fresh process. The
    games of a duplicate deal share a seed, so a process that played one
    would know the dice of the others. The platform plays with it on.
    """

    def __init__(
        self,
        players: Sequence[BotSpec],
        limits: Limits | None = None,
        *,
        launcher: Launcher = launch_bot,
        games_per_process: int | None = None,
        bot_seed_key: bytes | None = None,
        player_limits: Mapping[int, Limits] | None = None,
        on_progress: Progress | None = None,
        seed_once_per_process: bool = False,
    ) -> None:
        self.players = list(players)
        self.limits = limits or Limits()
        self.player_limits = dict(player_limits or {})
        if not set(self.player_limits) <= set(range(len(self.players))):
            raise ValueError(f"player_limits names players 0-{len(self.players) - 1} only")
        self.on_progress = on_progress
        self.launcher = launcher
        self.games_per_process = games_per_process
        self.seed_once_per_process = seed_once_per_process
        self.bot_seed_key = new_bot_seed_key() if bot_seed_key is None else bot_seed_key
        _check_bot_seed_key(self.bot_seed_key)
        self.connections: list[_Connection | None] = [None] * len(self.players)
        #: Outcome of every process that ended, per player.
        self.outcomes: list[list[sandbox.ProcessOutcome]] = [[] for _ in self.players]
        self.games_played = 0

    # --------------------------------------------------------- lifecycle
    def __enter__(self) -> Match:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Send ``shutdown`` to every live bot, wait a moment, kill the rest."""
        live = [(index, c) for index, c in enumerate(self.connections) if c is not None]
        deadline = time.monotonic() + SHUTDOWN_GRACE_S
        for _, connection in live:
            with contextlib.suppress(_BotFault, OSError):
                connection.send(protocol.shutdown(), deadline)
        with selectors.DefaultSelector() as selector:
            for _, connection in live:
                selector.register(connection.exit_fd, selectors.EVENT_READ, connection)
            waiting = len(live)
            while waiting and (remaining := deadline - time.monotonic()) > 0:
                for key, _ in selector.select(remaining):
                    selector.unregister(key.fileobj)
                    waiting -= 1
        failure: BaseException | None = None
        for index, _ in live:
            try:
                self._end(index)
            except (OSError, sandbox.SandboxError) as error:  # still end the others
                failure = failure or error
        if failure is not None:
            raise failure

    def _end(self, player: int) -> sandbox.ProcessOutcome:
        connection = self.connections[player]
        assert connection is not None
        self.connections[player] = None
        outcome = connection.close()
        self.outcomes[player].append(outcome)
        return outcome

    def limits_of(self, player: int) -> Limits:
        """The limits ``player`` plays under: its own, else the match's."""
        return self.player_limits.get(player, self.limits)

    # -------------------------------------------------------------- games
    def play(
        self,
        description: GameDescription,
        seed: int,
        seating: Sequence[int],
        *,
        game_id: int | None = None,
    ) -> GameRecord:
        """Play one game dealt by ``seed``; ``seating[seat]`` is the player in that seat.

        ``game_id``: the id the bots are told (None: the match's count of games, from
        1); a pre-flight tells the id its game would have on its ladder.
        """
        if len(seating) != description.seats or len(set(seating)) != len(seating):
            raise ValueError(f"seating must name {description.seats} distinct players")
        if game_id is not None and (type(game_id) is not int or game_id < 1):
            raise ValueError(f"a game id is a positive integer, got {game_id!r}")
        self.games_played += 1
        game_id = self.games_played if game_id is None else game_id
        seats = [
            SeatRecord(
                seat, player, self.players[player].name, limits=self.player_limits.get(player)
            )
            for seat, player in enumerate(seating)
        ]
        game = _Game(self, game_id, description, seed, seats)
        game.start()
        game.run()
        return game.finish()

    def _start(self, player: int) -> tuple[_Connection | None, Fault | None]:
        """Launch a player's process (``hello`` sent); a fault if it cannot start."""
        spec = self.players[player]
        limits = self.limits_of(player)
        referee_wait = own_wait()
        steal = cpu_steal()
        started = time.monotonic()
        try:
            process = self.launcher(spec, limits)
        except (sandbox.SandboxError, OSError, ValueError) as error:
            return None, Fault(FaultKind.LAUNCH_FAILED, f"cannot start {spec.name}: {error}")
        connection = _Connection(process, limits, started, referee_wait, steal)
        self.connections[player] = connection
        return connection, None


class _Game:
    """One game in progress between the match's players."""

    def __init__(
        self,
        match: Match,
        game_id: int,
        description: GameDescription,
        seed: int,
        seats: list[SeatRecord],
    ) -> None:
        self.match = match
        self.limits = match.limits
        self.game_id = game_id
        self.description = description
        self.seed = seed
        self.seats = seats
        #: Each seat's limits: its player's own, else the match's.
        self.seat_limits = [match.limits_of(record.player) for record in seats]
        # The moves, not every event: a game's log costs a fraction of the game
        # (the events follow from them: vegas_engine.log.expand).
        self.state = new_game(description, seed, log=LogMode.MOVES)
        self.bank_ms = [float(limits.bank_ms) for limits in self.seat_limits]
        self.fallback_rng = [policy_rng(seed, seat) for seat in range(description.seats)]

    def connection(self, seat: int) -> _Connection | None:
        if self.seats[seat].fault is not None:
            return None
        return self.match.connections[self.seats[seat].player]

    # ---------------------------------------------------------------- start
    def start(self) -> None:
        """Start the seats' processes that are not running, in parallel, then
        tell every seat the game begins."""
        match = self.match
        launching: dict[_Connection, int] = {}
        seed = self.seed
        for record in self.seats:
            connection = match.connections[record.player]
            limit = match.games_per_process
            if connection is not None and (
                (limit is not None and connection.games >= limit)
                or (match.seed_once_per_process and seed in connection.seeds)
            ):
                self._retire(record.player)
                connection = None
            if connection is not None:
                connection.game_cpu_start = connection.process.cpu_times().cpu_seconds or 0.0
            if connection is None:
                connection, fault = match._start(record.player)
                if fault is not None:
                    record.fault = fault
                    fault.game_id = self.game_id
                    continue
                assert connection is not None
                deadline = connection.started + connection.limits.startup_ms / 1000
                try:
                    connection.send(protocol.hello(connection.limits), deadline)
                except _BotFault as error:
                    self._fault(record.seat, error, None, None)
                    continue
                launching[connection] = record.seat
        if launching:
            replies = _collect({c: c.clock for c in launching}, FaultKind.STARTUP_TIMEOUT)
            for connection, reply in replies.items():
                seat = launching[connection]
                if isinstance(reply, _BotFault):
                    if reply.kind is FaultKind.STARTUP_TIMEOUT:
                        reply = connection.silence_cause(reply)
                    if reply.kind is FaultKind.STARTUP_TIMEOUT:
                        reply.message = f"no ready line within {connection.limits.startup_ms} ms"
                    charged = self.seats[seat].clocked(connection.clock, time.monotonic())
                    self._fault(seat, reply, None, charged)
                    continue
                line, received = reply
                self.seats[seat].startup_ms = self.seats[seat].clocked(connection.clock, received)
                try:
                    connection.name = protocol.parse_ready(line)
                except ProtocolError as error:
                    bad = _BotFault(FaultKind.BAD_HANDSHAKE, str(error), line)
                    self._fault(seat, bad, None, self.seats[seat].startup_ms)
        for record in self.seats:
            live = self.connection(record.seat)
            if live is None:
                continue
            live.games += 1
            live.seeds.add(self.seed)
            live.output_bytes = 0
            seat_seed = bot_seed(self.seed, record.seat, key=self.match.bot_seed_key)
            message = protocol.new_game(
                self.game_id,
                record.seat,
                self.description.to_json(),  # never the seed
                live.limits.bank_ms,
                seat_seed,
            )
            try:
                live.send(message, time.monotonic() + live.limits.decision_ms / 1000)
            except _BotFault as error:
                self._fault(record.seat, error, None, None)
            else:
                record.bot_seed = seat_seed

    def _retire(self, player: int) -> None:
        """End a process that played its share of games (``games_per_process``), or
        played this game's seed (``seed_once_per_process``)."""
        connection = self.match.connections[player]
        assert connection is not None
        with contextlib.suppress(_BotFault, OSError):
            connection.send(protocol.shutdown(), time.monotonic() + SHUTDOWN_GRACE_S)
        self.match.connections[player] = None
        self.match.outcomes[player].append(connection.close(timeout=SHUTDOWN_GRACE_S))

    # ------------------------------------------------------------------ play
    def run(self) -> None:
        state = self.state
        kept = state.moves()
        assert kept is not None  # the referee's state keeps its moves
        while movers := state.to_move():
            self._progress()
            pending: dict[_Connection, _Clock] = {}
            asked: dict[int, tuple[_Connection, JsonDict, _Clock]] = {}
            unsent: dict[int, TraceEntry] = {}
            for seat in movers:
                connection = self.connection(seat)
                if connection is None:
                    continue
                budget = max(0.0, min(self.seat_limits[seat].decision_ms, self.bank_ms[seat]))
                message = protocol.request(
                    connection.next_request,
                    self.game_id,
                    observe(state, seat),
                    int(budget),
                    int(max(0.0, self.bank_ms[seat])),
                )
                connection.next_request += 1
                line = protocol.encode(message)
                try:
                    connection.check_quiet(message["id"])
                except _BotFault as error:
                    self._fault(seat, error, message, None)
                    continue
                connection.mark_request()
                # The clock starts before the write: on a busy machine the bot
                # may run (and answer) before the write call returns to us.
                clock = _Clock(connection.process, budget / 1000, time.monotonic())
                try:
                    connection.send_line(line, clock.deadline)
                except _BotFault as error:
                    # Traced before the fault ends the process (and its stderr).
                    unsent[seat] = self._decision(seat, connection, message["id"], None)
                    charged = self.seats[seat].clocked(clock, time.monotonic())
                    self._fault(seat, error, message, charged)
                    continue
                pending[connection] = clock
                asked[seat] = (connection, message, clock)
            replies = _collect(pending, FaultKind.TIMEOUT) if pending else {}
            for seat in movers:
                action, decision = self._action(seat, asked.get(seat), replies)
                decision = decision or unsent.get(seat)
                if decision is not None:
                    # The index its move takes: chance outcomes and the other movers'
                    # moves (applied in the order of movers) are counted in.
                    decision.move = len(kept.moves)
                    self.seats[seat].trace.append(decision)
                state.apply_action(action, seat)
        self._progress()

    def _progress(self) -> None:
        if self.match.on_progress is not None:
            self.match.on_progress(self.game_id, self.state)

    def _action(
        self,
        seat: int,
        asked: tuple[_Connection, JsonDict, _Clock] | None,
        replies: dict[_Connection, tuple[bytes, float] | _BotFault],
    ) -> tuple[str, TraceEntry | None]:
        """The seat's reply as a legal action, or the fallback policy's choice; and the
        request's trace (None when no request was sent)."""
        decision = None
        if asked is not None:
            connection, message, clock = asked
            reply = replies[connection]
            if isinstance(reply, _BotFault):
                # Traced before the fault ends the process (and its stderr).
                decision = self._decision(seat, connection, message["id"], None)
                if reply.kind is FaultKind.TIMEOUT:
                    reply = connection.silence_cause(reply)
                limits = self.seat_limits[seat]
                if reply.kind is FaultKind.TIMEOUT and limits.decision_ms > self.bank_ms[seat]:
                    reply.kind = FaultKind.TIME_BANK
                    reply.message = f"used up its time bank ({limits.bank_ms} ms per game)"
                elif reply.kind is FaultKind.TIMEOUT:
                    reply.message = f"no reply within {limits.decision_ms} ms"
                charged = self.seats[seat].clocked(clock, time.monotonic())
                self._fault(seat, reply, message, charged)
            else:
                line, received = reply
                elapsed = self.seats[seat].clocked(clock, received)
                self.bank_ms[seat] -= elapsed
                self.seats[seat].decision_ms.append(elapsed)
                legal = self.state.legal_actions(seat)
                try:
                    answer = protocol.parse_answer(line, message["id"])
                except ProtocolError as error:
                    decision = self._decision(seat, connection, message["id"], elapsed)
                    self._fault(
                        seat, _BotFault(FaultKind.GARBAGE, str(error), line), message, elapsed
                    )
                else:
                    chosen = answer.action
                    decision = self._decision(seat, connection, message["id"], elapsed, answer)
                    if chosen in legal:
                        return chosen, decision
                    self._fault(
                        seat,
                        _BotFault(
                            FaultKind.ILLEGAL_ACTION,
                            f"{protocol.shown(chosen)} is not legal; legal: {', '.join(legal)}",
                            line,
                        ),
                        message,
                        elapsed,
                    )
        return random_policy(self.state, seat, self.fallback_rng[seat]), decision

    def _decision(
        self,
        seat: int,
        connection: _Connection,
        request_id: int,
        elapsed: float | None,
        answer: protocol.Answer | None = None,
    ) -> TraceEntry:
        """The trace of one request (its ``move`` is set when the move is applied).

        Its stderr is what the bot wrote from the request's writing to its reply's
        reading (to now, without a reply), cut to DECISION_STDERR_BYTES and to what
        the seat's GAME_STDERR_BYTES leave.
        """
        record = self.seats[seat]
        stderr, used, cut = connection.decision_stderr(
            replied=elapsed is not None, left=record.stderr_left
        )
        record.stderr_left -= used
        return TraceEntry(
            move=-1,
            request=request_id,
            elapsed_ms=elapsed,
            note=answer.note if answer is not None else "",
            stderr=stderr,
            truncated=cut or (answer is not None and answer.note_cut),
        )

    def _fault(
        self, seat: int, error: _BotFault, message: JsonDict | None, elapsed: float | None
    ) -> None:
        """Record the fault, kill the seat's process and collect its outcome."""
        record = self.seats[seat]
        connection = self.match.connections[record.player]
        game_cpu_start = connection.game_cpu_start if connection is not None else 0.0
        outcome = self.match._end(record.player)
        record.fault = _fault_of(error, outcome, self.game_id, message, elapsed)
        cpu = outcome.cpu_seconds
        record.set_resources(
            outcome_resources(outcome), None if cpu is None else cpu - game_cpu_start
        )

    # ---------------------------------------------------------------- finish
    def finish(self) -> GameRecord:
        final = self.state.result()
        assert final is not None
        forfeited = {record.seat for record in self.seats if record.fault is not None}
        result = standings(final, forfeited)
        for record in self.seats:
            connection = self.connection(record.seat)
            if connection is None:
                continue
            message = protocol.game_over(self.game_id, record.seat, result)
            try:
                connection.send(message, time.monotonic() + connection.limits.decision_ms / 1000)
            except _BotFault:
                # The game is decided: a bot gone at this point forfeits nothing,
                # but its process is over; the next game starts a new one.
                self.match._end(record.player)
                continue
            cpu = connection.process.cpu_times().cpu_seconds
            used = None if cpu is None else cpu - connection.game_cpu_start
            record.set_resources(_live_resources(connection), used)
        log = game_log(self.state)
        log["referee"] = {
            "protocol": protocol.PROTOCOL_VERSION,
            "game_id": self.game_id,
            "limits": self.limits.to_json(),
            "result": result,
            "seats": [record.to_json() for record in self.seats],
        }
        return GameRecord(
            self.game_id,
            self.description,
            self.seed,
            result,
            self.seats,
            log,
            self.match.bot_seed_key,
        )


def _fault_of(
    error: _BotFault,
    outcome: sandbox.ProcessOutcome,
    game_id: int,
    message: JsonDict | None,
    elapsed: float | None,
) -> Fault:
    """The record of a fault whose process has ended with ``outcome``."""
    return Fault(
        kind=error.kind or _ended_kind(outcome),
        message=error.message if error.kind is not None else _ended_message(outcome),
        game_id=game_id,
        request=message,
        sent=clip(error.sent) if error.sent is not None else None,
        elapsed_ms=elapsed,
        exit_code=outcome.exit_code,
        signal=outcome.signal,
        stderr_tail=outcome.stderr_tail.decode("utf-8", errors="replace"),
        resources=outcome_resources(outcome),
    )


@dataclass(frozen=True)
class LoneReply:
    """A bot's reply to one request put by :class:`LoneSeat`."""

    #: The action answered (checked against the protocol, not the rules); None on a fault.
    action: str | None
    note: str
    #: What the bot wrote to stderr during the decision, cut as in a trace.
    stderr: str
    truncated: bool
    #: How long the reply took; None when none was read.
    elapsed_ms: float | None
    #: Why no usable answer came; the process has then ended.
    fault: Fault | None


class LoneSeat:
    """One bot process asked request by request, for a game its caller plays.

    ``rerun`` feeds a bot the requests of a recorded game this way: the
    referee's own handshake, clocks, line reading, notes and stderr capture, for
    one seat, while the caller decides what is played. Use as a context manager:
    leaving it ends the process.
    """

    def __init__(self, spec: BotSpec, limits: Limits, *, launcher: Launcher = launch_bot) -> None:
        self._match = Match([spec], limits, launcher=launcher)
        self._game_id = 0
        self._stderr_left = GAME_STDERR_BYTES

    def __enter__(self) -> LoneSeat:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._match.close()

    def start(self, game_id: int, seat: int, game: JsonDict, bot_seed: int) -> Fault | None:
        """Start the process, shake hands and open the game; the fault if that fails."""
        self._game_id = game_id
        connection, fault = self._match._start(0)
        if fault is not None:
            fault.game_id = game_id
            return fault
        assert connection is not None
        limits = connection.limits
        try:
            connection.send(protocol.hello(limits), connection.clock.deadline)
            reply = connection.await_line(connection.clock, FaultKind.STARTUP_TIMEOUT)
            if isinstance(reply, _BotFault):
                if reply.kind is FaultKind.STARTUP_TIMEOUT:
                    reply = connection.silence_cause(reply)
                    reply.message = f"no ready line within {limits.startup_ms} ms"
                raise reply
            line, _ = reply
            try:
                connection.name = protocol.parse_ready(line)
            except ProtocolError as error:
                raise _BotFault(FaultKind.BAD_HANDSHAKE, str(error), line) from None
            connection.games += 1
            opening = protocol.new_game(game_id, seat, game, limits.bank_ms, bot_seed)
            connection.send(opening, time.monotonic() + limits.decision_ms / 1000)
        except _BotFault as error:
            return self._end(error, None, None).fault
        return None

    def ask(
        self,
        request_id: int,
        observation: JsonDict,
        time_left_ms: int,
        bank_left_ms: int,
        *,
        wait_ms: int | None = None,
    ) -> LoneReply:
        """Send one request and read the reply within ``time_left_ms`` (or ``wait_ms``, when
        longer: a slower machine than the one that played the game)."""
        connection = self._match.connections[0]
        if connection is None:
            raise RuntimeError("the bot's process has ended: start it first")
        message = protocol.request(
            request_id, self._game_id, observation, time_left_ms, bank_left_ms
        )
        connection.mark_request()
        try:
            connection.check_quiet(request_id)
        except _BotFault as error:
            return self._end(error, message, None)
        allowed_ms = max(time_left_ms, wait_ms or 0)
        clock = _Clock(connection.process, allowed_ms / 1000, time.monotonic())
        try:
            connection.send_line(protocol.encode(message), clock.deadline)
        except _BotFault as error:
            return self._end(error, message, None)
        reply = connection.await_line(clock, FaultKind.TIMEOUT)
        if isinstance(reply, _BotFault):
            if reply.kind is FaultKind.TIMEOUT:
                reply = connection.silence_cause(reply)
            if reply.kind is FaultKind.TIMEOUT:
                reply.message = f"no reply within {allowed_ms} ms"
            return self._end(reply, message, None)
        line, received = reply
        elapsed = _ms(clock.charged(received)[0])
        try:
            answer = protocol.parse_answer(line, request_id)
        except ProtocolError as error:
            return self._end(_BotFault(FaultKind.GARBAGE, str(error), line), message, elapsed)
        stderr, used, cut = connection.decision_stderr(replied=True, left=self._stderr_left)
        self._stderr_left -= used
        return LoneReply(answer.action, answer.note, stderr, cut or answer.note_cut, elapsed, None)

    def _end(self, error: _BotFault, message: JsonDict | None, elapsed: float | None) -> LoneReply:
        """A fault: its stderr kept, the process ended and its record made."""
        connection = self._match.connections[0]
        stderr, cut = "", False
        if connection is not None and message is not None:
            stderr, _, cut = connection.decision_stderr(
                replied=elapsed is not None, left=self._stderr_left
            )
        outcome = self._match._end(0)
        fault = _fault_of(error, outcome, self._game_id, message, elapsed)
        return LoneReply(None, "", stderr, cut, elapsed, fault)


def _collect(
    pending: dict[_Connection, _Clock], timeout_kind: FaultKind
) -> dict[_Connection, tuple[bytes, float] | _BotFault]:
    """Wait for one line from each connection, each until its own clock runs out.

    Returns each connection's line with the time it was complete, or the fault.
    ``poll`` rather than a selector: this is the per-decision hot path, and a
    poll object costs no system call until it waits.
    """
    if len(pending) == 1:
        ((connection, clock),) = pending.items()
        return {connection: connection.await_line(clock, timeout_kind)}
    results: dict[_Connection, tuple[bytes, float] | _BotFault] = {}
    pending = dict(pending)
    poller = select.poll()
    sources: dict[int, tuple[_Connection, bool]] = {}
    for connection in list(pending):
        try:
            line = connection.pop_line()
        except _BotFault as error:
            results[connection] = error
            del pending[connection]
            continue
        if line is not None:
            results[connection] = (line, connection.received())
            del pending[connection]
            continue
        poller.register(connection.out_fd, select.POLLIN)
        poller.register(connection.exit_fd, select.POLLIN)
        sources[connection.out_fd] = (connection, False)
        sources[connection.exit_fd] = (connection, True)
    while pending:
        now = time.monotonic()
        for connection, clock in list(pending.items()):
            if now >= clock.deadline and clock.expired(now):
                partial = bytes(connection.buffer) or None
                results[connection] = _BotFault(timeout_kind, "no reply in time", partial)
                del pending[connection]
        if not pending:
            break
        wait_ms = max(0, math.ceil((min(c.deadline for c in pending.values()) - now) * 1000))
        for fd, _ in poller.poll(wait_ms):
            connection, exited = sources[fd]
            if connection not in pending:
                continue
            try:
                line = connection.on_exit() if exited else connection.read_line()
            except _BotFault as error:
                line = None
                results[connection] = error
            if line is not None:
                results[connection] = (line, connection.received())
            if connection in results:
                del pending[connection]
                poller.unregister(connection.out_fd)
                poller.unregister(connection.exit_fd)
    return results


def standings(result: Sequence[SeatResult], forfeited: set[int]) -> list[JsonDict]:
    """The engine's result with forfeits: forfeited seats share the last rank,
    the others are ranked among themselves (money, then notes)."""
    playing = [(r.money, r.notes) for r in result if r.seat not in forfeited]
    last = len(playing) + 1
    return [
        {
            "seat": r.seat,
            "money": r.money,
            "notes": r.notes,
            "rank": last
            if r.seat in forfeited
            else 1 + sum(other > (r.money, r.notes) for other in playing),
            "forfeited": r.seat in forfeited,
        }
        for r in result
    ]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def outcome_resources(outcome: sandbox.ProcessOutcome) -> JsonDict:
    """What a process used over its whole life (a fault record's ``resources``)."""
    return {
        "memory_peak_bytes": outcome.memory_peak_bytes,
        "cpu_seconds": None if outcome.cpu_seconds is None else round(outcome.cpu_seconds, 4),
        "pids_peak": outcome.pids_peak,
        "oom_killed": outcome.oom_killed,
    }


def _live_resources(connection: _Connection) -> JsonDict:
    """Peaks of a running process so far, where the process can tell them."""
    if connection.process.trusted:
        return _proc_usage(connection.process.pid)
    usage = getattr(connection.process, "usage", None)
    if callable(usage):
        peaks: Any = usage()
        if isinstance(peaks, dict):
            return peaks
    return {}


def _proc_usage(pid: int) -> JsonDict:
    """Memory high-water mark and CPU time of a bare process, from /proc."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            status = handle.read()
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return {}
    memory = None
    for line in status.splitlines():
        if line.startswith(b"VmHWM:"):
            memory = int(line.split()[1]) * 1024
    # Fields after the command name (which may hold spaces): utime is the 14th field.
    fields = stat[stat.rfind(b")") + 2 :].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    return {"memory_peak_bytes": memory, "cpu_seconds": round(cpu, 4), "pids_peak": None}


def _ended_kind(outcome: sandbox.ProcessOutcome) -> FaultKind:
    if outcome.oom_killed:
        return FaultKind.OUT_OF_MEMORY
    if outcome.exit_code == 0:
        return FaultKind.EXITED
    return FaultKind.CRASHED


def _ended_message(outcome: sandbox.ProcessOutcome) -> str:
    if outcome.oom_killed:
        return "killed by the sandbox for going over its memory limit"
    if outcome.signal is not None:
        try:
            name = signal.Signals(outcome.signal).name
        except ValueError:
            name = str(outcome.signal)
        return f"the process was killed by signal {outcome.signal} ({name})"
    if outcome.exit_code == 0:
        return "the process exited (status 0) in the middle of the game"
    return f"the process exited with status {outcome.exit_code}"


# -------------------------------------------------------------- series helper


def rotations(players: int, games: int) -> Iterator[list[int]]:
    """Seatings for a series: game k seats player i at seat (i + k) mod n."""
    for game in range(games):
        yield [(seat - game) % players for seat in range(players)]


def play_series(
    players: Sequence[BotSpec],
    games: Sequence[tuple[GameDescription, int]],
    limits: Limits | None = None,
    *,
    launcher: Launcher = launch_bot,
    games_per_process: int | None = None,
    bot_seed_key: bytes | None = None,
) -> list[GameRecord]:
    """Play the games, each a (description, seed) pair, in order with rotated seats;
    processes live across games.

    One match: one ``bot_seed_key`` (drawn when None) for all the games."""
    records = []
    with Match(
        players,
        limits,
        launcher=launcher,
        games_per_process=games_per_process,
        bot_seed_key=bot_seed_key,
    ) as match:
        for (description, seed), seating in zip(
            games, rotations(len(players), len(games)), strict=True
        ):
            records.append(match.play(description, seed, seating))
    return records


__all__ = [
    "BOT_SEED_KEY_BYTES",
    "DECISION_STDERR_BYTES",
    "GAME_STDERR_BYTES",
    "GameRecord",
    "HostStalledError",
    "Match",
    "Progress",
    "SeatRecord",
    "TraceEntry",
    "bot_seed",
    "new_bot_seed_key",
    "outcome_resources",
    "play_series",
    "rotations",
    "standings",
]

#: The size of the keys :func:`new_bot_seed_key` draws. A key given must have at
#: least half as many bytes: it is a secret, and must not be guessable.
BOT_SEED_KEY_BYTES = 32


def new_bot_seed_key() -> bytes:
    """A random key for :func:`bot_seed` (what a match draws when given none)."""
    return secrets.token_bytes(BOT_SEED_KEY_BYTES)


def _check_bot_seed_key(key: object) -> None:
    if not isinstance(key, bytes):
        raise TypeError(f"a bot seed key is bytes, got {type(key).__name__}")
    if len(key) < BOT_SEED_KEY_BYTES // 2:
        raise ValueError(f"a bot seed key needs at least {BOT_SEED_KEY_BYTES // 2} bytes")


def bot_seed(game_seed: int, seat: int, *, key: bytes) -> int:
    """A seed for a bot's own randomness in one game: HMAC-SHA256 of the game
    seed and the seat under ``key``, a secret of the referee.

    Equal (key, game seed, seat) give equal seeds, so a match can be repeated;
    without the key, a bot cannot tell which game seed (which fixes the dice
    to come) gave its seed, however small the game seeds are. A bare hash
    of the seed could be inverted by trying seeds 0, 1, 2, ...
    """
    _check_bot_seed_key(key)
    digest = hmac.digest(key, f"vegas-arena bot seed/{game_seed}/{seat}".encode(), "sha256")
    return int.from_bytes(digest[:8], "big") >> 1
