"""Exceptional specials whose effect the engine cannot play itself (Special Abilities,
p.41), turned into explicit manual steps so they are never skipped silently:

* **Eagle's Flight Defence**: "Если защита успешна, Защитник может переместиться на 3"
  после завершения Обмена ударами." The exchange records the move
  (:class:`~sim.rules.melee.results.PendingMove` ``"eagles-flight"``); the game offers it
  to the defender's player (:mod:`sim.rules.game.eagles_flight`). Only when another
  exchange follows at once (Split Attack, a Group) is it a ``manual_step`` naming the
  model and the rule (moves of specials ignore ZoC and enemy contact, p.39).
* **Ivory Prison Attack**: "удалите из игры не-Незначительную, не-Бездушную цель, и
  выставьте вместо неё не-уникального Сбитого с ног Кайрая под вашим контролем." The
  exchange removes the target; placing the Prone Kairai (a model the warband does not
  hold) is a ``manual_step`` for its player.
"""

from __future__ import annotations

from sim.rules.game.events import Event


def eagle_manual_steps(res) -> list[Event]:
    """The ``manual_step`` of each Eagle's Flight move of the resolved exchange ``res``
    (p.41): used when another exchange follows at once (Split Attack, a Group), where the
    game cannot wait for the move (:mod:`sim.rules.game.eagles_flight` offers it otherwise)."""
    return [e for e in exchange_manual_steps(res) if e.data["source"].startswith("Eagle")]


def exchange_manual_steps(res, eagle: bool = True) -> list[Event]:
    """The ``manual_step`` events of a resolved exchange ``res`` (an
    :class:`~sim.rules.melee.results.ExchangeResult`): one per Eagle's Flight move (unless
    ``eagle`` is False: the game offers the move, :mod:`sim.rules.game.eagles_flight`) and
    one per Ivory Prison removal (p.41); empty when there is none."""
    out = []
    for pm in res.moves:
        if eagle and pm.move == "eagles-flight" and pm.defender not in res.removed:
            out.append(Event("manual_step", {
                "model": pm.defender, "source": "Eagle's Flight Defence (p.41)",
                "text": f"{pm.defender} may move up to 3\" now that the exchange is over (ignoring ZoC and enemy "
                        "contact, p.39): its player moves it by hand"}))
    for mid, why in sorted(res.removed.items()):
        if why == "ivory-prison":
            out.append(Event("manual_step", {
                "model": mid, "source": "Ivory Prison Attack (p.41)",
                "text": f"{mid} is removed from play; the attacker's player places a non-unique Prone Kairai under "
                        f"its control where {mid} stood"}))
    return out
