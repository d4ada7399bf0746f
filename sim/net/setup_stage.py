"""The set-up of a networked game (issue 14): the rulebook's set-up (p.20: roll-off, terrain,
deployment zones, who deploys first, deployment, Flank, Scouts; p.60-63) played step by
step by the two seats on the server's :class:`~sim.rules.setup.GameSetup`, the only judge.

A seat sends a step (``Step.to_dict()``: its kind and fields; the seat is its player) or
asks for its next step by the engine's policy (``auto``: :func:`sim.rules.setup.auto.auto_step`,
what a bot seat does). Every step is judged with every reason and its page; refused, it
changes nothing. When the set-up is done the :class:`~sim.rules.game.Game` starts.

What a seat sees: everything on the table, the roll-off, the zones, the models placed,
which models wait and which are held back to Flank -- but the turn and edge of the
other seat's Flank models stay hidden (p.52: "noted in secret").
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from sim.rules.setup import GameSetup, SetupError, Step, TableChoice
from sim.rules.setup.auto import auto_step, pick_warband
from sim.rules.setup.warbands import catalogues, default_catalogue_dir


def _with_table_file(text: str, make):
    """``make(path)`` with the table text written to a temporary file (the set-up reads
    its table from a file)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.yaml"
        path.write_text(text, encoding="utf-8")
        return make(path)


class SetupStage:
    """The set-up of one networked game.

    Args:
        setup: the set-up (its table read from ``table_text``).
        table_text: the table file's YAML text (kept to rebuild the set-up after a restart).
        length: the game length for the game that follows, or None.
    """

    def __init__(self, setup: GameSetup, table_text: str, length: tuple[str, int] | None,
                 data: str | None = None) -> None:
        self.setup = setup
        self.table_text = table_text
        self.length = length
        #: the catalogue directory of the picked warbands.
        self.data = data

    @classmethod
    def new(cls, table_text: str, warbands: list[str], seed: int, rice: int, scenario: str | None,
            length: tuple[str, int] | None, data: str | None) -> "SetupStage":
        """A fresh set-up on the terrain of the table (its models left out), each warband
        picked from the catalogues (a legal warband of ``rice``, seeded ``seed + side``, as
        ``main.py play --warbands``).

        Raises:
            SetupError: no catalogues, an unknown faction, a scenario or table refused.
        """
        from sim.rules.setup.reasons import Refusal

        data = data or default_catalogue_dir()
        if data is None:
            raise SetupError(Refusal("warbands", "the server has no catalogues (serve --data DIR)"))
        cs = catalogues(data)
        chosen = {side: pick_warband(cs, name, rice, seed=seed + side) for side, name in enumerate(warbands, 1)}
        setup = _with_table_file(table_text, lambda p: GameSetup(TableChoice.terrain_of(p), scenario=scenario,
                                                                warbands=chosen, seed=seed))
        return cls(setup, table_text, length, str(data))

    def to_spec(self) -> dict:
        """What the store keeps to rebuild this set-up: the set-up's choices (no steps),
        the table text and the game length."""
        doc = self.setup.to_dict()
        doc["steps"] = []
        for w in doc.get("warbands", {}).values():
            if w.get("kind") == "picked" and not w.get("data") and self.data:
                w["data"] = self.data  # a picked warband is rebuilt from its catalogues
        return {"setup": doc, "table_text": self.table_text,
                "length": list(self.length) if self.length else None}

    @classmethod
    def from_spec(cls, spec: dict) -> "SetupStage":
        """The set-up of :meth:`to_spec`, no step taken.

        Raises:
            SetupError: the choices cannot be rebuilt.
        """
        text = spec["table_text"]

        def make(path: Path) -> GameSetup:
            doc = dict(spec["setup"])
            doc["table"] = {**doc["table"], "path": str(path)}
            return GameSetup.from_dict(doc)

        length = tuple(spec["length"]) if spec.get("length") else None
        return cls(_with_table_file(text, make), text, length)  # type: ignore[arg-type]

    # ------------------------------------------------------------ who, what
    @property
    def phase(self) -> str:
        """The set-up's phase (:data:`sim.rules.setup.PHASES`)."""
        return self.setup.phase

    def to_act(self) -> int | None:
        """The seat whose step it is (None: the roll-off, which either seat starts, or done)."""
        return self.setup.to_act

    def owners(self) -> dict[str, int]:
        """Model id -> player."""
        return {r.id: r.player for r in self.setup.recruits}

    def take(self, seat: int, doc: Any, auto: bool) -> tuple[Step | None, str | None]:
        """Seat ``seat``'s step ``doc`` (or, with ``auto``, its next step by the engine's
        policy): ``(step as recorded, None)``, or ``(None, every reason)`` unchanged."""
        s = self.setup
        if s.phase == "done":
            return None, "the set-up is done"
        if s.phase != "roll_off" and s.to_act != seat:
            return None, f"not your step: the set-up waits for player {s.to_act} ({s.phase.replace('_', '-')})"
        if auto:
            try:
                step = auto_step(s, seat)
            except SetupError as exc:
                return None, str(exc)
            return (step, None) if step is not None else (None, "no step of yours now")
        try:
            step = Step.from_dict(doc)
        except SetupError as exc:
            return None, str(exc)
        if step.kind != "roll_off" and step.player != seat:
            return None, f"a step of player {step.player}: you are player {seat}"
        try:
            return s.apply(step), None
        except SetupError as exc:
            return None, str(exc)

    def replay(self, doc: dict) -> None:
        """Apply a stored step again (a restart).

        Raises:
            SetupError: the rules refuse it now.
        """
        self.setup.apply(Step.from_dict(doc))

    def game(self):
        """The :class:`~sim.rules.game.Game` once the set-up is done (its seed, the length).

        Raises:
            SetupError: the set-up is not done.
        """
        return self.setup.game(length=self.length)

    # ------------------------------------------------------------ views
    def step_for(self, step: dict, viewer: int | None) -> dict:
        """A step (JSON) as ``viewer`` sees it (:func:`step_view`)."""
        return step_view(step, viewer)

    def view(self, viewer: int | None) -> dict:
        """The set-up as ``viewer`` sees it: phase, who acts, the roll-off, the zones
        (their polygons, inches), the zone options, who deploys first, the table (terrain
        and the models placed, ``Table.to_dict()``), the deployment kind, every model
        with its player, name, base radius (inches), Flank and Scout (``[X, Y]`` or
        None), the models waiting per player, those held back (the turn and edge only for
        one's own), the players finished, the steps (as the viewer sees them)."""
        s = self.setup
        ph = s.phase
        roll = None
        if s.roll is not None:
            roll = {"winner": s.roll.winner, "lines": s.roll.lines()}
        zones = {str(p): {"id": z.id, "shape": [list(c) for c in z.shape.exterior.coords]}
                 for p, z in s.zones.items() if hasattr(z.shape, "exterior")}
        flanking = {}
        for mid, (turn, edge) in s.flanking.items():
            own = self.owners().get(mid) == viewer
            flanking[mid] = {"turn": turn, "edge": edge} if own else {}
        return {"phase": ph, "to_act": s.to_act, "chooser": s.chooser, "roll": roll, "zones": zones,
                "zone_options": [z.id for z in s.zone_options()] if ph == "zone" else [],
                "deployment": s.deployment, "first": s.first, "table": s.table().to_dict(),
                "recruits": [{"id": r.id, "player": r.player, "name": r.name, "radius": r.radius, "flank": r.flank,
                              "scout": list(r.scout) if r.scout else None} for r in s.recruits],
                "waiting": {str(p): [r.id for r in s.waiting(p)] for p in (1, 2)},
                "flanking": flanking, "finished": sorted(s.finished),
                "steps": [self.step_for(st.to_dict(), viewer) for st in s.steps]}


def step_view(step: dict, viewer: int | None) -> dict:
    """A set-up step (JSON) as ``viewer`` sees it: the other seat's Flank turn and edge
    hidden (p.52).

    >>> step_view({"kind": "flank", "player": 1, "model": "m", "turn": 3, "edge": "west"}, 2)
    {'kind': 'flank', 'player': 1, 'model': 'm'}
    """
    if step.get("kind") == "flank" and step.get("player") != viewer:
        return {k: v for k, v in step.items() if k not in ("turn", "edge")}
    return step
