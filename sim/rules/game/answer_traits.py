"""Traits that answer the enemy or act for a group of friends (rulebook "Traits" p.48-59):
Blood of Orochi (X) (p.49), Pack (X/Y) (p.55), In Defiance of the Gods (catalogue).

* **Blood of Orochi (X)** (p.49): "Во время начальной фазы поместите в пул все жетоны «Кровь
  Орочи», созданные дружественными моделями. Выберите любое количество дружественных моделей
  Ито. Каждая выбранная модель может получить до 2 жетонов «Кровь Орочи» из пула. Оружие
  моделей с жетоном «Кровь Орочи» получает Яд (1/Y), где Y - количество жетонов на этой
  модели. Удалите все жетоны «Кровь Орочи» в завершающую фазу." In step 5 of the Starting
  phase the engine gives each player's pool (the X of its models in the game) by the
  documented default :meth:`AnswerTraits.orochi_default` (2 tokens a model, the friendly Ito
  models on the table with the highest Melee first, then by id); the player may give them
  again with the free step ``Action("orochi", model, models=(id per token ...))`` in the
  Main phase before the first activation of its side in the turn (offered by
  :meth:`~sim.rules.game.Game.legal_actions`; the game never waits for it). The tokens are
  the condition key ``blood_of_orochi`` (value: the tokens; positions and saves keep it);
  :meth:`~sim.rules.game.Game.profile` reads them as the weapon trait Poison (1/Y); they are
  removed in the End phase.

A mixin of :class:`~sim.rules.game.Game`; its kinds are registered at the end of the module.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace as dc_replace

from sim.rules.game.actions import ACTION_KINDS, Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.rules.game.targeting import PAGE_BODYGUARD, keyword_matches
from sim.table import Table, placement_problems

#: The condition key of a model's Blood of Orochi tokens (value: how many, 1 or 2).
OROCHI = "blood_of_orochi"
#: The most tokens one model may take from the pool (p.49).
OROCHI_MAX = 2
#: The page of Blood of Orochi.
PAGE_OROCHI = "p.49"
#: The mark on a model an enemy's declared action waits at for its player's Bodyguard
#: answer (p.49); its value is JSON: the declared action and the bodyguards that may swap.
BODYGUARD_OFFER = "bodyguard_offer"
#: The action kinds Bodyguard answers (p.49): those that move into contact, and shots.
BODYGUARD_KINDS = ("charge", "melee", "shoot")
#: The mark of a Pack model that activates with its pack against one enemy (value: its id, p.55).
PACK_TARGET = "pack_target"
#: The page of Pack (X/Y).
PAGE_PACK = "p.55"
#: What a Pack model activated with its pack must declare (p.55).
PACK_KINDS = ("charge", "melee", "shoot")
#: The answer kinds of this module (the game waits for one of them).
ANSWER_KINDS = ("bodyguard", "sacrifice", "eagles_flight")


def _x(value, default: int = 1) -> int:
    try:
        return int(value) if value is not None else default
    except (TypeError, ValueError):
        return default


class AnswerTraits(GamePart):
    """Blood of Orochi, Pack, In Defiance of the Gods (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ Blood of Orochi (X) (p.49)
    def orochi_pool(self, player: int) -> int:
        """The Blood of Orochi tokens ``player``'s models create this turn: the sum of the
        X of Blood of Orochi (X) over its models in the game (a card that prints no number
        creates one)."""
        n = 0
        for m in self.state.in_game(player):
            has, xv = self._trait(m.id, "blood_of_orochi")
            if has:
                n += max(0, _x(xv))
        return n

    def orochi_recipients(self, player: int) -> list[str]:
        """The friendly Ito models of ``player`` on the table that may take tokens (a card
        of the faction Ito Clan or with the type Ito), the engine's default order first:
        the highest Melee statistic, then the id."""
        out = []
        for m in self.state.alive(player):
            if m.elsewhere is not None:
                continue
            card = self.printed_profile(m.id)
            if card is None:
                continue
            if keyword_matches(card, "Ito Clan") or keyword_matches(card, "Ito"):
                out.append((-(card.melee or 0), m.id))
        return [mid for _, mid in sorted(out)]

    def orochi_default(self, player: int) -> list[str]:
        """The engine's allocation of ``player``'s pool (one id per token): two tokens to
        each recipient in :meth:`orochi_recipients` order until the pool is empty."""
        pool = self.orochi_pool(player)
        out: list[str] = []
        for mid in self.orochi_recipients(player):
            take = min(OROCHI_MAX, pool - len(out))
            if take <= 0:
                break
            out += [mid] * take
        return out

    def orochi_tokens(self, mid: str) -> int:
        """The Blood of Orochi tokens on model ``mid`` now."""
        m = self.state.models.get(mid)
        return _x(m.conditions.get(OROCHI), 0) if m is not None and OROCHI in m.conditions else 0

    def orochi_effects(self, mid: str) -> list[dict]:
        """The effect the tokens on ``mid`` give its card (p.49: its weapons gain Poison
        (1/Y), Y its tokens); none without tokens."""
        y = self.orochi_tokens(mid)
        if y <= 0:
            return []
        return [{"source": "Blood of Orochi", "until": "turn", "weapon_traits": [f"Poison (1/{y})"],
                 "weapon": "all"}]

    def _orochi_give(self, player: int, tokens, why: str) -> None:
        """Take ``player``'s tokens back and give them as ``tokens`` says (one id per token)."""
        want = Counter(tokens)
        for m in self.state.alive(player):
            have = self.orochi_tokens(m.id)
            n = want.get(m.id, 0)
            if have == n:
                continue
            if n:
                self._emit(Event("condition", {"model": m.id, "name": OROCHI, "on": True, "value": n}))
            else:
                self._emit(Event("condition", {"model": m.id, "name": OROCHI, "on": False}))
        given = ", ".join(f"{k} {v}" for k, v in sorted(want.items())) or "nobody"
        self._emit(Event("note", {"text": f"Blood of Orochi ({PAGE_OROCHI}): player {player} {why}: {given} "
                                          "(their weapons gain Poison (1/Y), Y = tokens, until the End phase)"}))

    def _orochi_start(self) -> None:
        """Starting phase step 5 (p.49): each player's pool given by the default allocation
        (:meth:`orochi_default`); the player may give it again before its first activation."""
        for p in (1, 2):
            if self.orochi_pool(p) <= 0:
                continue
            self._orochi_give(p, self.orochi_default(p), "gives the pool's tokens (the engine's default; "
                                                         "Action('orochi', models=...) gives them again before "
                                                         "the side's first activation)")

    def _orochi_end(self) -> None:
        """End phase (p.49): "Удалите все жетоны «Кровь Орочи» в завершающую фазу"."""
        for m in self.state.models.values():
            if OROCHI in m.conditions:
                self._emit(Event("condition", {"model": m.id, "name": OROCHI, "on": False}))

    def _side_activated(self, player: int) -> bool:
        """Whether a model of ``player`` has activated in the turn under way."""
        for ev in reversed(self.events):
            if ev.kind == "turn":
                return False
            if ev.kind == "activate" and ev.data.get("player") == player:
                return True
        return False

    def orochi_refusal(self, m: ModelState | None, action: Action) -> str | None:
        """Why ``Action("orochi", model, models=...)`` may not be taken now, or None: it is
        the Main phase, ``model`` is the active player's, no model of that side has
        activated in this turn, the side's pool has tokens, each id is a friendly Ito model
        on the table (:meth:`orochi_recipients`) named at most twice, and the ids are no
        more than the pool."""
        st = self.state
        if m is None or not m.alive:
            return f"no model {action.model!r} on the table"
        if st.phase != "main" or st.exchange is not None or st.interception is not None:
            return "Blood of Orochi's tokens are given again only in the Main phase, with nothing waiting"
        if m.player != st.active:
            return f"{m.id} is not the active player's model"
        if self._side_activated(m.player):
            return f"player {m.player} has activated a model this turn: the tokens stay where they are ({PAGE_OROCHI})"
        pool = self.orochi_pool(m.player)
        if pool <= 0:
            return f"player {m.player}'s models create no Blood of Orochi tokens ({PAGE_OROCHI})"
        ok = set(self.orochi_recipients(m.player))
        count = Counter(action.models)
        bad = [x for x in count if x not in ok]
        if bad:
            return f"{', '.join(map(str, bad))}: not a friendly Ito model on the table ({PAGE_OROCHI})"
        many = [x for x, n in count.items() if n > OROCHI_MAX]
        if many:
            return f"{', '.join(many)}: a model takes at most {OROCHI_MAX} tokens ({PAGE_OROCHI})"
        if len(action.models) > pool:
            return f"the pool holds {pool} token(s), {len(action.models)} given ({PAGE_OROCHI})"
        return None

    def orochi_offers(self, player: int | None) -> list[Action]:
        """The re-allocations offered to ``player`` before its side's first activation: for
        each recipient, the default order with that model first (only those that differ
        from the tokens now)."""
        if player not in (1, 2):
            return []
        recips = self.orochi_recipients(player)
        pool = self.orochi_pool(player)
        if pool <= 0 or not recips or self.state.phase != "main" or self._side_activated(player):
            return []
        giver = next((m.id for m in self.state.alive(player) if self._trait(m.id, "blood_of_orochi")[0]),
                     recips[0])
        now = Counter({m.id: self.orochi_tokens(m.id) for m in self.state.alive(player) if self.orochi_tokens(m.id)})
        out = []
        for first in recips:
            order = [first] + [r for r in recips if r != first]
            tokens: list[str] = []
            for mid in order:
                take = min(OROCHI_MAX, pool - len(tokens))
                if take <= 0:
                    break
                tokens += [mid] * take
            if Counter(tokens) != now:
                a = Action("orochi", giver, models=tuple(tokens))
                if a not in out:
                    out.append(a)
        return out


    # ------------------------------------------------------------ the answer window
    def answers_pending(self) -> list[str]:
        """The models at which a declared enemy action waits for their player's answer
        (Bodyguard, p.49), and those a damage roll against which waits (Sacrifice, Protected,
        p.56-57, :mod:`sim.rules.game.damage_answers`)."""
        return ([m.id for m in self.state.alive() if BODYGUARD_OFFER in m.conditions] + self.damage_offers_pending()
                + self.eagle_pending())  # Eagle's Flight's move after the exchange (p.41, eagles_flight)

    def answer_player(self) -> int | None:
        """The player who answers now (the guarded model's), or None when nothing waits."""
        waiting = self.answers_pending()
        return self.state.models[waiting[0]].player if waiting else None

    def answer_legal(self, action: Action) -> tuple[bool, str]:
        """While an answer waits: only the answer kinds (:data:`ANSWER_KINDS`), judged by
        their kind; anything else is refused."""
        if action.kind not in ANSWER_KINDS:
            who = ", ".join(self.answers_pending())
            return False, (f"an enemy's action at {who} waits for its player's answer (Bodyguard "
                           f"{PAGE_BODYGUARD}; Sacrifice / Protected p.57, p.56)")
        return ACTION_KINDS[action.kind].legal(self, self.state.models.get(action.model or ""), action)

    def answer_actions(self) -> list[Action]:
        """The answers offered while one waits: for the guarded model, a swap with each
        bodyguard that may, and declining (no target); or the Sacrifice / Protected answers."""
        if self.damage_offers_pending():
            return self.damage_answer_actions()
        if self.eagle_pending() and not any(BODYGUARD_OFFER in m.conditions for m in self.state.alive()):
            return self.eagle_actions()  # Eagle's Flight (p.41)
        out = []
        for mid in self.answers_pending():
            data = json.loads(str(self.state.models[mid].conditions[BODYGUARD_OFFER]))
            out += [Action("bodyguard", mid, target=b) for b in data["candidates"]]
            out.append(Action("bodyguard", mid))
            break
        return out

    def answer_choice(self) -> Action:
        """The greedy answer: the bodyguard swaps when the guarded model is worth more
        (rice, then wounds left) than the cheapest bodyguard offered; else none. A
        Sacrifice / Protected answer: :meth:`damage_answer_choice`."""
        if self.damage_offers_pending():
            return self.damage_answer_choice()
        if self.eagle_pending() and not any(BODYGUARD_OFFER in m.conditions for m in self.state.alive()):
            return self.eagle_choice()  # Eagle's Flight (p.41)
        offered = self.answer_actions()
        decline = next(a for a in offered if a.target is None)
        guarded = self.printed_profile(decline.model or "")

        def worth(mid: str) -> tuple[int, int]:
            card = self.printed_profile(mid)
            m = self.state.models[mid]
            return ((card.rice or 0) if card is not None else 0, m.wounds - m.damage)

        swaps = [a for a in offered if a.target is not None]
        if not swaps or guarded is None:
            return decline
        best = min(swaps, key=lambda a: (worth(a.target or ""), a.target))
        return best if worth(best.target or "") <= worth(decline.model or "") else decline

    # ------------------------------------------------------------ Bodyguard [K] (X") (p.49)
    def _swap_fits(self, a: str, b: str) -> bool:
        """Whether models ``a`` and ``b`` each fit where the other stands, moving no other
        model (p.49): no overlap, Impassable terrain or table edge for either."""
        table = self._table_now()
        pa, pb = table.model(a).position, table.model(b).position
        moved = tuple(dc_replace(x, position=pb) if x.id == a else dc_replace(x, position=pa) if x.id == b else x
                      for x in table.models)
        swapped = Table(table.name, table.width, table.depth, table.terrain, moved, table.source)
        return not any(p.model in (a, b) or getattr(p, "other", None) in (a, b) for p in placement_problems(swapped))

    def bodyguard_window(self, mid: str, action: Action) -> bool:
        """When model ``mid`` declares a Charge or Melee into contact with, or a Shoot at,
        an enemy that friends may guard (:meth:`~sim.rules.game.Game.bodyguards`, and both
        bases fit in each other's place), the action waits for the target's player (a
        ``bodyguard_offer`` mark on the target, p.49: "прежде начала действия"): True; the
        action's counters are spent as declared. False: the action goes on."""
        if action.kind not in BODYGUARD_KINDS or not action.target:
            return False
        t = self.state.models.get(action.target)
        if t is None or not t.alive or t.player == self.state.models[mid].player:
            return False
        cands = [b for b in self.bodyguards(t.id) if self._swap_fits(b, t.id)]
        if not cands:
            return False
        value = json.dumps({"action": action.to_json(), "candidates": cands}, sort_keys=True)
        self._emit(Event("condition", {"model": t.id, "name": BODYGUARD_OFFER, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"Bodyguard ({PAGE_BODYGUARD}): {', '.join(cands)} may swap places with "
                                          f"{t.id} before {mid}'s {action.kind}; player {t.player} answers"}))
        return True

    def _legal_bodyguard(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        if m is None or BODYGUARD_OFFER not in m.conditions:
            return False, f"no enemy action waits at {action.model!r} for a Bodyguard answer ({PAGE_BODYGUARD})"
        data = json.loads(str(m.conditions[BODYGUARD_OFFER]))
        if action.target is not None and action.target not in data["candidates"]:
            return False, (f"{action.target!r} may not guard {m.id} ({PAGE_BODYGUARD}); may: "
                           + ", ".join(data["candidates"]))
        return True, ""

    def _resolve_bodyguard(self, action: Action) -> None:
        """The guarded model's player swaps it with the bodyguard ``action.target`` (its
        Fear test against a Fear enemy passed; its Disguised marker removed) or declines;
        then the waiting action is played, against the bodyguard after a swap (p.49)."""
        st = self.state
        m = st.models.get(action.model or "")
        ok, why = self._legal_bodyguard(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        data = json.loads(str(m.conditions[BODYGUARD_OFFER]))
        declared = Action.from_json(data["action"])
        self._emit(Event("condition", {"model": m.id, "name": BODYGUARD_OFFER, "on": False}))
        attacker = st.models[declared.model or ""]
        b = action.target
        if b is not None and "disguised" in st.models[b].conditions:  # "немедленно удалите этот маркер"
            self._emit(Event("condition", {"model": b, "name": "disguised", "on": False}))
        if b is not None and self._trait(attacker.id, "fear")[0]:
            tn = int(self._trait(attacker.id, "fear")[1] or 0)
            res, whys = self._fear_roll(b, tn, attacker.id, f"Bodyguard, TN {tn}")
            why_s = f" ({', '.join(whys)})" if whys else ""
            self._emit(Event("test", {"model": b, "test": "fear", "tn": tn, "passed": res.passed,
                                      "text": f"{b} takes a Fear test (TN {tn}){why_s} to guard {m.id} against "
                                              f"{attacker.id} and {'passes' if res.passed else 'fails: no swap'}"}))
            if not res.passed:
                b = None
        if b is None:
            self._emit(Event("note", {"text": f"no Bodyguard swap: {attacker.id}'s {declared.kind} goes on at {m.id}"}))
        else:
            pm, pb = st.models[m.id], st.models[b]
            to_m, to_b = list(pb.position), list(pm.position)
            fm, fb = pm.facing, pb.facing
            self._emit(Event("move", {"model": b, "move": "Bodyguard swap", "to": to_b, "facing": fb, "cost": 0.0}))
            self._emit(Event("move", {"model": m.id, "move": "Bodyguard swap", "to": to_m, "facing": fm, "cost": 0.0}))
            self._emit(Event("note", {"text": f"Bodyguard ({PAGE_BODYGUARD}): {b} swaps places with {m.id} and is "
                                              f"now the target of {attacker.id}'s {declared.kind}"}))
            declared = dc_replace(declared, target=b)
        kind = ACTION_KINDS[declared.kind]
        ok, why = kind.legal(self, attacker, declared)
        if ok:
            self._declared_go(attacker, declared)
            kind.resolve(self, declared)
        else:
            self._emit(Event("note", {"text": f"{attacker.id}'s {declared.kind} can no longer be made ({why}): "
                                              "it ends without effect"}))
        self._after_action()
        if (not self.is_over() and st.exchange is None and st.interception is None and not self.answers_pending()
                and not self._group_step(attacker.player)):
            self._next_active(3 - attacker.player)

    # ------------------------------------------------------------ Pack (X/Y) (p.55)
    def pack_mates(self, mid: str) -> list[str]:
        """The friendly Pack models model ``mid``'s Pack (X/Y) may activate with it: not
        Exhausted, on the table, within Y" (edge to edge), the closest first (p.55)."""
        prof = self.profile(mid)
        rule = prof.trait("pack") if prof is not None else None
        m = self.state.models[mid]
        if rule is None or _x(rule.value, 0) <= 0:
            return []
        reach = float(rule.range if rule.range is not None else 0.0)
        scene = self._table_now().scene()
        out = []
        for x in self.state.alive(m.player):
            if x.id == mid or x.exhausted or x.elsewhere is not None or not self._trait(x.id, "pack")[0]:
                continue
            d = scene.distance(mid, x.id)
            if d <= reach + 1e-9:
                out.append((d, x.id))
        return [x for _, x in sorted(out)]

    def pack_refusal(self, mid: str, action: Action) -> str | None:
        """Why a Pack model activated with its pack (the marks ``pack_target`` and
        ``group_pending``) may not declare ``action``: p.55 "обязаны объявлять действия
        Рукопашной, Стрельбы или Нападения против одной и той же цели"; None otherwise."""
        from sim.rules.game.turn_traits import GROUP_PENDING

        m = self.state.models.get(mid)
        if m is None or PACK_TARGET not in m.conditions or GROUP_PENDING not in m.conditions:
            return None
        if action.kind in ("jump_up", "cultist", "feat"):
            return None
        t = str(m.conditions[PACK_TARGET])
        if action.kind not in PACK_KINDS or action.target != t:
            return f"Pack: {mid} activates with its pack and must Melee, Charge or Shoot {t} ({PAGE_PACK})"
        return None

    def pack_offers(self, out: list[Action]) -> list[Action]:
        """``Action("pack", leader, target=enemy, models=mates)`` for each Pack leader with
        mates and each enemy it is offered a Melee, Charge or Shoot at in ``out``: the X
        closest mates (p.55)."""
        extra: list[Action] = []
        for a in out:
            if a.kind not in PACK_KINDS or a.model is None or a.target is None or a.models:
                continue
            mates = self.pack_mates(a.model)
            if not mates:
                continue
            prof = self.profile(a.model)
            rule = prof.trait("pack") if prof is not None else None
            n = _x(rule.value, 0) if rule is not None else 0
            p = Action("pack", a.model, target=a.target, models=tuple(mates[:n]))
            if p not in extra and self.is_legal(p)[0]:
                extra.append(p)
        return extra

    def _legal_pack(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        if m is None or not m.alive:
            return False, f"no model {action.model!r} on the table"
        if st.phase != "main" or st.exchange is not None or m.player != st.active or m.exhausted:
            return False, f"{m.id} may call its pack only when it activates ({PAGE_PACK})"
        why = self.activation_lock(m.id)
        if why or self.group_pending(m.player):
            return False, why or "another activation is under way"
        t = st.models.get(action.target or "")
        if t is None or not t.alive or t.player == m.player:
            return False, f"Pack: name the enemy every model attacks ({PAGE_PACK})"
        prof = self.profile(m.id)
        rule = prof.trait("pack") if prof is not None else None
        n = _x(rule.value, 0) if rule is not None else 0
        if n <= 0:
            return False, f"{m.id} has no Pack (X/Y) with X above 0 ({PAGE_PACK})"
        mates = self.pack_mates(m.id)
        if not action.models or len(action.models) > n or len(set(action.models)) != len(action.models):
            return False, f"Pack: name 1 to {n} different Pack friends ({PAGE_PACK})"
        bad = [x for x in action.models if x not in mates]
        if bad:
            return False, (f"{', '.join(map(str, bad))}: not a non-Exhausted friendly Pack model within reach "
                           f"({PAGE_PACK})")
        return True, ""

    def _resolve_pack(self, action: Action) -> None:
        """The leader and the chosen Pack models activate together (the Group machinery of
        :mod:`sim.rules.game.turn_traits`: each in turn, every move before any exchange, the
        exchanges in the order the player chooses), all against ``action.target`` (p.55)."""
        from sim.rules.game.turn_traits import GROUP_PENDING

        m = self.state.models.get(action.model or "")
        ok, why = self._legal_pack(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        for x in (m.id, *action.models):
            self._emit(Event("condition", {"model": x, "name": GROUP_PENDING, "on": True}))
            self._emit(Event("condition", {"model": x, "name": PACK_TARGET, "on": True, "value": action.target}))
        self._emit(Event("note", {"text": f"Pack ({PAGE_PACK}): {m.id} activates with {', '.join(action.models)}; "
                                          f"each must Melee, Charge or Shoot {action.target}; every move comes "
                                          "before any exchange"}))

    def _answer_traits_end(self) -> None:
        """End phase: Blood of Orochi tokens and stale Pack marks removed."""
        self._orochi_end()
        for m in self.state.models.values():
            if PACK_TARGET in m.conditions:
                self._emit(Event("condition", {"model": m.id, "name": PACK_TARGET, "on": False}))

    def _legal_orochi(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        why = self.orochi_refusal(m, action)
        return (False, why) if why else (True, "")

    def _resolve_orochi(self, action: Action) -> None:
        m = self.state.models.get(action.model or "")
        why = self.orochi_refusal(m, action)
        if why or m is None:
            self._unmark()
            raise GameError(why or "no model")
        self._orochi_give(m.player, list(action.models), "gives the tokens again")

    # the kinds of this module, registered where they are defined
    register(
        ActionKind("orochi", _legal_orochi, _resolve_orochi),
        ActionKind("bodyguard", _legal_bodyguard, _resolve_bodyguard),
        ActionKind("pack", _legal_pack, _resolve_pack),
    )
