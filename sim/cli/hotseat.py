"""``python main.py hotseat``: two players (or a player and a bot) share one terminal.

The loop runs on any pair of text streams, so tests can script it::

    from sim.cli.hotseat import run_hotseat
    run_hotseat(game, stdin, stdout, bots={2: GreedyBot(1)}, clear="<<CLEAR>>")

At each decision the screen names the player to move (:meth:`Game.to_move`), shows the
state briefly (turn, phase, the player's models with position, counters, wounds left,
Ki and conditions; the enemy models with their positions and which of the player's
models see them) and the numbered legal actions (:meth:`Game.legal_actions`). The
player types a number, an action (``walk matsu 4.5 9``, ``charge kazuha asp``,
``shoot kenta asp``, ``allocate akira 2 1``, ``pass`` ...) or a command (``help``,
``state``, ``actions``, ``log [N]``, ``undo``, ``save FILE``, ``quit``).

* A typed action is judged with :meth:`Game.is_legal` first; a refusal prints the
  reason and asks again, and nothing is pushed. The engine makes a declared illegal
  action cost a counter (p.24), so such an action is only declared when the player
  answers ``yes`` right after the refusal.
* Melee allocations are secret (p.33): before each allocation prompt the screen is
  cleared (``clear``) and the device is passed ("Pass the device to player N, press
  Enter"); the allocation is read without echo, nothing printed after it names its
  numbers, and the log shows "allocates its dice in secret" until the exchange reveals
  both allocations.
* :class:`PromptDice` asks the players for the values they rolled (``--dice physical``).
* Built on the public :class:`~sim.rules.game.Game` API only (``legal_actions``,
  ``is_legal``, ``push``, ``pop``, ``to_move``, ``state``, ``exchange_pools``, ``save``,
  ``events``); :func:`table_now` rebuilds the table where the state has the models.
"""

from __future__ import annotations

import argparse
import dataclasses
import getpass
import math
import re
import shlex
import sys
from typing import IO

from sim.rules.dice import DiceError, PhysicalDice
from sim.rules.game import Action, Event, Game, GameError

__all__ = [
    "Quit", "InputError", "PromptDice", "run_hotseat", "Hotseat", "parse_action", "action_text",
    "describe_event", "table_now", "add_parser", "run_cli", "ANSI_CLEAR", "LINES_CLEAR", "DEFAULT_CLEAR",
]

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


class Quit(Exception):
    """The players asked to stop (``quit``) or the input ended. Not a ``ValueError``, so
    no engine code that catches ``ValueError`` swallows it mid-action."""


class InputError(ValueError):
    """A typed action that cannot be read (unknown kind, model, field or number)."""


# ------------------------------------------------------------------ input and output
class _Console:
    """Reading and writing lines on the two streams."""

    def __init__(self, stdin: IO[str], stdout: IO[str], echo: bool | None = None):
        self.stdin = stdin
        self.stdout = stdout
        self.tty = _isatty(stdin)
        self.echo = (not self.tty) if echo is None else echo

    def write(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def read(self, prompt: str, secret: bool = False) -> str:
        """One stripped line. Raises :class:`Quit` at the end of the input."""
        if secret and self.tty and self.stdin is sys.stdin:
            try:
                return getpass.getpass(prompt, stream=self.stdout).strip()
            except EOFError:
                raise Quit("end of input") from None
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if line == "":
            self.stdout.write("\n")
            raise Quit("end of input")
        line = line.strip()
        if self.echo:
            self.stdout.write(("(hidden)" if secret and line else line) + "\n")
        self.stdout.flush()
        return line


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------ physical dice
class PromptDice(PhysicalDice):
    """Physical dice that ask the players for the values they rolled.

    Values fed beforehand (constructor or :meth:`feed`) are used first; when too few are
    left, ``roll(n)`` writes "Roll K dice for WHAT: " on ``stdout`` and reads the values
    from ``stdin`` (separated by spaces or commas, or as one run of digits). A line with
    the wrong count or a value outside 1..6 is refused and asked again. WHAT names the
    roll as far as the engine's call stack tells it (the Tactical test, a model's attack
    dice, a damage roll, a Fear test ...).

    Raises:
        Quit: the input ended, or a player typed ``quit``, while dice were asked for.
        DiceError: ``n`` is not an int >= 0 (from :class:`PhysicalDice`).
    """

    def __init__(self, stdin: IO[str], stdout: IO[str], values=(), echo: bool | None = None):
        super().__init__(values)
        self.console = _Console(stdin, stdout, echo)
        self._seq_frame = None  # the caller of the previous roll (kept alive: identity is safe)
        self._seq_n = 0

    def roll(self, n: int) -> list[int]:
        """``n`` values in 1..6: fed ones first, then the ones the players type."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise DiceError(f"cannot roll {n!r} dice: the number of dice must be an int >= 0")
        caller = sys._getframe(1)
        while caller is not None and getattr(caller.f_locals.get("self"), "records_rolls", False):
            caller = caller.f_back  # the game's roll recorder: what the roll is for is further up
        if caller is self._seq_frame:
            self._seq_n += 1
        else:
            self._seq_frame, self._seq_n = caller, 0
        need = n - self.remaining
        if need > 0:
            what = roll_purpose(caller, self._seq_n)
            more = " more" if self.remaining else ""
            self.feed(self._ask(need, f"Roll {need}{more} {'die' if need == 1 else 'dice'} for {what}: "))
        return super().roll(n)

    def _ask(self, n: int, prompt: str) -> list[int]:
        while True:
            line = self.console.read(prompt)
            if line.lower() in ("quit", "exit"):
                raise Quit("quit")
            try:
                return parse_dice(line, n)
            except (DiceError, ValueError) as exc:
                example = " ".join(str(v) for v in ([3, 5, 6, 1, 4, 2] * (n // 6 + 1))[:n])
                self.console.write(f"  {exc}; type {n} value{'s' if n > 1 else ''} from 1 to 6 (e.g. {example})")


def parse_dice(text: str, n: int) -> list[int]:
    """``n`` die values from a typed line: ``"3 5 6"``, ``"3,5,6"`` or ``"356"``.

    Raises:
        DiceError: not ``n`` values, or a value that is not a whole number 1..6.
    """
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    if len(parts) == 1 and n > 1 and parts[0].isdigit() and len(parts[0]) == n:
        parts = list(parts[0])
    values = []
    for p in parts:
        if not re.fullmatch(r"[1-6]", p):  # ASCII only, so no int() of a huge or odd-digit word
            raise DiceError(f"{_cut(p)!r} is not a die value (1 to 6)")
        values.append(int(p))
    if len(values) != n:
        raise DiceError(f"{len(values)} value{'s' if len(values) != 1 else ''} given, {n} asked for")
    return values


def roll_purpose(caller, ordinal: int = 0) -> str:
    """What a roll is for, read from the call stack of the engine (best effort).

    ``caller`` is the frame that called ``Dice.roll``; ``ordinal`` counts the earlier
    rolls made by that same frame (0 for the first). Returns e.g. ``"the Tactical test,
    player 1"``, ``"akira's attack dice"``, ``"a damage roll (akira against masunagi)"``;
    ``"a roll"`` when nothing is recognised. Never raises.
    """
    try:
        return _purpose(caller, ordinal)
    except Exception:  # noqa: BLE001 - a label must never break a game
        return "a roll"


_TESTS = {"fear_test": "a Fear test", "size_test": "a Size test", "feat_test": "a Ki feat test",
          "tactical_test": "the Tactical test", "resolve_ranged_attack": "a ranged attack",
          "resolve_btb_targeting": "a ranged attack"}


def _purpose(caller, ordinal: int) -> str:
    frames = []
    f = caller
    while f is not None and len(frames) < 30:
        frames.append(f)
        f = f.f_back
    names = [x.f_code.co_name for x in frames]
    loc = frames[0].f_locals
    if names[0] == "resolve_exchange":
        c = loc["c"]
        if "picks" in loc:
            return f"{c[loc['by']].id}'s re-roll of {c[loc['on']].id}'s dice ({loc['src'].name})"
        return f"{c[loc['s']].id}'s {'attack' if ordinal % 2 == 0 else 'defence'} dice"
    if names[0] == "_start_turn":
        return "the variable game length roll"
    kind = None
    if names[0] == "_apply_rerolls":
        kind = "a re-roll"
    elif names[0] == "damage_roll":
        kind = "a damage roll"
    elif names[0] == "_roll_both":
        if "tactical_test" in names:
            return f"the Tactical test, player {1 if ordinal % 2 == 0 else 2}"
        kind = f"an opposed test, {'first' if ordinal % 2 == 0 else 'second'} side"
    if kind is None:
        kind = next((_TESTS[n] for n in names if n in _TESTS), None)
    if kind is None and "roll_pool" in names:
        kind = "a challenge test"
    who = None
    for fr, name in zip(frames, names):
        lc = fr.f_locals
        if name == "damage_roll" and "roller" in lc:
            who = f"{lc['roller'].id} against {lc['target'].id}"
        elif name == "resolve_ranged_attack":
            who = f"{lc['attacker_id']} shooting at {lc['target_id']}"
        elif name == "resolve_exchange":
            who = f"melee: {lc['a'].id} against {lc['b'].id}"
        elif name == "_fear_on_contact" and isinstance(lc.get("who"), str):
            who = lc["who"]
        elif name in ("_end_phase", "_immobilised_test", "_disguise_test", "_use_feat") and hasattr(lc.get("m"), "id"):
            who = lc["m"].id
        if who:
            break
    kind = kind or "a roll"
    return f"{kind} ({who})" if who else kind


# ------------------------------------------------------------------ actions as text
_FIELDS = {f.name: f for f in dataclasses.fields(Action)}
_INT_FIELDS = {"attack", "defence", "x", "boost"}
_FLOAT_FIELDS = {"facing", "direction"}
_ALIASES = {"stand": "stand_up", "stand-up": "stand_up", "standup": "stand_up", "alloc": "allocate",
            "charges": "charge", "shoots": "shoot"}
#: Kinds the engine knows today (others are passed through to :meth:`Game.is_legal`).
KNOWN_KINDS = ("walk", "run", "charge", "melee", "disengage", "shoot", "focus", "wait", "stand_up", "pass",
               "allocate", "ki_feat", "complex_ki_feat", "feat", "scenario", "complex_scenario", "intercept")


def _num(v: float) -> str:
    return f"{v:.2f}"


def action_text(a: Action) -> str:
    """An action as the player would type it (``walk matsu 4.50 9.00``, ``charge kazuha
    asp``, ``allocate akira 2 1``); :func:`parse_action` reads it back (points rounded to
    0.01")."""
    if a.kind == "pass":
        return "pass"
    words = [a.kind]
    if a.model is not None:
        words.append(a.model)
    done = {"kind", "model"}
    if a.kind == "allocate":
        words += [str(a.attack or 0), str(a.defence or 0)]
        done |= {"attack", "defence"}
        if a.special is not None:
            words.append(a.special)
            done.add("special")
            if a.direction is not None:
                words.append(f"{a.direction:g}")
                done.add("direction")
    else:
        if a.target is not None:
            words.append(a.target)
            done.add("target")
        if a.kind == "shoot" and a.walk in ("before", "after") and a.point is not None:
            words += [a.walk, _num(a.point[0]), _num(a.point[1])]
            done |= {"walk", "point"}
        elif a.point is not None:
            words += [_num(a.point[0]), _num(a.point[1])]
            done.add("point")
        if a.kind == "wait" and a.special is not None and " " not in a.special:
            words.append(a.special)
            done.add("special")
    for name in _FIELDS:
        if name in done:
            continue
        v = getattr(a, name)
        if v is None or v == ():
            continue
        if name == "path":
            v = ";".join(f"{p[0]:.2f},{p[1]:.2f}" for p in v)
        elif name == "point":
            v = f"{v[0]:.2f},{v[1]:.2f}"
        v = str(v)
        words.append(f"{name}={shlex.quote(v) if (' ' in v or not v) else v}")
    return " ".join(words)


def _model_id(game: Game, word: str, what: str = "model") -> str:
    ids = list(game.state.models)
    low = word.lower()
    for mid in ids:
        if mid.lower() == low:
            return mid
    hits = [mid for mid in ids if mid.lower().startswith(low)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise InputError(f"{what} {word!r} is ambiguous: {', '.join(hits)}")
    raise InputError(f"no {what} {word!r} (models: {', '.join(ids)})")


def _cut(word: str, limit: int = 24) -> str:
    """A typed word cut for a message (a 5000-digit number is shown as its start)."""
    return word if len(word) <= limit else word[:limit] + "..."


#: The most digits a typed whole number may have (menu numbers, dice counts, log lines).
MAX_DIGITS = 6


def _number(word: str, what: str) -> float:
    try:
        v = float(word)
    except ValueError:
        raise InputError(f"{what}: {_cut(word)!r} is not a number") from None
    if not math.isfinite(v):
        raise InputError(f"{what}: {_cut(word)!r} is not a finite number")
    return v


def _field(name: str, text: str, game: Game):
    if name not in _FIELDS or name == "kind":
        raise InputError(f"unknown field {name!r} (fields: {', '.join(n for n in _FIELDS if n != 'kind')})")
    if name in _INT_FIELDS:
        return _int(text, name)
    if name in _FLOAT_FIELDS:
        return _number(text, name)
    if name == "point":
        parts = text.split(",")
        if len(parts) != 2:
            raise InputError(f"point: expected X,Y, got {text!r}")
        return (_number(parts[0], "point x"), _number(parts[1], "point y"))
    if name == "path":
        pts = []
        for p in text.split(";"):
            xy = p.split(",")
            if len(xy) != 2:
                raise InputError(f"path: expected X,Y;X,Y..., got {text!r}")
            pts.append((_number(xy[0], "path x"), _number(xy[1], "path y")))
        return tuple(pts)
    if name in ("model", "target"):
        return _model_id(game, text, name)
    return text


def parse_action(game: Game, text: str) -> Action:
    """Read a typed action against the current game (model ids may be unique prefixes).

    Shapes: ``walk|run MODEL X Y``, ``charge|melee MODEL TARGET``, ``shoot MODEL TARGET
    [before|after X Y]``, ``disengage MODEL TARGET [X Y]``, ``focus|stand_up MODEL``,
    ``wait MODEL [OPTION]``, ``allocate [MODEL] ATTACK DEFENCE [SPECIAL [DIRECTION]]``,
    ``pass``; any kind also takes ``field=value`` words for the fields of
    :class:`~sim.rules.game.Action` (``point=X,Y``, ``path=X,Y;X,Y``, ``facing=DEG`` ...).
    Other kinds take ``MODEL [TARGET] [X Y]``. The result is not judged: see
    :meth:`Game.is_legal`.

    Raises:
        InputError: empty text, unbalanced quotes, an unknown kind, model, field, or a
            word that is not where it can be read.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise InputError(f"cannot read {text!r}: {exc}") from None
    if not words:
        raise InputError("nothing typed")
    kind = words[0].lower().replace("-", "_")
    kind = _ALIASES.get(words[0].lower(), kind)
    if kind not in KNOWN_KINDS:
        raise InputError(f"unknown action {words[0]!r} (actions: {', '.join(KNOWN_KINDS)}; type help)")
    fields: dict = {}
    pos: list[str] = []
    for w in words[1:]:
        if "=" in w:
            name, _, value = w.partition("=")
            fields[name.strip().lower()] = _field(name.strip().lower(), value.strip(), game)
        else:
            pos.append(w)
    if kind == "pass":
        if pos:
            raise InputError("pass takes no model")
        return Action("pass", **fields)
    if kind == "intercept":  # step 1d: "intercept" (nobody) or "intercept MODEL"
        if len(pos) > 1:
            raise InputError("intercept takes at most one model (the interceptor)")
        return Action("intercept", target=_model_id(game, pos[0]) if pos else None)
    if kind == "allocate":
        if pos and not _is_int(pos[0]):
            fields.setdefault("model", _model_id(game, pos.pop(0)))
        if "model" not in fields:
            fields["model"] = _waiting_model(game)
        if len(pos) >= 2:
            fields.setdefault("attack", _int(pos[0], "attack dice"))
            fields.setdefault("defence", _int(pos[1], "defence dice"))
            pos = pos[2:]
        if pos:
            fields.setdefault("special", pos.pop(0))
        if pos:
            fields.setdefault("direction", _number(pos.pop(0), "direction"))
        if pos:
            raise InputError(f"cannot read {' '.join(pos)!r} (allocate [MODEL] ATTACK DEFENCE [SPECIAL [DIRECTION]])")
        if "attack" not in fields or "defence" not in fields:
            raise InputError("allocate needs ATTACK and DEFENCE dice (allocate [MODEL] ATTACK DEFENCE)")
        return Action("allocate", **fields)
    if "model" not in fields:
        if not pos:
            raise InputError(f"{kind} needs a model (e.g. {kind} MODEL ...; type help)")
        fields["model"] = _model_id(game, pos.pop(0))
    if kind == "shoot" and pos and "target" not in fields and not _is_num(pos[0]) \
            and pos[0].lower() not in ("before", "after"):
        fields["target"] = _model_id(game, pos.pop(0), "target")
    if kind == "shoot" and pos and pos[0].lower() in ("before", "after"):
        fields.setdefault("walk", pos.pop(0).lower())
    if kind == "wait" and len(pos) == 1 and not _is_num(pos[0]):
        fields.setdefault("special", pos.pop(0))
    if pos and not _is_num(pos[0]) and "target" not in fields:
        fields["target"] = _model_id(game, pos.pop(0), "target")
    if len(pos) >= 2 and "point" not in fields:
        fields["point"] = (_number(pos[0], "x"), _number(pos[1], "y"))
        pos = pos[2:]
    if pos:
        raise InputError(f"cannot read {' '.join(pos)!r} in {text!r} (type help)")
    if kind in ("walk", "run") and "point" not in fields and not fields.get("path"):
        raise InputError(f"{kind} needs a destination: {kind} MODEL X Y")
    if kind in ("charge", "melee", "disengage", "shoot") and "target" not in fields:
        raise InputError(f"{kind} needs a target: {kind} MODEL TARGET")
    if fields.get("walk") and "point" not in fields:
        raise InputError("a declared walk needs a point: shoot MODEL TARGET before|after X Y")
    return Action(kind, **fields)


def _is_num(w: str) -> bool:
    try:
        float(w)
    except ValueError:
        return False
    return True


def _is_int(w: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", w) is not None


def _int(w: str, what: str) -> int:
    """A typed whole number of at most :data:`MAX_DIGITS` digits. Raises InputError."""
    if not _is_int(w):
        raise InputError(f"{what}: {_cut(w)!r} is not a whole number")
    if len(w.lstrip("+-")) > MAX_DIGITS:
        raise InputError(f"{what}: {_cut(w)!r} is too large (at most {MAX_DIGITS} digits)")
    return int(w)


def _waiting_model(game: Game) -> str:
    ex = game.state.exchange
    if ex is None:
        raise InputError("no melee exchange is waiting for allocations")
    for mid in (ex["attacker"], ex["defender"]):
        if mid not in ex["allocations"]:
            return mid
    raise InputError("both models have allocated")


# ------------------------------------------------------------------ views
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
            objs.append(f"{o.id} ({o.position[0]:g}, {o.position[1]:g}) " + ("neutral" if owner is None else f"player {owner}"))
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
        return f"  {m.id:<10} killed"
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


# ------------------------------------------------------------------ the session
class Hotseat:
    """One hot-seat session on a game (see :func:`run_hotseat` for the arguments)."""

    def __init__(self, game: Game, stdin: IO[str], stdout: IO[str], bots: dict | None = None,
                 clear: str = DEFAULT_CLEAR, save: str | None = None, echo: bool | None = None,
                 max_actions: int = 10_000):
        self.game = game
        self.io = _Console(stdin, stdout, echo)
        self.bots = dict(bots or {})
        for p in self.bots:
            if p not in (1, 2):
                raise ValueError(f"bots are keyed by player 1 or 2, got {p!r}")
        self.clear = clear
        self.save_path = save
        self.max_actions = max_actions
        self.history: list[int] = []  # who decided each action pushed in this session
        self.pushed = 0
        self.humans = [p for p in (1, 2) if p not in self.bots]

    # -- driving
    def run(self) -> str:
        """Play until the game ends (``"over"``) or the players stop (``"quit"``)."""
        g = self.game
        try:
            while not g.is_over():
                p = g.to_move()
                if p is None:
                    break
                if p in self.bots:
                    self._bot_turn(p)
                else:
                    self._human_turn(p)
        except Quit as q:
            self.io.write(f"{'Quit' if str(q) == 'quit' else 'End of input'}: the game stops here "
                          f"(turn {g.state.turn}, {g.state.phase} phase).")
            self._autosave(final=True)
            return "quit"
        self.io.write("")
        self.io.write(f"=== Game over: {g.state.result} ===")
        self.io.write(full_state(g))
        self._autosave(final=True)
        return "over"

    def _who(self, p: int) -> str:
        bot = self.bots.get(p)
        return f"Player {p} ({getattr(bot, 'name', type(bot).__name__)} bot)" if bot is not None else f"Player {p}"

    def _bot_turn(self, p: int) -> None:
        g = self.game
        action = self.bots[p].choose(g)
        if action.kind == "allocate":
            self.io.write(f"{self._who(p)} allocates {action.model}'s dice in secret.")
        else:
            self.io.write(f"{self._who(p)}: {action_text(action)}")
        if not self._push(action, p):
            raise RuntimeError(f"the bot of player {p} chose an action the engine refused: {action_text(action)}")

    def _handoff(self, p: int) -> None:
        """Clear the screen and wait until player ``p`` has the device."""
        self.io.stdout.write(self.clear)
        self.io.write("")
        self.io.write(f"Secret melee allocation (p.33). Pass the device to player {p}, press Enter "
                      f"(player {3 - p} looks away).")
        line = self.io.read(f"Player {p}, press Enter: ", secret=True)
        if line.lower() in ("quit", "exit"):
            raise Quit("quit")

    def _human_turn(self, p: int) -> None:
        g = self.game
        secret = g.state.exchange is not None
        if secret and len(self.humans) == 2:
            self._handoff(p)
        self.io.write("")
        self.io.write(f"=== Player {p} to move ===")
        self.io.write(brief_view(g, p))
        actions = g.legal_actions()
        self.io.write("Your melee allocation (secret):" if secret else "Legal actions:")
        self.io.write(menu_text(actions))
        self.io.write("Type a number, an action, or help.")
        prompt = f"Player {p}, allocate in secret > " if secret else f"Player {p} > "
        pending: Action | None = None
        while True:
            line = self.io.read(prompt, secret=secret)
            if not line:
                continue
            if pending is not None and line.lower() in ("yes", "y"):
                if self._push(pending, p):
                    return
                pending = None
                continue
            pending = None
            cmd, _, rest = line.partition(" ")
            cmd = cmd.lower()
            rest = rest.strip()
            if cmd in ("help", "?", "h"):
                self.io.write(HELP)
            elif cmd == "state":
                self.io.write(full_state(g, g.to_move()))
            elif cmd in ("actions", "menu", "list"):
                self.io.write(menu_text(actions))
            elif cmd == "log":
                self._log(rest)
            elif cmd == "undo":
                if self._undo(p):
                    return
            elif cmd == "save":
                self._save(rest)
            elif cmd in ("quit", "exit"):
                raise Quit("quit")
            elif re.fullmatch(r"[0-9]+", line):
                i = int(line) if len(line) <= MAX_DIGITS else 0
                if not 1 <= i <= len(actions):
                    self.io.write(f"No action number {_cut(line)}: the numbers go from 1 to {len(actions)}.")
                    continue
                if self._push(actions[i - 1], p):
                    return
            else:
                try:
                    action = parse_action(g, line)
                    ok, why = g.is_legal(action)
                except (ValueError, ArithmeticError) as exc:  # InputError, GameError (e.g. a NaN), overflow
                    self.io.write(f"Not understood: {exc}")
                    continue
                if ok:
                    if self._push(action, p):
                        return
                    continue
                self.io.write(f"Refused: {why or 'not legal now'}.")
                if self._forceable(action):
                    self.io.write("Nothing was declared. Type yes to declare it anyway (the engine reverts it and "
                                  "the model loses one activation counter, p.24), or choose again.")
                    pending = action

    def _forceable(self, action: Action) -> bool:
        """Whether the engine would take ``action`` as a declared illegal action (revert
        and one counter lost) rather than refuse it with a :class:`GameError`."""
        st = self.game.state
        if action.kind in Action.FREE or st.exchange is not None:
            return False
        m = st.models.get(action.model or "")
        return m is not None and m.alive and m.player == st.active and not m.exhausted

    def _push(self, action: Action, p: int) -> bool:
        """Push ``action`` for player ``p``; print what happened. False when the engine
        refused it (nothing changed)."""
        g = self.game
        if self.pushed >= self.max_actions:
            raise RuntimeError(f"the game did not end within {self.max_actions} actions")
        try:
            events = g.push(action)
        except GameError as exc:
            self.io.write(f"Refused: {exc}.")
            return False
        except Quit:
            # stopped while the players were rolling: take the half-played action back
            try:
                g.pop()
            except GameError:
                pass
            raise
        self.pushed += 1
        self.history.append(p)
        for k, ev in enumerate(events):
            if ev.kind == "exchange":
                self._reveal(len(g.events) - len(events) + k)
            self.io.write(describe_event(ev))
        if action.kind == "allocate" and g.state.exchange is not None:
            self.io.write(f"{action.model}'s allocation is recorded; it stays secret until both have allocated.")
        self._autosave()
        return True

    def _reveal(self, i: int) -> None:
        """Before the ``exchange`` event ``game.events[i]``: both allocations, from the
        last two ``allocated`` events before it."""
        allocs = [ev for ev in self.game.events[:i] if ev.kind == "allocated"][-2:]
        if len(allocs) == 2:
            parts = []
            for ev in allocs:
                d = ev.data
                s = f"{d['model']} {d['attack']} attack, {d['defence']} defence"
                if d.get("special"):
                    s += f", {d['special']}" + (f" (direction {d['direction']:g})" if d.get("direction") is not None else "")
                parts.append(s)
            self.io.write("  Allocations revealed: " + "; ".join(parts))

    def _undo(self, p: int) -> bool:
        g = self.game
        if p not in self.history:
            self.io.write("Nothing of yours to take back in this session"
                          + (" (a loaded game is not taken back past the load)." if g.events and not self.history else "."))
            return False
        taken = []
        while self.history:
            who = self.history.pop()
            try:
                a = g.pop()
            except GameError as exc:
                self.io.write(f"Cannot take back more: {exc}")
                break
            taken.append((who, a))
            if who == p:
                break
        for who, a in taken:
            text = action_text(a) if (who == p or a.kind != "allocate") else f"{a.model}'s allocation (secret)"
            self.io.write(f"Took back: player {who}: {text}")
        if hasattr(self.game.dice, "state"):
            self.io.write("(The dice are rolled back too: the same declaration rolls the same dice.)")
        else:
            self.io.write("(Physical dice: a new declaration asks for new rolls.)")
        self._autosave()
        return True

    def _log(self, rest: str) -> None:
        n = 30
        if rest:
            if not re.fullmatch(r"[0-9]{1,%d}" % MAX_DIGITS, rest):
                self.io.write(f"log N: N is a number of lines (at most {MAX_DIGITS} digits)")
                return
            n = int(rest)
        lines = [describe_event(ev) for ev in self.game.events]
        self.io.write("\n".join(lines[-n:] if n else lines))

    def _save(self, rest: str) -> None:
        if not rest:
            self.io.write("save FILE: name the file")
            return
        try:
            path = shlex.split(rest)[0]
            _check_save_path(path)
            self.game.save(path)
        except (OSError, ValueError) as exc:
            self.io.write(f"Cannot save: {exc}")
            return
        self.io.write(f"Saved {path} (continue with: python main.py hotseat --load {path})")

    def _autosave(self, final: bool = False) -> None:
        if not self.save_path:
            return
        try:
            self.game.save(self.save_path)
        except (OSError, ValueError) as exc:
            self.io.write(f"Cannot save {self.save_path}: {exc}")
            return
        if final:
            self.io.write(f"Saved {self.save_path}")


def run_hotseat(game: Game, stdin: IO[str], stdout: IO[str], bots: dict | None = None,
                clear: str = DEFAULT_CLEAR, save: str | None = None, echo: bool | None = None,
                max_actions: int = 10_000) -> str:
    """Play ``game`` at one terminal until it ends or the players stop.

    Args:
        game: a :class:`~sim.rules.game.Game` (new, or from :meth:`Game.load`).
        stdin, stdout: text streams; every line the players type is read from ``stdin``
            (including the Enter of a hand-over and, with :class:`PromptDice` on the same
            stream, the dice).
        bots: ``{player: bot}`` (a bot has ``choose(game) -> Action``, e.g.
            :class:`~sim.rules.bots.GreedyBot`); the other players are human.
        clear: written before each secret allocation prompt when both players are human
            (:data:`LINES_CLEAR` by default, :data:`ANSI_CLEAR` for a terminal).
        save: a path the game is saved to after every action and at the end.
        echo: write each typed line after its prompt (secret input as ``(hidden)``);
            default: when ``stdin`` is not a terminal.
        max_actions: a guard against a game that never ends.

    Returns:
        ``"over"`` when the game ended, ``"quit"`` after ``quit`` or the end of the input.

    Raises:
        ValueError: ``bots`` names a player other than 1 or 2.
        RuntimeError: a bot's action is refused by the engine, or more than
            ``max_actions`` actions were played.
    """
    return Hotseat(game, stdin, stdout, bots=bots, clear=clear, save=save, echo=echo, max_actions=max_actions).run()


# ------------------------------------------------------------------ command line
def _check_save_path(path: str) -> None:
    """Refuse, before anything is played or written, a save path whose folder is missing
    or not writable, or an existing file that is not a save (it would be destroyed).

    Raises:
        sim.files.OutputPathError: a ``ValueError`` naming the file and the problem.
    """
    from sim.files import check_output_path
    from sim.rules.game import is_save_head

    check_output_path(path, overwrite=is_save_head, kind="bushido-game/1 save")


def _bot_spec(text: str) -> tuple[int, str]:
    from sim.rules.bots import BOTS

    player, sep, name = text.partition("=")
    if not sep or player.strip() not in ("1", "2") or name.strip() not in BOTS:
        raise argparse.ArgumentTypeError(f"expected 1=NAME or 2=NAME with NAME in {', '.join(BOTS)}, got {text!r}")
    return int(player), name.strip()


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``hotseat`` sub-command to ``sub`` (an argparse sub-parsers object)."""
    hs = sub.add_parser("hotseat", help="play a game at one terminal: two players, or a player and a bot")
    hs.add_argument("table", nargs="?", default=None, help="table file (default: data/tables/default.yaml; "
                                                          "ignored with --load)")
    hs.add_argument("--seed", type=int, default=0, help="dice seed (seeded dice)")
    hs.add_argument("--turns", type=int, help="fixed game length in turns (default: variable (5))")
    hs.add_argument("--dice", choices=["seeded", "physical"], default="seeded",
                    help="seeded: the program rolls; physical: the players roll and type the values")
    hs.add_argument("--bot", action="append", default=[], type=_bot_spec, metavar="P=NAME",
                    help="a bot plays player P (1=greedy, 2=random ...); repeatable")
    hs.add_argument("--scenario", metavar="NAME|FILE", help="a scenario from data/scenarios or a scenario file")
    hs.add_argument("--save", metavar="FILE", help="save the game after every action (JSON, atomic)")
    hs.add_argument("--load", metavar="FILE", help="continue a game saved by --save or the save command")
    hs.add_argument("--clear", choices=["ansi", "lines"], default=None,
                    help="how the screen is cleared before a secret allocation "
                         "(default: ansi on a terminal, else blank lines)")
    return hs


def run_cli(args, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run ``main.py hotseat`` with parsed ``args``; returns the exit status (0).

    Raises (turned into status 2 by ``main``): :class:`~sim.table.TableError` for a bad
    table, :class:`~sim.rules.game.GameError` (a ``ValueError``) for a bad save.
    """
    from sim.rules.bots import BOTS

    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    if args.save:
        _check_save_path(args.save)  # before the game: a bad path is status 2 at once
    out = _Console(stdin, stdout)
    bots = {}
    for p, name in args.bot:
        bots[p] = BOTS[name](args.seed + p - 1)
    dice = PromptDice(stdin, stdout) if args.dice == "physical" else None
    try:
        if args.load:
            game = Game.load(args.load)
            if dice is None and not game.seeded:  # played with physical dice: go on with them
                dice = PromptDice(stdin, stdout)
                out.write("This game was played with physical dice: roll and type the values when asked.")
            if dice is not None:  # physical dice; seeded dice roll on from the saved state
                game.dice = dice
            out.write(f"Loaded {args.load}: turn {game.state.turn}, {game.state.phase} phase, "
                      f"{len(game.events)} events.")
        else:
            from sim.table import DEFAULT_TABLE, load_table

            table = load_table(args.table or DEFAULT_TABLE)
            length = ("fixed", args.turns) if args.turns else None
            if dice is not None:
                out.write("Physical dice: roll and type the values when asked (e.g. 3 5 6).")
            game = Game(table, seed=args.seed, dice=dice, length=length, scenario=args.scenario)
    except Quit:
        out.write("Stopped before the game began.")
        return 0
    except KeyboardInterrupt:
        out.write("\nInterrupted.")
        return 130
    clear = args.clear or ("ansi" if _isatty(stdout) else "lines")
    who = ", ".join(f"player {p}: {bots[p].name} bot" if p in bots else f"player {p}: human" for p in (1, 2))
    out.write(f"Hot-seat game on {game.table.name} ({who}). Type help for the commands.")
    try:
        run_hotseat(game, stdin, stdout, bots=bots, clear=ANSI_CLEAR if clear == "ansi" else LINES_CLEAR,
                    save=args.save)
    except KeyboardInterrupt:
        out.write("\nInterrupted.")
        return 130
    return 0
