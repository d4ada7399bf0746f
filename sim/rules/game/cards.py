"""What the engine reads off a model's card (profile, Ki feats, traits, immunities) and
how an effect changes a model: conditions gained or lost (p.43-45) and wounds (p.38).

A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

from models.profiles import get_profile
from sim.rules import conditions, ki
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart


class Cards(GamePart):
    """Cards, conditions and wounds (a mixin of :class:`~sim.rules.game.Game`)."""

    def profile(self, mid: str):
        """The profile card (:class:`models.profiles.Profile`) of model ``mid``, or None
        for a model without one. Looked up once per game (cards do not change during a
        game)."""
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
        and those its table entry adds)."""
        got = self._feats.get(mid)
        if got is None:
            got = self._feats[mid] = ki.model_feats(self.profile(mid), self.table.model(mid).feats)
        return got

    def _trait(self, mid: str, keyword: str):
        """``(has, value)`` of a trait on the model's profile card."""
        tm = self.table.model(mid)
        prof = self.profile(mid) if tm.profile else None
        if prof is None:
            return tm.has_trait(keyword), None
        t = prof.trait(keyword)
        return (True, t.value) if t is not None else (False, None)

    def _immunities(self, mid: str) -> tuple[str, ...]:
        """Trait keywords and Immune [..] names that keep conditions off ``mid`` (p.43-45)."""
        prof = self.profile(mid)
        if prof is None:
            return tuple(self.table.model(mid).traits)
        out = [t.keyword for t in prof.traits]
        out += [t.qualifier for t in prof.traits if t.keyword == "immune" and t.qualifier]
        return tuple(out)

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
        """``mid`` gains ``n`` markers of condition ``name`` (immunities respected)."""
        m = self.state.models[mid]
        new = conditions.gain_condition(conditions.from_model(m), name, n, value=value, immune=self._immunities(mid))
        self._set_conditions(mid, new)

    def _wound(self, mid: str, n: int) -> None:
        """``n`` wounds on ``mid``; it is killed when no box is left (p.38)."""
        if n <= 0:
            return
        self._emit(Event("wounds", {"model": mid, "n": n}))
        m = self.state.models[mid]
        if m.damage >= m.wounds:
            self._emit(Event("killed", {"model": mid}))
