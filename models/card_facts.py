"""What a special card (an enhancement, event, theme or terrain card, rulebook p.14-18)
does in a game, as facts the engine can apply: the traits, statistics and weapon traits
an enhancement gives the model it is attached to, and the rest of the card to be applied
by hand.

The facts are read from the catalogue's card (:class:`models.bsdata.Card`) when the
game is set up; nothing of a card's prose is kept in the project. A sentence of the form
"Attached model gains LIST." (or "This model gains ...", "Attached models Melee weapons
gain ...") whose every item is a trait of the registry (:data:`models.traits.TRAITS`) or
a statistic change (``+1 Melee Pool``, ``-2 Move Statistic``, ``+1 Melee Strength``)
becomes a *grant* (an effect lasting the whole game, :mod:`sim.rules.effects`); any other
sentence (a condition, a choice, a trigger, a Ki feat, a weapon, a type) stays *manual*:
the game logs it at its start as a manual step naming the card (never skipped silently).
Build restrictions (``Requirement [...]``, ``Exclusion [...]``, ``Max``, "may be
attached to ...") are checked by the warband rules (:mod:`models.warband`) and are no
effect in play.

A card's facts are a plain JSON mapping (:func:`card_facts`)::

    {"name": "Demon-Face Mask", "kind": "enhancement",
     "grants": [{"traits": ["Immune [Blind]", "Fear (3)"]}],
     "manual": []}

``model`` (the model id, for an enhancement) or ``player`` (a warband's other cards)
are added by the set-up (:func:`sim.rules.setup.warbands.card_facts_of`).
"""

from __future__ import annotations

import re
from typing import Any

from models.bsdata.traittext import parse_trait
from models.traits import TRAITS, parse_trait_text, trait_key

__all__ = ["card_facts", "facts_problem", "split_items", "grant_of_sentence", "effect_sentences"]

#: Sentences that restrict building a warband (p.18), no effect in play.
_BUILD = re.compile(r"^\s*(?:requirement|rekuirement|restriction|exclusion|permitted|max\b|x\s*=|"
                    r"this (?:enhancement|card|equipment) may|a model may only have)", re.I)

_GAINS = re.compile(r"^\s*(?:the\s+)?(?:attach(?:ed)?\s+(?:[A-Z][\w-]*\s+)?models?|this model)\s+gains?\s+"
                    r"(?P<list>.+?)\s*\.?\s*$", re.I)
_WEAPONS = re.compile(r"^\s*(?:the\s+)?(?:attach(?:ed)?\s+models?'?s?|its)\s+(?P<kind>melee|ranged)\s+weapons?\s+"
                      r"gains?\s+(?P<list>.+?)\s*\.?\s*$", re.I)
_STAT = re.compile(r"^(?:(?P<sign>[+-])\s*(?P<n>\d+)\s+(?:to\s+its\s+)?(?P<stat>melee pool|ranged pool|move|"
                   r"melee strength|ranged strength)(?:\s+statistic)?)$", re.I)
_STAT_KEYS = {"melee pool": ("melee", None), "ranged pool": ("ranged", None), "move": ("move", None),
              "melee strength": ("strength", "melee"), "ranged strength": ("strength", "ranged")}


def split_items(text: str) -> list[str]:
    """The items of a list ``"A (1), B [x, y], and C"`` -> ``["A (1)", "B [x, y]", "C"]``:
    split at commas and at the word "and" outside brackets."""
    out, depth, cur = [], 0, ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(0, depth - 1)
        if depth == 0 and ch == ",":
            out.append(cur)
            cur = ""
        elif depth == 0 and text[i:i + 5].lower() == " and ":
            out.append(cur)
            cur = ""
            i += 4
            continue
        else:
            cur += ch
        i += 1
    out.append(cur)
    return [s.strip() for s in out if s.strip() and s.strip().lower() != "and"]


def _trait_item(item: str) -> str | None:
    """``item`` as a registry trait's printed text (``"the Indomitable (3)"`` ->
    ``"Indomitable (3)"``), or None when it names no registry trait."""
    item = re.sub(r"^the\s+", "", item.strip(), flags=re.I)
    item = re.sub(r"\]\s*:\s*\(", "] (", item)  # "Leadership [Friendly]:(1/8\")" as the profiles print it
    tt = parse_trait_text(item)
    if tt is None or trait_key(tt.name) not in TRAITS or (tt.qualifier is not None and not tt.qualifier.strip()):
        return None
    if tt.value is not None and re.search(r"[A-Za-z]", tt.value):  # Resistance (X): X set by the card's text
        return None
    text = re.sub(r"\s+", " ", item)
    text = re.sub(r"\[\s*", "[", re.sub(r"\s*\]", "]", text))
    try:
        parse_trait(text)
    except ValueError:
        return None
    return text


def grant_of_sentence(sentence: str) -> dict | None:
    """The grant a sentence of a card gives its model (``{"traits": [...], "stats":
    {...}, "weapon_traits": [...], "weapon": ...}``), or None when the sentence is not
    wholly a list of registry traits and statistic changes (then it is applied by hand)."""
    m = _WEAPONS.match(sentence)
    if m is not None:
        items = [_trait_item(i) for i in split_items(m.group("list"))]
        if not items or any(i is None for i in items) or not all(TRAITS[trait_key(re.split(r"[\[(]", str(i))[0])]
                                                                   .weapon for i in items):
            return None
        return {"weapon_traits": [str(i) for i in items], "weapon": m.group("kind").lower()}
    m = _GAINS.match(sentence)
    if m is None:
        return None
    traits: list[str] = []
    stats: dict[str, int] = {}
    weapon = None
    for item in split_items(m.group("list")):
        st = _STAT.match(item)
        if st is not None:
            key, which = _STAT_KEYS[st.group("stat").lower()]
            if which is not None:
                if weapon not in (None, which):
                    return None
                weapon = which
            stats[key] = stats.get(key, 0) + (1 if st.group("sign") == "+" else -1) * int(st.group("n"))
            continue
        t = _trait_item(item)
        if t is None:
            return None
        traits.append(t)
    grant: dict[str, Any] = {}
    if traits:
        grant["traits"] = traits
    if stats:
        grant["stats"] = stats
    if weapon is not None:
        grant["weapon"] = weapon
    return grant or None


def effect_sentences(text: str) -> list[str]:
    """The sentences of a card's rules text that may have an effect in play (build
    restrictions left out), one per line and full stop."""
    out = []
    for line in (text or "").splitlines():
        line = line.strip().lstrip("-\u2022 ").strip()
        depth, cur = 0, ""
        for i, ch in enumerate(line):
            depth = depth + 1 if ch in "[(" else max(0, depth - 1) if ch in "])" else depth
            cur += ch
            if depth == 0 and ch == "." and line[i + 1:i + 2] in ("", " "):
                out.append(cur)
                cur = ""
        out.append(cur)
    return [s.strip() for s in out if s.strip() and not _BUILD.match(s.strip())]


def card_facts(card: Any) -> dict:
    """The facts of a catalogue card (:class:`models.bsdata.Card`): ``name``, ``kind``,
    ``grants`` (what an enhancement's "gains" sentences give its model, see the module
    docstring; always empty for the other kinds, whose effects act on the table, not on
    one card) and ``manual`` (the sentences applied by hand, in the card's order; a Ki
    feat or weapon the card gives is named there too)."""
    grants: list[dict] = []
    manual: list[str] = []
    feats: list[dict] = []
    enhancement = getattr(card, "kind", "") == "enhancement"
    feat = getattr(card, "feat", None)
    for s in effect_sentences(getattr(card, "text", "")):
        if enhancement and feat is not None and feat.weapon is None and not feats:
            rest = _feat_gain(s, feat.name)
            if rest is not None:  # "Attached model gains [...] the following Ki Feat": the model has the feat
                feats.append(_feat_record(feat))
                if not rest:
                    continue
                s = rest
        g = grant_of_sentence(s) if enhancement else None
        if s.rstrip().endswith(":"):  # "When ... , a model gains this Enhancement:" -- what follows is conditional
            enhancement = False
        if g is not None:
            grants.append(g)
        else:
            manual.append(s)
    if feat is not None and not feats:
        manual.append(f"Ki feat {feat.name} (from the card; use it by hand)")
    for w in getattr(card, "weapons", ()) or ():
        manual.append(f"weapon {w.name} (from the card; use its profile by hand)")
    out = {"name": str(card.name), "kind": str(card.kind), "grants": grants, "manual": manual}
    if feats:
        out["feats"] = feats
    return out


#: Words that make a sentence conditional (the feat is then the players' to apply).
_CONDITIONAL = re.compile(r"\b(?:while|when|whenever|if|once|until|instead)\b", re.I)


def _feat_gain(sentence: str, feat_name: str) -> str | None:
    """For a sentence by which the model gains the card's Ki feat ``feat_name`` without a
    condition ("Attached model gains the following Ki Feat:", "... gains +1 Melee
    Strength and the following Ki Feat"), the rest of the sentence without the feat
    (``""`` when nothing is left); None for any other sentence."""
    if not re.search(r"gains?\b.*\bfeat\b", sentence, re.I) or _CONDITIONAL.search(sentence):
        return None
    name = re.escape(feat_name)
    rest = re.sub(rf"(?:,?\s*\band\s+)?(?:the\s+)?(?:following\s+|this\s+|'?{name}'?\s+)?(?:ki\s+)?feat\s*[:.]?\s*$",
                  "", sentence, flags=re.I).strip()
    if rest == sentence.strip():
        return None
    return "" if re.fullmatch(r"(?:the\s+)?att\w*\s+(?:\w+\s+)?model\s*gains?|att\w*\s+modelgains?", rest,
                              re.I) else rest


def _feat_record(feat: Any) -> dict:
    """A catalogue Ki feat (:class:`models.bsdata.KiFeat`, no weapon) as plain JSON."""
    return {"name": feat.name, "cost": feat.cost, "cost_text": feat.cost_text, "timing": feat.timing,
            "area": feat.area, "range": feat.range, "range_text": feat.range_text, "opposed": bool(feat.opposed),
            "limitation": feat.limitation, "description": feat.description}


_FEAT_KEYS = frozenset({"name", "cost", "cost_text", "timing", "area", "range", "range_text", "opposed",
                        "limitation", "description"})


def facts_problem(facts: Any) -> str | None:
    """Why ``facts`` are not a card's facts as :func:`card_facts` and the set-up write
    them (None when they are)."""
    if not isinstance(facts, dict):
        return "expected a mapping"
    extra = set(facts) - {"name", "kind", "grants", "manual", "model", "player", "feats"}
    if extra:
        return f"unknown keys {sorted(extra)}"
    if not isinstance(facts.get("name"), str) or not facts["name"]:
        return "name must be a text"
    if not isinstance(facts.get("kind"), str):
        return "kind must be a text"
    if not isinstance(facts.get("grants", []), list) or not all(isinstance(g, dict) for g in facts.get("grants", [])):
        return "grants must be a list of mappings"
    if not isinstance(facts.get("manual", []), list) or not all(isinstance(s, str) for s in facts.get("manual", [])):
        return "manual must be a list of texts"
    if "model" in facts and not isinstance(facts["model"], str):
        return "model must be a model id"
    if "player" in facts and facts["player"] not in (1, 2):
        return "player must be 1 or 2"
    if facts.get("grants") and "model" not in facts:
        return "grants need the model they are given to"
    feats = facts.get("feats", [])
    if not isinstance(feats, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                              and set(f) <= _FEAT_KEYS for f in feats):
        return f"feats must be Ki feats ({', '.join(sorted(_FEAT_KEYS))})"
    if feats and "model" not in facts:
        return "feats need the model they are given to"
    return None
