"""Actions as typed values: parse the engine's action strings, or build them.

Every action class is a ``str`` subclass: an action *is* its text, so it
compares equal to the string in ``legal_actions``, and a bot may return it
as is. Its parts are attributes::

    from bots_sdk.actions import Place, Play, parse_action

    action = parse_action("kick 1 biggie")   # Kick(owner=1, kind='biggie')
    action.owner, action.kind                # (1, 'biggie')
    Place(3) == "place 3"                    # True: a builder gives the text
    Play("5D", 3)                            # 'play 3 5D': cards put in order

:func:`parse_action` accepts exactly the engine's text (the grammar of
``docs/actions.md``): ``str(parse_action(text)) == text`` for every legal
action, and anything else raises :class:`ActionError`. A builder writes the
same canonical text (cards and faces ascending), so a built action is found
in ``legal_actions`` when the engine offers it.

Stdlib only, not even :mod:`typing` at run time: bots import it at start-up.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is slow
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Self

FACES = (1, 2, 3, 4, 5, 6)
#: Kinds of dice an action may name (``kick``, ``turn``, ``return``, ``bar``, ``gold``).
KINDS = ("die", "biggie")
#: Chip-card colours, in the engine's order.
COLOURS = ("blue", "gold", "green", "pink", "silver")
#: Handicap's reward spaces (``take C K``).
REWARDS = ("chip", "money", "move")
#: The owner of the neutral dice in ``kick neutral die``.
NEUTRAL = "neutral"
#: Royale's actions that are one word.
WORDS = ("pass", "skip", "roll", "stop", "higher", "lower", "keep")
#: Black Box tokens, in dollars, and their text.
TOKENS = {60_000: "60k", 20_000: "20k", 0: "0"}


class ActionError(ValueError):
    """A text that is not an action of the grammar, or a builder given bad parts."""


class Action(str):
    """An action: its text, with its parts as attributes. Subclasses name the verb."""

    #: The first word of the action's text.
    verb = ""
    _args: tuple[object, ...]

    def __new__(cls, *args: object) -> Action:
        raise TypeError("build a concrete action (Place, Kick, ...) or call parse_action")

    @classmethod
    def _make(cls, text: str, *args: object) -> Self:
        action = str.__new__(cls, text)
        action._args = args
        return action

    def __getnewargs__(self) -> tuple[object, ...]:  # type: ignore[override]
        # pickle and copy rebuild through __new__ with the parts, not the text.
        return self._args

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(repr(arg) for arg in self._args)})"


def _face(value: object, what: str = "face") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in FACES:
        raise ActionError(f"a {what} is 1-6, got {value!r}")
    return value


def _kind(value: object) -> str:
    if value not in KINDS:
        raise ActionError(f"a kind of die is 'die' or 'biggie', got {value!r}")
    return str(value)


def _count(value: object, least: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ActionError(f"a {what} is an integer {least} or more, got {value!r}")
    return value


# ------------------------------------------------------------------ dice systems


class Place(Action):
    """``place F``: every die showing ``face`` goes to casino ``face``."""

    verb = "place"
    face: int

    def __new__(cls, face: int) -> Place:
        face = _face(face)
        action = cls._make(f"place {face}", face)
        action.face = face
        return action


class Slot(Action):
    """``slot F``: the dice showing ``face`` go to the slot machine."""

    verb = "slot"
    face: int

    def __new__(cls, face: int) -> Slot:
        face = _face(face)
        action = cls._make(f"slot {face}", face)
        action.face = face
        return action


class Kick(Action):
    """``kick S die``, ``kick S biggie``, ``kick neutral die``: the die a kicker removes.

    ``owner`` is a seat (an ``int``) or ``"neutral"``.
    """

    verb = "kick"
    owner: int | str
    kind: str

    def __new__(cls, owner: int | str, kind: str = "die") -> Kick:
        kind = _kind(kind)
        if owner == NEUTRAL:
            if kind != "die":
                raise ActionError("the neutral dice have no Biggie: kick neutral die")
        elif isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner <= 5:
            raise ActionError(f"a kick's owner is a seat 0-5 or 'neutral', got {owner!r}")
        action = cls._make(f"kick {owner} {kind}", owner, kind)
        action.owner, action.kind = owner, kind
        return action


class Chip(Action):
    """``chip C`` takes a chip card of colour ``colour``; ``chip none`` (None) takes none."""

    verb = "chip"
    colour: str | None

    def __new__(cls, colour: str | None) -> Chip:
        if colour is not None and colour not in COLOURS:
            raise ActionError(f"a chip colour is one of {', '.join(COLOURS)} or None")
        action = cls._make(f"chip {colour or 'none'}", colour)
        action.colour = colour
        return action


def card_face(card: str) -> int:
    """The face of a card: ``"5D"`` -> 5."""
    return int(card[0])


def card_dice(card: str) -> int:
    """The dice a card counts for: 2 for a double card (``"5D"``), else 1."""
    return 2 if card.endswith("D") else 1


def _card(value: object) -> str:
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str) or len(text) not in (1, 2) or text[:1] not in "123456":
        raise ActionError(f"a card is a face 1-6, with 'D' for a double card, got {value!r}")
    if len(text) == 2 and text[1] != "D":
        raise ActionError(f"a card is a face 1-6, with 'D' for a double card, got {value!r}")
    return text


class Play(Action):
    """``play C1 C2 ...``: the card game's cards to play, in ascending order.

    Cards are written as in the observation's ``hand`` (``"5"``, ``"5D"``); an
    ``int`` is a single card. The builder sorts them as the engine lists them.
    """

    verb = "play"
    cards: tuple[str, ...]

    def __new__(cls, *cards: str | int) -> Play:
        if not 1 <= len(cards) <= 5:
            raise ActionError(f"play takes 1 to 5 cards, got {len(cards)}")
        ordered = tuple(sorted((_card(card) for card in cards), key=lambda c: (c[0], len(c))))
        action = cls._make("play " + " ".join(ordered), *ordered)
        action.cards = ordered
        return action

    @property
    def dice(self) -> int:
        """The dice the cards place (a double card counts 2)."""
        return sum(card_dice(card) for card in self.cards)


# ------------------------------------------------------------------ royale


class Word(Action):
    """Royale's one-word actions: ``pass``, ``skip``, ``roll``, ``stop``, ``higher``,
    ``lower``, ``keep`` (``verb`` is the word)."""

    def __new__(cls, word: str) -> Word:
        if word not in WORDS:
            raise ActionError(f"a one-word action is one of {', '.join(WORDS)}, got {word!r}")
        action = cls._make(word, word)
        action.verb = word
        return action


class Turn(Action):
    """``turn die F`` / ``turn biggie F``: place one die from the hand as if it showed ``face``."""

    verb = "turn"
    kind: str
    face: int

    def __new__(cls, kind: str, face: int) -> Turn:
        kind, face = _kind(kind), _face(face)
        action = cls._make(f"turn {kind} {face}", kind, face)
        action.kind, action.face = kind, face
        return action


class Return(Action):
    """``return C die`` / ``return C biggie``: take one of the seat's dice back from ``casino``."""

    verb = "return"
    casino: int
    kind: str

    def __new__(cls, casino: int, kind: str) -> Return:
        casino, kind = _face(casino, "casino"), _kind(kind)
        action = cls._make(f"return {casino} {kind}", casino, kind)
        action.casino, action.kind = casino, kind
        return action


class Hide(Action):
    """``hide N``: Lucky Punch, hide ``tokens`` tokens."""

    verb = "hide"
    tokens: int

    def __new__(cls, tokens: int) -> Hide:
        tokens = _count(tokens, 1, "count of tokens")
        action = cls._make(f"hide {tokens}", tokens)
        action.tokens = tokens
        return action


class Guess(Action):
    """``guess N``: Lucky Punch, guess that ``tokens`` tokens are hidden."""

    verb = "guess"
    tokens: int

    def __new__(cls, tokens: int) -> Guess:
        tokens = _count(tokens, 1, "count of tokens")
        action = cls._make(f"guess {tokens}", tokens)
        action.tokens = tokens
        return action


class Close(Action):
    """``close C``: No Entry!, close ``casino``."""

    verb = "close"
    casino: int

    def __new__(cls, casino: int) -> Close:
        casino = _face(casino, "casino")
        action = cls._make(f"close {casino}", casino)
        action.casino = casino
        return action


class Bar(Action):
    """``bar die`` / ``bar biggie``: Knockout?, put one die of ``kind`` into the bar."""

    verb = "bar"
    kind: str

    def __new__(cls, kind: str) -> Bar:
        kind = _kind(kind)
        action = cls._make(f"bar {kind}", kind)
        action.kind = kind
        return action


class Block(Action):
    """``block N C``: Block It!, put the group of ``size`` grey dice on ``casino``."""

    verb = "block"
    size: int
    casino: int

    def __new__(cls, size: int, casino: int) -> Block:
        size, casino = _count(size, 1, "group size"), _face(casino, "casino")
        action = cls._make(f"block {size} {casino}", size, casino)
        action.size, action.casino = size, casino
        return action


class Take(Action):
    """``take C K``: Handicap, a grey die from ``casino`` to the ``reward`` space;
    ``take none`` (both None) takes nothing."""

    verb = "take"
    casino: int | None
    reward: str | None

    def __new__(cls, casino: int | None = None, reward: str | None = None) -> Take:
        if casino is None and reward is None:
            action = cls._make("take none", None, None)
        else:
            casino = _face(casino, "casino")
            if reward not in REWARDS:
                raise ActionError(f"a Handicap reward is one of {', '.join(REWARDS)}")
            action = cls._make(f"take {casino} {reward}", casino, reward)
        action.casino, action.reward = casino, reward
        return action


class Add(Action):
    """``add none``, ``add F``, ``add F G``: Prime Time, the black dice to add (ascending)."""

    verb = "add"
    faces: tuple[int, ...]

    def __new__(cls, *faces: int) -> Add:
        if len(faces) > 2:
            raise ActionError(f"Prime Time adds at most the two black dice, got {len(faces)}")
        ordered = tuple(sorted(_face(face) for face in faces))
        text = "add " + (" ".join(str(face) for face in ordered) or "none")
        action = cls._make(text, *ordered)
        action.faces = ordered
        return action


def _pile(tokens: object) -> tuple[int, ...]:
    if not isinstance(tokens, tuple | list) or not tokens:
        raise ActionError(f"a Black Box pile is a non-empty tuple of tokens, got {tokens!r}")
    for token in tokens:
        if token not in TOKENS or isinstance(token, bool):
            raise ActionError(f"a Black Box token is 60000, 20000 or 0, got {token!r}")
    return tuple(sorted(tokens, reverse=True))


class Split(Action):
    """``split P1/P2``: Black Box, the two piles of tokens (dollars: 60000, 20000, 0).

    Each pile is written high first (``split 60k+20k+0/20k+0+0``).
    """

    verb = "split"
    piles: tuple[tuple[int, ...], tuple[int, ...]]

    def __new__(cls, first: tuple[int, ...], second: tuple[int, ...]) -> Split:
        piles = (_pile(first), _pile(second))
        text = "split " + "/".join("+".join(TOKENS[token] for token in pile) for pile in piles)
        action = cls._make(text, *piles)
        action.piles = piles
        return action


class Pile(Action):
    """``pile 1`` / ``pile 2``: Black Box, the pile the winner takes."""

    verb = "pile"
    number: int

    def __new__(cls, number: int) -> Pile:
        if number not in (1, 2) or isinstance(number, bool):
            raise ActionError(f"a Black Box pile is 1 or 2, got {number!r}")
        action = cls._make(f"pile {number}", number)
        action.number = number
        return action


class Bet(Action):
    """``bet K`` / ``bet K biggie``: Double Down, ``dice`` regular dice (and the Biggie)."""

    verb = "bet"
    dice: int
    biggie: bool

    def __new__(cls, dice: int, biggie: bool = False) -> Bet:
        dice = _count(dice, 0, "count of dice")
        action = cls._make(f"bet {dice}{' biggie' if biggie else ''}", dice, bool(biggie))
        action.dice, action.biggie = dice, bool(biggie)
        return action


class Nice(Action):
    """``nice none``, ``nice F``, ``nice F biggie``: Nice Dice, the die put on space ``face``."""

    verb = "nice"
    face: int | None
    biggie: bool

    def __new__(cls, face: int | None = None, biggie: bool = False) -> Nice:
        if face is None:
            if biggie:
                raise ActionError("nice none puts no die, so no Biggie either")
            action = cls._make("nice none", None, False)
        else:
            face = _face(face)
            action = cls._make(f"nice {face}{' biggie' if biggie else ''}", face, bool(biggie))
        action.face, action.biggie = face, bool(biggie)
        return action


class Choose(Action):
    """``choose F``: My Choice, the face of a black die."""

    verb = "choose"
    face: int

    def __new__(cls, face: int) -> Choose:
        face = _face(face)
        action = cls._make(f"choose {face}", face)
        action.face = face
        return action


class Activate(Action):
    """``activate C``: My Choice face 4, activate the tile at ``casino``."""

    verb = "activate"
    casino: int

    def __new__(cls, casino: int) -> Activate:
        casino = _face(casino, "casino")
        action = cls._make(f"activate {casino}", casino)
        action.casino = casino
        return action


class Gold(Action):
    """``gold die`` / ``gold biggie``: My Choice face 6, a die to the golden space."""

    verb = "gold"
    kind: str

    def __new__(cls, kind: str) -> Gold:
        kind = _kind(kind)
        action = cls._make(f"gold {kind}", kind)
        action.kind = kind
        return action


# ------------------------------------------------------------------ parsing


def _int(word: str) -> int:
    if not word.isdigit():
        raise ActionError(f"expected a number, got {word!r}")
    return int(word)


def _owner(word: str) -> int | str:
    return word if word == NEUTRAL else _int(word)


def _optional_biggie(words: list[str]) -> bool:
    if words and words != ["biggie"]:
        raise ActionError(f"expected nothing or 'biggie' at the end, got {' '.join(words)!r}")
    return bool(words)


def _token(word: str) -> int:
    for value, text in TOKENS.items():
        if word == text:
            return value
    raise ActionError(f"a Black Box token is 60k, 20k or 0, got {word!r}")


def _parse_split(words: list[str]) -> Action:
    (both,) = words
    first, second = both.split("/")
    return Split(
        tuple(_token(word) for word in first.split("+")),
        tuple(_token(word) for word in second.split("+")),
    )


def _parse_take(words: list[str]) -> Action:
    if words == ["none"]:
        return Take()
    casino, reward = words
    return Take(_int(casino), reward)


def _parse_nice(words: list[str]) -> Action:
    if words == ["none"]:
        return Nice()
    return Nice(_int(words[0]), _optional_biggie(words[1:]))


def _none(word: str, words: list[str]) -> str:
    if words:
        raise ActionError(f"{word!r} takes nothing after it")
    return word


def _one(words: list[str]) -> str:
    (word,) = words
    return word


#: verb -> parser of the words after it.
_PARSERS: dict[str, Callable[[list[str]], Action]] = {
    "place": lambda w: Place(_int(_one(w))),
    "slot": lambda w: Slot(_int(_one(w))),
    "kick": lambda w: Kick(_owner(w[0]), _one(w[1:])),
    "chip": lambda w: Chip(None if w == ["none"] else _one(w)),
    "play": lambda w: Play(*w),
    "turn": lambda w: Turn(w[0], _int(_one(w[1:]))),
    "return": lambda w: Return(_int(w[0]), _one(w[1:])),
    "hide": lambda w: Hide(_int(_one(w))),
    "guess": lambda w: Guess(_int(_one(w))),
    "close": lambda w: Close(_int(_one(w))),
    "bar": lambda w: Bar(_one(w)),
    "block": lambda w: Block(_int(w[0]), _int(_one(w[1:]))),
    "take": _parse_take,
    "add": lambda w: Add() if w == ["none"] else Add(*(_int(word) for word in w)),
    "split": _parse_split,
    "pile": lambda w: Pile(_int(_one(w))),
    "bet": lambda w: Bet(_int(w[0]), _optional_biggie(w[1:])),
    "nice": _parse_nice,
    "choose": lambda w: Choose(_int(_one(w))),
    "activate": lambda w: Activate(_int(_one(w))),
    "gold": lambda w: Gold(_one(w)),
}


def parse_action(text: str) -> Action:
    """The typed action for ``text``, exactly as the engine writes it.

    Raises :class:`ActionError` saying what is wrong for any other text
    (unknown verb, wrong parts, or parts out of the canonical order).
    """
    if isinstance(text, Action):
        return text
    if not isinstance(text, str):
        raise ActionError(f"an action is a string, got {type(text).__name__}")
    verb, *words = text.split(" ")
    parser = _PARSERS.get(verb)
    if parser is None and verb not in WORDS:
        known = ", ".join([*_PARSERS, *WORDS])
        raise ActionError(f"{text!r}: unknown verb {verb!r} (verbs: {known})")
    try:
        action = parser(words) if parser is not None else Word(_none(verb, words))
    except (ValueError, IndexError) as error:
        # ActionError included: say which text it was about, and where the grammar is.
        detail = error if isinstance(error, ActionError) else "wrong number of parts"
        raise ActionError(f"{text!r} is not an action: {detail} (docs/actions.md)") from None
    if action != text:
        raise ActionError(f"{text!r} is not in the engine's form: write {str(action)!r}")
    return action


__all__ = [
    "COLOURS",
    "FACES",
    "KINDS",
    "NEUTRAL",
    "REWARDS",
    "TOKENS",
    "WORDS",
    "Action",
    "ActionError",
    "Activate",
    "Add",
    "Bar",
    "Bet",
    "Block",
    "Chip",
    "Choose",
    "Close",
    "Gold",
    "Guess",
    "Hide",
    "Kick",
    "Nice",
    "Pile",
    "Place",
    "Play",
    "Return",
    "Slot",
    "Split",
    "Take",
    "Turn",
    "Word",
    "card_dice",
    "card_face",
    "parse_action",
]
