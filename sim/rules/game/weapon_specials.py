"""Weapon rules the melee exchange and the shot leave to the game (issue 13, helper H14):
special attacks printed on ranged weapons (p.39), Rapid Fire (X) (p.56) and the
catalogue special Web Defence.

Functions of the :class:`~sim.rules.game.Game` (its public API: ``state``, ``profile``,
``ranged_weapon``, ``grant``, ``enemies_in_contact``), called from the shooting step, the
melee step, the activation's refusals and the offers with one-line hooks; where they need
a step's own check the caller passes it (``can_shoot(mid, target, weapon, at=None) ->
(ok, why)``) and emits the events they return.

* Specials on a ranged weapon (p.39): "Для Стрелковых атак вы можете выбрать только
  доступные специальные атаки, так как они не включают кубики защиты. Просто удалите
  необходимое количество кубиков из пула атаки." The Shoot action names one in
  ``Action.special`` (``"Sweep Attack"`` or its printed text, any case); its cost in dice
  comes off the Ranged pool, which may not fall to 0 ("Пул кубиков модели не может быть
  уменьшен до 0"). On a hit its damage part is :func:`sim.rules.ranged.resolve_ranged_attack`'s
  (``special=``); here its moves (:func:`sim.rules.special.special_move`, the shooter as
  Attacker and the model hit as Defender), Prone, Stunned and Critical removal.
* Rapid Fire (X) (p.56): "она может выполнить до X стрелковых атак во время активации ...
  могут указывать разные цели и выполняются в порядке, выбранном контролирующим игроком.
  Каждая атака может использовать различное оружие. Удалите только один счетчик
  активации". The Shoot action names the further targets in order in ``Action.models``
  (``"id"`` or ``"id|Weapon"`` for another of its ranged weapons); each is a shot of its
  own (interception, TN with "already shot this turn", Ammo, Reload).
* Web Defence (catalogue special defence): when it succeeds the enemy may not move until
  the current activation ends: an effect ``until="activation"`` named :data:`WEB_SOURCE`.
"""

from __future__ import annotations

from typing import Any

from models.traits import parse_trait_text, trait_key
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.melee import MeleeError, parse_special
from sim.rules.melee.specials import SpecialOption

__all__ = ["WEB_SOURCE", "web_defence_after_exchange", "webbed", "web_refusal", "ranged_special",
           "special_pool_problem", "shoot_special_offers", "apply_ranged_special", "rapid_fire_x",
           "rapid_fire_shots", "rapid_fire_problem"]

#: The source of the effect Web Defence leaves on the enemy (``ModelState.effects``).
WEB_SOURCE = "Web Defence: may not move"

#: Action kinds that move the model itself (a Shoot with a declared Walk and a Disengage
#: with a point are judged apart).
_MOVING = frozenset({"walk", "run", "charge", "melee"})


# ----------------------------------------------------------------------------- Web Defence
def web_defence_after_exchange(game, res) -> None:
    """After a resolved exchange: each ``web-defence`` pending move of ``res``
    (:class:`~sim.rules.melee.ExchangeResult`) gives its enemy (``attacker`` of the move)
    the Web Defence effect until the end of the current activation."""
    for pm in res.moves:
        if pm.move == "web-defence" and game.state.models[pm.attacker].alive and not webbed(game, pm.attacker):
            game.grant(pm.attacker, WEB_SOURCE, "activation")


def webbed(game, mid: str) -> bool:
    """Whether model ``mid`` may not move now because of a Web Defence (until the end of
    the current activation)."""
    m = game.state.models.get(mid)
    return m is not None and any(e.get("source") == WEB_SOURCE for e in m.effects)


def web_refusal(game, mid: str, action: Action) -> str | None:
    """Why a webbed model may not declare ``action`` (a move of its own: Walk, Run,
    Charge, a Melee that must move into contact, a Shoot with a declared Walk, a Disengage
    with a Walk), or None."""
    if not webbed(game, mid):
        return None
    why = f"{mid} may not move until the end of the activation (Web Defence)"
    if action.kind in ("walk", "run", "charge"):
        return why
    if action.kind == "melee" and action.target and action.target not in game.enemies_in_contact(mid):
        return why
    if action.kind == "shoot" and action.walk is not None:
        return why
    if action.kind == "disengage" and action.point is not None:
        return why
    return None


# ----------------------------------------------------------------------------- specials at range
def ranged_special(weapon, name: str | None) -> SpecialOption | None:
    """The special attack ``name`` (``"Sweep Attack"``, ``"sweep-attack"`` or the printed
    ``"Sweep Attack (1)"``, any case) printed on ranged ``weapon``, or None."""
    if not name or weapon is None:
        return None
    want = name.strip().lower()
    for text in getattr(weapon, "special_attacks", ()):
        try:
            opt = parse_special(text, "attack")
        except MeleeError:
            continue
        printed = text.strip().lower()
        if want in (printed, opt.key, printed.split("(")[0].strip()):
            return opt
    return None


def special_pool_problem(game, mid: str, action: Action) -> str | None:
    """Why the Shoot ``action`` may not declare its ``special`` (p.39), or None: the weapon
    must print it as a special attack, the rulebook must describe it, and the Ranged pool
    (with the model's conditions and boosts) less its cost must stay at 1 or more."""
    if not action.special:
        return None
    w = game.ranged_weapon(mid, action.weapon)
    opt = ranged_special(w, action.special)
    if opt is None:
        printed = ", ".join(getattr(w, "special_attacks", ())) or "none"
        return f"{getattr(w, 'name', 'the weapon')} has no special attack {action.special!r} (it has: {printed})"
    if opt.rule is None:
        return f"{opt.text}: the rulebook does not describe it; its effect is the card's"
    pool = shot_pool(game, mid, action.boost or 0)
    if pool - opt.cost < 1:
        return (f"{opt.text} costs {opt.cost} dice and the Ranged pool is {pool}: a special may not reduce the "
                "pool to 0 (p.39)")
    return None


def shot_pool(game, mid: str, boost: int = 0) -> int:
    """The Ranged pool of ``mid`` before a special's cost: its Ranged, its conditions'
    modifiers and Ki boosts (p.30)."""
    from sim.rules import conditions
    from sim.rules.dice import modified_stat

    prof = game.profile(mid)
    m = game.state.models[mid]
    mods = sum(v for _, v in conditions.pool_modifiers(conditions.from_model(m), "ranged")) + boost
    return modified_stat((prof.ranged if prof is not None else 0) or 0, mods)


def shoot_special_offers(game, mid: str, target: str, can_shoot) -> list[Action]:
    """Shoot actions at ``target`` that declare one of the special attacks printed on
    ``mid``'s ranged weapons (each weapon that may shoot it), as legal_actions offers them."""
    prof = game.profile(mid)
    out: list[Action] = []
    if game.own_specials_refusal(mid) is not None:  # round 6 (F5): a feat bars its specials (feat_cards)
        return out
    for w in (prof.weapons if prof is not None else ()):
        if w.kind != "ranged" or not getattr(w, "special_attacks", ()):
            continue
        if not can_shoot(mid, target, w.name)[0]:
            continue
        for text in w.special_attacks:
            a = Action("shoot", mid, target=target, weapon=w.name, special=text)
            if special_pool_problem(game, mid, a) is None and game.special_against_refusal(mid, a) is None:  # F5
                out.append(a)
    return out


def apply_ranged_special(table, mid: str, res, option: SpecialOption | None, direction: float | None) -> dict:
    """What a special attack does after a hit, besides damage (p.39-41): its move (the
    shooter as Attacker, the model hit as Defender; moves ignore ZoC and contact), Prone,
    Stunned, a Critical removal, on ``table`` (the table now). Returns extra data for the
    ``shot`` event (``positions``, ``removed``), lines for its ``"summary"``, conditions the
    caller gains after the event (``"gain"``: ``{id: [names]}``) and events it emits after
    them (``"events"``: a ``manual_step`` for an effect played by hand)."""
    out: dict[str, Any] = {"summary": [], "gain": {}, "events": []}
    if option is None or option.rule is None or not res.hit or res.target is None:
        return out
    rule, hit = option.rule, res.target
    out["summary"].append(f"{option.text} succeeds")
    if res.critical:
        out["removed"] = [hit]
        return out
    if rule.move:
        from sim.rules.special import SpecialMoveError, special_move

        try:
            mv = special_move(table, mid, hit, rule.move, direction)
        except SpecialMoveError as exc:
            out["summary"].append(f"{rule.name}: no move ({exc})")
        else:
            out["positions"] = {k: [p[0], p[1]] for k, p in mv.positions().items()}
            moved = ", ".join(f"{k} {m.distance:.2f}\"" for k, m in mv.moves.items())
            out["summary"].append(f"{rule.move}: moved {moved or 'nothing'}")
            for k in mv.prone:
                out["gain"].setdefault(k, []).append("prone")
    if rule.enemy_prone and not rule.move:
        out["gain"].setdefault(hit, []).append("prone")
    if rule.enemy_condition == "stunned":
        out["gain"].setdefault(hit, []).append("stunned")
    elif rule.enemy_condition or rule.removes:
        out["events"].append(Event("manual_step", {"model": mid, "source": option.text,
                                                   "text": f"{rule.name} at range: apply its effect on {hit} by hand "
                                                           "(p.39-41)"}))
    return out


# ----------------------------------------------------------------------------- Rapid Fire
def rapid_fire_x(weapon) -> int | str | None:
    """The X of ``weapon``'s Rapid Fire (X) (p.56): a number, ``"X"`` when the card prints
    it variable, None when the weapon has no Rapid Fire."""
    for text in getattr(weapon, "traits", ()):
        t = parse_trait_text(text)
        k = trait_key(t.key) if t is not None else ""
        if t is not None and k == "rapid_fire":
            try:
                return int(str(t.value).strip())
            except (TypeError, ValueError):
                return "X"
    return None


def rapid_fire_shots(game, mid: str, action: Action) -> list[tuple[str, str | None]]:
    """The further shots a Shoot ``action`` names (``Action.models``), in order, as
    ``(target, weapon name or None for the action's weapon)``."""
    out = []
    for entry in action.models:
        tid, _, wname = str(entry).partition("|")
        out.append((tid.strip(), wname.strip() or action.weapon))
    return out


def rapid_fire_problem(game, mid: str, action: Action, can_shoot, at=None) -> str | None:
    """Why the further shots of a Shoot ``action`` are refused (Rapid Fire (X), p.56), or
    None: the weapon of the first shot must have Rapid Fire (X) with X >= the number of
    shots (a variable X: ``Action.x`` gives it, the card's own rule judges it), and each
    further shot must be one the model may make now (from ``at`` after a declared Walk)."""
    if not action.models:
        return None
    w = game.ranged_weapon(mid, action.weapon)
    x = rapid_fire_x(w)
    if x is None:
        return f"{getattr(w, 'name', 'the weapon')} has no Rapid Fire: one Ranged attack per Shoot action (p.56)"
    if isinstance(x, str):
        if action.x is None:
            return "Rapid Fire (X): the card sets X; give it as the action's x"
        x = int(action.x)
    shots = 1 + len(action.models)
    if shots > x:
        return f"Rapid Fire ({x}): at most {x} Ranged attacks in one Shoot action, not {shots} (p.56)"
    for tid, wname in rapid_fire_shots(game, mid, action):
        ok, why = can_shoot(mid, tid, wname, at=at)
        if not ok:
            return f"Rapid Fire: the shot at {tid} is not allowed: {why}"
    return None
