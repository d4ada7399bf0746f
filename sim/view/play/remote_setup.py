"""The set-up of a networked game in the window (issue 14; rulebook "Game Setup" p.20,
"Terrain" p.60-62, "Deployment" p.63): ``main.py new URL --warbands A,B --setup`` makes
a game whose set-up the two seats play step by step on the server
(:mod:`sim.net.setup_stage`); this is the seat's screen for it.

Two layers, as the set-up screens at one screen (:mod:`~sim.view.play.setup_flow` and
:mod:`~sim.view.play.setup_screens`):

- :class:`RemoteSetup`: pure Python, no Panda3D. It reads the set-up **as this seat
  sees it** (``mirror.setup``: ``SetupStage.view`` -- phase, who acts, the roll-off, the
  zones as polygons, the table with the models placed, the models waiting, Flank held
  back) and turns the player's input into set-up steps (``Step.to_dict()``) *sent* to the
  server, which judges them with every reason and its page. A refused step comes back as
  an ``error`` shown in red (:attr:`RemoteSetup.refusal`); nothing changed. The pointer's
  ghost is judged here only as a hint (the zone, the table's edge, other bases, the
  terrain rules): the server is the only judge.
- :class:`RemoteSetupScreen`: the DirectGUI side column beside the 3D table (terrain,
  the two zones, the models already placed, the base the pointer would place): the
  roll-off button, the terrain presets and "Stop placing", the zone buttons, "Player N
  deploys first", the list of this seat's waiting models (select one, click the table;
  ``q``/``e`` turn it from its facing toward the opponent), "hold back to Flank" with
  its turn and edge, "Keep the Scouts back", and "Auto" (the engine's policy takes this
  seat's next step). A spectator sees the same screen without buttons. When the set-up
  is done the server sends the game (``state``) and ``on_done`` swaps in the game
  window (:class:`sim.view.play.remote.RemoteSession`).

Table points are inches, facings degrees counter-clockwise from +x.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from shapely.geometry import Point, Polygon

from sim.geometry import CONTACT, EPS
from sim.geometry.primitives import heading
from sim.rules.setup import FLANK_EDGES, FLANK_TURNS, MIN_TERRAIN, Refusal, make_zone, preset_piece, presets
from sim.rules.setup.reasons import PAGE_PLACEMENT
from sim.rules.setup.terrain import terrain_refusals
from sim.rules.setup.zones import DeploymentZone, all_zone_shapes, edge_refusal
from sim.table import Table, TableError, parse_table

from .setup_flow import ROTATE_STEP, Ghost, snap_point

#: The set-up phases in words.
PHASE_WORDS = {"roll_off": "roll-off", "terrain": "terrain", "zone": "deployment zone", "first": "who deploys first",
               "deploy": "deployment", "scouts": "Scout deployment", "done": "done"}


def preload_catalogues() -> threading.Thread | None:
    """Load the BattleScribe catalogues (:func:`sim.rules.setup.default_catalogue_dir`)
    on a thread of their own while the set-up is played, so that the game the server
    sends at its end (whose models name catalogue profiles) is read without a pause on
    the render thread (:func:`sim.net.client.mirror_game` would load them then). Returns
    the thread, or None without catalogues."""
    from sim.rules.setup import SetupError, catalogues, default_catalogue_dir

    data = default_catalogue_dir()
    if data is None:
        return None

    def load() -> None:
        try:
            catalogues(data)
        except SetupError:
            pass  # mirror_game says so when the game comes

    th = threading.Thread(target=load, name="bushido-catalogues", daemon=True)
    th.start()
    return th


def step_words(step: dict) -> str:
    """A set-up step (JSON, as the viewer sees it) in words.

    >>> step_words({"kind": "deploy", "player": 1, "model": "ton", "point": [12.0, 0.79], "facing": 90.0})
    'player 1 deploys ton at (12.0, 0.8)'
    >>> step_words({"kind": "flank", "player": 2, "model": "eiko"})
    'player 2 holds eiko back to Flank (turn and edge secret)'
    """
    k, p = step.get("kind"), step.get("player")
    if k == "roll_off":
        return "the roll-off" + (f" ({' '.join(map(str, step['dice']))})" if step.get("dice") else "")
    if k == "terrain":
        pt = step.get("point") or [0, 0]
        return f"player {p} places {step.get('preset')} at ({pt[0]:.1f}, {pt[1]:.1f})"
    if k == "stop_terrain":
        return f"player {p} stops placing terrain"
    if k == "zone":
        return f"player {p} takes the {step.get('zone')} zone"
    if k == "first":
        return f"player {p}: player {step.get('first')} deploys first"
    if k == "deploy":
        pt = step.get("point") or [0, 0]
        return f"player {p} deploys {step.get('model')} at ({pt[0]:.1f}, {pt[1]:.1f})"
    if k == "flank":
        if step.get("turn") is None:
            return f"player {p} holds {step.get('model')} back to Flank (turn and edge secret)"
        return f"player {p} holds {step.get('model')} back to Flank (turn {step['turn']}, {step.get('edge')} edge)"
    if k == "done":
        return f"player {p} keeps the Scouts back"
    return f"player {p}: {k}"


class RemoteSetup:
    """A seat's (or a spectator's) set-up of a networked game, pure (see the module
    docstring).

    Args:
        remote: the client: ``mirror`` (a :class:`sim.net.client.Mirror`: ``seat``,
            ``setup``, ``status``, ``game``, ``my_decision()``), ``send(message)`` and
            ``poll() -> list[dict]`` (the server's messages since the last call, applied
            to the mirror), as :class:`sim.net.client.ThreadedClient`.

    Attributes:
        selected: the waiting model the next click deploys, or None.
        facing_offset: degrees added to the facing toward the opponent (``q``/``e``).
        preset, rotation: the terrain piece the next click places (terrain phase).
        sent: the set-up message sent whose verdict has not come (nothing else is sent
            meanwhile), or None.
        refusal: the server's last refusal (every reason with its page), "" when none.
        note: the last thing that happened (the other seat's step, what was sent).
        version: bumps on every change (the screen redraws when it changes).
    """

    def __init__(self, remote) -> None:
        self.remote = remote
        self.selected: str | None = None
        self.facing_offset = 0.0
        names = presets()
        self.preset = names[0] if names else ""
        self.rotation = 0.0
        self.sent: dict | None = None
        self.refusal = ""
        self.note = ""
        self.version = 0
        self._table: tuple[object, Table | None] = (None, None)
        self._select_next()

    # ------------------------------------------------------------ reading
    @property
    def mirror(self):
        """The client's mirror."""
        return self.remote.mirror

    @property
    def seat(self) -> int | None:
        """This client's seat (None: a spectator)."""
        return self.mirror.seat

    @property
    def view(self) -> dict:
        """The set-up as this seat sees it (``SetupStage.view``), {} when none."""
        return self.mirror.setup or {}

    @property
    def phase(self) -> str:
        """The set-up's phase (``roll_off`` ... ``done``); ``done`` once the game is on."""
        if self.started:
            return "done"
        return str(self.view.get("phase") or (self.mirror.status or {}).get("setup_phase") or "done")

    @property
    def to_act(self) -> int | None:
        """The seat whose step it is (None: the roll-off, which either seat starts)."""
        return self.view.get("to_act")

    @property
    def started(self) -> bool:
        """The set-up is done and the game has come (the mirror has a game)."""
        return self.mirror.game is not None

    def my_step(self) -> bool:
        """Whether this seat may send a set-up step now (its step, or the roll-off,
        and no verdict awaited)."""
        return (self.seat in (1, 2) and not self.started and bool(self.view) and self.sent is None
                and bool(self.mirror.my_decision()))

    @property
    def width(self) -> float:
        """Table width, inches."""
        return float(((self.view.get("table") or {}).get("table") or {}).get("width", 24.0))

    @property
    def depth(self) -> float:
        """Table depth, inches."""
        return float(((self.view.get("table") or {}).get("table") or {}).get("depth", 24.0))

    def table(self) -> Table | None:
        """The table as the set-up stands (terrain and the models placed), read from
        the view (None without one, or one that cannot be read)."""
        doc = self.view.get("table")
        if self._table[0] is not doc:
            t = None
            if doc:  # the models' base, size and traits are written out: no catalogue needed here
                models = [{k: v for k, v in m.items() if k != "profile"} for m in doc.get("models", [])]
                flat = {**doc, "models": models}
                try:
                    t = parse_table(json.dumps(flat), source="the server's set-up")
                except TableError:
                    t = None
            self._table = (doc, t)
        return self._table[1]

    def recruit(self, model: str) -> dict:
        """The model ``model`` of the view (``id``, ``player``, ``name``, ``radius``,
        ``flank``, ``scout``). Raises KeyError."""
        for r in self.view.get("recruits") or []:
            if r.get("id") == model:
                return r
        raise KeyError(f"no model {model!r} in the set-up")

    def waiting(self, player: int | None = None) -> list[dict]:
        """The models of ``player`` (default this seat) waiting to be deployed or held
        back (Scouts last during the normal deployment)."""
        p = self.seat if player is None else player
        ids = set((self.view.get("waiting") or {}).get(str(p)) or [])
        left = [r for r in self.view.get("recruits") or [] if r.get("id") in ids]
        return sorted(left, key=lambda r: r.get("scout") is not None) if self.phase == "deploy" else left

    def zone(self, player: int) -> DeploymentZone | None:
        """``player``'s deployment zone, once chosen (rebuilt from its id)."""
        z = (self.view.get("zones") or {}).get(str(player))
        if not z:
            return None
        try:
            return make_zone(str(self.view.get("deployment") or "baseline"), str(z["id"]), self.width, self.depth)
        except ValueError:
            return None

    def zones_to_draw(self) -> list[tuple[int | None, Any, str]]:
        """``(player or None, shapely geometry, label)`` of the zones to draw: the
        options while the zone is chosen (None), then the two players' zones (their
        polygons from the server), and the Scout area of a selected Scout."""
        v = self.view
        out: list[tuple[int | None, Any, str]] = []
        if self.phase == "zone":
            for zid in v.get("zone_options") or []:
                try:
                    out.append((None, make_zone(str(v.get("deployment") or "baseline"), zid, self.width,
                                                self.depth).shape, zid))
                except ValueError:
                    pass
            return out
        for p, z in sorted((v.get("zones") or {}).items()):
            try:
                out.append((int(p), Polygon(z["shape"]), f"player {p}"))
            except (ValueError, TypeError, KeyError):
                continue
        if self.phase == "scouts" and self.selected is not None and self.seat in (1, 2):
            r = self.recruit(self.selected)
            zone = self.zone(self.seat)
            if zone is not None and r.get("scout") and float(r["scout"][1]) > 0:
                out.append((self.seat, zone.scout_shape(float(r["scout"][1]), float(r["radius"])), "scout"))
        return out

    def steps(self) -> list[dict]:
        """The steps taken so far, as this seat sees them."""
        return list(self.view.get("steps") or [])

    def pieces_placed(self) -> int:
        """How many terrain pieces the players have placed."""
        return sum(1 for s in self.steps() if s.get("kind") == "terrain")

    def terrain_stopped(self) -> bool:
        """Whether a player has stopped placing terrain (the other may place one last)."""
        return any(s.get("kind") == "stop_terrain" for s in self.steps())

    # ------------------------------------------------------------ the pointer
    def facing_at(self, point) -> float:
        """The facing of a model deployed at ``point``: toward the opponent (square to a
        baseline, toward the table centre from a corner), plus :attr:`facing_offset`."""
        zone = self.zone(self.seat) if self.seat in (1, 2) else None
        if zone is not None and zone.kind == "baseline":
            base = 90.0 if zone.id == "south" else 270.0
        else:
            base = heading(self.width / 2 - float(point[0]), self.depth / 2 - float(point[1]))
        return (base + self.facing_offset) % 360.0

    def rotate(self, delta: float = ROTATE_STEP) -> None:
        """Turn the terrain piece (terrain phase) or the model by ``delta`` degrees."""
        if self.phase == "terrain":
            self.rotation = (self.rotation + delta) % 360.0
        else:
            self.facing_offset = (self.facing_offset + delta) % 360.0
        self._changed()

    def set_preset(self, name: str) -> None:
        """The terrain preset the next click places."""
        if name in presets():
            self.preset = name
            self._changed()

    def select(self, model: str | None) -> None:
        """Choose the waiting model the next click deploys (one of this seat's)."""
        if model is not None and model not in {r["id"] for r in self.waiting()}:
            self.refusal = f"{model} is not one of your models waiting to be deployed"
        else:
            self.selected = model
            self.facing_offset = 0.0
        self._changed()

    def _select_next(self) -> None:
        if self.phase not in ("deploy", "scouts") or self.seat not in (1, 2):
            self.selected = None
            return
        left = [r["id"] for r in self.waiting()]
        if self.selected not in left:
            self.selected = left[0] if left else None
            self.facing_offset = 0.0

    def snap(self, point, radius: float) -> tuple[float, float]:
        """Where a base of ``radius`` clicked at ``point`` goes (:func:`snap_point` in
        this seat's zone)."""
        zone = self.zone(self.seat) if self.seat in (1, 2) else None
        return snap_point(zone, point, radius, self.width, self.depth, normal=self.phase == "deploy")

    def _hint_refusals(self, r: dict, point: tuple[float, float]) -> list[Refusal]:
        """What the server would refuse, as far as the view tells: outside the zone (or
        the Scout's reach), past the table's edge, on another base, in Impassable
        terrain. A hint; the server judges."""
        out: list[Refusal] = []
        radius = float(r.get("radius") or 0.5)
        zone = self.zone(int(r["player"]))
        if zone is not None:
            sc = r.get("scout")
            out += (zone.scout_refusals(point, radius, float(sc[1]) if sc else 0.0) if self.phase == "scouts"
                    else zone.refusals(point, radius))
        x, y = point
        past = max(radius - x, radius - y, x + radius - self.width, y + radius - self.depth)
        if past > EPS:
            out.append(Refusal("off-table", f"the base reaches {past:.3f}\" past the table edge", PAGE_PLACEMENT))
        t = self.table()
        for m in (t.models if t is not None else ()):
            gap = math.dist(m.position, point) - m.radius - radius
            if gap < -EPS:
                out.append(Refusal("overlap", f"the base overlaps the base of {m.id} by {-gap:.3f}\"", PAGE_PLACEMENT))
            elif m.player != r.get("player") and gap <= CONTACT:
                out.append(Refusal("enemy-contact", f"the base touches the enemy {m.id}", PAGE_PLACEMENT))
        disc = Point(x, y).buffer(radius - EPS, 32)
        for piece in (t.terrain if t is not None else ()):
            if piece.passage.value == "impassable" and piece.footprint.shape.intersects(disc):
                out.append(Refusal("impassable", f"the base stands in Impassable terrain {piece.id}", PAGE_PLACEMENT))
        return out

    def ghost(self, point) -> Ghost | None:
        """What a click at ``point`` (inches) would send now, with the refusals the
        view lets us foresee (:meth:`_hint_refusals`; the terrain rules for a piece);
        None when a click sends nothing (not this seat's step, no model selected)."""
        if point is None or not self.my_step():
            return None
        pt = (float(point[0]), float(point[1]))
        if self.phase == "terrain":
            try:
                piece = preset_piece(self.preset, self.preset, pt, self.rotation)
            except ValueError:
                return None
            t = self.table()
            why = terrain_refusals(piece, t.terrain if t is not None else (), self.width, self.depth,
                                   all_zone_shapes(str(self.view.get("deployment") or "baseline"), self.width,
                                                   self.depth))
            return Ghost("terrain", self.preset, pt, self.rotation, 0.0, tuple(why), piece)
        if self.phase in ("deploy", "scouts") and self.selected is not None:
            r = self.recruit(self.selected)
            pt = self.snap(pt, float(r.get("radius") or 0.5))
            return Ghost("model", r["id"], pt, self.facing_at(pt), float(r.get("radius") or 0.5),
                         tuple(self._hint_refusals(r, pt)))
        return None

    # ------------------------------------------------------------ sending steps
    def _send(self, step: dict | None, what: str) -> bool:
        if self.seat not in (1, 2):
            self.refusal = "a spectator takes no set-up step"
        elif self.started:
            self.refusal = "the set-up is over: the game is being played"
        elif self.sent is not None:
            self.refusal = "the last step is still with the server: wait for its verdict"
        elif not self.mirror.my_decision():
            who = self.to_act
            self.refusal = (f"not your step: waiting for player {who} ({PHASE_WORDS.get(self.phase, self.phase)})"
                            if who else "not your step now")
        else:
            doc = {"type": "setup", "step": step, "auto": step is None}
            self.remote.send(doc)
            self.sent = doc
            self.refusal = ""
            self.note = f"sent: {what}; waiting for the server"
            self._changed()
            return True
        self._changed()
        return False

    def roll(self) -> bool:
        """Start the roll-off (the Deployment Tactical test, p.20 step 4a; either seat)."""
        return self._send({"kind": "roll_off", "player": 0}, "the roll-off")

    def place(self, point) -> bool:
        """Terrain phase: place the preset turned :attr:`rotation` centred at ``point``."""
        pt = [float(point[0]), float(point[1])]
        return self._send({"kind": "terrain", "player": self.seat or 0, "preset": self.preset, "point": pt,
                           "rotation": self.rotation}, f"{self.preset} at ({pt[0]:.1f}, {pt[1]:.1f})")

    def stop_terrain(self) -> bool:
        """Stop placing terrain (or decline the last piece, p.20 step 4b)."""
        return self._send({"kind": "stop_terrain", "player": self.seat or 0}, "stop placing terrain")

    def choose_zone(self, zone: str) -> bool:
        """Take deployment zone ``zone`` (the opponent gets the opposite, p.63)."""
        return self._send({"kind": "zone", "player": self.seat or 0, "zone": zone}, f"the {zone} zone")

    def choose_first(self, first: int) -> bool:
        """The roll-off winner lets ``first`` deploy first (p.20 step 7)."""
        return self._send({"kind": "first", "player": self.seat or 0, "first": int(first)},
                          f"player {first} deploys first")

    def deploy(self, point, facing: float | None = None) -> bool:
        """Deploy the selected model with its base centre at ``point`` (snapped,
        :meth:`snap`), facing ``facing`` (default :meth:`facing_at`)."""
        if self.selected is None:
            self.refusal = "select one of your waiting models first"
            self._changed()
            return False
        r = self.recruit(self.selected)
        pt = self.snap(point, float(r.get("radius") or 0.5))
        f = self.facing_at(pt) if facing is None else float(facing) % 360.0
        return self._send({"kind": "deploy", "player": self.seat or 0, "model": r["id"], "point": [pt[0], pt[1]],
                           "facing": f}, f"deploy {r['id']} at ({pt[0]:.1f}, {pt[1]:.1f})")

    def click(self, point) -> bool:
        """A click on the table at ``point`` (inches): place the preset (terrain) or
        deploy the selected model there. Returns whether a step was sent."""
        if point is None:
            return False
        if self.phase == "terrain":
            return self.place(point)
        if self.phase in ("deploy", "scouts"):
            return self.deploy(point)
        return False

    def can_flank(self) -> bool:
        """Whether the selected model has the Flank trait (p.52)."""
        if self.selected is None or self.phase not in ("deploy", "scouts"):
            return False
        try:
            return bool(self.recruit(self.selected).get("flank"))
        except KeyError:
            return False

    def flank_options(self) -> list[tuple[int, str, tuple[Refusal, ...]]]:
        """``(turn, edge, refusals)`` for each Flank choice of the selected model (turn
        2-4 x the table edges, p.52): an edge wholly in the opponent's zone refused with
        its reason; [] when it cannot Flank."""
        if not self.can_flank() or self.seat not in (1, 2) or self.selected is None:
            return []
        r = self.recruit(self.selected)
        opp = self.zone(3 - int(self.seat or 1))
        out = []
        for t in FLANK_TURNS:
            for e in FLANK_EDGES:
                why = edge_refusal(e, opp, float(r.get("radius") or 0.5), self.width, self.depth)
                out.append((t, e, (why,) if why is not None else ()))
        return out

    def flank(self, turn: int, edge: str) -> bool:
        """Hold the selected model back to Flank: it arrives on ``turn`` from ``edge``
        (p.52; the other seat is not told either)."""
        if self.selected is None:
            self.refusal = "select one of your waiting models first"
            self._changed()
            return False
        return self._send({"kind": "flank", "player": self.seat or 0, "model": self.selected, "turn": int(turn),
                           "edge": edge}, f"hold {self.selected} back to Flank (turn {turn}, {edge} edge)")

    def done(self) -> bool:
        """End the normal deployment, keeping the Scouts left back (p.57)."""
        return self._send({"kind": "done", "player": self.seat or 0}, "keep the Scouts back")

    def auto(self) -> bool:
        """Let the engine's policy take this seat's next step (as a bot's set-up)."""
        return self._send(None, "auto (the engine's step)")

    # ------------------------------------------------------------ the server
    def _changed(self) -> None:
        self.version += 1

    def sync(self) -> list[dict]:
        """Take in what the server sent (``remote.poll()``): a step's verdict clears
        :attr:`sent`; a refusal sets :attr:`refusal` (every reason) and changes nothing;
        the other seat's step is told in :attr:`note`. Returns the messages."""
        msgs = list(self.remote.poll())
        if not msgs:
            return msgs
        for msg in msgs:
            kind = msg.get("type")
            if kind in ("welcome", "state", "disconnected"):
                self.sent = None
                if kind == "disconnected":
                    self.note = f"connection lost ({msg.get('message', '')}): reconnecting"
                elif kind == "welcome" and self.note.startswith("connection lost"):
                    self.note = "connected again: the set-up as the server has it"
            elif kind == "setup_update":
                step = msg.get("step") or {}
                mine = step.get("player") == self.seat or (step.get("kind") == "roll_off" and self.sent is not None
                                                            and (self.sent.get("step") or {}).get("kind") == "roll_off")
                if mine and self.sent is not None:
                    self.sent = None
                    self.refusal = ""
                    self.note = f"done: {step_words(step)}"
                elif not mine or self.seat is None:
                    self.note = step_words(step)
                    if self.sent is not None and self.sent.get("auto") and step.get("kind") == "roll_off":
                        self.sent = None  # an auto roll-off of ours, or the other seat's first
            elif kind == "error":
                self.sent = None
                self.refusal = str(msg.get("message") or msg.get("code") or "refused")
        self._select_next()
        self._changed()
        return msgs

    def take_refusal(self) -> str:
        """The last refusal, then "" until the next."""
        out, self.refusal = self.refusal, ""
        return out

    # ------------------------------------------------------------ words
    def progress(self) -> list[str]:
        """Each player's deployment in a line: models placed, held back to Flank,
        waiting, finished."""
        v = self.view
        t = self.table()
        out = []
        for p in (1, 2):
            placed = sum(1 for m in (t.models if t is not None else ()) if m.player == p)
            owners = {r["id"]: r.get("player") for r in v.get("recruits") or []}
            flank = sum(1 for mid in (v.get("flanking") or {}) if owners.get(mid) == p)
            wait = len((v.get("waiting") or {}).get(str(p)) or [])
            zone = (v.get("zones") or {}).get(str(p))
            words = [f"Player {p}" + (f" ({zone['id']} zone)" if zone else "") + f": {placed} placed"]
            if flank:
                words.append(f"{flank} held back to Flank")
            words.append(f"{wait} waiting")
            if p in (v.get("finished") or []):
                words.append("finished")
            out.append(", ".join(words))
        return out

    def turn_line(self) -> str:
        """Whose step it is, in words ("Your step: ...", "Waiting for player 2 ...")."""
        ph = self.phase
        if self.started or ph == "done":
            return "The set-up is done: the game starts."
        what = PHASE_WORDS.get(ph, ph)
        if ph == "roll_off":
            return "Roll-off: either player starts it" + (" (press Roll off)" if self.seat in (1, 2) else "")
        who = self.to_act
        if self.seat in (1, 2) and who == self.seat:
            return f"Your step: {what}"
        return f"Waiting for player {who}: {what}"

    def hints(self) -> list[str]:
        """What to do now, in words."""
        ph = self.phase
        if self.seat not in (1, 2):
            return ["Watching the set-up (spectator)."]
        if not self.my_step():
            if self.sent is not None:
                return ["Waiting for the server's verdict."]
            return [] if ph != "done" else ["The game starts."]
        if ph == "roll_off":
            return ["Roll off: the Deployment Tactical test (p.20, p.28); its winner places the first terrain",
                    "piece and decides who deploys first."]
        if ph == "terrain":
            last = " (one last piece, or stop)" if self.terrain_stopped() else ""
            return [f"Place a terrain piece{last} (p.20, p.62): {self.pieces_placed()} placed; from "
                    f"{MIN_TERRAIN} on a player may stop.",
                    f"Preset: {self.preset}, turned {self.rotation:g} deg. Click the table; q/e turn it."]
        if ph == "zone":
            return [f"Choose a deployment zone ({str(self.view.get('deployment') or '').replace('_', ' ')}, p.63)."]
        if ph == "first":
            return ["You won the roll-off: who deploys first? (p.20 step 7)"]
        if ph in ("deploy", "scouts"):
            what = "Scout" if ph == "scouts" else "model"
            return [f"Select a {what}, click the table in your zone to deploy it (p.63); q/e turn it.",
                    f"Selected: {self.selected}." if self.selected else "No model selected."]
        return []


# ================================================================ the screen (Panda3D)
class RemoteSetupScreen:
    """The set-up of a networked game in ``base``'s window (see the module docstring):
    the table on the right, the side column on the left.

    Args:
        base: a ShowBase (:func:`sim.view.play.shell.get_base`).
        setup: the :class:`RemoteSetup` of the client.
        on_done: called once (no arguments) when the game has come (the set-up done).
        status: ``f(setup, elapsed) -> list[str]``: the connection lines shown first (who
            you are, who is connected, the clocks ``elapsed`` seconds after the last
            status: :func:`sim.view.play.remote.net_lines`), or None.
        clock: the clock of the time away and the chess clocks (seconds).

    Attributes:
        scene: the :class:`~sim.view.scene3d.TableScene` drawn.
        cam: the :class:`~sim.view.play.tablecam.TableCamera`.
        ghost: the :class:`~sim.view.play.setup_flow.Ghost` drawn, or None.
        buttons: the buttons shown now, by name (``roll``, ``zone:south``, ``first:1``,
            ``flank:2:west``, ``model:ID``, ``done``, ``auto``, ``stop``, ``preset:NAME`` ...).
        lines: the side column's text, in order (for tests and the screenshot).
    """

    def __init__(self, base, setup: RemoteSetup, on_done: Callable[[], None],
                 status: Callable[[RemoteSetup, float], list[str]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from direct.gui.DirectGui import DirectFrame, DirectLabel
        from direct.showbase.DirectObject import DirectObject
        from panda3d.core import TextNode

        from . import panels as P

        self.base = base
        self.setup = setup
        self.on_done = on_done
        self.status = status
        self.clock = clock
        #: when (``clock()``) the last message from the server came
        self.status_at = clock()
        self._second: object = None
        self._win_size: tuple[int, int] | None = None  # the window size the camera was fitted to
        self._hover: object = None
        self.software = bool(getattr(base, "bushido_offscreen", False))
        self.font = P.gui_font(base)
        self.small = P.gui_font(base, P.SMALL_SCALE)
        self.root = DirectFrame(parent=base.aspect2d, frameColor=(0, 0, 0, 0))
        self.widgets: list = []
        self.buttons: dict[str, Any] = {}
        self.lines: list[str] = []
        self.scene = None
        self.cam = None
        self.ghost: Ghost | None = None
        self._overlay = base.render.attach_new_node("remote-setup-overlay")
        self._ghost_np = base.render.attach_new_node("remote-setup-ghost")
        self._drawn: object = None
        self._table_key: object = None
        self._pressed = False
        self._closed = False
        self._finished = False
        self._events = DirectObject()
        a = self._aspect()
        self.verdict = DirectLabel(parent=self.root, text="", text_fg=P.BAD, text_font=self.small,
                                   text_align=TextNode.A_left, relief=None, scale=P.SMALL_SCALE,
                                   pos=(-a + 0.03, 0, -0.7), sortOrder=10)
        for name in ("q", "e", "v", "enter"):
            self._events.accept(name, self.key, [name])
        self._events.accept("mouse1", self._mouse, ["press"])
        self._events.accept("mouse1-up", self._mouse, ["release"])
        base.task_mgr.add(self._task, "bushido-remote-setup")
        self.refresh(force=True)

    # ------------------------------------------------------------ plumbing
    def _aspect(self) -> float:
        return self.base.win.get_x_size() / max(1, self.base.win.get_y_size())

    def _mouse(self, what: str) -> None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.has_mouse():
            return
        m = mw.get_mouse()
        (self.press_ndc if what == "press" else self.release_ndc)(m.x, m.y)

    def _task(self, task):
        self.tick()
        if self._closed:  # the game came: the game window took over
            return task.done
        mw = self.base.mouseWatcherNode
        if not self._closed and mw is not None and mw.has_mouse() and self.cam is not None:
            m = mw.get_mouse()
            self.hover_ndc(m.x, m.y)
        return task.cont

    def tick(self) -> None:
        """One frame: take in the server's messages, redraw what changed, and hand over
        to ``on_done`` once the game has come."""
        if self._closed:
            return
        if self.setup.sync():
            self.status_at = self.clock()
        if self.setup.started:
            self._finish()
            return
        win = getattr(self.base, "win", None)
        size = (win.get_x_size(), win.get_y_size()) if win is not None else None
        if size != self._win_size and self.cam is not None:  # opened or resized: the whole table in view
            self._win_size = size
            self.cam.fit_lens()
            self.cam.reset()
        st = self.setup.mirror.status or {}
        counting = st.get("clocks") or not all((st.get("connected") or {}).values())
        second = int(self.clock() - self.status_at) if counting else None
        self.refresh(force=second != self._second)  # the time away and the clocks count on
        self._second = second

    def _finish(self) -> None:
        if not self._finished:
            self._finished = True
            self.on_done()

    def destroy(self) -> None:
        """Remove everything the screen added (widgets, nodes, its task and keys)."""
        if self._closed:
            return
        self._closed = True
        self._events.ignore_all()
        self.base.task_mgr.remove("bushido-remote-setup")
        self._clear_widgets()
        self.verdict.destroy()
        self.root.destroy()
        if self.scene is not None:
            self.scene.root.remove_node()
            self.scene = None
        if self.cam is not None:
            self.cam.destroy()
            self.cam = None
        self._overlay.remove_node()
        self._ghost_np.remove_node()

    def _clear_widgets(self) -> None:
        for w in self.widgets:
            w.destroy()
        self.widgets = []
        self.buttons = {}
        self.lines = []

    # ------------------------------------------------------------ drawing
    def refresh(self, force: bool = False) -> None:
        """Redraw what changed (everything when ``force``)."""
        if self._closed:
            return
        s = self.setup
        key = (s.version, s.phase, id(s.view))
        if not force and key == self._drawn:
            return
        self._drawn = key
        self._clear_widgets()
        self._draw_table()
        self._draw_side()
        if self.ghost is not None:
            self.ghost = s.ghost(self.ghost.point)
        self._draw_ghost()

    def _draw_table(self) -> None:
        from ..scene3d import TableScene
        from .setup_screens import SIDE_W
        from .tablecam import TableCamera

        s = self.setup
        table = s.table()
        if table is None:
            return
        a = self._aspect()
        if self.cam is None:
            self.cam = TableCamera(self.base, table, (SIDE_W / (2 * a), 1.0, 0.0, 1.0))
        key = id(s.view.get("table")), s.phase
        if key != self._table_key:
            self._table_key = key
            if self.scene is not None:
                self.scene.root.remove_node()
            self.scene = TableScene(table, None, software=self.software)
            self.scene.root.reparent_to(self.base.render)
            self.scene.set_camera_pitch(self.cam.pitch)
            self.cam.table = table
            self._draw_zones()

    def _draw_zones(self) -> None:
        from panda3d.core import TransparencyAttrib

        from .. import style
        from ..layers.paint import rgba
        from ..mesh import MeshBuilder, rings_of
        from .setup_screens import OPTION_ZONE, ZONE_ALPHA, ZONE_Z

        self._overlay.node().remove_all_children()
        for player, geom, _label in self.setup.zones_to_draw():
            rgb = OPTION_ZONE if player is None else style.PLAYER[player]
            mb = MeshBuilder("zone")
            for ext, holes in rings_of(geom):
                mb.cap(ext, ZONE_Z, rgba(rgb, ZONE_ALPHA), holes=holes)
                ring = list(map(tuple, ext)) + [tuple(ext[0])]
                mb.polyline([(x, y, ZONE_Z + 0.004) for x, y in ring], 0.06, rgba(rgb, 0.9))
            np_ = self._overlay.attach_new_node(mb.node())
            np_.set_transparency(TransparencyAttrib.M_alpha)
            np_.set_light_off(1)
            np_.set_two_sided(True)
            np_.set_depth_write(False)
            np_.set_bin("fixed", 30)

    def _draw_ghost(self) -> None:
        from panda3d.core import TransparencyAttrib

        from .. import style
        from ..layers.paint import rgba
        from ..mesh import MeshBuilder, circle_ring, rings_of
        from . import panels as P
        from .setup_screens import SIDE_W

        if self._closed:
            return
        self._ghost_np.node().remove_all_children()
        g = self.ghost
        self.verdict["text"] = ""
        if g is None:
            return
        lines = [f"Here: {g.id} looks legal (the server judges)"] if g.legal else [
            f"Here: {g.id} would be refused:"] + [f"- {r}" for r in g.refusals]
        self.verdict["text"] = "\n".join(P.wrap(lines, P.chars(SIDE_W - 0.06, P.SMALL_SCALE)))
        self.verdict["text_fg"] = P.GOOD if g.legal else P.BAD
        rgb = style.MOVE_OK if g.legal else style.WARNING
        mb = MeshBuilder("ghost")
        if g.kind == "terrain" and g.piece is not None:
            for ext, holes in rings_of(g.piece.footprint.shape):
                mb.cap(ext, 0.05, rgba(rgb, 0.45), holes=holes)
        else:
            mb.cap(circle_ring(g.point, g.radius, 40), 0.06, rgba(rgb, 0.6))
            tip = (g.point[0] + math.cos(math.radians(g.rotation)) * g.radius,
                   g.point[1] + math.sin(math.radians(g.rotation)) * g.radius)
            mb.polyline([(g.point[0], g.point[1], 0.07), (tip[0], tip[1], 0.07)], 0.07, (0.05, 0.05, 0.06, 1))
        np_ = self._ghost_np.attach_new_node(mb.node())
        np_.set_transparency(TransparencyAttrib.M_alpha)
        np_.set_light_off(1)
        np_.set_two_sided(True)
        np_.set_depth_write(False)
        np_.set_bin("fixed", 40)

    def _label(self, lines, x: float, top: float, colour=None, scale=None, width: float = 1.0) -> float:
        from direct.gui.DirectGui import DirectLabel
        from panda3d.core import TextNode

        from . import panels as P

        scale = P.TEXT_SCALE if scale is None else scale
        lines = P.wrap([str(ln) for ln in lines if ln], P.chars(width, scale))
        if not lines:
            return top
        self.lines += lines
        lab = DirectLabel(parent=self.root, text="\n".join(lines), text_fg=colour or P.TEXT,
                          text_font=self.font if scale >= P.TEXT_SCALE else self.small, text_align=TextNode.A_left,
                          relief=None, scale=scale, pos=(x, 0, top - scale * 0.8))
        self.widgets.append(lab)
        return top - len(lines) * scale * 1.2 - 0.012

    def _button(self, name: str, text: str, command: Callable, x: float, z: float, width: float,
                enabled: bool = True, extra=(), colour=None, small: bool = False):
        from . import panels as P

        b = P.button(self.root, text, command, (x, z), width=width, enabled=enabled,
                     fnt=self.small if small else self.font, extra=extra, colour=colour or P.BUTTON, align="left",
                     scale=P.SMALL_SCALE if small else P.TEXT_SCALE)
        self.widgets.append(b)
        self.buttons[name] = b
        return b

    def _draw_side(self) -> None:
        from direct.gui.DirectGui import DirectFrame

        from .. import style
        from . import panels as P
        from .setup_screens import SIDE_W

        s = self.setup
        a = self._aspect()
        l, r = -a, -a + SIDE_W
        self.widgets.append(DirectFrame(parent=self.root, frameColor=P.PANEL, frameSize=(l, r, -1, 1)))
        x, w = l + 0.03, r - l - 0.06
        z = self._label([f"Set-up: {PHASE_WORDS.get(s.phase, s.phase)}"], x, 0.97, P.TITLE, P.TEXT_SCALE * 1.2, w)
        if self.status is not None:
            z = self._label(self.status(s, self.clock() - self.status_at), x, z, P.DIM, P.SMALL_SCALE, w)
        who = s.to_act
        z = self._label([s.turn_line()], x, z, P.PLAYER.get(who, P.TEXT) if who else P.TEXT, P.TEXT_SCALE, w)
        roll = s.view.get("roll")
        if roll:
            lines = P.wrap(["Roll-off (p.20, p.28):"] + list(roll.get("lines") or []), P.chars(w - 0.02,
                                                                                                P.SMALL_SCALE))
            tint = tuple(c * 0.45 for c in style.PLAYER[int(roll["winner"])]) + (1.0,)
            h = len(lines) * P.SMALL_SCALE * 1.2 + 0.03
            self.widgets.append(DirectFrame(parent=self.root, frameColor=tint, frameSize=(x - 0.01, x + w, z - h, z)))
            z = self._label(lines, x + 0.005, z - 0.01, P.TEXT, P.SMALL_SCALE, w) - 0.01
        z = self._label(s.progress(), x, z, P.TEXT, P.SMALL_SCALE, w)
        z = self._label(s.hints(), x, z - 0.01, P.DIM, P.SMALL_SCALE, w) - 0.01
        if s.my_step():
            z = self._controls(x, z, w)
        if s.refusal:
            z = self._label(["Refused by the server:"] + s.refusal.split("; "), x, z, P.BAD, P.SMALL_SCALE, w)
        elif s.note:
            z = self._label([s.note], x, z, P.GOOD, P.SMALL_SCALE, w)
        if s.seat in (1, 2):
            self._button("auto", "Auto (the engine's step)", self.auto, x, -0.93, 0.5, enabled=s.my_step())
        self._button("view", "View (v)", self.reset_camera, x + 0.54, -0.93, 0.22)

    def _controls(self, x: float, z: float, w: float) -> float:
        """The buttons of this seat's step; returns the z under them."""
        from . import panels as P

        s = self.setup
        ph = s.phase
        if ph == "roll_off":
            self._button("roll", "Roll off", self.roll, x, z - 0.04, 0.4)
            return z - 0.1
        if ph == "terrain":
            names = presets()
            for i, name in enumerate(names[:12]):
                on = name == s.preset
                self._button(f"preset:{name}", name, self.choose_preset, x + (i % 2) * (w / 2), z - 0.03,
                             w / 2 - 0.02, extra=[name], colour=(0.45, 0.38, 0.15, 1) if on else None, small=True)
                if i % 2:
                    z -= 0.055
            z -= 0.07
            self._button("turn", "Turn (q/e)", self.rotate, x, z, 0.3, extra=[ROTATE_STEP])
            self._button("stop", "Stop placing", self.stop_terrain, x + 0.34, z, 0.4,
                         enabled=s.pieces_placed() >= MIN_TERRAIN or s.terrain_stopped())
            return z - 0.09
        if ph == "zone":
            for zid in s.view.get("zone_options") or []:
                self._button(f"zone:{zid}", f"Take the {zid} zone", self.choose_zone, x, z - 0.03, w - 0.02,
                             extra=[zid], colour=(0.45, 0.38, 0.15, 1))
                z -= 0.075
            return z
        if ph == "first":
            for p in (1, 2):
                self._button(f"first:{p}", f"Player {p} deploys first" + (" (you)" if p == s.seat else ""),
                             self.choose_first, x, z - 0.03, w - 0.02, extra=[p])
                z -= 0.075
            return z
        if ph in ("deploy", "scouts"):
            left = s.waiting()
            z = self._label(["Your models waiting (select, then click the table):"], x, z, P.TITLE, P.SMALL_SCALE, w)
            for r in left[:10]:
                on = r["id"] == s.selected
                tags = ("  Scout" if r.get("scout") else "") + ("  Flank" if r.get("flank") else "")
                self._button(f"model:{r['id']}", f"{r.get('name') or r['id']}{tags}", self.select_model, x,
                             z - 0.025, w - 0.02, extra=[r["id"]], colour=(0.3, 0.45, 0.3, 1) if on else None,
                             small=True)
                z -= 0.052
            if len(left) > 10:
                z = self._label([f"... and {len(left) - 10} more (deploy these first)"], x, z, P.DIM,
                                P.SMALL_SCALE, w)
            z -= 0.03
            if s.can_flank():
                z = self._draw_flank(x, z, w)
            if ph == "deploy" and left and all(r.get("scout") for r in left):
                self._button("done", "Keep the Scouts back", self.done, x, z - 0.03, w - 0.02)
                z -= 0.085
            return z
        return z

    def _draw_flank(self, x: float, top: float, w: float) -> float:
        from . import panels as P

        s = self.setup
        opts = s.flank_options()
        z = self._label([f"Or hold {s.selected} back to Flank (p.52): the turn it arrives and the edge"], x, top,
                        P.TITLE, P.SMALL_SCALE, w)
        lab_w = 0.13
        bw = (w - lab_w) / len(FLANK_EDGES)
        refused: dict[str, str] = {}
        for t in FLANK_TURNS:
            self._label([f"turn {t}"], x, z - 0.008, P.TEXT, P.SMALL_SCALE, lab_w)
            for i, e in enumerate(FLANK_EDGES):
                why = next((rs for tt, ee, rs in opts if tt == t and ee == e), ())
                self._button(f"flank:{t}:{e}", e, self.flank, x + lab_w + i * bw, z - 0.03, bw - 0.015,
                             enabled=not why, extra=[t, e], colour=(0.30, 0.38, 0.30, 1), small=True)
                if why:
                    refused.setdefault(e, "; ".join(str(r) for r in why))
            z -= 0.058
        for e, why in refused.items():
            z = self._label([f"{e} refused: {why}"], x, z, P.DIM, P.SMALL_SCALE, w)
        return z - 0.01

    # ------------------------------------------------------------ input
    def _do(self, fn, *args):
        out = fn(*args)
        self.refresh()
        return out

    def roll(self) -> None:
        """The Roll off button."""
        self._do(self.setup.roll)

    def choose_preset(self, name: str) -> None:
        """A terrain preset's button."""
        self._do(self.setup.set_preset, name)

    def rotate(self, delta: float) -> None:
        """Turn the piece or the model ``delta`` degrees."""
        self._do(self.setup.rotate, delta)
        if self.ghost is not None:
            self.ghost = self.setup.ghost(self.ghost.point)
            self._draw_ghost()

    def stop_terrain(self) -> None:
        """The Stop placing button."""
        self._do(self.setup.stop_terrain)

    def choose_zone(self, zone: str) -> None:
        """A zone's button."""
        self._do(self.setup.choose_zone, zone)

    def choose_first(self, player: int) -> None:
        """A "Player N deploys first" button."""
        self._do(self.setup.choose_first, player)

    def select_model(self, model: str) -> None:
        """A waiting model's button."""
        self._do(self.setup.select, model)

    def flank(self, turn: int, edge: str) -> None:
        """A Flank choice's button."""
        self._do(self.setup.flank, turn, edge)

    def done(self) -> None:
        """The Keep the Scouts back button."""
        self._do(self.setup.done)

    def auto(self) -> None:
        """The Auto button: the engine's policy takes this seat's next step."""
        self._do(self.setup.auto)

    def reset_camera(self) -> None:
        """The whole table in view again."""
        if self.cam is not None:
            self.cam.reset()

    def table_point(self, x: float, y: float):
        """The table point (inches) under the window point ``(x, y)`` (NDC), or None."""
        return self.cam.table_point((x, y)) if self.cam is not None else None

    def hover_ndc(self, x: float, y: float) -> None:
        """The pointer is at ``(x, y)``: the ghost of what a click would send."""
        if self._closed:
            return
        key = (x, y, self.setup.version, id(self.setup.view))
        if key == self._hover:  # the pointer did not move and nothing changed: judged already
            return
        self._hover = key
        pt = self.table_point(x, y)
        g = self.setup.ghost(pt) if pt is not None else None
        if g != self.ghost:
            self.ghost = g
            self._draw_ghost()

    def click_ndc(self, x: float, y: float) -> None:
        """A click at ``(x, y)``: on the table, send the piece or the selected model
        there (the server's verdict comes back through :meth:`tick`)."""
        pt = self.table_point(x, y)
        if pt is None:
            return
        self._do(self.setup.click, pt)
        self.hover_ndc(x, y)

    def press_ndc(self, x: float, y: float) -> None:
        """Mouse down at ``(x, y)``."""
        if self.table_point(x, y) is not None:
            self._pressed = True

    def release_ndc(self, x: float, y: float) -> None:
        """Mouse up at ``(x, y)``: a click on the table."""
        if self._pressed:
            self._pressed = False
            self.click_ndc(x, y)

    def key(self, name: str) -> None:
        """``q``/``e`` turn, ``v`` resets the camera, ``enter`` rolls off."""
        if name in ("q", "e"):
            self.rotate(ROTATE_STEP if name == "q" else -ROTATE_STEP)
        elif name == "v":
            self.reset_camera()
        elif name == "enter" and self.setup.phase == "roll_off":
            self.roll()


__all__ = ["PHASE_WORDS", "RemoteSetup", "RemoteSetupScreen", "preload_catalogues", "snap_point", "step_words"]
