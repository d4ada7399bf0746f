"""What the conformance page needs that no rules registry holds yet, as data: the
rulebook's chapters and sections (Risen Sun rulebook, the table of contents of the Russian
text, seed ``000_c026e9e1ed7bf21e.txt``) with what the engine does for each, and the
status of every action kind, condition and special attack or defence.

Nothing here decides a rule; the rules live in their modules. The tests of this package
hold the data to the registries (every action kind, condition and special has a status,
no key is unknown, every module and symbol named exists, every section's line in the
rulebook text carries its anchor, and its page lies in its chapter).

**Pages.** The book's own pages, from its table of contents (:data:`CHAPTERS`). Where the
code cites a page (Ranged Attack action p.25, re-rolls p.28, Cover and Surprised p.31,
Targeting a model in BtB p.32, Ki boosts p.47, terrain set-up p.62) that page is used;
otherwise a section is placed by its line's position in its chapter and may be one page
off, as the trait pages are (:mod:`models.traits`). The scenario chapter starts at p.63,
the last entry of the table of contents; its sections are given that page.

**Statuses** (:data:`models.traits.STATUSES`): ``automated`` (the engine applies it),
``partly`` (the note says what is not applied), ``manual`` (the players apply it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sim.rules.conformance.coverage import Probe

__all__ = ["ACTION_STATUS", "CHAPTERS", "CONDITION_STATUS", "Chapter", "EXAMPLES", "Example", "SECTIONS",
           "SPECIAL_PAGES", "SPECIAL_STATUS", "Section", "Status", "TRAIT_PROBES"]


@dataclass(frozen=True)
class Chapter:
    """A chapter of the table of contents: ``key``, English ``name``, Russian ``name_ru``
    as printed there, its first and last page, and the lines of the rulebook text it spans
    (``first_line`` .. ``last_line``)."""

    key: str
    name: str
    name_ru: str
    first_page: int
    last_page: int
    first_line: int
    last_line: int

    @property
    def pages(self) -> str:
        """``p.N`` or ``p.N-M``."""
        return f"p.{self.first_page}" + (f"-{self.last_page}" if self.last_page != self.first_page else "")


#: The chapters, in the book's order (table of contents, lines 9-27 of the text).
CHAPTERS: tuple[Chapter, ...] = (
    Chapter("overview", "Game Overview and Preparation", "Обзор Игры; Подготовка к Игре", 2, 3, 9, 44),
    Chapter("terms", "Terms and Concepts", "Термины и Понятия", 4, 9, 45, 218),
    Chapter("cards", "Cards", "Карты", 10, 17, 219, 476),
    Chapter("general", "General Rules, Warband Building", "Общие Правила; Составление Отряда", 18, 19, 477, 519),
    Chapter("setup", "Game Setup and Turn", "Организация Игры и Ход", 20, 21, 520, 581),
    Chapter("movement", "Movement and Placement", "Движение и Размещение", 22, 23, 582, 645),
    Chapter("actions", "Actions", "Действия", 24, 26, 646, 716),
    Chapter("tests", "Tests", "Проверки", 27, 29, 717, 810),
    Chapter("ranged", "Ranged Attacks", "Стрелковые Атаки", 30, 32, 811, 915),
    Chapter("melee", "Melee Attacks", "Рукопашные Атаки", 33, 37, 916, 1063),
    Chapter("wounds", "Wound Table", "Таблица Ранений", 38, 38, 1064, 1090),
    Chapter("special", "Special Abilities", "Специальные Способности", 39, 42, 1091, 1227),
    Chapter("conditions", "Model Conditions", "Состояния Моделей", 43, 45, 1228, 1358),
    Chapter("ki", "Ki Feats", "Умения Ки", 46, 47, 1359, 1460),
    Chapter("traits", "Traits", "Свойства", 48, 59, 1461, 1819),
    Chapter("terrain", "Terrain", "Местность", 60, 62, 1820, 1919),
    Chapter("scenario", "Scenario Rules", "Правила Сценария", 63, 63, 1920, 2071),
)


@dataclass(frozen=True)
class Section:
    """One section of the rulebook and what the engine does with it.

    Attributes:
        key: ``chapter.name`` (``terms.line_of_sight``).
        chapter: :attr:`Chapter.key`.
        name: the English name (as the rulebook prints it beside the Russian one).
        page: ``p.N`` or ``p.N-M``.
        line: the section's first line in the rulebook text.
        anchor: text found on that line (the English name, or the Russian heading).
        status: ``automated``, ``partly`` or ``manual``.
        note: what the engine does, and for ``partly``/``manual`` what it leaves to the
            players.
        where: the modules that hold it (dotted names).
        probe: what a covering test uses (:class:`~sim.rules.conformance.coverage.Probe`).
        rulings: the geometric rulings that read it (``rulings.md 4``).
    """

    key: str
    chapter: str
    name: str
    page: str
    line: int
    anchor: str
    status: str
    note: str
    where: tuple[str, ...]
    probe: Probe
    rulings: str = ""


_G = "sim.geometry.measure"
_SCENE = "sim.geometry.measure.Scene"
_GAME = "sim.rules.game"
_MOVE = "sim.rules.movement"
_DICE = "sim.rules.dice"
_RANGED = "sim.rules.ranged"
_MELEE = "sim.rules.melee"
_KI = "sim.rules.ki"
_SCEN = "sim.rules.scenario"
_CONDS = "sim.rules.conditions"


def _s(key: str, name: str, page: str, line: int, anchor: str, status: str, note: str, where: tuple[str, ...],
       probe: Probe, rulings: str = "") -> Section:
    return Section(key, key.split(".", 1)[0], name, page, line, anchor, status, note, where, probe, rulings)


#: Every section of the rulebook, in the book's order. The specials, conditions, Ki feats
#: and traits have their own tables on the page (one row each); their chapters hold here
#: only the rules that are not one of those.
SECTIONS: tuple[Section, ...] = (
    # ---------------------------------------------------------------- overview p.2-3
    _s("overview.needs", "What you need to play", "p.2", 33, "Для игры «Бусидо»", "automated",
       "a 24\" x 24\" table (any size in the table file), D6 dice (seeded, or the values players roll), Ki "
       "tokens and markers kept in the game state, exact measuring instead of a tape", ("sim.table", _DICE),
       Probe(titles=("*seeded_dice*", "*physical_dice*"))),
    _s("overview.terrain_size", "Terrain pieces no larger than 9\" x 9\"", "p.3", 42, "9 x 9", "automated",
       "checked by the terrain set-up check (`main.py check`)", ("terrain.setup",),
       Probe(symbols=("terrain.setup.check_setup",)), "rulings.md 9"),
    # ---------------------------------------------------------------- terms p.4-9
    _s("terms.active", "Activating Model, Active Player", "p.4", 49, "Activating Model", "automated",
       "the game state's active player and the model that declares an action", (_GAME,),
       Probe(strings=("activate",), titles=("*activat*",))),
    _s("terms.btb", "Base to Base (BtB)", "p.4", 53, "Base to Base", "automated",
       "bases within `CONTACT` (0.01\") of each other", (_G,), Probe(symbols=(f"{_SCENE}.btb",)), "rulings.md 1"),
    _s("terms.battlefield", "Battlefield", "p.4", 55, "Battlefield", "automated",
       "the table rectangle of the table file (24\" x 24\" by default); bases stay on it", ("sim.table",),
       Probe(titles=("*table_edge*", "*off_table*")), "rulings.md 1"),
    _s("terms.controller", "Controller and Owner", "p.4", 57, "Controller", "automated",
       "each model's side (`ModelState.player`) and warband (`owner`); a Controlled model fights for the other "
       "side", (_GAME,), Probe(conditions=("controlled",))),
    _s("terms.counters", "Counters", "p.4", 59, "Counters", "automated",
       "two activation counters per model each turn; Simple actions remove one, Complex two", (_GAME,),
       Probe(strings=("counters", "counter"), titles=("*counter*",))),
    _s("terms.cover", "Cover", "p.4", 61, "Cover", "automated",
       "exact cover from the sight-line search: Obscuring terrain, Blocking terrain or a Construct on every "
       "clear line", (_G,), Probe(symbols=(f"{_SCENE}.cover",)), "rulings.md 5"),
    _s("terms.damage", "Damage, Damage Roll", "p.4", 65, "Damage", "automated",
       "2D6 + Strength - Armour on the wound table; wounds marked on the model", ("sim.rules.wounds",),
       Probe(symbols=("sim.rules.wounds.damage_roll", "sim.rules.wounds.resolve_damage"))),
    _s("terms.deploy", "Deploy", "p.4", 69, "Deploy", "automated",
       "the set-up deploys each model in its zone in the rulebook's order, Scouts after both players and Flank "
       "models held back with their turn and edge (`sim.rules.setup`); a table file may place the models instead",
       ("sim.rules.setup", "sim.table"), Probe(titles=("*deploys*", "*flank*")), "rulings-project.md 36-41, 50-53"),
    _s("terms.dice", "Dice Roll (D6, 2D6, D3, D2)", "p.4", 71, "Dice Roll", "partly",
       "D6 and 2D6 rolls; D3 and D2 appear only on cards, applied by the players", (_DICE,),
       Probe(symbols=("sim.rules.dice.roll_pool",), titles=("*seeded_dice*",))),
    _s("terms.effects", "Effects", "p.5", 85, "Effects", "partly",
       "a word for rules of cards, traits and feats: traits act through their registry entries, catalogue Ki feats "
       "through their effect data, durations through `Game.grant` (an effect without an expiry ends in the End "
       "phase); what a card says in free text (unique effects, a card's Wait effect) is offered or logged as a "
       "manual step with the card text", (_GAME, "sim.rules.effects"),
       Probe(symbols=("sim.rules.effects.effective_profile",), strings=("manual_step",))),
    _s("terms.elsewhere", "Elsewhere", "p.5", 87, "Elsewhere", "automated",
       "a Flank model held back at set-up starts Elsewhere: off the table (no LoS, ZoC, target or counters), not "
       "killed, generating Ki and counted in its warband, until it arrives (`arrive`, p.52)",
       (_GAME, _G), Probe(titles=("*elsewhere*",)), "rulings-project.md 50-53"),
    _s("terms.entering", "Entering", "p.5", 91, "Entering", "partly",
       "movement knows where a path enters a ZoC, a base or terrain; effects triggered on entering (cards) are "
       "the players'", (_MOVE,), Probe(strings=("enters-zoc",), symbols=(f"{_MOVE}.check_walk",))),
    _s("terms.exhausted", "Exhausted", "p.5", 95, "Exhausted", "automated",
       "a model without activation counters cannot activate; -1 die in exchanges", (_GAME, _MELEE),
       Probe(strings=("exhausted",))),
    _s("terms.facing", "Facing and front arc", "p.5", 97, "Facing", "automated",
       "the closed half-plane in front of the base (360 degrees for Aware)", (_G,),
       Probe(symbols=(f"{_SCENE}.in_arc", f"{_SCENE}.point_in_arc")), "rulings.md 3"),
    _s("terms.faction", "Faction", "p.5", 101, "Faction", "automated",
       "warband building checks one faction (and Ronin)", ("models.warband",),
       Probe(symbols=("models.warband.check_warband",))),
    _s("terms.initiative", "Initiative", "p.6", 103, "Initiative", "automated",
       "who strikes first in an exchange and the order of re-rolls", (_MELEE, _DICE),
       Probe(symbols=(f"{_MELEE}.initiative", f"{_MELEE}.initiative_reason", f"{_DICE}.reroll_order"))),
    _s("terms.ki_boost", "Ki Boost", "p.6", 105, "Ki Boost", "automated",
       "`boost=N` on an action: +1 to the stat per step, at the card's boost value", (_KI, _GAME),
       Probe(symbols=(f"{_KI}.boost_stat", f"{_KI}.boost_cost", "sim.rules.game.Game.ki_boost"))),
    _s("terms.killed", "Killed", "p.6", 107, "Killed", "automated",
       "a model with no wounds left is removed from the table; Rise, Last Stand and Kami act as their traits say "
       "(`turn_traits`)", (_GAME, "sim.rules.game.turn_traits"),
       Probe(strings=("killed",), titles=("*killed*",))),
    _s("terms.los", "Line of Sight (LoS)", "p.6", 109, "Line of Sight", "automated",
       "exact: every critical line between the bases is tested (no sampled rays)", (_G, "sim.geometry.sight"),
       Probe(symbols=(f"{_SCENE}.los", f"{_SCENE}.los_to_point")), "rulings.md 4"),
    _s("terms.markers", "Markers", "p.6", 119, "Markers", "automated",
       "condition markers and valued markers (Bleed, Poisoned, On Fire) in the model's state", (_GAME, _CONDS),
       Probe(strings=("markers",), titles=("*marker*",))),
    _s("terms.measuring", "Measuring Distances", "p.6", 121, "Measuring Distances", "automated",
       "edge to edge, exact; \"within X\" is inclusive", (_G,),
       Probe(symbols=(f"{_SCENE}.distance", f"{_G}.edge_distance", f"{_G}.within", f"{_SCENE}.measure_pair")),
       "rulings.md 2"),
    _s("terms.modifiers", "Modifiers", "p.7", 132, "Modifiers", "automated",
       "a modified statistic never exceeds twice its base; halves round down", (_DICE,),
       Probe(symbols=(f"{_DICE}.modified_stat",))),
    _s("terms.movement", "Movement", "p.7", 138, "Movement", "automated",
       "measured along the path the base centre travels", (_MOVE,),
       Probe(symbols=(f"{_MOVE}.check_walk", f"{_MOVE}.check_run")), "rulings.md 7"),
    _s("terms.open_info", "Open and Hidden Information", "p.7", 140, "Открытая и Скрытая Информация",
       "automated", "everything is shown, except the secret melee allocations, which the hot-seat hides",
       ("sim.cli.hotseat",), Probe(titles=("*secret*",))),
    _s("terms.place", "Place", "p.7", 146, "Place", "automated",
       "models are placed, not moved, by Ki feats (`place` moves), Flank arrivals and deployment; the Place rules "
       "of p.23 are checked on each (Movement and Placement)", (_GAME, "sim.rules.placement"),
       Probe(titles=("*placed_model*", "*placed*"))),
    _s("terms.replace", "Replace", "p.7", 148, "Replace", "partly",
       "Bodyguard's swap puts each model where the other stood, centre on centre (the smaller base within the "
       "larger, p.7); Ivory Prison's Kairai and card effects that replace a model are logged as manual steps",
       ("sim.rules.game.answer_traits",), Probe(titles=("test_bodyguard_*",))),
    _s("terms.select", "Select", "p.7", 152, "Select", "partly",
       "a Pulse or Aura feat's models named by its player (`Action.models`) need no LoS; selections in card free "
       "text are the players'", ("sim.rules.game.feat_moves",), Probe(titles=("*forward_move_it*",))),
    _s("terms.size", "Size", "p.7", 154, "Size", "automated",
       "from the base (30 Small ... 60 Huge) or a size trait; drives LoS, Size tests and collisions",
       ("sim.geometry.attributes", "sim.table"),
       Probe(titles=("*size_test*", "*equal_size*", "*size_zero*", "*smaller_model*", "*by_size*")), "rulings.md 1"),
    _s("terms.summon", "Summon", "p.8", 167, "Summon", "manual",
       "summoned models are not added by the engine (warband building refuses Su models)", ("models.warband",),
       Probe()),
    _s("terms.supporting_dice", "Supporting Dice", "p.8", 171, "Supporting Dice", "automated",
       "up to two supporting dice add +1 each to the highest die (Adept raises the limit)", (_DICE,),
       Probe(symbols=(f"{_DICE}.evaluate_roll", f"{_DICE}.RollOptions"))),
    _s("terms.targeting", "Targeting", "p.8", 173, "Targeting", "automated",
       "a target needs LoS (shots, Target feats, Charge and Melee declarations)", (_RANGED, _KI, _GAME),
       Probe(symbols=(f"{_RANGED}.can_shoot", f"{_KI}.in_target_range"))),
    _s("terms.test", "Test", "p.8", 175, "Test", "automated", "opposed and challenge tests (Tests p.27-29)",
       (_DICE,), Probe(symbols=(f"{_DICE}.opposed_test", f"{_DICE}.challenge_test"))),
    _s("terms.timing", "Timing", "p.8", 177, "Timing", "partly",
       "Instant and Active feats are offered at the player's decision points, not inside exchanges and "
       "ranged attacks; other timings are the cards'", (_GAME,), Probe(actions=("feat",))),
    _s("terms.tokens", "Tokens", "p.8", 181, "Tokens", "automated", "Ki tokens and Ammo tokens in the state",
       (_GAME, _KI), Probe(strings=("ki_change", "ammo"), titles=("*tokens*",))),
    _s("terms.trap", "Trap", "p.8", 183, "Trap", "manual",
       "one Trap effect per activation: cards, applied by the players", (), Probe()),
    _s("terms.virtue", "Virtue Tokens", "p.9", 203, "Virtue Tokens", "partly",
       "Virtue (X\") gives a token (`virtue`), its holder spends it whenever it could use an Instant feat "
       "(`spend_virtue`); the ability bought, on a card of the warband, is logged as a manual step",
       ("sim.rules.game.support_step",), Probe(titles=("test_virtue_*",))),
    _s("terms.warband", "Warband", "p.9", 209, "Warband", "automated",
       "a warband file or a BattleScribe roster, checked by the building rules", ("models.warband",),
       Probe(symbols=("models.warband.check_warband", "models.warband.read_roster"))),
    _s("terms.zoc", "Zone of Control (ZoC)", "p.9", 211, "Zone of Control", "automated",
       "1\" around the base, only where the model has LoS (exact, shadows included)", (_G,),
       Probe(symbols=(f"{_SCENE}.zoc", f"{_G}.zoc_region")), "rulings.md 6"),
    # ---------------------------------------------------------------- cards p.10-17
    _s("cards.profile", "Profile Cards", "p.10-13", 219, "PROFILE CARDS", "partly",
       "statistics, base, Size, types, traits, weapons and Ki feats are read from the BattleScribe catalogues; "
       "character effects (card text) are the players'", ("models.profiles", "models.bsdata"),
       Probe(modules=("models.profiles", "models.bsdata"))),
    _s("cards.special", "Special Cards", "p.14", 372, "SPECIAL CARDS", "partly",
       "read from the catalogues and checked when a warband is built; the set-up hands each card's facts to the "
       "game (`Game(cards=...)`, kept by saves): enhancement grants are applied, every other effect is logged "
       "as a manual step naming the card when the game starts",
       ("models.warband", "models.bsdata", "models.card_facts", "sim.rules.game.special_cards"),
       Probe(symbols=("models.warband.check_warband", "sim.rules.game.special_cards.cards_at_start"))),
    _s("cards.enhancement", "Enhancement Cards", "p.15", 385, "ENHANCEMENT CARDS", "partly",
       "Equipment, Max, Required and Exclusion checked when a warband is built; an enhancement's traits, "
       "statistic changes and weapon traits (\"Attached model gains ...\") are effects on its model for the "
       "whole game (Scout, Flank, Tactician read at set-up too); conditional, variable (X), chosen or triggered "
       "effects and the Ki feats and weapons a card gives are manual steps logged with the card's name at the start",
       ("models.warband", "models.card_facts", "sim.rules.game.special_cards"),
       Probe(symbols=("models.warband.check_warband", "models.card_facts.card_facts"),
             titles=("test_an_enhancement_*",))),
    _s("cards.event", "Event Cards", "p.15", 409, "EVENT CARDS", "partly",
       "Max and Required checked when a warband is built; each event card is logged as a manual step of its "
       "player when the game starts (played once, when the card says, by the players; Traps too)",
       ("models.warband", "sim.rules.game.special_cards"),
       Probe(symbols=("models.warband.check_warband", "sim.rules.game.special_cards.cards_at_start"))),
    _s("cards.terrain", "Terrain Cards", "p.16", 425, "TERRAIN CARDS", "partly",
       "checked when a warband is built; a terrain piece of the table file carries its card's traits, and a "
       "Destructible piece is removed by a Wait for 2 Ki (in contact, out of enemy ZoC; offered by legal_actions); "
       "the pieces of a warband's terrain cards are placed by the players in the table file; terrain "
       "traits other than Destructible (Fear (X): the Fear test on contact ...) and the cards' rules are logged "
       "as manual steps when the game starts",
       ("models.warband", "sim.rules.game.wait_options", "sim.rules.game.special_cards"),
       Probe(symbols=("models.warband.check_warband",), strings=("terrain_removed",),
             titles=("*destructible*",))),
    _s("cards.theme", "Theme List Cards", "p.17", 445, "THEME LIST CARDS", "partly",
       "Permitted and Exclusion checked when a warband is built; the theme's effects are logged as a manual "
       "step of its player when the game starts",
       ("models.warband", "sim.rules.game.special_cards"),
       Probe(symbols=("models.warband.check_warband", "sim.rules.game.special_cards.cards_at_start"))),
    # ---------------------------------------------------------------- general rules p.18-19
    _s("general.rule_one", "Rule No. 1: Rules Conflicts", "p.18", 481, "КОНФЛИКТЫ ПРАВИЛ", "partly",
       "the engine follows it where a trait meets a rule (Immovable is not moved by a Slam, its example); "
       "conflicts with card text are the players'", ("sim.rules.special",), Probe(traits=("immovable",)),
       "rulings-project.md 21"),
    _s("general.warband", "Warband building, Ronin Models", "p.19", 506, "RONIN MODELS", "automated",
       "faction, rice limit, Ronin rules a-e, model limits (`check_warband`)", ("models.warband",),
       Probe(modules=("models.warband",))),
    # ---------------------------------------------------------------- setup and turn p.20-21
    _s("setup.game_setup", "Game Setup", "p.20", 520, "GAME SETUP", "partly",
       "`sim.rules.setup.GameSetup`: the Deployment Tactical test (Scout and Tactician dice), terrain placed in "
       "turns (at least 6, the last piece, Impassable spacing), the stopper's zone, who deploys first, "
       "deployment, Scouts and Flank; a table file may place the terrain and models instead. Step 5, the "
       "terrain cards of the warbands placed by the roll's winner then the other player, is the players' (they "
       "place them as terrain pieces)", ("sim.rules.setup", "terrain.setup", _SCEN),
       Probe(symbols=("terrain.setup.check_setup", f"{_SCEN}.check_against_table"), modules=("sim.rules.setup",)),
       "rulings.md 9"),
    _s("setup.starting_phase", "Starting Phase", "p.20", 549, "STARTING PHASE", "automated",
       "game length roll, Ki generation, two counters each, Tactical test, pass tokens, scenario resets",
       ("sim.rules.game.turn",),
       Probe(strings=("game_length", "tactical", "pass_tokens"), titles=("*starting_phase*", "*ki_generation*"))),
    _s("setup.main_phase", "Main Phase", "p.21", 559, "MAIN PHASE", "automated",
       "players alternate activations or pass tokens; a player with no model to activate is skipped",
       ("sim.rules.game.turn", "sim.rules.game.activation"), Probe(actions=("pass",), strings=("activate",))),
    _s("setup.end_phase", "End Phase", "p.21", 573, "END PHASE", "automated",
       "Fear re-tests, Bleed/Poison/Fire damage, expiry, scenario scoring, the end of the game",
       ("sim.rules.game.turn",),
       Probe(strings=("end_phase_reset", "marker_damage", "game_over"), titles=("*end_phase*",))),
    # ---------------------------------------------------------------- movement p.22-23
    _s("movement.move", "Move", "p.22", 592, "MOVE", "automated",
       "ZoC, BtB, terrain costs and end positions checked for every path, with the ruling of each reason",
       (_MOVE, "sim.rules.planning"), Probe(modules=(_MOVE, "sim.rules.planning")), "rulings.md 7"),
    _s("movement.walk", "Walk", "p.22", 598, "WALK", "automated", "a path up to Move; the shortest legal one is "
       "planned", (_MOVE, "sim.rules.planning"), Probe(symbols=(f"{_MOVE}.check_walk",), actions=("walk",)),
       "rulings.md 7"),
    _s("movement.run", "Run", "p.22", 604, "RUN", "automated",
       "1.5 x Move in straight lines to points in LoS, not into enemy ZoC", (_MOVE, "sim.rules.planning"),
       Probe(symbols=(f"{_MOVE}.check_run",), actions=("run",)), "rulings.md 7"),
    _s("movement.charge", "Charge", "p.22", 610, "CHARGE", "automated",
       "2 x Move towards the target; stops in contact, before another enemy's ZoC, or against what it cannot "
       "pass; Ideal terrain +2\"", (_MOVE, "sim.rules.planning"),
       Probe(symbols=(f"{_MOVE}.plan_charge",), actions=("charge",)), "rulings.md 7"),
    _s("movement.place", "Place", "p.23", 618, "PLACE", "automated",
       "`sim.rules.placement.place_problems`: no path, ZoC, models and terrain between are ignored; never off the "
       "table, on a base, in Impassable terrain or in contact with an enemy; the placing player chooses the "
       "facing (a feat's `place` move, Flank arrivals)", (_GAME, "sim.rules.placement"),
       Probe(titles=("*placed_model*",))),
    # ---------------------------------------------------------------- actions p.24-26
    _s("actions.activation", "Activation and counters", "p.24", 646, "СОСТОЯНИЕ", "automated",
       "declaring with counters; an illegal declared action reverts the model and costs one counter (all of them "
       "when it could declare nothing legal: Exhausted); Exhausted models cannot activate; in contact with an enemy "
       "no Charge, Wait or Focus (No BtB)", ("sim.rules.game.activation",),
       Probe(strings=("activate",), titles=("*activat*", "*counter*"))),
    _s("actions.standard", "Standard Actions", "p.24-25", 658, "STANDARD ACTIONS", "automated",
       "every standard action is an action kind (table below); each Wait option is offered (own markers, "
       "Destructible terrain for 2 Ki, a friend's Fire, the card's Wait effect as a manual step with its text); "
       "Stand Up may turn the model", ("sim.rules.game.actions", "sim.rules.game.card_wait"),
       Probe(symbols=("sim.rules.game.Game.legal_actions", "sim.rules.game.Game.is_legal"))),
    # ---------------------------------------------------------------- tests p.27-29
    _s("tests.tests", "Tests, natural 1s, zero pools", "p.27", 717, "Чтобы узнать", "automated",
       "natural 1s removed after re-rolls; a pool of zero or less still rolls", (_DICE,),
       Probe(symbols=(f"{_DICE}.evaluate_roll", f"{_DICE}.roll_pool"))),
    _s("tests.rerolls", "Conducting Re-rolls", "p.28", 737, "CONDUCTING RE-ROLLS", "automated",
       "the rulebook's order of re-rolls, before natural 1s are removed", (_DICE,),
       Probe(symbols=(f"{_DICE}.reroll_order",))),
    _s("tests.opposed", "Opposed Tests", "p.27", 744, "OPPOSED TESTS", "automated",
       "pools compared die by die, ties by counted dice", (_DICE,),
       Probe(symbols=(f"{_DICE}.opposed_test", f"{_DICE}.compare_results"))),
    _s("tests.challenge", "Challenge Tests", "p.28", 759, "CHALLENGE TESTS", "automated",
       "the highest die plus support against the target number", (_DICE,),
       Probe(symbols=(f"{_DICE}.challenge_test",))),
    _s("tests.size", "Size Tests", "p.28", 773, "SIZE TESTS", "automated",
       "dice by Size (Strong/Weak change them); Immobilised takes one", (_DICE,),
       Probe(symbols=(f"{_DICE}.size_test", f"{_DICE}.size_test_dice"))),
    _s("tests.tactical", "Tactical Tests", "p.29", 789, "TACTICAL TESTS", "automated",
       "each Starting phase (Tactician adds dice); the winner acts first unless it lets the other player act first "
       "(`tactical_choice`, offered before the turn's first activation)",
       (_DICE, "sim.rules.game.turn", "sim.rules.game.tactical_step"),
       Probe(symbols=(f"{_DICE}.tactical_test",), strings=("tactical",))),
    _s("tests.fear", "Fear Tests", "p.29", 795, "FEAR TESTS", "automated",
       "taken when a Charge or Melee brings the active model into contact with a Fear enemy; Bravery "
       "re-rolls; the active model failing loses one counter whatever it declared and its activation ends; a "
       "failing enemy becomes Frightened", (_DICE, "sim.rules.game.melee_step"),
       Probe(symbols=(f"{_DICE}.fear_test", f"{_DICE}.fear_test_needed"))),
    # ---------------------------------------------------------------- ranged p.30-32
    _s("ranged.sequence", "Ranged attack sequence (1a-7a)", "p.30", 811, "СТРЕЛКОВЫЕ АТАКИ", "partly",
       "weapon, target, range bands, interception, TN, roll, damage, Ammo and Reload; Ki feats: the active "
       "model's `when: shot` feats are offered before its Shoot (in its activation), the target player's "
       "Instant feats at steps 1e, 4a and 5a are not offered", (_RANGED, "sim.rules.game.shooting_step"),
       Probe(symbols=(f"{_RANGED}.resolve_ranged_attack",), actions=("shoot",))),
    _s("ranged.target_numbers", "Ranged attack target numbers", "p.31", 864, "ЗНАЧЕНИЯ ПОРОГА", "automated",
       "every row of the table, from the geometry (cover, movement, Size, Swarm ...)", (_RANGED,),
       Probe(symbols=(f"{_RANGED}.target_number", f"{_RANGED}.modifiers_from_geometry"))),
    _s("ranged.surprised", "Surprised", "p.31", 887, "Surprised", "automated",
       "started out of contact and out of the target's LoS and stayed out of it while moving: -1 TN, strikes "
       "second, no Ki", (_GAME,), Probe(strings=("surprised",), symbols=("sim.rules.game.Game.surprised_target",))),
    _s("ranged.cover", "Cover in ranged attacks", "p.31", 891, "Cover", "automated",
       "exact cover (Terms and Concepts) gives its TN modifier", (_RANGED, _G),
       Probe(symbols=(f"{_SCENE}.cover", f"{_RANGED}.modifiers_from_geometry")), "rulings.md 5"),
    _s("ranged.btb", "Targeting a model in BtB", "p.32", 907, "TARGETING A MODEL IN BTB", "automated",
       "a Ranged (6) test; on failure the nearest friend in contact becomes the target", (_RANGED,),
       Probe(symbols=(f"{_RANGED}.resolve_btb_targeting", f"{_RANGED}.btb_redirect_target"))),
    # ---------------------------------------------------------------- melee p.33-37
    _s("melee.exchange", "Melee exchange (steps 1-15)", "p.33-36", 916, "РУКОПАШНЫЕ АТАКИ", "partly",
       "initiative, pools, secret allocations, rolls, re-rolls, comparisons, specials, damage, counter-strike, "
       "counters, Eagle's Flight's move; Ki feats: `when: exchange` feats are offered to each model before "
       "it allocates (step 4), those of step 11 (after the comparison, before the damage roll) are not offered",
       (_MELEE, "sim.rules.game.melee_step"),
       Probe(symbols=(f"{_MELEE}.resolve_exchange",), actions=("allocate",))),
    _s("melee.modifiers", "Melee modifiers", "p.36", 1046, "МОДИФИКАТОРЫ РУКОПАШНОЙ", "automated",
       "every row of the modifier table (conditions, Charge, Exhausted, Ran, Stood Up ...)", (_MELEE,),
       Probe(symbols=(f"{_MELEE}.pool_modifiers", f"{_MELEE}.melee_pools"))),
    _s("melee.assist", "Melee Assist", "p.36", 1056, "MELEE ASSIST", "automated",
       "-1 die for each other enemy in contact, unless a friend is in contact with that enemy",
       ("sim.rules.game.melee_step",),
       Probe(symbols=("sim.rules.game.Game.melee_assists",), titles=("*melee_assist*",))),
    # ---------------------------------------------------------------- wound table p.38
    _s("wounds.table", "Wound Table, Success Level", "p.38", 1064, "ТАБЛИЦА РАНЕНИЙ", "automated",
       "the table cell by cell; Armour, Tough, Durable, halving", ("sim.rules.wounds",),
       Probe(modules=("sim.rules.wounds",))),
    # ---------------------------------------------------------------- special abilities p.39-42
    _s("special.costs", "Special abilities: cost, one per exchange", "p.39", 1097, "стоимость X", "automated",
       "the cost comes off the pool (never to 0), one special per exchange, only those on the weapon in use",
       (_MELEE,), Probe(symbols=(f"{_MELEE}.validate_allocation", f"{_MELEE}.parse_special"))),
    _s("special.moves", "Moves of specials (collisions, edge, Impassable)", "p.39-40", 1103,
       "только одну Специальную", "automated",
       "straight-line moves in closed form; collisions by Size; stops at the table edge and Impassable terrain",
       ("sim.rules.special",), Probe(modules=("sim.rules.special",)), "rulings.md 8"),
    # ---------------------------------------------------------------- ki p.46-47
    _s("ki.cost", "Ki feats: cost and limitations (No BtB, No movement, Once per turn/game)", "p.46", 1361,
       "стоимость в жетонах Ки", "automated", "`can_use` judges cost, limitations, Surprised and Controlled",
       (_KI,), Probe(symbols=(f"{_KI}.can_use", f"{_KI}.feat_cost"))),
    _s("ki.timing", "Instant, Active, Simple, Complex feats", "p.46", 1383, "Мгновенное", "automated",
       "Simple and Complex feats are actions; Instant and Active feats cost no counter",
       (_KI, "sim.rules.game.ki_step"),
       Probe(actions=("ki_feat", "complex_ki_feat", "feat"))),
    _s("ki.areas", "Personal, Target, Aura, Pulse", "p.46", 1409, "Personal", "automated",
       "targets and areas measured edge to edge; Auras last until the End phase", (_KI,),
       Probe(symbols=(f"{_KI}.targets_in_area", f"{_KI}.parse_area", f"{_KI}.area_lasts"))),
    _s("ki.opposed", "Special and Opposed Ki feats, Surprised", "p.47", 1419, "Special", "automated",
       "opposed Ki tests; Surprised models cannot use feats", (_KI,), Probe(symbols=(f"{_KI}.feat_test",))),
    _s("ki.boosts", "Ki Boosts to statistics", "p.47", 1429, "KI BOOSTS", "automated",
       "`boost=N` on walk/run/charge (Move), shoot (Ranged), allocate (Melee), a feat (Ki)", (_KI, _GAME),
       Probe(symbols=(f"{_KI}.boost_stat", f"{_KI}.max_boost_steps"), strings=("boost",))),
    # ---------------------------------------------------------------- terrain p.60-62
    _s("terrain.passage", "Passage (Impassable, Difficult, Normal, Ideal)", "p.60", 1826, "PASSAGE", "automated",
       "movement costs and bans from the footprints", (_MOVE, "terrain.pieces"),
       Probe(titles=("*difficult*", "*impassable*", "*ideal*")), "rulings.md 7"),
    _s("terrain.visibility", "Visibility (Open, Blocking, Obscuring, Enhancing)", "p.60", 1842, "VISIBILITY",
       "automated", "LoS and cover from the footprints; a model on Enhancing terrain fights with Reach unless its "
       "non-Cloudwalk opponent began the activation there (`terrain_rules`)", (_G, "sim.rules.game.terrain_rules"),
       Probe(titles=("*obscuring*", "*blocking_*", "*enhancing*")),
       "rulings.md 4-5"),
    _s("terrain.size", "Terrain Size", "p.61", 1854, "SIZE", "automated",
       "terrain smaller than both models does not block LoS", (_G,), Probe(titles=("*smaller*", "*tiny_wall*")),
       "rulings.md 4"),
    _s("terrain.setup", "Terrain set-up", "p.62", 1902, "РАССТАНОВКА МЕСТНОСТИ", "automated",
       "piece count and size, gaps to edges, objectives and Impassable terrain; the tournament variant",
       ("terrain.setup",), Probe(symbols=("terrain.setup.check_setup",)), "rulings.md 9"),
    # ---------------------------------------------------------------- scenario p.63
    _s("scenario.type", "Scenario type", "p.63", 1938, "ТИП (TYPE)", "automated",
       "objectives, VIM and zone control scenarios from `data/scenarios`", (_SCEN,),
       Probe(symbols=(f"{_SCEN}.load_scenario",))),
    _s("scenario.vim", "VIM (Very Important Models)", "p.63", 1944, "VIM", "automated",
       "hidden, open or nominated VIMs (the legal model with the most rice by default); VP when killed; a VIM "
       "loses its Disguised marker at the set-up and cannot gain one (`Game.vim_ids`)",
       (_SCEN,), Probe(strings=("vim",), symbols=(f"{_SCEN}.vim_refusal",))),
    _s("scenario.objectives", "Objectives", "p.63", 1972, "ЦЕЛИ (OBJECTIVES)", "automated",
       "placed on the table as Impassable, Blocking pieces", (_SCEN,),
       Probe(symbols=(f"{_SCEN}.objective_pieces",))),
    _s("scenario.interactions", "Interactions: Influence, Prayer, Worship", "p.63", 1984,
       "ВЗАИМОДЕЙСТВИЕ С ЦЕЛЯМИ", "automated", "Simple or Complex Scenario actions at a touched objective",
       (_SCEN, "sim.rules.game.scenario_step"),
       Probe(strings=("influence", "prayer", "worship"), actions=("scenario", "complex_scenario"))),
    _s("scenario.decreasing", "Decreasing (Popular, Scorer)", "p.63", 2010, "Убывание", "automated",
       "the decreasing rules of scoring", (_SCEN,), Probe(strings=("decreasing_popular", "decreasing_scorer"))),
    _s("scenario.zone_control", "Zone Control", "p.63", 2020, "ZONE CONTROL", "automated",
       "a zone's controller and its scenario points each End phase", (_SCEN,),
       Probe(symbols=(f"{_SCEN}.zone_controller", f"{_SCEN}.zone_contains_base"))),
    _s("scenario.length", "Game Length (Variable, Fixed)", "p.63", 2032, "ПРОДОЛЖИТЕЛЬНОСТЬ", "automated",
       "variable (end on 4+ from turn X, always after turn 7) or fixed", ("sim.rules.game.turn",),
       Probe(strings=("game_length",), titles=("*game_length*",))),
    _s("scenario.deployment", "Deployment (Baseline, Corner Square, Corner Edge)", "p.63", 2040,
       "DEPLOYMENT", "automated",
       "baseline, corner square and corner edge zones from the scenario; the set-up (`sim.rules.setup`) deploys "
       "the models in their zone in turns, first player first, Scouts after, Flank models held back",
       (_SCEN, "terrain.setup", "sim.rules.setup"),
       Probe(symbols=("terrain.setup.baseline_zones",), strings=("corner_square",),
             titles=("*corner_square_zone*", "*corner_edge_zone*", "*deployment_order*"))),
    _s("scenario.reset", "Scenario Reset (points, alignment)", "p.63", 2062, "СБРОС СЦЕНАРИЯ", "automated",
       "in the Starting phase of the listed turns", (_SCEN,), Probe(symbols=(f"{_SCEN}.start_phase",))),
    _s("scenario.victory", "Victory Conditions", "p.63", 2070, "УСЛОВИЯ ПОБЕДЫ", "automated",
       "VP awards each End phase; more VP wins, equal VP is a draw", (_SCEN,),
       Probe(symbols=(f"{_SCEN}.end_phase", f"{_SCEN}.final_result"))),
)


@dataclass(frozen=True)
class Status:
    """A status (``automated``, ``partly``, ``manual``) and a note: for ``partly`` and
    ``manual`` what the players apply."""

    status: str
    note: str = ""


_AUTO = Status("automated")

#: The status of every action kind (:data:`sim.rules.game.ACTION_KINDS`).
ACTION_STATUS: Mapping[str, Status] = {
    "walk": _AUTO, "run": _AUTO, "charge": _AUTO, "melee": _AUTO, "disengage": _AUTO, "shoot": _AUTO,
    "focus": _AUTO,
    "wait": Status("automated", "removing a Destructible terrain piece for 2 Ki (p.16) and a friend's Wait on two On "
                                "Fire markers (p.44) (`wait_options`); a card's Wait effect is offered and logged as a "
                                "manual step with the card text (`card_wait`)"),
    "stand_up": _AUTO, "pass": _AUTO,
    "ki_feat": Status("partly", "a card feat is paid, tested and logged; its effect is the players'"),
    "complex_ki_feat": Status("partly", "a card feat is paid, tested and logged; its effect is the players'"),
    "feat": Status("partly", "a card feat is paid and logged; its effect is the players'"),
    "scenario": _AUTO, "complex_scenario": _AUTO, "allocate": _AUTO, "intercept": _AUTO,
    "arrive": Status("automated", "a Booted model may Walk at once from its arrival point (p.50)"),
    # card steps of issue #13 (traits offered as choices by legal_actions)
    **{k: _AUTO for k in ("orochi", "bodyguard", "intimidate", "decline_feat", "jump_up", "cultist", "heal",
                          "fortune", "oni_rage", "group_fight", "cavalry", "leech", "channel", "virtue",
                          "spend_virtue", "order", "command", "pack", "tactical_choice",
                          "death_sentence", "sacrifice", "defiance")},  # Death Sentence's Starting phase choice (p.43)
    "eagles_flight": Status("automated", "the defender's 3\" move after the exchange, or none (p.41)"),
    "feat_later": Status("automated", "a used Ki feat's delayed move (Dash) when its activation ends, or none (p.46)"),
}

#: The status of every condition (:data:`sim.rules.conditions.CONDITIONS`).
CONDITION_STATUS: Mapping[str, Status] = {
    **{k: _AUTO for k in ("berserk", "bleed", "blind", "diseased", "disguised", "frightened", "held",
                          "immobilised", "impetuous", "on_fire", "poisoned", "prone", "reloading",
                          "spirit_block", "stunned")},
    "controlled": Status("automated", "given by the generic feat Puppet Strings; card effects that give it are "
                                      "the players'"),
    "death_sentence": Status("automated", "its player chooses in the Starting phase to pay 3 Ki and remove a "
                                          "marker or keep it (Action death_sentence, offered by legal_actions)"),
}

#: Specials (:data:`sim.rules.melee.SPECIAL_RULES`) the engine does not apply whole; the
#: others are ``automated``.
SPECIAL_STATUS: Mapping[str, Status] = {
    "ivory-prison-attack": Status("partly", "the target is removed (not an Insignificant or Soulless one); placing "
                                            "the Prone Kairai that replaces it is a manual step (manual_step event) "
                                            "for the players: the engine adds no model during a game"),
    "eagles-flight-defence": Status("automated", "after the exchange the defender's player moves it up to 3\" "
                                                 "ignoring enemy ZoC and contact, or not (Action eagles_flight, "
                                                 "offered by legal_actions); a manual step only when another "
                                                 "exchange follows at once (Split Attack, Group)"),
}

#: Pages of the specials (p.39-42), by kind; the exceptional ones have their own.
SPECIAL_PAGES: Mapping[str, str] = {
    "attack": "p.39-40", "defence": "p.40-41",
    "ivory-prison-attack": "p.41", "gokusatsu-attack": "p.41", "eagles-flight-defence": "p.41",
    # the catalogues' special abilities (not in the rulebook's list)
    "dual-attack": "catalogue", "web-defence": "catalogue",
}

#: Probes a trait row adds to its own (a string or keyword naming the trait): the Size
#: traits are tested through the Size they give.
TRAIT_PROBES: Mapping[str, Probe] = {
    "huge": Probe(symbols=("sim.geometry.Size.HUGE",)),
    "tiny": Probe(symbols=("sim.geometry.Size.TINY",)),
    # traits whose printed form (Command [K (X/Y")], Group) the string scan cannot read: found by their tests' names
    "command": Probe(titles=("test_command_worked_example*", "test_command_nominates*", "test_command_group*",
                             "test_command_sends*")),
    "order": Probe(titles=("test_order_gives*",)),
    "group": Probe(titles=("test_group_models*", "test_bots_play_a_game_with_a_group_card*")),
    "in_defiance_of_the_gods": Probe(titles=("test_in_defiance_*",)),
}


@dataclass(frozen=True)
class Example:
    """A worked example of the rulebook ("**Пример:**" paragraphs, and the worked
    exchanges and shots printed as examples) and the tests that play it.

    Attributes:
        line: the example's line in the rulebook text (seed ``000_c026e9e1ed7bf21e.txt``).
        page: its page.
        topic: what it shows, in our words.
        tests: the tests that play it, named as the readings table names them (a test
            id ``test_x.py::test_y``, a test's name, or a ``tests/test_x.py`` file).
        via: ``game`` when the tests drive the :class:`~sim.rules.game.Game`, ``rules``
            when they call the rules function the Game uses (warband building, geometry).
    """

    line: int
    page: int
    topic: str
    tests: tuple[str, ...]
    via: str = "game"


#: Every worked example of the rulebook, in the book's order.
EXAMPLES: tuple[Example, ...] = (
    Example(207, 9, "Virtue tokens: Kenzo Ito spends one that Ayako Ito gave him, as an Instant feat",
            ("test_virtue_*",)),
    Example(250, 11, "a model's types (Aiko: Unsui, Monk, Shugenja) and its faction",
            ("test_aiko_has_the_types_of_her_card",), "rules"),
    Example(262, 11, "a [K] keyword names a type or a name: Kintaro and the Ro-Kan Fishermen are both Fishermen",
            ("test_kintaro_and_the_fishermen_are_both_fishermen",), "rules"),
    Example(475, 17, "a theme's permitted model lets its own permitted models in (Aiko and the Silverback)",
            ("test_warband.py::test_theme_permitted_model_allows_another",), "rules"),
    Example(491, 18, "Rule No. 1: Kenko's Slam Attack against Immovable Manu",
            ("test_melee.py::test_slam_against_immovable_neither_moves_nor_knocks_down",
             "test_special.py::test_immovable_defender_is_not_moved_nor_prone")),
    Example(516, 19, "a theme that allows Samurai does not allow the Ronin Golden Guard",
            ("test_warband.py::test_theme_ronin",), "rules"),
    Example(518, 19, "a warband of Ronin only, recruited for a faction",
            ("test_warband.py::test_all_ronin_warband_is_legal",), "rules"),
    Example(640, 23, "Command: Katsumoto lets two Spearmen act; each loses an activation counter",
            ("test_command_worked_example_*",)),
    Example(642, 23, "the feat \"Forward!\" (Вперёд!): Hanso moves two Spearmen without counters",
            ("test_forward_*",)),
    Example(899, 31, "LoS and cover between models A to G of the ranged chapter's figure",
            ("test_cover_example_*", "test_los_example_*"), "rules"),
    Example(905, 31, "Tamotsu's bow shot: range band, TN and its modifiers",
            ("test_ranged.py::test_tamotsu_example", "test_dice.py::test_ranged_example_tamotsu")),
    Example(924, 33, "Hiro boosts his Melee pool from 4 to 5 dice for 3 Ki and may split them any way",
            ("test_hiro_boosts_his_melee_pool_and_may_split_five_dice_any_way",)),
    Example(1087, 38, "a damage roll of 3 and 5 with Strength +1 totals 9",
            ("test_wounds.py::test_itsunagi_ito_example",), "rules"),
    Example(1099, 39, "Sidestep Defence (1)",
            ("test_melee.py::test_sidestep_defence_moves_away_and_ends_the_exchange",)),
    Example(1427, 46, "Sakura's feat at Kenko from his rear arc: Surprised, he may not boost his Ki",
            ("test_a_surprised_model_may_not_boost_its_ki_against_a_feat",)),
    Example(1441, 48, "Believer [Villager] (1/4\"): villagers within 4\" pay 1 Ki less for their feats",
            ("test_believer_worked_example_*",)),
    Example(1443, 48, "Strong [Melee] acts on melee damage rolls only",
            ("test_strong_melee_acts_on_melee_damage_only",)),
    Example(1457, 48, "Kuma with Armour (1) given Armour (2) has Armour (2)",
            ("test_effects.py::test_kuma_gaining_a_higher_armour_uses_it_they_do_not_add_up",)),
    Example(1459, 48, "Naoko given Armour (+1) first gains Armour (0), then has Armour (1)",
            ("test_effects.py::test_naoko_gaining_armour_plus_one_first_gains_armour_zero",)),
    Example(1525, 49, "Bodyguard: model A swaps places with the friend an enemy charges",
            ("test_bodyguard_*",)),
    Example(1549, 50, "Camouflage (2\"): who may target or charge model A",
            ("test_targeting_traits.py::test_camouflage_rulebook_example",)),
    Example(1770, 58, "Split Attack: Kenko charges two enemies and fights each",
            ("test_split_attack_*",)),
    Example(1970, 63, "a VIM replaced by another form of the same model stays the VIM (Kota)",
            ("test_scenario.py::test_hidden_vim_is_revealed_and_scored_on_the_last_turn",), "rules"),
)
