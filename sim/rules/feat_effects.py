"""Ki feat effects as data (``data/feats/effects.yaml``, format ``bushido-feat-effects/1``).

The catalogues give each Ki feat's facts (cost, timing, area, range, opposed test,
limitations) and its effect as prose. The data file says what each effect *does* in a
small vocabulary of operations (:data:`OPS`): gain or lose traits, change statistics,
place or remove condition markers, wound, heal, gain Ki, activation counters or pass
tokens, change facing, move ... with a duration (:data:`UNTIL`), a moment it can be used
(:data:`WHEN`) and who it reaches (:data:`AFFECTS`). The schema is
``/work/notes/feat_schema.md`` (kept in the project as the docstrings below); the game
(:mod:`sim.rules.game.ki_step`) applies an entry's operations after the feat's cost and
test (rulebook p.46-47).

* :func:`load_effects` reads and validates a file: a bad file raises :class:`FeatDataError`
  with one line naming the file, the feat and the problem; nothing is half loaded.
* :func:`feat_effect` is the entry of one feat name (from the repository's file, loaded
  once), or None.
* :data:`SUPPORTED_OPS` and :data:`SUPPORTED_WHEN` are what the engine applies;
  :func:`effect_status` says whether a feat's effect is applied in play and, when not,
  why (the card-coverage count and the conformance page use it).

The file keeps facts and our own one-line summaries only; the card's text for the manual
fallback is read at run time from the imported catalogue (``KiFeat.description``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sim.files import FileProblem, quote, read_yaml
from sim.rules import conditions

__all__ = [
    "FORMAT", "DEFAULT_PATH", "FeatDataError", "FeatEffect", "Gate", "OPS", "WHEN", "AFFECTS", "UNTIL",
    "SUPPORTED_OPS", "SUPPORTED_WHEN", "ATTACK_APPLIED", "attack_refusal", "attack_of", "load_effects",
    "feat_effects", "feat_effect", "effect_status", "reset_cache",
]

#: The file format key.
FORMAT = "bushido-feat-effects/1"

#: The repository's data file.
#: Hand-curated files laid over :data:`DEFAULT_PATH` (:func:`feat_effects`).
CURATED_DIR = Path(__file__).resolve().parents[2] / "data" / "feats" / "curated"

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "feats" / "effects.yaml"

#: Durations (``until``): the current action, activation, melee exchange, until the End
#: phase, until the end of the turn, the rest of the game
#: (:data:`sim.rules.effects.DURATIONS`). Omitted: a one-time change.
UNTIL = ("action", "activation", "exchange", "end_phase", "turn", "game")

#: When a feat can be used (``when``): as/around the model's action, in a melee exchange
#: it fights, when it shoots or is shot, at the start or in the End phase, on a trigger,
#: any time its player may act.
WHEN = ("action", "exchange", "shot", "start_phase", "end_phase", "trigger:killed_enemy_within",
        "trigger:targeted", "trigger:wounded", "trigger:enemy_contact", "trigger:scenario_action",
        "trigger:failed_fear_test", "trigger:exchange_resolved", "any")

#: Who the effects reach.
AFFECTS = ("opponent",  # round 6 (F1): the model the user fights in the exchange (when: exchange)
           "self", "target", "friends", "enemies", "models", "friends_and_self", "target_friend", "target_enemy",
           "self_and_target", "models_and_self", "enemies_and_self")

#: The ``affects`` values of a Target feat (``area: target``).
TARGET_AFFECTS = ("target", "target_friend", "target_enemy", "self_and_target")
#: The ``affects`` values that reach the models of a Pulse or Aura.
AREA_AFFECTS = ("friends", "enemies", "models", "friends_and_self", "models_and_self", "enemies_and_self")

#: Limitation icons (p.46); ``once_per_exchange`` is a card's own words (round 6, F1: Underhanded).
LIMITS = ("once_per_turn", "once_per_game", "once_per_activation", "no_btb", "no_move", "once_per_exchange")

#: Statistics a ``stat`` operation changes.
STATS = ("melee", "ranged", "move", "ki", "strength")

#: Every operation name of the vocabulary.
OPS = ("grant", "grant_weapon", "lose", "stat", "condition", "remove_condition", "wound", "heal", "ki", "counter",
       "pass_token", "facing", "move", "summon", "no_specials", "manual_step",
       "choice", "range_bands", "reroll", "tokens", "take_ki", "attack", "rider",
       "assist", "assist_bonus", "activation", "pool_penalties", "shots", "special_damage", "mark",  # round 6 (F1)
       "sl_markers", "damage_rolls", "damage", "marker_wounds", "challenge", "ranged_tn", "trap_test",  # round 6 (F4)
       "tactical", "test_bonus", "exchange_bonus",  # round 6 (F4)
       "swap",  # round 6 (F3)
       "redirect", "feat_origin", "repel", "join",  # round 6 (F6)
       "dice_curse", "cleanse", "feat_cost", "remove_terrain", "face", "los_limit", "deploy_terrain",  # (F2)
       "form", "transfer", "special_cost", "boost", "on_feat", "heal_rule", "on_action", "chosen",  # round 6 (F5)
       "steal", "versus", "lose_type", "forbid", "next_shot", "special_against", "protect",  # round 6 (F5)
       "grant_choice", "group", "contest", "if_enemy", "after_exchange")  # round 6 (F5)

#: Operations the engine applies in play (a feat whose every op is here, with a supported
#: ``when`` and no ``manual`` reason, counts as "effect applied").
SUPPORTED_OPS: frozenset[str] = frozenset({
    "grant", "grant_weapon", "lose", "stat", "condition", "remove_condition", "wound", "heal", "ki", "counter",
    "pass_token", "facing", "move", "no_specials", "choice", "range_bands", "reroll", "tokens", "take_ki",
    "rider",  # round 4 (H18, sim.rules.game.feat_triggers)
    "attack",  # round 5 (H19): only the forms :func:`attack_refusal` accepts
    "assist", "assist_bonus", "activation", "pool_penalties", "shots", "special_damage", "mark",  # round 6 (F1)
    "sl_markers", "damage_rolls", "damage", "marker_wounds", "challenge", "ranged_tn", "trap_test",  # round 6 (F4)
    "tactical", "test_bonus", "exchange_bonus",  # round 6 (F4)
    "swap",  # round 6 (F3: sim.rules.game.feat_places)
    "dice_curse", "cleanse", "feat_cost", "remove_terrain", "face", "los_limit",  # round 6 (F2: feat_areas)
    "deploy_terrain",  # round 6 (F2: feat_areas)
    "form", "transfer", "special_cost", "boost", "on_feat", "heal_rule", "on_action", "chosen",  # round 6 (F5)
    "steal", "versus", "lose_type", "forbid", "next_shot", "special_against", "protect",  # round 6 (F5)
    "grant_choice", "group", "contest", "if_enemy", "after_exchange",  # round 6 (F5)
})

SUPPORTED_OPS = SUPPORTED_OPS | {"redirect", "feat_origin", "repel", "join"}  # round 6 (F6: feat_redirects)

#: Round 5 (H19): the ``attack`` forms the engine makes: kind, ``at`` values and ignored rules.
ATTACK_APPLIED = {"kind": ("ranged",), "at": ("target", "named", "all", "near"),
                  "ignore": ("reload", "repeat", "btb", "camouflage", "los", "range")}

#: ``Prowess [K]`` tests the engine re-rolls (p.55-56): a ``reroll`` op of another test is
#: not applied.
REROLL_TESTS = ("melee", "attack", "defence", "ranged", "tactical",
                "ki", "fear", "challenge", "size")  # round 6 (F4): sim.rules.game.feat_rolls

#: ``when`` values the engine offers the feat at (see :mod:`sim.rules.game.ki_step`).
SUPPORTED_WHEN: frozenset[str] = frozenset({"action", "any", "exchange", "trigger:killed_enemy_within",
                                            "trigger:wounded", "trigger:exchange_resolved", "trigger:enemy_contact",
                                            "trigger:failed_fear_test", "start_phase", "shot",
                                            "trigger:scenario_action",
                                            # round 3 (sim.rules.game.feat_triggers)
                                            "trigger:dealt_wound", "trigger:attack_succeeded", "trigger:killed_enemy",
                                            "trigger:enemy_moved_in_pulse",
                                            # round 4 (H18): an interrupt before the enemy action resolves
                                            "trigger:targeted",
                                            # round 6 (F1): a friend's activation ended (feat_order)
                                            "trigger:friend_activation_end",
                                            # round 6 (F4): an enemy in the Pulse declares a move (feat_rolls)
                                            "trigger:enemy_move"})


class FeatDataError(ValueError):
    """A feat effects file that cannot be read or is wrong; the message is one line
    naming the file, the feat and the problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Until = Literal["action", "activation", "exchange", "end_phase", "turn", "game"]
Count = Union[int, Literal["X"]]


class _Traits(_Strict):
    traits: Annotated[list[str], Field(min_length=1, max_length=12)]
    until: Until | None = None

    @field_validator("traits")
    @classmethod
    def _texts(cls, v: list[str]) -> list[str]:
        for t in v:
            if not t.strip():
                raise ValueError("an empty trait text")
        return v


class GrantOp(_Traits):
    """The model gains the trait texts (``Tough (+1)``) until ``until``."""

    op: Literal["grant"]


class GrantWeaponOp(_Traits):
    """Its weapons (``melee``, ``ranged`` or ``all``) gain the weapon trait texts. Round 6
    (F5): ``name`` -- only its weapon of that printed name (Slice: the Kama Edge)."""

    op: Literal["grant_weapon"]
    weapon: Literal["melee", "ranged", "all"] = "all"
    name: Annotated[str, Field(min_length=1, max_length=40)] | None = None


class LoseOp(_Traits):
    """The model loses the named traits until ``until``."""

    op: Literal["lose"]


class StatOp(_Strict):
    """Statistic changes ``{melee: +1}`` until ``until`` (``X``: the feat's chosen X);
    ``strength`` changes the strength of its ``weapon`` weapons (melee, ranged or all)."""

    op: Literal["stat"]
    changes: dict[Literal["melee", "ranged", "move", "ki", "strength"], Union[int, Literal["X"]]]
    until: Until | None = None
    weapon: Literal["melee", "ranged", "all"] = "all"

    @field_validator("changes")
    @classmethod
    def _some(cls, v: dict) -> dict:
        if not v:
            raise ValueError("a stat op needs at least one change")
        return v


class ConditionOp(_Strict):
    """``n`` markers of condition ``name`` (``value``: the Bleed/Poison/Fire value; ``X``:
    the feat's X); ``until``: the markers given are removed when that duration ends
    (round 3)."""

    op: Literal["condition"]
    name: Annotated[str, Field(min_length=1, max_length=40)]
    n: Count = 1
    value: Union[int, Literal["X"], None] = None
    until: Until | None = None


class RemoveConditionOp(_Strict):
    """Remove ``n`` markers (or ``all``) of condition ``name``."""

    op: Literal["remove_condition"]
    name: Annotated[str, Field(min_length=1, max_length=40)]
    n: Union[int, Literal["all"]] = 1


class WoundOp(_Strict):
    """``n`` wounds (``X``: the feat's X)."""

    op: Literal["wound"]
    n: Count = 1
    ignore_armour: bool = False
    ignore_tough: bool = False


class HealOp(_Strict):
    """Remove ``n`` wounds (``X``; ``target_ki``: the killed model's Ki statistic)."""

    op: Literal["heal"]
    n: Union[int, Literal["X", "target_ki"]] = 1


class KiOp(_Strict):
    """Gain (lose, negative) ``n`` Ki tokens, within the Ki limit (``X``; ``target_ki``:
    the killed model's Ki statistic, for a ``trigger:killed_enemy_within`` feat)."""

    op: Literal["ki"]
    n: Union[int, Literal["X", "target_ki"]] = 1


class CounterOp(_Strict):
    """Gain (lose, negative) ``n`` activation counters. Round 6 (F5): ``n: all`` -- it loses
    every counter (Time Skip); ``up_to`` -- a gain stops when it has that many (Time Reversal:
    "up to 2 ... to a maximum of 2")."""

    op: Literal["counter"]
    n: Union[int, Literal["all"]] = 1
    up_to: int | None = Field(default=None, ge=1, le=6)

    @model_validator(mode="after")
    def _cap(self) -> "CounterOp":
        if self.up_to is not None and not (isinstance(self.n, int) and self.n > 0):
            raise ValueError("counter 'up_to' caps a gain (n > 0)")
        return self


class PassTokenOp(_Strict):
    """The model's controller gains ``n`` pass tokens."""

    op: Literal["pass_token"]
    n: int = 1


class FacingOp(_Strict):
    """The user's player may change the affected model's facing (the action's ``facing``)."""

    op: Literal["facing"]


class MoveOp(_Strict):
    """The affected model moves up to ``distance`` inches (``Move``: its Move statistic);
    the point is chosen by the user's player (the action's ``point`` for one affected
    model, its ``path`` in the order of ``models`` for several). ``walk``: a Walk by the
    movement rules (not a Walk action: no counter); ``free``: straight, ignoring terrain
    and models' ZoC; ``push``/``away``: straight away from the user; ``toward``: straight
    toward the user; ``place``: put anywhere within the distance; ``out_of_zoc`` (round 6, F3):
    straight away from the enemy its trigger names (else the enemy of its last exchange) until
    its base leaves that enemy's ZoC (sim.rules.game.feat_places)."""

    op: Literal["move"]
    distance: Union[Annotated[float, Field(ge=0, le=48)], Literal["Move", "X"]]
    kind: Literal["walk", "free", "push", "toward", "away", "place", "to_target", "out_of_zoc"] = "walk"
    at: Literal["end_activation"] | None = None


class SummonOp(_Strict):
    """Place a model of profile ``profile``."""

    op: Literal["summon"]
    profile: str = ""


class NoSpecialsOp(_Strict):
    """Enemy models may not declare special attacks or defences against it. Round 6 (F5):
    ``own: true`` -- the affected model itself may not declare any special attack or defence,
    in a melee exchange or with a shot (Warding Shōmyō; sim.rules.game.feat_cards)."""

    op: Literal["no_specials"]
    until: Until | None = None
    own: bool = False


class RangeBandsOp(_Strict):
    """Its ranged weapons' range bands become ``bands`` (inches, Short/Medium/Long upper
    values, nearest first) or each band grows by ``add`` inches, until ``until`` (p.10)."""

    op: Literal["range_bands"]
    bands: Annotated[list[Annotated[float, Field(gt=0, le=72)]], Field(min_length=1, max_length=3)] | None = None
    add: Annotated[float, Field(ge=-24, le=24)] | None = None
    until: Until | None = None

    @model_validator(mode="after")
    def _one(self) -> "RangeBandsOp":
        if (self.bands is None) == (self.add is None):
            raise ValueError("range_bands needs exactly one of 'bands' and 'add'")
        if self.bands is not None and list(self.bands) != sorted(self.bands):
            raise ValueError("range_bands 'bands' go nearest first (increasing)")
        return self


class RerollOp(_Strict):
    """It may re-roll up to ``n`` of its dice in ``test`` tests until ``until``: the trait
    ``Prowess [test] (n)`` (p.55) is granted (``test``: Melee, Attack, Defence, Ranged, Ki,
    Fear, Move, Strength, Size, Damage or another keyword; ``X``: the feat's X)."""

    op: Literal["reroll"]
    test: Annotated[str, Field(min_length=1, max_length=30)]
    n: Count = 1
    until: Until | None = None


class SlMarkersOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): markers counted by the success level
    (SL) of the feat's Opposed Ki test (p.27): with one name, SL + ``add`` markers of it
    (``value``: of a Bleed / Poison / Fire marker); with several, one marker of each of the
    first SL + ``add`` names in order (Stir Emotion: Stunned, Impetuous, Frightened, Berserk)."""

    op: Literal["sl_markers"]
    names: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1, max_length=6)]
    add: int = Field(default=0, ge=0, le=3)
    value: int | None = Field(default=None, ge=0, le=6)


class DamageRollsOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): a change to damage rolls (p.38) kept as
    the mark ``feat_damage:<feat>`` on the affected model until ``until`` (None: until used,
    with ``once``). ``roll`` (not ``on``: YAML reads that as true): ``taken`` -- enemy damage
    rolls on it; ``made`` -- its own.
    ``rule``: ``double`` -- the wounds of the roll are doubled, Durable ignored when the doubled
    wounds kill it (Cold Shatter); ``ignore_double`` -- a roll whose two dice match is ignored
    (Ancestral Armour); ``drop_die`` -- one more die is rolled and its player drops one, the
    engine keeping the two that mark the fewest wounds (Soothing Shōmyō); ``strength_on_double``
    -- a roll whose two dice match gains ``value`` Strength (Hunting Fox). ``dealt_by``: melee
    exchanges, ranged attacks or both. ``once``: the mark goes after the first such roll."""

    op: Literal["damage_rolls"]
    rule: Literal["double", "ignore_double", "drop_die", "strength_on_double", "reroll_low", "counter_instead",
                  "coin_flip"]
    roll: Literal["taken", "made"] = "taken"
    dealt_by: Literal["melee", "ranged", "any"] = "any"
    value: int = Field(default=0, ge=0, le=6)
    once: bool = False
    until: Until | None = None


class DamageOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): the feat makes a damage roll (p.38) on
    the affected model at success level ``level`` (2D6, no weapon Strength), Armour ignored
    with ``ignore_armour``; Tough and Durable apply (Look into the Void). The feat's target
    must have LoS to the user (``target_sees_user``) and may be targeted by the feat, from any
    source, once per turn (``once_per_target``): Look into the Void."""

    op: Literal["damage"]
    level: int = Field(ge=0, le=10)
    ignore_armour: bool = False
    target_sees_user: bool = False
    once_per_target: bool = False


class MarkerWoundsOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): the affected model removes its
    highest-valued marker of condition ``name`` (Poisoned, Bleed, On Fire) and suffers as
    many wounds as its value (Tough and Durable apply, as for any feat wound): Accelerate Venom."""

    op: Literal["marker_wounds"]
    name: Literal["poisoned", "bleed", "on_fire"] = "poisoned"


class ChallengeOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): the affected model takes a ``stat``
    (``tn``) challenge test (p.28; a Ki test with Spirit and Soulless); ``passed`` /
    ``failed`` say what follows: ``heal_all`` -- every wound box unmarked; ``kill`` -- it is
    Killed; ``none`` (Kill or Cure)."""

    op: Literal["challenge"]
    stat: Literal["ki", "size"] = "ki"
    tn: int = Field(ge=1, le=20)
    passed: Literal["heal_all", "kill", "none"] = "none"
    failed: Literal["heal_all", "kill", "none"] = "none"


class RangedTnOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): until ``until``, while the affected
    model is in play, every ranged attack on the table has ``n`` more on the target number of
    its Ranged test (p.31): Mountain Gale. Kept as the mark ``feat_ranged_tn:<feat>``."""

    op: Literal["ranged_tn"]
    n: int = Field(ge=-6, le=6)
    until: Until = "end_phase"


class TrapTestOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): a Trap (p.7: one Trap effect per
    activation of a model). The enemy whose declared action the feat answers (its ``when``:
    ``trigger:enemy_move`` -- an enemy in the feat's Pulse declares an action that moves it)
    takes a ``stat`` challenge test at ``tn`` (``tn_run`` for a Run or Charge); on a failure
    it may not move: its action counts as resolved and it loses one activation counter (not
    the action's cost). ``exempt``: traits that spare a model (Cloudwalk, Intangible);
    ``not_engaged``: a model in base contact with a model of the user's side is spared (Snare)."""

    op: Literal["trap_test"]
    stat: Literal["move", "ki"] = "move"
    tn: int = Field(ge=1, le=20)
    tn_run: int | None = Field(default=None, ge=1, le=20)
    exempt: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    not_engaged: bool = False
    # a model matching one of these keywords is spared (Deference: non-Samurai, non-Ashigaru);
    # with ``when: trigger:targeted`` the Trap answers an enemy action aimed at the user
    exempt_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []


class TacticalOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): the affected model's next Tactical test
    (p.28; kept as the mark ``feat_tactical:<feat>`` until that test): ``tactician`` -- its
    Tactician (X) counts ``n`` more (Insight); ``win`` -- its player, nominating it, wins
    without a roll and the other fails; when both players would, the test is rolled as usual
    (Art of War)."""

    op: Literal["tactical"]
    rule: Literal["tactician", "win", "reroll"]
    n: int = Field(default=1, ge=1, le=3)


class TestBonusOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): the affected model's next ``test`` test
    (``rise``: its Rise (X) test at 0 wounds, p.57) adds ``n`` (``X``: the paid X) to its final
    result, until ``until`` (Prayer of Undeath). Kept as the mark ``feat_test_bonus:<feat>``."""

    __test__ = False  # not a pytest class

    op: Literal["test_bonus"]
    test: Literal["rise"] = "rise"
    n: Count = 1
    until: Until = "turn"


class ExchangeBonusOp(_Strict):
    """Round 6 (F4, :mod:`sim.rules.game.feat_rolls`): until ``until`` (its melee exchange),
    when the enemy re-rolls any of its own dice the affected model adds ``n`` to both its final
    attack and defence results (Self-Taught Koryu). Kept as the mark ``feat_exchange_bonus:<feat>``."""

    op: Literal["exchange_bonus"]
    n: int = Field(default=1, ge=1, le=3)
    if_enemy_rerolls: Literal[True] = True
    until: Until = "exchange"


def roll_refusal(entry: "FeatEffect") -> str:
    """Round 6 (F4): why the entry's ``sl_markers`` / ``damage_rolls`` ops are not applied
    (``""`` when they are): ``sl_markers`` reads the success level of the feat's Opposed Ki
    test and gives condition markers; ``damage_rolls`` ``double`` is for melee damage."""
    for e in _all_ops(entry):
        if isinstance(e, SlMarkersOp):
            if not entry.opposed:
                return "sl_markers reads the success level of the feat's Opposed Ki test: the feat has none"
            bad = [n for n in e.names if conditions.canonical(n) is None]
            if bad:
                return f"{bad[0]!r} is not a condition marker of p.43-45"
        if isinstance(e, DamageRollsOp) and e.rule in ("double", "counter_instead") and (
                e.dealt_by != "melee" or (e.rule == "counter_instead" and e.roll != "made")):
            return "damage_rolls double / counter_instead are applied to melee damage only (counter_instead: made)"
    traps = [e for e in entry.effects if isinstance(e, TrapTestOp)]
    if (entry.when == "trigger:enemy_move" and not traps) or (traps and (
            entry.affects != "self" or entry.when not in ("trigger:enemy_move", "trigger:targeted"))):
        return ("a trap_test is the op of a trigger:enemy_move / trigger:targeted feat (affects: self), "
                "and trigger:enemy_move needs one")
    return ""


class TokensOp(_Strict):
    """``n`` named tokens (``Doom``, ``Virtue`` ...) placed on (negative: removed from) the
    model, kept in the game state (``all``: every such token removed); their effect is a
    logged manual step unless the rulebook defines the token (p.5 Virtue)."""

    op: Literal["tokens"]
    name: Annotated[str, Field(min_length=1, max_length=40)]
    n: Union[int, Literal["X", "all"]] = 1


class TakeKiOp(_Strict):
    """The user takes up to ``n`` Ki tokens from the affected model (``X``: the feat's X):
    as many as it has, no more than the user's Ki limit leaves room for (p.46)."""

    op: Literal["take_ki"]
    n: Count = 1


class AttackOp(_Strict):
    """The affected model makes one ranged attack now (``kind: ranged``, its first ranged
    weapon) at the feat's target or the triggering model (``at``), ignoring the rules of
    ``ignore``; or fights one extra melee exchange with that model (``kind: melee``, base
    contact needed). No activation counter is spent (round 3). Round 5: ``at: named`` -- a
    Personal feat whose player names the model shot (the action's ``target``, one offer per
    model it may shoot); ``at: all`` -- one shot at every other model, friend or enemy, it
    may shoot (Circular Strike); ``ignore: [reload]`` -- its Reloading markers do not stop
    the shot; ``repeat`` -- no penalty for earlier shots; ``btb`` -- no test for a target in
    contact; ``camouflage``. Applied: :data:`ATTACK_APPLIED`; the attack is the last op."""

    op: Literal["attack"]
    kind: Literal["ranged", "melee"] = "ranged"
    at: Literal["target", "trigger", "named", "all", "near"] = "target"
    ignore: list[Literal["cover", "camouflage", "los", "range", "repeat", "reload", "btb"]] = []
    #: round 6 (F1): ``at: near`` -- an enemy model the player names within ``near`` inches
    #: (edge to edge) of the triggering model, not that model (Raijin's Rage)
    near: Annotated[float, Field(gt=0, le=24)] | None = None
    #: round 6 (F1): the shot counts as made in this range band (whatever the distance)
    band: Literal["short", "medium", "long"] | None = None
    #: round 6 (F1): ``at: named`` -- then each friendly model of these keywords in the feat's
    #: Pulse with a ranged weapon may make one ranged attack at a model its player names
    #: (Volley Fire); each model is affected once per turn
    volley: list[Annotated[str, Field(min_length=1, max_length=40)]] = []

    @model_validator(mode="after")
    def _near(self) -> "AttackOp":
        if (self.at == "near") != (self.near is not None):
            raise ValueError("attack at: near needs 'near' (inches), and 'near' needs at: near")
        if self.volley and self.at != "named":
            raise ValueError("attack 'volley' goes with at: named")
        return self


class AssistOp(_Strict):
    """Round 6 (F1): until ``until`` the affected model's Melee Assist (p.36) takes ``n``
    dice off the enemy instead of 1 (Outmanoeuvre); ``keywords``: only in an exchange where
    one of the two fighting models matches one of them (Practised Manoeuvres: Lone
    Swordsmen)."""

    op: Literal["assist"]
    n: int = Field(default=2, ge=2, le=6)
    until: Until = "exchange"
    keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []


class AssistBonusOp(_Strict):
    """Round 6 (F1): for each model that gives the affected model a Melee Assist penalty
    (p.36) in the exchange it fights now -- counted even when Indomitable ignores it -- the
    statistic ``changes`` (``melee``; ``strength`` of its ``weapon`` weapons) until
    ``until`` (Absolute Mastery)."""

    op: Literal["assist_bonus"]
    changes: dict[Literal["melee", "strength"], Annotated[int, Field(ge=-6, le=6)]]
    weapon: Literal["melee", "ranged", "all"] = "melee"
    until: Until = "exchange"


class PoolPenaltiesOp(_Strict):
    """Round 6 (F1): until ``until`` the affected model's Melee pool takes no penalty of the
    kind ``ignore`` -- ``conditions``: the -1 of each condition marker (Prone, Blind, Stunned,
    Frightened, Immobilised, Held; p.36, p.43-45) (Veteran)."""

    op: Literal["pool_penalties"]
    ignore: Literal["conditions", "run"] = "conditions"  # run: the -1 for having Run (round 6, F7)
    until: Until = "exchange"


class SpecialDamageOp(_Strict):
    """Round 6 (F1): until ``until`` the affected model's successful special attacks of
    ``specials`` (keys: ``sidestep-attack`` ...) also make the normal damage roll their rule
    leaves out (p.39-41) (Passing Strike); with ``wound: true`` each special of ``specials``
    (attacks or defences) it applies successfully gives the enemy one wound instead (Choke
    Hold; Tough and Durable apply)."""

    op: Literal["special_damage"]
    specials: Annotated[list[Literal["sidestep-attack", "push-attack", "drag-attack", "grapple-attack",
                                     "grapple-defence"]], Field(min_length=1)]
    until: Until = "exchange"
    wound: bool = False

    @model_validator(mode="after")
    def _damage_roll(self) -> "SpecialDamageOp":
        if not self.wound and "grapple-defence" in self.specials:
            raise ValueError("a defence makes no damage roll to restore: use wound: true")
        return self


class MarkOp(_Strict):
    """Round 6 (F1): until ``until`` the affected (enemy) model is marked for the user's side:
    a friendly model matching ``keywords`` that declares an action targeting it, or that it
    declares a Melee or Charge at, gains ``traits`` until ``until`` (Sick Em!: Animals gain
    Bravery and Co-ordinated Attack [Friendly])."""

    op: Literal["mark"]
    keywords: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1)]
    traits: Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=1)]
    until: Until = "end_phase"


class ShotsOp(_Strict):
    """Round 6 (F1): until ``until`` the affected model's ranged attacks ignore the target
    number modifiers named in ``ignore`` (``cover``: +2 for Cover; ``tiny``: the Tiny size
    modifier, p.31; ``los``: it needs no LoS to its target); ``no_intercept``: the opposing
    player may not nominate a new target (no interception, step 1d, p.30) (Dead Eye, Tide
    Master)."""

    op: Literal["shots"]
    ignore: list[Literal["cover", "tiny", "los"]] = []
    no_intercept: bool = False
    until: Until = "activation"


class ActivationOp(_Strict):
    """Round 6 (F1): the order of activations (p.20-21). ``rule``: ``next`` -- the affected
    model's player must choose it as its next activating model, ignoring Impetuous markers
    (Dominate; an Exhausted model cannot be affected); ``last`` -- it may not be chosen while
    another model of its warband that this feat did not affect can activate, until the End
    phase (Fog of Hesitation); ``now`` -- its player becomes the active player again and it
    begins an activation at once (Blood Brothers); ``no_pass`` -- only the pass ban;
    ``walk_at_user`` -- its next activation must be a Walk straight toward the feat's user
    with its full Move (any action when it cannot Walk; a target in base contact with a model
    of the user's side is refused: Lure); ``only`` -- until ``until`` it may declare only the
    ``actions`` kinds (Cower: disengage, stand_up, wait; Instant and Active feats are no
    actions); ``declare`` -- the opposing player of the affected model must name now the model
    it will activate next (a choice of that player; the named model is then bound as by
    ``next``, Impetuous markers not ignored, until it becomes ineligible: Prediction);
    ``no_action_walk`` -- until ``until`` its Ranged Attack and Melee actions come without
    their usual Walk (no Walk before / after a Shoot; a Melee only at an enemy in base
    contact: Instil Sloth); ``envy`` -- until ``until`` it uses no Ki feat at a friendly
    model other than itself, and declares actions and feats at an enemy model only when that
    model's rice cost is higher than its own (no rice cost: 0; Instil Envy).
    ``no_pass``: its player may not use a pass token in its next activation
    (``now`` always). ``traits`` (with ``next``): it has them until the end of its next
    activation (The Oppressed: Insignificant). ``at: end_activation`` (with ``now``): offered
    as a free choice when the user's activation ends, if it still has a counter (Focus
    Frenzy); ``ignore_impetuous``: its activation ignores Impetuous markers (default: with
    ``next`` yes, with ``now`` no)."""

    op: Literal["activation"]
    rule: Literal["next", "last", "now", "no_pass", "walk_at_user", "only", "declare", "no_action_walk", "envy"]
    no_pass: bool = False
    actions: list[Literal["walk", "run", "charge", "melee", "shoot", "disengage", "stand_up", "wait", "focus",
                          "scenario", "ki_feat"]] = []
    until: Until | None = None
    traits: list[Annotated[str, Field(min_length=1, max_length=60)]] = []
    at: Literal["end_activation"] | None = None
    ignore_impetuous: bool | None = None

    @model_validator(mode="after")
    def _rule_fields(self) -> "ActivationOp":
        if self.at is not None and self.rule != "now":
            raise ValueError("activation 'at' goes with rule 'now' (a re-activation when the activation ends)")
        if (self.rule == "only") != bool(self.actions):
            raise ValueError("activation rule 'only' needs 'actions' (and only it takes them)")
        if self.traits and self.rule != "next":
            raise ValueError("activation 'traits' go with rule 'next' (until its next activation ends)")
        return self


class SwapOp(_Strict):
    """Round 6 (F3): the affected model and the feat's user exchange places, each base centre
    where the other's was, facings kept; refused unless both bases fit there (no overlap,
    Impassable terrain or table edge, p.22), like Bodyguard's swap (p.49)."""

    op: Literal["swap"]


class FormOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): the affected model is replaced by its
    other form: the card named as its own with the other of ``forms`` (``Kota - Human Form``
    <-> ``Kota - Fox Form``) becomes its printed card for the rest of the game (statistics,
    traits, weapons, feats, Size); it stays where it stands with its marked wounds, markers,
    tokens, Ki, counters and effects (Shapeshift). Refused when no such card is known."""

    op: Literal["form"]
    forms: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=2, max_length=2)]


class TransferOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): condition markers of ``names`` move
    between models (p.43-45), each with its value (Bleed (2), the Fear TN of Frightened).
    ``to: user`` -- those on the affected model go onto the feat's user (Whipping Boy);
    ``to: affected`` -- those on every friendly model of the user within ``from_friends``
    inches (edge to edge; the user itself included) go onto the affected model (Curse of
    Retribution). ``n``: at most that many markers in all (``all``; ``X``: the paid X). A
    marker the receiver is immune to leaves the giver and is not gained. ``wound_each``: the
    receiver marks one wound box per marker it gained (no Armour, Tough or Durable)."""

    op: Literal["transfer"]
    names: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1, max_length=17)]
    n: Union[int, Literal["all", "X"]] = "all"
    to: Literal["user", "affected"] = "user"
    from_friends: Annotated[float, Field(ge=0, le=24)] | None = None
    wound_each: bool = False
    #: round 6 (F5): the player names the markers moved in the action's ``models``, one
    #: ``model:condition`` per marker, all from one other model within the feat's Pulse; ``n``
    #: of them exactly (Martyr: X markers)
    pick: bool = False

    @field_validator("names")
    @classmethod
    def _markers(cls, v: list[str]) -> list[str]:
        bad = [n for n in v if conditions.canonical(n) is None]
        if bad:
            raise ValueError(f"not condition markers of p.43-45: {', '.join(bad)}")
        return v

    @model_validator(mode="after")
    def _giver(self) -> "TransferOp":
        if (self.to == "affected") != (self.from_friends is not None):
            raise ValueError("transfer to: affected takes the markers of friends within 'from_friends' inches "
                             "(and only it)")
        if self.pick and (self.to != "user" or self.n == "all"):
            raise ValueError("transfer pick names n markers moved onto the user (to: user, n: X or a number)")
        return self


class AuraTerrain(_Strict):
    """Round 6 (F2): the terrain an Aura's area counts as while it lasts (p.60-61): the
    three attributes as printed (``[Difficult, Clear, Zero]`` = difficult, open, zero)."""

    passage: Literal["difficult", "normal", "ideal"] = "normal"
    visibility: Literal["open", "obscuring"] = "open"
    size: Literal["zero", "tiny", "small", "medium", "large", "huge"] = "zero"


class DiceCurseOp(_Strict):
    """Round 6 (F2): roll ``base`` dice plus the success level of the feat's Opposed Ki test,
    re-rolling 1s and repeated values until every die differs; until ``until`` every die the
    affected model rolls that shows one of those values counts as ``value`` (Curse Fate)."""

    op: Literal["dice_curse"]
    base: int = Field(default=1, ge=1, le=5)
    value: int = Field(default=1, ge=1, le=6)
    until: Until = "end_phase"


class FeatCostOp(_Strict):
    """Round 6 (F2): until ``until`` the Ki cost of every Ki feat the affected model uses
    changes by ``n`` (and of its Ki boosts with ``boosts``); a cost never drops below one
    token (p.46). In an Aura: the models inside pay it while they are there (Burden on
    Society); Faith: ``{op: feat_cost, n: -1, until: action}``."""

    op: Literal["feat_cost"]
    n: int = Field(ge=-3, le=3)
    boosts: bool = False
    until: Until = "action"


class RemoveTerrainOp(_Strict):
    """Round 6 (F2): every Destructible terrain piece (p.16) in the feat's Pulse or Aura (any
    part of it within the range of the user's base) leaves the table (Cleansing Flames); use it
    in ``effects_self``."""

    op: Literal["remove_terrain"]
    destructible: Literal[True] = True


class FaceOp(_Strict):
    """Round 6 (F2): the affected model turns to face the feat's user directly (its facing
    line points at the user's base centre; Threat)."""

    op: Literal["face"]
    toward: Literal["user"] = "user"


class RedirectOp(_Strict):
    """Round 6 (F6, :mod:`sim.rules.game.feat_redirects`): the enemy action a
    ``trigger:targeted`` feat with ``watch: friends`` holds (declared at a friend of the user
    in the feat's range) is made at the user instead; offered only when it would be legal so.
    ``range_to_original``: an enemy Ki feat's range is still measured to the friend."""

    op: Literal["redirect"]
    range_to_original: bool = False


class FeatOriginOp(_Strict):
    """Round 6 (F6, :mod:`sim.rules.game.feat_redirects`): an Aura's op -- a friendly model
    inside may use the Aura's user as the point of origin of its Target Ki feats (range
    measured from it), while the user is (``free``) in base contact with no enemy and in no
    enemy's ZoC (Spiritual Conduit)."""

    op: Literal["feat_origin"]
    feats: Literal["target"] = "target"
    free: bool = True


class RepelOp(_Strict):
    """Round 6 (F6, :mod:`sim.rules.game.feat_redirects`): the enemy whose move into base
    contact with the affected friend opened the window moves directly away from that friend
    until it leaves the friend's ZoC (Madamada)."""

    op: Literal["repel"]


class JoinOp(_Strict):
    """Round 6 (F6, :mod:`sim.rules.game.feat_redirects`): the affected friend (another than
    the one the enemy contacted) moves into base contact with that enemy by the shortest route,
    at most ``distance`` inches; the feat is refused when it cannot reach contact (Two-Man Rule)."""

    op: Literal["join"]
    distance: Annotated[float, Field(gt=0, le=48)] = 48


class DeployTerrainOp(_Strict):
    """Round 6 (F2): the user deploys a round base of ``base`` mm whose area is a terrain
    piece of ``passage`` / ``visibility`` / ``size`` until ``until``, its centre the action's
    ``point``: on the table, within ``range`` inches of the user (edge to edge), in its LoS
    with ``los``, overlapping no model and no Impassable terrain (Fumeiryo). Round 6 (F7):
    ``range: null`` = anywhere on the table; ``destructible`` = the piece has the terrain trait
    Destructible (p.16); ``passage: impassable`` (Set the Scene)."""

    op: Literal["deploy_terrain"]
    base: Literal[30, 40, 50, 60] = 50
    passage: Literal["impassable", "difficult", "normal", "ideal"] = "normal"
    visibility: Literal["open", "obscuring", "blocking"] = "blocking"
    size: Literal["zero", "tiny", "small", "medium", "large", "huge"] = "large"
    range: Annotated[float, Field(ge=0, le=24)] | None = 6.0
    los: bool = True
    destructible: bool = False
    until: Until = "end_phase"


class LosLimitOp(_Strict):
    """Round 6 (F2): until ``until`` every model on the table that matches none of the
    entry's ``target_not_keywords`` draws LoS only up to ``inches`` (edge to edge; models in
    base contact always see each other). Used on the user (``affects: self``): Darkness."""

    op: Literal["los_limit"]
    inches: Annotated[float, Field(gt=0, le=24)]
    until: Until = "end_phase"


class CleanseOp(_Strict):
    """Round 6 (F2): remove up to ``n`` markers in all (``X``: the paid X) of the conditions
    ``names`` from the affected models, shared out as the user's player picks: the action's
    ``models`` names one ``model:condition`` per marker removed (Cleansing)."""

    op: Literal["cleanse"]
    n: Count = "X"
    names: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1, max_length=17)]


class SpecialCostOp(_Strict):
    """Round 6 (F5): until ``until`` the Ki cost of the special ``kinds`` (attacks, defences)
    of its ``weapon`` weapons (``name``: only the weapon of that name) becomes ``set`` or
    changes by ``add`` (never below 0; p.39) (Chudan: every special at 0)."""

    op: Literal["special_cost"]
    set: Annotated[int, Field(ge=0, le=6)] | None = None
    add: Annotated[int, Field(ge=-6, le=6)] | None = None
    kinds: Annotated[list[Literal["attack", "defence"]], Field(min_length=1)] = ["attack", "defence"]
    weapon: Literal["melee", "ranged", "all"] = "all"
    name: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    until: Until | None = None

    @model_validator(mode="after")
    def _one(self) -> "SpecialCostOp":
        if (self.set is None) == (self.add is None):
            raise ValueError("special_cost needs exactly one of 'set' and 'add'")
        return self


class BoostOp(_Strict):
    """Round 6 (F5): until ``until`` the model has a Ki boost box for ``stat`` at ``cost`` Ki
    per +1 (p.10, p.47; "gains Move Boost 2": Mamba's Stride); a cheaper box its card prints
    is kept."""

    op: Literal["boost"]
    stat: Literal["melee", "ranged", "move", "ki"]
    cost: Annotated[int, Field(ge=1, le=6)]
    until: Until | None = None


class ManualStepOp(_Strict):
    """An explicit step the players apply by hand (logged with the card text)."""

    op: Literal["manual_step"]
    text_ref: str = "card"


class ChoiceOp(_Strict):
    """One of ``options`` (each a list of ops) applies; the user's player picks it with the
    action's ``option`` (0-based index; the offers give one action per option).
    ``labels``: an optional short name per option for the log."""

    op: Literal["choice"]
    options: Annotated[list[list["Op"]], Field(min_length=2, max_length=6)]
    labels: list[Annotated[str, Field(max_length=60)]] = []
    by: Literal["user", "opponent"] = "user"

    @model_validator(mode="after")
    def _flat(self) -> "ChoiceOp":
        for opt in self.options:
            if not opt:
                raise ValueError("a choice option lists at least one op")
            if any(getattr(o, "op", "") == "choice" for o in opt):
                raise ValueError("a choice option may not hold another choice")
        if self.labels and len(self.labels) != len(self.options):
            raise ValueError("labels: one per option")
        return self


class RiderOp(_Strict):
    """Round 4: until ``until`` the affected model carries a rider: each time ``upon``
    happens (``dealt_wound`` -- its attack wounded a model; ``attack_succeeded`` -- its
    attack reached a model with a damage roll or a hit; ``wounded_by`` -- an attack wounded
    it; ``attacked_by`` -- an attack against it succeeded), the ops of ``effects`` apply to
    THE OTHER model of that attack (once per attack). ``dealt_by``: which attacks count;
    ``once``: the rider ends after its first use ("the next time"); ``not_keywords``: the
    other model may match none of them (Stronger Than Hate: non-Satsui). A move inside is
    a ``push`` / ``away`` / ``toward`` move from the feat's user (Inertia's 1" push).
    Batter: ``{op: rider, upon: dealt_wound, dealt_by: melee, until: end_phase, effects:
    [{op: condition, name: stunned}]}``."""

    op: Literal["rider"]
    upon: Literal["dealt_wound", "attack_succeeded", "wounded_by", "attacked_by"]
    dealt_by: Literal["melee", "ranged", "any"] = "any"
    until: Literal["action", "activation", "exchange", "end_phase", "turn", "game"] = "end_phase"
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]
    once: bool = False
    not_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []

    @model_validator(mode="after")
    def _plain(self) -> "RiderOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack") for o in self.effects):
            raise ValueError("a rider's effects may not hold a choice, an attack or another rider")
        if any(isinstance(o, MoveOp) and (o.kind not in ("push", "away", "toward") or o.at is not None)
               for o in self.effects):
            raise ValueError("a rider's move is a push / away / toward move made at once (no point to choose)")
        return self


class OnFeatOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until``, each time the affected
    model uses a Ki feat (pays for it, p.46) the ops of ``effects`` apply to it, as the feat's
    user's; ``once`` -- only the next time (then it ends); ``ban`` -- it may not use that feat
    again until the end of the following turn (Fresh Fallen Snow). As an Aura op: each model
    the Aura reaches that uses a feat inside it (Spiritual Poison)."""

    op: Literal["on_feat"]
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]
    once: bool = False
    ban: bool = False
    until: Until = "game"

    @model_validator(mode="after")
    def _plain(self) -> "OnFeatOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack", "move", "on_feat", "swap", "form")
               for o in self.effects):
            raise ValueError("on_feat's effects are markers, wounds, Ki, traits ... on the model itself (no choice, "
                             "move, attack, rider)")
        return self


class HealRuleOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until`` the affected model's Heal
    (X) (p.52) changes: ``reach`` -- it may heal a model within that many inches (edge to
    edge) without moving into contact (Prayer of Healing: its Aura); ``markers`` -- instead of
    healing wounds it may remove as many markers of those conditions from its target, the
    player naming them (the Heal action's ``models``: one condition name per marker; Prayer
    of Purification)."""

    op: Literal["heal_rule"]
    reach: Annotated[float, Field(gt=0, le=24)] | None = None
    markers: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    until: Until | None = None

    @model_validator(mode="after")
    def _some(self) -> "HealRuleOp":
        if self.reach is None and not self.markers:
            raise ValueError("heal_rule changes the reach or the markers of Heal (or both)")
        bad = [n for n in self.markers if conditions.canonical(n) is None]
        if bad:
            raise ValueError(f"not condition markers of p.43-45: {', '.join(bad)}")
        return self


class OnActionOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until``, each time the affected
    model declares an action (begins an activation, p.24) of a kind not in ``not_kinds``, and
    it has no ``unless`` condition marker then, the ops of ``effects`` apply to it once that
    action is resolved (at the end of the activation), as the feat's user's (Kannagara)."""

    op: Literal["on_action"]
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]
    not_kinds: list[Literal["walk", "run", "charge", "melee", "shoot", "disengage", "stand_up", "wait", "focus",
                            "scenario", "ki_feat", "heal"]] = []
    unless: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    until: Until = "end_phase"

    @model_validator(mode="after")
    def _plain(self) -> "OnActionOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack", "move", "on_feat", "on_action", "swap", "form")
               for o in self.effects):
            raise ValueError("on_action's effects are markers, wounds, Ki, traits ... on the model itself")
        if self.unless is not None and conditions.canonical(self.unless) is None:
            raise ValueError(f"unless names a condition marker of p.43-45, not {self.unless!r}")
        return self


class ChosenOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): the ops of ``effects`` apply to one more
    model the user's player chooses -- the action's ``models`` names it: a ``friend`` (the
    user included: a model may select itself, p.4), an ``enemy`` or ``any`` model within
    ``range`` inches of the user (edge to edge). Used in ``effects_self`` (once per use; the
    feat's own test gates it): Steal Vitality."""

    op: Literal["chosen"]
    side: Literal["friend", "enemy", "any"] = "friend"
    range: Annotated[float, Field(ge=0, le=48)]
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]

    @model_validator(mode="after")
    def _plain(self) -> "ChosenOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack", "move", "chosen", "swap", "form")
               for o in self.effects):
            raise ValueError("a chosen op's effects are markers, counters, Ki, traits ... on the chosen model")
        return self


class StealOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until``, in every melee exchange
    the affected model fights, the enemy of that exchange (and its weapons) loses the named
    ``traits`` and the affected model gains those it lost, with the same values (Vicious
    Imitation); read while the exchange is open."""

    op: Literal["steal"]
    traits: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1, max_length=12)]
    until: Until = "activation"
    #: False: the enemy only loses them (Yoko-Men: "Models involved in a Melee Exchange with
    #: this model lose the Dodge trait")
    gain: bool = True


class VersusOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until``, while the affected
    model fights a melee exchange with an enemy matching one of ``keywords`` (a type, a trait,
    a condition such as Surprised), it has ``traits`` and its ``weapon`` weapons (``name``: only
    that one) have ``weapon_traits`` (Stiletto: the Shiv has Pierce (3) against a Surprised
    enemy); read while the exchange is open."""

    op: Literal["versus"]
    keywords: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1)]
    traits: list[Annotated[str, Field(min_length=1, max_length=60)]] = []
    weapon_traits: list[Annotated[str, Field(min_length=1, max_length=60)]] = []
    weapon: Literal["melee", "ranged", "all"] = "melee"
    name: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    until: Until | None = None

    @model_validator(mode="after")
    def _some(self) -> "VersusOp":
        if not self.traits and not self.weapon_traits:
            raise ValueError("versus gives traits or weapon_traits")
        return self


class LoseTypeOp(_Strict):
    """Round 6 (F5): until ``until`` the model's card loses the type keywords ``types`` (Genki:
    "loses the Ashigaru Type"); keyword filters and traits keyed on them no longer see it."""

    op: Literal["lose_type"]
    types: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1, max_length=6)]
    until: Until | None = None


class ForbidOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until`` the affected model may
    not declare actions of the ``actions`` kinds (Tears for the Dead: Melee, Ranged Attack and
    Charge actions); every other action stays allowed (unlike ``activation`` ``only``)."""

    op: Literal["forbid"]
    actions: Annotated[list[Literal["walk", "run", "charge", "melee", "shoot", "disengage", "stand_up", "wait",
                                    "focus", "scenario", "ki_feat", "heal"]], Field(min_length=1)]
    until: Until = "end_phase"


class NextShotOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): the affected model's next ranged attack
    with its weapon ``name`` has the ``strength`` change and the ``weapon_traits`` (special
    attacks included: offered with that Shoot); the change is spent by that attack, hit or miss
    (Surge: the next Call Lightning attack, +1 Strength and Slam Attack (0))."""

    op: Literal["next_shot"]
    name: Annotated[str, Field(min_length=1, max_length=40)]
    strength: Annotated[int, Field(ge=-6, le=6)] = 0
    weapon_traits: list[Annotated[str, Field(min_length=1, max_length=60)]] = []


class SpecialAgainstOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until`` the affected model's
    ``weapon`` weapons have the special attacks ``specials``, which it may declare only at an
    enemy matching one of ``keywords`` (Headshot: Critical Attack (0) on its ranged weapons
    against enemy Kairai)."""

    op: Literal["special_against"]
    specials: Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=1)]
    keywords: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1)]
    weapon: Literal["ranged"] = "ranged"
    until: Until | None = None


class ProtectOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): until ``until`` the weapons used in attacks
    made against the affected model (melee exchanges and shots) have ``pierce`` less Pierce, to
    a minimum of 0 (Irokane Protection: Pierce (-2))."""

    op: Literal["protect"]
    pierce: Annotated[int, Field(ge=-6, le=-1)] = -2
    until: Until = "activation"


class GrantChoiceOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): the model gains the trait ``trait`` with
    ``{choice}`` replaced by the entry of ``choices`` the user's player picks -- the action's
    ``option`` indexes the list (0-based; the first by default) -- until ``until`` (Elders'
    Aegis: ``Immune [{choice}]`` for a state of p.43 other than Reloading)."""

    op: Literal["grant_choice"]
    trait: Annotated[str, Field(min_length=1, max_length=60)]
    choices: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=2, max_length=30)]
    until: Until | None = None

    @model_validator(mode="after")
    def _slot(self) -> "GrantChoiceOp":
        if "{choice}" not in self.trait:
            raise ValueError("grant_choice's trait text holds {choice}")
        return self


class GroupOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`; in ``effects_self``): when the feat is
    used, its ops reach the models of the feat's Pulse or Aura (the user included) that are on
    the ``side`` and match ``keywords`` (any one; none listed: every one) and none of
    ``not_keywords`` -- a second group beside the entry's ``affects`` (Coin: friendly non-Kami
    Ronin gain 1 Ki; every model in the Aura gains Bodyguard [Haiboku] (3"))."""

    op: Literal["group"]
    side: Literal["friend", "enemy", "any"] = "friend"
    #: the user itself is left out ("Other Friendly ... models": Imperial Favour)
    others: bool = False
    keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    not_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]

    @model_validator(mode="after")
    def _plain(self) -> "GroupOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack", "move", "group", "swap", "form", "chosen")
               for o in self.effects):
            raise ValueError("a group's effects are markers, Ki, counters, traits ... on each model of the group")
        return self


class ContestOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`): an enemy model may cancel the feat by
    paying ``ki`` Ki tokens to the user (its player picks now, a waiting ``feat_later``: option 0
    lets it be, option 1 with ``target`` the enemy that pays); not cancelled, the ops of
    ``effects`` apply to the affected model; no enemy has the Ki: they apply at once (Alacrity)."""

    op: Literal["contest"]
    ki: Annotated[int, Field(ge=1, le=6)] = 1
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]

    @model_validator(mode="after")
    def _plain(self) -> "ContestOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack", "move", "contest", "swap", "form", "chosen")
               for o in self.effects):
            raise ValueError("a contest's effects are markers, Ki, counters, traits ... on the affected model")
        return self


class IfEnemyOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`; used in an exchange before allocating):
    until ``until`` the affected model has ``traits`` if the enemy of its exchange allocated no
    attack dice (``no_attack``) / declared no special attack or defence (``no_special``) --
    read once both allocations are revealed, when the exchange is resolved (Prison Fight:
    Brutal (2); Hostility: Strong)."""

    op: Literal["if_enemy"]
    no_attack: bool = False
    no_special: bool = False
    traits: Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=1)]
    until: Until = "exchange"

    @model_validator(mode="after")
    def _some(self) -> "IfEnemyOp":
        if not (self.no_attack or self.no_special):
            raise ValueError("if_enemy needs no_attack or no_special")
        return self


class AfterExchangeOp(_Strict):
    """Round 6 (F5, :mod:`sim.rules.game.feat_cards`; used in an exchange before allocating):
    if the enemy of the exchange buys no Melee Ki boost for its allocation (``no_boost``), the
    ops of ``effects`` apply to that enemy once the exchange is resolved (Low Blow: Stunned and
    Prone)."""

    op: Literal["after_exchange"]
    no_boost: bool = True
    effects: Annotated[list["Op"], Field(min_length=1, max_length=6)]

    @model_validator(mode="after")
    def _plain(self) -> "AfterExchangeOp":
        if any(getattr(o, "op", "") in ("choice", "rider", "attack", "move", "after_exchange", "swap", "form",
                                        "chosen") for o in self.effects):
            raise ValueError("after_exchange's effects are markers, wounds, traits ... on the enemy")
        return self


Op = Annotated[Union[GrantOp, GrantWeaponOp, LoseOp, StatOp, ConditionOp, RemoveConditionOp, WoundOp, HealOp, KiOp,
                     CounterOp, PassTokenOp, FacingOp, MoveOp, SummonOp, NoSpecialsOp, ManualStepOp, ChoiceOp,
                     RangeBandsOp, RerollOp, TokensOp, TakeKiOp, AttackOp, RiderOp, AssistOp, AssistBonusOp,
                     SlMarkersOp, DamageRollsOp, DamageOp, MarkerWoundsOp, ChallengeOp, RangedTnOp,  # round 6 (F4)
                     TrapTestOp,  # round 6 (F4)
                     TacticalOp,  # round 6 (F4)
                     TestBonusOp,  # round 6 (F4)
                     RedirectOp, FeatOriginOp, RepelOp, JoinOp,  # round 6 (F6)
                     ExchangeBonusOp,  # round 6 (F4)
                     PoolPenaltiesOp, ShotsOp, SpecialDamageOp, MarkOp, ActivationOp, SwapOp,
                     DiceCurseOp, CleanseOp, FeatCostOp, RemoveTerrainOp, FaceOp, LosLimitOp,  # round 6 (F2)
                     DeployTerrainOp,  # round 6 (F2)
                     FormOp, TransferOp, SpecialCostOp, BoostOp, OnFeatOp, HealRuleOp,  # round 6 (F5)
                     OnActionOp, ChosenOp, StealOp, VersusOp, LoseTypeOp, ForbidOp,  # round 6 (F5)
                     NextShotOp, SpecialAgainstOp, ProtectOp, GrantChoiceOp, GroupOp, ContestOp,  # F5
                     IfEnemyOp, AfterExchangeOp],  # round 6 (F5)
               Field(discriminator="op")]
ChoiceOp.model_rebuild()
RiderOp.model_rebuild()
OnFeatOp.model_rebuild()  # round 6 (F5)
OnActionOp.model_rebuild()  # round 6 (F5)
ChosenOp.model_rebuild()  # round 6 (F5)
GroupOp.model_rebuild()  # round 6 (F5)
ContestOp.model_rebuild()  # round 6 (F5)
AfterExchangeOp.model_rebuild()  # round 6 (F5)


class Gate(_Strict):
    """A test that gates the effects: ``challenge`` -- the model ``by`` (``target``: the
    target, ``self``: the user) takes a challenge test of ``stat`` against ``tn``; with
    ``by: target`` the effects apply when it FAILS, with ``by: self`` when the user passes."""

    kind: Literal["challenge"] = "challenge"
    stat: Literal["ki", "melee", "ranged", "move", "strength", "size"] = "ki"
    tn: int = Field(ge=1, le=20)
    by: Literal["target", "self"] = "target"


class FeatEffect(_Strict):
    """One feat's entry (see the module docstring and ``/work/notes/feat_schema.md``).

    Extensions beyond the first schema (read by :mod:`sim.rules.game.feat_step`):
    ``target_keywords`` -- the target (or each model of the area) must be one of these
    keywords (:func:`sim.rules.card_keywords.keyword_matches`); ``target_rice`` -- its rice
    cost must be ``lower`` / ``higher`` than the user's; ``target_surprised`` -- the target
    counts as Surprised in the feat's opposed test (it buys no Ki boosts); ``max_x`` -- the
    highest X the player may choose; ``max_affected`` -- at most this many models of the
    area are affected, those the user's player names (the action's ``models``);
    ``needs_tokens`` -- ``{name: n}``: usable only while the user carries at least n such
    tokens (``Ammo``: its weapons' Ammo tokens); ``effects_self`` -- ops applied once to the
    user when the feat resolves, beside ``effects`` on the models of ``affects`` (no
    ``choice`` or ``move`` there; round 4); ``unopposed_keywords`` -- at a target matching
    one of them the feat is not Opposed (round 4: Dark Absolution at a Kami); ``ends_action``
    -- a ``trigger:targeted`` feat that, applied, ends the enemy action it interrupted.
    """

    name: str = ""
    cost: Union[int, Annotated[str, Field(min_length=1, max_length=20)]]
    timing: Literal["active", "instant", "simple", "complex", "special"]
    area: Literal["personal", "target", "pulse", "aura", "special"]
    range: float | None = None
    btb: bool = False
    opposed: Union[bool, Literal["enemy"]] = False
    limits: list[Literal["once_per_turn", "once_per_game", "once_per_activation", "no_btb", "no_move",
                         "once_per_exchange"]] = []
    when: str = "action"
    affects: Literal["self", "target", "friends", "enemies", "models", "friends_and_self", "target_friend",
                     "target_enemy", "self_and_target", "models_and_self", "enemies_and_self", "opponent"] = "self"
    test: Gate | None = None
    target_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    target_rice: Literal["lower", "higher", "equal"] | None = None  # equal: round 6 (F5, Rivalry)
    target_surprised: bool = False
    max_x: int | None = Field(default=None, ge=1, le=12)
    max_affected: Union[Annotated[int, Field(ge=1, le=20)], Literal["X"], None] = None
    # round 3 (feat_schema.md "Round 3 additions")
    watch: Literal["self", "friends", "friends_and_self"] = "self"
    watch_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    trigger_target: Literal["enemy", "friend"] = "enemy"
    dealt_by: Literal["melee", "ranged", "any"] = "any"
    range_x: bool = False
    target_keywords_all: bool = False
    target_not_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    table: bool = False
    needs_tokens: dict[Annotated[str, Field(min_length=1, max_length=40)], Annotated[int, Field(ge=1, le=20)]] = {}
    effects: list[Op] = []
    # round 4 (feat_schema.md "Round 4 additions"): ops on the user beside those on ``affects``
    effects_self: list[Op] = []
    unopposed_keywords: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    ends_action: bool = False
    # round 6 (F1): used only in an exchange where the user's opponent suffers a Melee Assist
    # penalty from a model of the user's side (p.36); a Target feat then targets that opponent
    needs_assist: bool = False
    # round 6 (F1): used only in an exchange where the user holds (``with``) / does not hold
    # (``without``) the Initiative (p.33; Nuki Do)
    initiative: Literal["with", "without"] | None = None
    # round 6 (F1): used only in an exchange opened by the user's own Charge or Melee that moved
    # it into base contact this activation (it was in contact with no enemy when it began; Passing Strike)
    moved_into_melee: bool = False
    # round 6 (F3): the enemy moments a ``trigger:targeted`` feat interrupts (default: a Charge,
    # Melee or Shoot declared at the user): ``contact`` -- an enemy Charge or Melee whose move
    # brought it into base contact with the user, before its exchange opens; ``feat`` -- an enemy
    # Target Ki feat declared at the user in the enemy's activation (sim.rules.game.feat_interrupts)
    targeted_by: list[Literal["charge", "melee", "shoot", "contact", "feat"]] = []
    # round 6 (F2, sim.rules.game.feat_areas): an Aura's area counts as this terrain while it
    # lasts (Quagmire, Fog); the one-time ops of an Aura also reach each model that comes into
    # it later, once per model per turn (Cloud of Flies); the area's range is the turn number
    # (Encroaching Mist); usable only while no enemy model has LoS to the user (Shadow Walk)
    aura_terrain: AuraTerrain | None = None
    # "ends": each move ending in it, each Place into it (Threat); "enters": each move from outside
    # coming into it, each Place or arrival into it (Dashuhua)
    aura_enter: Union[bool, Literal["ends", "enters"]] = False
    range_turn: bool = False
    unseen: bool = False
    # round 6 (F2): a Personal feat whose lasting ops reach the user while it is in base contact
    # with a friendly model the entry's filters accept, and each such model touching it
    # (Defensive Line); the Pulse / Aura range is the user's Ki tokens after paying (Horrify)
    touching: bool = False
    range_ki: bool = False
    # round 6 (F2): only the models of the area that were Placed in the current activation
    # (a feat's place, a Flank arrival; Rankiryu)
    placed_this_activation: bool = False
    # round 6 (F2): the user's lasting ops hold only while its base touches an Impassable
    # terrain piece (Prehensile Tail)
    touching_impassable: bool = False
    # round 6 (F2): a Target feat whose effects reach the models of a Pulse centred on the
    # target (the target included), as many whole inches wide as the range to it (Whistling Shriek)
    pulse_at_target: bool = False
    # round 6 (F2): an Aura that hides the models completely inside it from enemy models
    # outside it, and keeps them from blocking enemy LoS (Shroud); ``range_plus``: inches
    # added to a ``range_x`` range (Shroud's "2+X")
    aura_shroud: bool = False
    # round 6 (F2): the models of ``affects`` (with its keyword filters) may not move closer to
    # the user while within the Aura (Spirit Ward)
    aura_ward: bool = False
    # round 6 (F2): every model in the Aura has Cover (Dashuhua)
    aura_cover: bool = False
    range_plus: Annotated[float, Field(ge=0, le=12)] = 0.0
    # round 6 (F5, sim.rules.game.feat_cards): a Target feat the user may also use on itself
    # (Citrus Fruit Ration: "this model or Target Kaizoku"; the keyword filters reach the other
    # models only); usable only while the user has at most this many marked wound boxes (Inflated
    # Reputation); X is the Ki statistic of the target (Strip Soul)
    target_self: bool = False
    max_damage: Annotated[int, Field(ge=0, le=20)] | None = None
    x_target_ki: bool = False
    # round 6 (F5): a BtB Target feat that reaches every enemy in base contact with the user, the
    # target among them (Petrification: "Enemy models in BtB with this model")
    contact_all: bool = False
    # round 6 (F5): the target must touch a scenario objective still in play or stand in a
    # scenario zone (its whole base; Territorial)
    target_on_objective: bool = False
    # round 6 (F5): an exchange feat usable only in an exchange an enemy initiated with the
    # user (the user is its defender: Outfox)
    defending: bool = False
    # round 6 (F4, sim.rules.game.rolls_step): in the feat's Opposed Ki test the target may not use
    # these traits (Spirit, Resistance ...), when it has a marker of ``resist_ignores_if`` (None:
    # always): Serpentine Sway
    resist_ignores: list[Annotated[str, Field(min_length=1, max_length=40)]] = []
    resist_ignores_if: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    summary: Annotated[str, Field(max_length=300)] = ""
    manual: str | None = None

    @model_validator(mode="after")
    def _f5_fields(self) -> "FeatEffect":
        if (self.target_self or self.x_target_ki) and self.area != "target":
            raise ValueError("target_self and x_target_ki are for Target feats (area: target)")
        if self.x_target_ki and not isinstance(self.cost, str):
            raise ValueError("x_target_ki needs a variable cost (X)")
        if self.contact_all and (self.area != "target" or not self.btb or self.affects != "target_enemy"):
            raise ValueError("contact_all is for a BtB Target feat at an enemy (btb: true, affects: target_enemy)")
        return self

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: Any) -> Any:
        if isinstance(v, int) and v < 0:
            raise ValueError("a negative cost")
        if isinstance(v, str) and "x" not in v.lower() and "rank" not in v.lower():
            raise ValueError(f"cost is a number or a variable cost ('X', 'X+1', 'Rank 1'), got {quote(v)}")
        return v

    @field_validator("range")
    @classmethod
    def _range(cls, v: float | None) -> float | None:
        if v is not None and (not math.isfinite(v) or v < 0):
            raise ValueError(f"range must be a finite number of inches >= 0, got {v!r}")
        return v

    @field_validator("when")
    @classmethod
    def _when(cls, v: str) -> str:
        if v not in WHEN and not (v.startswith("trigger:") and len(v) > len("trigger:")):
            raise ValueError(f"when must be one of {', '.join(WHEN)} or 'trigger:<event>', got {quote(v)}")
        return v

    @model_validator(mode="after")
    def _coherent(self) -> "FeatEffect":
        if self.affects in TARGET_AFFECTS and self.area != "target":
            raise ValueError(f"affects {self.affects!r} needs area 'target', not {self.area!r}")
        if self.area == "target" and self.affects in AREA_AFFECTS:
            raise ValueError(f"a target feat cannot affect {self.affects!r} (an area's models)")
        if any(e.op in ("choice", "move") for e in self.effects_self):
            raise ValueError("effects_self may not hold a choice or a move (put those in effects)")
        if self.affects == "opponent" and self.when != "exchange":
            raise ValueError("affects 'opponent' (the model fought in the exchange) needs when: exchange")
        return self

    # ---- derived
    @property
    def variable(self) -> bool:
        """A variable cost (``X``, ``X+1``, ``Rank 1`` ...): the player chooses X."""
        return isinstance(self.cost, str)

    @property
    def ops(self) -> tuple[str, ...]:
        """The op names of ``effects`` and of every option of a ``choice``, in order."""
        out: list[str] = []
        for e in self.effects:
            out.append(e.op)
            if isinstance(e, ChoiceOp):
                out += [o.op for opt in e.options for o in opt]
        return tuple(out)

    def cap(self, x: int | None) -> int | None:
        """``max_affected`` with ``X`` read as the paid ``x`` (1 when none), or None."""
        if self.max_affected == "X":
            return max(1, int(x or 1))
        return self.max_affected

    @property
    def choice(self) -> "ChoiceOp | None":
        """The entry's ``choice`` op (the first), or None."""
        return next((e for e in self.effects if isinstance(e, ChoiceOp)), None)


class _File(_Strict):
    format: Literal["bushido-feat-effects/1"]
    feats: dict[str, FeatEffect]


def _locate(data: object, loc: tuple) -> str:
    """``feat 'Do-Kote': effects[0].until`` from a pydantic error location."""
    if len(loc) >= 2 and loc[0] == "feats":
        rest = [p for p in loc[2:] if not (isinstance(p, str) and p in OPS)]  # drop union tags
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest).lstrip(".")
        return f"feat {quote(str(loc[1]))}" + (f": {where}" if where else "")
    return ".".join(str(p) for p in loc) or "the file"


def _one_line(path: Path, data: object, err: ValidationError) -> str:
    errors = err.errors()
    e = errors[0]
    problem = e["msg"]
    if e["type"] == "missing":
        problem = f"missing field {quote(str(e['loc'][-1]))}"
    elif e["type"] == "extra_forbidden":
        problem = f"unknown field {quote(str(e['loc'][-1]))}"
    elif e["type"] == "union_tag_invalid":
        problem = f"unknown op (the ops are {', '.join(OPS)})"
    elif not isinstance(e.get("input"), (dict, list)):
        problem += f" (got {quote(e.get('input'))})"
    loc = tuple(p for p in e["loc"] if p not in ("function-after[_coherent(), FeatEffect]",))
    more = len(errors) - 1
    if more:
        problem += f" (and {more} more problem{'s' if more > 1 else ''})"
    return f"{path}: {_locate(data, loc)}: {problem}"


def load_effects(path: str | Path = DEFAULT_PATH) -> dict[str, FeatEffect]:
    """Read and validate a feat effects file; ``{feat name: FeatEffect}``.

    Raises:
        FeatDataError: the file cannot be read, is not YAML, has another ``format``, or an
            entry is wrong (unknown op or field, a value of the wrong type, a target feat
            without range ...). One line naming the file, the feat and the problem (the
            first, and how many more); nothing is returned in that case.
    """
    path = Path(path)
    try:
        data = read_yaml(path)
    except FileProblem as exc:
        raise FeatDataError(str(exc)) from None
    if not isinstance(data, dict):
        raise FeatDataError(f"{path}: expected a mapping with 'format' and 'feats'")
    try:
        doc = _File.model_validate(data)
    except ValidationError as exc:
        raise FeatDataError(_one_line(path, data, exc)) from None
    return {name: e.model_copy(update={"name": name}) for name, e in doc.feats.items()}


_CACHE: dict[str, Any] = {}


def reset_cache() -> None:
    """Forget the loaded repository file (tests that change it)."""
    _CACHE.clear()


def curated_paths() -> list[Path]:
    """The hand-curated files that override the drafted one: ``data/feats/curated/*.yaml``
    (:data:`CURATED_DIR`), in name order; each has the same format as :data:`DEFAULT_PATH`."""
    return sorted(CURATED_DIR.glob("*.yaml")) if CURATED_DIR.is_dir() else []


def _signature(paths: list[Path]) -> tuple:
    sig = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        sig.append((str(p), st.st_mtime_ns, st.st_size))
    return tuple(sig)


def feat_effects() -> dict[str, FeatEffect]:
    """Every feat entry of the repository: the drafted file (:data:`DEFAULT_PATH`, written
    by ``benchmarks/draft_feat_effects.py``) with the hand-curated files of
    :func:`curated_paths` laid over it (an entry there replaces the drafted entry of the
    same name; two curated files may not both give one feat). Loaded once per process
    (:func:`reset_cache` forgets it); ``{}`` when no file exists.

    Raises:
        FeatDataError: a file is wrong (see :func:`load_effects`), or two curated files
            give the same feat.
    """
    paths = ([DEFAULT_PATH] if DEFAULT_PATH.exists() else []) + curated_paths()
    key = (str(DEFAULT_PATH), str(CURATED_DIR))
    if _CACHE.get("path") == key:
        return _CACHE["by_name"]
    sig = _signature(paths)
    if _CACHE.get("sig") != sig:
        merged: dict[str, FeatEffect] = {}
        if DEFAULT_PATH.exists():
            merged.update(load_effects(DEFAULT_PATH))
        owner: dict[str, Path] = {}
        for p in curated_paths():
            for name, entry in load_effects(p).items():
                if name.lower() in owner:
                    raise FeatDataError(f"{p}: feat {quote(name)}: also given by {owner[name.lower()]}")
                owner[name.lower()] = p
                merged = {k: v for k, v in merged.items() if k.lower() != name.lower()}
                merged[name] = entry
        _CACHE["by_name"] = merged
        _CACHE["lower"] = {k.lower(): v for k, v in merged.items()}
        _CACHE["sig"] = sig
    _CACHE["path"] = key
    return _CACHE["by_name"]


def feat_effect(name: str) -> FeatEffect | None:
    """The entry of feat ``name`` (as printed; case-insensitive), or None."""
    feat_effects()
    lower: dict[str, FeatEffect] = _CACHE.get("lower", {})
    return lower.get(name.lower()) if lower else None


def entry_status(entry: FeatEffect | None) -> tuple[bool, str]:
    """:func:`effect_status` of one entry (None: no entry)."""
    if entry is None:
        return False, "no data entry: the engine logs the card text as a manual step"
    if entry.manual:
        return False, f"manual: {entry.manual}"
    if entry.when not in SUPPORTED_WHEN:
        return False, f"used {entry.when!r}: that moment is not offered by the engine yet"
    missing = [op for op in entry.ops + tuple(e.op for e in _all_ops(entry)) if op not in SUPPORTED_OPS]
    if missing:
        return False, f"op {', '.join(sorted(set(missing)))} not applied by the engine"
    lasting = ("grant", "grant_weapon", "lose", "stat", "no_specials", "reroll", "range_bands")
    if entry.area == "aura" and entry.affects != "self" and entry.test is not None and any(
            op in lasting for op in entry.ops):
        return False, "an Aura's lasting change gated by a test per model is not modelled"
    if entry.area == "aura" and entry.affects in TARGET_AFFECTS:
        return False, "an Aura feat has no target"
    for e in _all_ops(entry):
        if isinstance(e, RerollOp) and e.test.strip().strip("[]").lower() not in REROLL_TESTS:
            return False, f"re-rolls in {e.test} tests are not applied (Prowess re-rolls Melee, Attack, " \
                          "Defence, Ranged and Tactical dice)"
    for e in _all_ops(entry):
        if isinstance(e, (ConditionOp, RemoveConditionOp)) and conditions.canonical(e.name) is None:
            return False, f"{e.name!r} is not a condition marker of p.43-45"
    if (not entry.effects and not entry.effects_self and not entry.ends_action and entry.aura_terrain is None
            and not entry.aura_shroud and not entry.aura_ward and not entry.aura_cover):
        return False, "no effects listed"  # round 6: Parley (F3) only ends an action; Fog (F2) only makes terrain
    why = area_refusal(entry)  # round 6 (F2): aura terrain, entering, X / turn ranges, unseen
    if why:
        return False, why
    why = roll_refusal(entry)  # round 6 (F4): sl_markers, damage_rolls
    if why:
        return False, why
    why = attack_refusal(entry)
    if why:
        return False, why
    why = redirect_refusal(entry)  # round 6 (F6): watch: friends with a redirect op
    if why:
        return False, why
    if entry.ends_action and entry.when != "trigger:targeted":
        return False, "ends_action is only for a trigger:targeted interrupt"
    if entry.targeted_by and entry.when != "trigger:targeted":  # round 6 (F3)
        return False, "targeted_by is only for a trigger:targeted interrupt"
    if any(isinstance(e, ChoiceOp) and e.by == "opponent" for e in entry.effects) and (
            entry.area != "target" or entry.affects != "target_enemy"):  # round 6 (F5)
        return False, "a choice by the opponent is applied to the enemy target of a Target feat only"
    pending = round3_pending(entry)
    if pending:
        return False, f"{pending}: not applied by the engine yet"
    return True, ""


#: Round 3 entry features the engine applies (feat_schema.md "Round 3 additions"); an entry
#: using one not listed here is not counted as applied (:func:`round3_pending`).
SUPPORTED_ROUND3: frozenset[str] = frozenset({
    "target_keywords_all", "target_not_keywords", "max_affected_x", "condition_until", "ignore_tough",
    "watch", "trigger_target", "move_to_target", "table", "move_later",
    # round 4 (H18, tests/test_feat_engine5.py)
    "effects_self", "needs_tokens", "unopposed_keywords",
    # round 6 (F2): Pulse and Aura ranges of X inches (area_refusal keeps Target feats out)
    "range_x",
    # round 6 (F5): a choice the target's player makes (sim.rules.game.feat_cards)
    "choice_opponent",
})


def redirect_refusal(entry: FeatEffect) -> str:
    """Round 6 (F6, :mod:`sim.rules.game.feat_redirects`): why a friend-watching
    ``trigger:targeted`` entry or a ``redirect`` op is not applied (``""`` when it is)."""
    redirect = any(isinstance(e, RedirectOp) for e in _all_ops(entry))
    repel = any(isinstance(e, RepelOp) for e in _all_ops(entry))
    join = any(isinstance(e, JoinOp) for e in _all_ops(entry))
    if entry.when == "trigger:targeted" and entry.watch != "self" and not (redirect or repel or join):
        return "trigger:targeted watching a friend is applied only with a redirect, repel or join op"
    if join and (entry.when != "trigger:targeted" or entry.watch != "friends" or entry.targeted_by != ["contact"]
                 or entry.area != "pulse" or entry.affects != "friends" or entry.max_affected != 1
                 or any(not isinstance(e, JoinOp) for e in entry.effects) or entry.effects_self):
        return "join is the only op of a Pulse feat (one friend) answering a friend's contact"
    if repel and (entry.when != "trigger:targeted" or entry.watch != "friends" or entry.targeted_by != ["contact"]
                  or entry.area != "target" or entry.trigger_target != "friend" or entry.affects != "target_friend"
                  or any(not isinstance(e, RepelOp) for e in entry.effects) or entry.effects_self):
        return "repel is the only op of a Target feat at the friend a trigger:targeted contact names"
    if redirect and (entry.when != "trigger:targeted" or entry.watch != "friends" or entry.affects != "self"
                     or any(not isinstance(e, RedirectOp) for e in entry.effects) or entry.effects_self
                     or "contact" in entry.targeted_by):
        return "redirect is the only op of a trigger:targeted feat with watch: friends, affects: self"
    if any(isinstance(e, FeatOriginOp) for e in _all_ops(entry)) and (
            entry.area != "aura" or entry.affects != "friends" or entry.effects_self):
        return "feat_origin is an Aura's op for friendly models (affects: friends)"
    return ""


def area_refusal(entry: FeatEffect) -> str:
    """Round 6 (F2, :mod:`sim.rules.game.feat_areas`): why the entry's area rules are not
    applied (``""`` when they are, or it has none): ``aura_terrain`` / ``aura_enter`` /
    ``range_turn`` need an Aura, ``range_x`` a Pulse or an Aura; ``aura_enter`` repeats only
    one-time ops of models the Aura reaches."""
    if (entry.aura_terrain is not None or entry.aura_enter or entry.aura_shroud) and entry.area != "aura":
        return "aura_terrain, aura_enter and aura_shroud are for Aura feats"
    if any(isinstance(e, DeployTerrainOp) for e in _all_ops(entry)) and (
            entry.affects != "self" or entry.area not in ("personal", "special") or len(entry.effects) != 1):
        return "deploy_terrain is a Personal feat's one op (the action's point is the base's centre)"
    if any(isinstance(e, LosLimitOp) for e in _all_ops(entry)) and entry.affects != "self":
        return "los_limit is kept on the user (affects: self) and read on every model"
    if entry.aura_cover and entry.area != "aura":
        return "aura_cover is for an Aura"
    if entry.aura_ward and (entry.area != "aura" or entry.affects not in AREA_AFFECTS):
        return "aura_ward is for an Aura reaching the models of an area (affects)"
    if entry.range_plus and not entry.range_x:
        return "range_plus adds to a range_x range"
    if entry.range_turn and entry.area not in ("pulse", "aura"):
        return "range_turn is for a Pulse or an Aura"
    if any(isinstance(e, RemoveTerrainOp) for e in entry.effects) or (
            any(isinstance(e, RemoveTerrainOp) for e in entry.effects_self) and entry.area not in ("pulse", "aura")):
        return "remove_terrain goes in effects_self of a Pulse or an Aura feat"
    if entry.range_ki and (entry.area != "pulse" or entry.range_x or entry.range_turn):
        return "range_ki is for a Pulse (its range read when it is used), without range_x / range_turn"
    if entry.touching and (entry.area != "personal" or entry.affects != "friends_and_self"
                           or any(e.op not in ("grant", "grant_weapon", "lose", "stat") or e.until is None
                                  for e in entry.effects)):
        return "touching is a Personal feat's lasting grant / lose / stat ops on friends_and_self"
    if entry.pulse_at_target and (entry.area != "target" or entry.affects != "target"):
        return "pulse_at_target is for a Target feat (affects: target)"
    if entry.touching_impassable and (entry.affects != "self" or entry.touching or any(
            e.op not in ("grant", "grant_weapon", "lose", "stat") or e.until is None for e in entry.effects)):
        return "touching_impassable keeps the user's own lasting grant / lose / stat ops"
    if any(isinstance(e, FeatCostOp) and e.until not in ("action", "activation", "end_phase", "turn", "game")
           for e in _all_ops(entry)):
        return "feat_cost lasts an action, an activation, the turn or the game"
    if entry.range_x and entry.area not in ("pulse", "aura"):
        return "range_x is applied to Pulse and Aura feats only"
    if entry.range_x and entry.range_turn:
        return "range_x and range_turn both set"
    if entry.aura_enter and (entry.affects not in AREA_AFFECTS or entry.test is not None
                             or any(e.op not in ("condition", "wound", "remove_condition", "ki", "tokens", "face")
                                    for e in entry.effects)):
        return "aura_enter repeats only markers, wounds, Ki, tokens and facings on the models of the Aura, untested"
    return ""



def round3_pending(entry: FeatEffect) -> str:
    """The first round 3 feature ``entry`` uses that is not in :data:`SUPPORTED_ROUND3`
    (``""`` when none): ``watch``, ``trigger_target``, ``range_x``, ``target_keywords_all``,
    ``target_not_keywords``, ``table``, ``needs_tokens``, ``max_affected_x``,
    ``condition_until``, ``ignore_tough``, ``move_to_target``, ``choice_opponent``."""
    used = []
    if entry.watch != "self" or entry.watch_keywords:
        used.append("watch")
    if entry.trigger_target != "enemy":
        used.append("trigger_target")
    if entry.range_x:
        used.append("range_x")
    if entry.target_keywords_all:
        used.append("target_keywords_all")
    if entry.target_not_keywords:
        used.append("target_not_keywords")
    if entry.table:
        used.append("table")
    if entry.needs_tokens:
        used.append("needs_tokens")
    if entry.effects_self:
        used.append("effects_self")
    if entry.unopposed_keywords:
        used.append("unopposed_keywords")
    if entry.max_affected == "X":
        used.append("max_affected_x")
    for e in _all_ops(entry):
        if isinstance(e, ConditionOp) and e.until is not None:
            used.append("condition_until")
        if isinstance(e, WoundOp) and e.ignore_tough:
            used.append("ignore_tough")
        if isinstance(e, MoveOp) and e.kind == "to_target":
            used.append("move_to_target")
        if isinstance(e, MoveOp) and e.at is not None:
            used.append("move_later")
        if isinstance(e, ChoiceOp) and e.by == "opponent":
            used.append("choice_opponent")
    return next((u for u in used if u not in SUPPORTED_ROUND3), "")


def attack_refusal(entry: FeatEffect) -> str:
    """Why the ``attack`` ops of ``entry`` are not made by the engine (``""`` when they are,
    or it has none): only a ranged attack (:data:`ATTACK_APPLIED`) by the user (``affects:
    self``, ``when: action``) at the feat's target / the named model, ignoring at most
    Reloading, as the entry's last op."""
    attacks = [e for e in _all_ops(entry) if isinstance(e, AttackOp)]
    if not attacks:
        return ""
    for a in attacks:
        if a.kind not in ATTACK_APPLIED["kind"] or a.at not in ATTACK_APPLIED["at"]:
            return f"attack ({a.kind} at {a.at}) not applied by the engine yet"
        bad = [i for i in a.ignore if i not in ATTACK_APPLIED["ignore"]]
        if bad:
            return f"an attack ignoring {', '.join(bad)} is not applied by the engine yet"
        if a.at in ("named", "all", "near") and entry.area == "target":
            return f"attack at: {a.at} is for a feat without a target (use at: target)"
        if "range" in a.ignore and a.band is None:
            return "an attack ignoring range names the band it is made in (band)"
    if len(attacks) > 1 or not isinstance(entry.effects[-1] if entry.effects else None, AttackOp):
        return "the attack must be the entry's one, last op"
    if attacks[0].at == "near":  # round 6 (F1): after a trigger, near the triggering model
        if entry.affects != "self" or not entry.when.startswith("trigger:") or entry.when == "trigger:targeted":
            return "an attack at: near is made by the user on a trigger (affects: self, when: trigger:...)"
        return ""
    if entry.affects != "self" or entry.when != "action":
        return "an attack is made only by the user, as an action (affects: self, when: action)"
    return ""


def attack_of(entry: FeatEffect | None) -> AttackOp | None:
    """The ``attack`` op of ``entry`` (None: none)."""
    if entry is None:
        return None
    return next((e for e in entry.effects if isinstance(e, AttackOp)), None)


def _all_ops(entry: FeatEffect) -> list[Any]:
    """The entry's ops with those of every option of a ``choice``."""
    out: list[Any] = []
    for e in entry.effects:
        out.append(e)
        if isinstance(e, ChoiceOp):
            out += [o for opt in e.options for o in opt]
    out += list(entry.effects_self)
    return out + [o for e in out if isinstance(e, RiderOp) for o in e.effects]


def effect_status(name: str) -> tuple[bool, str]:
    """``(applied, reason)``: whether the engine applies feat ``name``'s effect in play
    (its entry exists, is not manual, its ``when`` is in :data:`SUPPORTED_WHEN` and every
    op is in :data:`SUPPORTED_OPS`); ``reason`` says why not (empty when applied)."""
    return entry_status(feat_effect(name))
