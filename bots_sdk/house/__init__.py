"""The house bots: ``random``, ``gambler``, ``greedy``, ``montecarlo``, ``ismcts``.

Each is one file, a complete bot a newcomer can read and copy. The referee
runs them as programs (``python random_bot.py``), never imports them.
:mod:`bots_sdk.levels` ranks them as levels, weakest first.
"""
