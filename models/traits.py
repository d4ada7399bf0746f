"""Traits (rulebook "Traits" p.48-59): one key per trait, one parser of printed trait
text, one ``has_trait``, and the registry of the rulebook's traits.

**Keys.** :func:`trait_key` gives every spelling of a trait one key, and every lookup
compares keys (never the printed text):

* lower-case ASCII letters and digits, words joined by ``_`` (snake case: the spelling of
  :attr:`models.profiles.Trait.keyword`, of condition names and of Python names):
  ``"Sixth Sense"``, ``"sixth-sense"``, ``"SIXTH_SENSE"`` -> ``sixth_sense``;
  accents are folded, apostrophes dropped, any other character separates words
  (``"Banzai!"`` -> ``banzai``);
* the US spellings read as the rulebook's: ``defense`` -> ``defence``, ``armor`` ->
  ``armour``;
* a spelling that differs from a registered trait's key only in where its words are
  split (``"Lightweight"``, ``"Light-Footed"``, ``"Ki-Block"``, ``"Co-ordinated Attack"``)
  is that trait's key (``light_weight``, ``lightfooted``, ``ki_block``,
  ``coordinated_attack``), and so is a spelling of :data:`TRAIT_ALIASES`
  (``"Toughness"`` -> ``tough``). That is the one alias table.

What a profile file stores as a trait's ``keyword`` is :func:`keyword_of` (the printed
name in snake case, kept as printed: ``co-ordinated_attack``); it is data, not a key:
compare ``trait_key(keyword)``.

**Text.** :func:`parse_trait_text` reads the canonical printed form ``Name [Qualifier]
(Value)`` (``Pierce (2)``, ``Poison (1/2)``, ``Leadership [Ashigaru] (1/6")``) into
``(key, qualifier, value)``; a value stays text (its meaning is the rule's: Poison's
``1/2`` is markers and their value, Leadership's ``1/6"`` a number and a distance). The
catalogues' messy text is repaired into that form by :mod:`models.bsdata.traittext`.

**Registry.** :data:`TRAITS`: every trait of the rulebook once, with its page, its first
line in the Russian rulebook text (seed ``000_c026e9e1ed7bf21e.txt``), a one-line summary
in our words, the modules where the engine applies it and its status:

* ``automated``: the engine reads it from the model's (or weapon's) card and applies it
  wherever the rule acts;
* ``partly``: some of its effects are applied (the summary says which), or only a rules
  function takes it and the game does not read it from the card yet;
* ``manual``: the players apply it.

Pages: the page the code cites where it cites one (Adept, Aggressive p.48; Assassin p.49;
Defensive p.51; Immovable p.53; Impenetrable Defence, Kata p.54; Lightning Reflexes p.55;
Reach p.57; Slow, Unblockable p.58), otherwise placed by the trait's position in the
alphabetical chapter between those (may be one page off). ``tests/test_traits.py``
checks that every trait keyword the code looks up is registered and that every
``automated`` trait is looked up somewhere.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

__all__ = [
    "NOT_TRAITS",
    "STATUSES",
    "TRAITS",
    "TRAIT_ALIASES",
    "TraitRule",
    "TraitText",
    "has_trait",
    "keyword_of",
    "parse_trait_text",
    "registry_counts",
    "trait_key",
    "trait_rule",
    "trait_values",
]

#: Trait statuses, from most to least automated.
STATUSES = ("automated", "partly", "manual")


@dataclass(frozen=True)
class TraitRule:
    """One rulebook trait.

    Attributes:
        key: :func:`trait_key` of the name (``ranged_defence``).
        name: the English name as printed (``Ranged Defence``).
        page: rulebook page (see the module docstring for how it was found).
        line: first line of the entry in the Russian rulebook text (seed
            ``000_c026e9e1ed7bf21e.txt``).
        status: ``automated``, ``partly`` or ``manual`` (:data:`STATUSES`).
        acts: modules where the engine applies it (empty for ``manual``).
        summary: one line in our words (not the card's text).
        weapon: a weapon trait (it acts only when the model uses that weapon, p.48).
        catalogue: a trait of the catalogues that the rulebook does not have (its text is
            the catalogue's, Library-Traits.cat); ``page`` and ``line`` are then 0.
    """

    key: str
    name: str
    page: int
    line: int
    status: str
    acts: tuple[str, ...]
    summary: str
    weapon: bool = False
    catalogue: bool = False


_NON_WORD = re.compile(r"[^a-z0-9]+")


def _snake(name: str) -> str:
    """Lower-case ASCII words joined by ``_``, US spellings made British (no aliases)."""
    s = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode().lower()
    s = _NON_WORD.sub("_", s.replace("'", "")).strip("_")
    s = s.replace("defense", "defence")
    return "_".join("armour" if w == "armor" else w for w in s.split("_")) if "armor" in s else s


_R = "sim.rules."
_MELEE, _RANGED, _MOVEMENT, _GAME, _CONDS, _DICE = (_R + "melee", _R + "ranged", _R + "movement", _R + "game",
                                              _R + "conditions", _R + "dice")


def _t(name: str, page: int, line: int, status: str, acts: tuple[str, ...], summary: str,
       weapon: bool = False, catalogue: bool = False) -> TraitRule:
    return TraitRule(_snake(name), name, page, line, status, acts, summary, weapon, catalogue)


#: Every trait of the rulebook (p.48-59), by key.
TRAITS: Mapping[str, TraitRule] = {t.key: t for t in (
    _t("Adept", 48, 1463, "automated", (_MELEE, _DICE, _RANGED, _GAME),
       "Adept [K] (X): up to X more supporting dice in [K] tests: exchanges ([Melee], [Attack], "
       "[Defence]), Ranged and Size tests; several keywords add up ([Attack, Size])"),
    _t("Aggressive", 48, 1467, "automated", (_MELEE, _CONDS, _GAME),
       "allocates at least as many attack dice as defence dice; cancels with Defensive"),
    _t("Agile", 48, 1469, "automated", (_MOVEMENT, _MELEE, _CONDS, _GAME),
       "ignores contact when declaring and leaves it without Disengaging; unless it Disengages, "
       "Melees, Stands Up or uses a Ki feat it must end out of contact with every enemy; Immune [Held]"),
    _t("Aloof", 48, 1475, "automated", (_GAME,), "takes no Scenario actions"),
    _t("Ammo", 48, 1477, "automated", (_RANGED, _GAME),
       "Ammo (X): X ammo tokens; each ranged attack with the weapon spends one; none left, no "
       "more attacks with it", weapon=True),
    _t("Armour", 48, 1479, "automated", (_MELEE, _RANGED), "Armour (X): damage rolls against it are X lower"),
    _t("Assassin", 49, 1481, "automated", (_MELEE, _RANGED),
       "damage against an enemy it Surprised: three dice, keep two, Strong and Weak ignored "
       "(melee and ranged damage rolls)"),
    _t("Aware", 49, 1485, "automated", ("models.model", "sim.geometry.measure"),
       "its front arc is the whole circle around its base"),
    _t("Banzai!", 49, 1489, "automated", (_GAME,), "may Charge as a Simple action (one activation counter)"),
    _t("Bear Stands Alone", 49, 1491, "automated", (_MELEE, _GAME),
       "Indomitable (+1) while no friendly model is within 3 inches (read from the position "
       "when the exchange is fought)"),
    _t("Believer", 49, 1493, "automated", (_GAME,),
       "Believer [K] (X/Y): friendly [K] models within Y inches pay X less Ki for their feats and boosts "
       "(several Believers add up; never below one token)"),
    _t("Bleed", 49, 1495, "automated", (_MELEE, _RANGED, _GAME),
       "Bleed (X/Y): a non-Soulless model it wounds in melee or with a shot gains X Bleed markers of "
       "value Y (Immune keeps them off; one source at a time; on the card: every weapon)", weapon=True),
    _t("Blood of Orochi", 49, 1499, "automated", (_GAME,),
       "Blood of Orochi (X): Starting phase pool of X tokens, up to 2 per friendly Ito model (default "
       "highest Melee first; re-given before the side's first activation); weapons gain Poison (1/Y)"),
    _t("Bodyguard", 49, 1505, "automated", (_GAME,),
       "Bodyguard [K] (X\"): before an enemy's Charge/Melee into, or Shoot at, a friendly [K] model "
       "within X inches and LoS, its player may swap them (Fear test, bases fit); the bodyguard is the target"),
    _t("Booted", 50, 1535, "automated", (_GAME,),
       "may Walk at once when it arrives from a Flank (the arrival's declared Walk, judged from its arrival point)"),
    _t("Bravery", 50, 1537, "automated", (_GAME, _R + "test_traits"),
       "may re-roll a failed Fear test once; cancels with Cowardly and with a Terror source"),
    _t("Brutal", 50, 1541, "automated", (_MELEE, _RANGED, _GAME),
       "Brutal (X): adds X to its attack result in exchanges (when it has attack dice) and to "
       "its ranged attack result (the model's or the weapon's, the higher)"),
    _t("Camouflage", 50, 1545, "automated", (_GAME,),
       "Camouflage (X\"): with cover from an enemy starting its activation over X inches away, "
       "that enemy may not target or contact it (Shoot, Charge, Melee, Target Ki feats; "
       "Sixth Sense ignores it)"),
    _t("Cavalry", 50, 1557, "automated", (_GAME,),
       "Cavalry (X\"): may move X inches (Walk rules) before its action, or after it (a choice the game waits "
       "for); a move before may bring it into contact with an objective for a Scenario action"),
    _t("Channel", 50, 1559, "automated", (_GAME,),
       "Channel (X/Y\"): once a turn, in its activation, gives up to X of its Ki tokens to friends within Y "
       "inches (a free step naming one friend per token; not to a Kami)"),
    _t("Chain Weapon", 50, 1561, "automated", (_MELEE,),
       "Chain Weapon (X): models fighting it have X less Parry (and no Shield)", weapon=True),
    _t("Charging Bonus", 50, 1563, "automated", (_GAME, _MELEE, _MOVEMENT),
       "Charging Bonus [B]: gains the bonus (traits, weapon traits, specials, +N Move/Melee) for "
       "its Charge and until the end of that activation; on a weapon, only with that weapon"),
    _t("Cloudwalk", 50, 1565, "automated", (_MOVEMENT,),
       "moves over terrain, models and ZoC and may end its move in an enemy ZoC"),
    _t("Command", 50, 1567, "automated", (_GAME,),
       "Command [K (X/Y\")]: Simple action that lets up to X other non-Exhausted friendly [K] models within "
       "Y inches (a Group card whole) take a Simple standard action each, in the order its player chooses"),
    _t("Construct", 50, 1571, "automated", ("models.model", "sim.geometry.measure"),
       "gives cover as a terrain piece would"),
    _t("Coordinated Attack", 50, 1573, "automated", (_MELEE, _GAME),
       "Coordinated Attack [K]: +1 Melee while a friendly [K] model is also in contact with its "
       "opponent ([K]: a type, faction, name, trait or condition; a chosen keyword is a logged "
       "manual step)"),
    _t("Cowardly", 50, 1575, "automated", (_DICE, _R + "test_traits", _GAME),
       "must re-roll passed Fear tests (every Fear test the game takes); cancels with Bravery"),
    _t("Courage", 50, 1577, "automated", (_R + "test_traits", _GAME),
       "Courage (X): modifies its Fear test results by X"),
    _t("Cultist", 50, 1579, "automated", (_GAME,),
       "Cultist (X): on activation (a free step before its action) may wound friendly Cultists, itself "
       "included, X in all, each at most its own X a turn, Tough ignored, and gains that much Ki"),
    _t("Defensive", 51, 1583, "automated", (_MELEE, _CONDS),
       "allocates at least as many defence dice as attack dice; cancels with Aggressive"),
    _t("Disguise", 51, 1587, "automated", (_GAME, _R + "scenario"),
       "Disguise (X): starts the game with a Disguised (X) marker (the condition acts as p.44); "
       "a Nominated VIM may not be a Disguise model"),
    _t("Disease", 51, 1589, "automated", (_MELEE, _RANGED, _GAME),
       "Disease (X): a model it wounds in melee or with a shot gains X Diseased markers (the "
       "condition)"),
    _t("Disturb Flow", 51, 1591, "automated", (_GAME,),
       "Disturb Flow (X/Y\"): enemies within Y inches pay X more Ki for feats (highest X only)"),
    _t("Dodge", 51, 1593, "automated", (_MELEE,), "Dodge (X): may re-roll up to X enemy attack dice in an exchange"),
    _t("Dread", 51, 1595, "automated", (_DICE, _R + "test_traits", _GAME),
       "Dread (X): models testing Fear against it roll X fewer dice (at least 1) and may not pass "
       "automatically by their own Fear"),
    _t("Durable", 51, 1597, "automated", (_MELEE, _RANGED),
       "more than one wound from one damage roll becomes one (after Tough)"),
    _t("Endurance", 51, 1601, "automated", (_MELEE,), "no melee penalty for being Exhausted"),
    _t("Entangling", 51, 1603, "automated", (_MELEE,),
       "its successful attacks deal no damage but Immobilise the target", weapon=True),
    _t("Evasive", 51, 1605, "automated", (_MOVEMENT,), "ignores enemy ZoC while it moves"),
    _t("Fear", 51, 1611, "automated", (_GAME,),
       "Fear (X): Fear tests against it have TN X; a model with Fear (X) or higher passes "
       "automatically"),
    _t("Fearless", 51, 1613, "automated", (_GAME, _CONDS), "passes Fear tests automatically; Immune [Frightened]"),
    _t("Feint", 51, 1615, "automated", (_MELEE,), "Feint (X): may re-roll up to X enemy defence dice in an exchange"),
    _t("Fire", 52, 1617, "automated", (_MELEE, _RANGED, _GAME),
       "Fire (X/Y): a model it wounds in melee or with a shot gains X On Fire markers of value Y "
       "(Immune [..] keeps them off; one source at a time)",
       weapon=True),
    _t("Flank", 52, 1619, "automated", (_R + "setup", _GAME, _R + "scenario"),
       "held back at set-up (turn 2-4, an edge, in secret), it arrives along that edge in the Starting phase "
       "of its turn with 2 counters; an effect in play sends one out to any later turn (Game.flank_out)"),
    _t("Fortune", 52, 1629, "automated", (_GAME,),
       "Ki generation: its player may toss a coin (offered as a Starting phase choice; a seeded die, 4+): "
       "doubled Ki, or none"),
    _t("Group", 52, 1633, "automated", (_GAME, _MELEE),
       "the card's models activate in one activation, one after the other; their exchanges wait until all "
       "have moved, fought in the order their player chooses (Surprised lasts until then)"),
    _t("Hatred", 52, 1639, "automated", ("models.warband",),
       "Hatred [K]: may not be in a warband with [K] models (a model's name, card or type; the warband check)"),
    _t("Heal", 52, 1641, "automated", (_GAME,),
       "Heal (X): Simple action to Walk into contact with a non-Soulless model and heal X of its wounds "
       "(itself without moving)"),
    _t("Huge", 52, 1645, "automated", ("sim.table",),
       "Huge Size (ranged attacks at it -3 TN); a table model's Size from the trait"),
    _t("Immune", 52, 1649, "automated", (_MELEE, _CONDS, _GAME),
       "Immune [K]: never gains [K] markers (those it has are removed)"),
    _t("Immovable", 53, 1651, "automated", (_R + "special", _MELEE, _GAME),
       "moved or placed only by its own actions; never Prone; does not turn for exchanges"),
    _t("Impenetrable Defence", 54, 1653, "automated", (_MELEE,),
       "an enemy fighting it drops its highest attack die"),
    _t("Impetuous", 54, 1655, "automated", (_GAME, _CONDS),
       "Impetuous (X): X Impetuous markers in each Starting phase; Fearless (Fear tests, Immune "
       "[Frightened]) while it has them"),
    _t("Indomitable", 54, 1657, "automated", (_MELEE,),
       "Indomitable (X): ignores X supporting enemies for the melee penalty"),
    _t("Insignificant", 54, 1659, "automated", (_RANGED, _MOVEMENT, _MELEE, _GAME, _R + "scenario", "models.warband"),
       "gives no melee support, takes no Scenario actions, its ZoC may be ignored (contact may not), "
       "cannot intercept shots"),
    _t("Intangible", 54, 1666, "automated", (_MOVEMENT, _MELEE, _CONDS),
       "moves through ZoC, models and terrain and leaves contact freely; Immune [Held, Immobilised]"),
    _t("Intimidate", 54, 1668, "automated", (_GAME,),
       "Starting phase (offered as a choice): an opposed Ki test against an enemy within 8 inches; "
       "a win makes it Cowardly, not Aggressive and unable to Melee, Charge or Shoot this model "
       "until the End phase"),
    _t("Jump Up", 54, 1672, "automated", (_GAME,),
       "may remove its Prone markers at the start of its activation, before declaring its action (a "
       "free step offered while Prone)"),
    _t("Kami", 54, 1676, "automated", (_GAME, _MELEE),
       "starts with full Ki, loses Ki tokens instead of wounds (removed with the last); Immune [Poison, "
       "Fire, Bleed, Disease]; cannot be healed; no feat that spends its last Ki; no Channel or Leech"),
    _t("Kata", 54, 1680, "automated", (_MELEE,), "its 1s in exchange rolls count as 1, not as removed dice"),
    _t("Ki Block", 54, 1682, "automated", (_MELEE, _RANGED, _GAME),
       "a model it wounds in melee or with a shot gains a Spirit Block marker (the condition)", weapon=True),
    _t("Last Stand", 54, 1684, "automated", (_GAME, _MELEE),
       "at 0 wounds it stays in play and may activate until the End phase, where it is removed; no "
       "healing once at 0"),
    _t("Leadership", 54, 1686, "automated", (_R + "test_traits", _GAME),
       "Leadership [K] (X/Y): friendly [K] models within Y inches add X to Fear tests (highest X)"),
    _t("Leech", 54, 1688, "automated", (_GAME,),
       "Leech (X/Y): once a turn, in its activation, takes up to X Ki tokens from friends within Y inches, "
       "not above its Ki limit (a free step naming one friend per token; not from a Kami)"),
    _t("Light Weight", 54, 1690, "automated", (_RANGED, _R + "bots"),
       "no penalty for moving when shooting with it", weapon=True),
    _t("Lightfooted", 54, 1692, "automated", (_MOVEMENT,),
       "Difficult terrain counts as Normal for its moves; cancels with Unstable"),
    _t("Lightning Reflexes", 55, 1694, "automated", (_MELEE,),
       "always has the Initiative in exchanges, also against Reach; nothing if both have it"),
    _t("Mantra", 55, 1698, "automated", (_R + "test_traits", _GAME),
       "its 1s in opposed Ki tests count as 1, not as removed dice"),
    _t("Mettle", 55, 1700, "automated", (_R + "test_traits", _GAME),
       "Mettle (X): when not active, its opponent in an opposed Ki test drops its X highest dice"),
    _t("Oni Rage", 55, 1704, "automated", (_GAME,),
       "Tough (+1) while Berserk; may become Berserk in the Starting phase (a choice offered) and then "
       "gains 2 Ki"),
    _t("Order", 55, 1706, "automated", (_GAME,),
       "Order [K] (X/Y): Complex action giving up to X other friendly [K] models within Y inches an "
       "activation counter each"),
    _t("Overwhelm", 55, 1708, "automated", (_R + "test_traits", _GAME),
       "Overwhelm (X): when active, its opponent in an opposed Ki test drops its X highest dice"),
    _t("Pack", 55, 1712, "automated", (_GAME,),
       "Pack (X/Y): activates up to X non-Exhausted Pack friends within Y inches with it; each must "
       "Melee, Charge or Shoot one target; all moves before the exchanges, fought in the player's order"),
    _t("Parry", 56, 1720, "automated", (_MELEE,), "Parry (X): adds X to its defence result in exchanges"),
    _t("Pierce", 56, 1722, "automated", (_MELEE, _RANGED, _R + "bots"),
       "Pierce (X): the target's Armour is X lower against its successful attacks", weapon=True),
    _t("Poison", 56, 1724, "automated", (_MELEE, _RANGED, _GAME),
       "Poison (X/Y): a non-Soulless model it wounds in melee or with a shot gains X Poisoned markers "
       "of value Y (Immune keeps them off; one source at a time; on the card: every weapon)", weapon=True),
    _t("Protected", 56, 1726, "automated", (_GAME, _MELEE, _RANGED, _R + "bots"),
       "Protected [K] (X\"): before a damage roll against it from a melee or ranged attack, its player "
       "may remove a friendly [K] model within X inches instead (an answer the game waits for)"),
    _t("Prowess", 56, 1728, "automated", (_MELEE, _RANGED, _DICE, _GAME),
       "Prowess [K] (X): re-rolls up to X of its dice in [K] tests: Melee/Attack/Defence in exchanges, "
       "Ranged shots, Tactical, Ki (Ki, opposed Ki, Fear), Fear, Challenge, Size"),
    _t("Ranged Defence", 56, 1732, "automated", (_RANGED,),
       "Ranged Defence (X): shots at it have their TN modified by X"),
    _t("Rapid Fire", 56, 1734, "automated", (_RANGED, _GAME),
       "Rapid Fire (X): a Shoot names up to X-1 more targets in order (Action.models), each a shot of its "
       "own (Ammo, Reload, +1 TN); one counter; a card's variable X is the action's x, a manual step",
       weapon=True),
    _t("Reach", 57, 1738, "automated", (_MELEE,),
       "Initiative in exchanges unless it was in contact at the start of the activation; nothing "
       "if both have it", weapon=True),
    _t("Regenerate", 57, 1740, "automated", (_GAME,), "Regenerate (X): heals X wounds in the End phase"),
    _t("Reload", 57, 1742, "automated", (_RANGED, _GAME),
       "Reload (X): a ranged attack with it gives X Reloading markers", weapon=True),
    _t("Resistance", 57, 1744, "automated", (_R + "test_traits", _GAME),
       "Resistance (X): modifies its result by X in opposed Ki tests when not active"),
    _t("Rise", 57, 1746, "automated", (_GAME, _MELEE),
       "Rise (X): at 0 wounds a one-die test at TN X brings it back, healed and Prone, else it is "
       "removed; not after Fire damage in the End phase"),
    _t("Sacrifice", 57, 1750, "automated", (_GAME, _MELEE, _RANGED, _R + "bots"),
       "Sacrifice [K] (X\"): neither Exhausted nor in contact with an enemy, it may be removed to cancel "
       "a damage roll against a [K] friend within X inches (an answer the game waits for)"),
    _t("Scout", 57, 1754, "automated", (_R + "setup",),
       "Scout (X/Y\"): may deploy after both players, up to Y inches beyond its zone (the roll-off winner's "
       "Scouts last); the side's highest X adds to the deployment roll-off"),
    _t("Sharp", 57, 1756, "automated", (_MELEE, _RANGED, _R + "bots"),
       "Sharp (X): the target's Tough is X lower against its successful attacks", weapon=True),
    _t("Sixth Sense", 57, 1758, "automated", (_RANGED, _MELEE, _CONDS, _GAME),
       "never Surprised; ignores Camouflage; Immune [Blind]"),
    _t("Slow", 58, 1760, "automated", (_MELEE, _GAME),
       "may not declare Run or Charge; loses the Initiative even when active; with Lightning Reflexes "
       "or Reach it ignores them and Slow in exchanges"),
    _t("Soulless", 58, 1762, "automated", (_GAME, _MELEE, _RANGED, _R + "test_traits"),
       "passes Fear tests and, when not the active model, Ki tests (opposed ones: the other side "
       "loses); Immune [Frightened, Poisoned, Bleed]"),
    _t("Split Attack", 58, 1764, "automated", (_GAME, _MOVEMENT, _MELEE),
       "Melee or Charge into contact with several enemies (Action.models), ignoring their ZoC, "
       "and fight each in turn, active in all, -1 die per extra exchange, one counter in all"),
    _t("Spirit", 58, 1772, "automated", (_R + "test_traits", _GAME),
       "Spirit (X): its Ki is X higher (after boosts, beyond twice the base) for Ki and Fear tests "
       "and for targeting or contacting Disguised models"),
    _t("Steadfast", 58, 1776, "automated", (_MELEE, _GAME),
       "allocates freely while Frightened; failing Fear on contact it carries on, Frightened"),
    _t("Strategy", 58, 1778, "automated", (_GAME,),
       "Strategy [B]: gains the bonus whenever its player wins the Tactical roll (Ki and pass tokens, "
       "traits until the end of the turn; a bonus the engine cannot apply is a logged manual step)"),
    _t("Strong", 58, 1780, "automated", (_MELEE, _RANGED, _GAME),
       "+1 die in Size tests; damage rolls: three dice, keep the two highest; cancels with Weak"),
    _t("Stupid", 58, 1782, "automated", (_GAME,),
       "may not declare Wait, Disengage, Scenario or any Complex action (refused and never offered)"),
    _t("Swarm", 58, 1784, "automated", (_RANGED, _R + "test_traits", _GAME),
       "-1 die in Size tests; shots at it +1 TN"),
    _t("Tactician", 58, 1788, "automated", (_DICE, _GAME, _R + "setup"),
       "Tactician (X): X more dice in the Tactical test of every turn and of the set-up (the "
       "highest X of the warband's models on the table)"),
    _t("Terror", 58, 1790, "automated", (_DICE, _R + "test_traits", _GAME),
       "models testing Fear against it must re-roll a pass; cancels with Bravery"),
    _t("Tiny", 58, 1794, "automated", ("sim.table",),
       "Tiny Size (one die in Size tests, shots at it +1 TN); a table model's Size from the trait"),
    _t("Tireless", 58, 1796, "automated", (_MELEE,),
       "keeps its activation counter after exchanges enemies started"),
    _t("Tough", 58, 1798, "automated", (_MELEE, _RANGED), "Tough (X): wounds it takes are X fewer"),
    _t("Unblockable", 58, 1802, "automated", (_MELEE,),
       "Unblockable (X): its opponent drops its X highest defence dice in exchanges"),
    _t("Unstable", 58, 1804, "automated", (_MOVEMENT,),
       "each inch of Difficult terrain costs 4 inches; cancels with Lightfooted"),
    _t("Vengeance", 59, 1808, "automated", (_MELEE, _GAME),
       "Vengeance [K]: Brutal (+1) and +1 Strength on its melee weapons against [K] models "
       "([K]: a type, faction, name, trait or condition; a chosen keyword is a logged manual "
       "step)"),
    _t("Virtue", 59, 1810, "automated", (_GAME,),
       "Virtue (X\"): once a turn gives a Virtue token to another friendly non-Soulless, non-Insignificant "
       "faction model within X inches; a token spent is a logged manual step (a card's ability)"),
    _t("Weak", 59, 1816, "automated", (_MELEE, _RANGED, _GAME),
       "-1 die in Size tests; damage rolls: three dice, keep the two lowest; cancels with Strong"),
    _t("Willpower", 59, 1818, "automated", (_R + "test_traits", _GAME),
       "Willpower (X): modifies its result by X in opposed Ki tests when active"),
    # ---- catalogue-only traits (not in the rulebook: Library-Traits.cat), page and line 0
    _t("Kumo", 0, 0, "automated", (_GAME, _RANGED),
       "catalogue-only: begins the game with 2 Ki; melee damage it deals gains it the enemy's Ki stat "
       "in Ki and heals 1; shots at it ignore its Size", catalogue=True),
    _t("In Defiance of the Gods", 0, 0, "automated", (_GAME, _R + "bots"),
       "catalogue-only: a Starting phase choice; taken, until the End phase: Cloudwalk, Ki (Ki stat + Spirit) "
       "from each model it wounds in melee, Bleed (1) after its activations without melee damage", catalogue=True),
)}

#: Spellings of a trait that are not its name split differently (:func:`trait_key`
#: resolves those by itself): ``spelling (any case or separators) -> key``.
TRAIT_ALIASES: Mapping[str, str] = {
    "toughness": "tough",
    "range defence": "ranged_defence",
}

#: Keywords the code reads as traits that are not model traits of p.48-59: conditions
#: table files mark among a model's ``traits`` (``blind`` for the geometry, ``disguised``
#: for movement; p.43-44), the table loader's Size words (``small``, ``medium``,
#: ``large``; Tiny and Huge are traits) and terrain traits of terrain cards
#: (``destructible``, p.18).
NOT_TRAITS = frozenset({"blind", "disguised", "small", "medium", "large", "destructible"})


def _squash(key: str) -> str:
    return key.replace("_", "")


def _by_squash() -> dict[str, str]:
    out: dict[str, str] = {}
    for spelling, key in [(k, k) for k in TRAITS] + [(_snake(a), k) for a, k in TRAIT_ALIASES.items()]:
        got = out.setdefault(_squash(spelling), key)
        if got != key:  # two traits whose keys differ only by "_": the table could not tell them apart
            raise ValueError(f"trait keys {got!r} and {key!r} differ only in their separators")
    for key in NOT_TRAITS:
        if _squash(key) in out:
            raise ValueError(f"{key!r} is both a trait and not a trait")
    return out


_BY_SQUASH = _by_squash()


@lru_cache(maxsize=4096)
def trait_key(name: str) -> str:
    """The one key of a trait name (see the module docstring): ``"Sixth Sense"`` ->
    ``"sixth_sense"``, ``"Lightweight"`` -> ``"light_weight"``, ``"Toughness"`` ->
    ``"tough"``, ``"Ranged Defense"`` -> ``"ranged_defence"``; an unknown name in snake
    case (``"Foo Bar"`` -> ``"foo_bar"``). Never raises; ``""`` for a name with no ASCII
    letter or digit.

        >>> trait_key("Light Weight"), trait_key("lightweight"), trait_key("Ki-Block")
        ('light_weight', 'light_weight', 'ki_block')
    """
    s = _snake(name)
    return _BY_SQUASH.get(_squash(s), s)


def keyword_of(name: str) -> str:
    """The keyword a profile stores for a printed trait name
    (:attr:`models.profiles.Trait.keyword`, format ``bushido-profiles/1``): lower case,
    spaces as ``_``, letters, digits, ``_``, ``-`` and ``'`` kept, anything else dropped,
    a ``t`` in front when it would not start with a letter (``"Co-ordinated Attack"`` ->
    ``"co-ordinated_attack"``). Compare keywords with :func:`trait_key`."""
    kw = re.sub(r"[^a-z0-9_\-']", "", name.lower().replace(" ", "_"))
    kw = re.sub(r"_+", "_", kw).strip("_-'")
    if not kw or not kw[0].isalpha():
        kw = "t" + kw
    return kw


@dataclass(frozen=True)
class TraitText:
    """A printed trait read by :func:`parse_trait_text`: ``key`` (:func:`trait_key` of the
    name), ``name`` as printed, ``qualifier`` (the text in square brackets) and ``value``
    (the text in round brackets), each None when absent."""

    key: str
    name: str
    qualifier: str | None
    value: str | None


_TRAIT_TEXT = re.compile(r"^\s*(?P<name>[^\[(]+?)\s*(?:\[(?P<q>[^\]]*)\])?\s*(?:\((?P<v>[^)]*)\))?\s*$")


@lru_cache(maxsize=4096)
def parse_trait_text(text: str) -> TraitText | None:
    """Read ``Name [Qualifier] (Value)`` (both brackets optional):
    ``"Poison (1/2)"`` -> key ``poison``, value ``"1/2"``; ``"Prowess [Melee] (1)"`` -> key
    ``prowess``, qualifier ``"Melee"``, value ``"1"``. None for text not of that form (a
    bracket left open, text after the brackets): it names no trait.

        >>> parse_trait_text("Leadership [Ashigaru] (1/6\\")")
        TraitText(key='leadership', name='Leadership', qualifier='Ashigaru', value='1/6"')
    """
    m = _TRAIT_TEXT.match(text)
    if m is None:
        return None
    name = m.group("name").strip()
    return TraitText(trait_key(name), name, m.group("q"), m.group("v"))


def _items(obj: Any) -> Iterable[Any]:
    got = getattr(obj, "traits", obj)
    return got if got else ()


def _key_value(item: Any) -> tuple[str, str | None] | None:
    """``(key, value text)`` of a printed trait or of an object with ``keyword``/``value``
    (:class:`models.profiles.Trait`); None for text that names no trait."""
    if hasattr(item, "keyword"):
        v = getattr(item, "value", None)
        return trait_key(item.keyword), (None if v is None else str(v))
    t = parse_trait_text(str(item))
    return None if t is None else (t.key, t.value)


def trait_values(obj: Any, keyword: str) -> list[str | None]:
    """The value texts of every trait ``keyword`` of ``obj`` (None for one printed without
    a value), in order; empty when it has none.

    ``obj``: printed traits (``["Pierce (2)", "Reach"]``), :class:`models.profiles.Trait`
    records, or an object with a ``traits`` attribute (a weapon, a profile, a model).
    Names are compared by :func:`trait_key`."""
    key = trait_key(keyword)
    out = []
    for item in _items(obj):
        kv = _key_value(item)
        if kv is not None and kv[0] == key:
            out.append(kv[1])
    return out


def has_trait(obj: Any, keyword: str) -> bool:
    """Whether ``obj`` (as for :func:`trait_values`) has the trait ``keyword``, names
    compared by :func:`trait_key` (``"Light Weight"`` = ``"lightweight"`` =
    ``"light_weight"``)."""
    key = trait_key(keyword)
    for item in _items(obj):
        kv = _key_value(item)
        if kv is not None and kv[0] == key:
            return True
    return False


def trait_rule(name: str) -> TraitRule | None:
    """The registry entry of a trait name in any spelling, or None for a trait the
    rulebook does not have."""
    return TRAITS.get(trait_key(name))


def registry_counts() -> dict[str, int]:
    """How many registered traits have each status (:data:`STATUSES`)."""
    return {s: sum(1 for t in TRAITS.values() if t.status == s) for s in STATUSES}
