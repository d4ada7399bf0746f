"""Traits that change tests (Tests p.27-29, Traits p.48-59): one place that reads a model's
card and says how its Fear test, Ki challenge test, opposed Ki test or Size test is rolled.

Every test the engine takes goes through these functions (the Game's side is
:mod:`sim.rules.game.test_rolls`), so a trait acts the same on every path:

* **Ki tests** (challenge and opposed, p.27-28): Spirit (X) changes the Ki statistic by X,
  after boosts and beyond twice the base (p.58); Soulless passes every Ki test when it is
  not the active model (p.58).
* **Opposed Ki tests** (p.27): Willpower (X) changes the result by X when the model is
  active, Resistance (X) when it is not (p.57, p.59); Overwhelm (X): when active, the
  opponent drops its X highest dice; Mettle (X): when not active, the opponent drops its X
  highest dice (p.55); Mantra: its 1s count as 1 and are not removed (p.55).
* **Fear tests** (p.29) are Ki challenge tests, and "any effect on Ki tests also acts on
  Fear tests" (p.29): Spirit and Soulless act; Fearless passes; Courage (X) changes the
  result by X (p.50); Leadership [K] (X/Y") of a friend within Y" adds X (the highest X,
  p.54); Cowardly re-rolls a pass, Bravery a failure (p.49-50); the source's Dread (X)
  lowers the Ki by X and forbids the automatic pass, its Terror re-rolls a pass (p.51,
  p.58) -- :func:`sim.rules.dice.fear_test` rolls them.
* **Size tests** (p.28): Strong +1 die, Weak -1 die (cancelling), Swarm -1 die (p.58-59).

"Active" is the active model (p.4: the model taking its action now). Who that is for a
given test is the caller's to say: ``True`` / ``False``, or ``None`` where no model is
active (the Starting phase) -- then Willpower and Overwhelm do not act and Resistance,
Mettle and Soulless do.

Trait values are read with :func:`trait_number`: a printed ``X`` or a missing value is 0.
Pure: no Game, no dice; a ``TraitOf`` callable ``(model id, keyword) -> (has, value)``
reads the cards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from models.traits import trait_key
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.dice import RollOptions

__all__ = [
    "FEAR_TRAITS", "KI_TEST_TRAITS", "SIZE_TRAITS", "FearTerms", "KiTerms", "SizeTerms", "TraitOf", "fear_terms",
    "ki_challenge_terms",    "leadership_bonus", "opposed_ki_terms", "size_terms", "trait_number",
]

#: The traits this module reads, by the tests they act in (p.28-29, p.48-59).
FEAR_TRAITS = ("fearless", "soulless", "spirit", "courage", "leadership", "bravery", "cowardly", "dread", "terror",
               "fear", "impetuous")
KI_TEST_TRAITS = ("spirit", "soulless", "willpower", "resistance", "mettle", "overwhelm", "mantra")
SIZE_TRAITS = ("strong", "weak", "swarm")

#: ``(model id, trait keyword) -> (has, value)``: how the functions read the cards (the
#: Game's effective card, p.46-48).
TraitOf = Callable[[str, str], tuple[bool, Any]]


def trait_number(value: Any, default: int = 0) -> int:
    """A trait's printed number as an int: ``2``, ``"+1"``, ``"-1"`` -> 2, 1, -1; ``None``,
    ``"X"`` or any other text -> ``default`` (the card leaves it to the players)."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _signed(name: str, x: int) -> str:
    return f"{name} ({x:+d})"


@dataclass(frozen=True)
class KiTerms:
    """How one model rolls its side of a Ki test.

    Attributes:
        dice: its Ki statistic with boosts and Spirit (X) (the pool; one die is still
            rolled when it is 0 or less, p.28).
        modifier: to the highest die (Willpower, Resistance).
        options: Mantra (``keep_ones``) and the dice the opponent's Mettle or Overwhelm
            makes it drop (``drop_highest``).
        auto_pass: Soulless and not the active model: it passes without rolling.
        traits: the traits that acted, as the log names them (``"Spirit (+1)"``).
    """

    dice: int
    modifier: int = 0
    options: RollOptions = field(default_factory=RollOptions)
    auto_pass: bool = False
    traits: tuple[str, ...] = ()


def _spirit(trait: TraitOf, mid: str) -> tuple[int, list[str]]:
    has, value = trait(mid, "spirit")
    x = trait_number(value) if has else 0
    return x, ([_signed("Spirit", x)] if has and x else [])


def ki_challenge_terms(trait: TraitOf, mid: str, ki_stat: int, *, active: bool | None,
                       boost: int = 0) -> KiTerms:
    """A Ki challenge test of ``mid`` (a feat's Ki (X) test, a Disguised Ki (X) test, p.28,
    p.44, p.46): Ki statistic + ``boost`` + Spirit (X) dice; Soulless passes when ``active``
    is not True (p.58)."""
    x, notes = _spirit(trait, mid)
    soulless = trait(mid, "soulless")[0] and active is not True
    if soulless:
        notes.append("Soulless")
    return KiTerms(ki_stat + boost + x, 0, RollOptions(), soulless, tuple(notes))


def opposed_ki_terms(trait: TraitOf, a: str, ki_a: int, b: str, ki_b: int, *, a_active: bool | None,
                     boost_a: int = 0, boost_b: int = 0) -> tuple[KiTerms, KiTerms]:
    """Both sides of an opposed Ki test between ``a`` and ``b`` (p.27): ``a_active`` True when
    ``a`` is the active model, False when ``b`` is, None when neither is.

    Spirit (X) on each side's dice; Willpower (X) to the active side's result, Resistance
    (X) to the other's; Overwhelm (X) of the active side and Mettle (X) of the other make
    the opponent drop its X highest dice; Mantra keeps a side's 1s; Soulless passes when
    not active (the caller decides the test for it: the other side loses)."""
    sides = ((a, ki_a, boost_a, a_active is True, a_active is False),
             (b, ki_b, boost_b, a_active is False, a_active is True))
    base: list[tuple[int, int, bool, bool, list[str]]] = []
    drops = [0, 0]
    for i, (mid, ki, boost, active, passive) in enumerate(sides):
        x, notes = _spirit(trait, mid)
        mod = 0
        will = trait(mid, "willpower")
        res = trait(mid, "resistance")
        if active and will[0]:
            mod += trait_number(will[1])
            notes.append(_signed("Willpower", trait_number(will[1])))
        if not active and res[0]:
            mod += trait_number(res[1])
            notes.append(_signed("Resistance", trait_number(res[1])))
        over, mettle = trait(mid, "overwhelm"), trait(mid, "mettle")
        if active and over[0] and trait_number(over[1]) > 0:
            drops[1 - i] += trait_number(over[1])
            notes.append(f"Overwhelm ({trait_number(over[1])})")
        if not active and mettle[0] and trait_number(mettle[1]) > 0:
            drops[1 - i] += trait_number(mettle[1])
            notes.append(f"Mettle ({trait_number(mettle[1])})")
        mantra = trait(mid, "mantra")[0]
        if mantra:
            notes.append("Mantra")
        soulless = trait(mid, "soulless")[0] and not active
        if soulless:
            notes.append("Soulless")
        base.append((ki + boost + x, mod, mantra, soulless, notes))
    out = tuple(KiTerms(d, m, RollOptions(keep_ones=k, drop_highest=drops[i]), s, tuple(n))
                for i, (d, m, k, s, n) in enumerate(base))
    return out[0], out[1]


@dataclass(frozen=True)
class FearTerms:
    """How ``tester`` rolls a Fear test (p.29): the keyword arguments of
    :func:`sim.rules.dice.fear_test` (:meth:`kwargs`) and the traits that acted."""

    ki: int
    own_fear: int | None
    modifier: int
    fearless: bool
    dread: int | None
    bravery: bool
    cowardly: bool
    terror: bool
    traits: tuple[str, ...] = ()

    def kwargs(self) -> dict[str, Any]:
        """``{"own_fear", "modifier", "fearless", "dread", "bravery", "cowardly", "terror"}``."""
        return dict(own_fear=self.own_fear, modifier=self.modifier, fearless=self.fearless, dread=self.dread,
                    bravery=self.bravery, cowardly=self.cowardly, terror=self.terror)


def fear_terms(trait: TraitOf, tester: str, ki_stat: int, *, source: str | None = None, leadership: int = 0,
               leader: str | None = None, fearless: bool = False) -> FearTerms:
    """The Fear test of ``tester`` against ``source`` (the Fear model; None for the End
    phase re-test of a Frightened model, whose source the game does not keep, p.44).

    ``ki_stat``: its Ki statistic; Spirit (X) is added here (p.29: Ki test effects act on
    Fear tests). ``leadership``: the Leadership bonus of :func:`leadership_bonus` (named
    after ``leader`` in the log). ``fearless``: passes by another effect (the caller's:
    Impetuous markers). Fearless and Soulless pass; Courage (X) and Leadership change the
    result; Bravery, Cowardly; the source's Dread (X) and Terror (p.49-58)."""
    x, notes = _spirit(trait, tester)
    own = trait(tester, "fear")
    auto = fearless
    for name in ("fearless", "soulless"):
        if trait(tester, name)[0]:
            auto = True
            notes.append(name.title())
    mod = 0
    courage = trait(tester, "courage")
    if courage[0] and trait_number(courage[1]):
        mod += trait_number(courage[1])
        notes.append(_signed("Courage", trait_number(courage[1])))
    if leadership:
        mod += leadership
        notes.append(_signed("Leadership", leadership) + (f" of {leader}" if leader else ""))
    bravery, cowardly = trait(tester, "bravery")[0], trait(tester, "cowardly")[0]
    notes += [n for n, on in (("Bravery", bravery), ("Cowardly", cowardly)) if on]
    dread: int | None = None
    terror = False
    if source is not None:
        d = trait(source, "dread")
        if d[0]:
            dread = max(0, trait_number(d[1]))
            notes.append(f"{source}'s Dread ({dread})")
        terror = bool(trait(source, "terror")[0])
        if terror:
            notes.append(f"{source}'s Terror")
    return FearTerms(ki_stat + x, trait_number(own[1]) if own[0] else None, mod, auto, dread, bravery, cowardly,
                     terror, tuple(notes))


def leadership_bonus(tester: Any, leaders: Iterable[tuple[str, Any, float]],
                     conditions: Iterable[str] = ()) -> tuple[int, str | None]:
    """Leadership [K] (X/Y") for a Fear test of the card ``tester`` (p.54): ``leaders`` are
    ``(model id, its card, distance in inches edge to edge)`` of the tester's friends
    (itself at 0" included); a leader counts when the tester is a ``[K]`` model
    (:func:`sim.rules.card_keywords.keyword_matches`, seen as a friend, with its
    ``conditions``; no qualifier: any friend) and is within Y". Only the highest X counts.
    Returns ``(X, the leader's id)``, ``(0, None)`` when none."""
    view = view_of(tester, friendly=True, conditions=tuple(conditions))
    best: tuple[int, str | None] = (0, None)
    for mid, card, dist in leaders:
        if card is None:
            continue
        for t in card.traits:
            if trait_key(t.keyword) != "leadership":
                continue
            x = trait_number(t.value)
            rng = t.range if t.range is not None else 0.0
            if x > best[0] and dist <= rng + 1e-6 and keyword_matches(t.qualifier or "friendly", view):
                best = (x, mid)
    return best


@dataclass(frozen=True)
class SizeTerms:
    """A Size test's trait dice (p.28): the keyword arguments of
    :func:`sim.rules.dice.size_test` (:meth:`kwargs`) and the traits that acted."""

    strong: bool
    weak: bool
    swarm: bool
    traits: tuple[str, ...] = ()

    def kwargs(self) -> dict[str, bool]:
        """``{"strong", "weak", "swarm"}``."""
        return dict(strong=self.strong, weak=self.weak, swarm=self.swarm)


def size_terms(trait: TraitOf, mid: str, qualifier_of: Callable[[str, str], str | None] | None = None) -> SizeTerms:
    """Strong (+1 die), Weak (-1 die) and Swarm (-1 die) in a Size test of ``mid`` (p.28,
    p.58-59). A Strong limited to weapons (``Strong [Melee]``, p.58) is for their damage
    rolls only: ``qualifier_of(mid, keyword)`` gives the qualifier (None: unqualified)."""
    def on(name: str) -> bool:
        if not trait(mid, name)[0]:
            return False
        return qualifier_of is None or qualifier_of(mid, name) is None
    strong, weak, swarm = on("strong"), on("weak"), on("swarm")
    notes = [n.title() for n, v in (("strong", strong), ("weak", weak), ("swarm", swarm)) if v]
    return SizeTerms(strong, weak, swarm, tuple(notes))
