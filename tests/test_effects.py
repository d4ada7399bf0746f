"""Effects with a duration on a model's card (:mod:`sim.rules.effects`, p.46-48): the
effective card the engine reads, the p.48 rule for gaining a trait the model has (the
rulebook's Kuma and Naoko examples), durations, and effects kept by positions, saves
and ``pop``."""

from __future__ import annotations

import dataclasses

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules.effects import effect_problem, effective_profile
from sim.rules.game import Game, GameError
from sim.table import load_table

TABLE = load_table()


def _armoured(profile_id: str) -> int | None:
    t = get_profile(profile_id).trait("armour")
    return None if t is None else t.value


def _a_model_with_armour_and_one_without():
    with_armour = without = None
    for m in TABLE.models:
        if m.profile and _armoured(m.profile) is not None and with_armour is None:
            with_armour = m
        if m.profile and _armoured(m.profile) is None and without is None:
            without = m
    assert with_armour is not None and without is not None
    return with_armour, without


def test_kuma_gaining_a_higher_armour_uses_it_they_do_not_add_up():
    # p.48: "Кума имеет броню (1). Если он получит Броню (2) ... они не складываются.
    # Кума теперь имеет Броню (2)." The effective card keeps the highest X.
    m, _ = _a_model_with_armour_and_one_without()
    printed = get_profile(m.profile)
    x = printed.trait("armour").value
    card = effective_profile(printed, [{"source": "Kami", "until": "end_phase", "traits": [f"Armour ({x + 1})"]}])
    assert card.trait("armour").value == x + 1
    lower = effective_profile(printed, [{"source": "Kami", "until": "end_phase",
                                         "traits": [f"Armour ({max(0, x - 1)})"]}])
    assert lower.trait("armour").value == x


def test_naoko_gaining_armour_plus_one_first_gains_armour_zero():
    # p.48: "Наоко ... не имеет свойства Брони, но использует Мутацию, чтобы получить Броню
    # (+1). Сначала она получает Броню (0), а затем применяет модификатор +1, дающий ей Броню (1)."
    _, m = _a_model_with_armour_and_one_without()
    card = effective_profile(get_profile(m.profile), [{"source": "Mutation", "until": "game",
                                                       "traits": ["Armour (+1)"]}])
    assert card.trait("armour").value == 1
    twice = effective_profile(get_profile(m.profile), [{"source": "a", "until": "game", "traits": ["Armour (+1)"]},
                                                       {"source": "b", "until": "game", "traits": ["Armour (+1)"]}])
    assert twice.trait("armour").value == 2  # "Свойство (+X) складывают все значения вместе"


def test_weapon_traits_and_statistics_change_on_the_effective_card():
    m, _ = _a_model_with_armour_and_one_without()
    printed = get_profile(m.profile)
    card = effective_profile(printed, [{"source": "Precision Strike", "until": "action",
                                        "weapon_traits": ["Pierce (1)"], "weapon": "melee",
                                        "stats": {"melee": 1, "strength": 1}}])
    assert card.melee == printed.melee + 1
    for w, w0 in zip(card.weapons, printed.weapons):
        if w.kind == "melee":
            assert any(t.startswith("Pierce") for t in w.traits)
            assert w0.strength is None or w.strength == w0.strength + 1
        else:
            assert w.traits == w0.traits


def test_a_granted_trait_lasts_until_its_duration_and_survives_positions_and_pop():
    m, _ = _a_model_with_armour_and_one_without()
    g = Game(TABLE, seed=3, length=("fixed", 3))
    x = g.profile(m.id).trait("armour").value
    g.grant(m.id, "test", "end_phase", traits=["Armour (+1)"])
    assert g.profile(m.id).trait("armour").value == x + 1
    assert g.printed_profile(m.id).trait("armour").value == x
    assert "Armour (+1)" in g.log()[-1]
    pos = g.position()
    assert pos["models"][m.id]["effects"][0]["traits"] == ["Armour (+1)"]
    g2 = Game(TABLE, seed=3, length=("fixed", 3))
    g2.set_position(pos)
    assert g2.profile(m.id).trait("armour").value == x + 1
    # the effect lasts through actions, and ends when the End phase starts
    while g.state.turn == 1 and not g.is_over():
        a = g.legal_actions()[0]
        g.push(a)
        if g.state.turn == 1:
            assert g.profile(m.id).trait("armour").value == x + 1
    assert g.profile(m.id).trait("armour").value == x
    while len(g.actions):
        g.pop()
    assert g.profile(m.id).trait("armour").value == x + 1  # the grant came before the first action: pop keeps it
    assert g.state.models[m.id].effects


def test_an_activation_effect_ends_with_the_activation():
    g = Game(TABLE, seed=5, length=("fixed", 3))
    mover = next(a for a in g.legal_actions() if a.model is not None and a.kind == "wait"
                 and not g.printed_profile(a.model).has_trait("evasive"))
    g.grant(mover.model, "test", "activation", traits=["Evasive"])
    assert g.profile(mover.model).has_trait("evasive")
    g.push(mover)
    assert not g.profile(mover.model).has_trait("evasive")
    assert any(e.kind == "effects_end" and e.data["until"] == "activation" for e in g.events)


def test_bad_effects_are_refused_with_one_line():
    g = Game(TABLE, seed=1, length=("fixed", 3))
    mid = TABLE.models[0].id
    with pytest.raises(ValueError, match="until must be one of"):
        g.grant(mid, "x", "forever", traits=["Tough (1)"])
    assert effect_problem({"source": "x", "until": "game", "stats": {"wits": 1}}).startswith("stats must map")
    pos = g.position()
    pos["models"][mid]["effects"] = [{"source": "x", "until": "game", "traits": ["Tough ("]}]
    with pytest.raises(GameError, match=r"effects\[0\]: traits: cannot read the trait"):
        g.set_position(pos)


def test_fire_poison_and_bleed_gained_by_an_effect_are_markers_with_a_value():
    """Bleed, Poisoned and On Fire are markers with a value (p.43-45): an effect's condition
    gain puts them in ModelState.markers (never silently dropped), and they add up."""
    g = Game(TABLE, seed=2, length=("fixed", 3))
    g.gain_condition("masunagi", "on_fire", 2, value=2)
    g.gain_condition("masunagi", "poisoned", 1)
    g.gain_condition("masunagi", "on_fire", 1, value=1)
    assert g.state.models["masunagi"].markers == {"fire": [2, 2, 1], "poison": [1]}
    assert g.position()["models"]["masunagi"]["markers"]["fire"] == [2, 2, 1]


def test_a_pulse_feat_sets_models_on_fire():
    """The catalogue feat Inferno (a Simple Ki feat, Pulse 2": every other model in it gains
    an On Fire (2) marker) places the markers in play: a ``markers`` event per model."""
    base = get_profile("takashi-akira")
    card = dataclasses.replace(base, id="akira-inferno", bs_id="test-akira-inferno", feats=("Inferno",))
    add_profile_source({card.id: card}, key=("test_effects", card.id))
    models = tuple(dataclasses.replace(m, profile=card.id) if m.id == "akira" else m for m in TABLE.models)
    g = Game(dataclasses.replace(TABLE, models=models, _scene=[]), seed=2, length=("fixed", 3))
    pos = g.position()
    a, m = g.table_now().model("akira"), g.table_now().model("masunagi")
    pos["active"] = 1
    pos["models"]["akira"].update(position=[12.0, 12.0], ki=4, counters=2)
    pos["models"]["masunagi"].update(position=[12.0 + a.radius + m.radius + 1.0, 12.0])
    g.set_position(pos)
    feat = next(x for x in g.legal_actions() if x.model == "akira" and x.feat == "Inferno")
    g.push(feat)
    marks = [e for e in g.events if e.kind == "markers"]
    assert any(e.data["model"] == "masunagi" and e.data["add"] == [2] for e in marks)
    assert g.state.models["masunagi"].markers.get("fire") == [2]


def test_a_variable_cost_x_plus_n_costs_x_plus_n_and_once_per_activation_holds():
    """A printed cost ``X+1`` costs the chosen X plus one Ki; the catalogues' OpA limitation
    (once per activation) is kept until the activation ends."""
    from sim.rules import ki

    f = ki.Feat("Dark Fire", cost="X", x_plus=1, once_per_activation=True)
    assert ki.feat_cost(f, x=3) == 4
    ok, why = ki.can_use(f, None, in_btb=False, moved_this_activation=False, used_this_turn=False,
                         used_this_game=False, ki_available=9, phase="main", is_active_model=True, x=1,
                         used_this_activation=True)
    assert not ok and any("Once per activation" in r for r in why)
    card = type("Card", (), {"name": "Dark Fire", "cost": None, "cost_text": "X+1", "timing": "simple",
                             "area": "personal", "range": None, "range_text": None, "opposed": False,
                             "limitation": "OpA", "description": ""})()
    built = ki.feat_from_card(card)
    assert built is not None and built.x_plus == 1 and built.once_per_activation


def test_losing_a_trait_also_takes_it_off_the_weapons():
    """An effect that makes a model lose a trait takes it off its weapons too (weapon
    traits are the model's while it fights with them, p.48)."""
    printed = next(get_profile(m.profile) for m in TABLE.models
                   if m.profile and any(w.traits for w in get_profile(m.profile).weapons))
    w = next(w for w in printed.weapons if w.traits)
    name = w.traits[0].split("(")[0].strip()
    card = effective_profile(printed, [{"source": "x", "until": "game", "lose": [name]}])
    w2 = next(x for x in card.weapons if x.name == w.name)
    assert all(not t.startswith(name) for t in w2.traits) and len(w2.traits) == len(w.traits) - 1


def test_effects_reach_the_table_the_movement_and_the_geometry_read():
    """A Move change or a movement trait gained by an effect (a feat "+2 Move", Shadow
    Arts' Lightfooted, In Defiance's Cloudwalk) acts on movement: the table model the
    movement service and the geometry read carries the effective Move and trait keywords."""
    g = Game(TABLE, seed=1, length=("fixed", 3))
    m = next(x for x in TABLE.models if x.profile and not get_profile(x.profile).has_trait("evasive"))
    move = g.table_now().model(m.id).move
    g.grant(m.id, "test", "end_phase", stats={"move": 2}, traits=["Evasive"])
    now = g.table_now().model(m.id)
    assert now.move == move + 2 and "evasive" in now.traits
    assert set(TABLE.model(m.id).traits) <= set(now.traits)  # the printed traits stay
