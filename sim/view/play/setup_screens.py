"""The set-up screens (issue 12, rulebook "Game Setup" p.20, "Terrain" p.60-62,
"Deployment" p.63): choose the table, the scenario and the warbands, build a warband in
the picker, then on the 3D table roll off, place terrain, choose the zone and who deploys
first, and deploy every model -- DirectGUI panels beside a
:class:`~sim.view.scene3d.TableScene`.

:class:`SetupScreen` takes a ShowBase (:func:`sim.view.play.shell.get_base`, offscreen
in tests) and a callback ``on_done(game)`` called once with the built
:class:`~sim.rules.game.Game`. It draws what its :class:`~sim.view.play.setup_flow.SetupFlow`
says; all input goes through plain methods -- :meth:`SetupScreen.click_ndc`,
:meth:`~SetupScreen.hover_ndc`, :meth:`~SetupScreen.press_ndc`,
:meth:`~SetupScreen.drag_ndc`, :meth:`~SetupScreen.release_ndc`,
:meth:`~SetupScreen.key` and the buttons' commands -- which the window's bindings call
and the tests call directly. Window points are NDC (x, y in -1..1, y up); table points
inches.

On the table: the deployment zones are drawn as translucent polygons (the options in
amber while the zone is chosen, then each player's in its colour), the piece or base
the pointer would place as a ghost (white when legal, red when refused), and the side
panel lists every reason a placement was refused with its page.

Keys: ``q``/``e`` turn the piece or model 15 degrees, ``z`` (or ``control-z``) takes the
last step back, ``enter`` rolls off / starts, ``v`` resets the camera.

A model with the Flank trait may be held back instead of deployed: a grid of its choices
(turn 2, 3 or 4 x the four table edges, :meth:`SetupFlow.flank_options`), the refused
ones greyed with their reason (an edge wholly in the opponent's zone, p.52). With
physical dice (``SetupFlow(physical=True)``) the roll-off values are typed into an entry
(:meth:`SetupScreen.roll_typed`), and once deployment ends the dice the game's first
turn rolls (the Tactical test ...) are asked for in a dialog
(:class:`~sim.view.play.dialogs.DiceEntryDialog`, :meth:`SetupScreen.enter_game_dice`)
before ``on_done`` gets the game, which goes on with those typed dice.
"""

from __future__ import annotations

import math
from typing import Callable

from direct.gui import DirectGuiGlobals as DGG
from direct.gui.DirectGui import DirectButton, DirectEntry, DirectFrame, DirectLabel, DirectScrolledList
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode, TransparencyAttrib

from .. import style
from ..layers.paint import rgba
from ..mesh import MeshBuilder, circle_ring, rings_of
from ..scene3d import TableScene
from . import panels as P
from .controller import DiceNeeded, TypedDice
from .dialogs import DiceEntryDialog
from .setup_flow import PLAYER_KINDS, SetupFlow
from .tablecam import TableCamera

#: Width of the side column on the table screen (aspect2d units).
SIDE_W = 0.86
#: Translucent fill of the zone options while the zone is chosen, and its alpha.
OPTION_ZONE = (1.0, 0.78, 0.25)
ZONE_ALPHA = 0.38
#: Height of the zones above the table top (inches), under the models.
ZONE_Z = 0.02
#: Rows of the scrolled lists.
ROW_H = 0.05


def _scrolled(parent, labels: list[str], command: Callable, pos, width: float, rows: int, fnt,
              selected: int | None = None, colours=None) -> DirectScrolledList:
    """A DirectScrolledList of one button per label; clicking calls ``command(i)``."""
    items = []
    rows = max(1, min(rows, len(labels)))
    for i, text in enumerate(labels):
        colour = P.GOOD if i == selected else (colours[i] if colours else P.TEXT)
        items.append(DirectButton(text=text, text_font=fnt, text_align=TextNode.A_left, text_fg=colour,
                                  relief=DGG.FLAT, frameColor=(0.16, 0.18, 0.24, 1) if i == selected else (0, 0, 0, 0),
                                  frameSize=(-0.2, width / P.SMALL_SCALE - 1.5, -0.4, 1.0), scale=P.SMALL_SCALE,
                                  command=command, extraArgs=[i], text1_fg=P.GOOD, text2_fg=P.TITLE))
    lst = DirectScrolledList(
        parent=parent, pos=(pos[0], 0, pos[1]), frameColor=(0, 0, 0, 0), items=items,
        numItemsVisible=rows, forceHeight=ROW_H,
        itemFrame_pos=(0, 0, 0), itemFrame_frameColor=(0, 0, 0, 0),
        decButton_pos=(width - 0.03, 0, 0.012), incButton_pos=(width - 0.03, 0, -(rows - 1) * ROW_H - 0.012),
        decButton_text="^", incButton_text="v", decButton_scale=0.045, incButton_scale=0.045,
        decButton_text_fg=P.TEXT, incButton_text_fg=P.TEXT, decButton_relief=None, incButton_relief=None,
        decButton_text3_fg=(0.3, 0.3, 0.3, 1), incButton_text3_fg=(0.3, 0.3, 0.3, 1))
    if selected is not None and selected >= rows:
        lst.scrollTo(selected)
    return lst


class SetupScreen(DirectObject):
    """The set-up, from the choices to the deployed table, in ``base``'s window.

    Args:
        base: a ShowBase (:func:`sim.view.play.shell.get_base`).
        on_done: called once with the built :class:`~sim.rules.game.Game`.
        flow: the :class:`SetupFlow` to show (default: a new one with ``seed`` and
            ``catalogue_dir``).

    Attributes:
        flow: the flow (the set-up's state).
        scene: the :class:`TableScene` on the table screen, else None.
        cam: the :class:`TableCamera` on the table screen, else None.
        ghost: the :class:`~sim.view.play.setup_flow.Ghost` drawn, or None.
        flank_buttons: the Flank choice's buttons by ``(turn, edge)`` (refused ones greyed).
        dice_entry: the roll-off's entry with physical dice, else None.
        dice_dialog: the dialog asking for the first turn's dice (physical), else None.
        game_dice: the values typed in it so far.
    """

    def __init__(self, base, on_done: Callable, flow: SetupFlow | None = None, seed: int = 0,
                 catalogue_dir=None):
        super().__init__()
        self.base = base
        self.on_done = on_done
        self.flow = flow if flow is not None else SetupFlow(seed=seed, catalogue_dir=catalogue_dir)
        self.software = bool(getattr(base, "bushido_offscreen", False))
        self.font = P.gui_font(base)
        self.small = P.gui_font(base, P.SMALL_SCALE)
        self.root = DirectFrame(parent=base.aspect2d, frameColor=(0, 0, 0, 0))
        self.widgets: list = []
        self.scene: TableScene | None = None
        self.cam: TableCamera | None = None
        self._overlay = base.render.attach_new_node("setup-overlay")
        self._ghost_np = base.render.attach_new_node("setup-ghost")
        self.ghost = None
        self._drawn: object = None
        self._table_key: object = None
        self._finished = False
        self._closed = False
        self._pressed = False
        self.entries: dict[int, DirectEntry] = {}
        #: the profile ids of the picker's model list, of the picked warband, and the
        #: waiting models of the deployment list, in the order shown (the lists' indices)
        self.available_ids: list[str] = []
        self.picked_ids: list[str] = []
        self.waiting_ids: list[str] = []
        #: the "who plays" buttons of the first screen, by (side, kind)
        self.player_buttons: dict[tuple[int, str], DirectButton] = {}
        self.flank_buttons: dict[tuple[int, str], DirectButton] = {}
        self.dice_entry: DirectEntry | None = None
        self.entry_error = ""
        self.dice_dialog: DiceEntryDialog | None = None
        self.game_dice: list[int] = []
        a = self._aspect()
        #: the verdict on the ghost: every reason it would be refused, with pages
        self.verdict = DirectLabel(parent=self.root, text="", text_fg=P.BAD, text_font=self.small,
                                   text_align=TextNode.A_left, relief=None, scale=P.SMALL_SCALE,
                                   pos=(-a + 0.03, 0, -0.66), sortOrder=10)
        self._bind()
        base.task_mgr.add(self._task, "bushido-setup-screen")
        self.refresh(force=True)

    # ================================================================ plumbing
    def _bind(self) -> None:
        for name in ("q", "e", "z", "control-z", "enter", "v", "escape"):
            self.accept(name, self.key, [name])
        self.accept("mouse1", self._mouse, ["press"])
        self.accept("mouse1-up", self._mouse, ["release"])

    def _mouse(self, what: str) -> None:
        mw = self.base.mouseWatcherNode
        if mw is None or not mw.has_mouse():
            return
        m = mw.get_mouse()
        (self.press_ndc if what == "press" else self.release_ndc)(m.x, m.y)

    def _task(self, task):
        mw = self.base.mouseWatcherNode
        if not self._closed and mw is not None and mw.has_mouse() and self.cam is not None:
            m = mw.get_mouse()
            if self._pressed:
                self.drag_ndc(m.x, m.y)
            else:
                self.hover_ndc(m.x, m.y)
        return task.cont

    def destroy(self) -> None:
        """Remove everything the screen added: widgets, nodes, its task and its event
        bindings; the camera gets the whole window back."""
        if self._closed:
            return
        self._closed = True
        self.ignore_all()
        self.base.task_mgr.remove("bushido-setup-screen")
        self._close_dice_dialog()
        self._clear_widgets()
        self.root.destroy()
        self._drop_table()
        self._overlay.remove_node()
        self._ghost_np.remove_node()

    def _clear_widgets(self) -> None:
        for w in self.widgets:
            w.destroy()
        self.widgets = []
        self.entries = {}
        self.flank_buttons = {}
        self.dice_entry = None

    def _drop_table(self) -> None:
        if self.scene is not None:
            self.scene.root.remove_node()
            self.scene = None
        if self.cam is not None:
            self.cam.destroy()
            self.cam = None
        self._table_key = None
        self._overlay.node().remove_all_children()
        self._ghost_np.node().remove_all_children()

    # ================================================================ drawing
    def refresh(self, force: bool = False) -> None:
        """Redraw what changed (everything when ``force``); call ``on_done`` once the
        set-up is done."""
        if self._closed:
            return
        f = self.flow
        key = (f.version, f.screen)
        if not force and key == self._drawn:
            return
        self._drawn = key
        self._clear_widgets()
        if f.screen == "choose":
            self._drop_table()
            self._draw_choose()
        elif f.screen == "picker":
            self._drop_table()
            self._draw_picker()
        else:
            self._draw_table_screen()
        if f.screen == "done" and not self._finished:
            self._finish()
        elif f.screen != "done":  # taken back: the first turn's dice are asked again later
            self._close_dice_dialog()
            self.game_dice = []

    def _finish(self) -> None:
        """The set-up is done: build the game and hand it to ``on_done`` -- with physical
        dice, once the players have typed the values its first rolls need (the turn-1
        Tactical test ...: :class:`DiceNeeded` asks for them in a dialog)."""
        f = self.flow
        if not f.physical:
            self._finished = True
            self.on_done(f.game())
            return
        typed = TypedDice(list(self.game_dice))
        try:
            game = f.game(dice=typed)
        except DiceNeeded as need:
            self._ask_game_dice(need)
            return
        typed.forget_unused()
        self._finished = True
        self._close_dice_dialog()
        self.on_done(game)

    def _ask_game_dice(self, need: DiceNeeded) -> None:
        self._close_dice_dialog()
        what = need.purpose.label() if need.purpose is not None else "the first turn"
        so_far = f" (typed so far: {' '.join(map(str, self.game_dice))})" if self.game_dice else ""
        self.dice_dialog = DiceEntryDialog(self.base, need.n, f"{what}{so_far}", self.enter_game_dice)

    def _close_dice_dialog(self) -> None:
        if self.dice_dialog is not None:
            self.dice_dialog.destroy()
        self.dice_dialog = None

    def enter_game_dice(self, values) -> None:
        """Physical dice: the values typed in the dialog for the game's first rolls
        (exactly as many as asked, each 1..6; refused with the reason in the dialog);
        the game is built again with every value typed so far."""
        d = self.dice_dialog
        if d is None or self._finished:
            return
        values = list(values)
        if len(values) != d.n:
            d.refuse(f"{len(values)} value{'s' if len(values) != 1 else ''} given, {d.n} asked for")
            return
        if any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6 for v in values):
            d.refuse(f"a d6 shows 1..6, got {' '.join(map(str, values))}")
            return
        self.game_dice += values
        self._finish()

    def _aspect(self) -> float:
        return self.base.win.get_x_size() / max(1, self.base.win.get_y_size())

    def _label(self, lines, x: float, top: float, colour=P.TEXT, scale=P.TEXT_SCALE, width: float = 1.0) -> float:
        lines = P.wrap([str(ln) for ln in lines if ln is not None], P.chars(width, scale))
        if not lines:
            return top
        lab = DirectLabel(parent=self.root, text="\n".join(lines), text_fg=colour,
                          text_font=self.font if scale >= P.TEXT_SCALE else self.small, text_align=TextNode.A_left,
                          relief=None, scale=scale, pos=(x, 0, top - scale * 0.8))
        self.widgets.append(lab)
        return top - len(lines) * scale * 1.2 - 0.012

    def _button(self, text: str, command: Callable, x: float, z: float, width: float, enabled: bool = True,
                extra=(), colour=P.BUTTON) -> DirectButton:
        b = P.button(self.root, text, command, (x, z), width=width, enabled=enabled, fnt=self.font, extra=extra,
                     colour=colour, align="left")
        self.widgets.append(b)
        return b

    def _frame(self, rect) -> None:
        l, r, b, t = rect
        self.widgets.append(DirectFrame(parent=self.root, frameColor=P.PANEL, frameSize=(l, r, b, t)))

    def _refusals(self, x: float, top: float, width: float) -> float:
        f = self.flow
        if f.refusals:
            top = self._label([f.message or "Refused:"], x, top, P.BAD, P.SMALL_SCALE, width)
            top = self._label([f"- {r}" for r in f.refusals], x, top, P.BAD, P.SMALL_SCALE, width)
        elif f.message:
            top = self._label([f.message], x, top, P.DIM, P.SMALL_SCALE, width)
        return top

    # ---------------------------------------------------------------- choose
    def _draw_choose(self) -> None:
        f, a = self.flow, self._aspect()
        self._frame((-a, a, -1, 1))
        self._label(["New game: set-up (Game Setup p.20)"], -a + 0.05, 0.97, P.TITLE, P.TEXT_SCALE * 1.3, 2 * a)
        col = (2 * a - 0.2) / 3
        x1, x2, x3 = -a + 0.05, -a + 0.1 + col, -a + 0.15 + 2 * col
        top = 0.84
        self._label(["Table"], x1, top, P.TITLE)
        self.widgets.append(_scrolled(self.root, f.table_labels(), self.choose_table, (x1, top - 0.1), col, 12,
                                      self.small, f.table_index))
        self._label(["Scenario"], x2, top, P.TITLE)
        self.widgets.append(_scrolled(self.root, f.scenario_labels(), self.choose_scenario, (x2, top - 0.1), col, 8,
                                      self.small, f.scenario_index))
        places = f.places_models()
        z = top
        for side in (1, 2):
            z = self._label([f"Player {side}'s warband"], x3, z, P.PLAYER[side])
            if places:
                z = self._label(["(the table places the models)"], x3, z, P.DIM, P.SMALL_SCALE, col)
                continue
            z = self._label([f.warband_label(side)], x3, z, P.TEXT, P.SMALL_SCALE, col)
            for name, label in f.bundled_labels():
                self._button(label, self.choose_bundled, x3, z - 0.035, col - 0.02, extra=[side, name])
                z -= 0.07
            self._button("Picker...", self.open_picker, x3, z - 0.035, col / 2 - 0.02, extra=[side],
                         enabled=f.catalogue_dir is not None)
            z -= 0.075
            entry = DirectEntry(parent=self.root, scale=P.SMALL_SCALE, width=(col - 0.25) / P.SMALL_SCALE,
                                pos=(x3, 0, z - 0.03), initialText="", numLines=1, focus=0, text_font=self.small,
                                frameColor=(0.85, 0.85, 0.85, 1), command=self.load_warband, extraArgs=[side])
            self.entries[side] = entry
            self.widgets.append(entry)
            self._button("Load file", self.load_warband_entry, x3 + col - 0.22, z - 0.03, 0.2, extra=[side],
                         enabled=f.catalogue_dir is not None)
            z -= 0.12
        self._draw_players(x1, -0.3, col)
        self._button("Start the set-up", self.start, -0.35, -0.9, 0.7)
        self._refusals(x2, -0.02 - 8 * ROW_H, 2 * col)

    def _draw_players(self, x: float, top: float, width: float) -> None:
        """Who plays each side: a row of buttons per player (human, greedy bot, random
        bot), the chosen one lit."""
        f = self.flow
        z = self._label(["Who plays"], x, top, P.TITLE)
        self.player_buttons = {}
        bw = (width - 0.22) / len(PLAYER_KINDS)
        for side in (1, 2):
            self._label([f"Player {side}"], x, z - 0.01, P.PLAYER[side], P.SMALL_SCALE, 0.2)
            for i, (kind, words) in enumerate(PLAYER_KINDS.items()):
                on = f.players.get(side) == kind
                b = self._button(words, self.choose_player, x + 0.22 + i * bw, z - 0.035, bw - 0.02,
                                 extra=[side, kind], colour=(0.75, 0.55, 0.15, 1) if on else P.BUTTON)
                self.player_buttons[(side, kind)] = b
            z -= 0.075

    # ---------------------------------------------------------------- picker
    def _draw_picker(self) -> None:
        f, a = self.flow, self._aspect()
        p = f.picker
        assert p is not None
        self._frame((-a, a, -1, 1))
        self._label([f"Warband picker: player {f.picker_side} (Warband building p.19)"], -a + 0.05, 0.97, P.TITLE,
                    P.TEXT_SCALE * 1.3, 2 * a)
        col = (2 * a - 0.2) / 3
        x1, x2, x3 = -a + 0.05, -a + 0.1 + col, -a + 0.15 + 2 * col
        top = 0.84
        self._label(["Faction"], x1, top, P.TITLE)
        factions = p.factions()
        sel = factions.index(p.faction) if p.faction in factions else None
        self.widgets.append(_scrolled(self.root, factions, self.picker_faction, (x1, top - 0.1), col, 18, self.small,
                                      sel))
        self._label(["Models (click to add)"], x2, top, P.TITLE)
        avail = p.available()
        self.available_ids = [e.id for e in avail]
        labels = [f"{e.name}  {e.rice if e.rice is not None else '-'} rice{'  (Ronin)' if e.ronin else ''}"
                  for e in avail]
        self.widgets.append(_scrolled(self.root, labels, self.picker_add, (x2, top - 0.1), col, 18, self.small))
        self._label([f"Warband: {p.rice} of {p.rice_limit} rice"], x3, top, P.TITLE)
        self.picked_ids = list(p.picked)
        names = {e.id: e.name for e in avail}
        self.widgets.append(_scrolled(self.root, [names.get(i, i) for i in self.picked_ids], self.picker_remove,
                                      (x3, top - 0.1), col, 8, self.small))
        z = top - 0.1 - 8 * ROW_H - 0.05
        for limit in (70, 100):
            self._button(f"{limit} rice", self.picker_rice, x3 + (0 if limit == 70 else 0.3), z, 0.26, extra=[limit],
                         colour=P.BUTTON if p.rice_limit != limit else (0.3, 0.45, 0.3, 1))
        z -= 0.09
        problems = p.problems()
        if problems:
            z = self._label(["The warband rules say:"], x3, z, P.BAD, P.SMALL_SCALE, col)
            z = self._label([f"- {v.message} ({v.page})" for v in problems[:8]], x3, z, P.BAD, P.SMALL_SCALE, col)
        else:
            z = self._label(["A legal warband."], x3, z, P.GOOD, P.SMALL_SCALE, col)
        self._button("Use this warband", self.accept_picker, x3, -0.9, 0.45, enabled=not problems)
        self._button("Cancel", self.cancel_picker, x3 + 0.5, -0.9, 0.25)
        if f.refusals:
            self._refusals(x2, -0.75, col)

    # ---------------------------------------------------------------- table
    def _draw_table_screen(self) -> None:
        f, a = self.flow, self._aspect()
        s = f.setup
        assert s is not None
        region = ((SIDE_W) / (2 * a), 1.0, 0.0, 1.0)
        if self.cam is None:
            self.cam = TableCamera(self.base, f.draw_table(), region)
        key = (len(s.steps), s.phase)
        if key != self._table_key:
            self._table_key = key
            table = f.draw_table()
            if self.scene is not None:
                self.scene.root.remove_node()
            self.scene = TableScene(table, None, software=self.software)
            self.scene.root.reparent_to(self.base.render)
            self.scene.set_camera_pitch(self.cam.pitch)
            self.cam.table = table
            self._draw_zones()
        if self.ghost is not None:  # judged again: the set-up moved on
            self.ghost = self.flow.ghost(self.ghost.point)
        self._draw_ghost()
        self._draw_side(-a, -a + SIDE_W)

    def _draw_zones(self) -> None:
        self._overlay.node().remove_all_children()
        for player, geom, _label in self.flow.zones_to_draw():
            rgb = OPTION_ZONE if player is None else style.PLAYER[player]
            mb = MeshBuilder("zone")
            for ext, holes in rings_of(geom):
                mb.cap(ext, ZONE_Z, rgba(rgb, ZONE_ALPHA), holes=holes)
                ring = list(map(tuple, ext)) + [tuple(ext[0])]
                mb.polyline([(x, y, ZONE_Z + 0.004) for x, y in ring], 0.06, rgba(rgb, 0.9))
            np_ = self._overlay.attach_new_node(mb.node())
            np_.set_transparency(TransparencyAttrib.M_alpha)
            np_.set_light_off(1)
            np_.set_two_sided(True)
            np_.set_depth_write(False)
            np_.set_bin("fixed", 30)

    def _draw_ghost(self) -> None:
        if self._closed:
            return
        self._ghost_np.node().remove_all_children()
        g = self.ghost
        self.verdict["text"] = ""
        if g is None or self.flow.screen != "table":
            return
        lines = [f"Here: {g.id} may be placed"] if g.legal else [f"Here: {g.id} is refused:"] + [
            f"- {r}" for r in g.refusals]
        self.verdict["text"] = "\n".join(P.wrap(lines, P.chars(SIDE_W - 0.06, P.SMALL_SCALE)))
        self.verdict["text_fg"] = P.GOOD if g.legal else P.BAD
        rgb = style.MOVE_OK if g.legal else style.WARNING
        mb = MeshBuilder("ghost")
        if g.kind == "terrain" and g.piece is not None:
            for ext, holes in rings_of(g.piece.footprint.shape):
                mb.cap(ext, 0.05, rgba(rgb, 0.45), holes=holes)
        elif g.kind == "model":
            mb.cap(circle_ring(g.point, g.radius, 40), 0.06, rgba(rgb, 0.6))
            tip = (g.point[0] + math.cos(math.radians(g.rotation)) * g.radius,
                   g.point[1] + math.sin(math.radians(g.rotation)) * g.radius)
            mb.polyline([(g.point[0], g.point[1], 0.07), (tip[0], tip[1], 0.07)], 0.07, (0.05, 0.05, 0.06, 1))
        np_ = self._ghost_np.attach_new_node(mb.node())
        np_.set_transparency(TransparencyAttrib.M_alpha)
        np_.set_light_off(1)
        np_.set_two_sided(True)
        np_.set_depth_write(False)
        np_.set_bin("fixed", 40)

    def _draw_side(self, l: float, r: float) -> None:
        f = self.flow
        s = f.setup
        assert s is not None
        self._frame((l, r, -1, 1))
        x, w = l + 0.03, r - l - 0.06
        z = self._label([f"Set-up: {s.phase.replace('_', '-')}"], x, 0.97, P.TITLE, P.TEXT_SCALE * 1.2, w)
        if s.to_act is not None:
            z = self._label([f"Player {s.to_act} to act"], x, z, P.PLAYER[s.to_act], P.TEXT_SCALE, w)
        if s.roll is not None:
            z = self._label(["Roll-off (Deployment Tactical test, p.20, p.28)"], x, z - 0.01, P.TITLE,
                            P.SMALL_SCALE, w)
            mods = [f"player {p}: +{s.roll.scout[p]} Scout, +{s.roll.tactician[p]} dice Tactician" for p in (1, 2)
                    if s.roll.scout[p] or s.roll.tactician[p]]
            lines = P.wrap(s.roll.lines() + mods, P.chars(w - 0.02, P.TEXT_SCALE))
            tint = tuple(c * 0.45 for c in style.PLAYER[s.roll.winner]) + (1.0,)
            h = len(lines) * P.TEXT_SCALE * 1.2 + 0.03
            self.widgets.append(DirectFrame(parent=self.root, frameColor=tint, frameSize=(x - 0.01, x + w, z - h, z)))
            z = self._label(lines, x + 0.005, z - 0.01, P.TEXT, P.TEXT_SCALE, w) - 0.02
        z = self._label(f.hints(), x, z, P.TEXT, P.SMALL_SCALE, w)
        z -= 0.02
        ph = s.phase
        if ph == "roll_off" and f.physical:
            z = self._label([f.roll_off_prompt() + ":", "type the values (e.g. 6 3) and press Roll off"], x, z,
                            P.TEXT, P.SMALL_SCALE, w)
            self.dice_entry = DirectEntry(parent=self.root, scale=P.TEXT_SCALE, width=(w - 0.33) / P.TEXT_SCALE,
                                          pos=(x, 0, z - 0.045), initialText="", numLines=1, focus=1,
                                          text_font=self.font, frameColor=(0.95, 0.95, 0.9, 1), text_fg=(0, 0, 0, 1))
            self.widgets.append(self.dice_entry)
            self._button("Roll off", self.roll_entry, x + w - 0.3, z - 0.045, 0.28)
            z -= 0.1
            if self.entry_error:
                z = self._label([self.entry_error], x, z, P.BAD, P.SMALL_SCALE, w)
        elif ph == "roll_off":
            self._button("Roll off", self.roll, x, z - 0.04, 0.4)
            z -= 0.1
        elif ph == "terrain":
            names = list(self.preset_names())
            self.widgets.append(_scrolled(self.root, names, self.choose_preset, (x, z - 0.03), w, 7, self.small,
                                          names.index(f.preset) if f.preset in names else None))
            z -= 0.03 + 7 * ROW_H + 0.04
            self._button("Turn (q/e)", self.rotate, x, z, 0.3, extra=[15.0])
            self._button("Stop placing", self.stop_terrain, x + 0.34, z, 0.4,
                         enabled=len(s.pieces) >= 6 or s.stopped_by is not None)
            z -= 0.09
        elif ph == "zone":
            for zone in s.zone_options():
                self._button(f"Take the {zone.id} zone", self.choose_zone, x, z - 0.03, w - 0.02, extra=[zone.id],
                             colour=(0.45, 0.38, 0.15, 1))
                z -= 0.075
        elif ph == "first":
            for p in (1, 2):
                self._button(f"Player {p} deploys first", self.choose_first, x, z - 0.03, w - 0.02, extra=[p])
                z -= 0.075
        elif ph in ("deploy", "scouts"):
            left = f.waiting()
            self.waiting_ids = [r.id for r in left]
            labels = [f"{r.id}{'  Scout' if r.scout else ''}{'  Flank' if r.flank else ''}" for r in left]
            sel = self.waiting_ids.index(f.selected) if f.selected in self.waiting_ids else None
            self.widgets.append(_scrolled(self.root, labels, self.select_model, (x, z - 0.03), w, 8, self.small, sel))
            z -= 0.03 + min(8, max(1, len(labels))) * ROW_H + 0.05
            if f.can_flank():
                z = self._draw_flank(x, z + 0.03, w)
            if ph == "deploy" and left and all(r.scout for r in left):
                self._button("Keep the Scouts back", self.done, x, z, w - 0.02)
                z -= 0.075
        self._button("Undo (z)", self.undo, x, -0.93, 0.3, enabled=True)
        self._button("View (v)", self.reset_camera, x + 0.34, -0.93, 0.3)
        self._refusals(x, min(z, -0.3), w)

    def _draw_flank(self, x: float, top: float, w: float) -> float:
        """The Flank choice of the selected model (p.52): a button per turn (rows) and
        table edge (columns), the refused ones greyed -- a click on one shows why -- and
        each refused edge's reason under them. Returns the z under it."""
        f = self.flow
        opts = f.flank_options()
        z = self._label([f"Or hold {f.selected} back to Flank (p.52): the turn it arrives, and the edge"], x, top,
                        P.TITLE, P.SMALL_SCALE, w)
        edges = list(dict.fromkeys(e for _t, e, _why in opts))
        turns = list(dict.fromkeys(t for t, _e, _why in opts))
        why_of = {(t, e): why for t, e, why in opts}
        lab_w = 0.13
        bw = (w - lab_w) / max(1, len(edges))
        refused: dict[str, str] = {}
        for t in turns:
            self._label([f"turn {t}"], x, z - 0.008, P.TEXT, P.SMALL_SCALE, lab_w)
            for i, e in enumerate(edges):
                why = why_of[(t, e)]
                b = P.button(self.root, e, self.flank, (x + lab_w + i * bw, z - 0.03), width=bw - 0.015,
                             enabled=not why, fnt=self.small, scale=P.SMALL_SCALE, extra=[t, e], align="left",
                             clickable=True, colour=(0.30, 0.38, 0.30, 1))
                self.widgets.append(b)
                self.flank_buttons[(t, e)] = b
                if why:
                    refused.setdefault(e, "; ".join(str(r) for r in why))
            z -= 0.058
        for e, why in refused.items():
            z = self._label([f"{e} refused: {why}"], x, z, P.DIM, P.SMALL_SCALE, w)
        return z - 0.01

    @staticmethod
    def preset_names() -> list[str]:
        """The terrain presets the list offers, in its order."""
        from sim.rules.setup import presets

        return presets()

    # ================================================================ input
    def _do(self, fn, *args):
        out = fn(*args)
        self.refresh()
        return out

    def choose_player(self, side: int, kind: str) -> None:
        """Who plays ``side``: ``"human"``, ``"greedy"`` or ``"random"`` (a bot)."""
        self._do(self.flow.choose_player, side, kind)

    def choose_table(self, i: int) -> None:
        """Choose table ``i`` of the list."""
        self._do(self.flow.choose_table, i)

    def choose_scenario(self, i: int) -> None:
        """Choose scenario ``i`` of the list."""
        self._do(self.flow.choose_scenario, i)

    def choose_bundled(self, side: int, name: str) -> None:
        """Give ``side`` the bundled warband ``name``."""
        self._do(self.flow.choose_bundled, side, name)

    def load_warband(self, text: str, side: int) -> None:
        """Load ``side``'s warband from the path ``text`` (a file or a roster)."""
        self._do(self.flow.load_warband, side, text)

    def load_warband_entry(self, side: int) -> None:
        """Load ``side``'s warband from the path typed in its entry."""
        e = self.entries.get(side)
        self.load_warband(e.get() if e is not None else "", side)

    def open_picker(self, side: int) -> None:
        """Open the picker for ``side``."""
        self._do(self.flow.open_picker, side)

    def picker_faction(self, i: int) -> None:
        """Choose the ``i``-th faction of the picker."""
        p = self.flow.picker
        if p is not None:
            self._do(self.flow.picker_do, "faction", p.factions()[i])

    def picker_add(self, i: int) -> None:
        """Add the ``i``-th model of the picker's list."""
        self._do(self.flow.picker_do, "add", self.available_ids[i])

    def picker_remove(self, i: int) -> None:
        """Remove the ``i``-th model of the picked warband."""
        self._do(self.flow.picker_do, "remove", self.picked_ids[i])

    def picker_rice(self, limit: int) -> None:
        """Set the picker's rice limit."""
        self._do(self.flow.picker_do, "rice", limit)

    def accept_picker(self) -> None:
        """Use the picked warband."""
        self._do(self.flow.accept_picker)

    def cancel_picker(self) -> None:
        """Leave the picker."""
        self._do(self.flow.cancel_picker)

    def start(self) -> None:
        """Start the set-up with the choices made."""
        self._do(self.flow.start)

    def roll(self) -> None:
        """Roll the Deployment Tactical test."""
        self._do(self.flow.roll)

    def roll_typed(self, text: str) -> None:
        """Physical dice: the roll-off values the players rolled, typed as ``text``
        (spaces or commas between them), in :meth:`SetupFlow.roll_off_prompt`'s order;
        refused with the reason (not whole numbers, too few, left over, outside 1..6)."""
        raw = str(text).replace(",", " ").split()
        try:
            values = [int(v) for v in raw]
        except ValueError:
            self.entry_error = f"not whole numbers: {' '.join(raw)}"
            self.refresh(force=True)
            return
        self.entry_error = ""
        self._do(self.flow.roll, values or None)  # nothing typed: the flow asks for the values

    def roll_entry(self) -> None:
        """The roll-off's "Roll off" button with physical dice: the values in its entry."""
        e = self.dice_entry
        self.roll_typed(e.get() if e is not None else "")

    def choose_preset(self, i: int) -> None:
        """Choose the ``i``-th terrain preset."""
        self._do(self.flow.set_preset, self.preset_names()[i])

    def rotate(self, delta: float) -> None:
        """Turn the piece or model ``delta`` degrees."""
        self._do(self.flow.rotate, delta)
        self._refresh_ghost()

    def stop_terrain(self) -> None:
        """Stop placing terrain."""
        self._do(self.flow.stop_terrain)

    def choose_zone(self, zone: str) -> None:
        """Take deployment zone ``zone``."""
        self._do(self.flow.choose_zone, zone)

    def choose_first(self, player: int) -> None:
        """Let ``player`` deploy first."""
        self._do(self.flow.choose_first, player)

    def select_model(self, i: int) -> None:
        """Select the ``i``-th waiting model."""
        self._do(self.flow.select, self.waiting_ids[i])

    def flank(self, turn: int = 2, edge: str = "west") -> None:
        """Hold the selected model back to Flank: it arrives on ``turn`` (2-4) along the
        table ``edge`` (p.52); a refused choice shows every reason."""
        self._do(self.flow.flank, turn, edge)

    def done(self) -> None:
        """Keep the remaining Scouts back."""
        self._do(self.flow.done)

    def undo(self) -> None:
        """Take back the last step."""
        self._do(self.flow.undo)

    def reset_camera(self) -> None:
        """The whole table in view again."""
        if self.cam is not None:
            self.cam.reset()

    def table_point(self, x: float, y: float):
        """The table point (inches) under the window point ``(x, y)``, or None."""
        if self.cam is None:
            return None
        return self.cam.table_point((x, y))

    def _refresh_ghost(self) -> None:
        if self.ghost is not None:
            self.ghost = self.flow.ghost(self.ghost.point)
            self._draw_ghost()

    def hover_ndc(self, x: float, y: float) -> None:
        """The pointer is at ``(x, y)``: show the ghost of what a click would place."""
        if self._closed:
            return
        pt = self.table_point(x, y)
        g = self.flow.ghost(pt) if pt is not None else None
        if g != self.ghost:
            self.ghost = g
            self._draw_ghost()

    def click_ndc(self, x: float, y: float) -> None:
        """A click at ``(x, y)``: on the table, place the preset or deploy the selected
        model there (a refusal is shown with every reason)."""
        pt = self.table_point(x, y)
        if pt is None:
            return
        self._do(self.flow.click, pt)
        self.hover_ndc(x, y)

    def press_ndc(self, x: float, y: float) -> None:
        """Mouse down at ``(x, y)``: start dragging the ghost on the table."""
        if self.table_point(x, y) is not None:
            self._pressed = True
            self.hover_ndc(x, y)

    def drag_ndc(self, x: float, y: float) -> None:
        """The pointer moves with the button down: the ghost follows, judged."""
        self.hover_ndc(x, y)

    def release_ndc(self, x: float, y: float) -> None:
        """Mouse up at ``(x, y)``: drop what is dragged there."""
        if self._pressed:
            self._pressed = False
            self.click_ndc(x, y)

    def key(self, name: str) -> None:
        """A key: ``q``/``e`` turn, ``z``/``control-z`` undo, ``enter`` roll off or
        start, ``v`` reset the camera, ``escape`` leave the picker."""
        f = self.flow
        if self.dice_dialog is not None:  # the keys are typed into the dialog's entry
            return
        if name in ("q", "e"):
            self.rotate(15.0 if name == "q" else -15.0)
        elif name in ("z", "control-z") and f.screen == "table":
            self.undo()
        elif name == "enter":
            if f.screen == "choose":
                self.start()
            elif f.phase == "roll_off":
                self.roll_entry() if f.physical else self.roll()
        elif name == "v":
            self.reset_camera()
        elif name == "escape" and f.screen == "picker":
            self.cancel_picker()


__all__ = ["SetupScreen"]
