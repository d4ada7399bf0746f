"""Networked play (issue 14): one authoritative server owns each :class:`~sim.rules.game.Game`
(the only judge, the only dice); clients for the 3D window, the terminal and the bots
follow it over WebSockets. A view layer: nothing below it imports it, and it imports no
Panda3D.

Modules:

- :mod:`~sim.net.protocol`: the JSON messages, validated with pydantic (one model per
  message type; a frame that is not one of them is refused with one line).
- :mod:`~sim.net.secrets`: per-seat views -- what each seat (and a spectator) may see of
  a game's save, events and set-up; seat tokens and their hashes.
- :mod:`~sim.net.session`: a hosted game, pure and synchronous: seats, the melee
  allocation stage in which both players act, undo with the opponent's consent, the
  timeout policy and chess clocks.
- :mod:`~sim.net.store`: the SQLite store (WAL, one transaction per accepted input) from
  which a restarted server resumes every game.
- :mod:`~sim.net.server`: the asyncio ``websockets`` server (``main.py serve``).
- :mod:`~sim.net.client`: the client layer the bots, the terminal and the window share:
  it keeps a mirror :class:`~sim.rules.game.Game` level with the server's.

How the project reads the rules of networked play: ``docs/network.md``.
"""
