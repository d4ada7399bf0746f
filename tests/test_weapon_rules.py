"""Weapons and the traits that act on a model's actions (issue 13, helper H7), through the
public :class:`~sim.rules.game.Game` API: Slow, Stupid, Insignificant (p.54, p.58)."""

from __future__ import annotations

import dataclasses

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()


def with_traits(mid: str, *traits: str, table=TABLE):
    """``table`` with model ``mid``'s card given the printed ``traits`` (``"Slow"``)."""
    tm = table.model(mid)
    base = get_profile(tm.profile)
    extra = tuple(Trait(t.lower().replace(" ", "_"), None, None, t) for t in traits)
    card = dataclasses.replace(base, id=f"{base.id}-h7-{'-'.join(traits).lower()}", bs_id=None,
                               traits=base.traits + extra)
    add_profile_source({card.id: card}, key=("test_weapon_rules", card.id))
    models = tuple(dataclasses.replace(m, profile=card.id, traits=m.traits + tuple(t.keyword for t in extra))
                   if m.id == mid else m for m in table.models)  # (the table's copy, as a loaded table has)
    return dataclasses.replace(table, models=models, _scene=[])


def _game(table, active: int = 1) -> Game:
    """A game on ``table`` whose first activation is ``active``'s (a seed where that
    player wins the Tactical test)."""
    for seed in range(40):
        g = Game(table, seed=seed, length=("fixed", 6))
        if g.state.active == active:
            return g
    raise AssertionError("no seed gives the player the first activation")


def test_slow_may_not_run_or_charge():
    # p.58: "Медленный (Slow): эта модель может не объявлять действия Бег и Нападение."
    g = _game(with_traits("kenta", "Slow"))
    offered = {a.kind for a in g.legal_actions() if a.model == "kenta"}
    assert "walk" in offered and not offered & {"run", "charge"}
    ok, why = g.is_legal(Action("run", "kenta", point=(21.5, 6.0)))
    assert not ok and "Slow" in why
    ok, why = g.is_legal(Action("charge", "kenta", target="yatsumata"))
    assert not ok and "Slow" in why
    assert g.is_legal(Action("walk", "kenta", point=(21.5, 8.0)))[0]
    plain = _game(TABLE)
    assert plain.is_legal(Action("run", "kenta", point=(21.5, 6.0)))[0]


def test_stupid_may_not_wait_disengage_scenario_or_complex():
    # p.58: "Тупой (Stupid): Эта модель не может объявлять Ожидание, Выход из боя, Сценарий
    # или любые Сложные Действия."
    g = _game(with_traits("kenta", "Stupid"))
    offered = {a.kind for a in g.legal_actions() if a.model == "kenta"}
    assert not offered & {"wait", "focus", "charge", "disengage", "complex_ki_feat", "complex_scenario"}
    for a in (Action("wait", "kenta"), Action("focus", "kenta"), Action("charge", "kenta", target="yatsumata")):
        ok, why = g.is_legal(a)
        assert not ok and "Stupid" in why
    assert g.is_legal(Action("run", "kenta", point=(21.5, 6.0)))[0]


def test_insignificant_takes_no_scenario_action():
    # p.54: "Незначительный (Insignificant): эта модель: ... Не может выполнять простые или
    # сложные действия Сценария."
    g = _game(with_traits("kenta", "Insignificant"))
    ok, why = g.is_legal(Action("scenario", "kenta", objective="centre"))
    assert not ok and "Insignificant" in why


def moved(table, **where):
    """``table`` with models placed: ``akira=((x, y), facing)``."""
    models = tuple(dataclasses.replace(m, position=where[m.id][0], facing=where[m.id][1]) if m.id in where else m
                   for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def test_insignificant_gives_no_melee_support():
    # p.54: "Незначительный (Insignificant): эта модель: - Не может оказывать Поддержку в
    # рукопашной." Akira fights Masunagi with the Asp (Insignificant) also in contact: no -1.
    r = TABLE.model("akira").radius + TABLE.model("masunagi").radius
    table = moved(TABLE, akira=((12.0, 12.0), 90.0), masunagi=((12.0, 12.0 + r), 270.0),
                  asp=((12.0 + TABLE.model("akira").radius + TABLE.model("asp").radius, 12.0), 180.0))
    g = _game(table)
    assert g.melee_assists("akira", "masunagi") == 0
    plain = _game(moved(table, asp=((2.0, 22.0), 0.0), ishi=((12.0 + 2 * TABLE.model("akira").radius, 12.0), 180.0)))
    assert plain.melee_assists("akira", "masunagi") == 1


# ------------------------------------------------------------------ melee weapon choice (p.33 step 2)
def with_weapons(mid: str, *weapons, table=TABLE, tag: str = "w"):
    """``table`` with model ``mid``'s card given extra weapons (:class:`models.profiles.Weapon`)."""
    tm = table.model(mid)
    base = get_profile(tm.profile)
    card = dataclasses.replace(base, id=f"{base.id}-h7-{tag}", bs_id=None, weapons=base.weapons + tuple(weapons))
    add_profile_source({card.id: card}, key=("test_weapon_rules", card.id))
    models = tuple(dataclasses.replace(m, profile=card.id) if m.id == mid else m for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _kenta_against_yatsumata(gap: float = 0.0):
    """Kenta (player 1) facing Yatsumata (two melee weapons: Right Head, Left Head),
    ``gap`` inches between their bases."""
    y = TABLE.model("yatsumata")
    k = TABLE.model("kenta")
    return moved(TABLE, yatsumata=(y.position, 270.0),
                 kenta=((y.position[0], y.position[1] - y.radius - k.radius - gap), 90.0))


def test_the_melee_weapon_is_chosen_with_the_allocation():
    # p.33, step 2: "Выберите, какое оружие будет использовано для ударов, неактивная модель
    # заявляет первой. Это определяет доступные свойства и специальные атаки и защиты."
    g = _game(_kenta_against_yatsumata())
    g.push(Action("melee", "kenta", target="yatsumata"))
    assert g.state.exchange is not None
    g.push(next(a for a in g.legal_actions() if a.model == "kenta"))
    offers = [a for a in g.legal_actions() if a.model == "yatsumata"]
    assert {a.weapon for a in offers} == {"Right Head", "Left Head"}
    ok, why = g.is_legal(Action("allocate", "yatsumata", attack=2, defence=2, weapon="Katana"))
    assert not ok and "no melee weapon 'Katana'" in why
    # a special of the other weapon only: Combo Attack is the Left Head's
    ok, why = g.is_legal(Action("allocate", "yatsumata", attack=2, defence=2, weapon="Right Head",
                                special="Combo Attack"))
    assert not ok
    g.push(Action("allocate", "yatsumata", attack=2, defence=2, weapon="Left Head"))
    assert any(e.kind == "note" and e.data["text"] == "yatsumata fights with its Left Head" for e in g.events)
    assert g.state.exchange is None
    # the choice is carried by saves: a replay rebuilds the same state
    assert g.replay().snapshot() == g.snapshot()


def test_a_model_with_one_melee_weapon_is_offered_no_weapon_choice():
    g = _game(_kenta_against_yatsumata())
    g.push(Action("melee", "kenta", target="yatsumata"))
    assert {a.weapon for a in g.legal_actions() if a.model == "kenta"} == {None}


def test_reach_gives_no_initiative_to_a_model_in_contact_at_the_start_of_the_activation():
    # p.57: "Длинное (Reach): при использовании этого оружия оно даёт этой модели Инициативу на
    # 3-м шаге Обмена ударами, при условии, что модель не была в контакте с врагом или другой
    # вражеской моделью в начале текущей активации."
    # Masunagi (player 2) gets a Yari with Reach; Kenta (player 1) is the active model.
    from models.profiles import Weapon
    spear = Weapon("Yari", "melee", 1, traits=("Reach",))
    k, m = TABLE.model("kenta"), TABLE.model("masunagi")

    def table(gap: float):
        t = moved(TABLE, masunagi=((k.position[0], k.position[1] + k.radius + m.radius + gap), 270.0))
        return with_weapons("masunagi", spear, table=t, tag="yari")

    def step3(g: Game) -> str:
        g.push(Action("melee", "kenta", target="masunagi"))
        g.push(next(a for a in g.legal_actions() if a.model == "kenta"))
        g.push(next(a for a in g.legal_actions() if a.model == "masunagi" and a.weapon == "Yari"))
        ex = next(e for e in reversed(g.events) if e.kind == "exchange")
        return next(line for line in ex.data["summary"] if line.startswith("step 3"))

    # Kenta walks into contact: Masunagi was in contact with no enemy, its Yari has Reach
    assert "masunagi has the Initiative (masunagi fights with Reach)" in step3(_game(table(1.5)))
    # in contact from the start of Kenta's activation: the Yari gives nothing, the active model strikes first
    line = step3(_game(table(0.0)))
    assert "Reach gives nothing" in line and "kenta has the Initiative" in line


def test_the_greedy_bot_chooses_a_melee_weapon():
    # p.33 step 2: the bot picks one of Yatsumata's two heads (both Strength 1; the Left
    # Head has two special attacks) and its allocation is legal.
    from sim.rules.bots import GreedyBot
    g = _game(_kenta_against_yatsumata())
    g.push(Action("melee", "kenta", target="yatsumata"))
    g.push(GreedyBot(1).choose(g))
    a = GreedyBot(2).choose(g)
    assert a.model == "yatsumata" and a.weapon == "Left Head" and g.is_legal(a)[0]


# ------------------------------------------------------------------ markers of ranged weapons and cards (p.48-59)
def with_card(mid: str, tag: str, table=TABLE, traits=(), arquebus_traits=()):
    """``table`` with ``mid``'s card given printed model ``traits`` and extra traits on
    its ranged weapons."""
    from models.profiles import Trait
    from models.traits import parse_trait_text
    tm = table.model(mid)
    base = get_profile(tm.profile)
    extra = []
    for text in traits:
        t = parse_trait_text(text)
        assert t is not None
        extra.append(Trait(t.key, int(t.value.split("/")[0]) if t.value else None, None, text))
    weapons = tuple(dataclasses.replace(w, traits=w.traits + tuple(arquebus_traits)) if w.kind == "ranged" else w
                    for w in base.weapons)
    card = dataclasses.replace(base, id=f"{base.id}-h7-{tag}", bs_id=None, traits=base.traits + tuple(extra),
                               weapons=weapons)
    add_profile_source({card.id: card}, key=("test_weapon_rules", card.id))
    models = tuple(dataclasses.replace(m, profile=card.id) if m.id == mid else m for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _wounding_shot(table) -> Game:
    """Kokkio shoots Masunagi (7" away) on the first seed whose shot wounds without killing."""
    t = moved(table, kokkio=((18.0, 4.0), 90.0), masunagi=((18.0, 11.0), 270.0), akira=((2.0, 2.0), 0.0))
    for seed in range(200):
        g = Game(t, seed=seed, length=("fixed", 6))
        if g.state.active != 1:
            continue
        g.push(Action("shoot", "kokkio", target="masunagi"))
        shot = [e for e in g.events if e.kind == "shot"][-1]
        if shot.data.get("wounds", {}).get("masunagi", 0) > 0 and g.state.models["masunagi"].alive:
            return g
    raise AssertionError("no seed wounds Masunagi")


def test_a_wounding_shot_with_disease_or_ki_block_places_their_markers():
    # p.51: "Болезнь (Disease)(X): модели, поврежденные этой моделью, получают X маркеров
    # Болезни." p.54: "Препятствие Ки (Ki Block): Когда эта модель наносит раны этим оружием,
    # цель получает один маркер Препятствия духа."
    g = _wounding_shot(with_card("kokkio", "disease", arquebus_traits=("Disease (2)", "Ki Block")))
    conds = g.state.models["masunagi"].conditions
    assert conds.get("diseased") == 2 and conds.get("spirit_block") == 1


def test_poison_printed_on_the_card_acts_with_its_weapons():
    # p.56: "Яд (Poison)(X/Y): Каждый раз, когда эта модель наносит не-Бездушной модели раны в
    # результате рукопашной или стрелковой атаки ... цель получает X маркеров Яд Y."
    # (Kami of Blighted Earth prints Poison (1/1) on its card, not on a weapon.)
    g = _wounding_shot(with_card("kokkio", "poison", traits=("Poison (1/1)",)))
    assert g.state.models["masunagi"].markers.get("poison") == [1]
    from sim.rules.melee import combatant_from_profile
    card = g.profile("kokkio")
    assert "Poison (1/1)" in combatant_from_profile(card).weapon.traits


def test_a_melee_wound_with_disease_gives_the_diseased_condition():
    # p.51 (Disease), p.43-45: the markers are the Diseased condition, which the Starting
    # phase reads (not a wounding marker like Poison).
    from models.profiles import Weapon
    t = with_weapons("kenta", Weapon("Plague Blade", "melee", 3, traits=("Disease (1)", "Ki Block")),
                     table=_kenta_against_yatsumata(), tag="plague")
    t = moved(t, yatsumata=((2.0, 22.0), 0.0), masunagi=(TABLE.model("yatsumata").position, 270.0))
    for seed in range(100):
        g = Game(t, seed=seed, length=("fixed", 6))
        if g.state.active != 1:
            continue
        g.push(Action("melee", "kenta", target="masunagi"))
        pool = g.exchange_pools()
        g.push(Action("allocate", "kenta", attack=pool["kenta"], defence=0, weapon="Plague Blade"))
        g.push(Action("allocate", "masunagi", attack=pool["masunagi"], defence=0))
        m = g.state.models["masunagi"]
        if m.alive and m.damage:
            assert m.conditions.get("diseased") == 1 and m.conditions.get("spirit_block") == 1
            assert "disease" not in m.markers
            return
    raise AssertionError("no seed lets Kenta wound Masunagi")


# ------------------------------------------------------------------ Agile (p.48)
def _agile_kokkio_in_contact():
    """Kokkio (Agile) at (18, 4), Masunagi in base contact north of it; Kokkio's player acts."""
    k, m = TABLE.model("kokkio"), TABLE.model("masunagi")
    t = moved(TABLE, kokkio=((18.0, 4.0), 90.0), masunagi=((18.0, 4.0 + k.radius + m.radius), 270.0),
              akira=((2.0, 2.0), 0.0))
    return _game(with_traits("kokkio", "Agile", table=t))


def test_agile_leaves_contact_or_takes_a_contact_action():
    # p.48: "Проворный (Agile): Когда эта модель активируется, она может игнорировать вражеские
    # модели в контакте при объявлении своего действия. Эта модель может выйти из контакта с
    # вражескими моделями без необходимости выполнять действие Выход из боя. Если не объявляет
    # Выход из боя, Умение Ки, применимое в рукопашной, Вставание или Рукопашный бой - она
    # должна выйти из контакта со всеми вражескими моделями, с которыми находится в контакте."
    g = _agile_kokkio_in_contact()
    assert g.is_legal(Action("walk", "kokkio", point=(18.0, 1.5)))[0]  # away, out of contact
    ok, why = g.is_legal(Action("walk", "kokkio", point=(18.205, 4.018)))  # a shuffle round its base
    assert not ok and "Agile" in why
    for a in (Action("wait", "kokkio"), Action("focus", "kokkio")):
        ok, why = g.is_legal(a)
        assert not ok and "must leave contact" in why
    assert g.is_legal(Action("melee", "kokkio", target="masunagi"))[0]
    offered = {a.kind for a in g.legal_actions() if a.model == "kokkio"}
    assert "wait" not in offered and "walk" in offered
