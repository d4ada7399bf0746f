"""Death Sentence in the Starting phase (Model conditions, p.43): the player's choice to
pay 3 Ki to remove one marker, or to keep it.

"Во время начальной фазы [модель] с маркером Смертного приговора может потратить 3 Ки,
чтобы удалить с себя один маркер Смертного приговора" (p.43, seeds/000 line 1269).

How the engine plays it: at step 5 of the Starting phase (p.20, after Diseased, before
the other choices of the step) each model in play with a Death Sentence marker that may
spend tokens and has 3 Ki gets the mark :data:`DS_OFFER`; the game waits for its player
(the Tactical roll's winner first), as for Fortune (:mod:`sim.rules.game.turn_traits`):
``Action("death_sentence", model, special="pay")`` pays 3 Ki and removes one marker,
``Action("death_sentence", model)`` keeps it. When no offer is left the Starting phase
goes on (In Defiance of the Gods, Oni Rage, Intimidate, arrivals, pass tokens).

A mixin of :class:`~sim.rules.game.Game`; the kind ``death_sentence`` is registered at
the end.
"""

from __future__ import annotations

from sim.rules import conditions
from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState

#: The Starting phase mark of a model whose player chooses to pay for Death Sentence.
DS_OFFER = "death_sentence_offer"


class DeathSentenceChoice(GamePart):
    """Death Sentence's Starting phase choice (a mixin of :class:`~sim.rules.game.Game`)."""

    def death_sentence_offers(self, mid: str) -> list[Action]:
        """The choice offered to model ``mid``: pay 3 Ki (``special="pay"``) or keep the
        marker (no ``special``); empty without an offer."""
        m = self.state.models.get(mid)
        if m is None or DS_OFFER not in m.conditions:
            return []
        return [Action("death_sentence", mid, special="pay"), Action("death_sentence", mid)]

    def _death_sentence_due(self) -> bool:
        """Starting phase step 5 (p.20, p.43): the models that may pay get the offer and
        the game waits (True); False when none may."""
        st = self.state
        ready = [m for m in st.alive() if m.elsewhere is None
                 and conditions.start_phase_effects(conditions.from_model(m), ki=m.ki).death_sentence_option]
        if not ready:
            return False
        for m in ready:
            self._emit(Event("condition", {"model": m.id, "name": DS_OFFER, "on": True}))
        first = st.first if st.first in (1, 2) else 1
        player = first if any(m.player == first for m in ready) else 3 - first
        self._emit(Event("note", {"text": "Starting phase: Death Sentence (p.43): pay 3 Ki to remove one marker, "
                                          f"or keep it -- player {player} chooses first"}))
        if st.active != player:
            self._emit(Event("active", {"player": player}))
        return True

    def _legal_death_sentence(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        if m is None or st.phase != "start" or DS_OFFER not in m.conditions:
            return False, (f"{action.model} may pay for Death Sentence only when the Starting phase offers it "
                           "(p.43)")
        if m.player != st.active:
            return False, f"player {st.active} chooses first"
        if action.special not in (None, "pay"):
            return False, "death_sentence: special is 'pay' (3 Ki, one marker removed) or nothing (keep it)"
        return True, ""

    def _resolve_death_sentence(self, action: Action) -> None:
        """The choice; when none is left, the Starting phase goes on."""
        st = self.state
        m = st.models.get(action.model or "")
        ok, why = self._legal_death_sentence(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        self._emit(Event("condition", {"model": m.id, "name": DS_OFFER, "on": False}))
        if action.special == "pay":
            self._emit(Event("ki_change", {"model": m.id, "delta": -conditions.DEATH_SENTENCE_REMOVAL_COST}))
            self._emit(Event("note", {"text": f"{m.id} pays 3 Ki to remove a Death Sentence marker (p.43)"}))
            self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "death_sentence", 1))
        else:
            self._emit(Event("note", {"text": f"{m.id} keeps its Death Sentence marker (p.43)"}))
        self._continue_starting_phase("death_sentence", self.starting_choices_pending)

    # the kinds of this module, registered where they are defined
    register(ActionKind("death_sentence", _legal_death_sentence, _resolve_death_sentence))
