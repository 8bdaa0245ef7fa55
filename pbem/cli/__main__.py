"""`python -m pbem.cli`: the command line, as the console script runs it."""
from pbem.cli import main

main()
