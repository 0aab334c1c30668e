"""Reinforcement-learning bridges to every rule system (the extra ``rl``; ``docs/rl.md``).

- :mod:`bots_sdk.rl.pettingzoo`: a PettingZoo AEC environment, every seat an agent;
- :mod:`bots_sdk.rl.openspiel`: an OpenSpiel python game per rule system;
- :mod:`bots_sdk.rl.gymnasium`: a Gymnasium environment, one seat against house bots;
- :mod:`bots_sdk.rl.vector`: many self-play games stepped at once, stacked;
- :mod:`bots_sdk.rl.encoding`: the action space, observation vector and reward they share.

Importing this package imports none of them: each needs its library.
"""
