"""The bot side of the protocol: subclass :class:`Bot`, hand it to :func:`run`.

A whole bot::

    from bots_sdk import Bot, run

    class FirstLegal(Bot):
        def act(self, observation):
            return observation["legal_actions"][0]

    if __name__ == "__main__":
        run(FirstLegal)

:func:`run` owns stdin and stdout: the bot's ``print`` goes to stderr, which
is the bot's log. This module imports only the stdlib and
:mod:`bots_sdk.protocol`, so a bot starts fast.
"""

from __future__ import annotations

import os
import sys
import time

from . import protocol
from .protocol import TYPE_CHECKING, Limits, MessageType, ProtocolError

if TYPE_CHECKING:  # typing costs milliseconds at every bot start: not at run time
    import random
    from typing import IO, Any

    from .protocol import JsonDict


class Bot:
    """One bot. Implement :meth:`act`; the hooks are optional.

    While a game runs, :attr:`seat`, :attr:`game` (the game description:
    ``rules``, ``options``, ``seats``; never the seed), :attr:`bot_seed` (for the
    bot's own randomness: equal games under the referee's key give equal seeds,
    and it tells nothing of the dice) and :attr:`limits` are set;
    during :meth:`act`, :attr:`time_left_ms` and :attr:`bank_left_ms` tell how
    long this decision may take, and :meth:`seconds_left` counts down.

    :attr:`rng` is a :class:`random.Random` seeded with :attr:`bot_seed` at
    each new game: use it for every random choice and a game replays exactly.

    Inside :meth:`act`, :meth:`note` attaches a short note to the answer: the
    match log keeps it with the decision, for the bot's owner alone.
    """

    #: Shown in match results; defaults to the class name.
    name: str = ""

    def __init__(self) -> None:
        self.seat = -1
        self.game: JsonDict = {}
        self.bot_seed = 0
        self.limits = Limits()
        self.time_left_ms = 0
        self.bank_left_ms = 0
        self._deadline = 0.0
        self._cpu_at_request = 0.0
        self._rng: random.Random | None = None
        self._note = ""

    @property
    def rng(self) -> random.Random:
        """The bot's random generator, seeded with :attr:`bot_seed` at each new game."""
        if self._rng is None:
            import random  # here, not at the top: a bot that never draws does not load it

            self._rng = random.Random(self.bot_seed)
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng = rng

    def act(self, observation: Any) -> str:
        """Choose one of ``observation["legal_actions"]`` (strings like ``"place 3"``).

        The observation is JSON (``docs/observation.md``); annotate it in your
        bot with the type of :mod:`bots_sdk.observations` for the rule systems
        it plays (``Observation`` for all of them), and a type checker knows
        every field.
        """
        raise NotImplementedError("a bot implements act(observation) -> action")

    def on_game_start(self, seat: int, game: JsonDict) -> None:
        """A game starts (time spent here counts toward the first decision)."""

    def on_game_end(self, result: list[JsonDict]) -> None:
        """The game is over: ``result`` has each seat's money, notes, rank, forfeit."""

    def note(self, text: str) -> None:
        """Attach ``text`` to this decision's answer, for the bot's owner (the replay
        shows it at this decision; other players and bots never see it).

        Called again in the same :meth:`act`, the note grows by a line. The referee
        keeps 256 bytes of UTF-8 (a longer note is cut); the next decision starts
        with no note.
        """
        self._note = f"{self._note}\n{text}" if self._note else str(text)

    def seconds_left(self) -> float:
        """Seconds until the current decision's deadline, by this process's clock."""
        return self._deadline - time.monotonic()

    def cpu_seconds_spent(self) -> float:
        """CPU seconds this process has used since the current request arrived.

        The clock a search should budget by: the referee leaves out the time a
        bot waited for a CPU on a busy host, so a search timed by the wall clock
        would stop early there for nothing, while CPU time is what it computed
        (the charge is never less than it).
        """
        return time.process_time() - self._cpu_at_request

    # What the SDK calls (a bot does not override them): serve() for the
    # protocol, and in-process drivers (bots_sdk.rl plays house bots inside a
    # training environment).

    def handle_new_game(self, seat: int, game: JsonDict, bot_seed: int, bank_ms: int) -> None:
        """Set up a new game (seat, description, bot seed, time bank) and run the hook."""
        self.seat = seat
        self.game = game
        self.bank_left_ms = bank_ms
        self.bot_seed = bot_seed
        self._rng = None  # reseeded from the new bot_seed when first used
        self.on_game_start(seat, game)

    def handle_request(self, observation: Any, time_left_ms: int, bank_left_ms: int) -> str:
        """Answer one request: set the clock, then :meth:`act` (its note: :meth:`take_note`)."""
        received = time.monotonic()
        self._cpu_at_request = time.process_time()
        self.time_left_ms = time_left_ms
        self.bank_left_ms = bank_left_ms
        self._deadline = received + time_left_ms / 1000
        self._note = ""
        return self.act(observation)

    def take_note(self) -> str:
        """The note :meth:`act` attached to its answer ("" for none), cleared."""
        note, self._note = self._note, ""
        return note


def run(bot: type[Bot] | Bot) -> None:
    """Play the protocol on stdin/stdout until ``shutdown`` or end of input.

    The real stdout is kept for protocol lines only; file descriptor 1 and
    ``sys.stdout`` are pointed at stderr, so ``print`` (and any child process
    or C library writing to fd 1) cannot corrupt the protocol.
    """
    sys.stdout.flush()
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(bot, sys.stdin.buffer, protocol_out)


def serve(bot: type[Bot] | Bot, reader: IO[bytes], writer: IO[bytes]) -> None:
    """The protocol loop on explicit streams (what :func:`run` calls)."""
    instance: Bot | None = bot if isinstance(bot, Bot) else None
    for line in reader:
        message = protocol.decode(line)
        kind = message["type"]
        if kind == MessageType.REQUEST:
            instance = _started(instance, kind)
            chosen = instance.handle_request(
                message["observation"], int(message["time_left_ms"]), int(message["bank_left_ms"])
            )
            # Cut here too: a line stays short whatever the bot notes.
            note, _ = protocol.clip_note(instance.take_note())
            _send(writer, protocol.action(message["id"], chosen, note))
        elif kind == MessageType.HELLO:
            if message.get("protocol") != protocol.PROTOCOL_VERSION:
                raise ProtocolError(
                    f"the referee speaks protocol {message.get('protocol')!r}, "
                    f"this SDK {protocol.PROTOCOL_VERSION}: update bots_sdk"
                )
            if instance is None and isinstance(bot, type):
                instance = bot()  # constructed before "ready": set-up counts as start-up
            instance = _started(instance, kind)
            instance.limits = _limits(message.get("limits", {}))
            _send(writer, protocol.ready(instance.name or type(instance).__name__))
        elif kind == MessageType.NEW_GAME:
            instance = _started(instance, kind)
            instance.handle_new_game(
                int(message["seat"]),
                message["game"],
                int(message.get("bot_seed", 0)),
                int(message["bank_ms"]),
            )
        elif kind == MessageType.GAME_OVER:
            instance = _started(instance, kind)
            instance.on_game_end(message["result"])
        elif kind == MessageType.SHUTDOWN:
            return
        # Unknown message types are ignored: later protocol additions stay compatible.


def _started(instance: Bot | None, kind: str) -> Bot:
    if instance is None:
        raise ProtocolError(f'"{kind}" before "hello"')
    return instance


def _limits(fields: Any) -> Limits:
    if not isinstance(fields, dict):
        return Limits()
    return Limits(**{key: value for key, value in fields.items() if key in Limits.FIELDS})


def _send(writer: IO[bytes], message: JsonDict) -> None:
    writer.write(protocol.encode(message))
    writer.flush()
