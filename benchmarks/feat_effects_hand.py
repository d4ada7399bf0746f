"""Hand-curated Ki feat effects (issue #13): entries the drafting patterns of
``benchmarks/draft_feat_effects.py`` miss or read wrongly, keyed by the feat's printed name.

Each value holds the effect part of a ``data/feats/effects.yaml`` entry (``when``, ``affects``,
``test``, ``effects``, ``manual``, optional ``summary``, ``target_keywords``, ``target_rice``);
the facts (cost, timing, area, range, opposed, limits) always come from the catalogues.
Summaries are our words, never the card's text.
"""

from __future__ import annotations

from typing import Any

HAND: dict[str, dict[str, Any]] = {
    # --- a kill nearby heals the user by the killed model's Ki statistic
    "Consume Soul": {
        "when": "trigger:killed_enemy_within", "affects": "self",
        "effects": [{"op": "heal", "n": "target_ki"}],
        "summary": "when an enemy model is killed within range, the user heals wounds equal to that model's Ki stat",
    },
    "Soul Thirst": {
        "when": "trigger:killed_enemy_within", "affects": "self",
        "effects": [{"op": "heal", "n": "target_ki"}, {"op": "ki", "n": "target_ki"}],
        "summary": "when an enemy model is killed in the Pulse, the user heals wounds and gains Ki tokens, "
                   "each equal to that model's Ki stat",
    },
    # --- no special attacks or defences against the user
    "Dirty Fighting": {
        "when": "action", "affects": "self",
        "effects": [{"op": "no_specials", "until": "activation"}],
        "summary": "enemies fighting the user declare no special attacks or defences until the end of the activation",
    },
    "Kawasu": {
        "when": "any", "affects": "self",
        "effects": [{"op": "no_specials", "until": "activation"}],
        "summary": "enemies fighting the user declare no special attacks or defences until the end of the activation",
    },
    # --- "for the next damage roll": read as the current melee exchange (one damage roll per exchange)
    "Mighty Blow": {
        "when": "exchange", "affects": "self",
        "effects": [{"op": "grant", "traits": ["Strong"], "until": "exchange"}],
        "summary": "the user's melee damage roll in this exchange is Strong",
    },
    "Heavy Blow": {
        "when": "exchange", "affects": "self",
        "effects": [{"op": "grant", "traits": ["Strong"], "until": "exchange"}],
        "summary": "the user's melee damage roll in this exchange is Strong",
    },
    "Fists of Iron": {
        "when": "exchange", "affects": "self", "max_x": 3,
        "effects": [{"op": "stat", "changes": {"strength": "X"}, "until": "exchange"}],
        "summary": "the user's melee weapons get +X strength (X at most 3) for the current exchange",
    },
    # --- "may not declare Scenario actions": the effect of Aloof (p.48)
    "Forestall": {
        "when": "action", "affects": "target_enemy",
        "effects": [{"op": "grant", "traits": ["Aloof"], "until": "end_phase"}],
        "summary": "the enemy target may take no Scenario actions this turn (as if Aloof)",
    },
    # --- a Size challenge or be pushed away
    "Wing Buffet": {
        "when": "action", "affects": "models",
        "test": {"kind": "challenge", "stat": "size", "tn": 6, "by": "target"},
        "effects": [{"op": "move", "distance": 2, "kind": "away"}],
        "summary": "every other model in the Pulse that fails a Size (6) challenge is pushed 2 inches away "
                   "(a friendly Cloudwalk model may pass at will: read as passing)",
    },
    # --- the target is Surprised: it may use no Ki boosts in the opposed test
    "Psychic Venom": {
        "when": "action", "affects": "target_enemy", "max_x": 3, "target_surprised": True,
        "effects": [{"op": "condition", "name": "poisoned", "n": "X", "value": 2}],
        "summary": "the enemy target (Surprised, losing the opposed Ki test) gains X Poisoned (2) markers, X at most 3",
    },
    # --- round 2 vocabulary (H15): a chosen model, a choice of effects, a contact trigger, Ki taken
    "Detect": {
        "when": "action", "affects": "models", "max_affected": 1,
        "effects": [{"op": "lose", "traits": ["Camouflage"], "until": "end_phase"}],
        "summary": "one model the player picks in the Pulse loses Camouflage until the End phase",
    },
    "Mutation": {
        "when": "any", "affects": "self",
        "effects": [{"op": "choice", "labels": ["melee strength", "Regenerate", "Armour"], "options": [
            [{"op": "stat", "changes": {"strength": 1}, "weapon": "melee", "until": "end_phase"}],
            [{"op": "grant", "traits": ["Regenerate (2)"], "until": "end_phase"}],
            [{"op": "grant", "traits": ["Armour (+1)"], "until": "end_phase"}]]}],
        "summary": "until the End phase the user picks +1 melee weapon strength, Regenerate (2) or Armour (+1)",
    },
    "Reputation": {
        "when": "trigger:enemy_contact", "affects": "target_enemy",
        "effects": [{"op": "condition", "name": "stunned"}],
        "summary": "an enemy that comes into base contact with the user gains a Stunned marker",
    },
    "Psychic Drain": {
        "when": "action", "affects": "target_enemy", "target_surprised": True,
        "effects": [{"op": "take_ki", "n": 3}],
        "summary": "the user takes up to 3 Ki tokens from the enemy target (Surprised, losing the opposed Ki test)",
    },
}
