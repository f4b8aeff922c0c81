"""Bean data (R1, R2, R5): counts, beanometers, bosses. Data only; keep the table in one place (A1)."""

# Bean codes in the order of docs/protocol.md §1, with their card counts (R1).
COUNTS = {"BL": 20, "KI": 19, "FI": 18, "PU": 16, "BR": 16, "FR": 14, "RU": 13}
BEANS = tuple(COUNTS)
DECK_SIZE = sum(COUNTS.values())  # 116

NAMES_EN = {"BL": "Blue", "KI": "Kidney", "FI": "Fire", "PU": "Puff", "BR": "Broad", "FR": "French",
            "RU": "Runner"}
NAMES_DE = {"BL": "Blaue Bohne", "KI": "Kidneybohne", "FI": "Feuerbohne", "PU": "Puffbohne",
            "BR": "Saubohne", "FR": "Brechbohne", "RU": "Stangenbohne"}

# R2: how many cards of a type earn 1, 2, 3, 4 coins. KI is 5/6/7/8 by decision A1 (check a real card).
BEANOMETER = {
    "BL": (4, 6, 8, 10),
    "KI": (5, 6, 7, 8),
    "FI": (3, 6, 8, 9),
    "PU": (4, 5, 6, 7),
    "BR": (3, 5, 7, 8),
    "FR": (3, 5, 6, 7),
    "RU": (3, 4, 5, 6),
}

# Bosses in seating order; Joe exists only in solo (R6). Harvest thresholds in coins (R5).
BOSSES = ("al", "don", "joe")
BOSS_NAMES = {"al": "Al Cabohne", "don": "Don Corlebohne", "joe": "Joe Bohnano"}
THRESHOLD = (3, 2, 1)
BOSS_COUNT = {"duo": 2, "solo": 3}
SEATS = {"duo": 2, "solo": 1}

THIRD_FIELD_COST = 4  # R40

# R3 as a lookup table: _COINS[bean][n] for n up to the last threshold; larger n pays 4.
_COINS = {
    bean: tuple(sum(1 for t in steps if t <= n) for n in range(steps[-1] + 1))
    for bean, steps in BEANOMETER.items()
}


def coins(bean: str, n: int) -> int:
    """Return the coins a harvest of `n` cards of `bean` earns (R3): thresholds <= n, capped at 4."""
    table = _COINS[bean]
    return table[n] if n < len(table) else 4
