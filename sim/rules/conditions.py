"""Model conditions ("Состояния моделей", rulebook p.43-45) as data and pure functions.

A model may be in several conditions at once; each is shown by markers (p.43). This module
holds one :class:`Condition` record per condition (:data:`CONDITIONS`) and pure functions
that answer the questions the game asks: which actions a model may declare
(:func:`allowed_actions`, :func:`forbidden_reason`), its pool modifiers
(:func:`pool_modifiers`, :func:`opponent_modifiers`), what a Wait action may remove
(:func:`removed_by_wait`, :func:`apply_wait`), what the Starting and End phases do
(:func:`start_phase_effects`, :func:`end_phase_damage`, :func:`end_phase_expiry`,
:func:`end_phase_tests`) and how gaining a marker works (:func:`gain_condition`).

**Conditions mapping.** Functions take ``conditions: Mapping[str, value]``:

* keys are condition names (:data:`CONDITIONS`; aliases such as ``immobilized``,
  ``fire``, ``poison`` are accepted, see :func:`canonical`); other keys the game keeps in
  the same dict (``ran``, ``surprised``, ``stood_up``...) are ignored;
* a value is the marker count (``int``; ``True`` counts 1), the list of marker values
  for Bleed, Poisoned and On Fire (``[2, 2, 1]``), the X of Disguised (X) / the highest
  Fear TN of Frightened, or a string (the holder's id for Held; counts as one marker).

:func:`from_model` builds that mapping from a :class:`sim.rules.game.ModelState`
(``conditions`` plus the ``markers`` lists ``bleed``/``poison``/``fire``).

Readings where the text is unclear are listed in ``docs/conditions-and-ki.md`` with line
numbers of the Russian rulebook (seed ``000_c026e9e1ed7bf21e.txt``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from models.traits import trait_key
from sim.rules.action_kinds import COMPLEX_ACTIONS, SIMPLE_ACTIONS

__all__ = [
    "Condition", "CONDITIONS", "ACTIONS", "SIMPLE_ACTIONS", "COMPLEX_ACTIONS", "MOVING_ACTIONS",
    "DAMAGING", "WaitOption", "StartPhase", "ConditionError",
    "ALIASES", "canonical", "condition_key", "normalise", "from_model", "count", "value", "has", "values",
    "allowed_actions", "forbidden_reason", "berserk_action", "pool_modifiers",
    "opponent_modifiers", "traits_gained", "blocks_los", "los_only_in_btb",
    "zoc_ignorable_by_enemies", "contact_ignorable_by_enemies", "strikes_second",
    "no_special_attacks", "can_be_moved", "can_fire", "generates_ki", "can_spend_tokens",
    "removed_by_wait", "apply_wait", "end_phase_damage", "end_phase_wounds",
    "end_phase_expiry", "apply_end_phase_expiry", "end_phase_tests", "start_phase_effects",
    "gain_condition", "remove_condition", "on_healed", "immobilised_test_needed",
    "IMMOBILISED_SIZE_TN", "DEATH_SENTENCE_REMOVAL_COST", "held_released",
    "controlled_after", "impetuous_blocks_activation", "impetuous_after_action",
    "disguise_requirement", "disguise_lost_by", "frightened_auto_fails_fear",
]


class ConditionError(ValueError):
    """An unknown condition name, or a marker operation the rules do not allow."""


# ----------------------------------------------------------------------- actions
#: Action kinds a model declares when it activates (p.24-26): the Simple
#: (``SIMPLE_ACTIONS``: walk, run, melee, disengage, shoot, wait, stand_up, ki_feat,
#: scenario, and ``heal``, the Heal (X) card action Immobilised names) and Complex
#: (``COMPLEX_ACTIONS``: charge, focus, complex_ki_feat, complex_scenario) ones, both read
#: from the one table of action kinds, :data:`sim.rules.action_kinds.ACTION_RULES`.
ACTIONS = SIMPLE_ACTIONS | COMPLEX_ACTIONS
#: Actions that include movement (a change of facing counts, p.22). Shoot, Ki feats and
#: Disengage move only if the model declares/takes its walk: see :func:`immobilised_test_needed`.
MOVING_ACTIONS = frozenset({"walk", "run", "charge", "melee", "scenario", "complex_scenario",
                            "stand_up", "heal"})

#: Conditions whose markers deal wounds in the End phase (step 2, p.21) and the
#: :class:`sim.rules.game.ModelState` ``markers`` key of each.
DAMAGING = {"on_fire": "fire", "bleed": "bleed", "poisoned": "poison"}


# ----------------------------------------------------------------------- record
@dataclass(frozen=True)
class Condition:
    """One condition of p.43-45.

    Attributes:
        name: key (``"prone"``); title / title_ru: printed names; page; lines: first and
            last line of the entry in the Russian rulebook.
        valued: markers carry a value (Bleed/Poisoned/On Fire: wounds; Disguised (X): the
            Ki test TN; Frightened: kept as the highest Fear TN, p.44 last sentence).
        stacks: a model may carry several markers and their number matters.
        only_actions: the only actions the model may declare (None: not limited).
        forbids: actions the model may not declare.
        melee, ranged: modifier to the model's own Melee / Ranged pool (once per
            condition, however many markers).
        traits: traits the condition gives (``aggressive``, ``defensive``).
        blocks_los: False if the model does not block LoS.
        los_only_btb: the model draws LoS only to models in BtB.
        zoc_ignorable: enemy models may ignore its ZoC.
        contact_ignorable: enemy models may declare actions as if not in BtB with it.
        no_special: may not declare Special Attacks or Defences.
        immune_traits: traits that give Immune [this condition].
        wait: the Wait option that removes it (``"all"``, ``"one"``, ``"two"``), if any.
        end_phase: ``"all"``/``"one"`` markers removed at the End phase, ``"damage"``
            (wounds, p.21 step 2), ``"test"`` (Frightened), or None.
        effect, removal: one-line summaries.
    """

    name: str
    title: str
    title_ru: str
    page: int
    lines: tuple[int, int]
    valued: bool = False
    stacks: bool = True
    only_actions: frozenset[str] | None = None
    forbids: frozenset[str] = frozenset()
    melee: int = 0
    ranged: int = 0
    traits: tuple[str, ...] = ()
    blocks_los: bool = True
    los_only_btb: bool = False
    zoc_ignorable: bool = False
    contact_ignorable: bool = False
    no_special: bool = False
    immune_traits: tuple[str, ...] = ()
    wait: str | None = None
    end_phase: str | None = None
    effect: str = ""
    removal: str = ""


def _c(**kw) -> Condition:
    return Condition(**kw)


CONDITIONS: dict[str, Condition] = {c.name: c for c in (
    _c(name="berserk", title="Berserk", title_ru="Берсерк", page=43, lines=(1232, 1243),
       traits=("aggressive",), end_phase="all",
       effect="Aggressive; gaining it also gives an Impetuous marker; on activation it must "
              "Melee, else Charge, else Run at the closest enemy (berserk_action)",
       removal="End phase: all markers"),
    _c(name="bleed", title="Bleed", title_ru="Кровотечение", page=43, lines=(1245, 1249),
       valued=True, end_phase="damage",
       effect="End phase: remove the highest marker, take its value in wounds; repeat while "
              "three or more remain",
       removal="End phase damage loop; healing any wound removes all Bleed markers"),
    _c(name="blind", title="Blind", title_ru="Ослепление", page=43, lines=(1251, 1255),
       forbids=frozenset({"run", "charge"}), melee=-1, los_only_btb=True, end_phase="all",
       immune_traits=("sixth_sense",),
       effect="LoS only to models in BtB; -1 die in melee exchanges; may not declare Run or Charge",
       removal="End phase: all markers"),
    _c(name="controlled", title="Controlled", title_ru="Контроль", page=43, lines=(1257, 1263),
       effect="The controlling player acts with it; it cannot spend or remove tokens (it still "
              "generates Ki); with one marker it cannot declare Complex actions",
       removal="One marker per activation counter removed (or per exchange without a counter); "
               "new Controlled markers remove one marker each instead"),
    _c(name="death_sentence", title="Death Sentence", title_ru="Смертный приговор", page=43,
       lines=(1267, 1269),
       effect="An enemy shooting at it or in an exchange with it: +1 Melee, +1 Ranged, +1 damage "
              "(once, whatever the number of markers)",
       removal="Starting phase: spend 3 Ki to remove one marker"),
    _c(name="diseased", title="Diseased", title_ru="Болезнь", page=43, lines=(1273, 1273),
       effect="Starting phase: remove one Diseased marker and one activation counter",
       removal="Starting phase: one marker"),
    _c(name="disguised", title="Disguised", title_ru="Неузнаваемый", page=44, lines=(1277, 1287),
       valued=True, stacks=False, zoc_ignorable=True,
       effect="Enemies with Ki <= 1 may not target it or voluntarily come into BtB; Ki >= 2 must "
              "pass a Ki (X) challenge to shoot, use a Ki feat on it or contact it; enemies may "
              "ignore its ZoC",
       removal="An enemy passing the Ki (X) test; it declares Melee, Ranged, Charge or Scenario, "
               "or takes part in an exchange"),
    _c(name="frightened", title="Frightened", title_ru="Испуганный", page=44, lines=(1289, 1293),
       valued=True, stacks=False, melee=-1, ranged=-1, traits=("defensive",), end_phase="test",
       immune_traits=("fearless",),
       effect="Defensive; -1 die Melee and Ranged; may not declare actions that bring it into "
              "BtB with Fear enemies; fails Fear tests in the Main phase",
       removal="End phase: re-take the Fear test at the highest TN since it became Frightened; "
               "success removes all markers"),
    _c(name="held", title="Held", title_ru="Удержан", page=44, lines=(1295, 1305), stacks=False,
       only_actions=frozenset({"disengage", "ki_feat", "complex_ki_feat", "stand_up"}),
       melee=-1, traits=("defensive",), immune_traits=("intangible", "agile"),
       effect="Defensive; only Disengage, Ki feats usable in melee or Stand Up; cannot move or "
              "be moved except turning; -1 Melee",
       removal="No longer in BtB with the holder; the holder fights an exchange with another "
               "model; it Disengages successfully from the holder"),
    _c(name="immobilised", title="Immobilised", title_ru="Обездвижен", page=44, lines=(1307, 1319),
       melee=-1, contact_ignorable=True, no_special=True, wait="all",
       immune_traits=("intangible",),
       effect="Size (6) test before Melee, Run, Charge, Scenario, Stand Up, Heal or any moving "
              "action (failure: the action counts as completed); no Special Attacks or "
              "Defences; -1 Melee (p.36 table); enemies in BtB act as if not in BtB",
       removal="Passing that Size test; Wait; being moved by another effect"),
    _c(name="impetuous", title="Impetuous", title_ru="Порывистый", page=44, lines=(1321, 1321),
       effect="While any model of the warband has it, models without it may not activate",
       removal="One marker when the model spends activation counters after an action"),
    _c(name="on_fire", title="On Fire", title_ru="В огне", page=44, lines=(1325, 1327),
       valued=True, wait="two", end_phase="damage",
       effect="End phase: remove the highest marker, take its value in wounds (ignoring "
              "Tough); repeat while three or more remain",
       removal="End phase damage loop; Wait (by it or a friend in BtB): up to two markers"),
    _c(name="poisoned", title="Poisoned", title_ru="Отравлен", page=45, lines=(1331, 1331),
       valued=True, end_phase="damage",
       effect="End phase: remove the highest marker, take its value in wounds; repeat while "
              "three or more remain",
       removal="End phase damage loop only"),
    _c(name="prone", title="Prone", title_ru="Сбит с ног", page=45, lines=(1335, 1347),
       stacks=False, only_actions=frozenset({"stand_up"}), melee=-1, blocks_los=False,
       zoc_ignorable=True, contact_ignorable=True, no_special=True,
       effect="-1 Melee; does not block LoS; enemies may ignore its ZoC and contact with it; "
              "strikes second, no Initiative effects, no special abilities; only Stand Up",
       removal="Stand Up action (an exchange then has -1 Melee but normal Initiative)"),
    _c(name="reloading", title="Reloading", title_ru="Перезарядка", page=45, lines=(1349, 1349),
       wait="one",
       effect="No ranged attack with a Reload weapon",
       removal="Wait: one marker"),
    _c(name="spirit_block", title="Spirit Block", title_ru="Препятствие духа", page=45,
       lines=(1353, 1353),
       effect="Generates no Ki tokens in the Ki generation step",
       removal="One marker at the end of each Ki generation step"),
    _c(name="stunned", title="Stunned", title_ru="Оглушен", page=45, lines=(1357, 1357),
       melee=-1, ranged=-1, wait="all", end_phase="one",
       effect="-1 Melee and -1 Ranged",
       removal="End phase: one marker; Wait: all markers"),
)}

#: The one table of condition spellings (here and in :mod:`sim.rules.melee`): a spelling,
#: after :func:`condition_key`'s normalisation, -> its key. Besides the p.43-45 conditions
#: it names the melee states ``ran`` and ``stood_up`` (:data:`sim.rules.melee.KNOWN_CONDITIONS`);
#: :func:`canonical` still answers None for those.
ALIASES = {
    "immobilized": "immobilised", "immobilise": "immobilised", "immobilize": "immobilised",
    "fire": "on_fire", "onfire": "on_fire", "burning": "on_fire", "poison": "poisoned",
    "bleeding": "bleed", "stun": "stunned", "frighten": "frightened", "knocked_down": "prone",
    "blinded": "blind", "reload": "reloading", "spiritblock": "spirit_block",
    "death": "death_sentence", "deathsentence": "death_sentence", "disease": "diseased",
    "disguise": "disguised", "control": "controlled",
    "stand_up": "stood_up", "standing_up": "stood_up", "run": "ran", "running": "ran",
}


def condition_key(name: str) -> str:
    """``name`` as a condition key: lower case, runs of spaces and hyphens as one ``_``,
    then :data:`ALIASES` (``"Immobilized"`` -> ``"immobilised"``, ``"on fire"`` ->
    ``"on_fire"``, ``"run"`` -> ``"ran"``). Whether the key is a condition is the
    caller's question (:func:`canonical`)."""
    key = _SEPARATORS.sub("_", str(name).strip().lower())
    return ALIASES.get(key, key)


_SEPARATORS = re.compile(r"[\s\-]+")


def canonical(name: str) -> str | None:
    """The :data:`CONDITIONS` key for ``name`` (case, spaces, hyphens and aliases
    forgiven, :func:`condition_key`), or None when it is not a p.43-45 condition (``ran``,
    ``surprised``...)."""
    key = condition_key(name)
    return key if key in CONDITIONS else None


def normalise(conditions: Mapping[str, Any] | None) -> dict[str, Any]:
    """Canonical names only, zero counts and empty lists dropped; several keys of the
    same condition (``fire`` and ``on_fire``) are merged."""
    out: dict[str, Any] = {}
    for k, v in (conditions or {}).items():
        name = canonical(k)
        if name is None or _count_value(v) == 0:
            continue
        if name in out:
            a, b = out[name], v
            if isinstance(a, list) or isinstance(b, list):
                out[name] = _as_list(a) + _as_list(b)
            elif isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and CONDITIONS[name].stacks:
                out[name] = a + b
        else:
            out[name] = list(v) if isinstance(v, (list, tuple)) else v
    return out


#: Conditions whose value is a number X, not a count of markers.
_X_VALUED = ("disguised", "frightened")


def _as_list(v: Any) -> list:
    if isinstance(v, (list, tuple)):
        return list(v)
    return [1] * _count_value(v)


def _count_value(v: Any) -> int:
    if v is None or v is False:
        return 0
    if v is True or isinstance(v, str):
        return 1
    if isinstance(v, (list, tuple)):
        return len(v)
    return max(0, int(v))


def from_model(model: Any) -> dict[str, Any]:
    """The conditions mapping of a :class:`~sim.rules.game.ModelState`: its
    ``conditions`` dict plus its ``markers`` lists (``fire``/``bleed``/``poison``)."""
    merged: dict[str, Any] = dict(getattr(model, "conditions", {}) or {})
    for kind, vals in (getattr(model, "markers", {}) or {}).items():
        if vals:
            merged[kind] = _as_list(merged.get(kind, [])) + list(vals)
    return normalise(merged)


def count(conditions: Mapping[str, Any] | None, name: str) -> int:
    """Number of ``name`` markers on the model (0 when absent)."""
    key = canonical(name)
    if key is None:
        raise ConditionError(f"unknown condition {name!r} (known: {', '.join(sorted(CONDITIONS))})")
    v = normalise(conditions).get(key)
    if key in _X_VALUED:
        return int(v is not None)
    return _count_value(v)


def value(conditions: Mapping[str, Any] | None, name: str) -> Any:
    """The stored value of ``name``: X of Disguised (X), the Fear TN of Frightened, the
    holder of Held, the marker list of Bleed/Poisoned/On Fire, the count otherwise; None
    when absent."""
    key = canonical(name)
    if key is None:
        raise ConditionError(f"unknown condition {name!r}")
    return normalise(conditions).get(key)


def has(conditions: Mapping[str, Any] | None, name: str) -> bool:
    """The model has at least one ``name`` marker."""
    return count(conditions, name) > 0


def values(conditions: Mapping[str, Any] | None, name: str) -> list[int]:
    """Marker values of a valued condition (Bleed/Poisoned/On Fire), highest first; for
    other conditions a list of 1s, one per marker."""
    key = canonical(name)
    if key is None:
        raise ConditionError(f"unknown condition {name!r}")
    v = normalise(conditions).get(key)
    return sorted(_as_list(v), reverse=True) if v is not None else []


# ----------------------------------------------------------------------- actions
def allowed_actions(conditions: Mapping[str, Any] | None, *, counters: int | None = None) -> set[str] | None:
    """Actions of :data:`ACTIONS` the model may declare because of its conditions, or None
    when no condition limits them.

    Prone: only Stand Up (p.45, line 1343). Held: Disengage, Ki feats usable in melee
    (Simple or Complex Ki Feat; the feat itself must not be No BtB, checked by
    :func:`sim.rules.ki.can_use`), Stand Up (line 1297). Blind: no Run, no Charge (line
    1253). Controlled with one marker: no Complex action (line 1261). ``counters``: with
    one activation counter no Complex action either (p.24), applied only when given.

    Conditions that need the situation (Berserk's forced action, Frightened's contact with
    Fear models, Reloading's weapons, Immobilised's Size test, Impetuous activation) are
    answered by :func:`forbidden_reason` and the dedicated functions.
    """
    conds = normalise(conditions)
    allowed: set[str] | None = None
    for name in conds:
        c = CONDITIONS[name]
        if c.only_actions is not None:
            allowed = set(c.only_actions) if allowed is None else allowed & c.only_actions
        if c.forbids:
            allowed = (set(ACTIONS) if allowed is None else allowed) - c.forbids
    if _count_value(conds.get("controlled")) == 1 or (counters is not None and counters < 2):
        allowed = (set(ACTIONS) if allowed is None else allowed) - COMPLEX_ACTIONS
    return allowed


def forbidden_reason(action_kind: str, conditions: Mapping[str, Any] | None, *,
                     counters: int | None = None, weapon_has_reload: bool = False,
                     contacts_fear_enemy: bool = False, berserk_forced: str | None = None) -> str | None:
    """Why the model's conditions forbid declaring ``action_kind``, or None.

    Context that only the game knows is passed in: ``weapon_has_reload`` (Shoot with a
    Reload weapon), ``contacts_fear_enemy`` (the action would bring the model into BtB with
    an enemy with Fear: forbidden while Frightened), ``berserk_forced`` (the action
    :func:`berserk_action` returned for a Berserk model; any other is forbidden).
    Immobilised never forbids: it calls for a Size test (:func:`immobilised_test_needed`).
    """
    conds = normalise(conditions)
    if "prone" in conds and action_kind != "stand_up":
        return "Prone: the only action it may declare is Stand Up (p.45)"
    held_only = CONDITIONS["held"].only_actions
    if "held" in conds and held_only is not None and action_kind not in held_only:
        return "Held: only Disengage, a Ki feat usable in melee or Stand Up (p.44)"
    if "blind" in conds and action_kind in CONDITIONS["blind"].forbids:
        return f"Blind: may not declare {action_kind.replace('_', ' ').title()} (p.43)"
    if action_kind in COMPLEX_ACTIONS:
        if _count_value(conds.get("controlled")) == 1:
            return "Controlled with one marker: no Complex actions (p.43)"
        if counters is not None and counters < 2:
            return "one activation counter: no Complex actions (p.24)"
    if action_kind == "shoot" and weapon_has_reload and "reloading" in conds:
        return "Reloading: no ranged attack with a Reload weapon (p.45)"
    if "frightened" in conds and contacts_fear_enemy:
        return "Frightened: may not declare an action that brings it into BtB with a Fear enemy (p.44)"
    if "berserk" in conds and berserk_forced is not None and action_kind != berserk_forced:
        return f"Berserk: it must declare {berserk_forced.replace('_', ' ').title()} (p.43)"
    return None


def berserk_action(*, melee_reachable: bool, counters: int, charge_reachable: bool,
                   can_run: bool) -> str | None:
    """The action a Berserk model must declare (p.43, steps 1-4, lines 1236-1241), all
    about the closest enemy model: ``"melee"`` if a Melee action reaches it (already in
    BtB, or within Move); else ``"charge"`` if it has two activation counters and a Charge
    reaches it; else ``"run"`` straight at it for the full distance; else None (step 4:
    any action)."""
    if melee_reachable:
        return "melee"
    if counters >= 2 and charge_reachable:
        return "charge"
    if can_run:
        return "run"
    return None


# ----------------------------------------------------------------------- modifiers
_POOL_PAGE = {"melee": "p.36 table / p.43-45", "ranged": "p.43-45"}


def pool_modifiers(conditions: Mapping[str, Any] | None, kind: str = "melee") -> list[tuple[str, int]]:
    """Labelled modifiers the model's own conditions give to its ``kind`` pool.

    ``melee``: Prone, Blind, Stunned, Frightened, Immobilised (-1 each, p.36 table) and
    Held (-1, p.44): once per condition, whatever the number of markers. ``ranged``:
    Stunned -1, Frightened -1. ``test`` (challenge/opposed tests on other statistics, Ki
    tests, Size tests): no condition of p.43-45 modifies them (Frightened makes Fear tests
    fail instead, :func:`frightened_auto_fails_fear`).
    """
    if kind not in ("melee", "ranged", "test"):
        raise ValueError(f"kind is 'melee', 'ranged' or 'test', got {kind!r}")
    if kind == "test":
        return []
    conds = normalise(conditions)
    out = []
    for name, c in CONDITIONS.items():
        if name in conds:
            v = c.melee if kind == "melee" else c.ranged
            if v:
                out.append((f"{c.title} (p.{c.page})", v))
    return out


def opponent_modifiers(conditions: Mapping[str, Any] | None, kind: str) -> list[tuple[str, int]]:
    """Modifiers an enemy gets because of the conditions of the model it fights or shoots.

    Death Sentence (p.43): +1 to the enemy's ``melee`` pool, its ``ranged`` pool and its
    ``damage`` rolls, once whatever the number of markers. Prone (p.31 table): ``tn`` -1 to
    the ranged attack's target number against it.
    """
    if kind not in ("melee", "ranged", "damage", "tn"):
        raise ValueError(f"kind is 'melee', 'ranged', 'damage' or 'tn', got {kind!r}")
    conds = normalise(conditions)
    out = []
    if "death_sentence" in conds and kind in ("melee", "ranged", "damage"):
        out.append(("Death Sentence (p.43)", +1))
    if "prone" in conds and kind == "tn":
        out.append(("target Prone (p.31)", -1))
    return out


def traits_gained(conditions: Mapping[str, Any] | None) -> frozenset[str]:
    """Traits the conditions give: Berserk Aggressive; Frightened and Held Defensive.
    (Aggressive and Defensive together cancel, p.48: the caller applies that.)"""
    conds = normalise(conditions)
    return frozenset(t for n in conds for t in CONDITIONS[n].traits)


def blocks_los(conditions: Mapping[str, Any] | None) -> bool:
    """False for a Prone model (p.45): it does not block LoS."""
    return all(CONDITIONS[n].blocks_los for n in normalise(conditions))


def los_only_in_btb(conditions: Mapping[str, Any] | None) -> bool:
    """Blind (p.43): the model draws LoS only to models in BtB (and so its ZoC, project
    ruling 5, reaches only models in BtB): ``Body(blind=True)`` in the geometry."""
    return "blind" in normalise(conditions)


def zoc_ignorable_by_enemies(conditions: Mapping[str, Any] | None) -> bool:
    """Enemy models may ignore this model's ZoC: Prone (p.45), Disguised (p.44)."""
    return any(CONDITIONS[n].zoc_ignorable for n in normalise(conditions))


def contact_ignorable_by_enemies(conditions: Mapping[str, Any] | None) -> bool:
    """Enemy models may declare actions as if not in BtB with this model: Prone (p.45),
    Immobilised (p.44)."""
    return any(CONDITIONS[n].contact_ignorable for n in normalise(conditions))


def strikes_second(conditions: Mapping[str, Any] | None, *, stood_up: bool = False) -> bool:
    """Prone: always strikes second in an exchange and gets no Initiative effects (p.45);
    not when the exchange follows its own Stand Up (``stood_up``: -1 Melee instead)."""
    return "prone" in normalise(conditions) and not stood_up


def no_special_attacks(conditions: Mapping[str, Any] | None) -> bool:
    """No Special Attacks or Defences: Prone (p.45), Immobilised (p.44)."""
    return any(CONDITIONS[n].no_special for n in normalise(conditions))


def can_be_moved(conditions: Mapping[str, Any] | None) -> bool:
    """Held (p.44): it cannot move or be moved, except changing facing."""
    return "held" not in normalise(conditions)


def can_fire(conditions: Mapping[str, Any] | None, weapon_has_reload: bool) -> bool:
    """Reloading (p.45): no ranged attack with a weapon that has Reload."""
    return not (weapon_has_reload and "reloading" in normalise(conditions))


def generates_ki(conditions: Mapping[str, Any] | None) -> bool:
    """Spirit Block (p.45): no Ki tokens in the Ki generation step."""
    return "spirit_block" not in normalise(conditions)


def can_spend_tokens(conditions: Mapping[str, Any] | None) -> bool:
    """Controlled (p.43): the controlling player cannot spend or remove the model's tokens
    (so no Ki feat or boost that costs Ki); it still generates Ki."""
    return "controlled" not in normalise(conditions)


# ----------------------------------------------------------------------- Wait
@dataclass(frozen=True)
class WaitOption:
    """One effect a Wait action may choose (p.25, line 692-700): ``remove`` maps a
    condition to the number of markers removed (``None``: all of them)."""

    key: str
    label: str
    remove: tuple[tuple[str, int | None], ...]


def removed_by_wait(conditions: Mapping[str, Any] | None, *, friendly: bool = False) -> list[WaitOption]:
    """The condition options of a Wait action for a model with ``conditions`` (p.25):
    remove all Stunned; remove all Immobilised; remove up to 2 On Fire; remove one
    Reloading marker -- only those the model has. (The list also has card effects and
    Destructible terrain, which are not conditions.) ``friendly``: the Wait is taken by a
    friendly model in BtB, which may only remove two Fire markers (p.44, line 1327).
    A Wait removes one option only."""
    conds = normalise(conditions)
    out = []
    if not friendly:
        if "stunned" in conds:
            out.append(WaitOption("stunned", "remove all Stunned markers", (("stunned", None),)))
        if "immobilised" in conds:
            out.append(WaitOption("immobilised", "remove all Immobilised markers", (("immobilised", None),)))
    if "on_fire" in conds:
        out.append(WaitOption("on_fire", "remove up to 2 On Fire markers", (("on_fire", 2),)))
    if "reloading" in conds and not friendly:
        out.append(WaitOption("reloading", "remove one Reloading marker", (("reloading", 1),)))
    return out


def apply_wait(conditions: Mapping[str, Any] | None, option: WaitOption | str) -> dict[str, Any]:
    """The conditions after the Wait ``option`` (an option or its key). Fire markers are
    removed highest first (the player's best choice)."""
    key = option.key if isinstance(option, WaitOption) else option
    conds = normalise(conditions)
    for opt in removed_by_wait(conds):
        if opt.key == key:
            for name, n in opt.remove:
                conds = remove_condition(conds, name, n)
            return conds
    raise ConditionError(f"the Wait option {key!r} does not apply (options: "
                         f"{', '.join(o.key for o in removed_by_wait(conds)) or 'none'})")


# ----------------------------------------------------------------------- End phase
def end_phase_damage(kind: str, marker_values: Iterable[int]) -> tuple[list[int], int]:
    """End phase damage of Bleed, Poisoned or On Fire markers (p.43-45).

    Remove the marker with the highest value and take that many wounds; then, while the
    model still has three or more markers of that kind, repeat; it stops when two are
    left (a model with one or two markers only loses its highest). Returns
    ``(removed values, total wounds before Tough/Durable)``. ``[2, 2, 1]`` ->
    ``([2], 2)``; ``[3, 2, 2, 1]`` -> ``([3, 2], 5)``.
    """
    name = canonical(kind)
    if name not in DAMAGING:
        raise ConditionError(f"{kind!r} deals no End phase damage (Bleed, Poisoned, On Fire)")
    left = sorted((int(v) for v in marker_values), reverse=True)
    if not left:
        return [], 0
    removed = [left.pop(0)]
    while len(left) >= 3:
        removed.append(left.pop(0))
    return removed, sum(removed)


def end_phase_wounds(kind: str, marker_values: Iterable[int], *, tough: int = 0,
                     durable: bool = False) -> tuple[list[int], int]:
    """:func:`end_phase_damage` with Tough (X) and Durable applied to each removal (each
    removal is one instance of damage). On Fire ignores Tough (p.44); Durable (after
    Tough) still applies. Returns ``(removed values, wounds)``."""
    removed, _ = end_phase_damage(kind, marker_values)
    fire = canonical(kind) == "on_fire"
    total = 0
    for v in removed:
        w = v if fire else max(0, v - tough)
        if durable and w > 1:
            w = 1
        total += w
    return removed, total


def end_phase_expiry(conditions: Mapping[str, Any] | None) -> dict[str, int]:
    """Markers that expire in the End phase (step 3, p.21): ``{name: markers removed}``.
    Berserk: all (p.43); Blind: all (p.43); Stunned: one (p.45). (Frightened needs a test:
    :func:`end_phase_tests`; Bleed/Poisoned/On Fire: :func:`end_phase_damage`.)"""
    conds = normalise(conditions)
    out = {}
    for name in conds:
        rule = CONDITIONS[name].end_phase
        if rule == "all":
            out[name] = _count_value(conds[name])
        elif rule == "one":
            out[name] = 1
    return out


def apply_end_phase_expiry(conditions: Mapping[str, Any] | None) -> dict[str, Any]:
    """The conditions after :func:`end_phase_expiry`."""
    conds = normalise(conditions)
    for name, n in end_phase_expiry(conds).items():
        conds = remove_condition(conds, name, n)
    return conds


def end_phase_tests(conditions: Mapping[str, Any] | None) -> list[tuple[str, int]]:
    """Tests the End phase asks for: Frightened re-takes the Fear test at the highest TN
    met since it became Frightened (the condition's value); success removes all its markers
    (p.44). Returns ``[("frightened", tn)]`` or ``[]``."""
    conds = normalise(conditions)
    if "frightened" in conds:
        v = conds["frightened"]
        tn = max(_as_list(v)) if isinstance(v, (list, tuple)) else _count_value(v)
        return [("frightened", tn)]
    return []


def frightened_auto_fails_fear(conditions: Mapping[str, Any] | None, phase: str) -> bool:
    """Frightened models automatically fail Fear tests in the Main phase (p.44)."""
    return phase == "main" and "frightened" in normalise(conditions)


# ----------------------------------------------------------------------- Starting phase
@dataclass(frozen=True)
class StartPhase:
    """What a model's conditions do in the Starting phase.

    generates_ki: False with Spirit Block (step 2). remove: markers removed
    (``{name: n}``): one Spirit Block at the end of the Ki generation step, one Diseased
    (step 5). counters_lost: activation counters removed by Diseased (after step 3 gave
    two). death_sentence_option: the model may spend 3 Ki to remove one Death Sentence.
    """

    generates_ki: bool
    remove: dict = field(default_factory=dict)
    counters_lost: int = 0
    death_sentence_option: bool = False


DEATH_SENTENCE_REMOVAL_COST = 3


def start_phase_effects(conditions: Mapping[str, Any] | None, *, ki: int | None = None) -> StartPhase:
    """Starting phase effects (p.43-45): Spirit Block (no Ki, then one marker removed),
    Diseased (one marker and one activation counter), Death Sentence (may pay 3 Ki to
    remove one marker; offered when ``ki`` is None or >= 3 and the model may spend)."""
    conds = normalise(conditions)
    remove = {}
    if "spirit_block" in conds:
        remove["spirit_block"] = 1
    lost = 0
    if "diseased" in conds:
        remove["diseased"] = 1
        lost = 1
    option = ("death_sentence" in conds and can_spend_tokens(conds)
              and (ki is None or ki >= DEATH_SENTENCE_REMOVAL_COST))
    return StartPhase("spirit_block" not in conds, remove, lost, option)


# ----------------------------------------------------------------------- gaining, losing
def remove_condition(conditions: Mapping[str, Any] | None, name: str, n: int | None = None) -> dict[str, Any]:
    """The conditions with ``n`` markers of ``name`` removed (``None``: all). Valued
    markers are removed highest first."""
    key = canonical(name)
    if key is None:
        raise ConditionError(f"unknown condition {name!r}")
    conds = normalise(conditions)
    if key not in conds:
        return conds
    v = conds[key]
    total = _count_value(v)
    if n is None or n >= total:
        del conds[key]
    elif isinstance(v, (list, tuple)):
        conds[key] = sorted(v, reverse=True)[n:]
    elif isinstance(v, int) and not isinstance(v, bool) and CONDITIONS[key].stacks:
        conds[key] = total - n
    elif n > 0:
        del conds[key]
    return conds


def gain_condition(conditions: Mapping[str, Any] | None, name: str, n: int = 1, *,
                   value: int | str | None = None, immune: Iterable[str] = ()) -> dict[str, Any]:
    """The conditions after the model gains ``n`` markers of ``name``.

    * ``immune``: the model's Immune [..] condition names and traits that give immunity
      (``sixth_sense`` -> Blind, ``intangible`` -> Held/Immobilised, ``agile`` -> Held,
      ``fearless`` -> Frightened): nothing is gained;
    * Bleed/Poisoned/On Fire: ``n`` markers of ``value`` (default 1);
    * Disguised (X): the value is X (not stacking; the higher X is kept);
    * Frightened: the value is the Fear TN; the highest is kept (p.44, End phase test);
    * Held: the value is the holder's id (one marker);
    * Prone: one marker at most;
    * Berserk: also gives one Impetuous marker (p.43);
    * Controlled: a model already Controlled loses one marker per marker gained instead
      (p.43).
    """
    key = canonical(name)
    if key is None:
        raise ConditionError(f"unknown condition {name!r} (known: {', '.join(sorted(CONDITIONS))})")
    if n < 0:
        raise ConditionError("cannot gain a negative number of markers")
    conds = normalise(conditions)
    immune = tuple(immune)
    c = CONDITIONS[key]
    if any(canonical(i) == key for i in immune) or set(c.immune_traits) & {trait_key(str(i)) for i in immune}:
        return conds
    if n == 0:
        return conds
    if key in DAMAGING:
        conds[key] = sorted(_as_list(conds.get(key, [])) + [int(value if value is not None else 1)] * n, reverse=True)
    elif key in ("disguised", "frightened"):
        new = int(value if value is not None else 1)
        old = conds.get(key)
        conds[key] = max(new, _count_value(old) if not isinstance(old, list) else max(old)) if old else new
    elif key == "held":
        conds[key] = value if value is not None else 1
    elif key == "controlled" and key in conds:
        conds = remove_condition(conds, key, n)
    elif not c.stacks:
        conds[key] = 1
    else:
        conds[key] = _count_value(conds.get(key)) + n
    if key == "berserk":
        conds = gain_condition(conds, "impetuous", 1, immune=immune)
    return conds


def on_healed(conditions: Mapping[str, Any] | None, healed: int) -> dict[str, Any]:
    """Bleed (p.43): healing any marked wound removes all Bleed markers."""
    conds = normalise(conditions)
    if healed > 0:
        conds.pop("bleed", None)
    return conds


# ----------------------------------------------------------------------- single conditions
IMMOBILISED_SIZE_TN = 6


def immobilised_test_needed(conditions: Mapping[str, Any] | None, action_kind: str, *,
                            moves: bool = False) -> bool:
    """An Immobilised model declaring Melee, Run, Charge, Scenario, Stand Up, Heal or any
    action that includes movement (a change of facing too) first takes a Size (6) test
    (p.44): failure ends the action as completed (counters spent); success removes all
    Immobilised markers. ``moves``: the declared action includes a walk/turn (Shoot or a
    Ki feat with its walk, Disengage's walk, a Walk)."""
    if "immobilised" not in normalise(conditions):
        return False
    return action_kind in MOVING_ACTIONS or moves


def held_released(*, in_btb_with_holder: bool, holder_in_exchange_with_other: bool = False,
                  disengaged_from_holder: bool = False) -> bool:
    """Held ends (p.44) when the held model is no longer in BtB with the holder, the holder
    takes part in an exchange with another model, or the held model Disengages from the
    holder successfully."""
    return (not in_btb_with_holder) or holder_in_exchange_with_other or disengaged_from_holder


def controlled_after(conditions: Mapping[str, Any] | None, *, counters_removed: int = 0,
                     exchange_without_counter: bool = False) -> dict[str, Any]:
    """Controlled (p.43): one marker is removed per activation counter removed from the
    model, or for an exchange it takes part in without losing a counter. The model goes
    back to its warband when no marker is left."""
    n = max(0, counters_removed) + (1 if exchange_without_counter else 0)
    return remove_condition(conditions, "controlled", n) if n else normalise(conditions)


def impetuous_blocks_activation(model_conditions: Mapping[str, Any] | None,
                                warband_conditions: Iterable[Mapping[str, Any] | None]) -> bool:
    """Impetuous (p.44): while any model of the warband has an Impetuous marker, models
    without one may not activate. ``warband_conditions``: the conditions of every model of
    the warband that is on the table (alive); the model itself may be among them."""
    if "impetuous" in normalise(model_conditions):
        return False
    return any("impetuous" in normalise(c) for c in warband_conditions)


def impetuous_after_action(conditions: Mapping[str, Any] | None, counters_spent: int) -> dict[str, Any]:
    """Impetuous (p.44): remove one Impetuous marker when the model spends any activation
    counters after an action."""
    if counters_spent > 0:
        return remove_condition(conditions, "impetuous", 1)
    return normalise(conditions)


def disguise_requirement(target_conditions: Mapping[str, Any] | None, enemy_ki_stat: int) -> tuple[str, int] | None:
    """What an enemy needs to shoot, use a Ki feat on, target or voluntarily contact a
    Disguised (X) model (p.44): ``("forbidden", X)`` for an enemy with Ki <= 1,
    ``("ki_test", X)`` (a Ki challenge test, TN X, once in range / once it has enough
    movement to reach BtB) for Ki >= 2, None when the model is not Disguised. A passed
    test removes the Disguised marker; a failed one ends the activation before any move,
    the counters spent as if the action were completed."""
    conds = normalise(target_conditions)
    if "disguised" not in conds:
        return None
    x = _count_value(conds["disguised"]) if not isinstance(conds["disguised"], list) else max(conds["disguised"])
    return ("forbidden", x) if enemy_ki_stat <= 1 else ("ki_test", x)


def disguise_lost_by(action_kind: str, *, in_exchange: bool = False) -> bool:
    """A Disguised model loses its marker when it declares Melee, Ranged (Shoot), Charge
    or a Scenario action, or takes part in an exchange (p.44)."""
    return in_exchange or action_kind in ("melee", "shoot", "charge", "scenario", "complex_scenario")
