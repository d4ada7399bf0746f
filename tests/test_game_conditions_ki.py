"""Conditions and Ki in the turn sequence (p.20-21, p.43-47): Spirit Block, Diseased,
Death Sentence, Frightened, Impetuous, Berserk, Immobilised, Held, Disguised; Ki feats
(Simple, Complex, Instant, Active; Target, Aura, Pulse; Once per turn) and Ki boosts."""

from __future__ import annotations

import pytest

from sim.rules.bots import RandomBot, play
from sim.rules.dice import PhysicalDice
from sim.rules.game import Action, Game, GameError
from sim.table import parse_table
from tests.conftest import set_active, set_model

#: Akira's Ki feats as TABLE_YAML lists them.
AKIRA_FEATS = "feats: [Spirit Bolt, Inner Calm, Mind Clash, Warding Presence, Shockwave, Puppet Strings]"

# Akira (Ki 2/8, Melee 4, boosts: Melee 3) and Kenta face Masunagi (Ki 2/6) and Ishi (Ki 1/6).
TABLE_YAML = """
format: bushido-table/1
name: duel
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: akira, player: 1, profile: takashi-akira, position: [6, 6],
     facing: 0, feats: [Spirit Bolt, Inner Calm, Mind Clash, Warding Presence, Shockwave, Puppet Strings]}
  - {id: kenta, player: 1, profile: takashi-kenta, position: [6, 18], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [11, 6], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [20, 18], facing: 180}
"""


def table(yaml: str = TABLE_YAML):
    return parse_table(yaml, "<test>")


def game(seed: int = 1, turns: int = 3, yaml: str = TABLE_YAML) -> Game:
    return Game(table(yaml), seed=seed, length=("fixed", turns))


def set_cond(g: Game, mid: str, name: str, value=1) -> None:
    """Put a condition on a model (a position set by hand)."""
    set_model(g, mid, conditions={**g.state.models[mid].conditions, name: value})


def make_active(g: Game, player: int) -> None:
    set_active(g, player)


def set_ki(g: Game, mid: str, ki: int) -> None:
    set_model(g, mid, ki=ki)


def end_turn(g: Game) -> None:
    """Both players wait until the turn ends (pass tokens unused)."""
    turn = g.state.turn
    while not g.is_over() and g.state.turn == turn:
        p = g.state.active
        m = next(x for x in g.state.alive(p) if not x.exhausted and not g.state.impetuous_blocks(x))
        g.push(Action("wait", m.id))


# ------------------------------------------------------------------ Starting phase
def test_spirit_block_stops_ki_generation_and_loses_one_marker():
    g = game()
    set_cond(g, "akira", "spirit_block", 2)
    ki_before = g.state.models["akira"].ki
    end_turn(g)
    m = g.state.models["akira"]
    assert m.ki == ki_before  # no Ki generated in turn 2
    assert m.conditions.get("spirit_block") == 1
    assert g.state.models["kenta"].ki == 4  # the others generate


def test_diseased_costs_a_counter_and_a_marker():
    g = game()
    set_cond(g, "kenta", "diseased", 1)
    end_turn(g)
    m = g.state.models["kenta"]
    assert m.counters == 1 and "diseased" not in m.conditions
    assert any("Diseased" in line for line in g.log())


def test_death_sentence_is_paid_off_with_three_ki():
    g = game()
    set_cond(g, "akira", "death_sentence", 1)
    set_ki(g, "akira", 5)
    end_turn(g)
    g.push(Action("death_sentence", "akira", special="pay"))  # the player's choice (p.43, test_audit_a4)
    m = g.state.models["akira"]
    assert "death_sentence" not in m.conditions
    assert m.ki == 5 + 2 - 3


def test_death_sentence_stays_without_enough_ki():
    g = game()
    set_cond(g, "akira", "death_sentence", 1)
    set_ki(g, "akira", 0)
    end_turn(g)  # generates 2 Ki: not enough
    assert "death_sentence" in g.state.models["akira"].conditions


# ------------------------------------------------------------------ End phase
class Scripted:
    """Dice that give ``first`` and then seeded rolls."""

    def __init__(self, first, seed: int = 0):
        from sim.rules.dice import SeededDice

        self.first = list(first)
        self.rest = SeededDice(seed)

    def roll(self, n: int, purpose=None) -> list[int]:
        if self.first:
            out, self.first = self.first[:n], self.first[n:]
            return out
        return self.rest.roll(n)


@pytest.mark.parametrize("roll, passes", [(6, True), (2, False)])
def test_frightened_retakes_the_fear_test_in_the_end_phase(roll, passes):
    g = game()
    set_cond(g, "akira", "frightened", 5)
    turn = g.state.turn
    while g.state.turn == turn and not g.is_over():
        p = g.state.active
        m = next(x for x in g.state.alive(p) if not x.exhausted)
        if sum(x.counters for x in g.state.alive()) == 1:  # the last action of the turn
            g.dice = Scripted([roll] * 4)  # Akira has Bravery: a failed test is re-rolled
        g.push(Action("wait", m.id))
    assert ("frightened" not in g.state.models["akira"].conditions) == passes
    assert any("re-takes its Fear test (TN 5)" in line for line in g.log())


def test_fear_on_contact_stores_the_fear_tn():
    # Kazuha (Fear) charges: the target keeps the TN in its Frightened value
    from sim.rules.game import Game as G

    g = G(table(TABLE_YAML.replace("takashi-akira", "kazuha")), seed=3, length=("fixed", 2))
    make_active(g, 1)
    g.gain_condition("masunagi", "frightened", value=4)
    assert g.state.models["masunagi"].conditions["frightened"] == 4
    g.gain_condition("masunagi", "frightened", value=3)  # the highest TN is kept
    assert g.state.models["masunagi"].conditions["frightened"] == 4


# ------------------------------------------------------------------ Main phase conditions
def test_impetuous_models_activate_first_and_lose_a_marker_per_action():
    g = game()
    make_active(g, 1)
    set_cond(g, "kenta", "impetuous", 1)
    ok, why = g.is_legal(Action("wait", "akira"))
    assert not ok and "Impetuous" in why
    assert {a.model for a in g.legal_actions() if a.model} == {"kenta"}
    g.push(Action("wait", "kenta"))
    assert "impetuous" not in g.state.models["kenta"].conditions
    make_active(g, 1)
    assert g.is_legal(Action("wait", "akira"))[0]


def test_berserk_must_attack_the_closest_enemy():
    g = game()
    make_active(g, 1)
    set_cond(g, "akira", "berserk", 1)
    kind, target, _ = g.berserk_forced("akira")
    assert target == "masunagi" and kind in ("melee", "charge")
    ok, why = g.is_legal(Action("wait", "akira"))
    assert not ok and "Berserk" in why
    ok, why = g.is_legal(Action(kind, "akira", target="ishi"))
    assert not ok
    acts = [a for a in g.legal_actions() if a.model == "akira"]
    assert acts and all(a.kind == kind and a.target == "masunagi" for a in acts)


def test_gaining_berserk_gives_an_impetuous_marker():
    g = game()
    g.gain_condition("akira", "berserk")
    assert "impetuous" in g.state.models["akira"].conditions


@pytest.mark.parametrize("roll, moves", [([6, 6], True), ([1, 2], False)])
def test_immobilised_takes_a_size_test_before_moving(roll, moves):
    g = game()
    make_active(g, 1)
    set_cond(g, "akira", "immobilised", 1)
    g.dice = PhysicalDice(roll)  # Small: 2 dice, TN 6
    start = g.state.models["akira"].position
    g.push(Action("walk", "akira", point=(6.0, 8.0)))
    m = g.state.models["akira"]
    assert (m.position != start) == moves
    assert m.counters == 1  # the action was completed either way
    assert ("immobilised" in m.conditions) == (not moves)


def test_held_model_may_only_disengage_and_is_released_out_of_contact():
    g = game()
    make_active(g, 1)
    set_cond(g, "akira", "held", "masunagi")
    ok, why = g.is_legal(Action("walk", "akira", point=(6, 8)))
    assert not ok and "Held" in why
    # the holder walks away: akira is released
    make_active(g, 2)
    g.push(Action("walk", "masunagi", point=(14, 6)))
    assert "held" not in g.state.models["akira"].conditions


def test_disguised_target_refused_to_low_ki_and_tested_by_others():
    g = game()
    make_active(g, 2)
    set_cond(g, "akira", "disguised", 4)
    # Ishi (Ki 1) may not shoot or charge it
    ok, why = g.is_legal(Action("charge", "ishi", target="akira"))
    assert not ok and "Disguised" in why
    # Masunagi (Ki 2) must pass a Ki (4) test: it fails, the activation ends
    g.dice = PhysicalDice([1, 2])
    g.push(Action("melee", "masunagi", target="akira"))
    assert g.state.exchange is None and g.state.models["masunagi"].position == (11.0, 6.0)
    assert g.state.models["masunagi"].counters == 1
    assert "disguised" in g.state.models["akira"].conditions


# ------------------------------------------------------------------ Ki feats
def test_spirit_bolt_pays_tests_and_wounds():
    g = game()
    make_active(g, 1)
    set_ki(g, "akira", 4)
    g.dice = PhysicalDice([5, 3])  # Ki 2 dice: 5 + 1 support = 6 >= 4
    a = Action("ki_feat", "akira", feat="Spirit Bolt", target="masunagi")
    assert a in g.legal_actions()
    g.push(a)
    assert g.state.models["akira"].ki == 2
    assert g.state.models["masunagi"].damage == 1
    assert g.state.models["akira"].counters == 1
    assert g.state.active == 2  # a Simple Ki feat is an action


def test_spirit_bolt_out_of_range_loses_its_ki():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[18, 6]"))
    make_active(g, 1)
    set_ki(g, "akira", 4)
    a = Action("ki_feat", "akira", feat="Spirit Bolt", target="masunagi")
    assert a not in g.legal_actions()  # not offered
    assert g.is_legal(a)[0]  # but may be declared (p.47: it fails, the Ki is lost)
    g.push(a)
    assert g.state.models["akira"].ki == 2 and g.state.models["masunagi"].damage == 0
    assert any("fails and its Ki is lost" in line for line in g.log())


@pytest.mark.parametrize("walk", ["before", "after"])
def test_feat_with_declared_walk_without_destination_is_refused(walk):
    """A Ki feat action declaring a Walk (p.25) but no point is refused with a reason
    (it raised TypeError before)."""
    g = game()
    make_active(g, 1)
    set_ki(g, "akira", 4)
    a = Action("ki_feat", "akira", feat="Spirit Bolt", target="masunagi", walk=walk)
    ok, why = g.is_legal(a)
    assert not ok and "the declared Walk: no destination" in why
    g.push(a)  # an illegal action: reverted, one counter lost, no Ki paid
    assert g.state.models["akira"].ki == 4 and g.state.models["akira"].counters == 1


def test_no_btb_feat_refused_in_contact():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[7.19, 6]"))
    make_active(g, 1)
    set_ki(g, "akira", 4)
    ok, why = g.is_legal(Action("ki_feat", "akira", feat="Spirit Bolt", target="masunagi"))
    assert not ok and "No BtB" in why


def test_feat_kind_must_match_its_timing_and_cost_must_be_paid():
    g = game()
    make_active(g, 1)
    set_ki(g, "akira", 1)
    ok, why = g.is_legal(Action("feat", "akira", feat="Spirit Bolt", target="masunagi"))
    assert not ok and "ki_feat" in why
    ok, why = g.is_legal(Action("ki_feat", "akira", feat="Spirit Bolt", target="masunagi"))
    assert not ok and "costs 2 Ki" in why
    ok, why = g.is_legal(Action("ki_feat", "akira", feat="Fireball", target="masunagi"))
    assert not ok and "no Ki feat" in why


def test_instant_feat_costs_no_counter_and_keeps_the_player_active():
    g = game()
    make_active(g, 1)
    set_cond(g, "akira", "stunned", 2)
    set_ki(g, "akira", 3)
    a = Action("feat", "akira", feat="Inner Calm")
    assert a in g.legal_actions()
    g.push(a)
    m = g.state.models["akira"]
    assert m.conditions["stunned"] == 1 and m.counters == 2 and m.ki == 2 and g.state.active == 1
    with pytest.raises(GameError, match="Once per turn"):
        g.push(a)  # once per turn
    end_turn(g)
    assert (g.is_legal(Action("feat", "akira", feat="Inner Calm"))[0]
            or "stunned" not in g.state.models["akira"].conditions)
    assert g.state.feat_usage["akira"]["turn"] == []


def test_warding_presence_aura_adds_a_melee_die_to_friends_inside():
    g = game(yaml=TABLE_YAML.replace("[6, 18]", "[6, 8.5]"))
    make_active(g, 1)
    set_ki(g, "akira", 4)
    before = g.combatant("kenta", True, False)
    g.push(Action("feat", "akira", feat="Warding Presence"))
    after = g.combatant("kenta", True, False)
    assert ("Warding Presence (akira)", 1) in after.modifiers and not before.modifiers
    assert g.state.auras and g.state.models["akira"].ki == 2
    end_turn(g)
    assert g.state.auras == []


def test_shockwave_stuns_every_other_model_in_the_pulse_once_per_game():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[8.5, 6]"))
    make_active(g, 1)
    set_ki(g, "akira", 6)
    g.push(Action("complex_ki_feat", "akira", feat="Shockwave", x=2))
    assert g.state.models["masunagi"].conditions.get("stunned") == 2
    assert "stunned" not in g.state.models["akira"].conditions
    assert g.state.models["akira"].counters == 0 and g.state.models["akira"].ki == 4
    assert "Shockwave" in g.state.feat_usage["akira"]["game"]


def test_mind_clash_is_an_opposed_ki_test():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[9, 6]"))
    make_active(g, 1)
    set_ki(g, "akira", 2)
    g.dice = PhysicalDice([6, 5, 2, 1])  # akira 6+1, masunagi 2
    g.push(Action("ki_feat", "akira", feat="Mind Clash", target="masunagi"))
    assert g.state.models["masunagi"].conditions.get("stunned") == 1


# ------------------------------------------------------------------ Ki boosts
def test_move_boost_lets_a_walk_go_further_and_costs_ki():
    t = TABLE_YAML.replace("takashi-kenta", "kazuha")  # Kazuha: Move 5, Move boost 3
    g = game(yaml=t)
    make_active(g, 1)
    set_ki(g, "kenta", 6)
    far = (6.0 + 5.8, 18.0)
    assert not g.is_legal(Action("walk", "kenta", point=far))[0]
    a = Action("walk", "kenta", point=far, boost=1)
    assert g.is_legal(a)[0]
    g.push(a)
    assert g.state.models["kenta"].position == far and g.state.models["kenta"].ki == 3


def test_boost_refused_without_a_boost_value_or_ki_or_above_twice_the_base():
    g = game()
    make_active(g, 1)
    set_ki(g, "akira", 2)
    ok, why = g.is_legal(Action("walk", "akira", point=(6, 8), boost=1))
    assert not ok and "no Ki boost" in why  # Akira has no Move boost
    set_ki(g, "kenta", 2)
    ok, why = g.is_legal(Action("shoot", "kenta", target="ishi", boost=1))
    assert not ok  # Kenta has no Ranged boost either


def test_melee_boost_adds_dice_to_the_pool():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[7.19, 6]"))
    make_active(g, 1)
    set_ki(g, "akira", 6)
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.state.exchange is not None
    pool = g.exchange_pools()["akira"]
    g.push(Action("allocate", "akira", attack=pool + 1, defence=0, boost=1))
    assert g.state.models["akira"].ki == 3
    with pytest.raises(GameError):
        g.push(Action("allocate", "masunagi", attack=9, defence=9))


def test_random_games_with_feats_keep_the_invariants():
    for seed in range(6):
        g = game(seed=seed, turns=3)
        for mid in ("akira",):
            set_ki(g, mid, 8)
        bots = (RandomBot(seed), RandomBot(seed + 100))
        n = 0
        while not g.is_over():
            g.push(bots[g.to_move() - 1].choose(g))
            n += 1
            for m in g.state.models.values():
                assert 0 <= m.ki <= m.ki_limit and m.counters >= 0 and 0 <= m.damage <= m.wounds
            assert n < 2000
        assert g.replay().snapshot() == g.snapshot()


def test_save_load_replay_with_feats_and_boosts(tmp_path):
    g = game()
    make_active(g, 1)
    set_ki(g, "akira", 6)
    g.push(Action("feat", "akira", feat="Warding Presence"))
    g.push(Action("ki_feat", "akira", feat="Spirit Bolt", target="masunagi"))
    play(g, (RandomBot(1), RandomBot(2)))
    g.save(tmp_path / "g.json")
    # make_active/set_ki set positions by hand (position events, inputs of the save): a
    # verified load applies them where they stand and re-simulates the actions
    loaded = Game.load(tmp_path / "g.json")
    assert loaded.verified and loaded.snapshot() == g.snapshot()
    h = Game.load(tmp_path / "g.json", verify=False)
    assert h.snapshot() == g.snapshot()
    # an event that no action caused and no position set is still refused
    import json

    doc = json.loads((tmp_path / "g.json").read_text())
    k = next(i for i, e in enumerate(doc["events"]) if e["kind"] == "activate")
    doc["events"].insert(k, {"kind": "ki_change", "model": "akira", "delta": 2})
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(GameError, match=r"events\[\d+\]"):
        Game.load(tmp_path / "bad.json")


def test_unknown_table_feat_is_a_clear_error():
    with pytest.raises(GameError, match=r"models\[id=akira\]\.feats: unknown Ki feat 'Fireball'"):
        game(yaml=TABLE_YAML.replace("feats: [Spirit Bolt", "feats: [Fireball"))


def test_greedy_bot_uses_a_feat_and_buys_a_melee_boost():
    from sim.rules.bots import GreedyBot

    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[13, 6]"))  # 5.8" away: beyond Move, within 6"
    make_active(g, 1)
    set_ki(g, "akira", 6)
    set_model(g, "akira", counters=g.state.models["akira"].counters - 1)  # one counter: no Charge
    set_model(g, "kenta", counters=0)
    a = GreedyBot(1).choose(g)
    assert a.kind == "ki_feat" and a.feat == "Spirit Bolt" and a.target == "masunagi"
    # in an exchange with Ki to spare, the greedy bot buys +1 Melee
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[7.19, 6]").replace(AKIRA_FEATS, ""))
    make_active(g, 1)
    set_ki(g, "akira", 6)
    g.push(Action("melee", "akira", target="masunagi"))
    alloc = GreedyBot(1).choose(g)
    assert alloc.kind == "allocate" and alloc.boost == 1
    g.push(alloc)
    assert g.state.models["akira"].ki == 3


# ------------------------------------------------------------------ Surprised (p.31)
def _behind(facing: float, target_profile: str = "ito-masunagi") -> Game:
    # akira 3" behind masunagi (masunagi faces away when facing is 0)
    yaml = (TABLE_YAML.replace("[11, 6], facing: 180", f"[11, 6], facing: {facing}")
            .replace("ito-masunagi", target_profile))
    return game(yaml=yaml.replace("position: [6, 6]", "position: [7.5, 6]"))


def test_a_charge_from_out_of_sight_surprises_the_target_until_the_action_ends():
    g = _behind(0)
    make_active(g, 1)
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.state.exchange is not None
    assert "surprised" in g.state.models["masunagi"].conditions
    assert any("Surprised" in line for line in g.log())
    ok, why = g.is_legal(Action("allocate", "masunagi", attack=1, defence=1, boost=1))
    assert not ok  # a Surprised model cannot boost (p.47)
    while g.state.exchange is not None:
        mid = next(x for x in (g.state.exchange["attacker"], g.state.exchange["defender"])
                   if x not in g.state.exchange["allocations"])
        g.push(next(a for a in g.legal_actions() if a.model == mid))
    assert "surprised" not in g.state.models["masunagi"].conditions


def test_no_surprise_when_the_target_sees_the_attacker_or_has_sixth_sense():
    g = _behind(180)  # facing akira
    make_active(g, 1)
    g.push(Action("melee", "akira", target="masunagi"))
    assert "surprised" not in g.state.models["masunagi"].conditions
    g = _behind(0, "takashi-matsu")  # Sixth Sense (a player 2 Matsu for the test)
    make_active(g, 1)
    assert g.surprised_target(Action("melee", "akira", target="masunagi")) is None


# ------------------------------------------------------------------ Melee Assist (p.36)
@pytest.mark.parametrize("kenta_at, assists", [("[6, 18]", 1), ("[4.8188, 7.19]", 0)])
def test_melee_assist_costs_a_die_per_other_free_enemy_in_contact(kenta_at, assists):
    # masunagi in front of akira, ishi touching akira from above; kenta, when it touches
    # ishi as well, keeps ishi busy (no assist)
    yaml = (TABLE_YAML.replace("[11, 6]", "[7.19, 6]").replace("[20, 18], facing: 180", "[6, 7.19], facing: 270")
            .replace("[6, 18]", kenta_at))
    g = game(yaml=yaml)
    make_active(g, 1)
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.melee_assists("akira", "masunagi") == assists
    assert g.combatant("akira", True, False).assists == assists
    assert g.melee_assists("masunagi", "akira") == 0


def test_standing_up_costs_a_melee_die_in_an_exchange_that_turn():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[7.19, 6]")
             .replace("facing: 0, feats", "facing: 0, prone: true, feats"))
    make_active(g, 1)
    g.push(Action("stand_up", "akira"))
    assert "stood_up" in g.state.models["akira"].conditions
    c = g.combatant("akira", False, False)
    assert "stood_up" in c.conditions
    # in contact with Masunagi, the Stand Up itself starts the exchange, at -1 (p.25)
    assert g.state.exchange is not None and g.state.exchange["defender"] == "masunagi"
    with_mark = g.exchange_pools()["akira"]
    set_model(g, "akira", conditions={k: v for k, v in g.state.models["akira"].conditions.items() if k != "stood_up"})
    assert g.exchange_pools()["akira"] == with_mark + 1


# ------------------------------------------------------------------ Controlled (p.43)
def test_controlled_model_fights_for_the_other_side_until_its_marker_goes():
    g = game(yaml=TABLE_YAML.replace("[11, 6]", "[9.5, 6]"))
    make_active(g, 1)
    set_ki(g, "akira", 4)
    g.dice = Scripted([6, 5, 1, 1])  # akira 6+1 beats masunagi 1: the opposed test is won
    g.push(Action("complex_ki_feat", "akira", feat="Puppet Strings", target="masunagi"))
    ms = g.state.models["masunagi"]
    assert ms.conditions.get("controlled") == 1 and ms.player == 1 and ms.owner == 2
    assert g.table_now().model("masunagi").player == 1  # the geometry sees it on player 1's side
    make_active(g, 1)
    assert any(a.model == "masunagi" for a in g.legal_actions())
    ok, why = g.is_legal(Action("focus", "masunagi"))
    assert not ok and "Controlled" in why  # one marker: no Complex action
    from sim.rules import conditions
    from sim.rules.ki import KiError

    assert not conditions.can_spend_tokens(conditions.from_model(ms))  # its tokens cannot be spent
    set_ki(g, "masunagi", 6)
    with pytest.raises(KiError, match="Controlled"):
        g.ki_boost(Action("allocate", "masunagi", attack=1, defence=0, boost=1))
    g.push(Action("wait", "masunagi"))  # one counter removed: the marker goes
    ms = g.state.models["masunagi"]
    assert "controlled" not in ms.conditions and ms.player == 2
    assert g.replay().snapshot() == g.snapshot()


def test_controlled_model_loses_a_marker_for_an_exchange_fought_without_losing_a_counter():
    g = game(yaml=TABLE_YAML.replace("[6, 18], facing: 0", "[4.8139, 6], facing: 0"))  # kenta touches akira
    set_model(g, "akira", counters=0)  # Exhausted first
    g.gain_condition("akira", "controlled")  # then Controlled: akira fights for player 2
    assert g.state.models["akira"].player == 2 and g.state.models["akira"].counters == 0
    make_active(g, 1)
    g.push(Action("melee", "kenta", target="akira"))
    while g.state.exchange is not None:
        g.push(g.legal_actions()[0])
    akira = g.state.models["akira"]
    assert akira.alive and "controlled" not in akira.conditions and akira.player == 1
