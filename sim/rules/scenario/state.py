"""What the scenario remembers during a game: :class:`ScenarioState`, the state before
turn 1, VIM choice and kills (p.63).

Rulebook: Scenario rules p.63: VIM (lines 1948-1968), Prayer pools (line 1993), Worship
markers (line 2009), scenario and victory points. The state is a frozen value; every rule
returns a new one. Its JSON shape is in ``docs/scenarios.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from sim.rules.scenario.model import VIM_KINDS, Scenario, ScenarioError

STATE_FORMAT = "bushido-scenario-state/1"


def vim_refusal(kind: str, types: Iterable[str], traits: Iterable[str] = ()) -> str | None:
    """Why a model may not be chosen as a VIM of ``kind`` (VIM, p.63, lines 1948-1968),
    or None when it may. ``types`` are its profile types (``unique``, ``animal`` ...),
    ``traits`` its trait keywords (``insignificant``, ``flank``, ``disguise``), all lower
    case.

    The model must be Unique, not an Animal, not Insignificant; a Nominated VIM also may
    not have Flank or start Disguised. (An Open or Hidden VIM that has Flank or Disguise
    simply loses them: the game's part.)

    Raises:
        ScenarioError: ``kind`` is not hidden, open or nominated.
    """
    if kind not in VIM_KINDS:
        raise ScenarioError(f"VIM kind must be one of {', '.join(VIM_KINDS)}, not {kind!r}")
    types = {t.lower() for t in types}
    traits = {t.lower() for t in traits}
    if "unique" not in types:
        return "a VIM must be Unique"
    if "animal" in types:
        return "an Animal cannot be a VIM"
    if "insignificant" in traits:
        return "an Insignificant model cannot be a VIM"
    if kind == "nominated" and traits & {"flank", "disguise"}:
        return "a Nominated VIM cannot have Flank or Disguise"
    return None


@dataclass(frozen=True)
class ScenarioState:
    """Everything the scenario remembers during a game. Never mutate it: the functions
    of this package return new states. ``to_json`` / ``from_json`` round-trip exactly.

    Attributes:
        turn: the current turn (0 before the first Start phase).
        alignment: ``{objective_id: None | 1 | 2}`` (None = neutral, p = friendly to p).
        removed: ids of objectives removed by a Decreasing rule, in removal order.
        prayer: ``{player: tokens left in the prayer pool}`` (empty without Prayer).
        worship: ``{objective_id: {player: markers}}`` (empty without Worship).
        sp: ``{player: scenario points}``.
        vp: ``{player: victory points}``.
        awards: the VP awards resolved, in order, each
            ``{"award": i, "kind", "player": p | None, "vp": n, "turn": t, "note"}``;
            player None = nobody scored it (a tie, or it lapsed).
        actions: this turn's Scenario actions, each ``{"turn", "player", "model",
            "objective", "kind", "action"}`` (Popular and the Prayer limit read them).
        vims: ``{owner: (model ids...)}``: the VIM that belongs to each side (empty
            tuple: no legal VIM, it counts as killed).
        vim_killed: ``{owner: turn the VIM was killed | None}`` (0 = before the game).
        last_end_phase: the last turn whose End phase was scored (0 = none yet).
        over: True once the game has ended (all 3 VP scored, or the last turn).
    """

    turn: int
    alignment: dict
    removed: tuple
    prayer: dict
    worship: dict
    sp: dict
    vp: dict
    awards: tuple
    actions: tuple
    vims: dict
    vim_killed: dict
    last_end_phase: int = 0
    over: bool = False

    def to_json(self) -> dict:
        """A JSON-ready mapping (player keys as strings ``"1"``/``"2"``); see
        ``docs/scenarios.md`` for its shape."""
        def pk(d):
            return {str(k): v for k, v in d.items()}
        return {
            "format": STATE_FORMAT,
            "turn": self.turn,
            "alignment": dict(self.alignment),
            "removed": list(self.removed),
            "prayer": pk(self.prayer),
            "worship": {o: pk(v) for o, v in self.worship.items()},
            "sp": pk(self.sp),
            "vp": pk(self.vp),
            "awards": [dict(a) for a in self.awards],
            "actions": [dict(a) for a in self.actions],
            "vims": {str(k): list(v) for k, v in self.vims.items()},
            "vim_killed": pk(self.vim_killed),
            "last_end_phase": self.last_end_phase,
            "over": self.over,
        }

    @classmethod
    def from_json(cls, doc: Mapping) -> "ScenarioState":
        """The state written by :meth:`to_json` (also after a trip through ``json``).

        Raises:
            ScenarioError: not a scenario state mapping.
        """
        try:
            if doc.get("format", STATE_FORMAT) != STATE_FORMAT:
                raise ScenarioError(f"not a {STATE_FORMAT} mapping (format {doc.get('format')!r})")

            def ik(d):
                return {int(k): v for k, v in d.items()}
            return cls(
                turn=int(doc["turn"]),
                alignment={str(k): (None if v is None else int(v)) for k, v in doc["alignment"].items()},
                removed=tuple(doc["removed"]),
                prayer={int(k): int(v) for k, v in doc["prayer"].items()},
                worship={o: {int(k): int(n) for k, n in v.items()} for o, v in doc["worship"].items()},
                sp={int(k): int(v) for k, v in doc["sp"].items()},
                vp={int(k): int(v) for k, v in doc["vp"].items()},
                awards=tuple(dict(a) for a in doc["awards"]),
                actions=tuple(dict(a) for a in doc["actions"]),
                vims={int(k): tuple(v) for k, v in doc["vims"].items()},
                vim_killed=ik(doc["vim_killed"]),
                last_end_phase=int(doc.get("last_end_phase", 0)),
                over=bool(doc.get("over", False)),
            )
        except ScenarioError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ScenarioError(f"bad scenario state: {exc!r}") from None

    @property
    def vp_scored(self) -> int:
        """VP scored by both players together (never more than 3)."""
        return sum(self.vp.values())

    def friendly_objectives(self, player: int) -> list[str]:
        """Ids of the objectives (not removed) friendly to ``player``, in file order."""
        return [o for o, a in self.alignment.items() if a == player and o not in self.removed]


def initial_state(scenario: Scenario, vims: Mapping[int, Any] | None = None) -> ScenarioState:
    """The state before turn 1: objectives at their starting alignment, full prayer
    pools, no markers, no points.

    Args:
        vims: for a VIM scenario, ``{owner: model id}`` (or a list of ids when two
            models count as one, VIM p.63), keyed by the side the VIM model belongs to,
            whichever player chose it (a Nominated VIM is chosen by the opponent). A
            missing or None entry means that side had no legal VIM: it counts as killed
            (turn 0). Ignored without a VIM.

    Raises:
        ScenarioError: a VIM scenario without ``vims``; vims names a player other than
            1 or 2.
    """
    prayer = scenario.interaction("prayer")
    worship = scenario.interaction("worship")
    vim_ids: dict[int, tuple] = {}
    killed: dict[int, int | None] = {}
    if scenario.vim:
        if vims is None:
            raise ScenarioError(f"scenario {scenario.name!r} has a VIM ({scenario.vim}): pass vims={{owner: model id}} "
                                "(None for a side with no legal VIM)")
        vims = dict(vims)
        bad = [k for k in vims if k not in (1, 2)]
        if bad:
            raise ScenarioError(f"vims: players are 1 and 2, not {bad[0]!r}")
        for p in (1, 2):
            v = vims.get(p)
            ids = () if v is None else ((v,) if isinstance(v, str) else tuple(v))
            vim_ids[p] = ids
            killed[p] = None if ids else 0
    return ScenarioState(
        turn=0,
        alignment={o.id: o.alignment for o in scenario.objectives},
        removed=(),
        prayer={1: prayer.tokens, 2: prayer.tokens} if prayer else {},
        worship={o.id: {1: 0, 2: 0} for o in scenario.objectives} if worship else {},
        sp={1: 0, 2: 0},
        vp={1: 0, 2: 0},
        awards=(),
        actions=(),
        vims=vim_ids,
        vim_killed=killed,
    )


def record_kill(state: ScenarioState, model_id: str, turn: int) -> ScenarioState:
    """Note that ``model_id`` was killed in ``turn``. If it is a VIM not yet killed, its
    side's ``vim_killed`` becomes ``turn``; any other model leaves the state unchanged.
    The VP follow in the End phase (:func:`end_phase`)."""
    for owner, ids in state.vims.items():
        if model_id in ids and state.vim_killed.get(owner) is None:
            killed = dict(state.vim_killed)
            killed[owner] = turn
            return replace(state, vim_killed=killed)
    return state

