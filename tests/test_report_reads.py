"""An answer and its reports read what each reader's report needs once for all of them (issue 28): the
seats' rows, open deadlines, the calendar's cancellations owed, standing orders, vacations and
the readers' address settings are one read each (Store.read_once), not one per reader -- each
statement a round trip on PostgreSQL. What is read is what a read of its own would give, and a
write to a table within makes the next read of it go to the database."""
import re
from collections import Counter
from datetime import UTC, datetime

import fake_engine
import pytest
from conftest import Clock, StillClock, game_config, mail, token

from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.store import open_store

PACE = {"deadline": "48h", "reminders": ["24h"], "vacation_days": 5}
FOUR = [(n, f"{n}@example.org") for n in ("alice", "bob", "carol", "dave")]
READS = ("deadlines", "standing_orders", "vacations", "address_settings", "move_events")


def test_a_moves_reports_read_each_table_once_for_all_readers(make_service):
    svc = make_service(engine=fake_engine, clock=StillClock(datetime(2026, 10, 23, 9, 0, tzinfo=UTC)))
    newgame.create(svc, game_config(players=FOUR, pace=PACE, options={"turn_cap": 20}))
    svc.store.file_standing_order("autumn", "carol", "when fight: 1")
    seen: Counter = Counter()

    def statement(sql: str) -> None:
        if sql.lstrip().upper().startswith("SELECT"):
            seen.update(t for t in READS if re.search(rf"\bFROM {t}\b", sql))
            seen["seat rows"] += bool(re.search(r"FROM players WHERE game = \S+ AND name =", sql))
            seen["seats"] += bool(re.search(r"FROM players WHERE game = '[^']*'(?! AND name =)", sql))
    queued = len(svc.store.outbox_rows())
    svc.store.conn.set_trace_callback(statement)
    try:
        assert handle(svc, mail(["1: rest"], sender="alice@example.org", tok=token(svc, "autumn", "alice"))).status \
            == "applied"
    finally:
        svc.store.conn.set_trace_callback(None)
    reports = len(svc.store.outbox_rows()) - queued
    assert reports == 4  # the receipt and the others' reports: a reader each
    # Once for all readers and the answer's own handling (its move, its standing orders, its
    # deadlines, the sender's language: one read_once around all of it). Read per reader, these
    # were 8, 5, 9, 5 and 13; the seats, standing orders and vacations were read twice, by the
    # move and then by the reports; the address settings once more for the sender's language.
    assert seen["address_settings"] <= 1 and seen["standing_orders"] <= 1 and seen["vacations"] <= 1, seen
    assert seen["seat rows"] <= 1 and seen["seats"] <= 1, seen
    # a calendar part marks what it carried (a write to deadlines): the read is kept, marked as
    # written (read again after each reader's part, these were 7; 3 before the open and owed were one)
    assert seen["deadlines"] <= 2, seen  # the open ones and those owed read together
    assert seen["move_events"] == 0, seen  # the move's events, just stored, are what its reports show


def test_read_once_gives_what_each_read_gives_and_reads_again_after_a_write(tmp_path, db_setting):
    store = open_store(db_setting.get("db") or tmp_path / "db.sqlite", clock=Clock())
    with store.transaction():
        store.add_game("g", {"game": {}}, "seed", "c" * 64, b"state0", "v", "active")
        for seat, name in enumerate(("ann", "ben", "cid")):
            store.add_player("g", name, seat, f"{name}@x", "t" * 64, "s")
        for prompt, name in ((1, "ann"), (2, "ben"), (3, "ann")):
            store.open_deadline("g", prompt, name, kind="move", default_key="rest", opened_at=store.now(),
                                due_at=f"2026-12-0{prompt}T00:00:00Z", reminded="", next_at=store.now())
        store.file_standing_order("g", "ben", "when fight: 1")
        store.file_standing_order("g", "cid", "when fight: 2")
        store.update_player("g", "cid", status="resigned")  # their orders are no longer the game's
        store.add_vacation("g", "ann", "2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "ann")
        store.set_address_settings("Ann@X", language="de")

    def reads():
        return [(store.player("g", n), store.deadlines("g", n), store.calendar_owed("g", n),
                 store.standing_orders("g", n), store.vacations("g", n), store.address_settings(f"{n}@x"))
                for n in ("ann", "ben", "cid", "nobody")] + [
            (store.players("g"), store.players("g", active_only=True), store.standing_orders("g"))]
    alone = reads()
    statements: list[str] = []
    read = store._all
    store._all = lambda sql, params=(): statements.append(sql) or read(sql, params)
    with store.transaction(), store.read_once("g", ["ann@x", "ben@x", "cid@x", "nobody@x"]):
        assert reads() == alone
        # one read per table (the open deadlines and the cancellations owed in one), not one per seat or game
        assert len(statements) == 5, statements
        with store.read_once("g", ["ann@x"]):  # within an answer's own: goes on with what it read
            assert reads() == alone
        store.set_reported("g", ["ann", "cid"], 7)  # the reports' mark: kept, as written
        assert [p["reported_seq"] for p in store.players("g")] == [7, alone[1][0]["reported_seq"], 7]
        assert len(statements) == 5, statements
        assert store.players("g") == store.query("SELECT * FROM players WHERE game = 'g' ORDER BY seat")
        del statements[5:]
        store.calendar_mailed("g", "ann", [(1, 0)])  # what a calendar part carried: kept, as written
        store.calendar_mailed("g", "ben", [(2, 4)])
        assert len(statements) == 5, statements
        store.update_deadline("g", 3, "ann", status="answered", closed_at=store.now())  # a write: read again
        store.calendar_mailed("g", "ann", [(3, 1)])
        assert [r["mailed"] for r in store.deadlines("g", "ann")] == [0]
        assert [r["prompt"] for r in store.calendar_owed("g", "ann")] == [3]
        store.calendar_mailed("g", "ann", [(3, None), (1, 2)])  # a cancellation carried: no longer owed
        fresh = {(n, k): store.query(f"SELECT * FROM deadlines WHERE game = 'g' AND player = ? AND {where} "
                                     "ORDER BY due_at, prompt, player", (n,))
                 for n in ("ann", "ben") for k, where in (("open", "status = 'open'"),
                                                          ("owed", "mailed IS NOT NULL AND status != 'open'"))}
        before = len(statements)
        assert {(n, k): store.deadlines("g", n) if k == "open" else store.calendar_owed("g", n)
                for n, k in fresh} == fresh
        assert fresh[("ben", "open")][0]["mailed"] == 4 and fresh[("ann", "owed")] == []
        assert [r["mailed"] for r in fresh[("ann", "open")]] == [2]
        assert len(statements) == before, statements[before:]  # still the reads made before
        store.set_address_settings("ben@x", language="de")
        assert store.address_settings("ben@x")["language"] == "de"
        assert store.standing_orders("g", "ben") == alone[1][3]  # no write to it: still the one read
        try:  # a savepoint undone (its error caught within): what it wrote and was read is read again
            with store.transaction(savepoint=True):
                store.file_standing_order("g", "ben", "when fight: 2")
                assert len(store.standing_orders("g", "ben")) == 2
                raise RuntimeError("undone")
        except RuntimeError:
            pass
        assert store.standing_orders("g", "ben") == alone[1][3]
        store.add_move_events("g", 1, '[{"kind": "k", "text": "a\x00b"}]')  # kept as the store keeps it
        store.add_move_events("g", 2, "[]")
        kept = len(statements)
        assert store.move_events("g", 0, 2) == [{"seq": 1, "events": '[{"kind": "k", "text": "a\u2400b"}]'},
                                                {"seq": 2, "events": "[]"}]
        assert len(statements) == kept  # the moves it stored itself: not read back
        assert store.move_events("g", 0, 2) == store.query("SELECT seq, events FROM move_events WHERE game = 'g' "
                                                          "ORDER BY seq")
    assert store._once is None
    store.close()


def test_an_answers_reports_make_no_view_of_the_game(make_service, monkeypatch):
    """What the headers of a move's mails need of each reader (the question they are asked, whom
    the game waits for) is read from the summary and the engine's open prompts, once for the
    move: a whole view per reader only for that was 7 % of handling an answer (issue 28)."""
    svc = make_service(engine=fake_engine)
    newgame.create(svc, game_config(players=FOUR))
    made = []
    view = fake_engine.view
    monkeypatch.setattr(fake_engine, "view", lambda state, player: made.append(player) or view(state, player))
    queued = len(svc.store.outbox_rows())
    assert handle(svc, mail(["1: rest"], sender="alice@example.org", tok=token(svc, "autumn", "alice"))).status \
        == "applied"
    assert len(svc.store.outbox_rows()) - queued == 4 and made == []


@pytest.mark.parametrize("packs", [[], ["timescape"], ["lost-realms", "cataclysm"], ["nemesis"]], ids=str)
def test_the_questions_a_mail_names_are_the_readers_views(packs):
    """Each state of a played game: for every reader, the question a mail says they are asked
    (`open_questions`, the engine's `view_questions`), and whom it says the game waits for, are those
    of their own view."""
    from types import SimpleNamespace

    from test_playouts import game_config as playout_config

    from engine import api
    from pbem.bot import playout
    from pbem.outbound import contexts, reports

    config = playout_config(packs, 4, {"turn_cap": 6})
    _, moves = playout(config, "shown", bot_seed=3)
    state, svc, game = api.new_game(config, "shown"), SimpleNamespace(engine=api), {"status": "active"}
    names = [p["name"] for p in config["players"]]
    for move in moves[:400]:
        shown = reports.open_questions(svc, state)
        for name in names:
            view = api.view(state, name)
            assert (shown.turn, shown.winners) == (view["turn"], view["winners"])
            mine, questions = contexts.asking(svc, game, name, api.view_questions(state, name), state)[1:]
            assert mine == view["mine"] and mine == contexts.asking(svc, game, name, view, state)[1]
            assert [n for q in questions for n in q["players"]] == [n for q in view["prompt"] for n in q["players"]]
        state, _ = api.apply(state, move)


def test_a_new_message_is_stored_without_looking_for_it_first(make_service):
    """A message is known again by its unique keys (its content, its Message-ID): it is stored
    first, and the inbox read only when they say it is there already (issue 28: a read per answer)."""
    svc = make_service(engine=fake_engine)
    newgame.create(svc, game_config(players=FOUR))
    raw = mail(["1: rest"], sender="alice@example.org", tok=token(svc, "autumn", "alice"))
    seen: list[str] = []
    svc.store.conn.set_trace_callback(seen.append)
    try:
        first = handle(svc, raw)
        reads = sum(bool(re.match(r"\s*SELECT \* FROM inbox", sql)) for sql in seen)
        again = handle(svc, raw)
    finally:
        svc.store.conn.set_trace_callback(None)
    assert first.status == "applied" and reads == 0
    assert again.status == "duplicate" and again.inbox_id == first.inbox_id and len(svc.store.inbox_rows()) == 1


def test_a_mails_date_is_the_standards_made_once_a_second():
    """The Date header of each mail queued (issue 28: formatted for every mail) is made once for the
    mails of one second, as email.utils writes it."""
    from datetime import timedelta, timezone
    from email.utils import format_datetime

    from pbem.outbound import outbox

    for when in (datetime(2026, 12, 4, 14, 18, 38, 123456, tzinfo=UTC),
                 datetime(2026, 12, 4, 14, 18, 38, tzinfo=timezone(timedelta(hours=2)))):
        assert outbox.date_header(when) == format_datetime(when) == format_datetime(when.replace(microsecond=0))
    assert outbox.date_header(datetime(2026, 1, 1, 0, 0, 0, 1, tzinfo=UTC)) is \
        outbox.date_header(datetime(2026, 1, 1, 0, 0, 0, 999, tzinfo=UTC))


def test_the_tables_a_statement_writes_are_found_once_per_statement(make_service, monkeypatch):
    """Within `read_once` each statement is read for the tables it writes (what was read of them is
    then read again): a pattern searched through every statement's text at every run (4 us each,
    13 an answer; issue 28). Each text is searched once; a write still drops what was read."""
    from pbem.store import base

    svc = make_service(engine=fake_engine)
    newgame.create(svc, game_config(players=FOUR))
    searched: list[str] = []

    class Counted:
        def findall(self, sql):
            searched.append(sql)
            return pattern.findall(sql)
    pattern = base.Store._WRITES
    monkeypatch.setattr(base.Store, "_WRITES", Counted())
    base._tables_written.cache_clear()
    for name in ("alice", "bob", "carol"):
        assert handle(svc, mail(["1: rest"], sender=f"{name}@example.org", tok=token(svc, "autumn", name))).status \
            in ("applied", "rejected")
    assert searched and len(searched) == len(set(searched)), len(searched) - len(set(searched))
    with svc.store.transaction(), svc.store.read_once("autumn"):
        before = svc.store.player("autumn", "alice")["reported_seq"]
        svc.store.set_reported("autumn", "alice", before + 7)
        svc.store.update_player("autumn", "alice", notes="x")  # a write the memo does not keep: read again
        assert svc.store.player("autumn", "alice")["notes"] == "x"


def test_a_reply_reads_the_mail_it_replies_to_once(make_service):
    """An answer asks twice about the mail of ours it replies to: whether that asked anything (a
    reply to a notice is not played) and which question it asked (a reply to a closed one is not
    played). The row, the whole mail with its rendered text, was read for each (issue 28); it is
    read once, and only what the two questions need."""
    svc = make_service(engine=fake_engine)
    newgame.create(svc, game_config(players=FOUR))
    report = next(r for r in svc.store.outbox_rows() if r["player"] == "alice")["message_id"]
    seen: list[str] = []
    svc.store.conn.set_trace_callback(seen.append)
    try:
        got = handle(svc, mail(["1: rest"], sender="alice@example.org", tok=token(svc, "autumn", "alice"),
                               headers={"In-Reply-To": report, "References": report}))
    finally:
        svc.store.conn.set_trace_callback(None)
    assert got.status == "applied", got.outcome
    reads = [sql for sql in seen if re.search(r"FROM outbox WHERE message_id = ", sql)]
    assert len(reads) == 1, seen
    assert not re.search(r"SELECT \*|\btext\b|\bhtml\b", reads[0]), reads  # not the sent mail's text
