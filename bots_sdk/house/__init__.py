"""The house bots: ``random``, ``greedy``, ``gambler`` and ``montecarlo``, each one file.

Each file is a complete bot a newcomer can read and copy. The referee runs
them as programs (``python random_bot.py``), never imports them.
"""
