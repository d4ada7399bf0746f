"""Traits that decide who may be targeted or contacted, and who takes the blow
(rulebook "Traits" p.48-59): Camouflage (X"), and the keyword matching of the [K]
traits (Bodyguard [K] (X"), Sacrifice [K] (X"), Protected [K] (X")).

Camouflage (X") (p.50): at the start of an enemy model's activation (the moment it
declares its action: an activation is one action, p.24), if the Camouflage model has
cover from that enemy (:meth:`sim.geometry.measure.Scene.cover`, the cover of a ranged
attack, rulings.md section 5) and the enemy is farther than X" from it (base edge to base
edge), the enemy may not target it (Shoot, Target Ki feats) nor come into contact with it
(Charge, Melee). A model with Sixth Sense ignores Camouflage (p.57). Cover needs LoS, so
a Camouflage model out of the enemy's LoS gets nothing from the trait (the project's
reading, /work/notes/rulings_H8.md).

A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

from typing import Any

from sim.geometry import CONTACT
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import MAX_TURNS, GameError

#: The page of Camouflage (its entry in the trait chapter).
PAGE_CAMOUFLAGE = "p.50"
#: The page of Bodyguard [K] (X").
PAGE_BODYGUARD = "p.49"
#: Ki tokens a Kumo model begins the game with (catalogue-only trait, Library-Traits).
KUMO_START_KI = 2

#: The action kinds that target a model or bring the active model into contact with it
#: (what Camouflage forbids against a camouflaged enemy, p.50).
TARGETING_KINDS = ("shoot", "charge", "melee", "ki_feat", "complex_ki_feat", "feat")


def keyword_matches(profile: Any, qualifier: str | None, *, name: str = "") -> bool:
    """Whether a model's card has the keyword ``qualifier`` of a [K] trait (Bodyguard
    [K], Sacrifice [K], Protected [K], p.48): one of its comma-separated alternatives is
    ``Friendly`` (any friendly model), one of the card's types (``Samurai``), its faction
    (``Ito Clan``), its faction followed by a type (``Ito Clan Samurai``) or its name.
    Case and spaces are ignored; a card of None matches only ``Friendly``.

        >>> from types import SimpleNamespace as NS
        >>> card = NS(types=("samurai", "unique"), faction="Ito Clan", name="Ito Konomi")
        >>> keyword_matches(card, "Ito Clan Samurai, Ito Clan Shisai"), keyword_matches(card, "Servant")
        (True, False)
    """
    if not qualifier:
        return False

    def norm(s: str) -> str:
        return " ".join(str(s).lower().replace("_", " ").replace("-", " ").split())

    alts = [norm(a) for a in qualifier.split(",") if a.strip()]
    if "friendly" in alts:
        return True
    if profile is None:
        return False
    types = {norm(t) for t in getattr(profile, "types", ())}
    faction = norm(getattr(profile, "faction", "") or "")
    names = {norm(getattr(profile, "name", "") or ""), norm(name)} - {""}
    for a in alts:
        if a in types or a in names or (faction and a == faction):
            return True
        if faction and a.startswith(faction + " ") and a[len(faction) + 1:] in types:
            return True
        if a.endswith("s") and a[:-1] in types:  # a plural ("Ashigarus") names the type
            return True
    return False


class Targeting(GamePart):
    """Camouflage and the [K] keyword (a mixin of :class:`~sim.rules.game.Game`)."""

    def camouflage_refusal(self, mid: str, target: str | None) -> str | None:
        """Why model ``mid`` may not target or contact the enemy ``target`` now because of
        the target's Camouflage (X") (p.50), or None: the target has cover from ``mid``
        (:meth:`~sim.geometry.measure.Scene.cover`), ``mid`` is more than X" from it (base
        edge to base edge, measured now: the start of ``mid``'s activation) and ``mid`` has
        no Sixth Sense (p.57)."""
        st = self.state
        t = st.models.get(target or "")
        m = st.models.get(mid)
        if t is None or m is None or not t.alive or not m.alive or t.player == m.player:
            return None
        has, _ = self._trait(t.id, "camouflage")
        if not has or self._trait(mid, "sixth_sense")[0]:
            return None
        reach = self.camouflage_reach(t.id)
        key = (len(self.events), "camouflage", mid, t.id)
        got = self._memo.get(key)
        if got is None:
            scene = self._table_now().scene()
            dist = scene.distance(mid, t.id)
            covered = dist > reach + 1e-9 and scene.cover(mid, t.id).cover
            got = self._memo[key] = (covered, dist)
        covered, dist = got
        if not covered:
            return None
        return (f"{t.id} has Camouflage ({reach:g}\"): it has cover from {mid}, which starts its activation "
                f"{dist:.2f}\" away, so {mid} may not target or contact it ({PAGE_CAMOUFLAGE})")

    def camouflage_reach(self, mid: str) -> float:
        """The X of model ``mid``'s Camouflage (X") in inches (0 when it prints none)."""
        prof = self.profile(mid)
        t = prof.trait("camouflage") if prof is not None else None
        if t is None:
            return 0.0
        if t.range is not None:
            return float(t.range)
        return float(t.value or 0)

    def target_refusal(self, mid: str, kind: str, target: str | None) -> str | None:
        """Why model ``mid`` may not declare an action of ``kind`` at ``target`` because of
        a trait of the target (Camouflage, p.50), or None. Only the kinds that target or
        contact (:data:`TARGETING_KINDS`) are judged."""
        if kind not in TARGETING_KINDS or not target:
            return None
        return self.camouflage_refusal(mid, target) or self.intimidate_refusal(mid, kind, target)  # p.54

    # ------------------------------------------------------------ the start of the game
    def _traits_at_start(self) -> None:
        """What cards give a model when the game starts (after the Flank hold-back, before
        the first Starting phase): Disguise (X) -- a Disguised (X) marker (p.51, p.44);
        Kumo -- 2 Ki tokens (catalogue-only trait). Models Elsewhere get theirs too."""
        for mid, ms in self.state.models.items():
            if ms.killed:
                continue
            prof = self.profile(mid)
            if prof is None:
                continue
            t = prof.trait("disguise")
            x = int(t.value or 0) if t is not None else 0
            if x > 0:
                self._emit(Event("condition", {"model": mid, "name": "disguised", "on": True, "value": x}))
                self._emit(Event("note", {"text": f"{mid} starts the game Disguised ({x}): its card's "
                                                  "Disguise trait (p.51)"}))
            if prof.trait("kumo") is not None:
                self._emit(Event("ki_change", {"model": mid, "delta": KUMO_START_KI}))
                self._emit(Event("note", {"text": f"{mid} begins the game with {KUMO_START_KI} Ki tokens (Kumo)"}))

    # ------------------------------------------------------------ Flank during the game (p.52)
    def flank_out(self, mid: str, turn: int, edge: str, zone: str | None = None) -> None:
        """Take model ``mid`` off the table to return by Flank (p.52: a model that gains
        Flank during the game, or is removed and returns by the Flank rules): its player
        notes at once any later turn (not only 2-4) and a table edge, in secret; it is
        Elsewhere (an ``elsewhere`` event) and arrives like a Flank model held back at
        set-up, with two activation counters (``Action("arrive", ...)``). ``zone``: the
        opponent's deployment zone it may not arrive in (default: the one noted for its
        side's models held back at set-up, if any). Meant for an effect resolved inside an
        action (a Ki feat, a card): the action then hands the activation on as usual.

        Raises:
            GameError: ``mid`` is not on the table, ``turn`` is not after the current turn
                (up to the last turn, 7) or ``edge`` is not a table edge.
        """
        from sim.rules.setup.zones import EDGES

        m = self.state.models.get(mid)
        if m is None or not m.alive:
            raise GameError(f"flank: no model {mid!r} on the table")
        if not isinstance(turn, int) or not self.state.turn < turn <= MAX_TURNS:
            raise GameError(f"flank: {mid} returns on a later turn ({self.state.turn + 1}..{MAX_TURNS}), not {turn!r} "
                            "(p.52)")
        if edge not in EDGES:
            raise GameError(f"flank: {edge!r} is not a table edge ({', '.join(EDGES)})")
        if zone is None:
            zone = next((a.zone for k, a in self.held_back.items()
                         if self.state.models[k].owner == m.owner and a.zone), None)
        self._emit(Event("elsewhere", {"model": mid, "turn": turn, "edge": edge, "zone": zone}))

    # ------------------------------------------------------------ melee damage (catalogue traits)
    def melee_damage_traits(self, att: str, dfn: str, wounds: dict[str, int]) -> None:
        """What a model gains for the damage it deals in a melee exchange between ``att``
        and ``dfn`` (``wounds``: model -> wounds taken in the exchange): Kumo (catalogue
        trait) -- a Kumo model that dealt damage gains Ki tokens equal to the damaged
        enemy's Ki statistic (up to its Ki limit) and heals one wound."""
        for dealer, victim in ((att, dfn), (dfn, att)):
            n = wounds.get(victim, 0)
            d = self.state.models.get(dealer)
            if n <= 0 or d is None or not d.alive or not self._trait(dealer, "kumo")[0]:
                continue
            ki = self.state.models[victim].ki_stat
            if ki > 0:
                self._emit(Event("ki_change", {"model": dealer, "delta": ki}))
            self._emit(Event("note", {"text": f"Kumo: {dealer} dealt damage to {victim} and gains {ki} Ki "
                                              "(its Ki statistic) and heals one wound"}))
            if d.damage > 0:
                self._emit(Event("healed", {"model": dealer, "n": 1, "source": "Kumo"}))

    # ------------------------------------------------------------ Bodyguard [K] (X") (p.49)
    def bodyguards(self, target: str) -> list[str]:
        """The friends of ``target`` whose Bodyguard [K] (X") lets them swap places with it
        now (p.49), checked as far as the engine knows: ``target`` has the keyword K,
        stands within X" of the bodyguard and in its LoS, and is in contact with no enemy
        (the start of the enemy's activation); the bodyguard is in contact with no enemy,
        not Exhausted and not Prone. The Fear test against a Fear enemy and whether the
        bases fit in each other's place are the players' (the swap is a manual step)."""
        st = self.state
        t = st.models.get(target)
        if t is None or not t.alive:
            return []
        scene = self._table_now().scene()
        foes = st.alive(3 - t.player)

        def engaged(mid: str) -> bool:
            return any(scene.distance(mid, e.id) <= CONTACT + 1e-9 for e in foes)

        if engaged(t.id):
            return []
        card = self.profile(t.id)
        out = []
        for b in st.alive(t.player):
            if b.id == t.id or b.exhausted or "prone" in b.conditions:
                continue
            prof = self.profile(b.id)
            rule = prof.trait("bodyguard") if prof is not None else None
            if rule is None or not keyword_matches(card, rule.qualifier, name=t.id):
                continue
            reach = float(rule.range if rule.range is not None else (rule.value or 0))
            if scene.distance(b.id, t.id) > reach + 1e-9 or engaged(b.id) or not scene.los(b.id, t.id).visible:
                continue
            out.append(b.id)
        return out

    def bodyguard_notes(self, mid: str, kind: str, target: str | None) -> None:
        """When model ``mid`` declares a Charge or Melee into contact with, or a Shoot at,
        ``target`` (p.49), log for each friend that may guard it the card's rule as a manual
        step: the swap is the target's player's choice, which the engine does not offer yet
        (a ``note`` event; the players apply the swap with :meth:`adjust`)."""
        if kind not in ("charge", "melee", "shoot") or not target:
            return
        for b in self.bodyguards(target):
            self._emit(Event("note", {"text": f"manual step: {b} has Bodyguard and may swap places with {target} "
                                              f"before {mid}'s {kind} ({PAGE_BODYGUARD}: \"эта модель может поменяться "
                                              "местами с той дружественной моделью прежде начала действия\"); "
                                              "the engine does not make the swap"}))
