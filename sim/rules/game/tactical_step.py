"""The Tactical test's choice (Tests p.29, Starting phase p.20 step 4): "Выигравший игрок
решает, какой игрок будет первым активным игроком в ходу."

The Starting phase plays the test and, by default, makes its winner the first active
player (:meth:`~sim.rules.game.Game` never waits for the choice). Before the first
activation or pass of the turn, the winner may hand the first activation to the other
player with the free step ``Action("tactical_choice", model)`` (``model``: any of the
winner's models on the table), offered by :meth:`~sim.rules.game.Game.legal_actions`.
The other player then acts first, and is the "first" player of the turn (who declares
effects second in the Starting and End phases until the next Tactical test, p.29).

A mixin of :class:`~sim.rules.game.Game`; its kind is registered at the end of the class.
"""

from __future__ import annotations

from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState

#: The page of the Tactical test's choice.
PAGE_TACTICAL = "p.29"


class TacticalChoice(GamePart):
    """The Tactical test winner's choice of the first player (a mixin of
    :class:`~sim.rules.game.Game`)."""

    def tactical_winner(self) -> int | None:
        """The winner of this turn's Tactical test while its choice of the first player is
        still open (the Main phase, no activation or pass yet, the winner still first and
        active); None otherwise."""
        st = self.state
        if st.phase != "main" or st.exchange is not None or st.interception is not None:
            return None
        for ev in reversed(self.events):
            if ev.kind in ("activate", "pass", "turn"):
                return None
            if ev.kind == "tactical":
                winner = ev.data.get("winner")
                if winner in (1, 2) and ev.data.get("first") == winner and st.first == winner == st.active:
                    return int(winner)
                return None
        return None

    def _legal_tactical_choice(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        winner = self.tactical_winner()
        if winner is None:
            return False, (f"the Tactical test's winner chooses the first player only before the turn's first "
                           f"activation or pass ({PAGE_TACTICAL})")
        if m is None or not m.alive or m.player != winner:
            return False, f"{action.model!r} is not a model of player {winner}, the Tactical test's winner"
        if not self.state.can_activate(3 - winner):
            return False, f"player {3 - winner} has no model that can activate"
        return True, ""

    def _resolve_tactical_choice(self, action: Action) -> None:
        ok, why = self._legal_tactical_choice(self.state.models.get(action.model or ""), action)
        if not ok:
            self._unmark()
            raise GameError(why)
        winner = self.state.models[action.model or ""].player
        self._emit(Event("tactical", {"winner": winner, "first": 3 - winner, "rolls": []}))
        self._emit(Event("note", {"text": f"player {winner}, the Tactical test's winner, lets player {3 - winner} "
                                          f"act first ({PAGE_TACTICAL})"}))
        self._emit(Event("active", {"player": 3 - winner}))

    def tactical_offers(self, player: int | None) -> list[Action]:
        """The choice offered to ``player`` while it is open: letting the other player act
        first (one action naming the first of its models)."""
        winner = self.tactical_winner()
        if winner is None or player != winner or not self.state.can_activate(3 - winner):
            return []
        mine = self.state.alive(winner)
        return [Action("tactical_choice", mine[0].id)] if mine else []

    register(ActionKind("tactical_choice", _legal_tactical_choice, _resolve_tactical_choice))
