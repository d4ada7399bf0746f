"""End to end (issue 12): a whole game between two humans at one screen, played ONLY
through the game window's input methods, as players would -- a click on a model's
projected screen position, the keys 1-9 or the menu's buttons, a click on the table or a
drag of the base for a destination, a click on a ringed target, ``enter``, the hand-over
button, the secret allocation's buttons, the Pass and Undo buttons -- to its end; the
final state must be the one the same actions give pushed on a bare ``Game`` with the
same seed.

The players' choices come from a seeded policy (a weighted choice among the enabled menu
items of a model that may act, a random option, a random destination until the verdict
is legal, a random split of the melee dice and now and then a special), so the game
covers Walk, Run, Charge, Melee, Shoot, Focus, Wait, exchanges with hand-overs and an
Undo. The first and last frames are pixel-checked (review copies in /work/notes/png
when that folder exists)."""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d.core")

from conftest import read_png  # noqa: E402

from sim.rules.game import Action, Game  # noqa: E402
from sim.table import load_table  # noqa: E402

pytestmark = pytest.mark.render

SIZE = (1024, 768)
SEED = 7
LENGTH = ("fixed", 1)
#: Review copies of the first and last frames (kept for the lead when the folder exists).
NOTES_PNG = Path("/work/notes/png")
#: How much the policy likes each kind of menu item (the others: 1).
WEIGHTS = {"charge": 5.0, "melee": 5.0, "shoot": 4.0, "walk": 3.0, "run": 1.0, "focus": 1.0, "wait": 0.5,
           "disengage": 1.0, "stand_up": 3.0}


@pytest.fixture(scope="module")
def base():
    from sim.view.play.shell import get_base

    return get_base(offscreen=True, size=SIZE)


def shot(base, tmp_path, name):
    from sim.view.play.shell import screenshot

    path = screenshot(base, tmp_path / f"{name}.png")
    if NOTES_PNG.is_dir():
        shutil.copy(path, NOTES_PNG / f"e2e_{name}.png")
    return read_png(path).astype(int)


class Player:
    """The seeded policy, acting on the window ``w`` (over the controller ``c``) only
    through its input methods; :attr:`log` records what it did."""

    def __init__(self, w, c, seed: int):
        self.w, self.c = w, c
        self.rng = random.Random(seed)
        self.log: list[str] = []
        self.pushed: list[object] = []  # the actions confirmed by enter, as the pending showed them

    # ------------------------------------------------------------ input helpers
    def press(self, btn) -> None:
        from sim.view.play.dialogs import press

        press(btn)

    def click_model(self, mid: str) -> bool:
        """Click ``mid``'s base; tab through the ready models when a neighbour's base
        took the click."""
        w, c = self.w, self.c
        ndc = w.model_ndc(mid)
        if ndc is not None and w.cam.inside(ndc):
            w.click_ndc(*ndc)
        for _ in range(len(c.model_at_active()) + 1):
            if c.selected == mid:
                return True
            w.key("tab")
        return c.selected == mid

    def menu_key(self, key: str, option: int | None = None) -> None:
        """Choose menu item ``key`` (its number key, or its button past 9), or option
        ``option`` of the item composed (its number key, or its button)."""
        w, c = self.w, self.c
        if option is None:
            n = [i.key for i in c.menu()].index(key)
            if n < 9 and self.rng.random() < 0.7:
                w.key(str(n + 1))
            else:
                self.press(w.menu.buttons[key])
        elif option < 9 and self.rng.random() < 0.6:
            w.key(str(option + 1))
        else:
            self.press(w.menu.buttons[f"option{option}"])

    # ------------------------------------------------------------ decisions
    def step(self) -> None:
        """One decision of whoever is at the screen."""
        from sim.view.play.dialogs import AllocationDialog, HandoverDialog, SummaryDialog

        w, c = self.w, self.c
        d = w.dialog
        if isinstance(d, HandoverDialog):
            self.log.append("hand-over")
            self.press(d.button)
        elif isinstance(d, AllocationDialog):
            self.allocate(d)
        elif isinstance(d, SummaryDialog):
            raise AssertionError("the summary is shown but the game is not over")
        elif c.pending is not None and c.pending.kind == "intercept":
            item = c.menu()[0]
            k = self.rng.randrange(len(item.options))
            self.log.append(f"intercept: {item.options[k][0]}")
            self.menu_key("intercept", k)
            self.confirm()
        else:
            self.activate()

    def allocate(self, d) -> None:
        """The secret allocation: a random split, now and then a special; then Allocate."""
        from direct.gui.DirectGui import DirectButton

        def row_button(field, value):
            return next(b for b in d.rows if isinstance(b, DirectButton) and b is not d.ok
                        and list(b["extraArgs"]) == [field, value])

        split = self.rng.choice(d.options("split"))
        self.press(row_button("split", split))
        specials = [s for s in d.options("special") if s is not None]
        if specials and self.rng.random() < 0.4:
            self.press(row_button("special", self.rng.choice(specials)))
        before = len(self.c.game.actions)
        a = d.action()
        self.log.append(f"allocate {a.model} {a.attack}/{a.defence} {a.special or ''}".strip())
        if self.rng.random() < 0.5:
            self.w.key("enter")
        else:
            self.press(d.ok)
        assert len(self.c.game.actions) == before + 1
        self.pushed.append(a)

    def activate(self) -> None:
        """A model of the player to move: picked, clicked, an enabled item tried after
        another (weighted) until one is confirmed; Pass (the tool bar's button) when none
        can be, or now and then."""
        c = self.c
        ready = c.model_at_active()
        assert ready, "nobody may act, yet the game is neither over nor in a dialog"
        can_pass = c.game.is_legal(Action("pass"))[0]
        if can_pass and self.rng.random() < 0.05:
            return self.pass_turn()
        for mid in self.rng.sample(ready, len(ready)):
            assert self.click_model(mid), f"could not select {mid}"
            items = [i for i in c.menu() if i.enabled and i.key != "pass"]
            order = []
            while items:
                weights = [WEIGHTS.get(i.key, 1.0) for i in items]
                pick = self.rng.choices(range(len(items)), weights)[0]
                order.append(items.pop(pick))
            for item in order:
                if self.try_item(mid, item):
                    return None
        assert can_pass, f"no model of player {c.game.to_move()} could do anything: {ready}"
        return self.pass_turn()

    def pass_turn(self) -> None:
        before = len(self.c.game.actions)
        self.log.append("pass")
        self.press(self.w.tools.buttons["pass"])
        assert len(self.c.game.actions) == before + 1 and self.c.game.actions[-1].kind == "pass"
        self.pushed.append(Action("pass"))

    def try_item(self, mid: str, item) -> bool:
        """Compose ``item`` through the window and confirm it; False (cancelled) when no
        legal declaration came of it."""
        w, c = self.w, self.c
        self.menu_key(item.key)
        p = c.pending
        if p is None:
            return False
        if item.needs == "point":
            ok = self.destination(mid, item.key)
        elif p.action is None:
            ok = self.option(item)
        else:
            ok = True
        p = c.pending
        if not ok or p is None or p.action is None or not p.legal:
            w.key("escape")
            if c.selected != mid:
                self.click_model(mid)
            return False
        return self.confirm()

    def option(self, item) -> bool:
        """A random option of the item composed: a click on its target ringed on the
        table when the click lands on it, else its number key or button."""
        w, c = self.w, self.c
        usable = [k for k, (_l, a) in enumerate(item.options)
                  if not (getattr(a, "walk", None) and getattr(a, "point", None) is None)]
        if not usable:
            return False
        k = self.rng.choice(usable)
        target = getattr(item.options[k][1], "target", None)
        if target is not None and self.rng.random() < 0.5:
            ndc = w.model_ndc(target)
            if ndc is not None and w.cam.inside(ndc) and w.cam.pick(ndc, c.game.table_now()) == target:
                w.click_ndc(*ndc)
                p = c.pending
                return p is not None and p.action is not None and getattr(p.action, "target", None) == target
        self.menu_key(item.key, k)
        return True

    def destination(self, mid: str, kind: str) -> bool:
        """A Walk's or Run's destination: random points within its reach, clicked on the
        table or reached by dragging the base, until the verdict is legal."""
        w, c = self.w, self.c
        table = c.game.table_now()
        me = table.model(mid)
        reach = float(me.move or 4) * (1.0 if kind == "walk" else 2.0)
        for _ in range(8):
            ang = self.rng.uniform(0, 2 * math.pi)
            dist = self.rng.uniform(0.3, 0.9) * reach
            xy = (min(table.width - me.radius, max(me.radius, me.position[0] + dist * math.cos(ang))),
                  min(table.depth - me.radius, max(me.radius, me.position[1] + dist * math.sin(ang))))
            ndc = w.table_ndc(xy)
            if ndc is None or not w.cam.inside(ndc):
                continue
            if self.rng.random() < 0.5:
                w.click_ndc(*ndc)
            else:  # drag the base there
                start = w.model_ndc(mid)
                if start is None or w.cam.pick(start, table) != mid:
                    continue
                w.press_ndc(*start)
                w.drag_ndc((start[0] + ndc[0]) / 2, (start[1] + ndc[1]) / 2)
                w.drag_ndc(*ndc)
                w.release_ndc(*ndc)
            p = c.pending
            if p is not None and p.legal and p.action is not None:
                return True
        return False

    def confirm(self) -> bool:
        """``enter`` (or the Confirm button): the pending action is pushed."""
        w, c = self.w, self.c
        p = c.pending
        before = len(c.game.actions)
        if self.rng.random() < 0.7 or "confirm" not in w.menu.buttons:
            w.key("enter")
        else:
            self.press(w.menu.buttons["confirm"])
        assert len(c.game.actions) == before + 1, f"{p} was not pushed: {w.note}"
        assert c.game.actions[-1] == p.action
        self.pushed.append(p.action)
        self.log.append(f"{p.kind}: {p.action}")
        return True


def red_or_blue(img, centre, r=3) -> bool:
    """Whether a player's colour (red or blue figure or base) is around a pixel."""
    x, y = int(round(centre[0])), int(round(centre[1]))
    patch = img[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1]
    red = (patch[..., 0] > 140) & (patch[..., 1] < 90) & (patch[..., 2] < 90)
    blue = (patch[..., 2] > 140) & (patch[..., 0] < 110)
    return bool((red | blue).any())


def test_a_whole_game_between_two_humans_through_the_window_equals_the_bare_game(base, tmp_path):
    from sim.view.play.controller import PlayController
    from sim.view.play.dialogs import SummaryDialog
    from sim.view.play.window import GameWindow

    g = Game(load_table(), seed=SEED, length=LENGTH)
    c = PlayController(g)  # two humans at one screen
    w = GameWindow(base, c, animate=False)
    try:
        first = shot(base, tmp_path, "first")
        # every model drawn where the game has it at the start
        table0 = g.table_now()
        seen = [red_or_blue(first, w.to_pixels((*m.position, 0.5))) for m in table0.models]
        assert sum(seen) >= len(seen) - 1, seen

        player = Player(w, c, SEED)
        undone = False
        for _ in range(400):
            if g.is_over():
                break
            where = {m: s.position for m, s in g.state.models.items()}
            player.step()
            if not undone and g.actions and g.actions[-1].kind == "walk":
                # the Undo button takes the Walk back; the policy then decides again
                mid = g.actions[-1].model
                player.press(w.tools.buttons["undo"])
                assert g.state.models[mid].position == where[mid]
                player.pushed.pop()
                player.log.append("undo")
                undone = True
        assert g.is_over(), player.log[-10:]
        assert undone
        kinds = {a.kind for a in g.actions}
        assert {"walk", "allocate"} <= kinds and kinds & {"charge", "melee"}, kinds
        assert "hand-over" in player.log

        # the window shows the end: the summary, then (closed) the final table
        w.tick(0.1)
        assert c.screen == "over" and isinstance(w.dialog, SummaryDialog)
        player.press(w.dialog.close)
        last = shot(base, tmp_path, "last")
        assert w.scene.table == g.table_now()
        end = g.table_now()
        seen = [red_or_blue(last, w.to_pixels((*m.position, 0.5))) for m in end.models]
        assert sum(seen) >= len(seen) - 1, seen
        assert np.abs(last - first).mean() > 1.0  # the table changed

        # the same actions pushed on a bare Game with the same seed: the same game
        bare = Game(load_table(), seed=SEED, length=LENGTH)
        for a in g.actions:
            bare.push(a)
        assert bare.is_over()
        assert bare.position() == g.position()
        assert bare.events == g.events
        assert list(g.actions) == player.pushed  # what the players declared, nothing else
    finally:
        w.destroy()


def test_a_shot_with_its_declared_walk_takes_the_walk_from_a_click_on_the_table(base):
    """"Shoot X, then Walk" (p.25): after the option the window waits for the Walk's
    destination; a click on the table sets it (it used to deselect the model)."""
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    g = Game(load_table(), seed=0)
    c = PlayController(g)
    w = GameWindow(base, c, animate=False)
    try:
        w.click_ndc(*w.model_ndc("ishi"))
        shoot = next(i for i in c.menu() if i.key == "shoot")
        k = next(k for k, (label, a) in enumerate(shoot.options) if a.walk == "after" and a.point is None)
        w.key(str([i.key for i in c.menu()].index("shoot") + 1))
        w.key(str(k + 1))
        assert c.pending is not None and c.pending.action is None
        here = g.table_now().model("ishi").position
        dest = (here[0] + 1.5, here[1])
        w.click_ndc(*w.table_ndc(dest))
        p = c.pending
        assert c.selected == "ishi" and p is not None and p.action is not None
        assert p.action.walk == "after" and math.dist(p.action.point, dest) < 0.05
        assert p.legal, p.reasons
        w.key("enter")
        assert g.actions[-1].kind == "shoot" and g.actions[-1].walk == "after"
        assert math.dist(g.state.models["ishi"].position, dest) < 0.05
    finally:
        w.destroy()


def test_a_push_that_moves_nothing_keeps_the_scene_and_redraws_the_markers(base):
    """Focus moves no model: the table scene is not built again (about 45 ms at
    1600x1000), but the markers are drawn anew (the counters spent show); a Walk then
    moves a model: the same scene, its figures moved (TableScene.set_table)."""
    from sim.view.play.controller import PlayController
    from sim.view.play.window import GameWindow

    g = Game(load_table(), seed=0)
    c = PlayController(g)
    w = GameWindow(base, c, animate=False)
    try:
        ready = c.model_at_active()
        w.select(ready[0])
        scene = w.scene
        counters = scene.markers[ready[0]].counters
        w.choose("focus")
        w.key("enter")
        assert g.actions[-1].kind == "focus"
        assert w.scene is scene  # kept
        assert scene.table == g.table_now()
        assert scene.markers[ready[0]].counters == g.state.models[ready[0]].counters != counters
        mid = c.model_at_active()[0]
        w.select(mid)
        w.choose("walk")
        here = g.table_now().model(mid).position
        for dx, dy in ((0, 1.5), (0, -1.5), (1.5, 0), (-1.5, 0)):
            w.point((here[0] + dx, here[1] + dy))
            if c.pending.legal:
                break
        w.key("enter")
        assert g.actions[-1].kind == "walk"
        assert w.scene is scene and w.scene.table == g.table_now()  # kept: the figure moved
    finally:
        w.destroy()
