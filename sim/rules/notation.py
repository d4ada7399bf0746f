"""The action notation: an :class:`~sim.rules.game.Action` as a player types it and as
the hot-seat, the ``replay`` listing and the logs of decisions write it.

``walk matsu 4.50 9.00``, ``charge kazuha asp``, ``shoot kenta asp before 3 4``,
``allocate akira 2 1``, ``pass``, ``intercept ishi``; any kind of the game's registry
(:data:`~sim.rules.game.actions.ACTION_KINDS`, Actions p.21, p.24-26, p.30, p.33, p.46,
p.63) as ``KIND MODEL [TARGET] [X Y] [field=value ...]``. :func:`action_text` writes it
(``exact=True``: numbers that read back to the very same floats), :func:`parse_action`
reads it against a game (model ids may be unique prefixes), raising
:class:`NotationError` for what cannot be read. Pure: no I/O, nothing of the views.

The game's own log keeps its saved wording of an action (``walk to (4.50, 9.00)``, the
``activate`` event's text, :meth:`Action.__str__`): it is part of the save format, which
old saves are verified against.

>>> action_text(Action("walk", "matsu", point=(4.5, 9.0)))
'walk matsu 4.50 9.00'
>>> action_text(Action("walk", "matsu", point=(1 / 3, 9.0)), exact=True)
'walk matsu 0.3333333333333333 9.00'
>>> action_text(Action("allocate", "akira", attack=2, defence=1, special="push"))
'allocate akira 2 1 push'
"""

from __future__ import annotations

import dataclasses
import math
import re
import shlex

from sim.rules.action_kinds import ACTION_RULES
from sim.rules.game import ACTION_KINDS, Action, Game

__all__ = ["NotationError", "InputError", "MAX_DIGITS", "cut_word", "known_kinds", "KNOWN_KINDS", "ALIASES",
           "action_text", "parse_action"]


class NotationError(ValueError):
    """A typed action that cannot be read (unknown kind, model, field or number)."""


#: The name the hot-seat has always used for :class:`NotationError`.
InputError = NotationError

#: The most digits a typed whole number may have (menu numbers, dice counts, log lines).
MAX_DIGITS = 6


def cut_word(word: str, limit: int = 24) -> str:
    """A typed word cut for a message (a 5000-digit number is shown as its start)."""
    return word if len(word) <= limit else word[:limit] + "..."


_FIELDS = {f.name: f for f in dataclasses.fields(Action)}
_INT_FIELDS = {"attack", "defence", "x", "boost", "option"}
_FLOAT_FIELDS = {"facing", "direction"}
#: Other words for a kind: ``stand`` is ``stand_up``, ``alloc`` is ``allocate`` ...
ALIASES = {"stand": "stand_up", "stand-up": "stand_up", "standup": "stand_up", "alloc": "allocate",
           "charges": "charge", "shoots": "shoot"}


def known_kinds() -> tuple[str, ...]:
    """The kinds the notation reads: those of the game's registry
    (:data:`~sim.rules.game.actions.ACTION_KINDS`), in the order of the rulebook table
    (:data:`~sim.rules.action_kinds.ACTION_RULES`)."""
    return tuple(k for k in ACTION_RULES if k in ACTION_KINDS) + tuple(k for k in ACTION_KINDS if k not in ACTION_RULES)


#: :func:`known_kinds` when the game package was loaded.
KNOWN_KINDS = known_kinds()


def _num(v: float, exact: bool = False, fmt: str = ".2f") -> str:
    s = format(v, fmt)
    if exact and float(s) != v:
        s = repr(float(v))
    return s


def action_text(a: Action, exact: bool = False) -> str:
    """An action as the player would type it (``walk matsu 4.50 9.00``, ``charge kazuha
    asp``, ``allocate akira 2 1``); :func:`parse_action` reads it back. Points are written
    to 0.01" and an allocation's direction to 6 digits, unless ``exact``: then a number
    that would not read back as the same float is written in full (``repr``), so that
    ``parse_action(game, action_text(a, exact=True)) == a``."""
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
                words.append(_num(a.direction, exact, "g"))
                done.add("direction")
    else:
        if a.target is not None:
            words.append(a.target)
            done.add("target")
        if a.kind == "shoot" and a.walk in ("before", "after") and a.point is not None:
            words += [a.walk, _num(a.point[0], exact), _num(a.point[1], exact)]
            done |= {"walk", "point"}
        elif a.point is not None:
            words += [_num(a.point[0], exact), _num(a.point[1], exact)]
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
            v = ";".join(f"{_num(p[0], exact)},{_num(p[1], exact)}" for p in v)
        elif name == "models":
            v = ",".join(v)
        elif name == "point":
            v = f"{_num(v[0], exact)},{_num(v[1], exact)}"
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
        raise NotationError(f"{what} {word!r} is ambiguous: {', '.join(hits)}")
    raise NotationError(f"no {what} {word!r} (models: {', '.join(ids)})")


def _number(word: str, what: str) -> float:
    try:
        v = float(word)
    except ValueError:
        raise NotationError(f"{what}: {cut_word(word)!r} is not a number") from None
    if not math.isfinite(v):
        raise NotationError(f"{what}: {cut_word(word)!r} is not a finite number")
    return v


def _field(name: str, text: str, game: Game):
    if name not in _FIELDS or name == "kind":
        raise NotationError(f"unknown field {name!r} (fields: {', '.join(n for n in _FIELDS if n != 'kind')})")
    if name in _INT_FIELDS:
        return _int(text, name)
    if name in _FLOAT_FIELDS:
        return _number(text, name)
    if name == "point":
        parts = text.split(",")
        if len(parts) != 2:
            raise NotationError(f"point: expected X,Y, got {text!r}")
        return (_number(parts[0], "point x"), _number(parts[1], "point y"))
    if name == "path":
        pts = []
        for p in text.split(";"):
            xy = p.split(",")
            if len(xy) != 2:
                raise NotationError(f"path: expected X,Y;X,Y..., got {text!r}")
            pts.append((_number(xy[0], "path x"), _number(xy[1], "path y")))
        return tuple(pts)
    if name in ("model", "target"):
        return _model_id(game, text, name)
    if name == "models":  # model ids, comma-separated (Command, Order, Leech, Channel)
        return tuple(_model_id(game, w, "model") for w in text.split(",") if w)
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
        NotationError: empty text, unbalanced quotes, a kind the game's registry does not
            hold (nor :data:`ALIASES`), an unknown model or field, or a word that is not
            where it can be read.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise NotationError(f"cannot read {text!r}: {exc}") from None
    if not words:
        raise NotationError("nothing typed")
    kind = words[0].lower().replace("-", "_")
    kind = ALIASES.get(words[0].lower(), kind)
    if kind not in ACTION_KINDS:
        raise NotationError(f"unknown action {words[0]!r} (actions: {', '.join(known_kinds())}; type help)")
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
            raise NotationError("pass takes no model")
        return Action("pass", **fields)
    if kind == "intercept":  # step 1d: "intercept" (nobody) or "intercept MODEL"
        if len(pos) > 1:
            raise NotationError("intercept takes at most one model (the interceptor)")
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
            raise NotationError(f"cannot read {' '.join(pos)!r} "
                                "(allocate [MODEL] ATTACK DEFENCE [SPECIAL [DIRECTION]])")
        if "attack" not in fields or "defence" not in fields:
            raise NotationError("allocate needs ATTACK and DEFENCE dice (allocate [MODEL] ATTACK DEFENCE)")
        return Action("allocate", **fields)
    if "model" not in fields:
        if not pos:
            raise NotationError(f"{kind} needs a model (e.g. {kind} MODEL ...; type help)")
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
        raise NotationError(f"cannot read {' '.join(pos)!r} in {text!r} (type help)")
    if kind in ("walk", "run") and "point" not in fields and not fields.get("path"):
        raise NotationError(f"{kind} needs a destination: {kind} MODEL X Y")
    if kind in ("charge", "melee", "disengage", "shoot") and "target" not in fields:
        raise NotationError(f"{kind} needs a target: {kind} MODEL TARGET")
    if fields.get("walk") and "point" not in fields:
        raise NotationError("a declared walk needs a point: shoot MODEL TARGET before|after X Y")
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
    """A typed whole number of at most :data:`MAX_DIGITS` digits. Raises NotationError."""
    if not _is_int(w):
        raise NotationError(f"{what}: {cut_word(w)!r} is not a whole number")
    if len(w.lstrip("+-")) > MAX_DIGITS:
        raise NotationError(f"{what}: {cut_word(w)!r} is too large (at most {MAX_DIGITS} digits)")
    return int(w)


def _waiting_model(game: Game) -> str:
    ex = game.state.exchange
    if ex is None:
        raise NotationError("no melee exchange is waiting for allocations")
    for mid in (ex["attacker"], ex["defender"]):
        if mid not in ex["allocations"]:
            return mid
    raise NotationError("both models have allocated")

