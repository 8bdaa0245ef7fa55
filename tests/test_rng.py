"""The counter-based RNG: pinned test vectors (docs/fairness.md) and the standalone script."""
import subprocess
import sys
from pathlib import Path

from engine import rng
from engine.state import Game

SEED = "talisman-test-vector"
DICE = [5, 1, 2, 4, 4, 1, 2, 6, 3, 6, 6, 3, 2, 6, 2, 1, 1, 6, 3, 5]
SHUFFLED = [10, 3, 2, 1, 7, 4, 8, 6, 5, 9]
ROOT = Path(__file__).resolve().parent.parent


def game():
    return Game(edition="revised4", packs=[], options={}, seed=SEED)


def test_pinned_vectors():
    g = game()
    assert [rng.die(g) for _ in range(20)] == DICE
    items = list(range(1, 11))
    rng.shuffle(g, items)
    assert items == SHUFFLED
    assert g.rng == 29


def test_vectors_are_in_the_docs():
    text = (ROOT / "docs" / "fairness.md").read_text()
    assert ", ".join(map(str, DICE)) in text
    assert ", ".join(map(str, SHUFFLED)) in text


def test_forced_dice_come_first_and_do_not_count():
    g = game()
    g.forced = [6, 6]
    assert [rng.die(g) for _ in range(3)] == [6, 6, DICE[0]]
    assert g.rng == 1


def test_dice_are_uniform_enough():
    g = Game(edition="revised4", packs=[], options={}, seed="uniform")
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.die(g) - 1] += 1
    assert all(850 < c < 1150 for c in counts), counts


def test_standalone_script_reproduces_the_dice():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_dice.py"), SEED, "20"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert list(map(int, out)) == DICE
    sys.path.insert(0, str(ROOT / "tools"))
    import verify_dice
    assert verify_dice.shuffle(SEED, list(range(1, 11)), 20) == SHUFFLED


def test_values_are_hmac_sha256_as_documented_for_any_seed_length():
    """rng.value builds HMAC from precomputed pads: it must equal the stdlib's HMAC for short
    seeds, seeds of a whole block, and seeds longer than a block (hashed first, RFC 2104)."""
    import hashlib
    import hmac
    for seed in ("", "x", "a" * 64, "b" * 65, "é" * 40):
        for n in range(30):
            attempt = 0
            while True:
                digest = hmac.new(seed.encode(), f"{n}:{attempt}".encode(), hashlib.sha256).digest()
                x = int.from_bytes(digest[:8], "big")
                if x < (1 << 64) - (1 << 64) % 6:
                    break
                attempt += 1
            assert rng.value(seed, n, 6) == x % 6
