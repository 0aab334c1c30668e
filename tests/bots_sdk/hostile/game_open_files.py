"""Hostile SDK bot: at its 1st decision, open 5000 files (keeping them open), then play on."""

from bots_sdk import Bot, run


class FileHoarder(Bot):
    decisions = 0
    handles = []

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            error = None
            try:
                for _ in range(5000):
                    self.handles.append(open("/dev/null", "rb"))  # noqa: SIM115 - kept open
            except OSError as exc:
                error = f"{type(exc).__name__} errno {exc.errno}"
            print(f"hostile: opened {len(self.handles)} files, then {error}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(FileHoarder)
