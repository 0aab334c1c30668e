"""Hostile SDK bot: from its bot_seed, recover the game seed (which fixes every
roll to come) by trying the small seeds the CLI uses (--seed 1, 2, ...) under
every derivation it can guess; report on stderr, then play on."""

import hashlib
import hmac

from bots_sdk import Bot, run

SEEDS = range(2000)  # what it can search within its first decision
GUESSED_KEYS = (b"", b"\0" * 32, b"vegas-arena", b"secret")


def derivations(game_seed, seat):
    message = f"vegas-arena bot seed/{game_seed}/{seat}".encode()
    yield hashlib.sha256(message).digest()  # a bare hash of the seed and the seat
    for key in GUESSED_KEYS:
        yield hmac.digest(key, message, "sha256")


def recover(bot_seed, seat):
    """The game seeds in SEEDS whose seed for this seat is ``bot_seed``."""
    return sorted(
        game_seed
        for game_seed in SEEDS
        for digest in derivations(game_seed, seat)
        if int.from_bytes(digest[:8], "big") >> 1 == bot_seed
    )


class SeedRecovery(Bot):
    def on_game_start(self, seat, game):
        found = recover(self.bot_seed, seat)
        if found:
            print(f"hostile: FOUND the game seed: {found}", flush=True)
        else:
            print(f"hostile: bot_seed matches no game seed in 0..{SEEDS[-1]}", flush=True)

    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(SeedRecovery)
