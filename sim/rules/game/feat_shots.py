"""Ki feats whose shot follows a trigger (feat vocabulary round 6, F1): the ``attack`` op
``at: near`` -- after the trigger (Raijin's Rage: "when this model makes a successful Ranged
Attack"), one ranged attack at another enemy model within ``near`` inches of the model the
trigger names, optionally ignoring range, LoS and Camouflage and made in a fixed range band
(``band``; rulebook p.30-32). The waiting trigger offers one use per model it may shoot
(``Action("feat", model, feat=..., target=...)``) and the refusal; the shot itself is the
ordinary one (:meth:`~sim.rules.game.feat_step.FeatStep.feat_attack`).

A mixin of :class:`~sim.rules.game.Game` (through :class:`~sim.rules.game.feat_step.FeatStep`).
"""

from __future__ import annotations

from sim.rules.feat_effects import attack_of, entry_status, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.feat_triggers import LATER, FeatTriggers
from sim.rules.game.state import ModelState


class FeatShots(FeatTriggers):
    """The offers of a triggered feat's shot at a model its player names."""

    def trigger_has_use(self, m: ModelState, feat: str, source: str) -> bool:
        """Whether ``m``'s feat ``feat``, triggered by model ``source``, could do anything:
        a shot ``at: near`` needs a model to shoot near ``source`` (else no trigger waits)."""
        entry = feat_effect(feat)
        op = attack_of(entry)
        if entry is None or op is None or op.at != "near":
            return True
        return bool(self.feat_shot_targets(m, entry, trigger=source or None))

    def trigger_actions(self) -> list[Action]:
        """The choices while a trigger waits (:meth:`FeatTriggers.trigger_actions`); for a
        feat whose shot goes at a model near the triggering one (``at: near``): one use per
        model it may shoot, and declining it."""
        got = self.triggers_pending()
        if got:
            mid, feat, why = got[0]
            entry = feat_effect(feat)
            op = attack_of(entry)
            if entry is not None and op is not None and op.at == "near" and LATER not in why \
                    and entry_status(entry)[0]:
                m = self.state.models[mid]
                uses = [Action("feat", mid, feat=feat, target=t) for t in self.feat_shot_targets(m, entry)]
                return [a for a in uses if self.is_legal(a)[0]] + [Action("decline_feat", mid, feat=feat)]
        return super().trigger_actions()
