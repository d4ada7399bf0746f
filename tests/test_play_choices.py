"""The game window offers the choices issue 13 added to the engine (W1): the melee weapon
chosen at step 2 of the exchange, answer windows out of turn (Bodyguard), free steps of
an activation (Jump Up) -- through the controller's input methods (headless) and the
window's dialog and menu (offscreen, one PNG kept in /work/notes/png). The engine stays
the only judge: every option is an action ``legal_actions`` offers."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table
from sim.view.play.choices import offer_label
from sim.view.play.controller import PlayController

TABLE = load_table()


def with_traits(cards: dict[str, list[Trait]], table=TABLE):
    """``table`` with extra traits on some models' cards: ``{model id: [Trait]}``."""
    models = []
    for m in table.models:
        extra = cards.get(m.id)
        if extra:
            base = get_profile(m.profile)
            cid = base.id + "-w1-" + "-".join(t.keyword for t in extra)
            card = dataclasses.replace(base, id=cid, bs_id=f"test-{cid}", traits=base.traits + tuple(extra))
            add_profile_source({cid: card}, key=("test_play_choices", cid))
            m = dataclasses.replace(m, profile=cid)
        models.append(m)
    return dataclasses.replace(table, models=tuple(models), _scene=[])


def placed(table, **where):
    """``table`` without terrain, the named models placed: ``akira=((x, y), facing)``."""
    models = tuple(dataclasses.replace(m, position=where[m.id][0], facing=where[m.id][1]) if m.id in where else m
                   for m in table.models)
    return dataclasses.replace(table, models=models, terrain=(), _scene=[])


def main_phase(g: Game, active: int = 1, **models) -> Game:
    """The Main phase with ``active`` to act and the given model entries changed."""
    pos = g.position()
    pos.update(phase="main", active=active)
    for mid, entry in models.items():
        pos["models"][mid].update(entry)
    g.set_position(pos)
    return g


def guard_game() -> Game:
    """p.49's example: Masunagi (Bodyguard [Friendly] (3")) behind Ishi, Kokkio (player 1,
    Arquebus) 7.5" in front of Ishi; the others far away."""
    t = with_traits({"masunagi": [Trait("bodyguard", None, "Friendly", 'Bodyguard [Friendly] (3")', range=3.0)]})
    spots = {"kokkio": ((12.0, 4.0), 90.0), "masunagi": ((12.0, 14.0), 270.0), "ishi": ((12.0, 11.5), 270.0),
             "kaihime": ((12.0, 16.5), 270.0), "nanako": ((19.0, 11.0), 270.0), "asp": ((6.0, 20.0), 270.0),
             "akira": ((6.0, 6.0), 90.0), "ton": ((2.0, 1.5), 90.0), "matsu": ((22.0, 1.5), 90.0),
             "kenta": ((12.0, 1.5), 90.0), "kazuha": ((18.0, 2.0), 90.0), "yatsumata": ((21.0, 22.0), 270.0)}
    g = Game(placed(t, **spots), seed=3, length=("fixed", 3))
    return main_phase(g, 1, **{m: {"counters": 2} for m in g.state.models})


def duel_game() -> Game:
    """Kenta (player 1) in base contact with Yatsumata (two melee weapons: Right Head,
    Left Head), player 1 to act."""
    y, k = TABLE.model("yatsumata"), TABLE.model("kenta")
    g = Game(placed(TABLE, yatsumata=(y.position, 270.0),
                    kenta=((y.position[0], y.position[1] - y.radius - k.radius), 90.0)), seed=3, length=("fixed", 6))
    return main_phase(g, 1, **{m: {"counters": 2} for m in g.state.models})


NOTES_PNG = Path("/work/notes/png")


def _offered(c: PlayController, key: str) -> list[Action]:
    item = next(i for i in c.menu() if i.key == key)
    assert item.enabled, item.reasons
    return [a for _l, a in item.options]


def test_the_allocation_offers_the_melee_weapon_of_step_2():
    """p.33, step 2: "Выберите, какое оружие будет использовано для ударов, неактивная
    модель заявляет первой. Это определяет доступные свойства и специальные атаки и
    защиты." Yatsumata (Right Head, Left Head) is offered both; the Left Head's Combo
    Attack only with it."""
    c = PlayController(duel_game())
    c.select("kenta")
    c.choose("melee", 0)
    c.confirm()
    while c.screen != "allocate" or c.allocation_choices()[0].model != "yatsumata":
        if c.screen == "handover":
            c.take_screen()
            continue
        a = c.allocation_choices()[0]
        c.allocate(a.attack, a.defence, a.special, a.direction, 0, a.weapon)
    assert c.allocation_weapons() == ["Right Head", "Left Head"]
    both = c.allocation_choices()
    assert {a.weapon for a in both} == {"Right Head", "Left Head"}
    engine = [a for a in c.game.legal_actions() if a.kind == "allocate"]
    assert all(a in both for a in engine)  # every split the engine offers is offered
    left = c.allocation_choices(weapon="Left Head")
    assert any(a.special and "combo" in a.special.lower() for a in left)
    assert not any(a.special and "combo" in a.special.lower() for a in c.allocation_choices(weapon="Right Head"))
    c.allocate(2, 2, None, None, 0, "Left Head")
    assert any(e.kind == "note" and e.data["text"] == "yatsumata fights with its Left Head" for e in c.game.events)


def test_a_bodyguard_answer_is_the_menu_of_the_answering_player_whatever_is_selected():
    """p.49: "эта модель может поменяться местами с той дружественной моделью прежде начала
    действия" -- the target's player answers out of turn: swap with Masunagi, or not."""
    c = PlayController(guard_game())
    c.select("kokkio")
    item = next(i for i in c.menu() if i.key == "shoot")
    c.choose("shoot", next(k for k, (_l, a) in enumerate(item.options) if a.target == "ishi" and a.walk is None))
    c.confirm()
    assert c.answer_window() and c.screen == "play" and c.viewer == 2
    c.select(None)
    menu = c.menu()
    assert [i.key for i in menu] == ["bodyguard"]
    labels = [lbl for lbl, _a in menu[0].options]
    assert labels == ["Bodyguard (trait): ishi -> masunagi (p.49)", "Bodyguard (trait): ishi, no swap (p.49)"]
    assert set(_offered(c, "bodyguard")) == set(c.game.legal_actions())
    p = c.choose("bodyguard", 0)
    assert p is not None and p.legal
    c.confirm()
    assert c.game.state.models["masunagi"].position == (12.0, 11.5)


def test_jump_up_is_an_item_of_the_models_menu():
    """p.54: "Подскок (Jump Up): в начале активации этой модели, но до того, как объявлено
    ее действие, вы можете удалить с неё любые маркеры «Сбит с ног»."""
    g = main_phase(Game(with_traits({"matsu": [Trait("jump_up", None, None, "Jump Up")]}), seed=1,
                        length=("fixed", 3)), matsu={"conditions": {"prone": 1}, "counters": 2})
    c = PlayController(g)
    c.select("matsu")
    assert _offered(c, "jump_up") == [Action("jump_up", "matsu")]
    assert offer_label(Action("jump_up", "matsu"), with_model=False) == \
        "Jump Up (trait): remove the Prone markers (p.54)"
    c.choose("jump_up", 0)
    c.confirm()
    assert "prone" not in c.game.state.models["matsu"].conditions


@pytest.mark.render
def test_the_window_shows_the_weapon_row_and_the_answer_menu(tmp_path):
    pytest.importorskip("panda3d.core")
    from sim.view.play.dialogs import AllocationDialog
    from sim.view.play.shell import get_base, screenshot
    from sim.view.play.window import GameWindow

    base = get_base(offscreen=True, size=(1024, 768))
    c = PlayController(duel_game(), bots={})
    w = GameWindow(base, c)
    try:
        w.select("kenta")
        w.choose("melee", 0)
        w.confirm()
        for _ in range(4):
            if c.screen == "handover":
                w.take_screen()
            d = w.dialog
            assert isinstance(d, AllocationDialog)
            if d.choices[0].model == "yatsumata":
                break
            d.submit()
        d = w.dialog
        assert d.options("weapon") == ["Right Head", "Left Head"]
        assert any("Right Head" in str(b["text"]) for b in d.rows if hasattr(b, "__getitem__"))
        d.choose("weapon", "Left Head")
        path = screenshot(base, tmp_path / "weapon.png")
        if NOTES_PNG.is_dir():
            shutil.copy(path, NOTES_PNG / "window_allocation_weapon.png")
        d.submit()
        assert any(e.kind == "note" and "Left Head" in e.data["text"] for e in c.game.events)
    finally:
        w.destroy()
    g = guard_game()
    c = PlayController(g)
    w = GameWindow(base, c)
    try:
        w.select("kokkio")
        item = next(i for i in c.menu() if i.key == "shoot")
        w.choose("shoot", next(k for k, (_l, a) in enumerate(item.options) if a.target == "ishi" and a.walk is None))
        w.confirm()
        w.refresh(force=True)
        assert [i.key for i in c.menu()] == ["bodyguard"]
        w.choose("bodyguard")
        path = screenshot(base, tmp_path / "bodyguard.png")
        if NOTES_PNG.is_dir():
            shutil.copy(path, NOTES_PNG / "window_bodyguard_answer.png")
        w.choose("bodyguard", 1)
        w.confirm()
        assert c.game.state.models["masunagi"].position == (12.0, 14.0)
    finally:
        w.destroy()
