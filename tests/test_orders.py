"""pbem.inbound.orders: mail and turn files -> Order. The corpus in tests/mail pins real client shapes."""
from __future__ import annotations

import dataclasses
import email
import email.policy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pbem.inbound import mailtext
from pbem.inbound.orders import Order, OrderError, content_hash, parse_mail, parse_turn_file, redact

MAIL = Path(__file__).parent / "mail"
CORPUS = sorted(p for p in MAIL.iterdir() if p.suffix in (".eml", ".toml", ".json")
                and not p.name.endswith(".expected.json"))
TOKEN = "0123456789abcdef0123"


def _parse(path: Path) -> Order:
    if path.suffix == ".eml":
        return parse_mail(path.read_bytes(), "talisman@example.org")
    return parse_turn_file(path.read_bytes(), path.name)


def test_corpus_is_complete():
    assert sum(p.suffix == ".eml" for p in CORPUS) >= 20
    for path in CORPUS:
        assert Path(f"{path}.expected.json").exists(), path.name


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus(path: Path):
    expected = json.loads(Path(f"{path}.expected.json").read_text(encoding="utf-8"))
    got = dataclasses.asdict(_parse(path))
    assert {k: got[k] for k in expected} == expected


ALTERNATIVES = [p for p in CORPUS
                if p.suffix == ".eml" and b"multipart/alternative" in p.read_bytes()]


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: p.name)
def test_html_alternative_reads_like_the_plain_one(path: Path):
    """Clients that send HTML only quote the same way: the HTML part must give the same lines."""
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    plain, html = (msg.get_body(preferencelist=(kind,)) for kind in ("plain", "html"))
    assert mailtext.own_lines(mailtext.part_text(html)) == \
        mailtext.own_lines(mailtext.part_text(plain))


def mail(body: str | bytes, *, headers: str = "", to: str = f"talisman+{TOKEN}@example.org",
         subject: str = "Re: [autumn-league] Turn 4 report",
         ctype: str = "text/plain; charset=utf-8") -> bytes:
    head = (f"From: Alice <alice@example.org>\nTo: {to}\nSubject: {subject}\n"
            f"Message-ID: <m1@example.org>\nMIME-Version: 1.0\nContent-Type: {ctype}\n{headers}\n")
    return head.encode() + (body if isinstance(body, bytes) else body.encode())


# --- mail ----------------------------------------------------------------------------------

def test_no_token_is_not_an_error():
    order = parse_mail(mail("left\n", to="talisman@example.org"))
    assert order.token is None and order.lines == ["left"]


def test_plus_address_must_match_game_address_when_given():
    raw = mail("left\n", to=f"other+{TOKEN}@example.net")
    assert parse_mail(raw).token == TOKEN
    assert parse_mail(raw, "talisman@example.org").token is None
    raw = mail("left\n", to=f"Talisman <TALISMAN+{TOKEN.upper()}@Example.ORG>")
    assert parse_mail(raw, "talisman@example.org").token == TOKEN


def test_plus_address_wins_over_body_token_and_token_line_is_not_an_answer():
    other = "ffffffffffffffffffff"
    order = parse_mail(mail(f"token {other}\nleft\n"))
    assert order.token == TOKEN
    assert order.lines == ["left"] and order.ignored == []


def test_malformed_token_line_is_dropped_not_echoed():
    order = parse_mail(mail("token: 0123\nleft\n", to="talisman@example.org"))
    assert order.token is None and order.lines == ["left"] and order.ignored == []


def test_token_in_prose_is_redacted_in_ignored():
    order = parse_mail(mail(f"My token is {TOKEN}, right?\nleft\n"))
    assert order.ignored == ["My token is [token], right?"]


def test_subject_game_and_check():
    assert parse_mail(mail("x\n", subject="Re: [autumn-league] Turn 4 report")).game == "autumn-league"
    assert parse_mail(mail("x\n", subject="CHECK")).check
    assert parse_mail(mail("x\n", subject="Re: [g] check")).check
    assert not parse_mail(mail("x\n", subject="[check-league] Turn 4 report")).check
    assert not parse_mail(mail("x\n", subject="Checking in")).check
    assert parse_mail(mail("x\n", subject="no tag here")).game is None


@pytest.mark.parametrize("line, answer", [
    ("left", "left"), ("Left", "left"), ("17: left", "17: left"), ("17 :Left", "17: left"),
    ("encounter-space", "encounter-space"),
    ("adjudicate Alice life -1", "adjudicate Alice life -1"),
    # as people write them (issue 18): a number before, a full stop after
    ("17 left", "17: left"), ("8. left", "8: left"), ("Q8: left", "8: left"), ("q8 Left", "8: left"),
    ("#8 left", "8: left"), ("8) left", "8: left"), ("8 - left", "8: left"), ("Question 8: left", "8: left"),
    ("Left.", "left"), ("left!", "left"), ("8 Left.", "8: left"),
    ("Hi", None), ("Thanks", None), ("Hi Bob,", None), ("what now?", None), ("left?", None),
    ("I think I will go left now", None), ("I'll go left", None), ("- left", None),
    ("Alice: left", None), ("I go left.", None), ("8", None),
])
def test_answer_lines(line, answer):
    order = parse_mail(mail(line + "\n"))
    assert order.lines == ([answer] if answer else [])
    assert order.ignored == ([] if answer else [line])


@pytest.mark.parametrize("line, attempt", [
    ("8", True), ("8 ?", True), ("left?", True), ("Q8 - ??", True),
    ("Thanks,", False), ("I think I will go left now", False), ("Hi Bob,", False),
])
def test_attempts_are_told_apart_from_prose(line, attempt):
    """An ignored line that reads as a try at an answer is quoted back; prose is not."""
    order = parse_mail(mail(line + "\n"))
    assert order.lines == [] and order.attempts == ([line] if attempt else [])


@pytest.mark.parametrize("body, signature", [
    ("left\nCarol\n", "carol"), ("left\nAlice Smith\n", "alice Smith"), ("left\nright\n", None),
    ("Carol\n", "carol"), ("left\nLeft\n", None), ("left\nnow\n", None),
])
def test_a_signed_name_on_the_last_line_is_marked(body, signature):
    assert parse_mail(mail(body)).signature == signature


def test_status_is_a_command_not_an_answer():
    assert [c.command for c in parse_mail(mail("status\n")).calls] == ["status"]
    order = parse_mail(mail("left\n", subject="Re: [autumn] status"))
    assert [c.command for c in order.calls] == ["status"] and order.lines == ["left"]


def test_references_newest_first():
    order = parse_mail(mail("left\n", headers="In-Reply-To: <b@x>\nReferences: <a@x> <b@x>\n"))
    assert order.references == ["<b@x>", "<a@x>"]


def test_wrong_charset_labels():
    body = "Caf\u00e9 first.\nright\n"
    for label, data in [("us-ascii", body.encode()), ("utf-8", body.encode("latin-1")),
                        ("x-no-such-charset", body.encode()), ("iso-8859-1", body.encode("cp1252"))]:
        order = parse_mail(mail(data, ctype=f"text/plain; charset={label}",
                                headers="Content-Transfer-Encoding: 8bit\n"))
        assert order.lines == ["right"] and order.ignored == ["Caf\u00e9 first."], label


@pytest.mark.parametrize("charset", [None, "rot13", "latin-1", "utf-8", "x-bogus", "idna"])
def test_decode_never_fails(charset):
    data = bytes(range(256))
    assert len(mailtext.decode(data, charset)) >= 128

def test_prefers_text_plain_in_alternative():
    raw = mail('--b\nContent-Type: text/plain\n\nleft\n--b\nContent-Type: text/html\n\n'
               '<p>right</p>\n--b--\n', ctype='multipart/alternative; boundary="b"')
    assert parse_mail(raw).lines == ["left"]


def test_outlook_header_block_without_separator_ends_own_text():
    body = ("right\n\nFrom: Talisman <talisman@example.org>\nSent: Monday, 30 November 2026\n"
            "To: Alice\nSubject: [autumn-league] Turn 4\n\nleft\nreroll\n")
    assert parse_mail(mail(body)).lines == ["right"]


def test_sign_off_keeps_common_answer():
    assert parse_mail(mail("Thanks!\nLeft\n")).lines == ["left"]
    assert parse_mail(mail("left\nCheers,\nAlice\n")).lines == ["left"]


def test_html_quote_tail_is_players_text():
    html = "<p>Hi,</p><blockquote>On x wrote:<br>left</blockquote><p>right</p>"
    assert parse_mail(mail(html, ctype="text/html; charset=utf-8")).lines == ["right"]


def test_unflow():
    text = "I will go \nleft this time.\n> quoted \n> more\n-- \nsig"
    assert mailtext.unflow(text) == "I will go left this time.\n> quoted more\n-- \nsig"
    assert mailtext.unflow("a \nb", delsp=True) == "ab"


def test_gmail_forward_is_not_players_text():
    html = ('<div dir="ltr">left</div><div class="gmail_quote"><div class="gmail_attr">'
            '---------- Forwarded message ---------<br>From: Bob</div>right<br>fight</div>')
    assert parse_mail(mail(html, ctype="text/html; charset=utf-8")).lines == ["left"]


def test_broken_address_headers_do_not_hide_the_answers():
    raw = mail("left\n").replace(b"From: Alice <alice@example.org>", b'From: "\nCc: <,@')
    order = parse_mail(raw)
    assert order.lines == ["left"] and order.sender is None and order.token == TOKEN

def test_turn_file_attachment_error_names_attachment():
    raw = mail('--b\nContent-Type: text/plain\n\nhi\n--b\nContent-Type: application/json\n'
               'Content-Disposition: attachment; filename="t.json"\n\n{"answers": [1]}\n--b--\n',
               ctype='multipart/mixed; boundary="b"')
    with pytest.raises(OrderError, match=r"Attachment t\.json: .*answers\[0\] must be text"):
        parse_mail(raw)


def test_turn_file_for_another_game_is_refused():
    raw = mail('--b\nContent-Type: text/plain\n\nhi\n--b\nContent-Type: application/toml\n'
               'Content-Disposition: attachment; filename="t.toml"\n\n'
               'game = "winter-cup"\nanswers = ["left"]\n--b--\n', ctype='multipart/mixed; boundary="b"')
    with pytest.raises(OrderError, match="winter-cup"):
        parse_mail(raw)


def test_large_message_refused():
    with pytest.raises(OrderError, match="1 MB"):
        parse_mail(mail("left\n" * 250_000))


# --- turn files ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, data, message", [
    ("t.json", b'{"answers": ["left", "right", 3]}', r"answers\[2\] must be text"),
    ("t.json", b'{"answers": "left"}', r"answers must be a list"),
    ("t.json", b'{"answers": ["left"], "colour": "red"}', r"unknown field 'colour'"),
    ("t.json", b'{"game": "g"}', r"field 'answers' is missing"),
    ("t.json", b'{"answers": ["left"], "check": "yes"}', r"check must be true or false"),
    ("t.json", b'{\n"answers": ["left",]\n}', r"not valid JSON: .*\(line 2\)"),
    ("t.json", b'[1, 2]', r"Turn file: it must be a table"),
    ("t.toml", b'game = "g"\nanswers = [left]\n', r"not valid TOML: .*line 2"),
    ("t.toml", b'answers = ["left", 2]\n', r"answers\[1\] must be text"),
    ("t.toml", b'answers = ["left", "-left"]\n', r"answers\[1\] is not an answer"),
    ("t.json", b'{"answers": [""]}', r"answers\[0\] is not an answer"),
    ("t.toml", b'answers = []\nplayer = 7\n', r"player must be text"),
    ("t.toml", b'answers = []\n[extra]\n', r"unknown field 'extra'"),
    ("t.toml", b'\xff\xfe', r"not UTF-8"),
    ("t.txt", b'answers = []', r"\.toml or \.json"),
])
def test_turn_file_errors_name_the_field(name, data, message):
    with pytest.raises(OrderError, match=message):
        parse_turn_file(data, name)


@pytest.mark.parametrize("name, data", [
    ("t.toml", f'token = "{TOKEN}x"\nanswers = []\n'.encode()),
    ("t.toml", f'token = "{TOKEN[:-1]}"\nanswers = []\n'.encode()),
    ("t.toml", f'token = {TOKEN}\nanswers = []\n'.encode()),
    ("t.json", f'{{"token": "{TOKEN}", "answers": ["left", 1]}}'.encode()),
    ("t.json", f'{{"{TOKEN}": 1, "answers": []}}'.encode()),
    ("t.toml", f'token = "{TOKEN}"\nanswers = ["{TOKEN}!"]\n'.encode()),
    (f"{TOKEN}.txt", b""),
])
def test_errors_never_show_a_token(name, data):
    with pytest.raises(OrderError) as info:
        parse_turn_file(data, name)
    assert TOKEN not in str(info.value) and TOKEN[:-1] not in str(info.value)


def test_turn_file_order():
    order = parse_turn_file(b'{"answers": ["17: Left"], "token": "' + TOKEN.upper().encode() + b'"}',
                            "x.JSON")
    assert (order.source, order.lines, order.token, order.check, order.game) == \
        ("turnfile", ["17: left"], TOKEN, False, None)


# --- redact and content_hash ---------------------------------------------------------------

def test_redact():
    assert redact(f"to talisman+{TOKEN}@x and {TOKEN.upper()}", TOKEN) == \
        "to talisman+[token]@x and [token]"
    assert redact("nothing", None) == "nothing"
    assert redact("a.b", ".") == "a[token]b"


def test_content_hash_ignores_transport_headers_and_line_ends():
    raw = (MAIL / "gmail_reply.eml").read_bytes()
    again = (b"From MAILER-DAEMON Tue Dec  1 00:00:00 2026\nReceived: from relay.example.net\n"
             b"\tby mx2.example.org; Tue, 1 Dec 2026\nDelivered-To: someone@example.org\n"
             b"X-Original-To: x@example.org\nReturn-Path: <bounce@example.net>\n" + raw)
    assert content_hash(again) == content_hash(raw)
    assert content_hash(raw.replace(b"\n", b"\r\n")) == content_hash(raw)
    assert content_hash(raw.replace(b"17: left", b"17: right")) != content_hash(raw)
    assert len(content_hash(raw)) == 64


# --- robustness ----------------------------------------------------------------------------

EMLS = [p.read_bytes() for p in CORPUS if p.suffix == ".eml"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4000))
def test_parse_mail_only_raises_order_error(data):
    try:
        parse_mail(data)
    except OrderError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EMLS), st.integers(0, 10**6), st.binary(max_size=40), st.integers(0, 40))
def test_damaged_corpus_mail_only_raises_order_error(raw, at, insert, cut):
    at %= len(raw)
    try:
        parse_mail(raw[:at] + insert + raw[at + cut:], "talisman@example.org")
    except OrderError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=500),
                 st.text(max_size=300).map(str.encode),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                              lambda c: st.lists(c, max_size=4)
                              | st.dictionaries(st.sampled_from(["answers", "game", "player",
                                                                 "token", "check", "x"]), c),
                              max_leaves=10).map(lambda v: json.dumps(v).encode())),
       st.sampled_from(["t.toml", "t.json", "t.TOML", "t"]))
def test_parse_turn_file_only_raises_order_error(data, name):
    try:
        parse_turn_file(data, name)
    except OrderError as exc:
        assert TOKEN not in str(exc)


_header = st.sampled_from([
    "Content-Type: text/plain; charset={cs}", "Content-Type: text/html; charset={cs}",
    "Content-Type: text/plain; format=flowed; delsp=yes; charset={cs}",
    'Content-Type: multipart/alternative; boundary="b"', 'Content-Type: multipart/mixed; boundary="b"',
    "Content-Transfer-Encoding: base64", "Content-Transfer-Encoding: quoted-printable",
    'Content-Disposition: attachment; filename="t.{ext}"', "Subject: =?{cs}?Q?{text}?=",
    "To: talisman+{text}@example.org", "From: {text}", "In-Reply-To: {text}",
])
_part = st.builds(
    lambda hs, body, cs, ext, text: "\n".join(h.format(cs=cs, ext=ext, text=text) for h in hs)
    + "\n\n" + body,
    st.lists(_header, max_size=5),
    st.text(st.characters(codec="utf-8"), max_size=200) | st.sampled_from(
        ["<blockquote>x</blockquote>y", '<div id="divRplyFwdMsg">x</div>', "answers = [1]",
         '{"answers": ["left"]}', "On x wrote:\n> a\nleft", "--b\n\nleft\n--b--", "=E9=", "==="]),
    st.sampled_from(["utf-8", "latin-1", "x-bogus", "utf-16", "rot13", "idna", ""]),
    st.sampled_from(["toml", "json"]), st.text(max_size=20),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_part, min_size=1, max_size=4))
def test_mime_shaped_noise_only_raises_order_error(parts):
    raw = "\n--b\n".join(parts).encode("utf-8", "surrogateescape")
    try:
        parse_mail(raw)
    except OrderError:
        pass


@pytest.mark.parametrize("subject,check", [
    ("CHECK", True), ("Re: [autumn-league] CHECK", True), ("Re: [autumn-league] check: turn 5", True),
    ("Re: [autumn-league] Turn 4 report - check", True),
    ("Re: [autumn-league] Turn 4 report - check the dice", False), ("Re: [autumn-league] Checkmate", False),
])
def test_check_is_the_first_or_last_word_of_the_subject(subject, check):
    raw = (f"From: alice@example.org\r\nTo: talisman+{'0' * 20}@example.org\r\nSubject: {subject}\r\n"
           "Message-ID: <c@example.org>\r\n\r\nleft\r\n").encode()
    assert parse_mail(raw).check is check
