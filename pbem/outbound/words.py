"""Words the reports show that come from data, not from a template: region names, deck names,
alignments, a game's status. Listed here so the catalogue has them (`make locale`); the
templates translate them where they are shown (`_(d.name)`), since a report's board part is
made once for readers of every language. Card, space and character names are not here: a names
file per language gives them (pbem/base/printed_names.py, docs/translating.md)."""
from __future__ import annotations

from pbem.base.i18n import N_

REGIONS = (N_("Outer Region"), N_("Middle Region"), N_("Inner Region"), N_("Crown"), N_("clockwise"),
           N_("The City"), N_("The Dungeon"), N_("The Timescape"), N_("Rat Queen's Lair"), N_("Wraith Lord's Domain"))
# every pack's decks by the name a report gives them (reports.make_frame: the id in title case)
DECKS = (N_("Adventure"), N_("Spell"), N_("Purchase"), N_("Talisman"), N_("Denizen"), N_("Terrain"), N_("Remnant"),
         N_("Ending"), N_("Nether"), N_("City"), N_("Dungeon"), N_("Treasure"), N_("Action"), N_("Quest"),
         N_("Adversary"), N_("Boon"), N_("Companion"), N_("Site"), N_("Trial"), N_("Villain"), N_("Captain"),
         N_("Cathay"), N_("Sea Follower"), N_("Naval"), N_("Sea Raft"), N_("Ship"), N_("Timescape"),
         N_("Timescape Purchase"), N_("Armoury"), N_("Magic Emporium"), N_("Pet"), N_("Potion"), N_("Stables"),
         N_("Wanted Poster"), N_("Bridge"), N_("Tunnel"))
ALIGNMENTS = (N_("good"), N_("evil"), N_("neutral"))
STATUSES = (N_("active"), N_("ended"), N_("waiting"))
PLAYERS = (N_("Nemesis"), N_("-"))
