"""What each seat may see (issue 14, boardgame.io's ``playerView``): the per-seat view of a
game's save and of every batch of events, and the seat tokens.

A game has three secrets before the rules reveal them:

- a **melee allocation** (p.33: both players allocate in secret, then reveal). The
  server never pushes an allocation into the :class:`~sim.rules.game.Game` before both
  are in (:mod:`sim.net.session`), so no stream carries one early: nothing to strip.
- a **Flank model's turn and table edge** (p.52: noted in secret before the game,
  revealed when it arrives). The other seat's ``elsewhere`` events and save entries
  carry a placeholder (the last turn, the first edge, no zone).
- a **hidden VIM** (a scenario whose ``vim`` kind is ``hidden``, p.63: revealed at the
  end of the last turn). The other seat's ``scenario`` (and ``position``) events list
  no VIM for that side and no turn it was killed in, until the game is over.

And one secret of the server's: the **dice**. No view carries the seed or where the
seeded dice stand; the values already rolled are public (both players see every die).

Spectators (seat ``None``) see what both players can see: every secret stripped.

Tokens: :func:`new_token` makes a random seat token (``secrets.token_urlsafe``); the
store keeps only :func:`token_hash`; :func:`token_matches` compares in constant time
(``hmac.compare_digest``). Tokens are never logged.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import secrets
from typing import Any

from sim.rules.game.state import MAX_TURNS
from sim.rules.setup.zones import EDGES

#: The keys of a save that no client sees (the server's dice).
SERVER_ONLY = ("seed", "dice_state")


def new_token() -> str:
    """A fresh random seat token (32 bytes, URL-safe text)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The SHA-256 hex digest of ``token`` (what the store keeps)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: Any, digest: str) -> bool:
    """Whether ``token`` hashes to ``digest``, compared in constant time; False for a
    token that is not text."""
    if not isinstance(token, str) or not token:
        return False
    return hmac.compare_digest(token_hash(token), digest)


def _owner(model: str, owners: dict[str, int]) -> int | None:
    return owners.get(model)


def _hidden_vims(doc_scenario: Any) -> bool:
    return isinstance(doc_scenario, dict) and isinstance(doc_scenario.get("vim"), dict) and \
        doc_scenario["vim"].get("kind") == "hidden"


def _strip_vims(state: Any, viewer: int | None) -> Any:
    """A scenario state (JSON) with the VIMs of every side but ``viewer``'s emptied."""
    if not isinstance(state, dict):
        return state
    out = dict(state)
    for key, blank in (("vims", []), ("vim_killed", None)):
        val = out.get(key)
        if isinstance(val, dict):
            out[key] = {side: (v if str(side) == str(viewer) else blank) for side, v in val.items()}
    return out


def event_view(event: dict, viewer: int | None, owners: dict[str, int], hidden_vims: bool,
               over: bool) -> dict:
    """The event (``Event.to_json()``) as ``viewer`` (1, 2, or None for a spectator)
    sees it. ``owners``: model id -> player; ``hidden_vims``: the scenario hides its
    VIMs; ``over``: the game has ended (every secret is out)."""
    kind = event.get("kind")
    if kind == "elsewhere" and _owner(str(event.get("model")), owners) != viewer:
        out = dict(event)
        out.update(turn=MAX_TURNS, edge=EDGES[0], zone=None)
        return out
    if hidden_vims and not over:
        if kind == "scenario":
            out = dict(event)
            out["state"] = _strip_vims(event.get("state"), viewer)
            return out
        if kind == "position" and isinstance(event.get("scenario"), dict):
            out = dict(event)
            out["scenario"] = _strip_vims(event["scenario"], viewer)
            return out
    return event


def save_view(doc: dict, viewer: int | None, owners: dict[str, int], over: bool) -> dict:
    """The save ``doc`` (``Game.to_json()``) as ``viewer`` sees it: no seed or dice state
    (``dice`` becomes ``"physical"``: the values rolled so far), the other seat's Flank
    turns and edges and hidden VIMs replaced (see the module doc). A client builds its
    mirror from it with ``Game.from_save(view, verify=False)``."""
    out = {k: v for k, v in doc.items() if k not in SERVER_ONLY and k != "events"}
    out["dice"] = "physical"
    hidden = _hidden_vims(doc.get("scenario"))
    out["events"] = [event_view(e, viewer, owners, hidden, over) for e in doc.get("events", [])]
    if "elsewhere" in doc:
        held = []
        for h in doc["elsewhere"]:
            mid = str(h.get("model", {}).get("id"))
            if owners.get(mid) == viewer:
                held.append(h)
            else:
                h = copy.deepcopy(h)
                h.update(turn=MAX_TURNS, edge=EDGES[0], zone=None)
                held.append(h)
        out["elsewhere"] = held
    return out


def owners_of(doc: dict) -> dict[str, int]:
    """Model id -> player, from a save's table and held-back models."""
    out: dict[str, int] = {}
    for e in doc.get("table", {}).get("models", []):
        out[str(e.get("id"))] = int(e.get("player", 0))
    for h in doc.get("elsewhere", []) or []:
        m = h.get("model", {})
        out[str(m.get("id"))] = int(m.get("player", 0))
    return out
