"""The tests a game takes, with the traits of the models that take them (Tests p.27-29,
Traits p.48-59): Fear tests, Ki challenge tests, opposed Ki tests and Size tests.

Each step that calls for one of these tests calls the method here; the method reads the
models' effective cards through :mod:`sim.rules.test_traits` (Spirit, Soulless, Courage,
Leadership, Cowardly, Bravery, Dread, Terror, Willpower, Resistance, Mettle, Overwhelm,
Mantra, Strong, Weak, Swarm) and returns the outcome and the traits that acted, for the
log line. Nothing here changes the state: the callers emit the events.

A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.geometry import Size
from sim.rules import conditions
from sim.rules import test_traits as tt
from sim.rules.dice import (
    ChallengeResult,
    FearResult,
    OpposedResult,
    RollKind,
    RollOptions,
    RollPurpose,
    Side,
    challenge_test,
    fear_test,
    opposed_test,
    size_test,
)
from sim.rules.game import melee_traits
from sim.rules.game.feat_rolls import opposed_rerolls, resist_ignored, test_rerolls
from sim.rules.game.part import GamePart
from sim.rules.ki import Feat


@dataclass(frozen=True)
class TestOutcome:
    """A Ki or Size test the game took: ``passed`` (for an opposed test: model ``a`` won);
    ``result``: the roll (None when a trait decided it without dice); ``traits``: what
    acted, as the log names it; ``automatic``: decided without dice (Soulless)."""

    __test__ = False  # not a pytest class

    passed: bool
    result: ChallengeResult | OpposedResult | None
    traits: tuple[str, ...] = ()
    automatic: bool = False

    def why(self) -> str:
        """`` (Spirit (+1), Resistance (+1))`` or ``""``: the traits for a log line."""
        return f" ({', '.join(self.traits)})" if self.traits else ""


class RollsStep(GamePart):
    """Fear, Ki and Size tests with the models' traits (a mixin of :class:`~sim.rules.game.Game`)."""

    def _card_qualifier(self, mid: str, keyword: str) -> str | None:
        prof = self.profile(mid)
        t = prof.trait(keyword) if prof is not None else None
        return t.qualifier if t is not None else None

    def _leadership(self, tester: str) -> tuple[int, str | None]:
        """Leadership [K] (X/Y") of the tester's friends on the table (itself included),
        the highest X whose Y reaches it (p.54)."""
        st = self.state
        me = st.models[tester]
        scene = self._table_now().scene()
        leaders = []
        for m in st.alive(me.player):
            if m.elsewhere is not None or not self._trait(m.id, "leadership")[0]:
                continue
            try:
                d = 0.0 if m.id == tester else scene.distance(m.id, tester)
            except (KeyError, ValueError):
                continue
            leaders.append((m.id, self.profile(m.id), d))
        return tt.leadership_bonus(self.profile(tester), leaders, tuple(me.conditions))

    def _fear_roll(self, tester: str, tn: int, source: str | None = None,
                   detail: str = "") -> tuple[FearResult, tuple[str, ...]]:
        """The Fear test of ``tester`` at TN ``tn`` against ``source`` (None: the End phase
        re-test, p.44) with every trait that acts on it (p.29, :func:`sim.rules.test_traits.fear_terms`).
        Returns the result and the traits that acted."""
        m = self.state.models[tester]
        if conditions.frightened_auto_fails_fear(conditions.from_model(m), self.state.phase):
            return FearResult(False, True), ("Frightened: fails in the Main phase",)  # p.44
        lead, leader = self._leadership(tester)
        impetuous = self.impetuous_fearless(tester)  # Impetuous (X): Fearless while marked (p.54)
        terms = tt.fear_terms(self._trait, tester, m.ki_stat, source=source, leadership=lead,
                              leader=leader if leader != tester else None, fearless=impetuous)
        res = fear_test(terms.ki, tn, self._roller, **terms.kwargs(),
                        rerolls=test_rerolls(self, tester, "fear", tn, terms.modifier),  # round 6 (F4): feat re-rolls
                        purpose=RollPurpose(RollKind.FEAR, tester, source, detail or f"TN {tn}"))
        if res.automatic:  # passed without dice: name what passed it
            auto = tuple(n for n in terms.traits if n in ("Fearless", "Soulless"))
            return res, auto or (("Impetuous",) if impetuous else (f"own Fear ({terms.own_fear})",))
        return res, terms.traits

    def _ki_challenge(self, mid: str, tn: int, purpose: RollPurpose, *, boost: int = 0,
                      active: bool | None = None) -> TestOutcome:
        """A Ki (``tn``) challenge test of ``mid`` (p.28) with Spirit and Soulless
        (:func:`sim.rules.test_traits.ki_challenge_terms`). ``active``: whether ``mid`` is
        the active model (default: its player is the active player)."""
        m = self.state.models[mid]
        if active is None:
            active = m.player == self.state.active
        terms = tt.ki_challenge_terms(self._trait, mid, m.ki_stat, active=active, boost=boost)
        if terms.auto_pass:
            return TestOutcome(True, None, terms.traits, True)
        res = challenge_test(terms.dice, tn, terms.modifier, self._roller, options=terms.options, purpose=purpose,
                             rerolls=test_rerolls(self, mid, "ki", tn, terms.modifier, terms.options))  # round 6 (F4)
        return TestOutcome(res.success, res, terms.traits)

    def _opposed_ki(self, a: str, b: str, purpose: RollPurpose, purpose_b: RollPurpose, *,
                    a_active: bool | None, boost_a: int = 0, modifier_a: int = 0,
                    modifier_b: int = 0, ignore_b: tuple[str, ...] = ()) -> TestOutcome:
        """An opposed Ki test of ``a`` against ``b`` (p.27) with their traits
        (:func:`sim.rules.test_traits.opposed_ki_terms`); ``passed``: ``a`` wins. Ties go
        to the active side (``a_active``; with no active model, to the active player's
        model). A Soulless side that is not active passes without dice (p.58)."""
        st = self.state
        ma, mb = st.models[a], st.models[b]
        trait: Callable[[str, str], tuple[bool, Any]] = self._trait
        if ignore_b:  # round 6 (F4): traits ``b`` may not use in this test (Serpentine Sway, feat_rolls)
            def _without(mid: str, key: str) -> tuple[bool, Any]:
                return (False, None) if mid == b and key in ignore_b else self._trait(mid, key)
            trait = _without
        ta, tb = tt.opposed_ki_terms(trait, a, ma.ki_stat, b, mb.ki_stat, a_active=a_active, boost_a=boost_a)
        traits = tuple(f"{a}: {n}" for n in ta.traits) + tuple(f"{b}: {n}" for n in tb.traits)
        if tb.auto_pass and not ta.auto_pass:
            return TestOutcome(False, None, traits, True)
        if ta.auto_pass and not tb.auto_pass:
            return TestOutcome(True, None, traits, True)
        a_side = (ma.player == st.active) if a_active is None else a_active
        active: Side = "a" if a_side else "b"
        res = opposed_test(ta.dice, tb.dice, self._roller, ta.modifier + modifier_a, tb.modifier + modifier_b,
                           active=active, options_a=ta.options, options_b=tb.options, purpose=purpose,
                           purpose_b=purpose_b, rerolls=opposed_rerolls(self, a, b))  # round 6 (F4): feat re-rolls
        return TestOutcome(res.winner == "a", res, traits)

    def _size_roll(self, mid: str, tn: int, purpose: RollPurpose | None = None) -> TestOutcome:
        """A Size (``tn``) test of ``mid`` (p.28): dice by its Size, Strong +1, Weak -1,
        Swarm -1 (:func:`sim.rules.test_traits.size_terms`)."""
        size = self.form_table_model(self.table.model(mid)).size  # round 6 (F5): Shapeshift's card (feat_cards)
        terms = tt.size_terms(self._trait, mid, self._card_qualifier)
        adept = melee_traits.size_adept(self, mid)  # Adept [Size] (X) (p.48)
        res = size_test(size if size != Size.ZERO else Size.SMALL, tn, self._roller, strong=terms.strong,
                        weak=terms.weak, swarm=terms.swarm, options=RollOptions(adept=adept),
                        rerolls=test_rerolls(self, mid, "size", tn, 0, RollOptions(adept=adept)),  # round 6 (F4)
                        purpose=purpose or RollPurpose(RollKind.SIZE, mid))
        return TestOutcome(res.success, res, terms.traits + ((f"Adept ({adept})",) if adept else ()))

    def _feat_test(self, mid: str, feat: Feat, target: str | None, boost: int = 0) -> TestOutcome:
        """The test of Ki feat ``feat`` (:class:`sim.rules.ki.Feat`) used by ``mid`` (p.46-47):
        OKi -- an opposed Ki test against ``target`` (:meth:`_opposed_ki`; the user is the
        active model when its player is the active player); a Ki (X) challenge test
        (:meth:`_ki_challenge`); no test: passed. ``boost``: Ki boosts bought for it."""
        st = self.state
        active = st.models[mid].player == st.active
        if feat.opposed and target is not None and target in st.models:
            return self._opposed_ki(mid, target, RollPurpose(RollKind.KI_FEAT, mid, target, feat.name),
                                    RollPurpose(RollKind.KI_RESIST, target, mid, feat.name),
                                    a_active=active, boost_a=boost,
                                    ignore_b=resist_ignored(self, feat.name, target))  # round 6 (F4)
        if feat.challenge is not None:
            return self._ki_challenge(mid, feat.challenge, RollPurpose(RollKind.KI_FEAT, mid, None, feat.name),
                                      boost=boost, active=active)
        return TestOutcome(True, None)
