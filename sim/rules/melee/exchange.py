"""The melee exchange itself (Melee Attacks p.33-37, steps 1-15): :func:`resolve_exchange`.

It faces the models, takes their Initiative, pools and allocations
(:mod:`sim.rules.melee.pools`), rolls and re-rolls, compares attack with defence, plays
the winner's special (Special abilities p.39-42; moves by
:func:`sim.rules.special.special_move` when a table is given), rolls damage (the wound
table p.38), lets the Defender strike back and counts the activation counters; it returns
an :class:`~sim.rules.melee.results.ExchangeResult` and mutates nothing.

Order in which the engine takes dice from ``dice`` (so :class:`~sim.rules.dice.PhysicalDice`
can replay a real exchange):

1. step 7a -- the model with Initiative: its attack dice, then its defence dice; then the
   other model: attack dice, then defence dice;
2. step 7b -- re-rolls, in the order of :func:`sim.rules.dice.reroll_order` (the model
   without Initiative on the other's dice, then on its own; then the model with
   Initiative on the other's dice, then on its own), one die per re-rolled die;
3. steps 10-12 -- damage rolls as they happen (2 dice each, 3 with Strong/Weak/Assassin):
   the first comparison's damage (or Counterstrike) first, Combo rolls in turn, then the
   second comparison's.

The readings where the rulebook is silent or ambiguous are listed in the package's
docstring (:mod:`sim.rules.melee`).
"""

from __future__ import annotations

import dataclasses
import math

from sim.geometry import CONTACT, EPS
from sim.geometry.primitives import heading
from sim.rules.dice import (
    Dice,
    RollKind,
    RollOptions,
    RollPurpose,
    RollResult,
    compare_results,
    evaluate_roll,
    reroll_order,
)
from sim.rules.melee.combatant import Combatant, check_pair
from sim.rules.melee.pools import Allocation, initiative_reason, melee_pools, validate_allocation
from sim.rules.melee.results import (
    Comparison,
    DamageEvent,
    ExchangeResult,
    Marker,
    MeleeReroll,
    PendingMove,
    SideRolls,
    Step,
    wound_markers,
)
from sim.rules.melee.sides import SIDES, MeleeError, Side, other_side
from sim.rules.melee.specials import SpecialOption, SpecialRule
from sim.rules.special import special_move
from sim.rules.wounds import apply_wounds, damage_rules, resolve_damage

# --------------------------------------------------------------------------- resolution

_STEP_NAMES = {
    1: "Face", 2: "Weapons", 3: "Initiative", 4: "Pools", 5: "Allocation", 6: "Reveal",
    7: "Roll", 8: "Final results", 9: "Void specials", 10: "Compare", 11: "Ki feats",
    12: "Damage", 13: "Swap", 14: "Activation counters", 15: "Boosts expire",
}


class _Exchange:
    """Mutable scratch state of one :func:`resolve_exchange` call (never escapes)."""

    def __init__(self, a: Combatant, b: Combatant, dice: Dice, table) -> None:
        self.c: dict[Side, Combatant] = {"a": a, "b": b}
        self.dice = dice
        self.table = table
        self.log: list[Step] = []
        self.damage: list[DamageEvent] = []
        self.wounds = {a.id: 0, b.id: 0}
        self.gained: dict[str, set[str]] = {a.id: set(), b.id: set()}
        self.removed: dict[str, str] = {}
        self.moves: list[PendingMove] = []
        self.markers: list[Marker] = []
        self.in_contact = True
        self.charge_used = {"a": False, "b": False}
        self.wounds_left = {"a": a.wounds_left, "b": b.wounds_left}
        self.no_attack: set[Side] = set()
        self.halving_blocked: set[str] = set()

    def add(self, number: int, detail: str) -> None:
        self.log.append(Step(number, _STEP_NAMES[number], detail))

    def side_of(self, model_id: str) -> Side | None:
        for s, m in self.c.items():
            if m.id == model_id:
                return s
        return None

    def gain(self, model_id: str, condition: str) -> bool:
        s = self.side_of(model_id)
        if s is not None and not self.c[s].can_gain(condition):
            return False
        if model_id not in self.gained:
            self.gained[model_id] = set()
        self.gained[model_id].add(condition)
        return True

    def newly_prone(self, side: Side) -> bool:
        return "prone" in self.gained[self.c[side].id]

    # -- damage ------------------------------------------------------------------------
    def damage_roll(self, by: Side, sl: int, source: str, *, powerful: bool = False,
                    halved: bool = False, critical: bool = False) -> DamageEvent | None:
        roller, target = self.c[by], self.c[other_side(by)]
        if "made:counter_instead" in roller.damage_rules:  # round 6 (F4): a Ki feat (Nerve Strike)
            self.add(12, f"{source}: no damage roll by {roller.id}: {target.id} removes an activation counter "
                         "instead (a Ki feat)")
            return None
        w = roller.weapon
        bonus = 0
        if roller.charge and not self.charge_used[by]:
            bonus = 2
            self.charge_used[by] = True
        strength = w.strength + (3 if powerful else 0)
        mods = bonus + roller.damage_modifier + (1 if target.has("death_sentence") else 0)
        strong, weak = roller.effective_strong, roller.effective_weak
        if roller.assassin and target.has("surprised"):
            strong, weak = True, False  # Assassin: 3 dice, keep two, ignoring Strong/Weak (p.49)
        purpose = RollPurpose(RollKind.DAMAGE, roller.id, target.id, None if source == "attack" else source)
        rules = damage_rules(roller.damage_rules, target.damage_rules, critical=critical,
                             wounds_left=self.wounds_left[other_side(by)])  # round 6 (F4): Ki feats
        res = resolve_damage(self.dice, sl, strength=strength, modifiers=mods, strong=strong, weak=weak,
                             armour=target.armour, pierce=w.trait_value("pierce"), tough=target.tough,
                             sharp=w.trait_value("sharp"), durable=target.durable, halved=halved,
                             purpose=purpose, rules=rules)
        is_crit = critical and res.roll.is_double and not res.ignored  # round 6 (F4): a roll set aside
        ev = DamageEvent(roller.id, target.id, source, sl, bonus, halved, res, is_crit)
        self.damage.append(ev)
        self.wounds[target.id] += res.wounds
        parts = [f"{roller.id} rolls {list(res.roll.dice)}"]
        if len(res.roll.dice) > 2:
            parts.append(f"keeps {list(res.roll.kept)}")
        detail = (f"{source}: " + " ".join(parts) + f" {res.roll.modifier:+d}"
                  f" (Strength {strength:+d}" + (", Charge +2" if bonus else "") +
                  (f", Armour -{max(0, target.armour - w.trait_value('pierce'))}" if target.armour else "") +
                  f") = {res.roll.total} at success level {sl}: {res.table_wounds} on the table")
        if res.wounds != res.table_wounds:
            detail += f", {res.wounds} marked" + (" (halved)" if halved else "") + \
                (f" (Tough {target.tough})" if target.tough else "") + (" (Durable)" if target.durable else "")
        if res.note:  # round 6 (F4): a Ki feat changed the roll
            detail += f" ({res.note})"
        detail += f" -> {target.id} takes {res.wounds} wound(s)"
        if res.wounds > 0:
            for mk in wound_markers(w, target.id, immune=target.immune):  # Immune [..], Soulless (p.53, p.58)
                self.markers.append(mk)
                if mk.kind in ("poison", "fire", "bleed"):
                    detail += f"; {target.id} gains {mk.count} {mk.kind} marker(s)" + \
                        (f" ({mk.value})" if mk.value else "")
        left = self.wounds_left[other_side(by)]
        if left is not None:
            left -= res.wounds
            self.wounds_left[other_side(by)] = left
            if left <= 0 and target.id not in self.removed:
                self.removed[target.id] = "killed"
                detail += f"; {target.id} is Killed"
        if is_crit and target.id not in self.removed:
            self.removed[target.id] = "critical"
            detail += f"; Critical Attack: the dice match, {target.id} is removed from play"
        self.add(12, detail)
        return ev

    def special_wound(self, by: Side, rule: SpecialRule) -> None:
        """One wound on ``by``'s enemy because ``by`` applied special ``rule`` successfully (a
        Ki feat's rider on its special: Choke Hold); Tough and Durable apply (p.51, p.58)."""
        target = self.c[other_side(by)]
        if target.id in self.removed:
            return
        n = apply_wounds(1, tough=target.tough, durable=target.durable)
        self.wounds[target.id] += n
        detail = f"{rule.name} applied by {self.c[by].id}: {target.id} takes {n} wound(s)"
        left = self.wounds_left[other_side(by)]
        if left is not None:
            left -= n
            self.wounds_left[other_side(by)] = left
            if left <= 0:
                self.removed[target.id] = "killed"
                detail += f"; {target.id} is Killed"
        self.add(12, detail)

    # -- moves ---------------------------------------------------------------------------
    def play_move(self, rule: SpecialRule, att: Side, dfn: Side, direction: float | None) -> None:
        A, D = self.c[att], self.c[dfn]
        move, mover_role = rule.move, rule.mover
        assert move is not None and mover_role is not None  # called for a special with a move
        if self.table is None:
            pm = PendingMove(move, A.id, D.id, direction)
            self.moves.append(pm)
            mover = {"attacker": A, "defender": D, "both": None}[mover_role]
            if rule.breaks_contact and mover is not None and not mover.immovable:
                self.in_contact = False
            self.add(10, f"{rule.move}: {A.id} (attacker), {D.id} (defender) -- to be played by the game"
                         + ("" if self.in_contact else "; they leave contact"))
            return
        res = special_move(self.table, A.id, D.id, move, direction)
        self.moves.append(PendingMove(move, A.id, D.id,
                                      res.direction if res.direction is not None else direction, res))
        for mid in res.prone:
            self.gain(mid, "prone")
        self.halving_blocked |= set(res.damage_not_halved)
        self.table = _table_after(self.table, res)
        self.in_contact = _in_contact(self.table, A.id, D.id)
        moved = ", ".join(f"{k} {m.distance:.2f}\"" for k, m in res.moves.items())
        self.add(10, f"{rule.move}: moved {moved or 'nothing'}"
                     + (f"; Prone: {', '.join(res.prone)}" if res.prone else "")
                     + ("" if self.in_contact else f"; {A.id} and {D.id} are no longer in contact"))

    # -- one comparison (steps 10-12) ------------------------------------------------------
    def compare(self, att: Side, dfn: Side, rolls: dict[Side, SideRolls], specials, allocs,
                active: Side) -> tuple[Comparison, bool]:
        """Steps 10-12 for ``att`` striking ``dfn``. Returns the comparison and whether to go
        on to step 13 (``True``) or straight to step 14."""
        A, D = self.c[att], self.c[dfn]
        fa, fd = rolls[att].attack.final, rolls[dfn].defence.final
        ca, cd = rolls[att].counted, rolls[dfn].counted
        w, tie = compare_results(fa, ca, fd, cd, "a" if active == att else "b")
        winner = att if w == "a" else dfn
        sl = abs(fa - fd)
        comp = Comparison(A.id, D.id, fa, fd, self.c[winner].id, sl, tie)
        tie_txt = {None: "", "dice": " (tie: more dice, attack and defence counted together)",
                   "active": " (tie: the active model wins)"}[tie]
        who = "attack hits" if winner == att else "defence holds"
        self.add(10, f"{A.id} attacks {fa} against {D.id}'s defence {fd}: the {who}{tie_txt}, "
                     f"success level {sl}")
        if winner == att:
            return comp, self._attack_wins(att, dfn, sl, specials[att], allocs[att])
        return comp, self._defence_wins(att, dfn, sl, specials[dfn], allocs)

    def _attack_wins(self, att: Side, dfn: Side, sl: int, option: SpecialOption | None,
                     alloc: Allocation) -> bool:
        A, D = self.c[att], self.c[dfn]
        rule = None
        if option is not None and option.kind == "attack" and alloc.attack > 0:
            rule = option.rule
            if rule is None:
                self.add(10, f"{option.text} succeeds: its effect is on {A.id}'s card (not automated)")
        no_damage = alloc.attack == 0
        powerful = halved = critical = combo = dual = False
        if rule is not None:
            self.add(10, f"{rule.name} succeeds")
            if rule.removes == "enemy" and (D.insignificant or D.soulless):
                # "удалите из игры не-Незначительную, не-Бездушную цель" (p.41)
                self.add(10, f"{D.id} is {'Insignificant' if D.insignificant else 'Soulless'}: Ivory Prison "
                             "does not remove it")
            elif rule.removes == "enemy":
                self.removed.setdefault(D.id, "ivory-prison")
                self.add(10, f"{D.id} is removed from play and replaced by a Prone Kairai under "
                             f"{A.id}'s controller (Ivory Prison)")
            elif rule.removes == "both":
                if D.gokusatsu or D.weapon.special("gokusatsu-attack") is not None:
                    self.add(10, f"{D.id} also has Gokusatsu Attack: no effect on either model")
                else:
                    self.removed.setdefault(A.id, "gokusatsu")
                    self.removed.setdefault(D.id, "gokusatsu")
                    self.add(10, f"both {A.id} and {D.id} are removed from play (Gokusatsu)")
            self.enemy_effects(rule, att, dfn, D.id, alloc.direction)
            if rule.key in A.special_wounds:  # a Ki feat: one wound when it applies the special (Choke Hold)
                self.special_wound(att, rule)
            if rule.enemy_condition and rule.key == "grapple-attack":
                self.no_attack.add(dfn)
            no_damage = no_damage or (rule.no_damage and rule.key not in A.damaging_specials)
            powerful = rule.key == "powerful-attack"
            halved = rule.halves and D.id not in self.halving_blocked
            critical = rule.key == "critical-attack"
            combo = rule.key == "combo-attack"
            dual = rule.key == "dual-attack"  # catalogue: one more damage roll at the same level
        if A.weapon.has_trait("entangling") and not no_damage:
            no_damage = True
            if self.gain(D.id, "immobilised"):
                self.add(10, f"Entangling: {D.id} is Immobilised instead of taking damage")
        self.add(11, "Ki feats of the two models may be declared here (not modelled)")
        if alloc.attack == 0:
            self.add(12, f"{A.id} allocated no attack dice: no damage roll (step 8a)")
        elif no_damage:
            self.add(12, f"{rule.name if rule else 'the attack'}: no damage roll")
        elif D.id in self.removed:
            self.add(12, f"{D.id} is no longer on the table: no damage roll")
        elif D.damage_cancelled:  # Sacrifice (p.57) / Protected (p.56): a friend removed instead
            self.add(12, f"no damage roll against {D.id}: {D.damage_cancelled}")
        else:
            self.damage_roll(att, sl, "attack", powerful=powerful, halved=halved, critical=critical)
            if dual and D.id not in self.removed:
                self.damage_roll(att, sl, "dual")
            if combo:
                level = sl - 2
                while level >= 0 and D.id not in self.removed:
                    self.damage_roll(att, level, "combo")
                    level -= 2
                if sl in (0, 1) and D.id not in self.removed:
                    self.damage_roll(att, 0, "combo")
        return self._goes_on(dfn)

    def _defence_wins(self, att: Side, dfn: Side, sl: int, option: SpecialOption | None,
                      allocs: dict[Side, Allocation]) -> bool:
        A, D = self.c[att], self.c[dfn]
        if option is not None and option.kind == "defence" and allocs[dfn].defence > 0:
            rule = option.rule
            if rule is None:
                self.add(10, f"{option.text} succeeds: its effect is on {D.id}'s card (not automated)")
            else:
                self.add(10, f"{rule.name} succeeds")
                if rule.key == "counterstrike-defence":
                    if allocs[att].attack == 0:
                        self.add(10, f"{A.id} allocated no attack dice: Counterstrike does nothing")
                    elif sl - 2 < 0:
                        self.add(10, f"success level {sl} - 2 < 0: no Counterstrike damage")
                    elif A.damage_cancelled:  # Sacrifice (p.57) / Protected (p.56)
                        self.add(12, f"no Counterstrike damage roll against {A.id}: {A.damage_cancelled}")
                    else:
                        self.damage_roll(dfn, sl - 2, "counterstrike")
                elif rule.key == "eagles-flight-defence":
                    self.moves.append(PendingMove("eagles-flight", A.id, D.id))
                    self.add(10, f"{D.id} may move 3\" after the exchange")
                elif rule.key == "web-defence":  # catalogue special: the enemy may not move
                    self.moves.append(PendingMove("web-defence", A.id, D.id))
                    self.add(10, f"{A.id} may not move until the end of the current activation")
                self.enemy_effects(rule, att, dfn, A.id, allocs[dfn].direction)
                if rule.key in D.special_wounds:  # a Ki feat: one wound when it applies the special (Choke Hold)
                    self.special_wound(dfn, rule)
        return self._goes_on(dfn)

    def enemy_effects(self, rule, att: Side, dfn: Side, victim: str, direction: float | None) -> None:
        """Step 10a/10b: what a successful special does to the other model -- its move,
        knocking it Prone (unless a move on the table already did), its condition."""
        if rule.move:
            self.play_move(rule, att, dfn, direction)
        if rule.enemy_prone and not (self.table is not None and rule.move):
            if self.gain(victim, "prone"):
                self.add(10, f"{victim} is knocked Prone")
            else:
                self.add(10, f"{victim} cannot be knocked Prone (Immune/Immovable)")
        if rule.enemy_condition and self.gain(victim, rule.enemy_condition):
            self.add(10, f"{victim} becomes {rule.enemy_condition.capitalize()}")

    def _goes_on(self, dfn: Side) -> bool:
        """Steps 10b/12: carry on to step 13 unless a model was removed, the two left
        contact, or the Defender was knocked down in this exchange."""
        if self.removed:
            return False
        if not self.in_contact:
            return False
        if self.newly_prone(dfn):
            return False
        return True


def _table_after(table, res):
    """A copy of ``table`` with the moved models' positions and Prone states updated."""
    pos = res.positions()
    prone = set(res.prone)
    models = tuple(dataclasses.replace(m, position=pos.get(m.id, m.position), prone=m.prone or m.id in prone)
                   for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _in_contact(table, x: str, y: str) -> bool:
    mx, my = table.model(x), table.model(y)
    gap = math.dist(mx.position, my.position) - mx.radius - my.radius
    return gap <= CONTACT + EPS


def face_each_other(table, a: str, b: str, immovable: dict[str, bool] | None = None):
    """``table`` with models ``a`` and ``b`` turned to face each other, as at step 1 of
    their exchange (p.33); a model whose ``immovable`` entry is True keeps its facing.
    Raises KeyError for a model not on ``table``."""
    return _face(table, a, b, immovable or {})[0]


def _face(table, a: str, b: str, immovable: dict[str, bool]) -> tuple[object, dict[str, float]]:
    facings: dict[str, float] = {}
    ma, mb = table.model(a), table.model(b)
    for m, o in ((ma, mb), (mb, ma)):
        if immovable.get(m.id):
            facings[m.id] = float(m.facing)
        else:
            facings[m.id] = heading(o.position[0] - m.position[0], o.position[1] - m.position[1])
    models = tuple(dataclasses.replace(m, facing=facings[m.id]) if m.id in facings else m for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[]), facings


def _roll_side(values: list[int], modifier: int, options: RollOptions, initial, rerolls) -> RollResult:
    return evaluate_roll(values, modifier, options, initial=initial, rerolls=rerolls)


def resolve_exchange(a: Combatant, b: Combatant, alloc_a: Allocation, alloc_b: Allocation, dice: Dice,
                     *, table=None) -> ExchangeResult:
    """Play one melee exchange, steps 1-15 (p.34-35), and return what happened.

    ``a``, ``b``: the two models (exactly one active); ``alloc_a``, ``alloc_b``: their
    secret allocations, checked with :func:`validate_allocation` against the pools of
    :func:`melee_pools`; ``dice``: where every die comes from (order in the module
    docstring); ``table``: a :class:`sim.table.Table` holding both ids -- then the models
    turn to face each other, special moves are played with
    :func:`sim.rules.special.special_move` and contact is measured; without it the moves
    are returned for the game to play.

    Per step: 1 face; 2 weapons (non-active first); 3 Initiative (:func:`initiative_reason`);
    4 pools; 5 allocations (costs paid); 6 specials revealed; 7 roll, re-roll, remove dice
    (Impenetrable Defence, Unblockable); 8 final results (highest + up to two supporting dice
    + Brutal on attack if attack dice were allocated, Parry on defence; 0 with no dice left);
    9 specials without dice of their kind are void; 10 the Attacker's attack against the
    Defender's defence (ties: more dice counting attack and defence together, then the
    active model); 10a/10b the winner's special; 11 Ki feats (not modelled); 12 damage roll;
    13 the Defender strikes back unless a model was removed, contact was lost, the Defender
    was knocked down or Grappled; 14 each model removes one activation counter (not a
    Tireless non-active model); 15 boosts expire.

    Raises :class:`MeleeError` / :class:`AllocationError` for bad input,
    :class:`~sim.rules.dice.DiceError` when the dice source runs out,
    :class:`~sim.rules.special.SpecialMoveError` for an impossible move direction, and
    ``KeyError`` when a ``table`` lacks one of the models.
    """
    check_pair(a, b)
    ex = _Exchange(a, b, dice, table)
    c = ex.c
    active: Side = "a" if a.active else "b"
    nonactive = other_side(active)
    allocs: dict[Side, Allocation] = {"a": alloc_a, "b": alloc_b}

    # step 1
    facings: dict[str, float] = {}
    if table is not None:
        if not _in_contact(table, a.id, b.id):
            raise MeleeError(f"{a.id} and {b.id} are not in base contact: no melee exchange (step 7a)")
        ex.table, facings = _face(table, a.id, b.id, {a.id: a.immovable, b.id: b.immovable})
        ex.add(1, "; ".join(f"{k} faces {v:.1f} deg" for k, v in facings.items()))
    else:
        turning = [m.id for m in (a, b) if not m.immovable]
        ex.add(1, (" and ".join(turning) + " turn to face each other") if turning else "both are Immovable: no turning")
    for m in (a, b):
        if m.immovable:
            ex.add(1, f"{m.id} is Immovable and does not turn (p.53)")
    # step 2
    ex.add(2, f"{c[nonactive].id} (not active) fights with {c[nonactive].weapon.name}, "
              f"then {c[active].id} with {c[active].weapon.name}")
    # step 3
    leader, why = initiative_reason(a, b)
    other = other_side(leader)
    ex.add(3, f"{c[leader].id} has the Initiative ({why}); {c[other].id} declares effects first")
    # step 4
    pa, pb, expl = melee_pools(a, b)
    pools: dict[Side, int] = {"a": pa, "b": pb}
    ex.add(4, "; ".join(expl))
    # step 5
    specials: dict[Side, SpecialOption | None] = {}
    for s in SIDES:
        specials[s] = validate_allocation(c[s], pools[s], allocs[s])
        sp = specials[s]
        cost = (f", pays {sp.cost} dice for {sp.text}" if sp.cost else f", uses {sp.text} (no dice)") if sp else ""
        ex.add(5, f"{c[s].id} secretly allocates {allocs[s].attack} attack and {allocs[s].defence} defence{cost}")
    # step 6
    declared = [(c[s].id, specials[s]) for s in (other, leader)]
    ex.add(6, "; ".join(f"{mid}: {sp.text if sp else 'no special'}" for mid, sp in declared))

    # step 7a: roll, the Initiative model first
    values: dict[Side, dict[str, list[int]]] = {}
    for s in (leader, other):
        me, them = c[s].id, c[other_side(s)].id
        values[s] = {"attack": dice.roll(allocs[s].attack, RollPurpose(RollKind.MELEE_ATTACK, me, them)),
                     "defence": dice.roll(allocs[s].defence, RollPurpose(RollKind.MELEE_DEFENCE, me, them))}
    initial = {s: {k: tuple(v) for k, v in values[s].items()} for s in values}
    ex.add(7, "; ".join(f"{c[s].id} rolls attack {list(initial[s]['attack'])}, defence "
                        f"{list(initial[s]['defence'])}" for s in (leader, other)))
    # step 7b: re-rolls in the order of Tests p.28
    rerolls: list[MeleeReroll] = []
    for by, on in reroll_order(leader):
        rel = "own" if by == on else "enemy"
        for src in c[by].reroll_sources():
            if src.on != rel:
                continue
            picks = src.pick(tuple(values[on]["attack"]), tuple(values[on]["defence"]))
            if not picks:
                continue
            new = dice.roll(len(picks), RollPurpose(RollKind.MELEE_REROLL, c[by].id, c[on].id, src.name))
            for (kind, i), v in zip(picks, new):
                r = MeleeReroll(c[by].id, src.name, c[on].id, kind, i, values[on][kind][i], v)
                rerolls.append(r)
                values[on][kind][i] = v
                ex.add(7, f"{c[by].id} re-rolls {c[on].id}'s {kind} die {r.old} -> {v} ({src.name})")
    # dice removed (Impenetrable Defence p.54, Unblockable p.58); Kata, Adept (p.48, p.54)
    rolls: dict[Side, SideRolls] = {}
    for s in SIDES:
        m, e = c[s], c[other_side(s)]
        drop_att = 1 if e.impenetrable_defence else 0
        drop_def = e.unblockable_value
        if drop_att and values[s]["attack"]:
            ex.add(7, f"{m.id} removes its highest attack die ({e.id}'s Impenetrable Defence)")
        if drop_def and values[s]["defence"]:
            ex.add(7, f"{m.id} removes its {drop_def} highest defence dice ({e.id}'s Unblockable ({drop_def}))")
        brutal = m.brutal_value if allocs[s].attack > 0 else 0
        parry = m.parry_against(e)
        if m.bonus_if_enemy_rerolls and any(rr.by == e.id and rr.on == e.id for rr in rerolls):
            brutal, parry = brutal + m.bonus_if_enemy_rerolls, parry + m.bonus_if_enemy_rerolls
            ex.add(7, f"{e.id} re-rolled its own dice: {m.id} adds {m.bonus_if_enemy_rerolls} to its attack and "
                      "defence results (a Ki feat)")
        opts_att = RollOptions(adept=m.adept if "attack" in m.adept_on else 0, keep_ones=m.kata, drop_highest=drop_att)
        opts_def = RollOptions(adept=m.adept if "defence" in m.adept_on else 0, keep_ones=m.kata,
                               drop_highest=drop_def)
        att_r = tuple(rr for rr in rerolls if rr.on == m.id and rr.kind == "attack")
        def_r = tuple(rr for rr in rerolls if rr.on == m.id and rr.kind == "defence")
        rolls[s] = SideRolls(
            _roll_side(values[s]["attack"], brutal, opts_att, initial[s]["attack"], att_r),
            _roll_side(values[s]["defence"], parry, opts_def, initial[s]["defence"], def_r))
    # step 8
    for s in (leader, other):
        sr = rolls[s]
        extra = []
        if sr.attack.modifier:
            extra.append(f"Brutal {sr.attack.modifier:+d}")
        if sr.defence.modifier:
            extra.append(f"Parry {sr.defence.modifier:+d}")
        ones = len(sr.attack.removed_ones) + len(sr.defence.removed_ones)
        ex.add(8, f"{c[s].id}: attack {sr.attack.final}, defence {sr.defence.final}"
                  + (f" ({', '.join(extra)})" if extra else "") + (f"; {ones} one(s) removed" if ones else ""))
    # step 9
    void = 0
    for s in (leader, other):
        sp = specials[s]
        if sp and sp.kind == "attack" and allocs[s].attack == 0:
            ex.add(9, f"{c[s].id} allocated no attack dice: {sp.text} cannot trigger")
            void += 1
        if sp and sp.kind == "defence" and allocs[s].defence == 0:
            ex.add(9, f"{c[s].id} allocated no defence dice: {sp.text} cannot trigger")
            void += 1
    if not void:
        ex.add(9, "no declared special lacks dice of its kind")

    # steps 10-13
    comparisons: list[Comparison] = []
    att, dfn = leader, other
    for pass_no in (1, 2):
        comp, goes_on = ex.compare(att, dfn, rolls, specials, allocs, active)
        comparisons.append(comp)
        if pass_no == 2:
            break
        if not goes_on:
            reason = ("a model was removed" if ex.removed else "they are no longer in contact" if not ex.in_contact
                      else f"{c[dfn].id} was knocked down")
            ex.add(13, f"{c[dfn].id} does not strike back: {reason}")
            break
        if dfn in ex.no_attack:
            ex.add(13, f"{c[dfn].id} is Held by a Grapple Attack and may not attack in this exchange")
            break
        ex.add(13, f"{c[dfn].id} becomes the Attacker")
        att, dfn = dfn, att

    # step 14
    counters: dict[str, int] = {}
    for s in SIDES:
        m = c[s]
        n = 1
        if m.tireless and not m.active:
            n = 0
        if not m.removes_counter:
            n = 0
        counters[m.id] = n
    ex.add(14, "; ".join(f"{k} removes {v} activation counter(s)" for k, v in counters.items()))
    ex.add(15, "Ki boosts used for the exchange expire")

    positions: dict[str, tuple[float, float]] = {}
    if ex.table is not None:
        moved = {a.id, b.id}
        for pm in ex.moves:
            if pm.result is not None:
                moved.update(pm.result.moves)
        for mid in sorted(moved):
            positions[mid] = tuple(ex.table.model(mid).position)
    return ExchangeResult(
        initiative=c[leader].id,
        pools={c[s].id: pools[s] for s in SIDES},
        allocations={c[s].id: allocs[s] for s in SIDES},
        specials={c[s].id: specials[s] for s in SIDES},
        rolls={c[s].id: rolls[s] for s in SIDES},
        rerolls=tuple(rerolls),
        comparisons=tuple(comparisons),
        damage=tuple(ex.damage),
        wounds=dict(ex.wounds),
        conditions={k: frozenset(v) for k, v in ex.gained.items() if v},
        removed=dict(ex.removed),
        moves=tuple(ex.moves),
        markers=tuple(ex.markers),
        counters=counters,
        in_contact=ex.in_contact and not ex.removed,
        positions=positions,
        facings=facings,
        log=tuple(ex.log),
    )
