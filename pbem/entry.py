"""The `pbem` console script. An MTA starts one process per mail, so `pbem ingest` from a
pipe is answered here before the CLI's imports: while a daemon runs, the mail is only
spooled for it (pbem/sources/pipe.py, the standard library and the settings); else it is
stored and processed here (pbem/sources/stdin.py), without click and the other commands'
modules. Everything else is the click CLI (pbem/cli/)."""
import sys


def main():
    from pbem.sources import pipe
    home = pipe.pipe_home(sys.argv[1:])
    if home is not None:
        code = pipe.hand_over(home)
        if code is None:  # no daemon runs
            from pbem.sources import stdin
            code = stdin.run(home)
        sys.exit(code)
    from pbem.cli import main as cli
    return cli()
