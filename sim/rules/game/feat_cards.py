"""Ki feats that change a model's card, move its condition markers or its activation
counters (round 6, helper F5; p.24, p.43-47): the ``form`` and ``transfer`` ops of the feat
effects data (:mod:`sim.rules.feat_effects`) and the round 6 forms of ``counter``.

* **form** (Shapeshift): the model is replaced by its other form -- the card named as its
  own with the other of the op's two ``forms`` (``Kota - Human Form`` <-> ``Kota - Fox
  Form``). The new card is the model's printed card from then on (a ``card_form`` event keeps
  its id in the mark :data:`FORM_MARK` and sets the model's Ki statistic, Ki limit and wound
  boxes from it): statistics, traits, weapons, Ki feats, Size and Move (its table model) are
  the new card's. It stays where it stands, facing as it did, with its marked wounds, markers,
  tokens, Ki (within the new Ki limit), activation counters and effects (the card: "transfer
  marked wounds, state markers, enhancement and any tokens"; counters and effects are read
  as staying with the model in play: docs/rulings-project.md, rulings_F5). The feat is
  refused and not offered when no other-form card is known (``get_profile``) or when the two
  cards' bases differ (the model would not fit where it stands).
* **transfer** (Whipping Boy, Curse of Retribution): condition markers of the op's names move
  from one model to another, each with its value; a marker the receiver is immune to leaves
  the giver and is not gained; ``wound_each`` -- the receiver marks a wound box per marker
  gained.
* **no_specials** ``own: true`` (Warding Shōmyō, Dance of the Water Spider): the affected
  model may declare no special attack or defence at all, in a melee exchange (its secret
  allocation, p.33) or with a shot (p.39), until the op's duration ends (an Aura's: while it
  is inside, p.47); an effect whose source ends with :data:`OWN_NO_SPECIALS`.
* Entry fields: ``target_self`` (a Target feat the user may also use on itself, its keyword
  filters reaching the other models only: Citrus Fruit Ration), ``max_damage`` (usable only
  while the user has at most that many marked wound boxes: Inflated Reputation),
  ``x_target_ki`` (X is the target's Ki statistic: offered so, refused otherwise: Strip
  Soul); ``target_rice: equal`` (Rivalry) is judged with the other rice filters.
* **grant_weapon** ``name`` (Slice, Strangulation: one weapon of the card gains the traits or
  specials), **special_cost** (Chudan: its specials cost 0; Buki Manipulation: its Buki 23's
  special attacks cost 1 less) and **boost** (Mamba's Stride, Focusing Shōmyō: a Ki boost box
  gained): effects on the card (:mod:`sim.rules.effects` keys ``weapon_name``,
  ``special_cost``, ``boosts``), with a duration, or read while inside an Aura.
* **choice** ``by: opponent`` (Pay Your Dues, Final Verdict): when the feat resolves, the
  enemy target's player picks the option: the game waits (a trigger mark on the target, its
  player to move) for ``Action("feat_later", target, feat=..., option=i)``, which cannot be
  declined; the option's ops then apply to the target as the user's. An option that only
  gives the user Ki tokens (``take_ki``) is not offered to a model without one, nor one that
  only takes counters from a model without any. Entry field ``target_on_objective``: the
  target touches a scenario objective or stands in a scenario zone (Territorial);
  ``defending``: an exchange feat only for the defender of an exchange an enemy initiated
  (Outfox).
* **on_feat** (Fresh Fallen Snow, Spiritual Poison): a mark (:data:`ON_FEAT_MARK`) on the
  affected model, or an Aura's reach: when the model uses a Ki feat (it is paid,
  :meth:`FeatCards.feat_use_reactions`, called by the Ki step), the op's effects apply to
  it; ``once`` ends the mark then; ``ban`` bars that feat until the end of the following
  turn (:data:`BAN_MARK`, :meth:`FeatCards.feat_ban_refusal`).
* **heal_rule** (Prayer of Healing, Prayer of Purification): a mark (:data:`HEAL_MARK`) that
  changes the model's Heal (X) (p.52) until its duration: ``reach`` -- it heals a model within
  that many inches without a move into contact; ``markers`` -- the Heal action may name, in
  its ``models``, up to X condition markers of those kinds (one name per marker) that the
  target loses instead of healing wounds.
* **on_action** (Kannagara): a mark (:data:`ACT_MARK`) on the model: when it begins an
  activation declaring an action not of the op's ``not_kinds`` while it has no ``unless``
  marker, the op's effects apply to it when that activation ends (the action resolved).
* **chosen** (Steal Vitality, in ``effects_self``): its ops reach one more model the player
  names in the action's ``models``: a friend (the user included), an enemy or any model within
  the op's range of the user; offered with the friend with the fewest counters, nearest first.
* **steal** (Vicious Imitation): a mark (:data:`STEAL_MARK`) on the model until its duration;
  while it fights a melee exchange, the enemy of that exchange loses the named traits (its
  weapons' too) and the model gains the ones the enemy had, with their values
  (:meth:`FeatCards.steal_effects`, read by ``Game.profile`` while an exchange is open).
* **versus** (Stiletto): a mark (:data:`VS_MARK`); while the model fights a melee exchange
  with an enemy matching the op's keywords (a condition such as Surprised, a type, a trait),
  it has the op's traits and weapon traits (read with ``steal``).
* **lose_type** (Genki): the card loses type keywords until a duration (effect key
  ``lose_types``); a Charging Bonus gained by a feat now acts like a printed one.
* **forbid** (Tears for the Dead): a mark (:data:`FORBID_MARK`): until its duration the model
  may not declare actions of the op's kinds (judged with the other declaration rules, and not
  offered).
* **next_shot** (Surge): a mark (:data:`NEXT_MARK`): the named ranged weapon has the op's
  Strength change and weapon traits (special attacks included) until the model's next ranged
  attack with it is made (read by ``Game.profile``; spent by ``ShootingStep._shoot``).
* **special_against** (Headshot): a mark (:data:`SA_MARK`): its ranged weapons have the op's
  special attacks (read by ``Game.profile``), declared with a Shoot only at an enemy of the
  op's keywords (refused and not offered otherwise).
* **protect** (Irokane Protection): a mark (:data:`PROT_MARK`): the weapons used in attacks on
  the model lose Pierce (to a minimum of 0): a melee exchange's enemy (read with ``steal``) and
  a shooter (:meth:`FeatCards.protected_weapon`, called by the shot).
* **grant_choice** (Elders' Aegis): a trait made with the player's pick among the op's
  choices (the action's ``option`` indexes them; offered with a state the target has now).
* **group** (Coin, in ``effects_self``): when the feat is used its ops reach the models of
  its Pulse or Aura (the user included) of a side and keywords of its own.
* **contest** (Alacrity): the opponent may cancel the feat by having an enemy model pay Ki to
  the user (a waiting ``feat_later``: option 0 lets it be, option 1 with the paying model as
  ``target``); not cancelled, its ops apply; cancelled, the feat still counts as used.
* **if_enemy** (Prison Fight, Hostility): a mark (:data:`IFE_MARK`): once both allocations of
  the model's exchange are made, it has the op's traits if the enemy's allocation put no dice
  in attack / declared no special (read with ``steal`` when the exchange is resolved).
* **after_exchange** (Low Blow): a mark (:data:`AFTER_MARK`) until the exchange ends; when
  the enemy allocates without a Melee Ki boost (an ``allocated`` event) it is noted, and the
  op's effects hit it once the exchange is resolved.
* **counter** ``n: all`` (every counter removed: Time Skip) and ``up_to`` (a gain that stops
  at that many: Time Reversal).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any

from models.profiles import Profile, get_profile
from models.traits import trait_key
from sim.geometry import Size
from sim.rules import conditions, ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.effects import effect_problem, effective_profile, merge_weapon_traits
from sim.rules.feat_effects import (
    AfterExchangeOp,
    BoostOp,
    ChoiceOp,
    ChosenOp,
    ContestOp,
    CounterOp,
    FeatEffect,
    ForbidOp,
    FormOp,
    GrantChoiceOp,
    GrantWeaponOp,
    GroupOp,
    HealRuleOp,
    IfEnemyOp,
    LoseTypeOp,
    NextShotOp,
    OnActionOp,
    OnFeatOp,
    ProtectOp,
    SpecialAgainstOp,
    SpecialCostOp,
    StealOp,
    TakeKiOp,
    TransferOp,
    VersusOp,
)
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.feat_moves import FeatMoves
from sim.rules.game.feat_triggers import LATER, TRIGGER_MARK, FeatTriggers
from sim.rules.game.state import ModelState

#: The mark (a key of ``ModelState.conditions``, no condition of p.43-45) that holds the id of
#: the card a ``form`` op made the model's printed card.
FORM_MARK = "feat_form"

#: Noted in the trigger mark of a choice the affected model's player makes (``choice`` ``by:
#: opponent``), with ``[user: id]`` and ``[x: n]``.
CHOOSE = "[its player chooses]"
#: Noted in the trigger mark of a ``contest`` (an enemy may cancel the feat by paying Ki), with
#: ``[user: id]``, ``[x: n]`` and ``[on: id]`` (the affected model).
CONTEST = "[may cancel]"

#: The mark of an ``on_feat`` op on a model: ``feat_onfeat:<feat>``, value JSON ``{"user", "x",
#: "until"}``; of a feat barred by one: ``feat_ban:<feat barred>``, value the last turn it is barred.
ON_FEAT_MARK = "feat_onfeat:"
BAN_MARK = "feat_ban:"
#: The mark of an ``on_action`` op: ``feat_onaction:<feat>``, value JSON ``{"user", "x", "until",
#: "pending"}`` (``pending``: an action it declared will bring the effects when it is resolved).
ACT_MARK = "feat_onaction:"
#: The mark of a ``steal`` op on its model: ``feat_steal:<feat>``, value JSON ``{"traits", "until"}``.
STEAL_MARK = "feat_steal:"
#: The mark of a ``versus`` op: ``feat_versus:<feat>``, value JSON (the op's fields).
VS_MARK = "feat_versus:"
#: The mark of a ``forbid`` op: ``feat_forbid:<feat>``, value JSON ``{"actions", "until"}``.
FORBID_MARK = "feat_forbid:"
#: The mark of a ``next_shot`` op: ``feat_nextshot:<feat>``, value JSON (the op's fields).
NEXT_MARK = "feat_nextshot:"
#: The mark of a ``special_against`` op: ``feat_against:<feat>``, value JSON (the op's fields).
SA_MARK = "feat_against:"
#: The mark of a ``protect`` op: ``feat_protect:<feat>``, value JSON ``{"pierce", "until"}``.
PROT_MARK = "feat_protect:"
#: The mark of an ``if_enemy`` op: ``feat_ifenemy:<feat>``, value JSON (the op's fields).
IFE_MARK = "feat_ifenemy:"
#: The mark of an ``after_exchange`` op: ``feat_afterx:<feat>``, value JSON ``{"user", "x",
#: "until", "hit"}`` (``hit``: the enemy whose allocation bought no boost).
AFTER_MARK = "feat_afterx:"
#: The mark of a ``heal_rule`` op: ``feat_heal:<feat>``, value JSON ``{"reach", "markers", "until"}``.
HEAL_MARK = "feat_heal:"
#: The effect source suffix of an Aura's ``on_feat`` op (read when a model inside uses a feat).
ON_FEAT = ": reacts to Ki feats used inside"

#: Conditions whose value is one number, not a count of markers (p.43-44).
_VALUED = ("frightened", "disguised")

#: The effect source suffix of a ``no_specials`` op with ``own: true`` (the model may declare
#: none of its own special attacks or defences).
OWN_NO_SPECIALS = ": no special attacks or defences of its own"


def card_effect_keys(op: Any) -> dict:
    """The :mod:`sim.rules.effects` keys of a round 6 (F5) op beside its traits:
    ``weapon_name`` of a named ``grant_weapon`` / ``special_cost``; ``special_cost``;
    ``boosts``."""
    out: dict = {}
    if isinstance(op, (GrantWeaponOp, SpecialCostOp)) and op.name:
        out["weapon_name"] = op.name
    if isinstance(op, SpecialCostOp):
        out["weapon"] = op.weapon
        out["special_cost"] = ({"set": op.set} if op.set is not None else {"add": op.add}) | {"kinds": list(op.kinds)}
    if isinstance(op, BoostOp):
        out["boosts"] = {op.stat: op.cost}
    return out


class FeatCards(FeatTriggers, FeatMoves):
    """The ``form`` and ``transfer`` ops, ``counter`` limits (see the module docstring)."""

    # ------------------------------------------------------------ form (Shapeshift)
    def form_card(self, mid: str) -> Profile | None:
        """The card a ``form`` op made ``mid``'s printed card (None: its table card)."""
        m = self.state.models.get(mid)
        pid = m.conditions.get(FORM_MARK) if m is not None else None
        if not isinstance(pid, str):
            return None
        key = (FORM_MARK, pid)
        if key not in self._cards:
            try:
                self._cards[key] = get_profile(pid)
            except KeyError:
                self._cards[key] = None
        return self._cards[key]

    def form_key(self, mid: str) -> str:
        """The id of ``mid``'s other-form card (``""``: its table card), for caches."""
        m = self.state.models.get(mid)
        pid = m.conditions.get(FORM_MARK) if m is not None else None
        return pid if isinstance(pid, str) else ""

    def form_table_model(self, tm: Any) -> Any:
        """Table model ``tm`` as its other-form card makes it (Size, Move, trait keywords,
        name, profile); ``tm`` itself without a form."""
        card = self.form_card(tm.id)
        if card is None:
            return tm
        return replace(tm, size=Size.parse(card.size), move=float(card.move) if card.move is not None else None,
                       traits=tuple(sorted(card.trait_keywords)), name=card.name, profile=card.id)

    def other_form(self, mid: str, op: FormOp) -> Profile | None:
        """The card ``mid`` turns into with ``op``: its card's name with the other of
        ``op.forms`` (``... - Human Form`` -> ``... - Fox Form``), or None."""
        card = self.printed_profile(mid)
        if card is None:
            return None
        for a, b in (tuple(op.forms), tuple(reversed(op.forms))):
            m = re.match(rf"^(.*?)\s*-\s*{re.escape(a)}\s*$", card.name, flags=re.IGNORECASE)
            if m is None:
                continue
            try:
                return get_profile(f"{m.group(1)} - {b}")
            except KeyError:
                return None
        return None

    def cards_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        """Why ``action`` may not use ``entry`` now because of the round 6 (F5) rules (None when
        it may): ``max_damage`` -- the user has more marked wound boxes; ``x_target_ki`` -- X
        is not the target's Ki statistic; ``form`` -- no other-form card with the same base."""
        ex = self.state.exchange
        if entry.defending and (ex is None or ex.get("defender") != m.id):
            return f"{f.name} is used in an exchange an enemy initiated with {m.id} (its defender)"
        if entry.max_damage is not None and m.damage > entry.max_damage:
            return (f"{f.name} may not be used with more than {entry.max_damage} marked wound boxes "
                    f"({m.id} has {m.damage})")
        why = self._chosen_refusal(m, f, entry, action) or self.pick_refusal(m, f, entry, action)
        if why:
            return why
        gc = self.grant_choice_op(entry)
        if gc is not None and action.option is not None and not 0 <= action.option < len(gc.choices):
            return f"{f.name}: option is one of 0-{len(gc.choices) - 1} ({', '.join(gc.choices)})"
        t = self.state.models.get(action.target or "")
        if entry.target_on_objective and t is not None and not self.on_objective(t.id):
            return f"{f.name}: {t.id} touches no scenario objective and stands in no scenario zone"
        if entry.x_target_ki and t is not None and action.x != t.ki_stat:
            return f"{f.name}: X is the Ki statistic of the target ({t.id}: {t.ki_stat}), not {action.x}"
        for op in entry.effects:
            if isinstance(op, FormOp):
                for mid in self.feat_affected(m, f, entry, action):
                    new = self.other_form(mid, op)
                    old = self.printed_profile(mid)
                    if new is None or old is None:
                        return (f"{f.name}: no card of {mid}'s other form ({' / '.join(op.forms)}) is known "
                                "(its catalogue's profiles are not loaded)")
                    if new.base != old.base:
                        return f"{f.name}: {new.name} has another base ({new.base} mm) than {old.name}"
        return None

    # ------------------------------------------------------------ one more model chosen
    def chosen_op(self, entry: FeatEffect) -> Any:
        """The entry's ``chosen`` op (in ``effects_self`` or ``effects``), or its ``transfer``
        ``pick`` op (both name models in the action's ``models``), or None."""
        return next((e for e in list(entry.effects_self) + list(entry.effects) if isinstance(e, ChosenOp)),
                    None) or self._pick_op(entry)

    def chosen_models(self, m: ModelState, op: ChosenOp) -> list[str]:
        """The models ``m``'s player may name for ``op`` now, the fewest counters and the
        nearest first."""
        st = self.state
        out = []
        for x in st.alive():
            side = "friend" if x.player == m.player else "enemy"
            if op.side not in ("any", side):
                continue
            gap = 0.0 if x.id == m.id else (math.dist(x.position, m.position) - self.table.model(x.id).radius
                                             - self.table.model(m.id).radius)
            if gap <= op.range + 1e-6:
                out.append((x.counters, gap, x.id))
        return [mid for _, _, mid in sorted(out)]

    def with_chosen(self, m: ModelState, entry: FeatEffect, offers: list[Action]) -> list[Action]:
        """``offers`` naming the default model of the entry's ``chosen`` op (none: unchanged)."""
        gc = self.grant_choice_op(entry)
        if gc is not None:  # grant_choice: offered with a state the target has
            return [replace(a, option=self._grant_choice_default(gc, a.target)) for a in offers]
        if self._pick_op(entry) is not None:  # transfer pick: the markers named (Martyr), the most X first
            top = max((int(a.x or 1) for a in offers), default=0)
            for x in range(top, 0, -1):
                picked = self.pick_default(m, entry, x)
                if picked:
                    return [replace(offers[0], x=x, models=picked)]
            return []
        op = self.chosen_op(entry)
        if not isinstance(op, ChosenOp):
            return offers
        got = self.chosen_models(m, op)
        return [replace(a, models=(got[0],)) for a in offers] if got else []

    def _chosen_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        op = self.chosen_op(entry)
        if not isinstance(op, ChosenOp):
            return None
        if len(action.models) != 1:
            return f"{f.name}: name the {op.side} model within {op.range:g}\" it reaches (models, one id)"
        if action.models[0] not in self.chosen_models(m, op):
            return f"{f.name}: {action.models[0]} is no {op.side} model within {op.range:g}\" of {m.id}"
        return None

    def apply_chosen(self, m: ModelState, f: ki.Feat, op: ChosenOp, action: Action) -> None:
        """The ``chosen`` op: its ops on the model the action names."""
        if not action.models or action.models[0] not in self.state.models:
            return
        mid = action.models[0]
        self._emit(Event("note", {"text": f"{f.name}: {m.id} chooses {mid}"}))
        for sub in op.effects:
            if self.state.models[mid].alive:
                self._apply_op(m, f, sub, mid, action)

    # ------------------------------------------------------------ a second group of the area
    def group_models(self, m: ModelState, f: ki.Feat, op: GroupOp, action: Action) -> list[str]:
        """The models of ``f``'s area now (the user included) that ``op``'s side and keywords
        reach."""
        from sim.rules.feat_effects import feat_effect

        entry = feat_effect(f.name)
        if entry is None:
            return []
        plain = entry.model_copy(update={"affects": "models_and_self", "target_keywords": [],
                                         "target_not_keywords": [], "target_rice": None})
        area = self.area_models(m, getattr(self, "sized_feat")(f, entry, action.x, m.id), plain)  # X ranges (F2)
        out = []
        for mid in area:
            if op.others and mid == m.id:
                continue
            x = self.state.models[mid]
            friend = x.player == m.player
            if op.side == "friend" and not friend or op.side == "enemy" and friend:
                continue
            view = view_of(self.profile(mid), friendly=friend, conditions=conditions.from_model(x))
            if op.keywords and not keyword_matches(", ".join(op.keywords), view):
                continue
            if any(keyword_matches(k, view) for k in op.not_keywords):
                continue
            out.append(mid)
        return out

    def apply_group(self, m: ModelState, f: ki.Feat, op: GroupOp, action: Action) -> None:
        """``op``'s ops on each model of its group."""
        for mid in self.group_models(m, f, op, action):
            for sub in op.effects:
                if self.state.models[mid].alive:
                    self._apply_op(m, f, sub, mid, action)

    # ------------------------------------------------------------ a trait made with the player's pick
    def grant_choice_op(self, entry: FeatEffect) -> GrantChoiceOp | None:
        """The entry's ``grant_choice`` op, or None."""
        return next((e for e in entry.effects if isinstance(e, GrantChoiceOp)), None)

    def _grant_choice_default(self, op: GrantChoiceOp, target: str | None) -> int:
        """The pick offered: the first choice naming a condition the target has now, else 0."""
        t = self.state.models.get(target or "")
        if t is not None:
            have = set(conditions.from_model(t))
            for i, c in enumerate(op.choices):
                if conditions.canonical(c) in have:
                    return i
        return 0

    def apply_grant_choice(self, f: ki.Feat, op: GrantChoiceOp, mid: str, action: Action) -> None:
        """``mid`` gains ``op``'s trait with the picked choice."""
        i = action.option if action.option is not None and 0 <= action.option < len(op.choices) else 0
        text = op.trait.replace("{choice}", op.choices[i])
        self._emit(Event("note", {"text": f"{f.name}: {action.model} picks {op.choices[i]}"}))
        self.grant(mid, f.name, op.until or "game", traits=[text])

    def on_objective(self, mid: str) -> bool:
        """Whether ``mid`` touches a scenario objective still in play or its whole base lies in
        a scenario zone (p.63)."""
        scenario = self.scenario
        if scenario is None:
            return False
        from sim.rules.scenario.placement import in_contact_with_objective, zone_contains_base

        st = self.scenario_state()
        removed = set(getattr(st, "removed", ()) or ())
        pos, r = self.state.models[mid].position, self.table.model(mid).radius
        return (any(o.id not in removed and in_contact_with_objective(pos, r, o) for o in scenario.objectives)
                or any(zone_contains_base(z, pos, r) for z in scenario.zones))

    def target_x(self, entry: FeatEffect, target: str, x: int | None) -> int | None:
        """The X a Target feat is offered with at ``target``: its Ki statistic when the
        entry's X is the target's (``x_target_ki``), else ``x``."""
        t = self.state.models.get(target)
        return int(t.ki_stat) if entry.x_target_ki and t is not None else x

    def apply_form(self, f: ki.Feat, op: FormOp, mid: str) -> None:
        """``mid`` becomes its other form (a ``card_form`` event)."""
        new = self.other_form(mid, op)
        if new is None:
            self._emit(Event("note", {"text": f"{f.name}: no other-form card for {mid}"}))
            return
        self._emit(Event("card_form", {"model": mid, "profile": new.id, "name": new.name,
                                       "ki_stat": int(new.ki if new.ki is not None else 1),
                                       "ki_limit": int(new.ki_limit if new.ki_limit is not None else 0),
                                       "wounds": int(new.wounds), "source": f.name}))

    # ------------------------------------------------------------ transfer
    def transfer_givers(self, user: str, op: TransferOp, mid: str) -> list[str]:
        """The models whose markers ``op`` moves: the affected model (``to: user``), or the
        user's friendly models within ``from_friends`` inches of it, the user included, the
        affected model left out (``to: affected``)."""
        if op.to == "user":
            return [mid] if mid != user else []
        st = self.state
        u = st.models[user]
        out = []
        for x in st.alive(u.player):
            if x.id == mid:
                continue
            gap = 0.0 if x.id == user else (math.dist(x.position, u.position) - self.table.model(x.id).radius
                                            - self.table.model(user).radius)
            if gap <= float(op.from_friends or 0) + 1e-9:
                out.append(x.id)
        return out

    def _units(self, mid: str, name: str) -> list[Any]:
        """The markers of condition ``name`` on ``mid``: one entry per marker (its value for
        Bleed / Poison / Fire, highest first; the number of Frightened / Disguised; None for a
        counted marker)."""
        key = conditions.canonical(name)
        if key is None:
            return []
        m = self.state.models[mid]
        if key in conditions.DAMAGING:
            return sorted(m.markers.get(conditions.DAMAGING[key], []), reverse=True)
        cur = conditions.from_model(m)
        if key not in cur:
            return []
        if key in _VALUED:
            return [conditions.value(cur, key)]
        return [None] * conditions.count(cur, key)

    def apply_transfer(self, m: ModelState, f: ki.Feat, op: TransferOp, mid: str, action: Action) -> None:
        """Move the markers of ``op`` (see :class:`~sim.rules.feat_effects.TransferOp`)."""
        x = int(action.x or 1)
        cap = None if op.n == "all" else (x if op.n == "X" else int(op.n))
        receiver = m.id if op.to == "user" else mid
        moved = gained = 0
        plan: list[tuple[str, str, list[Any]]] = []
        if op.pick:  # round 6 (F5): the markers the player named (Martyr)
            picks = self._picks(action)
            for giver, name in dict.fromkeys(picks):
                plan.append((giver, name, self._units(giver, name)[:picks.count((giver, name))]))
        else:
            for giver in self.transfer_givers(m.id, op, mid):
                for name in op.names:
                    units = self._units(giver, name)
                    if cap is not None:
                        units = units[:max(0, cap - moved)]
                    moved += len(units)
                    plan.append((giver, name, units))
        for giver, name, units in plan:
            if not units:
                continue
            self.remove_markers(giver, name, len(units))
            before = len(self._units(receiver, name))
            key = conditions.canonical(name)
            if key in conditions.DAMAGING:
                for v in units:
                    self._gain(receiver, name, 1, value=v)
            elif key in _VALUED:
                self._gain(receiver, name, 1, value=units[0])
            else:
                self._gain(receiver, name, len(units))
            got = len(self._units(receiver, name)) - before
            gained += max(0, got)
            self._emit(Event("note", {"text": f"{f.name}: {len(units)} {name} marker(s) move from {giver} to "
                                              f"{receiver}" + ("" if got >= len(units) else f" ({max(0, got)} "
                                                               "gained)")}))
        if op.wound_each and gained > 0 and self.state.models[receiver].alive:
            self._emit(Event("note", {"text": f"{f.name}: {receiver} marks {gained} wound box(es), one per marker "
                                              "gained"}))
            self._wound(receiver, gained)

    def _picks(self, action: Action) -> list[tuple[str, str]]:
        """``(model, condition)`` per marker the action's ``models`` names (``model:condition``)."""
        out = []
        for tok in action.models:
            mid, _, name = str(tok).partition(":")
            out.append((mid, conditions.canonical(name) or name))
        return out

    def _pick_op(self, entry: FeatEffect) -> TransferOp | None:
        return next((e for e in list(entry.effects) + list(entry.effects_self)
                     if isinstance(e, TransferOp) and e.pick), None)

    def pick_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        """Why the markers ``action`` names for a ``transfer`` ``pick`` are wrong (None when
        fine): ``n`` of them (X: the paid X), of the op's kinds, all from one other model
        within the feat's Pulse (X inches with ``range_x``) that has them."""
        op = self._pick_op(entry)
        if op is None:
            return None
        want = int(action.x or 1) if op.n == "X" else int(op.n)
        picks = self._picks(action)
        if len(picks) != want:
            return f"{f.name}: name {want} marker(s) as model:condition in models"
        givers = {g for g, _ in picks}
        if len(givers) != 1 or next(iter(givers)) not in self.state.models or m.id in givers:
            return f"{f.name}: the markers come from one other model"
        giver = next(iter(givers))
        reach = float(want) if entry.range_x else float(entry.range or 0)
        g = self.state.models[giver]
        gap = math.dist(g.position, m.position) - self.table.model(giver).radius - self.table.model(m.id).radius
        if not g.alive or gap > reach + 1e-6:
            return f"{f.name}: {giver} is not within the {reach:g}\" Pulse"
        kinds = {conditions.canonical(n) for n in op.names}
        for (gid, name) in set(picks):
            if name not in kinds:
                return f"{f.name} moves {', '.join(sorted(k for k in kinds if k))} markers, not {name}"
            if len(self._units(gid, name)) < picks.count((gid, name)):
                return f"{gid} has fewer than {picks.count((gid, name))} {name} marker(s)"
        return None

    def pick_default(self, m: ModelState, entry: FeatEffect, x: int | None) -> tuple[str, ...]:
        """The markers a ``transfer`` ``pick`` is offered with: the nearest other model in the
        Pulse that has enough of the op's kinds, its worst markers first (none found: ``()``)."""
        op = self._pick_op(entry)
        if op is None:
            return ()
        want = int(x or 1) if op.n == "X" else int(op.n)
        reach = float(want) if entry.range_x else float(entry.range or 0)
        order = ["controlled", "stunned", "blind", "spirit_block", "death_sentence", "immobilised", "on_fire",
                 "poisoned", "bleed", "frightened", "diseased", "berserk", "impetuous"]
        kinds = sorted({conditions.canonical(n) or n for n in op.names},
                       key=lambda k: order.index(k) if k in order else len(order))
        best: list[tuple[float, str]] = []
        for g in self.state.alive():
            if g.id == m.id:
                continue
            gap = math.dist(g.position, m.position) - self.table.model(g.id).radius - self.table.model(m.id).radius
            if gap <= reach + 1e-6:
                best.append((gap, g.id))
        for _, gid in sorted(best):
            names = [f"{gid}:{k}" for k in kinds for _ in self._units(gid, k)][:want]
            if len(names) == want:
                return tuple(names)
        return ()

    # ------------------------------------------------------------ no_specials own
    def own_specials_refusal(self, mid: str) -> str | None:
        """Why ``mid`` may declare no special attack or defence now (a ``no_specials`` op
        with ``own: true`` on it, or an Aura's while it is inside), or None."""
        m = self.state.models.get(mid)
        if m is None:
            return None
        effects = m.effects + self.aura_effects(mid)
        src = next((str(e["source"]) for e in effects if str(e.get("source", "")).endswith(OWN_NO_SPECIALS)), None)
        if src is None:
            return None
        return f"{src[:-len(OWN_NO_SPECIALS)]}: {mid} may use no special attacks or defences (p.39, p.46)"

    def apply_own_no_specials(self, mid: str, feat: str, until: str | None) -> None:
        """Model ``mid`` may use none of its special attacks or defences until ``until``."""
        self.grant(mid, feat + OWN_NO_SPECIALS, until or "game")

    # ------------------------------------------------------------ weapons, special costs, boosts
    def grant_card_effect(self, f: ki.Feat, op: Any, mid: str, x: int) -> None:
        """A named ``grant_weapon``, a ``special_cost`` or a ``boost`` op on ``mid``: one
        ``effect`` event until the op's duration (the rest of the game without one)."""
        from sim.rules.game.feat_step import _with_x  # the paid X in a trait text

        eff: dict = {"source": f.name, "until": op.until or "game"}
        if isinstance(op, GrantWeaponOp):
            eff["weapon_traits"], eff["weapon"] = [_with_x(t, x) for t in op.traits], op.weapon
        eff.update(card_effect_keys(op))
        problem = effect_problem(eff)
        if problem:
            raise ValueError(f"effect of {f.name} on {mid}: {problem}")
        self._emit(Event("effect", {"model": mid, **eff}))

    # ------------------------------------------------------------ a choice by the opponent
    def _choice_allowed(self, mid: str, op: ChoiceOp) -> list[int]:
        """The options of ``op`` model ``mid``'s player may pick: all but those that only
        hand Ki tokens over when it has none."""
        m = self.state.models[mid]
        return [i for i, opt in enumerate(op.options)
                if not (all(isinstance(o, TakeKiOp) for o in opt) and m.ki <= 0)
                and not (all(isinstance(o, CounterOp) and isinstance(o.n, int) and o.n < 0 for o in opt)
                         and m.counters <= 0)]

    def defer_choice(self, m: ModelState, f: ki.Feat, op: ChoiceOp, mid: str, action: Action) -> None:
        """A ``choice`` ``by: opponent`` on model ``mid``: its player picks the option now (a
        trigger mark on ``mid`` that waits for ``feat_later``); one option left applies at once."""
        allowed = self._choice_allowed(mid, op)
        labels = [op.labels[i] if op.labels else f"option {i + 1}" for i in range(len(op.options))]
        if len(allowed) <= 1:
            for i in allowed:
                self._emit(Event("note", {"text": f"{f.name}: {mid} can only take {labels[i]}"}))
                for sub in op.options[i]:
                    self._apply_op(m, f, sub, mid, action)
            return
        player = self.state.models[mid].player
        self._emit(Event("condition", {"model": mid, "name": TRIGGER_MARK + f.name, "on": True,
                                       "value": f"on {m.id}'s {f.name}: player {player} chooses "
                                                f"{' or '.join(labels[i] for i in allowed)} {CHOOSE} "
                                                f"[user: {m.id}] [x: {int(action.x or 1)}] {LATER}"}))

    def _payers(self, user: str, ki_n: int) -> list[str]:
        """The enemies of ``user`` that could pay ``ki_n`` Ki tokens now."""
        st = self.state
        return [x.id for x in st.alive(3 - st.models[user].player) if x.ki >= ki_n]

    def apply_contest(self, m: ModelState, f: ki.Feat, op: ContestOp, mid: str, action: Action) -> None:
        """A ``contest``: the opponent may cancel (a waiting choice on an enemy that could pay);
        no enemy could: its ops apply at once."""
        payers = self._payers(m.id, op.ki)
        if not payers:
            for sub in op.effects:
                if self.state.models[mid].alive:
                    self._apply_op(m, f, sub, mid, action)
            return
        self._emit(Event("condition", {"model": payers[0], "name": TRIGGER_MARK + f.name, "on": True,
                                       "value": f"on {m.id}'s {f.name}: player {self.state.models[payers[0]].player}"
                                                f" may cancel it for {op.ki} Ki {CONTEST} [user: {m.id}] "
                                                f"[x: {int(action.x or 1)}] [on: {mid}] {LATER}"}))

    def _contesting(self, mid: str, feat: str) -> dict | None:
        """``{"user", "x", "on"}`` of ``mid``'s waiting ``contest`` of ``feat`` (None: none)."""
        m = self.state.models.get(mid)
        v = str(m.conditions.get(TRIGGER_MARK + feat, "")) if m is not None else ""
        if CONTEST not in v:
            return None
        got = {k: re.search(rf"\[{k}: ([^\]]+)\]", v) for k in ("user", "x", "on")}
        return {k: (g.group(1) if g else "") for k, g in got.items()}

    def _contest_op(self, feat: str) -> ContestOp | None:
        entry = self.card_feat_entry_any(feat)
        return next((e for e in entry.effects if isinstance(e, ContestOp)), None)

    def _contest_offers(self, mid: str, feat: str) -> list[Action]:
        data, op = self._contesting(mid, feat), self._contest_op(feat)
        if data is None or op is None:
            return []
        return [Action("feat_later", mid, feat=feat, option=0)] + [
            Action("feat_later", mid, feat=feat, option=1, target=p) for p in self._payers(data["user"], op.ki)]

    def _contest_refusal(self, m: ModelState, action: Action) -> str | None:
        if action.option == 0 and action.target is None:
            return None
        if action.option == 1 and action.target in [a.target for a in self._contest_offers(m.id, action.feat or "")]:
            return None
        return f"{action.feat}: option 0 lets it be; option 1 cancels it, target the enemy that pays the Ki"

    def _resolve_contest(self, action: Action) -> None:
        assert action.model is not None and action.feat is not None  # judged legal
        data, op = self._contesting(action.model, action.feat), self._contest_op(action.feat)
        self.trigger_done(action.model, action.feat)
        if data is None or op is None:
            return
        st = self.state
        user = st.models.get(data["user"])
        f = self.feats(data["user"]).get(action.feat) if user is not None else None
        if user is None or f is None:
            return
        if action.option == 1 and action.target:
            self._emit(Event("note", {"text": f"{action.feat}: {action.target} pays {op.ki} Ki to {user.id}: the feat "
                                              "is cancelled (it still counts as used)"}))
            self._emit(Event("ki_change", {"model": action.target, "delta": -op.ki}))
            self._emit(Event("ki_change", {"model": user.id, "delta": op.ki}))
            return
        self._emit(Event("note", {"text": f"{action.feat}: player {st.models[action.model].player} lets it be"}))
        target = data["on"] if data["on"] in st.models else user.id
        act = Action("feat", user.id, feat=action.feat, x=int(data["x"] or 1))
        for sub in op.effects:
            if st.models[target].alive:
                self._apply_op(user, f, sub, target, act)

    def _choosing(self, mid: str, feat: str) -> dict | None:
        """``{"user", "x"}`` of ``mid``'s waiting choice of feat ``feat`` (None: none)."""
        m = self.state.models.get(mid)
        v = str(m.conditions.get(TRIGGER_MARK + feat, "")) if m is not None else ""
        if CHOOSE not in v:
            return None
        user = re.search(r"\[user: ([^\]]+)\]", v)
        x = re.search(r"\[x: (\d+)\]", v)
        return {"user": user.group(1) if user else "", "x": int(x.group(1)) if x else 1}

    def _choice_op(self, feat: str) -> ChoiceOp | None:
        entry = self.card_feat_entry_any(feat)
        return next((e for e in entry.effects if isinstance(e, ChoiceOp) and e.by == "opponent"), None)

    def decline_refusal(self, m: ModelState, action: Action) -> str | None:
        """A choice the opponent must make cannot be declined; else as the other steps say."""
        if action.feat and self._choosing(m.id, action.feat):
            return f"{action.feat}: player {m.player} must choose one of its options (option)"
        if action.feat and self._contesting(m.id, action.feat):
            return f"{action.feat}: player {m.player} lets it be (option 0) or cancels it (option 1, target the payer)"
        return super().decline_refusal(m, action)

    def trigger_actions(self) -> list[Action]:
        """While a choice by the opponent waits: one ``feat_later`` per option it may pick."""
        got = self.triggers_pending()
        if got and (self._choosing(got[0][0], got[0][1]) or self._contesting(got[0][0], got[0][1])):
            return self.later_offers(got[0][0], got[0][1])
        return super().trigger_actions()

    def later_offers(self, mid: str, feat: str) -> list[Action]:
        """A waiting choice: one ``Action("feat_later", mid, feat=..., option=i)`` per option."""
        if self._contesting(mid, feat):  # contest: let it be, or cancel with a payer
            return self._contest_offers(mid, feat)
        op = self._choice_op(feat) if self._choosing(mid, feat) else None
        if op is None:
            return super().later_offers(mid, feat)
        return [Action("feat_later", mid, feat=feat, option=i) for i in self._choice_allowed(mid, op)]

    def later_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why a waiting choice may not be answered with ``action.option`` (None when it may)."""
        if self._contesting(m.id, action.feat or ""):
            return self._contest_refusal(m, action)
        op = self._choice_op(action.feat or "") if self._choosing(m.id, action.feat or "") else None
        if op is None:
            return super().later_refusal(m, action)
        allowed = self._choice_allowed(m.id, op)
        if action.option not in allowed:
            return f"{action.feat}: choose one of the options {allowed} (option)"
        return None

    def resolve_later(self, action: Action) -> None:
        """The option the opponent chose: its ops on the chooser's model, as the user's feat."""
        if self._contesting(action.model or "", action.feat or ""):
            self._resolve_contest(action)
            return
        data = self._choosing(action.model or "", action.feat or "")
        op = self._choice_op(action.feat or "") if data else None
        if data is None or op is None:
            super().resolve_later(action)
            return
        assert action.model is not None and action.feat is not None and action.option is not None  # judged legal
        user = self.state.models.get(data["user"])
        f = self.feats(data["user"]).get(action.feat) if user is not None else None
        label = op.labels[action.option] if op.labels else f"option {action.option + 1}"
        self._emit(Event("note", {"text": f"{action.feat}: player {self.state.models[action.model].player} "
                                          f"chooses {label} for {action.model}"}))
        self.trigger_done(action.model, action.feat)
        if user is None or f is None:
            return
        act = Action("feat", user.id, feat=action.feat, target=action.model, x=data["x"])
        for sub in op.options[action.option]:
            if self.state.models[action.model].alive:
                self._apply_op(user, f, sub, action.model, act)

    # ------------------------------------------------------------ reactions to feats used
    def apply_on_feat(self, m: ModelState, f: ki.Feat, op: OnFeatOp, mid: str, action: Action) -> None:
        """Model ``mid`` carries ``f``'s ``on_feat`` reaction until ``op.until``."""
        value = json.dumps({"user": m.id, "x": int(action.x or 1), "until": op.until}, sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": ON_FEAT_MARK + f.name, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"{f.name}: the next time {mid} uses a Ki feat it is hit"
                                          + ("" if op.once else f" (until {op.until.replace('_', ' ')})")}))

    def _on_feat_op(self, feat: str) -> OnFeatOp | None:
        entry = self.card_feat_entry_any(feat)
        return next((e for e in entry.effects if isinstance(e, OnFeatOp)), None)

    def feat_use_reactions(self, mid: str, used: str) -> None:
        """Model ``mid`` has just used (paid) Ki feat ``used``: the ``on_feat`` reactions it
        carries, and those of the Auras it stands in, apply to it."""
        st = self.state
        m = st.models[mid]
        hits: list[tuple[str, str, int, bool]] = []  # (user, feat, x, a mark to end)
        for key, v in list(m.conditions.items()):
            if key.startswith(ON_FEAT_MARK):
                data = json.loads(str(v))
                hits.append((str(data["user"]), key[len(ON_FEAT_MARK):], int(data.get("x", 1)), True))
        if st.auras:  # an Aura's on_feat reaches the models inside it
            for e in self.aura_effects(mid):
                src = str(e.get("source", ""))
                if src.endswith(ON_FEAT):
                    feat = src[:-len(ON_FEAT)]
                    user = next((a["source"] for a in st.auras if a["feat"] == feat and a["player"] != m.player),
                                None)
                    if user is not None:
                        hits.append((user, feat, 1, False))
        for user, feat, x, marked in hits:
            op = self._on_feat_op(feat)
            u = st.models.get(user)
            f = self.feats(user).get(feat) if u is not None else None
            if op is None or u is None or f is None:
                continue
            self._emit(Event("note", {"text": f"{feat}: {mid} uses {used}"}))
            if marked and op.once:
                self._emit(Event("condition", {"model": mid, "name": ON_FEAT_MARK + feat, "on": False}))
            act = Action("feat", user, feat=feat, target=mid, x=x)
            for sub in op.effects:
                if st.models[mid].alive:
                    self._apply_op(u, f, sub, mid, act)
            if op.ban:
                self._emit(Event("condition", {"model": mid, "name": BAN_MARK + used, "on": True,
                                               "value": st.turn + 1}))
                self._emit(Event("note", {"text": f"{feat}: {mid} may not use {used} again until the end of turn "
                                                  f"{st.turn + 1}"}))

    def feat_ban_refusal(self, m: ModelState, f: ki.Feat) -> str | None:
        """Why ``m`` may not use feat ``f`` now because an ``on_feat`` ``ban`` bars it."""
        v = m.conditions.get(BAN_MARK + f.name)
        if isinstance(v, int) and not isinstance(v, bool) and self.state.turn <= v:
            return f"{m.id} may not use {f.name} again until the end of turn {v} (Ki feat reaction)"
        return None

    def card_marks_expire(self, until: str) -> None:
        """The duration ``until`` ends: at the end of an activation the pending ``on_action``
        reactions apply; ``on_feat`` / ``on_action`` / ``heal_rule`` marks lasting it go; at the
        end of a turn the bans of past turns go too."""
        if until == "activation":
            self._on_action_due()
        if until == "exchange":
            self._after_exchange_due()
        for m in list(self.state.models.values()):
            for key, v in list(m.conditions.items()):
                timed = key.startswith((ON_FEAT_MARK, HEAL_MARK, ACT_MARK, STEAL_MARK, VS_MARK, FORBID_MARK, SA_MARK,
                                        PROT_MARK, IFE_MARK, AFTER_MARK))
                gone = ((timed and json.loads(str(v)).get("until") == until)
                        or (key.startswith(BAN_MARK) and until == "turn" and isinstance(v, int)
                            and v <= self.state.turn))
                if gone:
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))

    # ------------------------------------------------------------ reactions to actions declared
    def apply_on_action(self, m: ModelState, f: ki.Feat, op: OnActionOp, mid: str, action: Action) -> None:
        """Model ``mid`` carries ``f``'s ``on_action`` reaction until ``op.until``."""
        value = json.dumps({"user": m.id, "x": int(action.x or 1), "until": op.until, "pending": False},
                           sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": ACT_MARK + f.name, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"{f.name}: until {op.until.replace('_', ' ')} each action {mid} declares"
                                          + (f" (not {', '.join(op.not_kinds)})" if op.not_kinds else "")
                                          + " brings the feat's effect once it is resolved"}))

    def _on_action_op(self, feat: str) -> OnActionOp | None:
        entry = self.card_feat_entry_any(feat)
        return next((e for e in entry.effects if isinstance(e, OnActionOp)), None)

    def card_activated(self, mid: str | None) -> None:
        """Model ``mid`` began an activation (declared its action): its ``on_action`` marks
        note the reaction due when the action is resolved, unless the action is of an
        excluded kind or it has the ``unless`` marker now."""
        m = self.state.models.get(mid or "")
        if m is None or not any(k.startswith(ACT_MARK) for k in m.conditions):
            return
        act = self._actions[-1] if self._actions and self._actions[-1].model == m.id else None
        kind = act.kind if act is not None else ""
        kind = {"complex_ki_feat": "ki_feat", "complex_scenario": "scenario"}.get(kind, kind)
        for key, v in list(m.conditions.items()):
            if not key.startswith(ACT_MARK):
                continue
            op = self._on_action_op(key[len(ACT_MARK):])
            if op is None or kind in op.not_kinds:
                continue
            if op.unless is not None and self.marker_count_f5(m.id, op.unless) > 0:
                continue
            data = json.loads(str(v)) | {"pending": True}
            self._emit(Event("condition", {"model": m.id, "name": key, "on": True,
                                           "value": json.dumps(data, sort_keys=True)}))

    def marker_count_f5(self, mid: str, name: str) -> int:
        """How many markers of condition ``name`` model ``mid`` has."""
        key = conditions.canonical(name)
        return len(self._units(mid, key)) if key is not None else 0

    def _on_action_due(self) -> None:
        """An activation ended: the pending ``on_action`` reactions apply to their models."""
        st = self.state
        for m in list(st.models.values()):
            for key, v in list(m.conditions.items()):
                if not key.startswith(ACT_MARK):
                    continue
                data = json.loads(str(v))
                if not data.get("pending"):
                    continue
                self._emit(Event("condition", {"model": m.id, "name": key, "on": True,
                                               "value": json.dumps(data | {"pending": False}, sort_keys=True)}))
                feat = key[len(ACT_MARK):]
                op = self._on_action_op(feat)
                u = st.models.get(str(data["user"]))
                f = self.feats(u.id).get(feat) if u is not None else None
                if op is None or u is None or f is None or not m.alive:
                    continue
                self._emit(Event("note", {"text": f"{feat}: {m.id}'s action is resolved"}))
                act = Action("feat", u.id, feat=feat, target=m.id, x=int(data.get("x", 1)))
                for sub in op.effects:
                    if st.models[m.id].alive:
                        self._apply_op(u, f, sub, m.id, act)

    # ------------------------------------------------------------ traits taken in an exchange
    def apply_steal(self, m: ModelState, f: ki.Feat, op: StealOp, mid: str) -> None:
        """Model ``mid`` takes ``op``'s traits from the enemies it fights until ``op.until``."""
        value = json.dumps({"traits": list(op.traits), "until": op.until, "gain": op.gain}, sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": STEAL_MARK + f.name, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"{f.name}: until {op.until.replace('_', ' ')} the enemies {mid} fights "
                                          f"lose {', '.join(op.traits)}" + (f" and {mid} gains them" if op.gain
                                                                            else "")}))

    def apply_if_enemy(self, f: ki.Feat, op: IfEnemyOp, mid: str) -> None:
        """Model ``mid`` has ``op``'s traits if its exchange enemy allocates so (until ``op.until``)."""
        data = op.model_dump(mode="json", exclude={"op"})
        self._emit(Event("condition", {"model": mid, "name": IFE_MARK + f.name, "on": True,
                                       "value": json.dumps(data, sort_keys=True)}))
        what = " and ".join((["puts no dice in attack"] if op.no_attack else [])
                            + (["declares no special"] if op.no_special else []))
        self._emit(Event("note", {"text": f"{f.name}: if the enemy {what}, {mid} has {', '.join(op.traits)}"}))

    def apply_after_exchange(self, m: ModelState, f: ki.Feat, op: AfterExchangeOp, mid: str,
                             action: Action) -> None:
        """Model ``mid`` carries ``f``'s ``after_exchange`` reaction until its exchange ends."""
        value = json.dumps({"user": m.id, "x": int(action.x or 1), "until": "exchange", "hit": None},
                           sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": AFTER_MARK + f.name, "on": True, "value": value}))

    def card_allocated(self, data: dict) -> None:
        """An allocation was made: an ``after_exchange`` mark of its enemy notes it when it
        bought no Melee Ki boost."""
        ex = self.state.exchange
        mid = str(data.get("model", ""))
        if ex is None or mid not in (ex.get("attacker"), ex.get("defender")):
            return
        other = ex["defender"] if mid == ex["attacker"] else ex["attacker"]
        o = self.state.models.get(other)
        if o is None:
            return
        for key, v in list(o.conditions.items()):
            if not key.startswith(AFTER_MARK):
                continue
            op = next((e for e in self.card_feat_entry_any(key[len(AFTER_MARK):]).effects
                       if isinstance(e, AfterExchangeOp)), None)
            if op is not None and (not op.no_boost or not int(data.get("boost") or 0)):
                self._emit(Event("condition", {"model": other, "name": key, "on": True,
                                               "value": json.dumps(json.loads(str(v)) | {"hit": mid},
                                                                   sort_keys=True)}))

    def _after_exchange_due(self) -> None:
        """The exchange ended: the noted ``after_exchange`` reactions hit their enemies."""
        st = self.state
        for m in list(st.models.values()):
            for key, v in list(m.conditions.items()):
                if not key.startswith(AFTER_MARK):
                    continue
                data = json.loads(str(v))
                hit = st.models.get(str(data.get("hit") or ""))
                feat = key[len(AFTER_MARK):]
                u = st.models.get(str(data["user"]))
                f = self.feats(u.id).get(feat) if u is not None else None
                op = next((e for e in self.card_feat_entry_any(feat).effects if isinstance(e, AfterExchangeOp)), None)
                if hit is None or u is None or f is None or op is None or not hit.alive:
                    continue
                self._emit(Event("note", {"text": f"{feat}: {hit.id} bought no Melee boost"}))
                act = Action("feat", u.id, feat=feat, target=hit.id, x=int(data.get("x", 1)))
                for sub in op.effects:
                    if st.models[hit.id].alive:
                        self._apply_op(u, f, sub, hit.id, act)

    def apply_versus(self, m: ModelState, f: ki.Feat, op: VersusOp, mid: str) -> None:
        """Model ``mid`` carries ``f``'s ``versus`` changes until ``op.until``."""
        data = op.model_dump(mode="json", exclude={"op"}) | {"until": op.until or "game"}
        self._emit(Event("condition", {"model": mid, "name": VS_MARK + f.name, "on": True,
                                       "value": json.dumps(data, sort_keys=True)}))
        self._emit(Event("note", {"text": f"{f.name}: in exchanges with {' or '.join(op.keywords)} enemies {mid} has "
                                          f"{', '.join(op.traits + op.weapon_traits)}"}))

    def steal_effects(self, mid: str) -> list[dict]:
        """The effects a ``steal`` mark gives now (an exchange is open): ``mid`` fights it and
        has the mark -- it gains the enemy's named traits with their values; the enemy of
        ``mid``'s exchange has the mark -- ``mid`` loses them."""
        ex = self.state.exchange
        if ex is None or mid not in (ex.get("attacker"), ex.get("defender")):
            return []
        other = ex["defender"] if mid == ex["attacker"] else ex["attacker"]
        me, foe = self.state.models.get(mid), self.state.models.get(other)
        if me is None or foe is None or me.player == foe.player:
            return []
        out: list[dict] = []
        for key, v in foe.conditions.items():
            if key.startswith(STEAL_MARK):
                data = json.loads(str(v))
                out.append({"source": key[len(STEAL_MARK):], "until": data["until"], "lose": list(data["traits"])})
        for key, v in me.conditions.items():
            if not key.startswith(STEAL_MARK):
                continue
            data = json.loads(str(v))
            card = self.printed_profile(other)
            if card is None or not data.get("gain", True):
                continue
            card = effective_profile(card, foe.effects)  # before it loses them (no read-time effects)
            want = {trait_key(t) for t in data["traits"]}
            texts = [t.text for t in card.traits if trait_key(t.keyword) in want]
            for w in card.weapons:
                if w.kind == "melee":
                    texts += [t for t in w.traits if trait_key(re.split(r"[\[(]", t, maxsplit=1)[0]) in want]
            if texts:
                out.append({"source": key[len(STEAL_MARK):], "until": data["until"], "traits": texts})
        loss = self._pierce_loss(other)  # protect: the weapons attacking the enemy lose Pierce
        if loss > 0:
            from sim.rules.ranged.weapons import trait_value

            card = self.printed_profile(mid)
            for w in (effective_profile(card, me.effects).weapons if card is not None else ()):
                have = int(trait_value(w, "pierce", 0) or 0)
                if w.kind == "melee" and have > 0:
                    out.append({"source": "attacks on " + other, "until": "activation", "weapon": "melee",
                                "weapon_name": w.name, "weapon_traits": [f"Pierce (-{min(loss, have)})"]})
        alloc = ex.get("allocations", {}).get(other)
        if alloc is not None:  # if_enemy: the enemy's allocation is revealed
            for key, v in me.conditions.items():
                if not key.startswith(IFE_MARK):
                    continue
                data = json.loads(str(v))
                attack, special = int(alloc[0]), alloc[2] if len(alloc) > 2 else None
                if (not data.get("no_attack") or attack == 0) and (not data.get("no_special") or not special):
                    out.append({"source": key[len(IFE_MARK):], "until": data["until"], "traits": list(data["traits"])})
        marks = [(k, json.loads(str(v))) for k, v in me.conditions.items() if k.startswith(VS_MARK)]
        if marks:  # versus: the enemy of the exchange matches the keywords (its conditions too: Surprised)
            seen = set(conditions.from_model(foe)) | {str(k) for k in foe.conditions}
            card = self.printed_profile(other)  # no read-time effects: two such marks must not recurse
            view = view_of(effective_profile(card, foe.effects) if card is not None else None, friendly=False,
                           conditions=seen)
            for key, data in marks:
                raw = any(k.strip().lower() in seen for k in data["keywords"])  # Surprised: no p.43-45 marker
                if not raw and not keyword_matches(", ".join(data["keywords"]), view):
                    continue
                eff: dict = {"source": key[len(VS_MARK):], "until": data["until"]}
                if data.get("traits"):
                    eff["traits"] = list(data["traits"])
                if data.get("weapon_traits"):
                    eff["weapon_traits"], eff["weapon"] = list(data["weapon_traits"]), data.get("weapon", "melee")
                    if data.get("name"):
                        eff["weapon_name"] = data["name"]
                out.append(eff)
        return out

    # ------------------------------------------------------------ the next ranged attack
    def apply_next_shot(self, f: ki.Feat, op: NextShotOp, mid: str) -> None:
        """Model ``mid``'s next ranged attack with ``op.name`` carries ``op``'s changes."""
        value = json.dumps(op.model_dump(mode="json", exclude={"op"}), sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": NEXT_MARK + f.name, "on": True, "value": value}))
        what = ([f"Strength {op.strength:+d}"] if op.strength else []) + list(op.weapon_traits)
        self._emit(Event("note", {"text": f"{f.name}: {mid}'s next {op.name} attack has {', '.join(what)}"}))

    def next_shot_effects(self, mid: str) -> list[dict]:
        """The read-time effects of ``mid``'s waiting ``next_shot`` marks."""
        m = self.state.models.get(mid)
        if m is None:
            return []
        out: list[dict] = []
        for key, v in m.conditions.items():
            if not key.startswith(NEXT_MARK):
                continue
            data = json.loads(str(v))
            eff: dict = {"source": key[len(NEXT_MARK):], "until": "game", "weapon": "ranged",
                         "weapon_name": data["name"]}
            if data.get("strength"):
                eff["stats"] = {"strength": int(data["strength"])}
            if data.get("weapon_traits"):
                eff["weapon_traits"] = list(data["weapon_traits"])
            out.append(eff)
        for key, v in m.conditions.items():  # special_against: the specials are on its weapons
            if key.startswith(SA_MARK):
                data = json.loads(str(v))
                out.append({"source": key[len(SA_MARK):], "until": data["until"], "weapon": data["weapon"],
                            "weapon_traits": list(data["specials"])})
        return out

    def apply_special_against(self, f: ki.Feat, op: SpecialAgainstOp, mid: str) -> None:
        """Model ``mid``'s weapons get ``op``'s specials, usable only against some enemies."""
        data = op.model_dump(mode="json", exclude={"op"}) | {"until": op.until or "game"}
        self._emit(Event("condition", {"model": mid, "name": SA_MARK + f.name, "on": True,
                                       "value": json.dumps(data, sort_keys=True)}))
        self._emit(Event("note", {"text": f"{f.name}: {mid}'s {op.weapon} weapons have {', '.join(op.specials)} "
                                          f"against enemy {' or '.join(op.keywords)} models"}))

    def special_against_refusal(self, mid: str, action: Action) -> str | None:
        """Why the Shoot ``action`` may not declare its special: one that only a
        ``special_against`` mark gives, at a model that is no enemy of its keywords."""
        m = self.state.models.get(mid)
        if m is None or not action.special or not any(k.startswith(SA_MARK) for k in m.conditions):
            return None
        from sim.rules.melee.specials import special_key

        want = special_key(re.split(r"\(", action.special, maxsplit=1)[0])
        card = self.printed_profile(mid)
        printed = {special_key(re.split(r"\(", t, maxsplit=1)[0]) for w in (card.weapons if card else ())
                   for t in w.special_attacks}
        if want in printed:
            return None
        t = self.state.models.get(action.target or "")
        for key, v in m.conditions.items():
            if not key.startswith(SA_MARK):
                continue
            data = json.loads(str(v))
            if want not in {special_key(re.split(r"\(", x, maxsplit=1)[0]) for x in data["specials"]}:
                continue
            ok = t is not None and t.player != m.player and keyword_matches(
                ", ".join(data["keywords"]), view_of(self.profile(t.id), friendly=False,
                                                     conditions=conditions.from_model(t)))
            if not ok:
                return (f"{key[len(SA_MARK):]}: {action.special} only against enemy "
                        f"{' or '.join(data['keywords'])} models")
        return None

    def apply_protect(self, f: ki.Feat, op: ProtectOp, mid: str) -> None:
        """Attacks on ``mid`` lose ``-op.pierce`` Pierce until ``op.until``."""
        value = json.dumps({"pierce": op.pierce, "until": op.until}, sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": PROT_MARK + f.name, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"{f.name}: weapons attacking {mid} have Pierce ({op.pierce:+d}) until "
                                          f"{op.until.replace('_', ' ')} (to a minimum of 0)"}))

    def _pierce_loss(self, target: str) -> int:
        m = self.state.models.get(target)
        if m is None:
            return 0
        return sum(-int(json.loads(str(v))["pierce"]) for k, v in m.conditions.items() if k.startswith(PROT_MARK))

    def protected_weapon(self, w: Any, target: str) -> Any:
        """Weapon ``w`` as it attacks ``target``: its Pierce lowered by ``target``'s
        ``protect`` marks, to a minimum of 0."""
        loss = self._pierce_loss(target)
        if w is None or loss <= 0:
            return w
        from sim.rules.ranged.weapons import trait_value

        have = int(trait_value(w, "pierce", 0) or 0)
        if have <= 0:
            return w
        return replace(w, traits=merge_weapon_traits(w.traits, (f"Pierce (-{min(loss, have)})",)))

    def next_shot_used(self, mid: str, weapon: str) -> None:
        """``mid`` made a ranged attack with ``weapon``: its ``next_shot`` marks for it are spent."""
        m = self.state.models.get(mid)
        if m is None:
            return
        for key, v in list(m.conditions.items()):
            if key.startswith(NEXT_MARK) and str(json.loads(str(v)).get("name", "")).lower() == weapon.lower():
                self._emit(Event("condition", {"model": mid, "name": key, "on": False}))

    # ------------------------------------------------------------ actions forbidden
    def apply_forbid(self, f: ki.Feat, op: ForbidOp, mid: str) -> None:
        """Model ``mid`` may not declare ``op``'s action kinds until its duration."""
        value = json.dumps({"actions": list(op.actions), "until": op.until}, sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": FORBID_MARK + f.name, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"{f.name}: {mid} may not declare {', '.join(op.actions)} actions until "
                                          f"{op.until.replace('_', ' ')}"}))

    def forbid_refusal(self, mid: str, action: Action) -> str | None:
        """Why ``mid`` may not declare ``action`` because a ``forbid`` mark bars its kind."""
        m = self.state.models.get(mid)
        if m is None or not any(k.startswith(FORBID_MARK) for k in m.conditions):
            return None
        kind = {"complex_ki_feat": "ki_feat", "complex_scenario": "scenario"}.get(action.kind, action.kind)
        for key, v in m.conditions.items():
            if key.startswith(FORBID_MARK) and kind in json.loads(str(v)).get("actions", []):
                return f"{key[len(FORBID_MARK):]}: {mid} may not declare a {action.kind} action now"
        return None

    # ------------------------------------------------------------ types lost
    def apply_lose_type(self, f: ki.Feat, op: LoseTypeOp, mid: str) -> None:
        """Model ``mid``'s card loses ``op``'s type keywords until its duration (an ``effect``)."""
        eff = {"source": f.name, "until": op.until or "game", "lose_types": list(op.types)}
        problem = effect_problem(eff)
        if problem:
            raise ValueError(f"effect of {f.name} on {mid}: {problem}")
        self._emit(Event("effect", {"model": mid, **eff}))

    # ------------------------------------------------------------ Heal (X) changed (p.52)
    def apply_heal_rule(self, f: ki.Feat, op: HealRuleOp, mid: str) -> None:
        """Model ``mid``'s Heal follows ``f``'s ``heal_rule`` until its duration."""
        value = json.dumps({"reach": op.reach, "markers": [conditions.canonical(n) for n in op.markers],
                            "until": op.until or "game"}, sort_keys=True)
        self._emit(Event("condition", {"model": mid, "name": HEAL_MARK + f.name, "on": True, "value": value}))
        what = ([f"reaches models within {op.reach:g}\"" ] if op.reach else []) + (
            [f"may remove {', '.join(op.markers)} markers instead of wounds"] if op.markers else [])
        self._emit(Event("note", {"text": f"{f.name}: {mid}'s Heal {' and '.join(what)}"}))

    def _heal_rules(self, mid: str) -> list[dict]:
        m = self.state.models.get(mid)
        if m is None:
            return []
        return [json.loads(str(v)) for k, v in m.conditions.items() if k.startswith(HEAL_MARK)]

    def heal_reaches(self, mid: str, target: str) -> bool:
        """Whether ``mid``'s Heal reaches ``target`` where it stands (a ``heal_rule`` reach)."""
        reach = max((float(r["reach"]) for r in self._heal_rules(mid) if r.get("reach")), default=None)
        if reach is None or target not in self.state.models:
            return False
        a, b = self.state.models[mid], self.state.models[target]
        gap = math.dist(a.position, b.position) - self.table.model(mid).radius - self.table.model(target).radius
        return gap <= reach + 1e-6

    def _heal_x(self, mid: str) -> int:
        from sim.rules.game.turn_traits import _x  # the X of Heal (X), as the Heal action reads it

        return max(0, _x(self._trait(mid, "heal")[1]))

    def heal_markers_refusal(self, mid: str, target: str, action: Action) -> str | None:
        """Why the Heal ``action`` may not remove the markers its ``models`` name from
        ``target`` (None when it may): a ``heal_rule`` with those kinds, at most X names,
        markers the target has."""
        kinds = {k for r in self._heal_rules(mid) for k in r.get("markers", [])}
        if not kinds:
            return f"{mid}'s Heal removes wounds only (p.52); it names no markers"
        names = [conditions.canonical(n) for n in action.models]
        bad = [n for n, c in zip(action.models, names) if c not in kinds]
        if bad:
            return f"{mid}'s Heal may remove {', '.join(sorted(kinds))} markers, not {', '.join(bad)}"
        x = self._heal_x(mid)
        if len(names) > x:
            return f"{mid}'s Heal ({x}) removes at most {x} markers"
        for c in set(names):
            assert c is not None
            have = len(self._units(target, c))
            if names.count(c) > have:
                return f"{target} has {have} {c} marker(s), not {names.count(c)}"
        return None

    def heal_markers(self, mid: str, target: str, names: Any) -> None:
        """``target`` loses the markers ``names`` (one name per marker) instead of wounds."""
        got = [c for c in (conditions.canonical(n) for n in names) if c is not None]
        for c in dict.fromkeys(got):
            self.remove_markers(target, c, got.count(c))
        self._emit(Event("note", {"text": f"{mid}'s Heal removes {len(got)} marker(s) from {target} instead of "
                                          f"wounds: {', '.join(got)}"}))

    def _touching(self, a: str, b: str) -> bool:
        """Whether the bases of ``a`` and ``b`` touch now (p.22)."""
        ta, tb = self.table.model(a), self.table.model(b)
        pa, pb = self.state.models[a].position, self.state.models[b].position
        return math.dist(pa, pb) - ta.radius - tb.radius <= 0.01 + 1e-9

    def heal_feat_offers(self, m: ModelState, offered: list[Action]) -> list[Action]:
        """Heal actions a ``heal_rule`` adds to :meth:`heal_offers`: wounded friends within its
        reach (no move), and for each friend it may heal now a removal of up to X markers
        (the worst first)."""
        rules = self._heal_rules(m.id)
        if not rules:
            return []
        out: list[Action] = []
        seen = {(a.target, a.point) for a in offered}
        kinds = [k for r in rules for k in r.get("markers", [])]
        order = ["controlled", "stunned", "blind", "spirit_block", "on_fire", "poisoned", "berserk"]
        kinds = sorted(dict.fromkeys(kinds), key=lambda k: order.index(k) if k in order else len(order))
        x = self._heal_x(m.id)
        for t in self.state.alive(m.player):
            near = t.id == m.id or self._touching(m.id, t.id) or self.heal_reaches(m.id, t.id)
            if not near:
                continue
            cands = []
            if t.damage > 0 and (t.id, None) not in seen:
                cands.append(Action("heal", m.id, target=t.id))
            if kinds and x > 0:
                names = [k for k in kinds for _ in self._units(t.id, k)][:x]
                if names:
                    cands.append(Action("heal", m.id, target=t.id, models=tuple(names)))
            out += [a for a in cands if self.is_legal(a)[0]]
        return out

    # ------------------------------------------------------------ counters
    def apply_counter_limits(self, f: ki.Feat, op: CounterOp, mid: str) -> None:
        """A ``counter`` op with ``n: all`` (every counter removed) or ``up_to`` (a gain
        up to that many counters)."""
        m = self.state.models[mid]
        if op.n == "all":
            if m.counters > 0:
                self._emit(Event("counter", {"model": mid, "n": m.counters}))
            return
        n = min(int(op.n), max(0, int(op.up_to or 0) - m.counters))
        if n > 0:
            self._emit(Event("counters_gained", {"model": mid, "n": n, "source": f.name}))
