"""The service's configuration: where its state lives, its addresses, SMTP, Maildir and IMAP.

With no configuration file everything is embedded: SQLite in the home folder (./var or
$PBEM_HOME, made by `pbem init`), the drop folder home/inbox, outgoing mail as .eml in
home/outbox. A `pbem.toml` in the home folder (or the file named by $PBEM_CONFIG) changes
that; deploy/pbem.toml shows every key. A key this module does not define is an error that
names the nearest known one (pbem/base/configkeys.py): the known keys are the Structs' fields.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tomllib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path


@contextlib.contextmanager
def _without(name: str) -> Iterator[None]:
    """Imports inside find no `name` unless it is imported already (they fall back, as they
    would were it not installed)."""
    hide = name not in sys.modules
    if hide:
        sys.modules[name] = None  # type: ignore[assignment]  # its import fails
    try:
        yield
    finally:
        if hide and sys.modules.get(name, 0) is None:
            del sys.modules[name]


# msgspec without typing_extensions unless something imported it first: msgspec takes
# `get_type_hints` and `NotRequired` from it when it is installed (typing's otherwise, which has
# both from 3.11), and its 3,000 lines cost every process a few ms of CPU for nothing the
# service's Structs need. The settings are what imports msgspec first.
with _without("typing_extensions"):
    import msgspec

from pbem.base import clock, configkeys  # noqa: E402


class SmtpSettings(msgspec.Struct, forbid_unknown_fields=True):
    host: str
    port: int = 587
    username: str | None = None
    password: str | None = None
    starttls: bool = True  # port 587
    tls: bool = False  # implicit TLS, port 465
    timeout: float = 30.0
    cert_bundle: str | None = None  # CA certificates to trust (a relay with a private CA); system CAs otherwise


class ImapSettings(msgspec.Struct, forbid_unknown_fields=True):
    """A hosted mailbox that receives the game address's mail (pbem/sources/imap.py)."""
    host: str
    username: str
    password: str
    port: int = 993
    tls: bool = True  # implicit TLS, port 993
    starttls: bool = False  # port 143
    folder: str = "INBOX"  # where new mail arrives
    processed: str = "pbem-processed"  # where stored mail is moved (made if missing)
    idle_seconds: float = 600.0  # renew IDLE this often (servers drop it after 30 min)
    timeout: float = 30.0


class HttpSettings(msgspec.Struct, forbid_unknown_fields=True):
    """The web face (`pbem serve --http`, pbem/web/): where it listens, and its address as
    players reach it (reports link to it), by default http://HOST:PORT."""
    host: str = "127.0.0.1"
    port: int = 8080
    url: str | None = None  # e.g. https://talisman.example.org behind a proxy
    # slow and greedy clients (pbem/web/guard.py, docs/web.md): over these a connection is closed
    header_seconds: float = 10.0  # a request's headers must be in this long after its first byte
    body_seconds: float = 30.0  # its body this long after its headers
    connections: int = 400  # open at once, in all
    per_address: int = 24  # open at once from one address (behind a reverse proxy: as many as `connections`)
    upload_kb: int = 64  # the most one turn file uploaded from a seat's page may be (at most 1024: a mail's limit)


class Settings(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    home: str = "var"
    address: str = "talisman@localhost"  # From/Reply-To of games that name no address
    moderator: str | None = None  # where the service sends moderator notices
    db: str = "pbem.db"  # a SQLite file, or a PostgreSQL URL (postgresql://…); paths below are relative to home
    inbox: str = "inbox"
    outbox: str = "outbox"
    key: str = "secret.key"  # derives players' tokens; never inside the database
    maildir: str | None = None  # a Maildir that `serve` reads (Postfix/Dovecot delivery)
    smtp: SmtpSettings | None = None  # absent: mail is written to the outbox folder
    imap: ImapSettings | None = None  # a hosted mailbox `serve` reads (IDLE), besides the drop folder
    http: HttpSettings | None = None  # the web face; reports link to it when set
    log_format: str = "auto"  # "json" (one line per event, for systemd), "console", "auto"
    log_level: str = "info"
    poll_seconds: float = 5.0  # how often `serve` looks at the Maildir and the outbox
    send_attempts: int = 8  # at least this many SMTP tries before an outbox row may be marked failed
    send_for_hours: float = 120.0  # and for this long (as MTAs keep trying for days): then failed, moderator told
    outbox_alert_hours: float = 4.0  # mail waiting longer raises one moderator notice
    stranger_replies: int = 3  # replies a day at most to one address whose mail opened no seat (backscatter)
    notice_every: str = "1h"  # the moderator's notices go out as one digest at most this often ("0": at once)
    serve_every: str = ""  # a home run by `serve --once` from cron or a timer: how often ("5m"); "": a daemon runs
    # What one sender may make the service do (pbem/outbound/limits.py): over it, a mail is kept
    # and what is over refused, saying so once; the moderator is told in the digest.
    press_per_mail: int = 10  # messages to players (`to:`) one mail may send
    press_per_day: int = 40  # messages to players one seat may send in 24 hours
    observer_status_per_day: int = 6  # `status` reports one observer's address may ask for in 24 hours
    mails_per_hour: int = 60  # mails one seat may send in an hour: later ones are kept, not played
    upload_kb_per_hour: int = 2048  # what one seat may send from its page in an hour (answers, files): more is refused
    content: str = ""  # a folder of the moderator's content files over the package's (docs/content.md); "": none
    send_lease_seconds: float = 300.0  # a daemon's claim on a mail it sends or an IMAP message it takes; a dead
    # daemon's claims pass after it

    def path(self, name: str) -> Path:
        return Path(self.home) / getattr(self, name)

    @property
    def notice_interval(self) -> timedelta:
        """`notice_every` as a duration (checked when the settings are loaded)."""
        return clock.duration(self.notice_every)

    @property
    def serve_interval(self) -> timedelta | None:
        """`serve_every` as a duration; None when the home has a daemon (checked at load)."""
        return clock.duration(self.serve_every) if self.serve_every else None

    @property
    def db_url(self) -> str | None:
        """The PostgreSQL database the store is in; None for the home's SQLite file."""
        return self.db if self.db.startswith(("postgresql://", "postgres://")) else None

    @property
    def db_path(self) -> Path:
        return self.path("db")

    @property
    def store_target(self) -> str | Path:
        """What open_store() opens: the PostgreSQL URL, or the SQLite file."""
        return self.db_url or self.db_path

    @property
    def inbox_path(self) -> Path:
        return self.path("inbox")

    @property
    def outbox_path(self) -> Path:
        return self.path("outbox")

    @property
    def key_path(self) -> Path:
        return self.path("key")

    @property
    def templates_path(self) -> Path:
        """The home's own templates, searched before the packaged ones (pbem/outbound/render.py)."""
        return Path(self.home) / "templates"

    @property
    def content_path(self) -> Path | None:
        return self.path("content") if self.content else None

    @property
    def maildir_path(self) -> Path | None:
        return Path(self.maildir).expanduser() if self.maildir else None


class SettingsError(ValueError):
    pass


def default_home() -> Path:
    return Path(os.environ.get("PBEM_HOME") or "var")


def load(home: str | Path | None = None, config: str | Path | None = None) -> Settings:
    """Settings for `home` (default ./var or $PBEM_HOME), from `config`, $PBEM_CONFIG or
    home/pbem.toml when one exists; defaults otherwise. Loading changes nothing else: the
    `content` folder is handed to the engine when a service opens (pbem/base/content_overlay.py
    `use`)."""
    home = Path(home) if home else default_home()
    config = config or os.environ.get("PBEM_CONFIG") or home / "pbem.toml"
    data: dict = {}
    if Path(config).is_file():
        try:
            data = tomllib.loads(Path(config).read_text("utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise SettingsError(f"{config}: {e}") from None
    service = data.pop("service", {})
    if not isinstance(service, dict):
        raise SettingsError(f"{config}: [service] must be a table")
    data = {**service, **data}  # keys may sit at top level or under [service]
    wrong = configkeys.struct_problems({k: v for k, v in data.items() if k != "home"}, Settings, "[service]")
    if "home" in data:
        wrong.insert(0, "[service]: `home` is not set here: it is the folder that holds this file (--home, $PBEM_HOME)")
    if wrong:
        raise SettingsError(f"{config}: " + "; ".join(wrong))
    data["home"] = str(home)
    try:
        settings = msgspec.convert(data, Settings, str_keys=True)
    except msgspec.ValidationError as e:
        raise SettingsError(f"{config}: {e}") from None
    if settings.content_path is not None and not settings.content_path.is_dir():
        raise SettingsError(f"{config}: content: {settings.content_path} is not a folder")
    for key, interval in (("notice_every", "notice_interval"), ("serve_every", "serve_interval")):
        try:  # checked once here, not when first used
            getattr(settings, interval)
        except ValueError as e:
            raise SettingsError(f"{config}: {key}: {e}") from None
    return settings


def config_path(home: str | Path) -> Path:
    """The configuration file `load` reads for `home`."""
    return Path(os.environ.get("PBEM_CONFIG") or Path(home) / "pbem.toml")


def sample() -> str:
    """A pbem.toml with every key commented out at its default (what `pbem init` writes): made
    from the Structs, so it names every key there is."""
    lines = ["# pbem.toml: this home's configuration. Every key is optional; a line left commented",
             "# keeps its default. A key pbem does not know is an error. The README's Configuration",
             "# table says what each key does.", ""]

    def keys(struct, skip=()):
        for f in msgspec.structs.fields(struct):
            if f.name in skip or configkeys.struct_of(f.type):
                continue
            default = "" if f.default is msgspec.NODEFAULT else f.default
            value = "..." if default is None else default
            lines.append(f"# {f.encode_name} = " + (f'"{value}"' if isinstance(value, str) else
                                                    str(value).lower() if isinstance(value, bool) else str(value)))

    keys(Settings, skip=("home",))
    for f in msgspec.structs.fields(Settings):
        inner = configkeys.struct_of(f.type)
        if inner is not None:
            lines += ["", f"# [{f.encode_name}]"]
            keys(inner)
    return "\n".join(lines) + "\n"
