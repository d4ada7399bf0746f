"""Which models a trait's ``[Keyword]`` names (Traits p.48: "[Ключевое слово]").

Many traits act only with or against "[K] models": Vengeance [K] (p.59), Co-ordinated
Attack [K] (p.50), Leadership [K], Bodyguard [K] ... The catalogues write the keyword in
several ways, all read here by :func:`keyword_matches`:

* a model type (``Ashigaru``, ``Samurai``, ``Animal``, ``Kami``): the card's ``types``;
* a faction (``Prefecture`` for *Prefecture of Ryu*): a whole word of the faction's name;
* a model's name or family (``Takashi`` for *Takashi Akio*, ``Kaihei`` for *Kaihei A*,
  ``Atsushi``): a whole word of the card's name;
* a trait (``Soulless``, ``Swarm``, ``Intangible``): the card has it;
* a condition (``Frightened``, ``Poisoned``, ``Stunned``, ``Death Sentence``, ``Held``,
  ``Prone``, ``Spirit Blocked``): the model has it now;
* ``Enemy`` / ``Friendly``: any enemy / friendly model; ``Non-X``: a model that is not X;
  ``Enemy models with RC > 10``: the model's rice cost is above 10;
* several keywords (``Held, Prone``, ``Held & Prone``, ``Monkey, Koji``): any of them.

A keyword that needs a player's choice (``Chosen model``, ``chosen descriptor``) or names a
token the engine does not track (``Noose Token``) cannot be read from the cards:
:func:`keyword_matches` returns None for it, and the caller offers it as a manual step. A
keyword that names nothing on any card (``Red Pearl``) matches no model.
Pure functions; nothing here reads the game state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from models.traits import trait_key
from sim.rules.conditions import condition_key

__all__ = ["KeywordView", "keyword_matches", "needs_choice", "split_keywords", "view_of"]

#: Condition words as the catalogues write them -> condition keys (p.43-45).
_CONDITION_WORDS = {
    "frightened": "frightened", "poisoned": "poisoned", "stunned": "stunned", "held": "held", "prone": "prone",
    "death_sentence": "death_sentence", "spirit_blocked": "spirit_block", "spirit_block": "spirit_block",
    "blind": "blind", "immobilised": "immobilised", "on_fire": "on_fire", "bleed": "bleed", "bleeding": "bleed",
    "diseased": "diseased", "berserk": "berserk", "disguised": "disguised", "controlled": "controlled",
}

_CHOICE = re.compile(r"\bchosen\b|\btokens?\b")
_RICE = re.compile(r"\brc\s*(>|&gt;|<|&lt;)\s*(\d+)")


@dataclass(frozen=True)
class KeywordView:
    """What a keyword is matched against, for one model seen from the trait's holder.

    ``name``, ``faction``: as printed (any case); ``types``: type keywords; ``traits``:
    trait keys (:func:`models.traits.trait_key`); ``conditions``: condition keys the model
    has now; ``rice``: its cost (None: unknown); ``friendly``: on the holder's side.
    """

    name: str = ""
    faction: str = ""
    types: frozenset[str] = frozenset()
    traits: frozenset[str] = frozenset()
    conditions: frozenset[str] = frozenset()
    rice: int | None = None
    friendly: bool = False


def view_of(card, *, friendly: bool, conditions=()) -> KeywordView:
    """The :class:`KeywordView` of a :class:`models.profiles.Profile` card (``None``: a
    model without a card, matched by conditions and side only)."""
    conds = frozenset(_CONDITION_WORDS.get(condition_key(c), condition_key(c)) for c in conditions)
    if card is None:
        return KeywordView(conditions=conds, friendly=friendly)
    return KeywordView(name=card.name, faction=card.faction, types=frozenset(t.lower() for t in card.types),
                       traits=frozenset(trait_key(t.keyword) for t in card.traits), conditions=conds,
                       rice=card.rice, friendly=friendly)


def split_keywords(qualifier: str | None) -> list[str]:
    """The keywords of a ``[..]`` qualifier, lower case: ``"Held & Prone"`` -> ``["held",
    "prone"]``; ``"Monkey, Koji"`` -> ``["monkey", "koji"]``; ``None`` -> ``[]``."""
    text = (qualifier or "").replace("&amp;", "&").replace("&gt;", ">").replace("&lt;", "<").lower()
    return [w.strip() for w in re.split(r"[,&/]| and | or ", text) if w.strip()]


def needs_choice(qualifier: str | None) -> bool:
    """Whether the keyword is one the player chooses (``Chosen model``, ``chosen
    descriptor``) or a token the engine does not track (``Noose Token``, placed by a card's
    feat): the cards cannot tell which models it names."""
    return any(_CHOICE.search(w) for w in split_keywords(qualifier))


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9'\-]+", text.lower()) if w}


def _one(word: str, v: KeywordView) -> bool:
    if word in ("enemy", "enemies", "enemy model", "enemy models"):
        return not v.friendly
    if word in ("friendly", "friend", "friendly model", "friendly models", "any", "model", "models"):
        return v.friendly if word.startswith("friend") else True
    m = _RICE.search(word)
    if m:
        if v.rice is None:
            return False
        n = int(m.group(2))
        side_ok = (not v.friendly) if word.startswith("enemy") else True
        return side_ok and (v.rice > n if m.group(1) in (">", "&gt;") else v.rice < n)
    if word.startswith("non-") or word.startswith("non "):
        return not _one(word[4:].strip(), v)
    cond = _CONDITION_WORDS.get(condition_key(word))
    if cond is not None:
        return cond in v.conditions
    if word in v.types:
        return True
    if trait_key(word) in v.traits:
        return True
    if word == v.name.lower() or word == v.faction.lower():
        return True
    if " " not in word and (word in _words(v.name) or word in _words(v.faction)):
        return True
    return False


def keyword_matches(qualifier: str | None, view: KeywordView) -> bool | None:
    """Whether the model seen as ``view`` is a ``[qualifier]`` model (see the module
    docstring): True if any keyword of the qualifier names it; None when the keyword is
    the player's choice (:func:`needs_choice`); False otherwise (also for no qualifier)."""
    if needs_choice(qualifier):
        return None
    return any(_one(w, view) for w in split_keywords(qualifier))
