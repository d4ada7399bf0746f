"""The hot-seat's screens: the text it shows, never what it reads. The help, the brief
view a player sees before deciding (own models with counters, enemy models with which
of the player's models see them, the scenario, a waiting melee exchange), the full
state, the numbered action menu, the log lines (a secret allocation never shown,
p.33), the hand-over before a secret allocation and the allocations revealed with the
exchange, and how the screen is cleared.
"""

from __future__ import annotations

from sim.rules.game import Action, Event, Game
from sim.rules.notation import action_text

#: ANSI: clear the screen and the scrollback, cursor home.
ANSI_CLEAR = "\x1b[2J\x1b[3J\x1b[H"
#: Enough blank lines to push the last screen out of sight on a terminal without ANSI.
LINES_CLEAR = "\n" * 60
DEFAULT_CLEAR = LINES_CLEAR

HELP = """\
Type the number of an action, an action, or a command.

Actions (MODEL and TARGET are model ids; a unique prefix will do):
  walk MODEL X Y [facing=DEG]         run MODEL X Y
  charge MODEL TARGET                 melee MODEL TARGET
  shoot MODEL TARGET [before|after X Y] [weapon="NAME"]
  disengage MODEL TARGET [X Y]        focus MODEL
  wait MODEL [OPTION]                 stand_up MODEL
  allocate [MODEL] ATTACK DEFENCE [SPECIAL [DIRECTION]]     (melee dice, secret)
  pass                                (spend a pass token)
  Any other action: KIND MODEL [TARGET] [X Y] [field=value ...] (fields of Action,
  e.g. ki_feat akira feat="Spirit Bolt" target=asp).

Commands:
  help                 this text
  state                the whole state, both sides
  actions              the numbered legal actions again
  log [N]              the last N lines of the game log (default 30; secret allocations hidden)
  undo                 take back actions up to your previous decision
  save FILE            save the game (JSON; continue with --load FILE)
  quit                 stop (with --save the game is saved)

An action the engine refuses is not declared: the reason is printed. Answer "yes" at
once to declare it anyway; it is then reverted and costs one activation counter (p.24)."""


def describe_event(ev: Event) -> str:
    """One log line for ``ev``, never showing a secret allocation (an ``allocated``
    event reads "MODEL allocates its dice in secret" whatever the engine's text)."""
    if ev.kind == "allocated":
        return f"  {ev.data.get('model')} allocates its dice in secret"
    return ev.describe()


def table_now(game: Game):
    """The game's table now (:meth:`Game.table_now`: models where the state has them,
    the dead removed, the scenario's objectives in play)."""
    return game.table_now()


def _scenario_lines(game: Game, player: int | None) -> list[str]:
    """The scenario as ``player`` sees it (None: both sides, for the full state): VP,
    SP, prayer tokens, each objective's alignment (friendly/neutral/enemy for the
    player), removed objectives, and the VIMs -- a Hidden VIM only to its own side."""
    sc = game.scenario_state()
    if sc is None:
        return []
    scen = game.scenario
    lines = [f"Scenario {scen.name}: VP {sc.vp.get(1, 0)}-{sc.vp.get(2, 0)}, SP {sc.sp.get(1, 0)}-{sc.sp.get(2, 0)}"
             + (f", prayer tokens {sc.prayer.get(1, 0)}-{sc.prayer.get(2, 0)}" if sc.prayer else "")]
    objs = []
    for o in scen.objectives:
        owner = sc.alignment.get(o.id)
        if o.id in sc.removed:
            objs.append(f"{o.id} removed")
        elif player is None:
            objs.append(f"{o.id} ({o.position[0]:g}, {o.position[1]:g}) "
                        + ("neutral" if owner is None else f"player {owner}"))
        else:
            rel = "neutral" if owner is None else ("friendly" if owner == player else "enemy")
            objs.append(f"{o.id} ({o.position[0]:g}, {o.position[1]:g}) {rel}")
    if objs:
        lines.append("  objectives: " + "; ".join(objs))
    if scen.vim:
        shown = []
        for side, ids in sorted(sc.vims.items()):
            if scen.vim == "hidden" and player is not None and side != player and not sc.over:
                shown.append(f"player {side}: hidden")
            else:
                shown.append(f"player {side}: {', '.join(ids) or 'none'}")
        lines.append("  VIMs: " + "; ".join(shown))
    return lines


def _conditions(m) -> str:
    out = []
    for name, v in sorted(m.conditions.items()):
        out.append(name if v in (1, True) else f"{name} {v}")
    for name, values in sorted(m.markers.items()):
        if values:
            out.append(f"{name} {list(values)}")
    return ", ".join(out)


def _model_line(m, own: bool, seen_by: list[str] | None = None) -> str:
    if not m.alive:
        return f"  {m.id:<10} " + ("Elsewhere (held back by Flank, p.52)" if not m.killed else "killed")
    s = f"  {m.id:<10} ({m.position[0]:5.2f}, {m.position[1]:5.2f}) facing {m.facing:3.0f}"
    if own:
        s += f"  counters {m.counters}"
    s += f"  wounds left {m.wounds - m.damage}/{m.wounds}  Ki {m.ki}/{m.ki_limit}"
    cond = _conditions(m)
    if cond:
        s += f"  [{cond}]"
    if seen_by is not None:
        s += "  seen by: " + (", ".join(seen_by) if seen_by else "none")
    return s


def _exchange_lines(game: Game) -> list[str]:
    ex = game.state.exchange
    if ex is None:
        return []
    try:
        pools = game.exchange_pools()
    except Exception:  # noqa: BLE001 - a view never breaks the game
        pools = {}
    att, dfn = ex["attacker"], ex["defender"]
    head = f"Melee exchange: {att} against {dfn}" + (" (charge)" if ex.get("charge") else "") + \
        (" (disengage)" if ex.get("disengage") else "")
    if pools:
        head += f"; pools {att} {pools.get(att)}, {dfn} {pools.get(dfn)}"
    done = [m for m in (att, dfn) if m in ex["allocations"]]
    wait = [m for m in (att, dfn) if m not in ex["allocations"]]
    line = "  allocated (secret): " + (", ".join(done) or "none") + "; waiting for: " + (", ".join(wait) or "none")
    return [head, line]


def brief_view(game: Game, player: int) -> str:
    """What ``player`` sees before deciding: turn, phase, pass tokens, the player's
    models (position, facing, counters, wounds left, Ki, conditions), the enemy models
    (position, facing, wounds left, Ki, conditions, which of the player's models see
    them) and a waiting melee exchange (pools and who has allocated, never how)."""
    st = game.state
    lines = [f"Turn {st.turn}, {st.phase} phase" + (" (last turn)" if st.last_turn else "")
             + f"; active player {st.active}; pass tokens: player 1 {st.pass_tokens.get(1, 0)}, "
               f"player 2 {st.pass_tokens.get(2, 0)}"]
    own = [m for m in st.models.values() if m.player == player]
    foes = [m for m in st.models.values() if m.player != player]
    lines.append(f"Your models (player {player}):")
    lines += [_model_line(m, True) for m in own]
    scene = None
    try:
        scene = table_now(game).scene()
    except Exception:  # noqa: BLE001 - the LoS column is a help, not a must
        scene = None
    lines.append(f"Enemy models (player {3 - player}):")
    for e in foes:
        seen = None
        if scene is not None and e.alive:
            seen = []
            for m in own:
                if not m.alive:
                    continue
                try:
                    if scene.los(m.id, e.id).visible:
                        seen.append(m.id)
                except Exception:  # noqa: BLE001
                    pass
        lines.append(_model_line(e, False, seen))
    lines += _scenario_lines(game, player)
    lines += _exchange_lines(game)
    return "\n".join(lines)


def full_state(game: Game, viewer: int | None = None) -> str:
    """Both sides in full (the ``state`` command and the end of the game). ``viewer``:
    the player looking (a Hidden VIM of the other side stays hidden until the end)."""
    st = game.state
    lines = [f"Turn {st.turn}, {st.phase} phase" + (f": {st.result}" if st.result else "")
             + "; pass tokens "
               f"{st.pass_tokens.get(1, 0)}-{st.pass_tokens.get(2, 0)}"]
    for pid in (1, 2):
        lines.append(f"Player {pid}:")
        lines += [_model_line(m, True) for m in st.models.values() if m.player == pid]
    lines += _scenario_lines(game, viewer)
    lines += _exchange_lines(game)
    return "\n".join(lines)


def menu_text(actions: list[Action], width: int = 96) -> str:
    """The numbered actions, grouped by model, packed in columns (numbers from 1 in the
    order of ``actions``)."""
    if not actions:
        return "  (no legal action listed: type one, or a command)"
    lines: list[str] = []
    groups: list[tuple[str | None, list[tuple[int, Action]]]] = []
    for i, a in enumerate(actions, 1):
        if groups and groups[-1][0] == a.model:
            groups[-1][1].append((i, a))
        else:
            groups.append((a.model, [(i, a)]))
    for model, items in groups:
        if items[0][1].kind == "allocate":
            for i, a in items:
                extra = f"   ({a.attack} attack, {a.defence} defence" + (f", {a.special}" if a.special else "") + ")"
                lines.append(f"  {i:>3}) {action_text(a)}{extra}")
            continue
        cells = [f"{i:>3}) {action_text(a)}" for i, a in items]
        col = max(len(c) for c in cells) + 2
        per = max(1, width // col)
        for k in range(0, len(cells), per):
            lines.append("  " + "".join(c.ljust(col) for c in cells[k:k + per]).rstrip())
    return "\n".join(lines)



def handoff_text(p: int) -> str:
    """What the screen says, once cleared, before player ``p``'s secret allocation."""
    return (f"Secret melee allocation (p.33). Pass the device to player {p}, press Enter "
            f"(player {3 - p} looks away).")


def revealed_allocations(events: list[Event], i: int) -> str | None:
    """Both allocations of the exchange whose ``exchange`` event is ``events[i]``, from
    the last two ``allocated`` events before it (None when there are not two)."""
    allocs = [ev for ev in events[:i] if ev.kind == "allocated"][-2:]
    if len(allocs) == 2:
        parts = []
        for ev in allocs:
            d = ev.data
            s = f"{d['model']} {d['attack']} attack, {d['defence']} defence"
            if d.get("special"):
                direction = f" (direction {d['direction']:g})" if d.get("direction") is not None else ""
                s += f", {d['special']}" + direction
            parts.append(s)
        return "  Allocations revealed: " + "; ".join(parts)
    return None


def log_text(events: list[Event], n: int) -> str:
    """The last ``n`` lines of the game log (0: all), secret allocations hidden."""
    lines = [describe_event(ev) for ev in events]
    return "\n".join(lines[-n:] if n else lines)
