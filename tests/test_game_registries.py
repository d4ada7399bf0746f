"""The game package's registries (issue #11): every action kind once, with its rulebook
name, page, counters and functions; every event kind once, with its data keys, what it
does and its log line. (That no module outside the package touches a private name of the
Game, or reads the call stack, is ruff's job: SLF001, PLC2701 and TID251 in pyproject.toml.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.rules import action_kinds, conditions
from sim.rules.game import ACTION_KINDS, EVENT_KINDS, Action, ActionKind, Event, GameError, GameState, apply_event

ROOT = Path(__file__).resolve().parents[1]

#: The trait actions and free steps of sim.rules.game.support_step (Command, Order, Leech,
#: Channel, Virtue; p.50-59).
_SUPPORT_KINDS = {"command", "order", "leech", "channel", "virtue", "spend_virtue"}
#: The card actions and free steps of sim.rules.game.turn_traits (Heal, Jump Up, Cultist; p.50-54).
_TURN_TRAIT_KINDS = {"heal", "jump_up", "cultist", "fortune", "oni_rage", "group_fight", "cavalry",
                     "death_sentence"}  # Death Sentence's Starting phase choice (p.43, death_sentence)

#: The answers and free steps of sim.rules.game.answer_traits (Blood of Orochi, Bodyguard, Pack; p.49, p.55).
_ANSWER_KINDS = {"orochi", "bodyguard", "pack", "sacrifice", "defiance"}

#: The Starting phase and exchange choices of the audits and the test traits: Intimidate
#: (p.54), the Tactical test winner's choice of who acts first (p.29), Eagle's Flight's move (p.41).
_CHOICE_KINDS = {"intimidate", "tactical_choice", "eagles_flight"}

#: The answer to a triggered Ki feat and a used feat's delayed step (sim.rules.game.feat_triggers; p.46).
_FEAT_KINDS = {"decline_feat", "feat_later"}


def test_every_action_kind_has_its_rulebook_name_page_counters_and_functions():
    assert set(ACTION_KINDS) == {"walk", "run", "charge", "melee", "disengage", "shoot", "focus", "wait", "stand_up",
                                 "ki_feat", "complex_ki_feat", "feat", "scenario", "complex_scenario", "pass",
                                 "allocate", "intercept", "arrive"} | _SUPPORT_KINDS | _TURN_TRAIT_KINDS \
        | _ANSWER_KINDS | _FEAT_KINDS | _CHOICE_KINDS
    for key, kind in ACTION_KINDS.items():
        assert kind.key == key and kind.name and kind.page.startswith("p.")
        assert callable(kind.legal) and callable(kind.resolve)
        assert kind.counters in (0, 1, 2) and kind.timing in ("activation", "pass", "answer")
        assert (kind.counters == 0) == (kind.timing != "activation")
    # one complexity: the registry agrees with the conditions module's table (p.24)
    assert {k for k, v in ACTION_KINDS.items() if v.counters == 2} == set(conditions.COMPLEX_ACTIONS)
    simple = {k for k, v in ACTION_KINDS.items() if v.counters == 1}
    assert set(conditions.SIMPLE_ACTIONS) - simple == set()  # heal too: the engine offers it (p.52)
    assert simple <= set(conditions.SIMPLE_ACTIONS)


def test_action_complexity_is_defined_once_in_the_rules_table():
    # the conditions and the game's registry read the same table (p.24)
    assert conditions.SIMPLE_ACTIONS is action_kinds.SIMPLE_ACTIONS
    assert conditions.COMPLEX_ACTIONS is action_kinds.COMPLEX_ACTIONS
    for key, kind in ACTION_KINDS.items():
        rule = action_kinds.ACTION_RULES[key]
        assert (kind.name, kind.page, kind.counters, kind.timing, kind.boost) == \
            (rule.name, rule.page, rule.counters, rule.timing, rule.boost)
    # every automated kind of the table is registered; heal (Heal (X), a card action) too (p.52)
    assert {k for k, r in action_kinds.ACTION_RULES.items() if r.automated} == set(ACTION_KINDS)
    assert action_kinds.ACTION_RULES["heal"].automated and action_kinds.counters_of("heal") == 1


def test_an_action_kind_outside_the_rules_table_cannot_be_registered():
    for key in ("fly",):
        with pytest.raises(ValueError, match=f"action kind '{key}' is not an automated kind"):
            ActionKind(key, lambda *a: (True, ""), lambda *a: None)


def test_action_counters_and_the_free_and_complex_kinds_come_from_the_registry():
    assert Action("charge", "a", target="b").counters == 2 and Action("walk", "a").counters == 1
    assert Action("allocate", "a").counters == 0 and Action("fly", "a").counters == 1  # unknown: Simple
    assert set(Action.COMPLEX) == {"charge", "focus", "complex_ki_feat", "complex_scenario", "order"}
    assert set(Action.FREE) == {"allocate", "pass", "feat", "intercept", "arrive", "leech", "channel", "virtue",
                                "spend_virtue", "jump_up", "cultist", "fortune", "oni_rage", "group_fight",
                                "cavalry", "death_sentence"} | _ANSWER_KINDS | _FEAT_KINDS | _CHOICE_KINDS


@pytest.mark.parametrize("save", sorted((ROOT / "tests" / "data" / "golden").glob("*.json"))
                         + sorted((ROOT / "tests" / "data" / "saves").glob("*.json")), ids=lambda p: p.stem)
def test_every_saved_event_matches_its_declared_kind(save):
    for doc in json.loads(save.read_text())["events"]:
        kind = EVENT_KINDS[doc["kind"]]
        keys = set(doc) - {"kind"}
        declared = {f.rstrip("?") for f in kind.fields}
        required = {f for f in kind.fields if not f.endswith("?")}
        assert keys <= declared, (doc["kind"], keys - declared)
        assert required <= keys, (doc["kind"], required - keys)
        assert Event.from_json(doc).describe()


def test_an_unknown_event_kind_is_refused_and_described_plainly():
    with pytest.raises(GameError, match="unknown event 'comet'"):
        apply_event(GameState(), Event("comet", {"x": 1}))
    assert Event("comet", {"x": 1}).describe() == "comet: {'x': 1}"


