"""The turn (p.20-21): the Starting phase (variable game length roll, Ki generation,
activation counters, Diseased and Death Sentence, the Tactical test, pass tokens), the
alternation of the Main phase, the End phase (Fear re-tests, Bleed/Poison/Fire damage,
expiry, the scenario's scoring) and the end of the game.

A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

from sim.rules import conditions
from sim.rules.dice import RollKind, RollPurpose, tactical_test
from sim.rules.game import melee_traits
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import MAX_TURNS
from sim.rules.scenario import final_result


class TurnPhases(GamePart):
    """The phases of a turn (a mixin of :class:`~sim.rules.game.Game`)."""

    def _start_turn(self) -> None:
        st = self.state
        turn = st.turn + 1
        self._emit(Event("turn", {"turn": turn}))
        self._scenario_start()
        kind, x = self.length
        if kind == "variable" and turn >= x:
            roll = self._roller.roll(1, RollPurpose(RollKind.GAME_LENGTH))[0]
            self._emit(Event("game_length", {"roll": roll, "last": roll >= 4 or turn >= MAX_TURNS}))
        elif (kind == "fixed" and turn >= x) or turn >= MAX_TURNS:
            self._emit(Event("game_length", {"roll": None, "last": True}))
        if self._fortune_due():  # step 2: Fortune's coin toss, the players' choice (p.52, turn_traits)
            return
        self._starting_from_ki()

    def _starting_from_ki(self) -> None:
        """The Starting phase from step 2 on (p.20): Ki generation, counters, step 5's
        effects, the Tactical test, the choices and arrivals, pass tokens."""
        st = self.state
        # Ki generation (p.20 step 2): none with Spirit Block, which then loses a marker;
        # models Elsewhere generate Ki as usual (p.5); Fortune doubles or cancels it (p.52)
        gains = {m.id: (m.ki_stat if conditions.generates_ki(conditions.from_model(m)) else 0) for m in st.in_game()}
        self._emit(Event("ki", {"gains": self._fortune_gains(gains)}))
        for m in st.in_game():
            if "spirit_block" in m.conditions:
                self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "spirit_block", 1))
        self._emit(Event("counters", {"n": 2}))
        self._starting_phase_effects()
        # Tactician (X) (p.58): "this model adds X dice when it makes Tactical tests"; each
        # player nominates a model (p.28), the one with the highest X on the table
        tact = {p: max((int(self._trait(m.id, "tactician")[1] or 0) for m in st.alive(p)
                        if self._trait(m.id, "tactician")[0]), default=0) for p in (1, 2)}
        tact, won = self.tactical_feats(tact)  # round 6 (F4): Insight, Art of War (feat_rolls)
        res = won or tactical_test(self._roller, tactician_1=tact[1], tactician_2=tact[2],
                                   rerolls=melee_traits.tactical_rerolls(self))  # Prowess [Tactical] (p.56)
        res = self.tactical_counsel(res, tact)  # round 6 (F4): the roll made again (feat_rolls)
        # the winner chooses who acts first; a simple, fixed choice: the winner does
        self._emit(Event("tactical", {"winner": res.winner, "first": res.winner,
                                      "rolls": [[r1.final, r2.final] for r1, r2 in res.rounds]}))
        self._strategy(res.winner)  # Strategy [B]: the Tactical roll's winner's models gain B (p.58)
        self._continue_starting_phase()

    #: The Starting phase's step 5 choices, in the order the game offers them: Death
    #: Sentence, pay 3 Ki or keep it (p.43); In Defiance of the Gods (catalogue); Oni Rage
    #: (p.55); Intimidate (p.54); Flank models arriving (p.52). Each ``_<step>_due`` opens
    #: its choice and returns True when the game must wait for it.
    STARTING_CHOICES = ("death_sentence", "defiance", "oni_rage", "intimidate", "arrivals")

    def _continue_starting_phase(self, after: str | None = None, pending=None) -> None:
        """Go on with the Starting phase after the choice ``after`` (None: from the first):
        while ``pending(player)`` says the active player, then the other, still has a choice
        of that step, it waits for them; then the next due step of
        :data:`STARTING_CHOICES` opens, or the Main phase starts (p.20 step 5-6)."""
        st = self.state
        if pending is not None:
            if pending(st.active):
                return
            other = 3 - (st.active or 1)
            if pending(other):
                self._emit(Event("active", {"player": other}))
                return
        steps = self.STARTING_CHOICES
        for step in steps[steps.index(after) + 1:] if after is not None else steps:
            if getattr(self, f"_{step}_due")():
                return
        self._open_main()

    def _open_main(self) -> None:
        """The end of the Starting phase (p.20 step 6: pass tokens for the side with fewer
        models in the game, those Elsewhere included) and the start of the Main phase."""
        st = self.state
        n1, n2 = len(st.in_game(1)), len(st.in_game(2))
        self._emit(Event("pass_tokens", {"tokens": {"1": max(0, n2 - n1), "2": max(0, n1 - n2)}}))
        self._strategy_pass_tokens()  # Strategy [+1 Pass Token] (p.58)
        self._emit(Event("phase", {"phase": "main"}))
        assert st.first is not None  # the Tactical test's winner chose it
        self._next_active(st.first, first=True)

    def _starting_phase_effects(self) -> None:
        """Step 5 of the Starting phase (p.20, p.43-45): Diseased removes a marker and an
        activation counter. (Death Sentence's 3 Ki to remove a marker is its player's
        choice, offered after the Tactical test: :mod:`sim.rules.game.death_sentence`.)"""
        self._starting_traits()  # Impetuous (X) markers (p.54)
        self._orochi_start()  # Blood of Orochi: the pool's tokens given (p.49, answer_traits)
        for m in self.state.alive():
            eff = conditions.start_phase_effects(conditions.from_model(m), ki=m.ki)
            if eff.counters_lost:
                self._emit(Event("note", {"text": f"{m.id} is Diseased: one marker and one activation counter "
                                                  "removed"}))
                self._emit(Event("counter", {"model": m.id, "n": eff.counters_lost}))
                self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "diseased", 1))

    def _next_active(self, preferred: int, first: bool = False) -> None:
        """Make ``preferred`` active if it can act, else the other player; if neither
        can, play the End phase (p.21, Main phase step 6-7). After an action that left a
        side with no models in the game, the End phase at once (p.21 step 4)."""
        st = self.state
        self._defiance_activation_end()  # In Defiance of the Gods (catalogue): Bleed (1) without melee damage
        self._end_effects("action")  # an activation (its one action) has ended (p.24)
        self._end_effects("activation")
        if not first and (not st.in_game(1) or not st.in_game(2)):
            # "if either player has no models left in the game, go immediately to the End
            # phase" (p.21 step 4): after any action -- a shot, an exchange, a feat
            self._end_phase()
            return
        if not first and self.commanded():  # the commanded models act before the other player (p.50)
            return
        other = 3 - preferred
        for p in (preferred, other):
            if st.can_activate(p):
                if st.active != p or first:
                    self._emit(Event("active", {"player": p}))
                return
        self._end_phase()

    def _end_phase(self) -> None:
        st = self.state
        self._defiance_activation_end()  # In Defiance of the Gods (catalogue): the last activation
        self._end_effects("action")
        self._end_effects("activation")
        self._end_effects("end_phase")  # effects "until the End phase" end as it starts
        self._emit(Event("phase", {"phase": "end"}))
        # step 1, negative effects first: a Frightened model re-takes its Fear test (p.44)
        for m in st.alive():
            for name, tn in conditions.end_phase_tests(conditions.from_model(m)):
                # the model's traits act (p.29, sim.rules.test_traits); the source is not kept
                res, why = self._fear_roll(m.id, tn, None, f"Frightened, TN {tn}")
                why_s = f" ({', '.join(why)})" if why else ""
                self._emit(Event("test", {"model": m.id, "test": "fear", "tn": tn, "passed": res.passed,
                                          "text": f"{m.id} re-takes its Fear test (TN {tn}){why_s} and "
                                                  f"{'passes: no longer Frightened' if res.passed else 'fails'}"}))
                if res.passed:
                    self._emit(Event("condition", {"model": m.id, "name": "frightened", "on": False}))
        before = self._end_phase_heals()  # step 1's positive effects: Regenerate (p.57)
        # damaging conditions (p.43-45): Bleed, Poisoned, On Fire -- remove the highest
        # marker and take that many wounds; repeat while three or more remain
        for m in st.alive():
            for kind in ("fire", "bleed", "poison"):
                values = sorted(m.markers.get(kind, []), reverse=True)
                if not values:
                    continue
                removed = [values.pop(0)]
                while len(values) >= 3:
                    removed.append(values.pop(0))
                self._emit(Event("marker_damage", {"model": m.id, "marker": kind, "removed": removed,
                                                   "wounds": sum(removed)}))
                if not st.models[m.id].alive:
                    self._emit(Event("note", {"text": f"{m.id} dies of its {kind} markers"}))
                    break
        self._end_phase_removals(before)  # Rise, Last Stand, the turn's Cultist marks (p.50, p.54, p.57)
        # expiry (p.21 step 3): one-turn markers, and Berserk, Blind, one Stunned (p.43-45)
        for m in st.alive():
            for name in [c for c in m.conditions if c in ("surprised", "ran", "shot", "stood_up", "enhancing_start")]:
                self._emit(Event("condition", {"model": m.id, "name": name, "on": False}))
            cs = conditions.from_model(m)
            for name, n in conditions.end_phase_expiry(cs).items():
                count = m.conditions.get(name, 1)
                if not isinstance(count, int) or n is None or count - n <= 0:
                    self._emit(Event("condition", {"model": m.id, "name": name, "on": False}))
                else:
                    self._emit(Event("condition", {"model": m.id, "name": name, "on": True, "value": count - n}))
        self._answer_traits_end()  # Blood of Orochi tokens removed (p.49), Pack marks
        if st.auras or any(u["turn"] for u in st.feat_usage.values()):
            self._emit(Event("end_phase_reset", {}))
        self._end_effects("turn")
        alive1, alive2 = st.in_game(1), st.in_game(2)  # models Elsewhere are still in the game
        # step 4: the scenario scores; the game ends on the last turn, once all 3 VP are
        # scored, or when a side has no models left
        last = not alive1 or not alive2 or st.last_turn or (self.length[0] == "fixed" and st.turn >= self.length[1])
        if self._scenario_end(last) or last:
            self._finish()
            return
        self._start_turn()

    def _finish(self) -> None:
        st = self.state
        sc = self.scenario_state()
        if sc is not None:
            winner, text = final_result(sc)
            self._emit(Event("game_over", {"result": text, "turn": st.turn, "winner": winner,
                                           "vp": {"1": sc.vp.get(1, 0), "2": sc.vp.get(2, 0)}}))
            return
        a1, a2 = len(st.in_game(1)), len(st.in_game(2))
        s1, s2 = st.scores[1], st.scores[2]
        if s1 != s2:
            result = f"player {1 if s1 > s2 else 2} wins on scenario points ({s1}-{s2})"
        elif a1 != a2:
            result = f"player {1 if a1 > a2 else 2} wins with more models left ({a1}-{a2})"
        else:
            result = "draw"
        self._emit(Event("game_over", {"result": result, "turn": st.turn}))
