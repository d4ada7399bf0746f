"""Dice sources and the tests of the rulebook: challenge, opposed, Size, Tactical, Fear.

Pure functions, no I/O. Every function that rolls takes a ``dice`` object (:class:`Dice`),
so a game can use :class:`SeededDice` (reproducible), :class:`PhysicalDice` (values typed
in by the players) or scripted values in tests.

Every roll carries what it is for: ``dice.roll(n, purpose)`` with a :class:`RollPurpose`
(a :class:`RollKind` -- Tactical test, attack dice, damage roll, Fear test ... with its
rulebook page -- and who rolls, against whom, and a detail). The tests below take a
``purpose`` keyword and hand it on, marking re-rolled dice (:meth:`RollPurpose.rerolled`)
and the two sides of an opposed test; a physical dice source labels its prompts with
:meth:`RollPurpose.label`. A purpose never changes the values rolled.

Rulebook: "Tests" p.27-29, the glossary (Terms and Concepts p.4-9: Modifiers, Supporting
Dice), Profile cards p.10 (Statistics), Traits p.48-59 (Adept, Strong, Weak, Swarm, Tiny,
Tactician, Fear, Fearless, Soulless, Dread, Bravery, Cowardly, Terror, Steadfast, Kata,
Mantra, Mettle, Overwhelm, Unblockable).

How a roll is evaluated (p.27-28), see :func:`evaluate_roll`:

1. roll ``max(1, pool)`` dice (challenge) or the pools of :func:`opposed_pools` (opposed);
2. re-rolls in the order of :func:`reroll_order` (:class:`Rerolls`);
3. natural 1s are removed (Kata/Mantra keep them as 1s);
4. final = highest die + modifiers + one per supporting die (at most 2, +X with Adept (X));
   with no dice left the final result is 0 whatever the modifiers.

Decisions where the rulebook is silent:

* a final result may be negative (highest die + a large negative modifier): it is not
  clamped, since a TN may be zero or negative too (p.28);
* supporting dice are always taken (each only adds +1, so taking fewer is never better);
* dice removed by Mettle/Overwhelm/Unblockable (``drop_highest``) do not count for ties;
* Swarm's -1 on Size tests is one die, like Strong/Weak (the trait texts say "die" for
  Strong and Weak and the p.28 table lists the three together);
* Tactician (X) adds X dice to the Tactical test (trait text), Scout adds to the result;
* a Size test for Size Zero (only flat terrain has it, p.61) raises ``ValueError``.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Literal, Protocol, runtime_checkable

from sim.geometry.attributes import Size

__all__ = [
    "DiceError", "RollKind", "RollPurpose", "Dice", "SeededDice", "PhysicalDice", "ScriptedDice",
    "modified_stat", "pool_size", "challenge_dice", "opposed_pools",
    "RollOptions", "Reroll", "Rerolls", "reroll_order", "reroll_below", "reroll_above",
    "RollResult", "evaluate_roll", "roll_pool",
    "ChallengeResult", "challenge_test", "OpposedResult", "compare_results", "opposed_test",
    "SIZE_DICE", "size_test_dice", "size_test",
    "TacticalResult", "tactical_test",
    "FearOutcome", "FearCheck", "fear_test_needed", "FearResult", "fear_test",
]

Side = Literal["a", "b"]


# --------------------------------------------------------------------------- dice sources


class DiceError(ValueError):
    """A dice source cannot give the values asked for (ran out, or a value outside 1..6)."""


class RollKind(str, Enum):
    """What a roll is for, one member per kind of roll the engine makes.

    The value is a stable key; :attr:`page` the rulebook page(s) of the rule that calls
    for the roll; :attr:`noun` how a prompt names it.
    """

    #: The Tactical test of the Starting phase: one d6 a player (p.28, p.20 step 4).
    TACTICAL = "tactical"
    #: The variable game length roll at the start of a late turn (p.63).
    GAME_LENGTH = "game_length"
    #: A model's attack dice in a melee exchange (step 7a, p.33-37).
    MELEE_ATTACK = "melee_attack"
    #: A model's defence dice in a melee exchange (step 7a, p.33-37).
    MELEE_DEFENCE = "melee_defence"
    #: Dice re-rolled in a melee exchange (Prowess, Dodge, Feint; step 7b, p.28, p.34).
    MELEE_REROLL = "melee_reroll"
    #: The attack roll of a ranged attack (steps 2-3, p.30-32).
    RANGED_ATTACK = "ranged_attack"
    #: The Ranged (6) test to hit a target in base contact with a friend (step 4b, p.32).
    BTB_TARGETING = "btb_targeting"
    #: A damage roll, melee or ranged, read on the wound table (p.38-39).
    DAMAGE = "damage"
    #: A Ki feat's test: a Ki challenge test, or the user's side of an opposed one (p.45-47).
    KI_FEAT = "ki_feat"
    #: The target's side of an opposed Ki test against a feat (p.27, p.46).
    KI_RESIST = "ki_resist"
    #: A Fear test: contact with a Fear model, or a Frightened re-test (p.29, p.44).
    FEAR = "fear"
    #: The Size (6) test an Immobilised model takes before it moves (p.44).
    IMMOBILISED = "immobilised"
    #: The Ki (X) test to act against a Disguised model (p.44).
    DISGUISED = "disguised"
    #: Any other Size test (p.28).
    SIZE = "size"
    #: Any other challenge test (p.28).
    CHALLENGE = "challenge"
    #: Any other opposed test (p.27).
    OPPOSED = "opposed"

    @property
    def page(self) -> str:
        """The rulebook page(s) of this kind of roll, e.g. ``"p.33-37"``."""
        return _KIND_PAGES[self]

    @property
    def noun(self) -> str:
        """How a prompt names this kind of roll, e.g. ``"a damage roll"``."""
        return _KIND_NOUNS[self]


_KIND_PAGES = {
    RollKind.TACTICAL: "p.28", RollKind.GAME_LENGTH: "p.63", RollKind.MELEE_ATTACK: "p.33-37",
    RollKind.MELEE_DEFENCE: "p.33-37", RollKind.MELEE_REROLL: "p.28, p.34", RollKind.RANGED_ATTACK: "p.30-32",
    RollKind.BTB_TARGETING: "p.32", RollKind.DAMAGE: "p.38-39", RollKind.KI_FEAT: "p.45-47",
    RollKind.KI_RESIST: "p.27, p.46", RollKind.FEAR: "p.29, p.44", RollKind.IMMOBILISED: "p.44",
    RollKind.DISGUISED: "p.44", RollKind.SIZE: "p.28", RollKind.CHALLENGE: "p.28", RollKind.OPPOSED: "p.27",
}
_KIND_NOUNS = {
    RollKind.TACTICAL: "the Tactical test", RollKind.GAME_LENGTH: "the variable game length roll",
    RollKind.MELEE_ATTACK: "attack dice", RollKind.MELEE_DEFENCE: "defence dice",
    RollKind.MELEE_REROLL: "a melee re-roll", RollKind.RANGED_ATTACK: "a ranged attack",
    RollKind.BTB_TARGETING: "a test to hit a target in base contact", RollKind.DAMAGE: "a damage roll",
    RollKind.KI_FEAT: "a Ki feat test", RollKind.KI_RESIST: "an opposed Ki test", RollKind.FEAR: "a Fear test",
    RollKind.IMMOBILISED: "an Immobilised Size test", RollKind.DISGUISED: "a Ki test to see through a disguise",
    RollKind.SIZE: "a Size test", RollKind.CHALLENGE: "a challenge test", RollKind.OPPOSED: "an opposed test",
}


@dataclass(frozen=True)
class RollPurpose:
    """What one roll is for: handed to :meth:`Dice.roll` with the number of dice.

    Attributes:
        kind: the :class:`RollKind` (its rulebook page is ``kind.page``).
        model: the id of the model whose dice these are, if a model rolls.
        against: the id of the other model (the target, the enemy in melee, the source
            of Fear, the feat's user for :attr:`RollKind.KI_RESIST`; for
            :attr:`RollKind.MELEE_REROLL` the model whose dice are re-rolled), if any.
        detail: a few words more: the feat, the weapon, the re-roll source, the TN.
        player: the player rolling when no model does (the Tactical test: 1 or 2).
        reroll: these dice re-roll some of the dice of this purpose (p.28).

    A purpose is a label: it never changes the values a dice source returns, and it is
    not saved (a save holds the values only).

    >>> RollPurpose(RollKind.MELEE_ATTACK, "masunagi", "akira").label()
    "masunagi's attack dice"
    >>> RollPurpose(RollKind.DAMAGE, "akira", "masunagi", "Bow").label()
    'a damage roll (akira against masunagi, Bow)'
    >>> RollPurpose(RollKind.FEAR, "akira", detail="TN 5").rerolled().label()
    'a re-roll of a Fear test (akira, TN 5)'
    """

    kind: RollKind
    model: str | None = None
    against: str | None = None
    detail: str | None = None
    player: int | None = None
    reroll: bool = False

    def rerolled(self) -> "RollPurpose":
        """The purpose of dice that re-roll dice of this one (p.28)."""
        return replace(self, reroll=True)

    def label(self) -> str:
        """The roll in words, for a prompt: ``"the Tactical test, player 1"``,
        ``"masunagi's attack dice"``, ``"akira's re-roll of masunagi's dice (Dodge)"``,
        ``"a damage roll (masunagi against akira)"``, ``"a Fear test (akira, TN 5)"``."""
        k = self.kind
        if k is RollKind.TACTICAL and self.player is not None:
            base = f"{k.noun}, player {self.player}"
        elif k in (RollKind.MELEE_ATTACK, RollKind.MELEE_DEFENCE) and self.model:
            base = f"{self.model}'s {k.noun}" + (f" ({self.detail})" if self.detail else "")
        elif k is RollKind.MELEE_REROLL and self.model and self.against:
            base = f"{self.model}'s re-roll of {self.against}'s dice" + (f" ({self.detail})" if self.detail else "")
        else:
            verb = "shooting at" if k in (RollKind.RANGED_ATTACK, RollKind.BTB_TARGETING) else "against"
            who = [f"{self.model} {verb} {self.against}" if self.against else self.model] if self.model else []
            if not self.model and self.player is not None:
                who = [f"player {self.player}"]
            words = who + ([self.detail] if self.detail else [])
            base = k.noun + (f" ({', '.join(words)})" if words else "")
        return f"a re-roll of {base}" if self.reroll else base


_CHALLENGE = RollPurpose(RollKind.CHALLENGE)
_OPPOSED = RollPurpose(RollKind.OPPOSED)
_SIZE = RollPurpose(RollKind.SIZE)
_FEAR = RollPurpose(RollKind.FEAR)
_TACTICAL = {"a": RollPurpose(RollKind.TACTICAL, player=1), "b": RollPurpose(RollKind.TACTICAL, player=2)}


@runtime_checkable
class Dice(Protocol):
    """Anything that rolls d6: ``roll(n, purpose)`` returns ``n`` values, each in 1..6.

    ``purpose`` (a :class:`RollPurpose`, or None when nobody said) tells what the roll is
    for; a source may show it (physical dice prompt with it) but the values never depend
    on it.
    """

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """Return ``n`` d6 values (``n >= 0``) in the order they were rolled."""
        ...


def _check_count(n: int) -> None:
    if not isinstance(n, int) or n < 0:
        raise DiceError(f"cannot roll {n!r} dice: the number of dice must be an int >= 0")


class SeededDice:
    """Pseudo-random d6 from ``random.Random(seed)``: the same seed gives the same rolls."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """Return ``n`` values in 1..6 (``purpose`` does not change them). Raises
        :class:`DiceError` if ``n`` is not an int >= 0."""
        _check_count(n)
        return [self._rng.randint(1, 6) for _ in range(n)]

    def state(self) -> list:
        """Where the sequence stands, as plain JSON values (for saves and take-backs)."""
        version, internal, gauss = self._rng.getstate()
        return [version, list(internal), gauss]

    def restore(self, state) -> None:
        """Go back to a :meth:`state` (or a :meth:`snapshot`): the same rolls come again.
        Raises :class:`DiceError` for a value that is not such a state."""
        if isinstance(state, bytes):
            internal = array("I")
            internal.frombytes(state)
            self._rng.setstate((3, tuple(internal), None))
            return
        try:
            self._rng.setstate((int(state[0]), tuple(int(v) for v in state[1]), state[2]))
        except (TypeError, ValueError, IndexError) as exc:
            raise DiceError(f"not a dice state ({exc})") from None

    def snapshot(self) -> "bytes | list":
        """Where the sequence stands, compactly (2.5 KB, ten times smaller than
        :meth:`state`): what a take-back keeps for every action; :meth:`restore` takes it."""
        version, internal, gauss = self._rng.getstate()
        if version != 3 or gauss is not None:
            return self.state()
        return array("I", internal).tobytes()


class PhysicalDice:
    """Values rolled on a real table, handed out in the order given.

    Values are checked when given (constructor or :meth:`feed`): each must be an int in
    1..6, else :class:`DiceError`. :meth:`roll` raises :class:`DiceError` when fewer values
    are left than asked for (none are consumed then).
    """

    def __init__(self, values: Iterable[int] = ()) -> None:
        self._values: list[int] = []
        self._next = 0
        self.feed(values)

    def feed(self, values: Iterable[int]) -> None:
        """Append more typed values. Raises :class:`DiceError` on a value outside 1..6."""
        values = list(values)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
                raise DiceError(f"a d6 shows 1..6, got {v!r}")
        self._values.extend(values)

    @property
    def remaining(self) -> int:
        """How many typed values have not been used yet."""
        return len(self._values) - self._next

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """Return the next ``n`` typed values (``purpose`` is not used here). Raises
        :class:`DiceError` if too few are left."""
        _check_count(n)
        if n > self.remaining:
            raise DiceError(f"{n} dice asked for but only {self.remaining} value(s) left")
        out = self._values[self._next:self._next + n]
        self._next += n
        return out


#: Alias used by tests: a fixed script of values.
ScriptedDice = PhysicalDice


# --------------------------------------------------------------------------- pools


def modified_stat(base: int | None, modifiers: int = 0, *, uncapped: int = 0) -> int:
    """A statistic after modifiers, capped as the rulebook says.

    Glossary "Modifiers" (p.4-9) and Profile cards "Statistics" (p.10): a modified
    statistic never exceeds twice its base value; a statistic of 0 can be raised to 1 at
    most; a statistic printed "-" (pass ``None``) counts as 0 and cannot be modified.
    There is no lower cap: the result may be zero or negative (p.27, Wu-Zan: -1).
    ``uncapped`` is added after the cap (e.g. Spirit (X), which may exceed it).

    Raises ``ValueError`` if ``base`` is negative.
    """
    if base is None:
        return 0
    if base < 0:
        raise ValueError(f"a base statistic is >= 0, got {base}")
    cap = 2 * base if base > 0 else 1
    return min(base + modifiers, cap) + uncapped


def pool_size(stat: int | None, modifiers: int = 0) -> int:
    """Dice pool of a statistic with modifiers (:func:`modified_stat`); may be <= 0 (p.27)."""
    return modified_stat(stat, modifiers)


def challenge_dice(pool: int) -> int:
    """Dice actually rolled in a challenge test: a pool of zero or less still rolls 1 (p.27)."""
    return max(1, pool)


def opposed_pools(a: int, b: int) -> tuple[int, int]:
    """Pools of an opposed test: both add dice until both have at least one (p.27).

    >>> opposed_pools(-1, 3)   # Wu-Zan vs Jin: both add 2
    (1, 5)
    """
    add = max(0, 1 - a, 1 - b)
    return a + add, b + add


# --------------------------------------------------------------------------- re-rolls

#: Chooses dice to re-roll: ``chooser(target, other)`` gets the current values of the dice
#: it may re-roll and of the other side (empty in a challenge test) and returns indices
#: into ``target``. Each chooser is one source: it re-rolls each die at most once.
Chooser = Callable[[tuple[int, ...], tuple[int, ...]], Iterable[int]]


@dataclass(frozen=True)
class Reroll:
    """One re-rolled die, for the log: who chose it, which die, old and new value."""

    by: Side
    index: int
    old: int
    new: int


def _as_sources(value: Chooser | Sequence[Chooser] | None) -> tuple[Chooser, ...]:
    if value is None:
        return ()
    if callable(value):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class Rerolls:
    """Re-roll choices of both sides, keyed by side: ``x_on_y`` = side x re-rolls y's dice.

    Each field is a chooser (:data:`Chooser`), a sequence of choosers (one per source, e.g.
    Prowess and a Ki feat) or ``None``. They run in the order of :func:`reroll_order`,
    before natural 1s are removed (p.28). In a challenge test the tester is side ``"a"``.
    """

    a_on_a: Chooser | Sequence[Chooser] | None = None
    a_on_b: Chooser | Sequence[Chooser] | None = None
    b_on_a: Chooser | Sequence[Chooser] | None = None
    b_on_b: Chooser | Sequence[Chooser] | None = None

    def sources(self, by: Side, on: Side) -> tuple[Chooser, ...]:
        """The choosers of side ``by`` for the dice of side ``on``."""
        return _as_sources(getattr(self, f"{by}_on_{on}"))


def reroll_order(leader: Side) -> tuple[tuple[Side, Side], ...]:
    """Order of re-rolls as ``(by, on)`` pairs (p.28 "Conducting re-rolls").

    Model A is the ``leader`` (the model with Initiative, else the active one), B its
    opponent: 1. B on A's dice, 2. B on its own, 3. A on B's dice, 4. A on its own.
    """
    a: Side = leader
    b: Side = "b" if leader == "a" else "a"
    return ((b, a), (b, b), (a, b), (a, a))


def reroll_below(threshold: int, limit: int | None = None) -> Chooser:
    """Chooser re-rolling own dice showing less than ``threshold``, lowest first, at most ``limit``."""
    def choose(target: tuple[int, ...], other: tuple[int, ...]) -> list[int]:
        idx = sorted((i for i, v in enumerate(target) if v < threshold), key=lambda i: target[i])
        return idx if limit is None else idx[:limit]
    return choose


def reroll_above(threshold: int, limit: int | None = None) -> Chooser:
    """Chooser re-rolling (enemy) dice showing more than ``threshold``, highest first, at most ``limit``."""
    def choose(target: tuple[int, ...], other: tuple[int, ...]) -> list[int]:
        idx = sorted((i for i, v in enumerate(target) if v > threshold), key=lambda i: -target[i])
        return idx if limit is None else idx[:limit]
    return choose


def _apply_rerolls(values: dict[str, list[int]], rerolls: Rerolls | None, leader: Side,
                   dice: Dice, purposes: dict[str, RollPurpose]) -> dict[str, list[Reroll]]:
    """Run every re-roll source in order, changing ``values`` in place; return the log.
    The dice re-rolled on side ``on`` roll for ``purposes[on].rerolled()``."""
    log: dict[str, list[Reroll]] = {"a": [], "b": []}
    if rerolls is None:
        return log
    for by, on in reroll_order(leader):
        if on not in values:
            continue
        other = "b" if on == "a" else "a"
        for source in rerolls.sources(by, on):
            target = values[on]
            chosen = sorted(set(source(tuple(target), tuple(values.get(other, ())))))
            if any(not isinstance(i, int) or not 0 <= i < len(target) for i in chosen):
                raise ValueError(f"re-roll indices {chosen} out of range for {len(target)} dice")
            for i, new in zip(chosen, dice.roll(len(chosen), purposes[on].rerolled())):
                log[on].append(Reroll(by, i, target[i], new))
                target[i] = new
    return log


# --------------------------------------------------------------------------- evaluating


@dataclass(frozen=True)
class RollOptions:
    """Trait effects on how one side's roll is evaluated.

    adept: Adept (X) -- extra supporting dice beyond the usual 2 (Traits, "Adept").
    keep_ones: Kata (melee) / Mantra (opposed Ki) -- 1s count as 1, are not removed and
        count as supports and for ties.
    drop_highest: Mettle / Overwhelm / Unblockable (X) -- remove the X highest dice before
        the final result (after 1s are removed); they do not count for ties.
    """

    adept: int = 0
    keep_ones: bool = False
    drop_highest: int = 0

    @property
    def support_limit(self) -> int:
        """Most supporting dice: 2 + Adept (X)."""
        return 2 + max(0, self.adept)


@dataclass(frozen=True)
class RollResult:
    """One side's evaluated roll (p.27-28).

    initial: values as first rolled; rolled: values after re-rolls; rerolls: the log;
    removed_ones: natural 1s removed; dropped: dice removed by ``drop_highest``; kept: the
    dice left, highest first; highest: highest kept die (0 if none); supports: number of
    supporting dice (+1 each); modifier: total modifier to the highest die; final: the
    final result (0 when no dice are kept, whatever the modifier); dice_counted: dice
    counted for ties (kept dice, i.e. excluding 1s).
    """

    rolled: tuple[int, ...]
    kept: tuple[int, ...]
    removed_ones: tuple[int, ...]
    highest: int
    supports: int
    modifier: int
    final: int
    dice_counted: int
    initial: tuple[int, ...] = ()
    rerolls: tuple[Reroll, ...] = ()
    dropped: tuple[int, ...] = ()


def evaluate_roll(values: Iterable[int], modifier: int = 0, options: RollOptions = RollOptions(),
                  *, initial: Iterable[int] | None = None, rerolls: Iterable[Reroll] = ()) -> RollResult:
    """Evaluate final d6 values (after re-rolls) into a :class:`RollResult` (p.27-28).

    Raises ``ValueError`` on a value outside 1..6.
    """
    rolled = tuple(values)
    if any(not 1 <= v <= 6 for v in rolled):
        raise ValueError(f"d6 values are 1..6, got {rolled}")
    ones = () if options.keep_ones else tuple(v for v in rolled if v == 1)
    ordered = sorted((v for v in rolled if options.keep_ones or v != 1), reverse=True)
    drop = max(0, options.drop_highest)
    dropped, kept = tuple(ordered[:drop]), tuple(ordered[drop:])
    if kept:
        highest = kept[0]
        supports = min(len(kept) - 1, options.support_limit)
        final = highest + modifier + supports
    else:
        highest = supports = final = 0
    return RollResult(rolled, kept, ones, highest, supports, modifier, final, len(kept),
                      tuple(rolled if initial is None else initial), tuple(rerolls), dropped)


def roll_pool(n: int, dice: Dice, modifier: int = 0, options: RollOptions = RollOptions(),
              rerolls: Rerolls | None = None, *, leads: bool = True,
              purpose: RollPurpose | None = None) -> RollResult:
    """Roll exactly ``n`` dice as side ``"a"`` of :class:`Rerolls`, re-roll, evaluate.

    ``leads``: whether the roller is model A for the re-roll order (active / Initiative).
    ``purpose``: what the dice are for (default: a challenge test); re-rolled dice roll
    for its :meth:`~RollPurpose.rerolled`. Raises :class:`DiceError` from the dice source.
    """
    purpose = purpose or _CHALLENGE
    values = {"a": dice.roll(n, purpose)}
    first = tuple(values["a"])
    log = _apply_rerolls(values, rerolls, "a" if leads else "b", dice, {"a": purpose})
    return evaluate_roll(values["a"], modifier, options, initial=first, rerolls=log["a"])


# --------------------------------------------------------------------------- challenge


@dataclass(frozen=True)
class ChallengeResult:
    """Outcome of a challenge test (p.28).

    success: final result >= target number. success_level: final - TN when successful,
    else 0 (never negative; check ``success``). roll: the evaluated roll.
    """

    success: bool
    success_level: int
    roll: RollResult
    target_number: int


def challenge_test(pool: int, target_number: int, modifier: int, dice: Dice, *,
                   options: RollOptions = RollOptions(), rerolls: Rerolls | None = None,
                   tester_leads: bool = True, purpose: RollPurpose | None = None) -> ChallengeResult:
    """Challenge test (p.28): roll ``max(1, pool)`` dice, compare the final result with the TN.

    ``target_number`` may be zero or negative (p.28). ``rerolls``: the tester is side
    ``"a"``; ``tester_leads`` says whether it is model A of :func:`reroll_order`.
    ``purpose``: what the test is for (default :attr:`RollKind.CHALLENGE`).
    Raises :class:`DiceError` from the dice source.
    """
    roll = roll_pool(challenge_dice(pool), dice, modifier, options, rerolls, leads=tester_leads,
                     purpose=purpose)
    ok = roll.final >= target_number
    return ChallengeResult(ok, roll.final - target_number if ok else 0, roll, target_number)


# --------------------------------------------------------------------------- opposed


@dataclass(frozen=True)
class OpposedResult:
    """Outcome of an opposed test (p.27).

    winner: ``"a"`` or ``"b"``; success_level: difference of the final results (>= 0);
    tie_break: ``None``, ``"dice"`` (more dice excluding 1s) or ``"active"``.
    """

    winner: Side
    success_level: int
    roll_a: RollResult
    roll_b: RollResult
    tie_break: str | None = None


def compare_results(final_a: int, counted_a: int, final_b: int, counted_b: int,
                    active: Side | None) -> tuple[Side | None, str | None]:
    """Winner of an opposed test from final results and dice counted (p.27).

    Higher final wins; on a tie, more dice rolled excluding 1s; then the ``active`` side.
    With ``active=None`` (Tactical test) a full tie gives ``(None, None)``. Melee exchange
    step 10 counts attack and defence dice together: pass those sums as ``counted_*``.
    Returns ``(winner, tie_break)``.
    """
    if final_a != final_b:
        return ("a" if final_a > final_b else "b"), None
    if counted_a != counted_b:
        return ("a" if counted_a > counted_b else "b"), "dice"
    if active is None:
        return None, None
    if active not in ("a", "b"):
        raise ValueError(f"active side is 'a' or 'b', got {active!r}")
    return active, "active"


def _roll_both(pool_a: int, pool_b: int, dice: Dice, mod_a: int, mod_b: int,
               options_a: RollOptions, options_b: RollOptions, rerolls: Rerolls | None,
               leader: Side, purposes: dict[str, RollPurpose]) -> tuple[RollResult, RollResult]:
    na, nb = opposed_pools(pool_a, pool_b)
    values = {"a": dice.roll(na, purposes["a"]), "b": dice.roll(nb, purposes["b"])}
    first = {k: tuple(v) for k, v in values.items()}
    log = _apply_rerolls(values, rerolls, leader, dice, purposes)
    return (evaluate_roll(values["a"], mod_a, options_a, initial=first["a"], rerolls=log["a"]),
            evaluate_roll(values["b"], mod_b, options_b, initial=first["b"], rerolls=log["b"]))


def opposed_test(pool_a: int, pool_b: int, dice: Dice, mod_a: int = 0, mod_b: int = 0,
                 active: Side = "a", *, initiative: Side | None = None,
                 options_a: RollOptions = RollOptions(), options_b: RollOptions = RollOptions(),
                 rerolls: Rerolls | None = None, purpose: RollPurpose | None = None,
                 purpose_b: RollPurpose | None = None) -> OpposedResult:
    """Opposed test (p.27): both roll (pools via :func:`opposed_pools`), higher final wins.

    Dice are rolled a's first, then b's. Re-rolls run in :func:`reroll_order` with model A
    = ``initiative`` if given, else ``active``. Exactly one winner (ties: dice count, then
    the active side). ``purpose``, ``purpose_b``: what the dice of side a and side b are
    for (default :attr:`RollKind.OPPOSED`, side b with ``model`` and ``against`` swapped).
    Raises ``ValueError`` if ``active`` is not ``"a"``/``"b"``, :class:`DiceError` from
    the dice source.
    """
    if active not in ("a", "b"):
        raise ValueError(f"active side is 'a' or 'b', got {active!r}")
    purpose = purpose or _OPPOSED
    if purpose_b is None:
        purpose_b = RollPurpose(RollKind.OPPOSED, purpose.against, purpose.model, purpose.detail)
    ra, rb = _roll_both(pool_a, pool_b, dice, mod_a, mod_b, options_a, options_b, rerolls,
                        initiative or active, {"a": purpose, "b": purpose_b})
    winner, tie = compare_results(ra.final, ra.dice_counted, rb.final, rb.dice_counted, active)
    assert winner is not None
    return OpposedResult(winner, abs(ra.final - rb.final), ra, rb, tie)


# --------------------------------------------------------------------------- Size


#: Dice rolled in a Size test by Size (p.28). Size Zero is terrain only and has no entry.
SIZE_DICE: dict[Size, int] = {Size.TINY: 1, Size.SMALL: 2, Size.MEDIUM: 3, Size.LARGE: 4, Size.HUGE: 5}


def size_test_dice(size: Size | int, *, strong: bool = False, weak: bool = False,
                   swarm: bool = False) -> int:
    """Dice pool of a Size test (p.28): by Size, Strong +1 die, Weak -1, Swarm -1.

    Strong and Weak together cancel (trait texts). The pool may be <= 0 (one die is
    still rolled). Raises ``ValueError`` for Size Zero (only terrain has it).
    """
    size = Size(size)
    if size not in SIZE_DICE:
        raise ValueError("Size Zero has no Size test (only flat terrain is Size Zero, p.61)")
    mod = 0 if strong and weak else int(strong) - int(weak)
    return SIZE_DICE[size] + mod - int(swarm)


def size_test(size: Size | int, target_number: int, dice: Dice, *, strong: bool = False,
              weak: bool = False, swarm: bool = False, modifier: int = 0,
              rerolls: Rerolls | None = None, purpose: RollPurpose | None = None,
              options: RollOptions = RollOptions()) -> ChallengeResult:
    """Size test (p.28): a challenge test with :func:`size_test_dice` dice; ``purpose``
    defaults to :attr:`RollKind.SIZE`; ``options``: e.g. Adept [Size] (X) supports (p.48)."""
    pool = size_test_dice(size, strong=strong, weak=weak, swarm=swarm)
    return challenge_test(pool, target_number, modifier, dice, options=options, rerolls=rerolls,
                          purpose=purpose or _SIZE)


# --------------------------------------------------------------------------- Tactical


@dataclass(frozen=True)
class TacticalResult:
    """Tactical test outcome (p.28): ``winner`` is 1 or 2; ``rounds`` holds every roll
    ``(player 1, player 2)``, the tied ones first and the deciding one last."""

    winner: Literal[1, 2]
    rounds: tuple[tuple[RollResult, RollResult], ...]


def tactical_test(dice: Dice, mod_1: int = 0, mod_2: int = 0, *, tactician_1: int = 0,
                  tactician_2: int = 0, max_rounds: int = 1000,
                  rerolls: Rerolls | None = None) -> TacticalResult:
    """Tactical test (p.28): opposed test with one d6 each plus modifiers (e.g. Scout (X)).

    Tactician (X) adds X dice (trait text); ``rerolls`` (player 1 is side ``"a"``): e.g.
    Prowess [Tactical] (X), up to X of the player's own dice (p.56). There is no active
    player, so a tie after
    the dice-count rule is rolled again. Each player's dice roll for
    ``RollPurpose(RollKind.TACTICAL, player=1 or 2)``. Raises :class:`DiceError` after
    ``max_rounds`` ties (a safeguard for scripted dice) or from the dice source.
    """
    rounds = []
    for _ in range(max_rounds):
        r1, r2 = _roll_both(1 + tactician_1, 1 + tactician_2, dice, mod_1, mod_2,
                            RollOptions(), RollOptions(), rerolls, "a", _TACTICAL)
        rounds.append((r1, r2))
        winner, _tie = compare_results(r1.final, r1.dice_counted, r2.final, r2.dice_counted, None)
        if winner is not None:
            return TacticalResult(1 if winner == "a" else 2, tuple(rounds))
    raise DiceError(f"tactical test still tied after {max_rounds} rounds")


# --------------------------------------------------------------------------- Fear


class FearOutcome(str, Enum):
    """What failing a Fear test does (p.29, Steadfast in Traits)."""

    #: Trigger 1: remove one activation counter, the activation ends; not Frightened.
    LOSE_ACTIVATION = "lose_activation"
    #: Trigger 2: the enemy becomes Frightened.
    FRIGHTENED = "frightened"
    #: Trigger 1 for a Steadfast model: it carries on with the action and becomes Frightened.
    CONTINUE_FRIGHTENED = "continue_frightened"


@dataclass(frozen=True)
class FearCheck:
    """A Fear test the engine must make: ``tester`` (``"active"`` or ``"enemy"``) tests
    against ``target_number`` (the other model's Fear (X)); ``on_fail`` says what failing does."""

    tester: Literal["active", "enemy"]
    target_number: int
    on_fail: FearOutcome


def fear_test_needed(*, active_fear: int | None, enemy_fear: int | None,
                     cause: Literal["action", "effect"] | None = "action",
                     active_steadfast: bool = False) -> tuple[FearCheck, ...]:
    """Fear tests caused by the active model coming into contact with an enemy (p.29).

    ``active_fear``/``enemy_fear``: Fear (X) of each model, ``None`` without the trait.
    ``cause``: what the active model declared that brings it into contact -- an
    ``"action"`` or an ``"effect"``; ``None`` for contact caused otherwise (no test).

    1. Active model contacting a Fearful enemy (action or effect): the active model tests;
       failure: LOSE_ACTIVATION (CONTINUE_FRIGHTENED if Steadfast). Per the authors'
       clarification the test is taken when contact is made (contact still happens).
    2. Fearful active model contacting an enemy (action only): the enemy tests; failure:
       FRIGHTENED.

    If both apply, both are returned, the active model's first (order: project choice).
    """
    checks: list[FearCheck] = []
    if cause in ("action", "effect") and enemy_fear is not None:
        outcome = FearOutcome.CONTINUE_FRIGHTENED if active_steadfast else FearOutcome.LOSE_ACTIVATION
        checks.append(FearCheck("active", enemy_fear, outcome))
    if cause == "action" and active_fear is not None:
        checks.append(FearCheck("enemy", active_fear, FearOutcome.FRIGHTENED))
    return tuple(checks)


@dataclass(frozen=True)
class FearResult:
    """Fear test outcome: ``passed``; ``automatic`` when no dice were rolled (own Fear,
    Fearless, Soulless); ``test``: the first roll; ``retest``: the re-rolled test, if any."""

    passed: bool
    automatic: bool
    test: ChallengeResult | None = None
    retest: ChallengeResult | None = None


def fear_test(ki: int, target_number: int, dice: Dice, *, own_fear: int | None = None,
              modifier: int = 0, fearless: bool = False, dread: int | None = None,
              bravery: bool = False, cowardly: bool = False, terror: bool = False,
              rerolls: Rerolls | None = None, purpose: RollPurpose | None = None) -> FearResult:
    """Fear test (p.29): a challenge test on the Ki statistic against the source's Fear (X).

    ``ki``: the tester's Ki statistic (not tokens) with its modifiers; ``modifier``: to the
    result (Courage (X), Leadership (X)). Passes automatically if ``fearless`` (Fearless,
    Soulless) or if the TN is <= ``own_fear`` -- unless the source has Dread (X) (``dread``),
    which also lowers the Ki by X (never below one die).
    Whole-test re-rolls (each test at most once): Bravery may re-roll a failed test;
    Cowardly or the source's Terror force re-rolling a passed one. Bravery cancels with
    Cowardly and with Terror. ``purpose``: who tests (default :attr:`RollKind.FEAR`); a
    re-taken test rolls for its :meth:`~RollPurpose.rerolled`. Raises :class:`DiceError`
    from the dice source.
    """
    if fearless:
        return FearResult(True, True)
    if dread is None and own_fear is not None and target_number <= own_fear:
        return FearResult(True, True)
    pool = ki if dread is None else max(1, ki - dread)
    brave = bravery and not cowardly and not terror
    forced = (cowardly and not bravery) or (terror and not bravery)
    purpose = purpose or _FEAR
    first = challenge_test(pool, target_number, modifier, dice, rerolls=rerolls, purpose=purpose)
    if (first.success and forced) or (not first.success and brave):
        second = challenge_test(pool, target_number, modifier, dice, rerolls=rerolls, purpose=purpose.rerolled())
        return FearResult(second.success, False, first, second)
    return FearResult(first.success, False, first)
