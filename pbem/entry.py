"""The `pbem` console script. An MTA starts one process per mail, so `pbem ingest` from a
pipe is answered here before the CLI's imports: while a daemon runs, the mail is only
spooled for it (pbem/sources/pipe.py, the standard library and the settings). Everything
else is the click CLI (pbem/cli/)."""
import sys


def main():
    from pbem.sources import pipe
    code = pipe.main(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from pbem.cli import main as cli
    return cli()
