"""pass@k and pass^k from n trials of which c passed (unbiased estimators)."""

from math import comb


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k trials drawn from the n passes."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"need 0 < k <= n and 0 <= c <= n, got n={n} c={c} k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Chance that all k trials drawn from the n pass: reliability, not luck."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"need 0 < k <= n and 0 <= c <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)
