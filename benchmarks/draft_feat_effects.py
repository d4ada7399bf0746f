"""Draft ``data/feats/effects.yaml`` from the BattleScribe catalogues (issue #13).

Reads ``../shared/bsdata`` with :func:`models.bsdata.load_catalogues`, groups the Ki feat
records by name (counting the profile links), copies the FACTS of each feat (cost, timing,
area, range, opposed, limitation icons) and translates frequent card-text patterns into the
effect vocabulary of ``/work/notes/feat_schema.md`` (``grant``, ``grant_weapon``, ``lose``,
``stat``, ``condition``, ``remove_condition``, ``wound``, ``heal``, ``ki``, ``counter``,
``pass_token``, ``facing``, ``move`` ...). Feats the patterns cannot read get
``manual: "<reason>"``. Hand-curated entries (``benchmarks/feat_effects_hand.py``) replace
the drafted ones. The card text is never written: every ``summary`` is generated from the
ops (our words).

Usage::

    .venv/bin/python benchmarks/draft_feat_effects.py [--bsdata ../shared/bsdata]
        [--out data/feats/effects.yaml] [--check]

Prints how many links each pattern covers and the share of links with an automated entry.
``--check`` writes nothing and exits 1 when the file on disk differs from the draft.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from feat_effects_hand import HAND  # noqa: E402

from models.bsdata import load_catalogues  # noqa: E402
from models.bsdata.records import KiFeat  # noqa: E402
from models.traits import parse_trait_text, trait_rule  # noqa: E402
from sim.rules.conditions import CONDITIONS, condition_key  # noqa: E402

FORMAT = "bushido-feat-effects/1"
OUT = ROOT / "data" / "feats" / "effects.yaml"

# ----------------------------------------------------------------------------- facts

_LIMITS = {
    "nobtb": "no_btb", "nowalk": "no_move", "opt": "once_per_turn", "oneperturn": "once_per_turn",
    "onceperturn": "once_per_turn", "onceaturn": "once_per_turn", "opg": "once_per_game",
    "oncepergame": "once_per_game", "opa": "once_per_activation",
}


def limits_of(text: str | None) -> list[str]:
    """The limitation icons of a catalogue feat as schema keys (``noBtB`` -> ``no_btb``,
    ``noWalk`` -> ``no_move``, ``OpT``/``One Per Turn`` -> ``once_per_turn``, ``OpG`` ->
    ``once_per_game``, ``OpA`` -> ``once_per_activation``), in a fixed order. Raises
    ValueError on an icon it does not know."""
    out = []
    for part in (text or "").split(","):
        k = re.sub(r"[^a-z]", "", part.lower())
        if not k:
            continue
        if k not in _LIMITS:
            raise ValueError(f"unknown limitation icon {part!r}")
        out.append(_LIMITS[k])
    order = ["no_btb", "no_move", "once_per_turn", "once_per_activation", "once_per_game"]
    return sorted(set(out), key=order.index)


def facts_of(f: KiFeat) -> dict[str, Any]:
    """The catalogue facts of one feat record, as the data file spells them."""
    cost: int | str = f.cost if f.cost is not None else f.cost_text.strip()
    return {
        "cost": cost,
        "timing": f.timing,
        "area": f.area,
        "range": (int(f.range) if f.range is not None and float(f.range).is_integer() else f.range),
        "btb": (f.range_text or "").strip().lower() == "btb",
        "opposed": bool(f.opposed),
        "limits": limits_of(f.limitation),
    }


# ----------------------------------------------------------------------------- text patterns

_DURATIONS = [
    (r"until the end of (?:the |this )?(?:current )?melee exchange|until the (?:end of the )?current melee exchange"
     r"(?: is resolved| is complete)?|until the end of this melee exchange", "exchange"),
    (r"until (?:the )?(?:end of (?:the )?)?(?:current |this )?action(?: is resolved| is complete)?"
     r"|until the current action is (?:resolved|complete)|until the end of the current action", "action"),
    (r"until (?:the end of )?(?:the |this )?(?:current )?activation(?: is resolved| is complete| ends)?"
     r"|until the end of (?:its|this model's) activation", "activation"),
    (r"until the end phase|until the end of the turn", "end_phase"),
    (r"for the rest of the game|until the end of the game", "game"),
]

_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "an additional": 1}


def _norm(text: str) -> str:
    t = text.replace("’", "'").replace("”", '"').replace("“", '"').replace("Ê", "").replace("\u00a0", " ")
    t = re.sub(r"\s+", " ", t.replace("\n", " ")).strip()
    t = t.replace("untill", "until").replace("until the until", "until")
    return t


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!])\s+(?=[A-Z])", text)
    return [p.strip().rstrip(".").strip() for p in parts if p.strip().rstrip(".").strip()]


def _duration(s: str) -> tuple[str, str | None]:
    """(the sentence without its duration clause, the duration key or None)."""
    for rx, key in _DURATIONS:
        m = re.search(r"\s*,?\s*(?:" + rx + r")\s*,?", s, re.I)
        if m:
            return (s[:m.start()] + " " + s[m.end():]).strip(" ,"), key
    return s, None


def _split_items(s: str) -> list[str]:
    """``A, B (1), and C [x, y]`` -> ``[A, B (1), C [x, y]]`` (commas inside brackets kept)."""
    items, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    out = []
    for it in items:
        for part in re.split(r"\s+and\s+(?![^(\[]*[)\]])", it.strip()):
            part = re.sub(r"^and\s+", "", part.strip())
            if part:
                out.append(part)
    return out


_TYPOS = {"Agil": "Agile", "Co-ordinaed": "Co-ordinated", "immune": "Immune", "Co-Ordinated": "Co-ordinated"}

_SPECIAL = re.compile(r"^(?P<n>[A-Z][\w'\- ]*? (?:Attack|Defen[cs]e))\s*\((?P<v>[^)]*)\)$")


def _trait_text(item: str) -> str | None:
    """A granted trait's printed text when ``item`` names a known trait or a special
    attack/defence (``Grapple Attack (0)``); None otherwise."""
    item = item.strip().rstrip(".")
    item = re.sub(r"(\w)\(", r"\1 (", item)
    item = re.sub(r"\]:\s*\(", "] (", item)
    item = re.sub(r"\(I\)", "(1)", item)
    item = re.sub(r"\(\s*([^)]*?)\s*\)", r"(\1)", item)
    for wrong, right in _TYPOS.items():
        item = re.sub(rf"^{wrong}\b", right, item)
    if _SPECIAL.match(item):
        return item
    t = parse_trait_text(item)
    if t is None or trait_rule(t.key) is None:
        return None
    return item


_COND = r"(?P<cond>[A-Z][A-Za-z ]*?)(?:\s*\((?P<val>\d+)\))?\s+(?:State\s+)?Markers?"


def _condition(item: str) -> dict[str, Any] | None:
    """``a Stunned Marker`` / ``X Poisoned (2) Markers`` / ``two Bleed (1) Markers`` -> a
    ``condition`` op; None otherwise."""
    m = re.match(r"^(?P<n>a|an|one|two|three|four|\d+|X)\s+" + _COND + r"$", item.strip(), re.I)
    if not m:
        return None
    key = condition_key(m.group("cond"))
    if key not in CONDITIONS:
        return None
    n = m.group("n").lower()
    op: dict[str, Any] = {"op": "condition", "name": key,
                          "n": "X" if n == "x" else int(n) if n.isdigit() else _NUM[n]}
    if m.group("val"):
        op["value"] = int(m.group("val"))
    return op


def _gain_items(items: list[str], until: str | None, pattern: Counter, name: str) -> list[dict[str, Any]] | None:
    traits, ops = [], []
    for it in items:
        it = it.strip()
        if re.fullmatch(r"(?:an?|one) (?:additional )?Activation (?:Counter|Marker)", it, re.I):
            ops.append({"op": "counter", "n": 1})
            continue
        m = re.fullmatch(r"(?P<n>a|an|one|two|three|\d+) Ki Tokens?", it, re.I)
        if m:
            n = m.group("n").lower()
            ops.append({"op": "ki", "n": int(n) if n.isdigit() else _NUM[n]})
            continue
        m = re.fullmatch(r"\+(?P<n>\d) to (?:its|their) (?P<p>Melee|Ranged) Pool"
                         r"(?: or (?P<q>Melee|Ranged) Pool)?", it, re.I)
        if m:
            ch = {m.group("p").lower(): int(m.group("n"))}
            if m.group("q"):
                ch[m.group("q").lower()] = int(m.group("n"))
            ops.append({"op": "stat", "changes": ch, **({"until": until} if until else {})})
            continue
        m = re.fullmatch(r"(?P<s>[+-]\d) (?P<p>Melee|Ranged|Move|Ki|Melee Weapon Strength)(?: Pool)?", it, re.I)
        if m:
            key = {"melee weapon strength": "strength"}.get(m.group("p").lower(), m.group("p").lower())
            ops.append({"op": "stat", "changes": {key: int(m.group("s"))}, **({"until": until} if until else {})})
            continue
        c = _condition(it)
        if c is not None:
            ops.append(c)
            continue
        t = _trait_text(it)
        if t is None:
            return None
        traits.append(t)
    out = []
    if traits:
        out.append({"op": "grant", "traits": traits, **({"until": until} if until else {})})
    return out + ops


_SUBJECTS = [
    (r"^(?:this|the) model(?:'s)?", "self"),
    (r"^target (?:other )?(?:friendly (?:faction )?)model", "target_friend"),
    (r"^target enemy model(?: in btb)?", "target_enemy"),
    (r"^target model", "target"),
    (r"^the target(?:ed)? model|^the target|^that model", "target"),
    (r"^(?:all )?(?:other )?friendly models in the (?:pulse|aura)(?:'s area(?: of effect)?)?", "friends"),
    (r"^(?:all )?(?:other )?enemy models in the (?:pulse|aura)(?:'s area(?: of effect)?)?", "enemies"),
    (r"^(?:all )?(?:other )?models in the (?:pulse|aura)(?:'s area(?: of effect)?)?", "models"),
]


_KW = r"(?P<kw>(?!model)[\w'\-]+(?:,? (?:or |and )?(?!model)[\w'\-]+)*? )??"
_KW_TARGET = re.compile(
    r"^ta(?:r)?ge?t (?:other )?(?P<side>friendly |enemy )?(?:faction )?"
    + _KW
    + r"model(?: that you own)?(?: in btb)?(?P<rice> with a rice cost of (?P<cmp>less|more) than (?:this|tis) model)?",
    re.I)
_KW_AREA = re.compile(
    r"^(?:all )?(?:other )?(?P<side>friendly |enemy )?(?:faction )?"
    + _KW
    + r"models (?:with|in|within) the (?:pulse|aura)(?:'s area(?: of effect)?)?", re.I)

_NOT_KEYWORDS = {"friendly", "enemy", "faction", "other", "all", "target", "the"}


def _keywords(text: str | None) -> list[str]:
    words = [w.strip() for w in re.split(r",|\bor\b|\band\b", text or "") if w.strip()]
    out = [w for w in words if w.lower() not in _NOT_KEYWORDS]
    if any(w.lower().startswith("non") for w in out):
        _RESTRICT["unsupported"] = "a target restriction the engine cannot check (" + ", ".join(out) + ")"
    return out


def _subject(s: str) -> tuple[str, str] | None:
    """(affects, rest of the sentence) for a sentence that starts with its subject; the
    target's keyword/rice restrictions go into :data:`_RESTRICT` (read by translate)."""
    s = re.sub(r"^(targe?t(?:ed)? model)'s\b", r"\1", s, flags=re.I)
    s = re.sub(r"^targeted model", "target model", s, flags=re.I)
    m = _KW_TARGET.match(s)
    if m and m.group(0).lower().startswith(("target", "taget", "targt")):
        side = (m.group("side") or "").strip().lower()
        who = {"friendly": "target_friend", "enemy": "target_enemy"}.get(side, "target")
        if "that you own" in m.group(0).lower():
            who = "target_friend"
        kws = _keywords(m.group("kw"))
        if kws:
            _RESTRICT["target_keywords"] = kws
        if m.group("rice"):
            _RESTRICT["target_rice"] = "lower" if m.group("cmp").lower() == "less" else "higher"
        return who, s[m.end():].strip()
    m = _KW_AREA.match(s)
    if m:
        side = (m.group("side") or "").strip().lower()
        who = {"friendly": "friends", "enemy": "enemies"}.get(side, "models")
        kws = _keywords(m.group("kw"))
        if kws:
            _RESTRICT["target_keywords"] = kws
        return who, s[m.end():].strip()
    for rx, who in _SUBJECTS:
        m = re.match(rx, s, re.I)
        if m:
            return who, s[m.end():].strip()
    return None


_RESTRICT: dict[str, Any] = {}


_IGNORABLE = [
    # restatements of the limitation icons, or notes the engine has no use for
    r"^this model may use this ki feat once each time you are the active player$",
    r"^this ki feat can only be used during an activation, once per activation$",
    r"^this ki feat may be used while this model is represented by a terrain card$",
    r"^this model may only use this feat once per melee exchange$",
]
_SURPRISED = r"^the target is always considered surprised by this ki feat$"


def _num(n: str) -> int | str:
    return "X" if n.upper() == "X" else int(n) if n.isdigit() else _NUM[n.lower()]


def _verb(rest: str, until: str | None, effects: list[dict[str, Any]], used: list[str], name: str) -> str | None:
    """Translate one clause after its subject into ops (appended to ``effects``); the
    reason it cannot, or None."""
    m = re.match(r"^(?:(?P<kind>melee|ranged) )?weapons?(?:'s)? gains? (?P<items>.+)$", rest, re.I)
    if m:
        wtraits = [_trait_text(i) for i in _split_items(m.group("items"))]
        if not wtraits or any(i is None for i in wtraits):
            return "a weapon change the patterns cannot read"
        effects.append({"op": "grant_weapon", "traits": wtraits, "weapon": (m.group("kind") or "all").lower(),
                        **({"until": until} if until else {})})
        used.append("grant_weapon")
        return None
    m = re.match(r"^(?:gains?|becomes?) (?P<items>.+)$", rest, re.I)
    if m:
        items = _split_items(m.group("items"))
        items = [(f"a {i} Marker" if condition_key(i) in CONDITIONS and condition_key(i) != "disguised" else i)
                 for i in items]
        ops = _gain_items(items, until, Counter(), name)
        if ops is None:
            return "gains something the patterns cannot read"
        effects += ops
        used += [o["op"] for o in ops]
        return None
    m = re.match(r"^loses? (?P<items>.+)$", rest, re.I)
    if m:
        items = _split_items(m.group("items"))
        names, ops = [], []
        for it in items:
            mm = re.fullmatch(r"(?P<n>an?|one|two) Activation Counters?", it, re.I)
            mk = re.fullmatch(r"(?P<n>an?|one|two|\d) Ki Tokens?", it, re.I)
            tt = parse_trait_text(re.sub(r"^the | trait$", "", it))
            if mm:
                ops.append({"op": "counter", "n": -_NUM[mm.group("n").lower()]})
            elif mk:
                ops.append({"op": "ki", "n": -int(_num(mk.group("n")))})
            elif tt is not None and trait_rule(tt.key) is not None:
                names.append(re.sub(r"^the | trait$", "", it))
            else:
                return "loses something the patterns cannot read"
        if names:
            effects.append({"op": "lose", "traits": names, **({"until": until} if until else {})})
        effects += ops
        used += ["lose"] * bool(names) + [o["op"] for o in ops]
        return None
    m = re.match(r"^(?:suffers|takes) (?P<n>\d+|an?|one|two|three|X) wounds?(?P<ia> ignoring armour)?"
                 r"(?P<it>(?: and| ignoring) tough(?:ness)?)?$", rest, re.I)
    if m:
        op: dict[str, Any] = {"op": "wound", "n": _num(m.group("n")), "ignore_armour": bool(m.group("ia"))}
        if m.group("it"):
            op["ignore_tough"] = True
        effects.append(op)
        used.append("wound")
        return None
    m = re.match(r"^(?:may )?heals? (?P<n>\d+|an?|one|two|three|X) wounds?$", rest, re.I)
    if m:
        effects.append({"op": "heal", "n": _num(m.group("n"))})
        used.append("heal")
        return None
    m = re.match(r"^(?:suffers|gains) (?P<s>[+-]\d) (?P<p>Melee|Ranged|Move)(?: Statistic| Pool)?$", rest, re.I)
    if m:
        effects.append({"op": "stat", "changes": {m.group("p").lower(): int(m.group("s"))},
                        **({"until": until} if until else {})})
        used.append("stat")
        return None
    return "card text beyond the patterns (conditions, triggers or choices)"


def translate(name: str, f: KiFeat, pattern: Counter) -> dict[str, Any]:
    """Draft the effect part of an entry (``affects``, ``test``, ``effects``, ``manual``,
    target restrictions) from the card text; ``pattern`` counts the patterns used."""
    _RESTRICT.clear()
    text = _norm(f.description)
    effects: list[dict[str, Any]] = []
    affects: str | None = None
    test: dict[str, Any] | None = None
    used: list[str] = []
    extra: dict[str, Any] = {}
    for s in _sentences(text):
        if any(re.fullmatch(rx, s, re.I) for rx in _IGNORABLE):
            continue
        if re.fullmatch(_SURPRISED, s, re.I):
            extra["target_surprised"] = True
            continue
        m = re.fullmatch(r"X (?:cannot|can not|may not|can't) be (?:greater|more) than (?P<n>\d)", s, re.I)
        if m:
            extra["max_x"] = int(m.group("n"))
            continue
        s0 = s
        # a challenge gate: "Target ... must pass/perform a <Stat> Challenge Test (N). If it fails, ..."
        m = re.match(r"^(?P<subj>.+?) must (?:perform|pass|make|succeed in|take) an? "
                     r"(?P<stat>Ki|Size|Move|Melee|Ranged) Challenge(?: Test)? \((?P<tn>\d+)\)(?: Test)?"
                     r"(?: or (?P<rest>.+))?$", s, re.I)
        if m:
            sub = _subject(m.group("subj"))
            if sub is None or sub[1]:
                return _manual("the challenge test's subject is not a target or area")
            affects = sub[0]
            test = {"kind": "challenge", "stat": m.group("stat").lower(), "tn": int(m.group("tn")), "by": "target"}
            used.append("challenge")
            if m.group("rest"):
                s = "that model " + m.group("rest")
            else:
                continue
        m = re.match(r"^if it fails,? (?:you may )?(?P<rest>.+)$", s, re.I)
        if m and test is not None:
            rest = m.group("rest")
            if re.fullmatch(r"change (?:that|the) model's facing", rest, re.I):
                effects.append({"op": "facing"})
                used.append("facing")
                continue
            s = "that model " + re.sub(r"^(?:it|that model) ", "", rest)
        m = re.match(r"^if (?:this model is|you are) successful,? (?P<rest>.+)$", s, re.I)
        if m and f.opposed:
            s = m.group("rest")
            used.append("opposed")
        m = re.match(r"^(?:this model's )?controller gains (?P<n>a|one|two) pass tokens?$", s, re.I)
        if m:
            effects.append({"op": "pass_token", "n": _NUM[m.group("n").lower()]})
            affects = affects or "self"
            used.append("pass_token")
            continue
        m = re.match(r"^remove (?P<n>the |all |any |one |an? )?(?P<conds>[A-Z][A-Za-z ,]*?) (?:states?|markers?)"
                     r"(?: markers?)? from (?P<subj>.+)$", s, re.I)
        if m:
            conds = [condition_key(c) for c in _split_items(m.group("conds"))]
            if not conds or any(c not in CONDITIONS for c in conds):
                return _manual("removes markers the patterns cannot read")
            who = {"this model": "self"}.get(m.group("subj").lower())
            sub = _subject(m.group("subj")) if who is None else (who, "")
            if sub is None or sub[1]:
                return _manual("removes markers from models the patterns cannot pick")
            affects = sub[0]
            n = (m.group("n") or "all").strip().lower()
            for c in conds:
                effects.append({"op": "remove_condition", "name": c, "n": 1 if n in ("one", "a", "an") else "all"})
            used.append("remove_condition")
            continue
        m = re.match(r"^move this model (?:up to )?(?P<d>\d+)\"$", s, re.I)
        if m:
            effects.append({"op": "move", "distance": int(m.group("d")), "kind": "walk"})
            affects = affects or "self"
            used.append("move")
            continue
        m = re.match(r"^place this model within (?P<d>\d+)\" of its current location$", s, re.I)
        if m:
            effects.append({"op": "move", "distance": int(m.group("d")), "kind": "place"})
            affects = affects or "self"
            used.append("place")
            continue
        s, until = _duration(s)
        if until is None:
            m = re.match(r"^until the end phase,? (?P<rest>.+)$", s0, re.I)
            if m:
                s, until = m.group("rest"), "end_phase"
        sub = _subject(s)
        if sub is None:
            return _manual("card text beyond the patterns (conditions, triggers or choices)")
        who, rest = sub
        if affects is not None and who != affects and not (who == "target" and affects.startswith("target")):
            return _manual("several kinds of affected models")
        affects = affects if (affects and who == "target") else who
        for clause in re.split(r",? and (?=(?:gains?|loses?|suffers|becomes?|heals?) )", rest):
            why = _verb(clause.strip(), until, effects, used, name)
            if why:
                return _manual(why)
    if not effects:
        return _manual("no effect the patterns can read")
    for u in used:
        pattern[u] += 1
    if "unsupported" in _RESTRICT:
        return _manual(_RESTRICT["unsupported"])
    if affects == "friends" and f.area in ("pulse", "aura") and not re.search(r"\bother\b", text, re.I):
        affects = "friends_and_self"  # the source of a Pulse or Aura is always in it (p.46)
    if affects == "models" and f.area in ("pulse", "aura") and not re.search(r"\bother\b", text, re.I):
        return _manual("every model in the area, the user included (no affects value for that)")
    for op in effects:
        if op["op"] in ("grant", "grant_weapon", "lose", "stat") and "until" not in op:
            op["until"] = {"pulse": "activation", "aura": "end_phase"}.get(f.area or "", "game")
    return {"affects": affects, "test": test, "effects": effects, "manual": None, **_RESTRICT, **extra}


_REASONS = [
    (r"\bsummon", "summons or deploys a model"),
    (r"\btokens?\b(?<!ki token)|\bcounters? from\b|enhancement", "uses tokens or cards the engine does not track"),
    (r"terrain|scenario zone|objective", "changes terrain, zones or objectives"),
    (r"one of the following|\bchoose\b|\bchosen\b|up to x", "a player's choice the engine does not offer here"),
    (r"^(?:when|whenever|during|after|before|if|while|the next)\b|\bwhen (?:an?|this|another|a friendly)\b",
     "triggered by a game event the engine does not pass to feats"),
    (r"range bands?|ranged attack", "changes or adds ranged attacks"),
    (r"\bdice?\b|\broll", "changes dice or rolls"),
    (r"\btransfer\b", "moves Ki or markers between models"),
    (r"\bwalk\b|\bmove\b|\bplace\b", "moves models in a way the effect vocabulary cannot say"),
]


def _classify(text: str) -> str:
    """A one-line reason, in our words, why a card stays manual (from keywords of its text)."""
    t = _norm(text).lower()
    for rx, why in _REASONS:
        if re.search(rx, t, re.M):
            return why
    return "a rule the effect vocabulary cannot say"


def _manual(reason: str) -> dict[str, Any]:
    return {"affects": None, "test": None, "effects": [], "manual": reason}


def when_of(f: KiFeat, text: str) -> str:
    """The moment a feat is used, from its timing and text (see the schema's ``when``)."""
    t = text.lower()
    if f.timing in ("simple", "complex"):
        return "action"
    if "melee exchange" in t and f.timing == "instant":
        return "exchange"
    if f.timing == "active":
        return "action"
    return "any"


# ----------------------------------------------------------------------------- summaries

_UNTIL_WORDS = {"exchange": "for the current melee exchange", "action": "for the current action",
                "activation": "until the end of the activation", "end_phase": "until the End phase",
                "game": "for the rest of the game"}
_WHO = {"self": "the user", "target": "the target", "target_friend": "the friendly target",
        "target_enemy": "the enemy target", "friends": "friendly models in the area",
        "enemies": "enemy models in the area", "models": "other models in the area",
        "friends_and_self": "the user and friendly models in the area"}


def _op_words(op: dict[str, Any]) -> str:
    u = f" {_UNTIL_WORDS[op['until']]}" if op.get("until") else ""
    k = op["op"]
    if k == "grant":
        return "gets " + ", ".join(op["traits"]) + u
    if k == "grant_weapon":
        w = {"all": "", "melee": "melee ", "ranged": "ranged "}[op["weapon"]]
        return f"{w}weapons get " + ", ".join(op["traits"]) + u
    if k == "lose":
        return "loses " + ", ".join(op["traits"]) + u
    if k == "stat":
        return ", ".join(f"{v:+d} {s}" for s, v in op["changes"].items()) + u
    if k == "condition":
        v = f" ({op['value']})" if op.get("value") else ""
        return f"{op['n']} {op['name'].replace('_', ' ')}{v} marker(s)"
    if k == "remove_condition":
        return f"removes {op['n']} {op['name'].replace('_', ' ')} marker(s)"
    if k == "wound":
        return f"takes {op['n']} wound(s)" + (" through armour" if op.get("ignore_armour") else "")
    if k == "heal":
        return f"heals {op['n']} wound(s)"
    if k == "ki":
        return f"{op['n']:+d} Ki"
    if k == "counter":
        return f"{op['n']:+d} activation counter"
    if k == "pass_token":
        return f"its player gets {op['n']} pass token(s)"
    if k == "facing":
        return "may be turned to a new facing"
    if k == "move":
        return f"{op['kind']} move of up to {op['distance']} inch(es)"
    return k


def summary_of(entry: dict[str, Any]) -> str:
    """A one-line summary in our words, generated from the entry's ops."""
    if entry.get("manual") and not entry.get("effects"):
        return "applied by hand (" + entry["manual"] + ")"
    who = _WHO.get(entry.get("affects") or "self", entry.get("affects") or "")
    gate = ""
    t = entry.get("test")
    if t:
        gate = f" that fails a {t['stat'].capitalize()} ({t['tn']}) challenge"
    elif entry.get("opposed"):
        gate = " (if the user wins the opposed Ki test)"
    rm = [o for o in entry["effects"] if o["op"] == "remove_condition"]
    words = [_op_words(o) for o in entry["effects"] if o["op"] != "remove_condition"]
    if len(rm) > 1:
        words.insert(0, "removes " + ("all " if all(o["n"] == "all" for o in rm) else "")
                     + ", ".join(o["name"].replace("_", " ") for o in rm) + " markers")
    elif rm:
        words.insert(0, _op_words(rm[0]))
    text = f"{who}{gate}: " + "; ".join(words)
    return text if len(text) <= 300 else text[:297] + "..."


# ----------------------------------------------------------------------------- main

_EXTRA_WHY = {
    "target_keywords": "the target must have a keyword ({v}); the loader has no field for that check yet",
    "target_rice": "the target's rice cost must be {v} than the user's; the loader has no field for that check yet",
    "max_x": "X is at most {v}; the loader has no field for that limit yet",
    "target_surprised": "the target counts as Surprised; the loader has no field for that yet",
}


def _fit_loader(name: str, entry: dict[str, Any]) -> None:
    """Make ``entry`` valid for the engine's loader (:mod:`sim.rules.feat_effects`): a field
    or op option it does not know yet is dropped and the entry becomes manual, with the
    reason (so the data file always loads and never claims more than the engine applies)."""
    try:
        from pydantic import ValidationError

        from sim.rules.feat_effects import FeatEffect
    except ImportError:  # no loader yet: keep the draft as it is
        return
    for k, why in _EXTRA_WHY.items():
        if k in entry and k not in FeatEffect.model_fields:
            v = entry.pop(k)
            v = ", ".join(v) if isinstance(v, list) else v
            entry["manual"] = entry["manual"] or why.format(v=v)
    try:
        FeatEffect.model_validate(entry)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        entry["manual"] = entry["manual"] or f"an op option the loader does not read yet ({where})"
        entry["effects"] = []
        entry["test"] = None
        FeatEffect.model_validate(entry)


def build(bsdata: Path) -> tuple[dict[str, Any], Counter, Counter, int]:
    """(the data document, links per pattern, links per feat, links automated)."""
    cs = load_catalogues(bsdata)
    links: Counter = Counter()
    recs: dict[str, list[KiFeat]] = defaultdict(list)
    for p in cs.profiles:
        for f in p.ki_feats:
            links[f.name] += 1
            recs[f.name].append(f)
    pattern: Counter = Counter()
    feats: dict[str, Any] = {}
    auto = 0
    for name in sorted(links, key=lambda n: (-links[n], n.lower())):
        f = recs[name][0]
        entry: dict[str, Any] = facts_of(f)
        entry["when"] = when_of(f, _norm(f.description))
        local: Counter = Counter()
        body = translate(name, f, local)
        if body["manual"] and body["manual"].startswith("card text beyond"):
            body["manual"] = _classify(f.description)
        if name in HAND:
            body = dict(HAND[name])
            local = Counter({"hand": 1})
        entry.update({"affects": body.get("affects") or "self", "test": body.get("test"),
                      "effects": body.get("effects", [])})
        if "when" in body:
            entry["when"] = body["when"]
        for k in ("target_keywords", "target_rice", "max_x", "target_surprised", "max_affected", "opposed"):
            if k in body:
                entry[k] = body[k]
        entry["manual"] = body.get("manual")
        entry["summary"] = body.get("summary") or summary_of(entry)
        _fit_loader(name, entry)
        feats[name] = entry
        for u in local:
            pattern[u] += links[name]
        if entry["manual"] is None:
            auto += links[name]
    return {"format": FORMAT, "feats": feats}, pattern, links, auto


_HEADER = """# Ki feat effects for the catalogue feats (issue #13; schema: bushido-feat-effects/1).
# One entry per catalogue feat name. Facts (cost, timing, area, range, btb, opposed, limits) are the
# catalogues'; effects are our reading of each card in the project's effect vocabulary; summaries are
# our words. Drafted by benchmarks/draft_feat_effects.py (patterns + benchmarks/feat_effects_hand.py);
# edit the hand table there and re-run the drafter rather than editing this file.
"""


def dump(doc: dict[str, Any]) -> str:
    """The YAML text of the data document (entries in link order, ops in flow style)."""
    lines = [_HEADER.rstrip("\n"), f"format: {doc['format']}", "feats:"]
    for name, e in doc["feats"].items():
        key = yaml.safe_dump(name, default_flow_style=True, width=1000).strip().removesuffix("...").strip()
        lines.append(f"  {key}:")
        for k, v in e.items():
            if k == "effects":
                if not v:
                    lines.append("    effects: []")
                    continue
                lines.append("    effects:")
                for op in v:
                    lines.append("      - " + yaml.safe_dump(op, default_flow_style=True, sort_keys=False,
                                                             width=1000).strip())
            else:
                lines.append(f"    {k}: " + yaml.safe_dump(v, default_flow_style=True, sort_keys=False,
                                                           width=1000).strip().removesuffix("...").strip())
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bsdata", default=str(ROOT.parent / "shared" / "bsdata"))
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    doc, pattern, links, auto = build(Path(a.bsdata))
    total = sum(links.values())
    print("links covered per pattern (a feat counts once per pattern it uses):")
    for k, v in pattern.most_common():
        print(f"  {k:18} {v:5}")
    n_auto = sum(1 for e in doc["feats"].values() if e["manual"] is None)
    print(f"feats: {len(doc['feats'])} ({n_auto} without manual); links: {total}; "
          f"links without manual: {auto} ({100 * auto / total:.1f} %)")
    text = dump(doc)
    out = Path(a.out)
    if a.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{out} differs from the draft")
        return 0 if same else 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
