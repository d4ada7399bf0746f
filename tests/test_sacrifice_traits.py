"""Sacrifice [K] (X") (p.57) and Protected [K] (X") (p.56) through the public
:class:`~sim.rules.game.Game` API (issue 13): the answer window before a damage roll, in a
shot and in a melee exchange, offered by ``legal_actions``, kept by positions and saves,
answered by the greedy bot. Each test quotes the card text."""

from __future__ import annotations

import dataclasses
import json
import re

from models.profiles import Trait, add_profile_source, get_profile
from models.traits import TRAITS
from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()

#: No terrain; Kokkio (player 1, Arquebus) 7.5" in front of Ishi (player 2); Kenta (player 1)
#: between them; Kaihime 1.5" beside Ishi, Masunagi 2.5" behind it; the rest far away.
SPOTS = {"kokkio": ((12.0, 4.0), 90.0), "masunagi": ((12.0, 14.0), 270.0), "ishi": ((12.0, 11.5), 270.0),
         "kaihime": ((14.0, 12.5), 270.0), "nanako": ((19.0, 11.0), 270.0), "asp": ((6.0, 18.0), 270.0),
         "akira": ((6.0, 6.0), 90.0), "ton": ((2.0, 1.5), 90.0), "matsu": ((22.0, 1.5), 90.0),
         "kenta": ((12.0, 8.0), 90.0), "kazuha": ((18.0, 2.0), 90.0), "yatsumata": ((21.0, 22.0), 270.0)}

SACRIFICE = Trait("sacrifice", None, "friendly", 'Sacrifice [Friendly] (3")', range=3.0)
PROTECTED = Trait("protected", None, "friendly", 'Protected [Friendly] (3")', range=3.0)


def _table(cards: dict[str, list[Trait]], spots=SPOTS):
    """The default table's models at ``spots``, no terrain, with extra traits on some cards."""
    models = []
    for m in TABLE.models:
        extra = cards.get(m.id, [])
        if extra:
            base = get_profile(m.profile)
            cid = base.id + "-h16-" + "-".join(re.sub(r"[^a-z0-9]+", "-", t.text.lower()).strip("-") for t in extra)
            card = dataclasses.replace(base, id=cid, bs_id=f"test-{cid}", traits=base.traits + tuple(extra))
            add_profile_source({cid: card}, key=("test_sacrifice_traits", cid))
            m = dataclasses.replace(m, profile=cid)
        models.append(dataclasses.replace(m, position=spots[m.id][0], facing=spots[m.id][1]))
    return dataclasses.replace(TABLE, terrain=(), models=tuple(models), _scene=[])


def _game(table, seed: int, **models) -> Game:
    """The Main phase, player 1 to act, every model with 2 counters (``models``: changes)."""
    g = Game(table, seed=seed, length=("fixed", 3))
    pos = g.position()
    pos.update(phase="main", active=1)
    for mid in pos["models"]:
        pos["models"][mid].update({"counters": 2, **models.get(mid, {})})
    g.set_position(pos)
    return g


def _shoot(g: Game) -> list:
    events = g.push(Action("shoot", "kokkio", target="ishi"))
    if g.state.interception is not None:
        events += g.push(Action("intercept"))
    return events


def _charge(g: Game) -> None:
    """Kenta charges Ishi; both allocate every die to attack (no specials, no boosts)."""
    g.push(Action("charge", "kenta", target="ishi"))
    while g.state.exchange is not None and not g.answers_pending():
        offered = [a for a in g.legal_actions() if a.kind == "allocate" and not a.special and not a.boost]
        g.push(max(offered, key=lambda a: a.attack or 0))


def _rolled(g: Game) -> list[int]:
    """Every d6 value rolled since the set-up, in order."""
    return [v for r in g.rolls[1:] for v in r]


def _shot_summary(events) -> list[str]:
    return [line for e in events if e.kind == "shot" for line in e.data["summary"]]


def test_registry_automates_sacrifice_and_protected():
    for key in ("sacrifice", "protected"):
        assert TRAITS[key].status == "automated", key


def test_sacrifice_before_the_damage_roll_of_a_shot_removes_the_model_and_cancels_it():
    # p.57: "Самопожертвование (Sacrifice) [Ключевое слово](X"): если эта модель не Изнурена или
    # не в контакте с врагом, а дружественная модель [Ключевое слово] в пределах X" была успешно
    # атакована, контролирующий игрок может выбрать удалить эту модель из игры, чтобы отменить
    # бросок урона против дружественной модели."
    g = _game(_table({"kaihime": [SACRIFICE]}), seed=2)
    _shoot(g)
    assert g.answers_pending() == ["ishi"] and g.to_move() == 2 and g.state.active == 1
    assert set(g.legal_actions()) == {Action("sacrifice", "ishi", target="kaihime"), Action("sacrifice", "ishi")}
    assert not g.is_legal(Action("wait", "masunagi"))[0]
    assert not g.is_legal(Action("sacrifice", "ishi", target="masunagi"))[0]  # no Sacrifice on its card
    events = g.push(Action("sacrifice", "ishi", target="kaihime"))
    assert not g.state.models["kaihime"].alive and g.state.models["ishi"].damage == 0
    assert any("no damage roll against ishi" in line for line in _shot_summary(events))
    assert not g.answers_pending() and g.state.active == 2  # the turn goes on


def test_sacrifice_declined_the_shot_rolls_the_same_dice_as_without_the_trait():
    # the answer comes "before the damage roll": declining it changes nothing of the shot
    plain = _game(_table({}), seed=2)
    ref = _shot_summary(_shoot(plain))
    g = _game(_table({"kaihime": [SACRIFICE]}), seed=2)
    _shoot(g)
    events = g.push(Action("sacrifice", "ishi"))
    assert _shot_summary(events) == ref
    assert g.state.models["ishi"].damage == plain.state.models["ishi"].damage
    assert g.state.models["kaihime"].alive and _rolled(g) == _rolled(plain)


def test_sacrifice_only_when_not_exhausted_not_in_contact_within_x_and_keyword():
    # p.57: "если эта модель не Изнурена или не в контакте с врагом ... дружественная модель
    # [Ключевое слово] в пределах X"" (the card: "not Exhausted or in BtB with an Enemy model")
    t = _table({"kaihime": [SACRIFICE]})
    assert _game(t, seed=2).damage_savers("ishi") == {"kaihime": "Sacrifice"}
    assert _game(t, seed=2, kaihime={"counters": 0}).damage_savers("ishi") == {}  # Exhausted
    far = dict(SPOTS, kaihime=((17.0, 12.5), 270.0))
    assert _game(_table({"kaihime": [SACRIFICE]}, far), seed=2).damage_savers("ishi") == {}  # beyond 3"
    r = TABLE.model("kaihime").radius + TABLE.model("matsu").radius
    engaged = dict(SPOTS, matsu=((14.0, 12.5 - r), 90.0))
    assert _game(_table({"kaihime": [SACRIFICE]}, engaged), seed=2).damage_savers("ishi") == {}  # in BtB
    only = Trait("sacrifice", None, "kami", 'Sacrifice [Kami] (3")', range=3.0)
    assert _game(_table({"kaihime": [only]}), seed=2).damage_savers("ishi") == {}  # Ishi is no Kami
    assert _game(t, seed=2).damage_savers("kaihime") == {}  # not itself


def test_protected_in_a_melee_exchange_removes_a_friend_and_suffers_no_damage_roll():
    # p.56: "Оберегаемый (Protected) [Ключевое слово](X"): прежде чем эта модель получит бросок на
    # урон в результате успешной рукопашной или стрелковой атаки, вы можете удалить из игры
    # дружественную модель [Ключевое слово] в пределах X" и не получить бросок на урон."
    g = _game(_table({"ishi": [PROTECTED]}), seed=3)
    _charge(g)
    assert g.answers_pending() == ["ishi"] and g.state.exchange is not None
    assert set(g.legal_actions()) == {Action("sacrifice", "ishi", target="kaihime"),
                                      Action("sacrifice", "ishi", target="masunagi"), Action("sacrifice", "ishi")}
    n = len(g.events)
    g.push(Action("sacrifice", "ishi", target="masunagi"))
    ex = [e for e in g.events[n:] if e.kind == "exchange"]
    assert ex and any("no damage roll against ishi" in line for line in ex[0].data["summary"])
    assert not g.state.models["masunagi"].alive and g.state.models["ishi"].damage == 0
    assert g.state.exchange is None and g.state.models["kaihime"].alive


def test_protected_declined_the_exchange_is_the_one_without_the_trait():
    plain = _game(_table({}), seed=3)
    _charge(plain)
    g = _game(_table({"ishi": [PROTECTED]}), seed=3)
    _charge(g)
    g.push(Action("sacrifice", "ishi"))
    assert g.state.models["ishi"].damage == plain.state.models["ishi"].damage > 0
    assert _rolled(g) == _rolled(plain)
    assert g.state.models["masunagi"].alive and g.state.models["kaihime"].alive


def test_the_waiting_answer_is_kept_by_the_position_the_save_and_a_replay():
    t = _table({"kaihime": [SACRIFICE]})
    g = _game(t, seed=2)
    _shoot(g)
    g2 = Game(t, seed=2, length=("fixed", 3), position=g.position())
    assert g2.legal_actions() == g.legal_actions()
    loaded = Game.from_save(g.to_json())
    assert loaded.verified and loaded.legal_actions() == g.legal_actions()
    a = loaded.push(Action("sacrifice", "ishi", target="kaihime"))
    b = g.push(Action("sacrifice", "ishi", target="kaihime"))
    assert [e.to_json() for e in a] == [e.to_json() for e in b]
    again = Game(t, seed=2, length=("fixed", 3), events=g.events)
    assert again.position() == g.position()
    assert Game.from_save(g.to_json()).verified


def test_greedy_bot_sacrifices_the_cheaper_model_only_when_the_hit_would_kill():
    from sim.rules.bots import GreedyBot

    t = _table({"kaihime": [SACRIFICE]})
    g = _game(t, seed=2)
    _shoot(g)
    assert GreedyBot(seed=1).choose(g) == Action("sacrifice", "ishi")  # Ishi unhurt: not worth a model
    ishi = g.state.models["ishi"]
    dying = _game(t, seed=2, ishi={"damage": ishi.wounds - 1})
    _shoot(dying)
    a = GreedyBot(seed=1).choose(dying)
    cheaper = (dying.printed_profile("kaihime").rice or 0) < (dying.printed_profile("ishi").rice or 0)
    assert a == (Action("sacrifice", "ishi", target="kaihime") if cheaper else Action("sacrifice", "ishi"))
    dying.push(a)
    assert not dying.answers_pending()


# ---------------------------------------------------------------- In Defiance of the Gods (catalogue)
DEFIANCE = Trait("in_defiance_of_the_gods", None, None, "In Defiance of the Gods")
#: The card (Library-Traits.cat), in our words: a Starting phase choice; when taken, until the
#: End phase the model has Cloudwalk, its melee wounds give it Ki equal to the wounded model's
#: Ki statistic and Spirit, and an activation of it without melee damage ends with a Bleed (1)
#: marker.


def _defiant_game(cards: dict[str, list[Trait]], seed: int = 1, defy: bool = True, **models) -> Game:
    """Kenta has the trait; its player answers the Starting phase offer; then the Main
    phase with player 1 to act and 2 counters each (``models``: changes)."""
    g = Game(_table({"kenta": [DEFIANCE], **cards}), seed=seed, length=("fixed", 3))
    assert g.state.phase == "start" and g.to_move() == 1
    assert set(g.legal_actions()) == {Action("defiance", "kenta", special="defy"), Action("defiance", "kenta")}
    assert not g.is_legal(Action("wait", "kenta"))[0]
    g.push(Action("defiance", "kenta", special="defy" if defy else None))
    assert g.state.phase == "main"
    pos = g.position()
    pos.update(phase="main", active=1)
    for mid in pos["models"]:
        pos["models"][mid].update({"counters": 2, **models.get(mid, {})})
    g.set_position(pos)
    return g


def test_in_defiance_chosen_in_the_starting_phase_gives_cloudwalk_until_the_end_phase():
    g = _defiant_game({})
    assert g.defiant("kenta") and g.profile("kenta").has_trait("cloudwalk")
    assert not g.printed_profile("kenta").has_trait("cloudwalk")
    # the End phase ends it (as its card says); turn 2 offers it again
    g = _defiant_game({}, **{m.id: {"counters": 1 if m.id == "akira" else 0} for m in TABLE.models})
    g.push(Action("wait", "akira"))
    assert g.state.turn == 2 and not g.defiant("kenta") and not g.profile("kenta").has_trait("cloudwalk")
    assert Action("defiance", "kenta", special="defy") in g.legal_actions()


def test_in_defiance_declined_changes_nothing():
    g = _defiant_game({}, defy=False)
    assert not g.defiant("kenta") and not g.profile("kenta").has_trait("cloudwalk")
    g.push(Action("wait", "kenta"))
    assert not g.state.models["kenta"].markers.get("bleed")


def test_in_defiance_an_activation_without_melee_damage_gains_a_bleed_1_marker():
    g = _defiant_game({})
    g.push(Action("wait", "kenta"))
    assert g.state.models["kenta"].markers.get("bleed") == [1]
    g.push(Action("wait", "ishi"))  # an enemy's activation: nothing more for Kenta
    assert g.state.models["kenta"].markers.get("bleed") == [1]
    # the marker's event saves and loads (its data once used the key 'kind', which a save refuses)
    loaded = Game.from_save(json.loads(json.dumps(g.to_json())))
    assert loaded.verified and loaded.state.models["kenta"].markers.get("bleed") == [1]


def test_in_defiance_melee_wounds_give_ki_statistic_plus_spirit_and_no_bleed():
    spirit = Trait("spirit", 1, None, "Spirit (1)")
    g = _defiant_game({"ishi": [spirit]})
    ki = g.state.models["kenta"].ki
    _charge(g)
    assert g.state.models["ishi"].damage > 0
    want = g.state.models["ishi"].ki_stat + 1
    assert g.state.models["kenta"].ki == min(g.state.models["kenta"].ki_limit, ki + want)
    assert not g.state.models["kenta"].markers.get("bleed")


def test_in_defiance_registry_entry_is_automated():
    assert TRAITS["in_defiance_of_the_gods"].status == "automated"
