#!/usr/bin/env bash
# Install what the bot sandbox (bots_sdk.sandbox) needs on a Debian host:
# bubblewrap, the bot runtime (Debian's /usr/bin/python3 with python3-numpy)
# and the unprivileged bot user. Kept for the code and docs that name it: the
# work is scripts/install_system.sh's (idempotent; root when something is missing).
exec bash "$(dirname "${BASH_SOURCE[0]}")/install_system.sh" run "$@"
