"""Audit A4 of issue #13: the Cards chapter in play (enhancement, event, theme and terrain
cards, p.14-17), Death Sentence (p.43) and Disguised (p.44, p.51), checked through the
`Game`'s public API against the Russian rulebook (seeds/000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.rules.game import Game
from sim.table import parse_table

ROOT = Path(__file__).resolve().parents[1]
BSDATA = ROOT.parent / "shared" / "bsdata"
needs_bsdata = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")


def catalogue_table(models: str, terrain: str = "[]"):
    """A 24" table whose models may name catalogue profiles (``../shared/bsdata``)."""
    yaml = (f"format: bushido-table/1\nname: audit\ntable: {{width: 24, depth: 24}}\n"
            f"catalogues: {BSDATA}\nterrain: {terrain}\nmodels:\n{models}")
    return parse_table(yaml, str(ROOT / "audit.yaml"))


# ---------------------------------------------------------------- Disguised p.44, Disguise p.51
@needs_bsdata
def test_a_disguise_model_keeps_the_higher_disguised_value():
    """p.51, Disguise: "**Неузнаваемый (Disguise)(X):** эта модель начинает игру с маркером
    Неузнаваемый (X)"; p.44, Disguised: "Пока модель имеет маркер Неузнаваемый (X) ...".
    Saki (Disguise (5)) starts Disguised (5); an effect giving Disguised (6) raises it to 6
    (the higher X is kept, docs/conditions-and-ki.md), a later Disguised (3) keeps 6. The
    trait Disguise is no immunity to the condition (it was read as one)."""
    table = catalogue_table(
        "  - {id: saki, player: 1, profile: saki, position: [3, 6], facing: 0}\n"
        "  - {id: masunagi, player: 2, profile: ito-masunagi, position: [21, 21], facing: 180}\n")
    g = Game(table, seed=1)
    assert g.state.models["saki"].conditions.get("disguised") == 5
    g.gain_condition("saki", "disguised", value=6)
    assert g.state.models["saki"].conditions.get("disguised") == 6
    g.gain_condition("saki", "disguised", value=3)
    assert g.state.models["saki"].conditions.get("disguised") == 6


# ---------------------------------------------------------------- Enhancement cards p.17
#: Facts as the set-up reads them off a card (models.card_facts), written by hand here:
#: a made-up enhancement "Test Mask" giving Fear (3), Immune [Blind] and -2 Move, with one
#: sentence the engine leaves to the players.
MASK = {"name": "Test Mask", "kind": "enhancement", "model": "akira",
        "grants": [{"traits": ["Immune [Blind]", "Fear (3)"], "stats": {"move": -2}}],
        "manual": ["a rule the engine does not apply"]}
EVENT = {"name": "Test Event", "kind": "event", "player": 2, "grants": [], "manual": []}


def test_an_enhancement_gives_its_model_traits_and_statistics_for_the_whole_game(tmp_path):
    """p.17, Enhancement cards: "Игрок во время создания своего отряда должен решить, к
    какой карте профиля прикреплена карта улучшения ... Модели будут пользоваться
    эффектами, описанными на прикрепленной карте улучшения." Akira (Move 4) with the card
    reads Fear (3), Immune [Blind] and Move 2 on his effective card from the game's start;
    a Blind marker is kept off; the card's other sentence and the event card are manual
    steps naming the card; save, load and replay keep the card."""
    from sim.table import DEFAULT_TABLE, load_table

    g = Game(load_table(DEFAULT_TABLE), seed=1, cards=[MASK, EVENT])
    card = g.profile("akira")
    assert card.trait("fear").value == 3 and card.move == 2 and g.printed_profile("akira").move == 4
    g.gain_condition("akira", "blind")
    assert "blind" not in g.state.models["akira"].conditions
    log = g.log()
    assert any("MANUAL STEP for akira (Test Mask): apply by hand: a rule the engine does not apply" in x for x in log)
    assert any("MANUAL STEP for player 2 (Test Event)" in x for x in log)
    g.push(g.legal_actions()[0])
    path = tmp_path / "g.json"
    g.save(path)
    loaded = Game.load(path)
    assert loaded.verified and loaded.snapshot() == g.snapshot() == g.replay().snapshot()
    assert loaded.profile("akira").trait("fear").value == 3


def test_card_facts_that_name_no_model_on_the_table_are_refused():
    """The game refuses an enhancement attached to a model it does not have (p.17: an
    enhancement is attached to a profile card of the warband)."""
    from sim.rules.game import GameError
    from sim.table import DEFAULT_TABLE, load_table

    with pytest.raises(GameError, match=r"cards\[0\]: no model 'nobody'"):
        Game(load_table(DEFAULT_TABLE), seed=1, cards=[{**MASK, "model": "nobody"}])


@needs_bsdata
def test_card_facts_read_grants_from_the_catalogue_and_leave_the_rest_manual():
    """p.17: an enhancement's traits and statistics are read off the catalogue card; build
    restrictions ("Требуется (Required) [Тип]", "Исключение (Exclusion) [Тип]", p.17) are
    no effect in play; a sentence that is conditional, a variable X or a gained
    enhancement stays a manual step."""
    from models.bsdata import load_catalogues
    from models.card_facts import card_facts

    cs = load_catalogues(BSDATA)
    by_name = {c.name: c for c in cs.cards}
    hard = card_facts(by_name["Hard Shell"])
    assert hard["grants"] == [{"traits": ["Armour (+1)"], "stats": {"move": -2}}]
    assert len(hard["manual"]) == 1 and not any("Requirement" in s for s in hard["manual"])
    assert card_facts(by_name["Dragon Heart"])["grants"] == [{"traits": ['Leadership [Friendly] (1/8")']}]
    priest = card_facts(by_name["Inducted into the Priesthood"])  # Resistance (X): X from a count -> manual
    assert priest["grants"] == [{"traits": ['Channel (6/6")']}] and priest["manual"]
    assert card_facts(by_name["Loss of Torikka"])["grants"] == []  # gained only when another model is removed
    terrain = card_facts(by_name["Haunted Well"])
    assert terrain["grants"] == [] and terrain["manual"]


@needs_bsdata
def test_a_warband_file_brings_its_enhancements_and_cards_into_the_game(tmp_path):
    """p.17: the enhancement attached in the warband acts in the game the set-up makes
    (Dragon Heart: Leadership [Friendly] (1/8") on Takashi Akira); the warband's event card
    is named as a manual step of player 1 when the game starts."""
    from sim.rules.setup import GameSetup, TableChoice, bundled_warband, warband_file
    from sim.rules.setup.auto import auto_setup

    f = tmp_path / "ryu.yaml"
    f.write_text('format: bushido-warband/1\nname: test\nfaction: Prefecture of Ryu\nrice: 70\n'
                 'models:\n  - {profile: Takashi Akira, enhancements: [Dragon Heart]}\n'
                 'events: [Heroic Stand]\n', encoding="utf-8")
    side = warband_file(f, BSDATA, allow_illegal=True)
    from sim.table import DEFAULT_TABLE

    setup = auto_setup(GameSetup(TableChoice.terrain_of(DEFAULT_TABLE), None,
                                 {1: side, 2: bundled_warband("default-2")}, seed=2))
    g = setup.game()
    akira = next(m.id for m in g.table.models if m.player == 1)
    lead = g.profile(akira).trait("leadership")
    assert lead is not None and lead.qualifier.lower() == "friendly"
    assert g.printed_profile(akira).trait("leadership") is None
    assert any("MANUAL STEP for player 1 (Heroic Stand)" in x for x in g.log())


# ---------------------------------------------------------------- Terrain cards p.17-18
def test_a_terrain_trait_the_engine_does_not_apply_is_a_manual_step():
    """p.17, Terrain cards: "Карты местности имеют свойства Проходимости, Видимости и
    Размера"; a terrain card's Fear (5) (Haunted Well) is named at the game's start as a
    manual step with the Fear test of p.29 ("Активная модель объявляет действие или
    эффект, который приводит её в контакт со Страшной вражеской моделью"); Destructible is
    applied by the engine (a Wait, p.16) and not named."""
    from tests.conftest import make_table

    well = {"id": "well", "rect": {"center": [12, 12], "width": 1, "depth": 1}, "traits": ["Destructible", "Fear (5)"],
            "passage": "impassable", "visibility": "blocking", "size": "small"}
    g = Game(make_table([{"id": "a", "position": [3, 3]}, {"id": "e", "player": 2, "position": [20, 20]}],
                        terrain=[well]), seed=1)
    lines = [x for x in g.log() if "MANUAL STEP for terrain well" in x]
    assert len(lines) == 1 and "(Fear (5))" in lines[0] and "Fear test" in lines[0]


# ---------------------------------------------------------------- Death Sentence p.43
def _sentenced(ki: int):
    from sim.rules.game import Action
    from sim.table import DEFAULT_TABLE, load_table
    from tests.conftest import set_model

    g = Game(load_table(DEFAULT_TABLE), seed=3, length=("fixed", 3))
    set_model(g, "akira", conditions={"death_sentence": 2}, ki=ki)
    turn = g.state.turn
    while g.state.turn == turn:  # every model Waits until the turn ends
        p = g.state.active
        m = next(x for x in g.state.alive(p) if not x.exhausted and not g.state.impetuous_blocks(x))
        g.push(Action("wait", m.id))
    return g


def test_death_sentence_paying_three_ki_is_the_players_choice():
    """p.43, Death Sentence: "Во время начальной фазы [модель] с маркером Смертного
    приговора может потратить 3 Ки, чтобы удалить с себя один маркер Смертного приговора."
    In the next Starting phase the game offers Akira (two markers, Ki enough) the choice:
    pay 3 Ki and lose one marker, or keep it; the Main phase waits for the answer; paying
    removes one marker only. Keeping is legal too and costs nothing."""
    from sim.rules.game import Action

    g = _sentenced(ki=4)
    pay, keep = Action("death_sentence", "akira", special="pay"), Action("death_sentence", "akira")
    assert g.state.phase == "start" and set(g.legal_actions()) == {pay, keep}
    ki = g.state.models["akira"].ki
    g.push(pay)
    m = g.state.models["akira"]
    assert m.ki == ki - 3 and m.conditions.get("death_sentence") == 1 and g.state.phase == "main"
    assert any("pays 3 Ki to remove a Death Sentence marker" in x for x in g.log())
    g2 = _sentenced(ki=4)
    g2.push(keep)
    assert g2.state.models["akira"].ki == ki and g2.state.models["akira"].conditions.get("death_sentence") == 2
    assert not g2.is_legal(pay)[0]  # answered: no second offer this phase


def test_death_sentence_is_not_offered_without_three_ki_and_the_greedy_bot_answers():
    """p.43: the 3 Ki must be there ("может потратить 3 Ки"): with too little Ki (0 + the
    Ki generated, 2) there is no offer and the Main phase starts; the greedy bot answers
    an offer with a legal choice."""
    from sim.rules.bots import GreedyBot

    g = _sentenced(ki=0)
    assert g.state.phase == "main" and g.state.models["akira"].conditions.get("death_sentence") == 2
    g = _sentenced(ki=4)
    choice = GreedyBot().choose(g)
    assert choice.kind == "death_sentence" and g.is_legal(choice)[0]


def test_an_enhancement_gives_its_model_the_cards_ki_feat():
    """p.17 (an enhancement's effects are its model's) and p.46 (Ki feats): a card that
    says its model gains a Ki feat puts the feat, with its cost, timing and area, among
    the model's feats; Akira may then declare it (a made-up Simple Personal feat, cost 1);
    a feat whose timing the engine cannot read is named as a manual step instead."""
    from sim.rules.game import Action
    from sim.table import DEFAULT_TABLE, load_table
    from tests.conftest import set_active

    rec = {"name": "Test Focus", "cost": 1, "cost_text": "1", "timing": "simple", "area": "personal", "range": None,
           "range_text": None, "opposed": False, "limitation": None, "description": "made up"}
    odd = {**rec, "name": "Odd Feat", "timing": "special"}
    scroll = {"name": "Test Scroll", "kind": "enhancement", "model": "akira", "grants": [], "manual": [],
              "feats": [rec, odd]}
    g = Game(load_table(DEFAULT_TABLE), seed=1, cards=[scroll])
    assert "Test Focus" in g.feats("akira") and "Odd Feat" not in g.feats("akira")
    assert any("MANUAL STEP for akira (Test Scroll)" in x and "Ki feat Odd Feat" in x for x in g.log())
    set_active(g, 1)
    assert g.is_legal(Action("ki_feat", "akira", feat="Test Focus"))[0]


@needs_bsdata
def test_card_facts_give_the_feat_of_an_unconditional_feat_sentence_only():
    """p.17: "Attached model gains the following Ki Feat" gives the feat (Kintoki's Salt:
    Mighty Blow; Irokane Tetsubo: +1 Melee Strength and Strikedown); a feat the model may
    use only under a condition (Mad with Stolen Power: while it has Cloudwalk; Bronze
    Lion Tattoo: once per game) stays manual."""
    from models.bsdata import load_catalogues
    from models.card_facts import card_facts

    by_name = {c.name: c for c in load_catalogues(BSDATA).cards}
    salt = card_facts(by_name["Kintoki's Salt"])
    assert [f["name"] for f in salt["feats"]] == ["Mighty Blow"] and salt["manual"] == []
    tetsubo = card_facts(by_name["Irokane Tetsubo"])
    assert [f["name"] for f in tetsubo["feats"]] == ["Strikedown"]
    assert tetsubo["grants"] == [{"stats": {"strength": 1}, "weapon": "melee"}]
    for name in ("Mad with Stolen Power", "Bronze Lion Tattoo"):
        facts = card_facts(by_name[name])
        assert "feats" not in facts and any(s.startswith("Ki feat ") for s in facts["manual"])


def test_set_up_traits_read_what_an_enhancement_gives():
    """p.52, Flank ("Фланговый обход") and p.58, Tactician act at set-up: a model whose
    enhancement gives Flank (a Grappling Hook) or Tactician (+1) is a Flank model and adds
    the die at the set-up's roll-off, though its printed card has neither."""
    from models.profiles import get_profile
    from sim.rules.setup.warbands import Recruit

    hook = {"name": "Test Hook", "kind": "enhancement", "grants": [{"traits": ["Flank", "Tactician (+1)"]}],
            "manual": []}
    plain = Recruit("akira", 1, get_profile("takashi-akira"))
    hooked = Recruit("akira", 1, get_profile("takashi-akira"), (hook,))
    assert not plain.flank and plain.tactician == 0
    assert hooked.flank and hooked.tactician == 1
