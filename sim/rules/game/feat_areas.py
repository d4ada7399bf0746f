"""Ki feats that change the table or the dice (round 6 of the feat vocabulary, helper F2;
:mod:`sim.rules.feat_effects`): Aura terrain, models entering an Aura, Pulse and Aura ranges
of X inches or of the turn number, feats used only out of enemy sight, cursed dice, markers
shared out among models.

* **Aura terrain** (``aura_terrain``, p.60-61): while the Aura lasts (until the End phase or
  its user's removal, p.47) its area -- a circle around the user's base, the Aura's range
  measured from the base's edge -- is a terrain piece of the table the game plays on
  (:meth:`~sim.rules.game.Game.table_now`): id ``aura:<user>:<feat>``, the entry's passage,
  visibility and size. The geometry and the movement read it like any piece: Difficult
  doubles the inches moved inside (p.60), Obscuring gives Cover (p.61). The area moves with
  its user, so the user's own moves do not cross it (:func:`sim.rules.movement.carried_piece`;
  docs/rulings-project.md).
* **Entering an Aura** (``aura_enter``): the entry's one-time ops (markers, wounds, Ki,
  tokens) reach each model the Aura reaches that is in it when it is used OR comes into it
  later while it lasts -- a move whose path passes through the area, a place, or the user's
  own move that sweeps it over the model -- at most once per model per turn (the mark
  ``aura_hit:<feat>``, value the turn; kept in saves).
* **Ranges** (``range_x``: X inches, the paid X; ``range_turn``: the turn number) of Pulse
  and Aura feats.
* **Unseen** (``unseen``): the feat is refused while an enemy model has LoS to the user.
* **Cursed dice** (``dice_curse`` op): the values rolled are kept as an effect on the
  affected model (source ``<feat>: dice a,b``) until the End phase; every die it rolls
  showing one of them counts as the op's value (:meth:`FeatAreas.dice_changed`, called by
  the game's dice recorder after the value is recorded, so a replay rolls the same).
* **Cleanse** (``cleanse`` op): up to N markers in all of the named conditions removed from
  the models of the area, as the user's player names them (``models``: ``model:condition``
  once per marker).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from models.model import COVER_MARK, SIGHT_MARK
from sim.geometry import CONTACT, Body, Footprint, Passage, Size, Visibility
from sim.geometry.attributes import MM_PER_INCH
from sim.geometry.measure import SHROUD
from sim.rules import conditions, ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.dice import RollKind, RollPurpose
from sim.rules.effects import effective_profile
from sim.rules.feat_effects import CleanseOp, DeployTerrainOp, FeatCostOp, FeatEffect, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.feat_auras import FeatAuras, aura_kept, aura_range
from sim.rules.game.state import ModelState
from sim.rules.movement import WARD_MARK
from terrain.pieces import DEFAULT_HEIGHTS, TerrainPiece

#: The prefix of a terrain piece made by an Aura (``aura:<user>:<feat>``).
AURA_PIECE = "aura:"
#: The prefix of the mark of a model an ``aura_enter`` Aura reached this turn.
HIT_MARK = "aura_hit:"
#: The source of the effect that keeps cursed dice values: ``<feat>: dice 2,5``.
DICE_SOURCE = ": dice "
_DICE = re.compile(r"^(?P<feat>.+): dice (?P<values>[1-6](?:,[1-6])*)(?: as (?P<v>[1-6]))?$")
#: The start of the text of the turn a ``face`` op makes (no Aura reacts to it).
FACE_MOVE = "turns to face "
#: The source of the effect that keeps a deployed base: ``<feat>: terrain at 12.500,8.000``.
DEPLOY = ": terrain at "
_DEPLOY = re.compile(r"^(?P<feat>.+): terrain at (?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)$")
#: The source of the effect that keeps a ``los_limit`` op on its user: ``<feat>: los limit 4``.
LOS_LIMIT = ": los limit "
_LOS = re.compile(r"^(?P<feat>.+): los limit (?P<n>\d+(?:\.\d+)?)$")
#: The mark of a model Placed in an activation (value: the activation's number).
PLACED_MARK = "placed"
#: The source of the effect that keeps a ``touching`` feat on its user.
TOUCH_MARK = ": touching"
_TOUCH = re.compile(r"^(?P<feat>.+): touching(?: X=(?P<x>\d+))?$")
_COST = re.compile(r": feat cost (?P<n>[+-]\d+)(?P<boosts> and boosts)?$")
#: Event kinds after which a model may have come into an Aura.
ENTER_EVENTS = ("move", "arrive", "exchange", "shot")


class FeatAreas(FeatAuras):
    """Aura terrain, entering Auras, X / turn ranges, unseen feats, dice curses, cleansing,
    feats read while models touch, Ki cost changes."""

    #: The Aura ops read while a model is inside (:class:`FeatAuras`) and ``feat_cost``.
    AURA_OPS = FeatAuras.AURA_OPS | frozenset({"feat_cost"})

    # ------------------------------------------------------------ ranges
    @staticmethod
    def aura_keeps(entry: FeatEffect) -> bool:
        """Whether an Aura entry is kept on its user while it lasts (:func:`aura_kept`)."""
        return aura_kept(entry)

    def area_reach(self, entry: FeatEffect, x: int | None) -> float | None:
        """The Pulse / Aura range of ``entry`` used with X = ``x`` now (:func:`aura_range`)."""
        return aura_range(entry, x, self.state.turn)

    def sized_feat(self, f: ki.Feat, entry: FeatEffect, x: int | None, user: str | None = None) -> ki.Feat:
        """``f`` with its Pulse / Aura range as :meth:`area_reach` reads it (``range_x``,
        ``range_turn``; ``range_ki``: the Ki tokens ``user`` has now, after paying when the
        feat is applied); ``f`` itself otherwise."""
        if f.area not in ("pulse", "aura"):
            return f
        if entry.range_ki and user in self.state.models:
            return replace(f, range=float(self.state.models[user].ki))
        if not (entry.range_x or entry.range_turn):
            return f
        return replace(f, range=self.area_reach(entry, x))

    # ------------------------------------------------------------ terrain
    def feat_terrain_pieces(self) -> tuple[TerrainPiece, ...]:
        """The terrain pieces Auras in play make now (``aura_terrain``): a circle around each
        user's base out to the Aura's range, with the entry's attributes."""
        out: dict[str, TerrainPiece] = {}
        for user, feat, entry, x, _opt in self._auras_now():
            t = entry.aura_terrain
            reach = self.area_reach(entry, x)
            if reach is None or not math.isfinite(reach):
                continue
            u = self.state.models[user]
            if entry.aura_shroud:  # no terrain rule: the geometry reads the id (sim.geometry.measure.SHROUD)
                sid = f"{SHROUD}{user}:{feat}"
                out[sid] = TerrainPiece(id=sid, passage=Passage.NORMAL, visibility=Visibility.OPEN, size=Size.ZERO,
                                        footprint=Footprint.circle(u.position, self.table.model(user).radius + reach),
                                        height=DEFAULT_HEIGHTS[Size.ZERO], name=f"{feat} ({user})")
            if t is None:
                continue
            size = Size.parse(t.size)
            pid = f"{AURA_PIECE}{user}:{feat}"
            r = self.table.model(user).radius + reach
            if pid in out and out[pid].footprint.radius >= r:
                continue
            out[pid] = TerrainPiece(id=pid, passage=Passage(t.passage), visibility=Visibility(t.visibility),
                                    size=size, footprint=Footprint.circle(u.position, r),
                                    height=DEFAULT_HEIGHTS[size], name=f"{feat} ({user})")
        for mid, m in self.state.models.items():  # deployed bases (deploy_terrain), while their effect lasts
            for e in m.effects:
                got = _DEPLOY.match(str(e.get("source", "")))
                op = self.deploy_op(feat_effect(got["feat"])) if got is not None else None
                if got is None or op is None:
                    continue
                size = Size.parse(op.size)
                pid = f"deployed:{mid}:{got['feat']}"
                out[pid] = TerrainPiece(id=pid, passage=Passage(op.passage), visibility=Visibility(op.visibility),
                                        size=size, footprint=Footprint.circle((float(got["x"]), float(got["y"])),
                                                                              op.base / MM_PER_INCH / 2.0),
                                        height=DEFAULT_HEIGHTS[size], name=f"{got['feat']} ({mid})",
                                        traits=("Destructible",) if op.destructible else ())  # (F7)
        return tuple(out.values())

    # ------------------------------------------------------------ deployed terrain
    @staticmethod
    def deploy_op(entry: FeatEffect | None) -> DeployTerrainOp | None:
        """The ``deploy_terrain`` op of ``entry``, or None."""
        if entry is None:
            return None
        return next((e for e in entry.effects if isinstance(e, DeployTerrainOp)), None)

    def deploy_problem(self, m: ModelState, op: DeployTerrainOp, point: Any) -> str | None:
        """Why a base of ``op`` may not be deployed with its centre at ``point`` by ``m``."""
        x, y = float(point[0]), float(point[1])
        r = op.base / MM_PER_INCH / 2.0
        table = self._table_now()
        if x - r < -1e-9 or y - r < -1e-9 or x + r > table.width + 1e-9 or y + r > table.depth + 1e-9:
            return "the base must lie on the table"
        gap = math.dist((x, y), m.position) - self.table.model(m.id).radius - r
        if op.range is not None and gap > op.range + 1e-6:  # range None: anywhere on the table (F7)
            return f"the base must be within {op.range:g}\" of {m.id} ({gap:.2f}\")"
        for o in self.state.alive():
            if o.elsewhere is None and math.dist((x, y), o.position) < self.table.model(o.id).radius + r - 1e-6:
                return f"the base would overlap {o.id}"
        for t in table.terrain:
            if t.passage is Passage.IMPASSABLE and t.footprint.distance_to_disc((x, y), r) <= 1e-9:
                return f"the base would overlap Impassable terrain {t.id}"
        if op.los:
            body = Body("deploy-probe", (x, y), r, Size.parse(op.size) if op.size != "zero" else Size.TINY)
            if not table.scene().los(m.id, body).visible:
                return f"the base must be in {m.id}'s LoS"
        return None

    def deploy_refusal(self, m: ModelState, entry: FeatEffect, action: Action) -> str | None:
        """Why ``action`` may not deploy the base of ``entry``'s ``deploy_terrain`` op."""
        op = self.deploy_op(entry)
        if op is None:
            return None
        if action.point is None:
            return f"{entry.name}: name the base's centre (point)"
        why = self.deploy_problem(m, op, action.point)
        return f"{entry.name}: {why}" if why else None

    def deploy_point(self, m: ModelState, entry: FeatEffect) -> tuple[float, float] | None:
        """A legal centre for the base, offered by default: toward the nearest enemy (in the
        user's front arc first), as far as the range allows; None when none is found."""
        op = self.deploy_op(entry)
        if op is None:
            return None
        r = op.base / MM_PER_INCH / 2.0
        ru = self.table.model(m.id).radius
        enemies = sorted(self.state.alive(3 - m.player), key=lambda e: math.dist(e.position, m.position))
        dirs = [math.atan2(e.position[1] - m.position[1], e.position[0] - m.position[0]) for e in enemies[:1]]
        dirs += [math.radians(m.facing + d) for d in (0, 30, -30, 60, -60, 90, -90)]
        for a in dirs:
            for d in (ru + r + min(op.range if op.range is not None else 2.0, 2.0), ru + r + 0.05):
                p = (m.position[0] + d * math.cos(a), m.position[1] + d * math.sin(a))
                if self.deploy_problem(m, op, p) is None:
                    return (round(p[0], 3), round(p[1], 3))
        return None

    def apply_deploy(self, m: ModelState, f: ki.Feat, op: DeployTerrainOp, action: Action) -> None:
        """The ``deploy_terrain`` op: the base is kept as an effect on the user until ``until``."""
        entry = feat_effect(f.name)
        pt = action.point or (self.deploy_point(m, entry) if entry is not None else None)
        if pt is None:
            self._emit(Event("note", {"text": f"{f.name}: no place for the base"}))
            return
        self.grant(m.id, f"{f.name}{DEPLOY}{float(pt[0]):.3f},{float(pt[1]):.3f}", op.until)
        self._emit(Event("note", {"text": f"{f.name}: a {op.base} mm base at ({pt[0]:.2f}, {pt[1]:.2f}) is "
                                          f"[{op.passage.title()}, {op.visibility.title()}, {op.size.title()}]"
                                          f"{' [Destructible]' if op.destructible else ''} terrain "
                                          f"until {op.until.replace('_', ' ')}"}))

    # ------------------------------------------------------------ entering an Aura
    def _enter_auras(self) -> list[tuple[str, str, FeatEffect, int]]:
        return [(u, f, e, x) for u, f, e, x, _ in self._auras_now() if e.aura_enter]

    def area_watch(self, ev: Event) -> dict[str, tuple[float, float]] | None:
        """Before event ``ev`` is applied: where the models stand (for a move's path) when
        an ``aura_enter`` Aura is in play and ``ev`` may bring a model into it; else None."""
        if ev.kind not in ENTER_EVENTS:
            return None
        auras = self._enter_auras()
        self._memo.pop("feat_auras", None)  # read again once the event is applied
        if not auras:
            return None
        return {mid: (float(m.position[0]), float(m.position[1])) for mid, m in self.state.models.items()
                if m.alive and m.elsewhere is None}

    def area_entered(self, ev: Event, before: dict[str, tuple[float, float]] | None) -> None:
        """After event ``ev``: each model an ``aura_enter`` Aura reaches that is in it, came
        through it on a move (its path from where it stood, the declared Walk's points when
        ``ev`` moves the model of the action being resolved) or that the user's own move
        swept over, and that the Aura has not reached this turn, gets the entry's ops."""
        self._note_place(ev)
        if before is None:
            return
        st = self.state
        for user, feat, entry, x in self._enter_auras():
            u = st.models.get(user)
            f = self.feats(user).get(feat)
            if u is None or not u.alive or f is None:
                continue
            reach = self.area_reach(entry, x)
            if reach is None:
                continue
            ru = self.table.model(user).radius
            if entry.aura_enter == "ends":  # each move ending in it, each Place into it (Threat)
                self._aura_ends(ev, u, f, entry, x, reach + ru)
                continue
            if entry.aura_enter == "enters":  # each move / Place / arrival from outside into it (Dashuhua)
                self._aura_enters(ev, u, f, entry, x, reach + ru, before)
                continue
            upath = self._path_of(ev, user, before)
            for m in list(st.models.values()):
                if m.id == user or not m.alive or m.elsewhere is not None or m.id not in before:
                    continue
                if not self._aura_reaches(u, m, entry) or self._hit_this_turn(m, feat):
                    continue
                gap = ru + reach + self.table.model(m.id).radius + 1e-6
                mpath = self._path_of(ev, m.id, before)
                inside = (_seg_dist(m.position, upath) <= gap if len(upath) > 1 else False) or \
                    _seg_dist(u.position, mpath) <= gap
                if not inside:
                    continue
                self._aura_hit(u, f, entry, m.id, x)

    def _aura_enters(self, ev: Event, u: ModelState, f: ki.Feat, entry: FeatEffect, x: int, reach: float,
                     before: dict) -> None:
        """An ``aura_enter: enters`` Aura: each model ``ev`` moved (not the user) that stood
        outside the Aura and whose path (or Place, arrival) comes within it gets the ops, each
        time it enters."""
        for m in list(self.state.models.values()):
            if m.id == u.id or not m.alive or m.elsewhere is not None:
                continue
            arrived = ev.kind == "arrive" and ev.data.get("model") == m.id  # a Flank arrival: placed
            r = self.table.model(m.id).radius
            if arrived:
                path = [(float(m.position[0]), float(m.position[1]))]
            else:
                start = before.get(m.id)
                if start is None or math.dist(start, m.position) <= 1e-9:
                    continue
                if math.dist(start, u.position) <= reach + r + 1e-6:
                    continue  # it was in the Aura already
                path = self._path_of(ev, m.id, before)
            if _seg_dist(u.position, path) > reach + r + 1e-6:
                continue
            if not self._aura_reaches(u, m, entry):
                continue
            self._emit(Event("note", {"text": f"{f.name}: {m.id} enters {u.id}'s Aura"}))
            act = Action("feat", u.id, feat=f.name, x=x)
            for op in entry.effects:
                if self.state.models[m.id].alive:
                    self._apply_op(u, f, op, m.id, act)

    def _aura_ends(self, ev: Event, u: ModelState, f: ki.Feat, entry: FeatEffect, x: int, reach: float) -> None:
        """An ``aura_enter: ends`` Aura: the model that event ``ev`` moved (a move, a Place, a
        Flank arrival; not a turn the Aura itself made) gets the ops when it ends inside the
        Aura (its base within ``reach`` of the user's centre), each time."""
        mid = str(ev.data.get("model", ""))
        if ev.kind not in ("move", "arrive") or mid == u.id or mid not in self.state.models:
            return
        if str(ev.data.get("move", "")).startswith(FACE_MOVE):
            return
        m = self.state.models[mid]
        if not m.alive or not self._aura_reaches(u, m, entry):
            return
        if math.dist(m.position, u.position) > reach + self.table.model(mid).radius + 1e-6:
            return
        act = Action("feat", u.id, feat=f.name, x=x)
        for op in entry.effects:
            if self.state.models[mid].alive:
                self._apply_op(u, f, op, mid, act)

    def apply_face(self, m: ModelState, f: ki.Feat, mid: str) -> None:
        """The ``face`` op: ``mid`` turns to face the user ``m`` directly."""
        t = self.state.models[mid]
        u = self.state.models[m.id]
        if mid == m.id:
            return
        facing = math.degrees(math.atan2(u.position[1] - t.position[1], u.position[0] - t.position[0])) % 360.0
        if abs((facing - t.facing + 180.0) % 360.0 - 180.0) < 1e-6:
            return
        self._emit(Event("move", {"model": mid, "move": f"{FACE_MOVE}{m.id} ({f.name})", "to": list(t.position),
                                  "facing": facing, "cost": 0.0}))

    def _path_of(self, ev: Event, mid: str, before: dict) -> list[tuple[float, float]]:
        """Where model ``mid`` went during event ``ev``: from where it stood to where it
        stands (the points of the declared Walk between, when ``ev`` is its move)."""
        now = self.state.models[mid].position
        start = before.get(mid, now)
        pts = [start]
        if ev.kind == "move" and ev.data.get("model") == mid and self._actions:
            act = self._actions[-1]
            if act.model == mid and act.kind == "walk" and act.path:
                pts += [tuple(p) for p in act.path[:-1]]
        pts.append((float(now[0]), float(now[1])))
        return pts

    def _hit_this_turn(self, m: ModelState, feat: str) -> bool:
        return m.conditions.get(HIT_MARK + feat) == self.state.turn

    def _aura_hit(self, u: ModelState, f: ki.Feat, entry: FeatEffect, mid: str, x: int) -> None:
        """The one-time ops of ``entry`` on ``mid``, which the Aura of ``u`` reached."""
        self._emit(Event("condition", {"model": mid, "name": HIT_MARK + f.name, "on": True,
                                       "value": self.state.turn}))
        self._emit(Event("note", {"text": f"{f.name}: {mid} is in {u.id}'s Aura"}))
        act = Action("feat", u.id, feat=f.name, x=x)
        for op in entry.effects:
            if self.state.models[mid].alive:
                self._apply_op(u, f, op, mid, act)

    def aura_start_hits(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> None:
        """When an ``aura_enter`` Aura is used: the models it reaches inside it now get its
        ops (once per turn each)."""
        st = self.state
        reach = self.area_reach(entry, action.x)
        if reach is None:
            return
        scene = self._table_now().scene()
        for x in list(st.alive()):
            if x.id == m.id or x.elsewhere is not None or self._hit_this_turn(x, f.name):
                continue
            if not self._aura_reaches(m, x, entry) or scene.distance(m.id, x.id) > reach + 1e-6:
                continue
            self._aura_hit(m, f, entry, x.id, int(action.x or 1))

    # ------------------------------------------------------------ start of the area rules
    @staticmethod
    def area_rules_own(entry: FeatEffect) -> bool:
        """Whether this module applies the entry's ops itself (``aura_enter``: to the models
        in or coming into the Aura; ``touching``: while they touch), not once at use."""
        return bool(entry.aura_enter) or entry.touching or entry.touching_impassable

    def area_rules_start(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> None:
        """When ``entry`` is used: the models in an ``aura_enter`` Aura get its ops; a
        ``touching`` feat is kept on its user until its ops' longest duration."""
        if entry.aura_enter is True:  # "ends": only models that end a move in it later
            self.aura_start_hits(m, f, entry, action)
        if entry.touching or entry.touching_impassable:
            order = ("action", "activation", "exchange", "end_phase", "turn", "game")
            untils = [str(getattr(e, "until", None) or "end_phase") for e in entry.effects]
            until = max(untils, key=order.index) if untils else "end_phase"
            self.grant(m.id, f"{f.name}{TOUCH_MARK}" + (f" X={int(action.x)}" if action.x else ""), until)

    # ------------------------------------------------------------ touching
    def aura_effects(self, mid: str) -> list[dict]:
        """The effects of Auras (:class:`FeatAuras`), of ``touching`` feats and of
        ``feat_cost`` Auras model ``mid`` has now."""
        return super().aura_effects(mid) + self.touching_effects(mid)

    def touching_effects(self, mid: str) -> list[dict]:
        """The lasting ops of ``touching`` feats model ``mid`` benefits from now: the user
        while it is in base contact with another friendly model the entry accepts, and each
        such model in base contact with the user; once per feat name (a model benefits from
        one such feat once)."""
        st = self.state
        me = st.models.get(mid)
        if me is None or not me.alive:
            return []
        users = self._touch_users()
        if not users:
            return []
        scene = self._table_now().scene()
        out: list[dict] = []
        seen: set[str] = set()
        for user, feat, x in users:
            if feat in seen:
                continue
            entry = feat_effect(feat)
            u = st.models[user]
            if entry is None or me.player != u.player:
                continue
            if entry.touching_impassable:
                ok = mid == user and self._touches_impassable(user, scene)
            elif mid == user:
                ok = any(o.id != user and o.player == u.player and self._touch_reaches(u, o, entry)
                         and scene.btb(user, o.id) for o in st.alive() if o.elsewhere is None)
            else:
                ok = self._touch_reaches(u, me, entry) and scene.btb(user, mid)
            if not ok:
                continue
            seen.add(feat)
            for eff in self._aura_ops_effects(feat, entry, x, 0):
                out.append({**eff, "source": f"{feat} (touching {user})", "until": "end_phase"})
        return out

    def _touches_impassable(self, mid: str, scene: Any) -> bool:
        """Whether ``mid``'s base touches (base contact, 0.01") an Impassable terrain piece."""
        return any(p.passage is Passage.IMPASSABLE and scene.piece_gap(p.id, mid) <= CONTACT + 1e-9
                   for p in self._table_now().terrain)

    def _touch_reaches(self, u: ModelState, o: ModelState, entry: FeatEffect) -> bool:
        """Whether friendly model ``o`` is one the ``touching`` feat of ``u`` accepts (its
        keyword filters read off the printed card; every keyword with ``target_keywords_all``)."""
        if not self._aura_reaches(u, o, entry):
            return False
        if entry.target_keywords_all or entry.target_not_keywords:
            view = view_of(self.printed_profile(o.id), friendly=True, conditions=o.conditions)
            if entry.target_keywords_all and not all(keyword_matches(k, view) for k in entry.target_keywords):
                return False
            if any(keyword_matches(k, view) for k in entry.target_not_keywords):
                return False
        return True

    def _touch_users(self) -> list[tuple[str, str, int]]:
        """``(user, feat, x)`` of every ``touching`` feat in play, memoised until the next event."""
        memo = self._memo
        if "feat_touch" in memo:
            return memo["feat_touch"]
        out = []
        for u in self.state.models.values():
            if not u.alive or not u.effects or u.elsewhere is not None:
                continue
            for e in u.effects:
                got = _TOUCH.match(str(e.get("source", "")))
                if got is not None:
                    out.append((u.id, got["feat"], int(got["x"] or 1)))
        memo["feat_touch"] = out
        return out

    # ------------------------------------------------------------ Ki costs
    def _aura_ops_effects(self, feat: str, entry: FeatEffect, x: int, option: int) -> list[dict]:
        """:meth:`FeatAuras._aura_ops_effects` and the ``feat_cost`` ops of an Aura."""
        out = super()._aura_ops_effects(feat, entry, x, option)
        for op in entry.effects:
            if isinstance(op, FeatCostOp):
                out.append({"source": f"{feat} (Aura){_cost_text(op)}", "until": "end_phase"})
        return out

    def apply_feat_cost(self, f: ki.Feat, op: FeatCostOp, mid: str) -> None:
        """The ``feat_cost`` op: model ``mid``'s Ki feats (and boosts) cost ``n`` more until
        ``until`` (an effect whose source says so)."""
        self.grant(mid, f"{f.name}{_cost_text(op)}", op.until)

    def feat_cost_change(self, mid: str, boost: bool = False) -> int:
        """The change of the Ki cost of ``mid``'s Ki feats (``boost``: of its Ki boosts) from
        ``feat_cost`` ops now (its effects and the Auras it is in)."""
        m = self.state.models.get(mid)
        if m is None:
            return 0
        total = 0
        for e in list(m.effects) + (self.aura_effects(mid) if self._auras_now() else []):
            got = _COST.search(str(e.get("source", "")))
            if got is not None and (not boost or got["boosts"]):
                total += int(got["n"])
        return total

    # ------------------------------------------------------------ a Pulse on the target
    def target_pulse(self, user: str, target: str) -> list[str]:
        """The models of a Pulse centred on ``target`` (``pulse_at_target``): the target and
        every other model within X" of its base (edge to edge, through models and terrain),
        X the whole inches of the range from ``user`` to it; nearest first."""
        scene = self._table_now().scene()
        x = math.floor(scene.distance(user, target) + 1e-9)
        others = [o.id for o in self.state.alive() if o.id != target and o.elsewhere is None
                  and scene.distance(target, o.id) <= x + 1e-6]
        return [target] + sorted(others, key=lambda i: (scene.distance(target, i), i))

    # ------------------------------------------------------------ placed this activation
    def _activation_no(self) -> int:
        """How many activations the game has begun (the current one's number)."""
        return sum(1 for e in self.events if e.kind == "activate")

    def _watches_places(self) -> bool:
        """Whether a model on the table has a feat that reads placements (computed once)."""
        got = self.__dict__.get("_f2_places")
        if got is None:
            got = False
            for tm in self.table.models:
                for name in self.feats(tm.id):
                    e = feat_effect(name)
                    if e is not None and e.placed_this_activation:
                        got = True
            self.__dict__["_f2_places"] = got
        return bool(got)

    def _note_place(self, ev: Event) -> None:
        """After event ``ev``: a model Placed (a feat's ``place`` move, p.23; a Flank
        arrival, p.52) gets the mark ``placed`` (value: the number of the activation), when
        a feat on the table reads it."""
        if ev.kind == "move" and str(ev.data.get("move", "")).startswith("place ("):
            mid = ev.data.get("model")
        elif ev.kind == "arrive":
            mid = ev.data.get("model")
        else:
            return
        if mid in self.state.models and self._watches_places():
            self._emit(Event("condition", {"model": mid, "name": PLACED_MARK, "on": True,
                                           "value": self._activation_no()}))

    def placed_ok(self, entry: FeatEffect, mid: str) -> bool:
        """Whether ``mid`` may be affected by ``entry`` as Placed this activation
        (``placed_this_activation``; True for any other entry)."""
        if not entry.placed_this_activation:
            return True
        m = self.state.models.get(mid)
        return m is not None and m.conditions.get(PLACED_MARK) == self._activation_no()

    # ------------------------------------------------------------ terrain removed
    def apply_remove_terrain(self, m: ModelState, f: ki.Feat, action: Action) -> None:
        """The ``remove_terrain`` op: every Destructible piece (p.16) any part of which lies
        within the feat's Pulse / Aura (from the user's base edge) leaves the table."""
        entry = feat_effect(f.name)
        assert entry is not None
        reach = self.sized_feat(f, entry, action.x, m.id).reach
        table = self._table_now()
        scene = table.scene()
        gone = [t.id for t in table.terrain if t.destructible and t.id not in self.state.removed_terrain
                and scene.piece_gap(t.id, m.id) <= reach + 1e-6]
        for pid in gone:
            self._emit(Event("terrain_removed", {"piece": pid, "model": m.id}))
        if not gone:
            self._emit(Event("note", {"text": f"{f.name}: no Destructible terrain in its area"}))

    # ------------------------------------------------------------ LoS limits
    def apply_los_limit(self, f: ki.Feat, op: Any, mid: str) -> None:
        """The ``los_limit`` op: kept on its user until ``until``; read by :meth:`feat_sight_marks`."""
        self.grant(mid, f"{f.name}{LOS_LIMIT}{op.inches:g}", op.until)

    def feat_sight_marks(self, mid: str) -> tuple[str, ...]:
        """``("sight:4",)`` when a ``los_limit`` feat in play limits model ``mid``'s LoS (it
        matches none of the entry's ``target_not_keywords``, read off its card and effects);
        ``()`` otherwise. The geometry reads the mark (:attr:`sim.geometry.Body.sight`)."""
        memo = self._memo
        limits = memo.get("feat_los_limits")
        if limits is None:
            limits = []
            for u in self.state.models.values():
                if not u.alive or not u.effects:
                    continue
                for e in u.effects:
                    got = _LOS.match(str(e.get("source", "")))
                    if got is not None:
                        limits.append((got["feat"], float(got["n"])))
            memo["feat_los_limits"] = limits
        wards = self._ward_marks(mid) + self._cover_marks(mid)
        if not limits:
            return wards
        m = self.state.models[mid]
        card = self.printed_profile(mid)
        best: float | None = None
        for feat, inches in limits:
            entry = feat_effect(feat)
            if entry is None:
                continue
            if entry.target_not_keywords and card is not None:
                eff = effective_profile(card, m.effects) if m.effects else card
                view = view_of(eff, friendly=True, conditions=m.conditions)
                if any(keyword_matches(k, view) for k in entry.target_not_keywords):
                    continue
            best = inches if best is None else min(best, inches)
        return wards + (() if best is None else (f"{SIGHT_MARK}{best:g}",))

    def _cover_marks(self, mid: str) -> tuple[str, ...]:
        """``("feat_cover",)`` when model ``mid`` is in an ``aura_cover`` Aura now (any part of
        its base within it; the user always): it has Cover from every model that sees it."""
        for user, _feat, entry, x, _opt in self._auras_now():
            if not entry.aura_cover:
                continue
            reach = self.area_reach(entry, x)
            u = self.state.models[user]
            if reach is None:
                continue
            gap = math.dist(u.position, self.state.models[mid].position) - self.table.model(user).radius - \
                self.table.model(mid).radius
            if mid == user or gap <= reach + 1e-6:
                return (COVER_MARK,)
        return ()

    def _ward_marks(self, mid: str) -> tuple[str, ...]:
        """``("ward:x,y,R",)`` for each ``aura_ward`` Aura in play that reaches model ``mid``
        (its ``affects`` and keyword filters): while within it, ``mid`` may not move closer to
        the user at ``(x, y)`` (R: the Aura's edge from the user's centre;
        :func:`sim.rules.movement.ward_reasons`)."""
        auras = [a for a in self._auras_now() if a[2].aura_ward]
        if not auras:
            return ()
        me = self.state.models[mid]
        out = []
        for user, _feat, entry, x, _opt in auras:
            u = self.state.models[user]
            reach = self.area_reach(entry, x)
            if user == mid or reach is None or not self._aura_reaches(u, me, entry):
                continue
            r = self.table.model(user).radius + reach
            out.append(f"{WARD_MARK}{u.position[0]:.4f},{u.position[1]:.4f},{r:.4f}")
        return tuple(out)

    # ------------------------------------------------------------ unseen
    def unseen_refusal(self, m: ModelState, entry: FeatEffect) -> str | None:
        """Why a feat used only out of every enemy's sight (``unseen``) may not be used by
        ``m`` now: the enemy models that have LoS to it (p.29: LoS from the enemy's base,
        its front arc)."""
        if not entry.unseen:
            return None
        scene = self._table_now().scene()
        seen = [e.id for e in self.state.alive(3 - m.player) if e.elsewhere is None
                and scene.los(e.id, m.id).visible]
        if seen:
            return f"{entry.name}: {', '.join(seen)} can see {m.id} (used only out of LoS of every enemy)"
        return None

    # ------------------------------------------------------------ dice
    def apply_dice_curse(self, m: ModelState, f: ki.Feat, op: Any, mid: str) -> None:
        """The ``dice_curse`` op: roll ``base`` + the success level of the feat's Opposed Ki
        test dice, 1s and repeats re-rolled until all differ; until ``until`` the values count
        as ``value`` on every die ``mid`` rolls."""
        n = min(5, int(op.base) + int(self.__dict__.get("_f4_sl", 0) or 0))
        values: list[int] = []
        purpose = RollPurpose(RollKind.KI_FEAT, m.id, mid, f"{f.name}: cursed values")
        left, tries = n, 0
        while left > 0 and tries < 100:  # 1s and repeats re-rolled until all differ
            tries += 1
            for v in self._roller.roll(left, purpose):
                if v != 1 and v not in values and len(values) < n:
                    values.append(v)
            left = n - len(values)
        values.sort()
        src = f"{f.name}{DICE_SOURCE}{','.join(map(str, values))}" + (f" as {op.value}" if op.value != 1 else "")
        self.grant(mid, src, op.until)
        self._emit(Event("note", {"text": f"{f.name}: {mid}'s dice showing {', '.join(map(str, values))} count "
                                          f"as {op.value} until {op.until.replace('_', ' ')}"}))

    def dice_changed(self, values: list[int], purpose: RollPurpose | None) -> list[int]:
        """``values`` rolled for ``purpose`` as the game counts them: the dice of a model
        with cursed values (:meth:`apply_dice_curse`) showing one count as the curse's
        value. The recorded values are unchanged."""
        if purpose is None or not values:
            return values
        mid = purpose.against if purpose.kind is RollKind.MELEE_REROLL else purpose.model
        m = self.state.models.get(mid or "")
        if m is None or not m.effects:
            return values
        out = list(values)
        for e in m.effects:
            got = _DICE.match(str(e.get("source", "")))
            if got is None:
                continue
            cursed = {int(v) for v in got["values"].split(",")}
            to = int(got["v"] or 1)
            out = [to if v in cursed else v for v in out]
        return out

    # ------------------------------------------------------------ cleanse
    def cleanse_op(self, entry: FeatEffect) -> CleanseOp | None:
        """The ``cleanse`` op of ``entry``, or None."""
        return next((e for e in list(entry.effects) + list(entry.effects_self) if isinstance(e, CleanseOp)), None)

    def cleanse_pool(self, m: ModelState, f: ki.Feat, entry: FeatEffect, x: int | None) -> list[tuple[str, str]]:
        """Every ``(model, condition)`` marker the ``cleanse`` op of ``entry`` may remove now
        (one pair per marker), the user's side first, nearest first."""
        op = self.cleanse_op(entry)
        if op is None:
            return []
        sized = self.sized_feat(f, entry, x, m.id)  # the models of ``affects`` in the area (the user with *_and_self)
        area = self.area_models(m, sized, entry) if entry.affects != "self" else [m.id]
        names = [conditions.canonical(n) or n for n in op.names]
        st = self.state
        out: list[tuple[str, str]] = []
        for mid in sorted(area, key=lambda i: (st.models[i].player != m.player, area.index(i))):
            for name in names:
                out += [(mid, name)] * self.marker_count(mid, name)
        return out

    def cleanse_default(self, m: ModelState, f: ki.Feat, entry: FeatEffect, x: int | None) -> tuple[str, ...]:
        """The markers offered by default: up to N of the user's side's (nearest first)."""
        op = self.cleanse_op(entry)
        assert op is not None
        n = int(x or 1) if op.n == "X" else int(op.n)
        mine = [p for p in self.cleanse_pool(m, f, entry, x) if self.state.models[p[0]].player == m.player]
        return tuple(f"{a}:{b}" for a, b in mine[:n])

    def cleanse_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        """Why the markers ``action`` names (``models``: ``model:condition`` once per marker)
        may not be removed: more than N, a model outside the area, a condition not named by
        the card, more markers of a kind than the model has."""
        op = self.cleanse_op(entry)
        if op is None or not action.models:
            return None
        n = int(action.x or 1) if op.n == "X" else int(op.n)
        if len(action.models) > n:
            return f"{f.name} removes at most {n} markers in all"
        pool = self.cleanse_pool(m, f, entry, action.x)
        for item in action.models:
            mid, _, name = str(item).partition(":")
            key = (mid, conditions.canonical(name) or name)
            if key not in pool:
                return (f"{item}: not a marker {f.name} may remove now (name model:condition, one per marker; "
                        f"{', '.join(op.names)} of the models in its area)")
            pool.remove(key)
        return None

    def apply_cleanse(self, m: ModelState, f: ki.Feat, action: Action) -> None:
        """The ``cleanse`` op: the named markers (or :meth:`cleanse_default`) removed."""
        entry = feat_effect(f.name)
        assert entry is not None
        picks = action.models or self.cleanse_default(m, f, entry, action.x)
        if not picks:
            self._emit(Event("note", {"text": f"{f.name}: no marker to remove"}))
            return
        for item in picks:
            mid, _, name = str(item).partition(":")
            if mid in self.state.models and self.marker_count(mid, name) > 0:
                self.remove_markers(mid, name, 1)


def _cost_text(op: FeatCostOp) -> str:
    """``: feat cost +1 and boosts`` -- the end of the source of a ``feat_cost`` effect."""
    return f": feat cost {op.n:+d}" + (" and boosts" if op.boosts else "")


def _seg_dist(p: Any, path: list) -> float:
    """The least distance from point ``p`` to the polyline ``path`` (one point: to it)."""
    px, py = float(p[0]), float(p[1])
    if len(path) == 1:
        return math.dist((px, py), path[0])
    best = math.inf
    for a, b in zip(path, path[1:]):
        ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
        dx, dy = bx - ax, by - ay
        L2 = dx * dx + dy * dy
        t = 0.0 if L2 <= 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / L2))
        best = min(best, math.hypot(ax + t * dx - px, ay + t * dy - py))
    return best
