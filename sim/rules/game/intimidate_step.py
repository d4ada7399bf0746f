"""Intimidate (Traits p.54): a choice of the Starting phase.

"Во время Начальной фазы эта модель может указать вражескую модель в 8". Выполните встречную
проверку Ки против цели. Если эта модель побеждает, цель получает Трусость, теряет
Агрессивность и не может выбирать или указывать эту модель целью Рукопашной, Нападения или
Стрельбы до Завершающей фазы." (p.54)

After the Tactical test (Starting phase step 5, p.20: "the active player resolves its
effects first"), every Intimidate model on the table with an enemy within 8" gets the mark
``intimidate_offer`` (a condition event, kept in positions and saves), and the game waits:
:meth:`Game.legal_actions` offers its player ``Action("intimidate", model, target=enemy)``
for each enemy in range and ``Action("intimidate", model)`` to decline. The first player
answers for all its models, then the other player; then the Starting phase goes on (Flank
arrivals, pass tokens, the Main phase).

A won opposed Ki test (:meth:`~sim.rules.game.rolls_step.RollsStep._opposed_ki`, no model
active in the Starting phase: Resistance, Mettle and Soulless act, Willpower and Overwhelm
do not; a tie goes to the intimidating player, whose effects these are) gives the target an
effect until the End phase: Cowardly gained, Aggressive lost (source ``Intimidate (id)``),
and until then it may not declare Melee, Charge or Shoot at the intimidating model
(:meth:`IntimidateStep.intimidate_refusal`).

A mixin of :class:`~sim.rules.game.Game`; the ``intimidate`` kind is registered at the end.
"""

from __future__ import annotations

from sim.rules.dice import RollKind, RollPurpose
from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState

#: Range of Intimidate in inches, edge to edge (p.54).
INTIMIDATE_RANGE = 8.0
#: The mark of a model that may still Intimidate in this Starting phase.
OFFER = "intimidate_offer"
#: The action kinds an Intimidated model may not declare at the intimidating model (p.54).
INTIMIDATE_BARS = ("melee", "charge", "shoot")
_SOURCE = "Intimidate ({})"


class IntimidateStep(GamePart):
    """Intimidate in the Starting phase (a mixin of :class:`~sim.rules.game.Game`)."""

    def intimidate_targets(self, mid: str) -> list[str]:
        """The ids of the enemies of ``mid`` on the table within 8" of it (edge to edge,
        p.54): the models it may Intimidate."""
        st = self.state
        m = st.models[mid]
        scene = self._table_now().scene()
        out = []
        for e in st.alive(3 - m.player):
            if e.elsewhere is not None:
                continue
            try:
                d = scene.distance(mid, e.id)
            except (KeyError, ValueError):
                continue
            if d <= INTIMIDATE_RANGE + 1e-6:
                out.append(e.id)
        return out

    def _intimidate_due(self) -> bool:
        """Starting phase step 5 (p.20): mark the Intimidate models with an enemy in range
        and wait for their players (True); False when there is none."""
        st = self.state
        ready = [m for m in st.alive() if m.elsewhere is None and self._trait(m.id, "intimidate")[0]
                 and self.intimidate_targets(m.id)]
        if not ready:
            return False
        for m in ready:
            self._emit(Event("condition", {"model": m.id, "name": OFFER, "on": True}))
        first = st.first if st.first in (1, 2) else 1
        player = first if any(m.player == first for m in ready) else 3 - first
        self._emit(Event("note", {"text": f"Starting phase: Intimidate (p.54) -- player {player} chooses first"}))
        self._emit(Event("active", {"player": player}))
        return True

    def intimidate_pending(self, player: int | None = None) -> list[str]:
        """The models of ``player`` (default: any) that may still Intimidate now (the
        Starting phase waits for their choice, p.54)."""
        st = self.state
        if st.phase != "start":
            return []
        return [m.id for m in st.alive(player) if OFFER in m.conditions]

    def intimidate_actions(self) -> list[Action]:
        """The choices offered while Intimidate waits: for each model of the player to move
        with the mark, each enemy in range, and declining (no target)."""
        out = []
        for mid in self.intimidate_pending(self.state.active):
            out += [Action("intimidate", mid, target=t) for t in self.intimidate_targets(mid)]
            out.append(Action("intimidate", mid))
        return out

    def intimidate_refusal(self, mid: str, kind: str, target: str | None) -> str | None:
        """Why ``mid`` may not declare ``kind`` at ``target`` because ``target`` Intimidated
        it this turn (no Melee, Charge or Shoot at it until the End phase, p.54), or None."""
        if kind not in INTIMIDATE_BARS or not target:
            return None
        m = self.state.models.get(mid)
        if m is None:
            return None
        src = _SOURCE.format(target)
        if any(e.get("source") == src for e in m.effects):
            return f"{mid} was Intimidated by {target}: no Melee, Charge or Shoot at it until the End phase (p.54)"
        return None

    def resolve_intimidate(self, action: Action) -> None:
        """Resolve a legal ``Action("intimidate", model, target=enemy or None)``: the mark
        is removed; with a target, the opposed Ki test and, if won, the effect until the End
        phase; when no choice is left, the Starting phase goes on."""
        mid = action.model
        assert mid is not None  # judged legal
        self._emit(Event("condition", {"model": mid, "name": OFFER, "on": False}))
        target = action.target
        if target is not None:
            res = self._opposed_ki(mid, target, RollPurpose(RollKind.OPPOSED, mid, target, "Intimidate"),
                                   RollPurpose(RollKind.KI_RESIST, target, mid, "Intimidate"), a_active=None)
            verdict = "wins" if res.passed else "loses"
            self._emit(Event("test", {"model": mid, "test": "ki", "passed": res.passed,
                                      "text": f"{mid} Intimidates {target}: opposed Ki test{res.why()}, "
                                              f"{mid} {verdict}"}))
            if res.passed:
                self.grant(target, _SOURCE.format(mid), "end_phase", traits=("Cowardly",), lose=("Aggressive",))
                self._emit(Event("note", {"text": f"{target} is Cowardly, loses Aggressive and may not Melee, "
                                                  f"Charge or Shoot {mid} until the End phase (Intimidate, p.54)"}))
        else:
            self._emit(Event("note", {"text": f"{mid} does not Intimidate this turn"}))
        self._continue_starting_phase("intimidate", self.intimidate_pending)


def _legal_intimidate(game: IntimidateStep, m: ModelState | None, action: Action) -> tuple[bool, str]:
    st = game.state
    if m is None or not m.alive:
        return False, f"no model {action.model!r} on the table"
    if st.phase != "start" or OFFER not in m.conditions:
        return False, f"{m.id} may Intimidate only when the Starting phase offers it (p.54)"
    if m.player != st.active:
        return False, f"player {st.active} chooses first"
    if action.target is not None and action.target not in game.intimidate_targets(m.id):
        return False, f"{action.target!r} is not an enemy within {INTIMIDATE_RANGE:g}\" of {m.id} (p.54)"
    return True, ""


register(ActionKind("intimidate", _legal_intimidate, lambda game, action: game.resolve_intimidate(action)))
