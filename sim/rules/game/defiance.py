"""In Defiance of the Gods (a catalogue-only trait, Library-Traits.cat; not in the rulebook).

The card, in our words: in the Starting phase its player may choose that the model gains
Cloudwalk and, when it wounds a model in a melee exchange, Ki tokens equal to that model's
Ki statistic plus its Spirit (X); if the player does, at the end of each of the model's
activations in which it dealt no damage in a melee exchange it gains a Bleed (1) marker;
all of it ends in the End phase.

How the engine plays it: at step 5 of the Starting phase (p.20, where Oni Rage's choice is
made) each model with the trait on the table gets the mark ``defiance_offer`` and the game
waits for its player (the starting choices of :mod:`sim.rules.game.turn_traits`):
``Action("defiance", model, special="defy")`` takes it, ``Action("defiance", model)``
declines. Taking it is an effect (:meth:`~sim.rules.game.Game.grant`) of source
:data:`SOURCE`, ``until="end_phase"``, that gives Cloudwalk; the Ki is gained after each
exchange it wounds in (:meth:`Defiance.defiance_melee_ki`), the Bleed (1) marker at the end
of each of its activations without melee damage (:meth:`Defiance._defiance_activation_end`,
read from the exchange events of that activation; Immune [Bleed] and Soulless keep it off).

A mixin of :class:`~sim.rules.game.Game`; the kind ``defiance`` is registered at the end.
"""

from __future__ import annotations

from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState

#: The effect's source (and the trait's name).
SOURCE = "In Defiance of the Gods"
#: The Starting phase mark of a model whose player chooses.
DEFIANCE_OFFER = "defiance_offer"
#: The start of the log line written at the end of a defiant model's activation (it also
#: tells the next check where the last one stopped).
_NOTE = f"{SOURCE}, end of the activation: "


class Defiance(GamePart):
    """In Defiance of the Gods (a mixin of :class:`~sim.rules.game.Game`)."""

    def defiant(self, mid: str) -> bool:
        """Whether model ``mid``'s player chose In Defiance of the Gods this turn (its
        effect holds until the End phase)."""
        m = self.state.models.get(mid)
        return m is not None and any(e.get("source") == SOURCE for e in m.effects)

    def defiance_pending(self, player: int | None = None) -> list[str]:
        """The models of ``player`` (any: None) whose Starting phase choice waits."""
        if self.state.phase != "start":
            return []
        return [m.id for m in self.state.alive(player) if DEFIANCE_OFFER in m.conditions]

    def defiance_offers(self, mid: str) -> list[Action]:
        """The choice offered to model ``mid``: take it (``special="defy"``) or decline."""
        m = self.state.models.get(mid)
        if m is None or DEFIANCE_OFFER not in m.conditions:
            return []
        return [Action("defiance", mid, special="defy"), Action("defiance", mid)]

    def _defiance_due(self) -> bool:
        """Starting phase step 5: each model on the table with the trait gets the offer and
        the game waits (True; the Tactical roll's winner chooses first); False when none has it."""
        st = self.state
        ready = [m for m in st.alive() if m.elsewhere is None and self._trait(m.id, "in_defiance_of_the_gods")[0]]
        if not ready:
            return False
        for m in ready:
            self._emit(Event("condition", {"model": m.id, "name": DEFIANCE_OFFER, "on": True}))
        first = st.first if st.first in (1, 2) else 1
        player = first if any(m.player == first for m in ready) else 3 - first
        self._emit(Event("note", {"text": f"Starting phase: {SOURCE} (catalogue trait): Cloudwalk and Ki from melee "
                                          f"wounds, Bleed (1) after an activation without melee damage -- player "
                                          f"{player} chooses first"}))
        if st.active != player:
            self._emit(Event("active", {"player": player}))
        return True

    def _legal_defiance(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        if m is None or st.phase != "start" or DEFIANCE_OFFER not in m.conditions:
            return False, f"{action.model} may choose {SOURCE} only when the Starting phase offers it"
        if m.player != st.active:
            return False, f"player {st.active} chooses first"
        if action.special not in (None, "defy"):
            return False, "defiance: special is 'defy' (take it) or nothing (decline)"
        return True, ""

    def _resolve_defiance(self, action: Action) -> None:
        """The choice; when none is left, the Starting phase goes on (Oni Rage, Intimidate,
        arrivals, pass tokens)."""
        st = self.state
        m = st.models.get(action.model or "")
        ok, why = self._legal_defiance(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        self._emit(Event("condition", {"model": m.id, "name": DEFIANCE_OFFER, "on": False}))
        if action.special == "defy":
            self.grant(m.id, SOURCE, "end_phase", traits=["Cloudwalk"])
            self._emit(Event("note", {"text": f"{SOURCE}: {m.id} defies the gods until the End phase: Cloudwalk, Ki "
                                              "for its melee wounds, Bleed (1) after an activation without melee "
                                              "damage"}))
        else:
            self._emit(Event("note", {"text": f"{m.id} does not use {SOURCE} this turn"}))
        self._continue_starting_phase("defiance", self.starting_choices_pending)

    def defiance_melee_ki(self, att: str, dfn: str, wounds: dict[str, int]) -> None:
        """After an exchange between ``att`` and ``dfn`` (``wounds``: model -> wounds taken):
        a defiant model that wounded the other gains Ki equal to its Ki statistic plus its
        Spirit (X) (up to its Ki limit)."""
        for dealer, victim in ((att, dfn), (dfn, att)):
            if wounds.get(victim, 0) <= 0 or not self.defiant(dealer) or not self.state.models[dealer].alive:
                continue
            has, xv = self._trait(victim, "spirit")
            try:
                spirit = int(xv or 0) if has else 0
            except (TypeError, ValueError):
                spirit = 0
            ki = self.state.models[victim].ki_stat + spirit
            self._emit(Event("note", {"text": f"{SOURCE}: {dealer} wounded {victim} in melee and gains {ki} Ki (its Ki "
                                              f"statistic {self.state.models[victim].ki_stat} + Spirit {spirit})"}))
            if ki > 0:
                self._emit(Event("ki_change", {"model": dealer, "delta": ki}))

    def _defiance_activation_end(self) -> None:
        """At the end of an activation: each defiant model that activated in it and dealt
        no damage in a melee exchange of it gains a Bleed (1) marker (one log line each,
        which is also where the next check stops)."""
        acts: list[tuple[int, str]] = []
        for i in range(len(self.events) - 1, -1, -1):
            ev = self.events[i]
            if ev.kind in ("turn", "phase", "position", "active"):
                break
            if ev.kind == "note" and str(ev.data.get("text", "")).startswith(_NOTE):
                break
            if ev.kind == "activate":
                acts.append((i, str(ev.data.get("model"))))
        for i, mid in sorted(acts):
            m = self.state.models.get(mid)
            if m is None or not m.alive or not self.defiant(mid):
                continue
            dealt = any(e.kind == "exchange" and mid in (e.data.get("attacker"), e.data.get("defender"))
                        and any(k != mid and n > 0 for k, n in (e.data.get("wounds") or {}).items())
                        for e in self.events[i:])
            if dealt:
                self._emit(Event("note", {"text": f"{_NOTE}{mid} dealt melee damage in its activation: no Bleed"}))
            else:
                self._emit(Event("note", {"text": f"{_NOTE}{mid} dealt no melee damage in its activation: it gains "
                                                  "a Bleed (1) marker"}))
                self._gain(mid, "bleed", 1, value=1)

    # the kinds of this module, registered where they are defined
    register(ActionKind("defiance", _legal_defiance, _resolve_defiance))
