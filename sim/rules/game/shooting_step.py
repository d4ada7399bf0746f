"""The shooting step (p.25, p.30-32): the Ranged Attack action with its declared Walk,
interception decided by the target's player (step 1d), Ammo and Reload, the shooter's
conditions and Ki boosts.

The attack itself is :func:`sim.rules.ranged.resolve_ranged_attack`; this module feeds
it the game state and records the outcome as events. A mixin of
:class:`~sim.rules.game.Game`; the kinds are registered at the end of the module.
"""

from __future__ import annotations

from dataclasses import replace as dc_replace

from models.traits import has_trait, trait_key
from sim.rules import conditions, movement
from sim.rules.dice import DiceError, modified_stat
from sim.rules.game import melee_traits, weapon_specials
from sim.rules.game.actions import NO_POINT, Action, ActionKind, register
from sim.rules.game.events import Event, markers_json
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.rules.game.turn_traits import CAVALRY_DONE
from sim.rules.melee import wound_markers
from sim.rules.melee.combatant import CONDITION_MARKERS, card_marker_traits
from sim.rules.ranged import (
    AmmoState,
    RangeBand,
    RangedAttackError,
    TargetInfo,
    can_shoot,
    interceptors,
    resolve_ranged_attack,
)
from sim.table import Table


class ShootingStep(GamePart):
    """Shoot and interception (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ Shoot (p.25, p.30-32)
    def _legal_shoot(self, m: ModelState, action: Action) -> tuple[bool, str]:
        table = self._table_now()
        if action.walk not in (None, "before", "after"):
            return False, f"walk must be 'before' or 'after', not {action.walk!r}"
        if action.walk is not None:
            if action.point is None:
                return False, "the declared Walk: " + NO_POINT
            res = movement.check_walk(table, m.id, [action.point])
            if not res.legal:
                return False, "the declared Walk: " + "; ".join(r.message for r in res.reasons)
            if action.walk == "before":
                ok, why = self._can_shoot(m.id, action.target, action.weapon, at=res.end)
                return self._shoot_extras_legal(m, action, ok, why, at=res.end)
        ok, why = self._can_shoot(m.id, action.target, action.weapon)
        return self._shoot_extras_legal(m, action, ok, why)

    def _shoot_extras_legal(self, m: ModelState, action: Action, ok: bool, why: str, at=None) -> tuple[bool, str]:
        """A special attack declared with the shot (p.39) and Rapid Fire's further shots
        (p.56), judged by :mod:`sim.rules.game.weapon_specials`."""
        if not ok:
            return ok, why
        why2 = ((self.own_specials_refusal(m.id) if action.special else None)  # round 6 (F5, feat_cards)
                or self.special_against_refusal(m.id, action)  # round 6 (F5): a special only against some
                or weapon_specials.special_pool_problem(self, m.id, action)
                or weapon_specials.rapid_fire_problem(self, m.id, action, self._can_shoot, at=at))
        return (False, why2) if why2 else (True, "")

    def _resolve_shoot(self, action: Action) -> None:
        m = self.state.models[action.model]
        table = self._table_now()
        walked = action.walk is not None
        # p.31 "двигалась или будет двигаться в эту активацию": its declared Walk, or a Cavalry move made
        # before this action (p.50)
        moved = walked or CAVALRY_DONE in m.conditions
        point, target = action.point, action.target
        assert target is not None and (point is not None or not walked)  # judged legal
        if action.walk == "before":
            assert point is not None
            self._move(m.id, movement.check_walk(table, m.id, [point]))
        after = list(point) if action.walk == "after" and point is not None else None
        rest = [list(x) for x in weapon_specials.rapid_fire_shots(self, m.id, action)]  # Rapid Fire (p.56)
        if action.models and weapon_specials.rapid_fire_x(self.ranged_weapon(m.id, action.weapon)) == "X":
            self._emit(Event("manual_step", {"model": m.id, "source": "Rapid Fire (X)",
                                             "text": f"the card sets X: {1 + len(rest)} Ranged attacks declared "
                                                     f"with x={action.x}; check it against the card (p.56)"}))
        if self._shoot(m.id, target, action.weapon, moved=moved, boost=action.boost or 0,
                       walk_after=after, special=action.special, direction=action.direction, rest=rest):
            self._walk_after_shot(m.id, after)

    # ------------------------------------------------------------ interception (p.30 step 1d)
    def _legal_intercept(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        ic = self.state.interception
        if ic is None:
            return False, "no shot is waiting for an interceptor"
        if action.target is not None and action.target not in ic["candidates"]:
            return False, (f"{action.target!r} cannot intercept (conditions I-III, p.30); may: "
                           + ", ".join(ic["candidates"]))
        return True, ""

    def _answer_interception(self, action: Action) -> None:
        """The target's player names the interceptor (``action.target``) or none; the
        waiting shot is resolved and the shooter's declared Walk after it made."""
        st = self.state
        ok, why = self.is_legal(action)
        if not ok:
            self._unmark()
            raise GameError(why)
        assert st.interception is not None  # judged legal: a shot waits for an interceptor
        ic = dict(st.interception)
        self._emit(Event("intercept", {"chosen": action.target}))
        shooter = st.models[ic["attacker"]]
        if not self._shoot(ic["attacker"], ic["target"], ic["weapon"], moved=ic["moved"], boost=ic["boost"],
                           interceptor=action.target or "", walk_after=ic["walk_after"],
                           special=ic.get("special"), direction=ic.get("direction"), rest=ic.get("rest") or [],
                           ignore_reload=bool(ic.get("ignore_reload")), ignore=ic.get("ignore") or ()):
            return  # Rapid Fire: a further shot waits for its interceptor (p.56)
        self._walk_after_shot(shooter.id, ic["walk_after"])
        self._after_action()
        if (not self.is_over() and st.exchange is None and st.interception is None and not self.answers_pending()
                and not self._group_step(shooter.player)):  # Cavalry's move after the shot, a Group (p.50, p.52)
            self._next_active(3 - shooter.player)

    # ------------------------------------------------------------ the shot
    def ranged_weapon(self, mid: str, name: str | None = None):
        """The ranged weapon (p.30) of ``mid`` a Shoot action uses: the one named ``name``
        (any case), or its card's first ranged weapon; None when it has none."""
        prof = self.profile(mid)
        if prof is None:
            return None
        ranged = [w for w in prof.weapons if w.kind == "ranged"]
        if name is None:
            return ranged[0] if ranged else None
        return next((w for w in ranged if w.name.lower() == name.lower()), None)

    def _reload_weapon(self, mid: str, action: Action) -> bool:
        """Whether a shoot action uses a weapon with Reload (X) (blocked while Reloading)."""
        if action.kind != "shoot":
            return False
        return self._has_reload(self.ranged_weapon(mid, action.weapon))

    @staticmethod
    def _has_reload(weapon) -> bool:
        """Whether the ranged weapon has the trait Reload (X) (p.57)."""
        return weapon is not None and has_trait(weapon.traits, "reload")

    def _immune(self, mid: str) -> set[str]:
        """The conditions of ``mid``'s card Immune [..] traits (p.53), as written."""
        prof = self.profile(mid)
        out: set[str] = set()
        for t in (prof.traits if prof is not None else ()):
            if trait_key(t.keyword) == "immune":
                out.update(x.strip() for x in (t.qualifier or "").split(",") if x.strip())
        return out

    def _can_shoot(self, mid: str, target: str | None, weapon: str | None, at=None,
                   ignore_reload: bool = False, ignore=()) -> tuple[bool, str]:
        """May ``mid`` shoot ``target`` now (or from ``at`` after a declared Walk)?
        ``ignore_reload``: its Reloading markers do not block it (a Ki feat's attack);
        ``ignore`` containing ``"friends"``: a friendly target is allowed (Circular Strike);
        ``"los"`` / ``"range"``: no LoS is needed / the range is not checked (round 6)."""
        w = self.ranged_weapon(mid, weapon)
        if w is None:
            return False, f"{mid} has no ranged weapon {weapon or ''}".strip()
        if target is None or target not in self.state.models or not self.state.models[target].alive:
            return False, f"no model {target!r} on the table"
        if not ignore_reload and "reloading" in self.state.models[mid].conditions and self._has_reload(w):
            # Reloading (p.45): only a weapon with Reload is blocked
            return False, f"{mid} is Reloading and {w.name} has Reload"
        table = self._table_now()
        if at is not None:
            moved = tuple(dc_replace(x, position=(at[0], at[1])) if x.id == mid else x for x in table.models)
            table = Table(table.name, table.width, table.depth, table.terrain, moved, table.source)
        scene = table.scene()
        enemies = None
        if "friends" in ignore:  # the target counts as an enemy of the shooter for this shot
            enemies = {x.id for x in self.state.alive(3 - self.state.models[mid].player)} | {target}
        ok, reasons = can_shoot(scene, mid, target, w, enemies=enemies)
        skip = {c for c, word in (("no-los", "los"), ("out-of-range", "range")) if word in ignore}
        if self.shot_rules(mid).get("los"):  # a Ki feat: its ranged attacks need no LoS (Tide Master)
            skip.add("no-los")
        if skip:  # a Ki feat's shot that ignores LoS / range (Raijin's Rage, round 6)
            reasons = tuple(r for r in reasons if getattr(r, "code", "") not in skip)
            ok = not reasons
        return ok, "; ".join(getattr(r, "message", str(r)) for r in reasons)

    def _shoot(self, mid: str, target: str, weapon: str | None, moved: bool = False, boost: int = 0,
               interceptor: str | None = None, walk_after=None, special: str | None = None,
               direction: float | None = None, rest=(), answers: dict | None = None,
               ignore_reload: bool = False, ignore=()) -> bool:
        """Resolve a shot (p.30-32). When friends of the target may intercept (step 1d) and
        ``interceptor`` is None, the shot waits for the target's player (an
        ``interception_open`` event; :meth:`to_move` is that player) and False is returned;
        ``interceptor=""`` means nobody intercepts. True once the shot is resolved.
        ``special``: a special attack of the weapon declared with it (p.39); ``rest``:
        Rapid Fire's further shots, ``[target, weapon]`` in order (p.56), made after it
        (False when one of them waits for its interceptor). ``answers``: the Sacrifice /
        Protected answers given; before one is given a hit may wait at its damage roll
        (False, :mod:`sim.rules.game.damage_answers`, p.56-57). ``ignore_reload``: the shot
        ignores the shooter's Reloading markers (a Ki feat's attack, Snap Shot). ``ignore``
        (a Ki feat's attack, Circular Strike): ``"repeat"`` -- no penalty for earlier shots
        this turn; ``"btb"`` -- no test for a target in base contact; ``"friends"`` -- the
        target may be a friendly model (then nobody intercepts)."""
        w = self.ranged_weapon(mid, weapon)
        prof = self.profile(mid)
        infos = {}
        for m in self.table.models:
            ms = self.state.models[m.id]
            card = self.profile(m.id)
            if card is not None and ms.alive:
                try:
                    infos[m.id] = TargetInfo.from_traits(
                        card.traits, exhausted=ms.exhausted, ran_this_turn="ran" in ms.conditions,
                        death_sentence="death_sentence" in ms.conditions, surprised="surprised" in ms.conditions,
                        damage_rules=self.damage_rule_texts(m.id, "ranged"))  # round 6 (F4): feat_rolls
                except Exception:  # noqa: BLE001 - a card we cannot read gets defaults
                    pass
        s = self.state.models[mid]
        scene = self._table_now().scene()
        ignore = list(ignore)
        if interceptor is None and "friends" in ignore and self.state.models[target].player == _player_of(self, mid):
            interceptor = ""  # a friend shot by a feat: no interception (reading, rulings_H19.md)
        if interceptor is None and self.shot_rules(mid).get("no_intercept"):
            interceptor = ""  # a Ki feat: no new target may be nominated (Dead Eye, feat_shots)
        if interceptor is None and w is not None:
            try:
                friends = [x.id for x in self.state.alive(self.state.models[target].player)]
                cands = interceptors(scene, mid, target, friends, weapon=w, infos=infos)
            except (KeyError, ValueError):
                cands = []
            if cands:
                extra = {k: v for k, v in (("special", special), ("direction", direction), ("rest", list(rest)),
                                           ("ignore_reload", ignore_reload), ("ignore", ignore)) if v}
                self._emit(Event("interception_open", {"attacker": mid, "target": target, "weapon": weapon,
                                                       "moved": moved, "boost": boost, "walk_after": walk_after,
                                                       "candidates": list(cands), **extra}))
                return False
        # the shooter's own conditions (Stunned, Frightened: -1 Ranged) and Ki boosts
        mods = sum(v for _, v in conditions.pool_modifiers(conditions.from_model(s), "ranged")) + boost
        assert prof is not None  # judged legal: the shooter's card has the ranged weapon
        pool = modified_stat(prof.ranged or 0, mods)
        option = weapon_specials.ranged_special(w, special)  # its cost comes off the pool (p.39)
        if option is not None:
            pool -= option.cost
        ammo = AmmoState(tuple(sorted(s.ammo.items())),
                         0 if ignore_reload else conditions.count(conditions.from_model(s), "reloading"))
        w = self.protected_weapon(w, interceptor or target)  # round 6 (F5): Pierce lost against it (feat_cards)
        mark = self.dice_mark()  # Sacrifice / Protected may rewind to here (p.56-57)
        try:
            res = resolve_ranged_attack(scene, mid, target, w, self._roller,
                                        # p.31: Ran "в этот ход" and moved "в эту активацию" are two rows:
                                        # a Run in an earlier activation is no move in this one
                                        ranged_pool=pool, moved=moved,
                                        ran="ran" in s.conditions,
                                        shot_this_turn="shot" in s.conditions and "repeat" not in ignore,
                                        interceptor=interceptor or None, infos=infos, ammo=ammo,
                                        special=option.key if option is not None and option.rule else None,
                                        damage_cancelled=self.shot_cancel(answers),
                                        result_modifier=-self.ranged_tn_bonus(),  # round 6 (F4): TN + n (feat_rolls)
                                        **melee_traits.ranged_card_kwargs(self, mid, target, w),
                                        **_ignore_kwargs(self, mid, target, ignore))
        except DiceError:
            raise  # the dice source failed (no values given): no rule refused the shot
        except (RangedAttackError, ValueError) as exc:
            self._emit(Event("shot", {"summary": [f"no shot: {exc}"]}))
            return self._shoot_next(mid, rest, moved, walk_after, ignore_reload, ignore)
        shot = {"mid": mid, "target": target, "weapon": weapon, "moved": moved, "boost": boost,
                "interceptor": interceptor or "", "walk_after": walk_after, "special": special,
                "direction": direction, "rest": [list(x) for x in rest]}
        if ignore_reload:  # a feat's shot resumed after a damage answer keeps ignoring Reloading
            shot["ignore_reload"] = True
        if ignore:
            shot["ignore"] = ignore
        if answers is None and self.shot_damage_wait(mid, res, mark, answers, shot):  # p.56-57
            return False
        summary = [f"{st.name}: {st.detail}" for st in res.steps]
        data = {"summary": summary, "wounds": {res.target: res.wounds} if res.target and res.wounds else {}}
        sp = weapon_specials.apply_ranged_special(self._table_now(), mid, res, option, direction)  # p.39-41
        summary += sp["summary"]
        data.update({k: sp[k] for k in ("positions", "removed") if k in sp})
        marks = []
        if res.target and res.wounds > 0 and w is not None:
            # Poison, Fire, Bleed (X/Y), Disease, Ki Block of the weapon (p.48-59), as in melee
            card = self.profile(mid)
            own = card_marker_traits(w.traits, card.traits) if card is not None else ()
            marks = wound_markers(dc_replace(w, traits=w.traits + own) if own else w, res.target,
                                  immune=self._immune(res.target),
                                  soulless=self._trait(res.target, "soulless")[0])
            if marks:
                wounding = [mk for mk in marks if mk.kind not in CONDITION_MARKERS]
                if wounding:
                    data["markers"] = markers_json(wounding)
                summary += [f"{mk.target} gains {mk.count} {mk.kind} marker(s)" + (f" ({mk.value})" if mk.value else "")
                            for mk in marks]
        if res.outcome == "hit" and res.target:  # feat triggers (round 3)
            self.note_attacks({mid: {res.target: res.wounds}}, "ranged")
        self._emit(Event("shot", data))
        self.next_shot_used(mid, w.name)  # round 6 (F5): a "next attack" change is spent (feat_cards)
        self.remove_savers(answers)  # Sacrifice / Protected: the friend removed instead (p.56-57)
        for k, names in sorted(sp["gain"].items()):
            for name in names:
                if self.state.models[k].alive and name not in self.state.models[k].conditions:
                    self._gain(k, name)
        for ev in sp["events"]:
            self._emit(ev)
        for mk in marks:  # Disease, Ki Block: condition markers (Diseased, Spirit Block, p.43-45)
            if mk.kind in CONDITION_MARKERS and self.state.models[mk.target].alive:
                self._gain(mk.target, CONDITION_MARKERS[mk.kind], mk.count)
        if self.state.models[mid].alive:
            if "shot" not in self.state.models[mid].conditions:
                self._emit(Event("condition", {"model": mid, "name": "shot", "on": True}))
            if res.ammo_spent:
                left = ammo.ammo_left(w)
                self._emit(Event("ammo", {"model": mid, "weapon": w.name, "left": max(0, (left or 0) - 1)}))
            if getattr(res, "reloading_gained", 0):
                self._gain(mid, "reloading", int(res.reloading_gained))
        return self._shoot_next(mid, rest, moved, walk_after, ignore_reload, ignore)

    def _shoot_next(self, mid: str, rest, moved: bool, walk_after, ignore_reload: bool = False, ignore=()) -> bool:
        """Rapid Fire (X) (p.56): the next of the further shots ``rest`` (``[target,
        weapon]``), in the order the player named them; a shot that can no longer be made
        (its target gone, out of LoS) is logged and skipped. True when all are resolved."""
        rest = [list(x) for x in rest]
        while rest and self.state.models[mid].alive:
            (tid, wname), rest = rest[0], rest[1:]
            ok, why = self._can_shoot(mid, tid, wname, ignore_reload=ignore_reload, ignore=ignore)
            src = "the feat's attacks" if ignore else "Rapid Fire"
            if not ok:
                self._emit(Event("note", {"text": f"{src}: no shot at {tid} ({why})"}))
                continue
            self._emit(Event("note", {"text": f"{src}: {mid} shoots again, at {tid}"}))
            return self._shoot(mid, tid, wname, moved=moved, walk_after=walk_after, rest=rest,
                               ignore_reload=ignore_reload, ignore=ignore)
        return True

    def _walk_after_shot(self, mid: str, point) -> None:
        """The Walk a Ranged Attack action declared after its shot (p.25)."""
        if point is None or not self.state.models[mid].alive:
            return
        res = movement.check_walk(self._table_now(), mid, [tuple(point)])
        if res.legal:
            self._move(mid, res)
        else:
            self._emit(Event("note", {"text": "the declared Walk after shooting is no longer legal: no move"}))

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("shoot", _legal_shoot, _resolve_shoot),
        ActionKind("intercept", _legal_intercept, _answer_interception),
    )


def _player_of(game, mid: str) -> int:
    """The player of model ``mid``."""
    return int(game.state.models[mid].player)


def _ignore_kwargs(game, mid: str, target: str, ignore) -> dict:
    """Extra arguments of :func:`sim.rules.ranged.resolve_ranged_attack` for a Ki feat's
    shot that ignores rules (``ignore``): ``"btb"`` -- no test for shooting into contact
    (step 4b: no friend of the shooter counts as in contact); ``"friends"`` -- the target
    counts as an enemy of the shooter."""
    out: dict = {}
    if "btb" in ignore:
        out["friends_of_attacker"] = frozenset()
    if "friends" in ignore:
        out["enemies"] = frozenset(x.id for x in game.state.alive(3 - game.state.models[mid].player)) | {target}
    if "los" in ignore:  # round 6 (F1): a feat's shot that needs no LoS
        out["ignore_los"] = True
    rules = game.shot_rules(mid)  # round 6 (F1): a Ki feat's rules for its shots (Dead Eye, feat_shots)
    if rules.get("cover"):
        out["ignore_cover"] = True
    if rules.get("tiny"):
        out["ignore_tiny"] = True
    if rules.get("los"):
        out["ignore_los"] = True
    band = next((i.split(":", 1)[1] for i in ignore if isinstance(i, str) and i.startswith("band:")), None)
    if band:  # round 6 (F1): the feat's shot counts as in this band ("band:medium")
        out["band_override"] = RangeBand(band)
    return out
