"""What the engine reads off a model's card (profile, Ki feats, traits, immunities) and
how an effect changes a model: conditions gained or lost (p.43-45) and wounds (p.38).

A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

import json

from models.profiles import get_profile
from models.traits import has_trait
from sim.rules import conditions, ki
from sim.rules.effects import effect_problem, effective_profile
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.special_cards import card_feats


class Cards(GamePart):
    """Cards, conditions and wounds (a mixin of :class:`~sim.rules.game.Game`)."""

    def profile(self, mid: str):
        """The EFFECTIVE card of model ``mid`` (:class:`models.profiles.Profile`): its
        printed card (:meth:`printed_profile`) with the effects it has now applied
        (:func:`sim.rules.effects.effective_profile`: traits gained or lost, weapon traits,
        statistics; p.46-48), or None for a model without a card."""
        prof = self.printed_profile(mid)
        m = self.state.models.get(mid)
        extra = (self.oni_rage_effects(mid) + self.orochi_effects(mid)  # Oni Rage (p.55), Blood of Orochi (p.49)
                 if prof is not None and m is not None and m.conditions else [])
        if prof is not None and m is not None:
            extra = extra + self.aura_effects(mid)  # Aura feats' lasting changes while inside (feat_auras, p.47)
            if self.state.exchange is not None:  # round 6 (F5): traits taken in an exchange (feat_cards)
                extra = extra + self.steal_effects(mid)
            if m.conditions:  # round 6 (F5): a change for the model's next ranged attack (feat_cards)
                extra = extra + self.next_shot_effects(mid)
        if prof is None or m is None or not (m.effects or extra):
            return prof
        effects = m.effects + extra  # Oni Rage: Tough (+1) while Berserk (p.55)
        key = (mid, self.form_key(mid), json.dumps(effects, sort_keys=True))  # form: round 6 (F5, feat_cards)
        got = self._effective_cards.get(key)
        if got is None:
            if len(self._effective_cards) > 512:
                self._effective_cards.clear()
            got = self._effective_cards[key] = effective_profile(prof, effects)
        return got

    def grant(self, mid: str, source: str, until: str, *, traits=(), lose=(), weapon_traits=(),
              weapon: str = "all", stats=None) -> None:
        """Give model ``mid`` an effect until ``until`` (:data:`sim.rules.effects.DURATIONS`):
        ``traits`` gained (printed texts, ``"Tough (+1)"``), ``lose`` (trait names),
        ``weapon_traits`` its ``weapon`` weapons (``melee``/``ranged``/``all``) gain,
        ``stats`` changes (``{"melee": 1}``); ``source`` names what gave it (the log).
        Emits an ``effect`` event; :meth:`profile` reads it from then on.

        Raises:
            ValueError: an invalid effect (:func:`sim.rules.effects.effect_problem`).
        """
        eff: dict = {"source": source, "until": until}
        for k, v in (("traits", list(traits)), ("lose", list(lose)), ("weapon_traits", list(weapon_traits))):
            if v:
                eff[k] = v
        if weapon_traits or (stats and "strength" in stats):
            eff["weapon"] = weapon
        if stats:
            eff["stats"] = {k: int(v) for k, v in stats.items()}
        problem = effect_problem(eff)
        if problem:
            raise ValueError(f"effect of {source} on {mid}: {problem}")
        self._emit(Event("effect", {"model": mid, **eff}))

    def _end_effects(self, until: str) -> None:
        """End every effect lasting ``until`` (an ``effects_end`` event, only when one exists)."""
        self.feat_marks_expire(until)  # feat markers with a duration (feat_triggers, round 3)
        if any(e.get("until") == until for m in self.state.models.values() for e in m.effects):
            self._emit(Event("effects_end", {"until": until}))

    def printed_profile(self, mid: str):
        """The printed profile card (:class:`models.profiles.Profile`) of model ``mid``, or
        None for a model without one. Looked up once per game (cards do not change during
        a game)."""
        form = self.form_card(mid)  # round 6 (F5): the other-form card a Shapeshift gave it (feat_cards)
        if form is not None:
            return form
        if mid in self._cards:
            return self._cards[mid]
        tm = self.table.model(mid)
        prof = None
        if tm.profile:
            try:
                prof = get_profile(tm.profile)
            except KeyError:
                prof = None
        self._cards[mid] = prof
        return prof

    def feats(self, mid: str) -> dict:
        """The Ki feats ``mid`` can use, by name (:func:`sim.rules.ki.model_feats`: its card's
        and those its table entry adds; and those its enhancement cards give,
        :func:`sim.rules.game.special_cards.card_feats`)."""
        key = (mid, self.form_key(mid))  # round 6 (F5): another form, other feats (feat_cards)
        got = self._feats.get(key)
        if got is None:
            got = self._feats[key] = {**ki.model_feats(self.profile(mid), self.table.model(mid).feats),
                                      **card_feats(self, mid)}  # enhancement cards' feats (p.17; special_cards)
        return got

    def _trait(self, mid: str, keyword: str):
        """``(has, value)`` of a trait on the model's profile card."""
        tm = self.table.model(mid)
        prof = self.profile(mid) if tm.profile else None
        if prof is None:
            m = self.state.models.get(mid)
            gained = [t for e in (m.effects if m is not None else ()) for t in e.get("traits", [])]
            if gained and has_trait(gained, keyword):
                return True, None
            return tm.has_trait(keyword), None
        t = prof.trait(keyword)
        return (True, t.value) if t is not None else (False, None)

    def _immunities(self, mid: str) -> tuple[str, ...]:
        """Trait keywords and Immune [..] names that keep conditions off ``mid`` (p.43-45)."""
        prof = self.profile(mid)
        if prof is None:
            return tuple(t for t in self.table.model(mid).traits if conditions.canonical(t) is None)
        # traits named like a condition give its markers, no immunity: Impetuous (X) (p.54),
        # Disguise (X) (p.51: a higher Disguised X is still gained, p.43)
        out = [t.keyword for t in prof.traits if conditions.canonical(t.keyword) is None]
        out += [t.qualifier for t in prof.traits if t.keyword == "immune" and t.qualifier]
        if self.impetuous_fearless(mid):  # Impetuous (X): Fearless while it has the markers (p.54)
            out.append("fearless")
        if self.state.models[mid].kami:  # Kami: Immune (Poison, Fire, Bleed, Disease) (p.54)
            out += ["poisoned", "on_fire", "bleed", "diseased"]
        if "soulless" in out:  # Soulless: Immune [Frightened, Poisoned, Bleed] (p.58)
            out += ["frightened", "poisoned", "bleed"]
        if mid in self.vim_ids():  # a VIM cannot gain Disguised (p.63)
            out.append("disguised")
        return tuple(out)

    def _marker_gain_events(self, mid: str, name: str, n: int, value=None) -> list[Event] | None:
        """The ``markers`` event by which ``mid`` gains ``n`` Bleed, Poisoned or On Fire
        markers of value ``value`` (default 1; none when it is immune, p.43-45), or None
        when ``name`` is not one of those."""
        key = conditions.canonical(name)
        if key not in conditions.DAMAGING:
            return None
        if n <= 0 or any(conditions.canonical(str(i)) == key for i in self._immunities(mid)):
            return []
        v = int(value) if isinstance(value, int) and not isinstance(value, bool) else 1
        return [Event("markers", {"model": mid, "marker": conditions.DAMAGING[key], "add": [v] * int(n)})]

    def _lose_markers(self, mid: str, name: str, n: int | None) -> bool:
        """Remove ``n`` (None: every) Bleed, Poisoned or On Fire markers of ``mid``, the
        highest first (a ``markers`` event); False when ``name`` is not one of those."""
        key = conditions.canonical(name)
        if key not in conditions.DAMAGING:
            return False
        kind = conditions.DAMAGING[key]
        if self.state.models[mid].markers.get(kind):
            self._emit(Event("markers", {"model": mid, "marker": kind, "remove": "all" if n is None else int(n)}))
        return True

    def _set_conditions(self, mid: str, new: dict) -> None:
        """Emit the condition events that turn the model's conditions into ``new`` (a
        mapping as :mod:`sim.rules.conditions` returns it). Markers that wound (Bleed,
        Poisoned, On Fire) and keys that are no conditions (``ran``) are left alone."""
        for ev in self._condition_events(mid, new):
            self._emit(ev)

    def _condition_events(self, mid: str, new: dict) -> list[Event]:
        """The condition events of :meth:`_set_conditions` (not emitted)."""
        m = self.state.models[mid]
        old = conditions.normalise(m.conditions)
        out = []
        for name in sorted(set(old) | set(new)):
            if name in conditions.DAMAGING:
                continue
            if name not in new:
                key = next((k for k in m.conditions if conditions.canonical(k) == name), name)
                out.append(Event("condition", {"model": mid, "name": key, "on": False}))
            elif old.get(name) != new[name]:
                out.append(Event("condition", {"model": mid, "name": name, "on": True, "value": new[name]}))
        return out

    def _gain(self, mid: str, name: str, n: int = 1, value=None) -> None:
        """``mid`` gains ``n`` markers of condition ``name`` (immunities respected). Bleed,
        Poisoned and On Fire are markers with a value (``value``, default 1) kept in
        ``ModelState.markers`` (a ``markers`` event, p.43-45)."""
        m = self.state.models[mid]
        marks = self._marker_gain_events(mid, name, n, value)
        if marks is not None:
            for ev in marks:
                self._emit(ev)
            return
        new = conditions.gain_condition(conditions.from_model(m), name, n, value=value, immune=self._immunities(mid))
        self._set_conditions(mid, new)

    def _wound(self, mid: str, n: int) -> None:
        """``n`` wounds on ``mid``; it is killed when no box is left (p.38)."""
        if n <= 0:
            return
        self._emit(Event("wounds", {"model": mid, "n": n}))
        if not self.state.models[mid].alive:  # Kami, Last Stand, Rise: state.take_wounds (p.54, p.57)
            self._emit(Event("killed", {"model": mid}))
