"""pass@k and pass^k against hand-computed values."""

import pytest

from golden.evals.passk import pass_at_k, pass_hat_k


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [
        (5, 2, 2, 1 - 3 / 10, 1 / 10),  # C(3,2)=3, C(5,2)=10, C(2,2)=1
        (4, 3, 1, 3 / 4, 3 / 4),  # with k=1 both are the pass rate
        (3, 3, 3, 1.0, 1.0),
        (3, 0, 3, 0.0, 0.0),
        (3, 1, 3, 1.0, 0.0),  # k=n: any pass vs all pass
        (10, 5, 3, 1 - 10 / 120, 10 / 120),  # C(5,3)=10, C(10,3)=120
    ],
)
def test_hand_computed(n, c, k, at_k, hat_k):
    assert pass_at_k(n, c, k) == pytest.approx(at_k)
    assert pass_hat_k(n, c, k) == pytest.approx(hat_k)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 1, 4), (3, 4, 2), (3, 1, 0)])
def test_impossible_counts_are_refused(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)
