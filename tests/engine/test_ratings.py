"""The FIBS rating formula: worked examples computed by hand, and its properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.ratings import FibsRatings, Rating

FIBS = FibsRatings()


def test_one_point_match_between_new_equal_players() -> None:
    # D = 0: P_upset = 1/(10^0 + 1) = 0.5, P = 0.5; K = 5 with no experience; change = 4·5·√1·0.5 = 10.
    winner, loser = FIBS.update(Rating(1500, 0), Rating(1500, 0), 1)
    assert winner == Rating(1510, 1) and loser == Rating(1490, 1)


def test_five_point_match_won_by_the_underdog() -> None:
    # Winner 1500 (experience 0, K = 5) beats 1600 (experience 500, K = 1) over 5 points.
    # D = 100: 10^(100·√5/2000) = 10^0.111803 = 1.293569; P_upset = 1/2.293569 = 0.436002; P = 0.563998.
    # Gain = 4·5·√5·0.563998 = 25.2228; loss = 4·1·√5·0.563998 = 5.0446.
    winner, loser = FIBS.update(Rating(1500, 0), Rating(1600, 500), 5)
    assert winner.rating == pytest.approx(1525.2228, abs=1e-3)
    assert loser.rating == pytest.approx(1594.9554, abs=1e-3)
    assert (winner.experience, loser.experience) == (5, 505)


def test_eleven_point_match_won_by_the_favourite() -> None:
    # 1700 beats 1500, both experienced (K = 1). D = 200: 10^(200·√11/2000) = 10^0.331662 = 2.145839;
    # P_upset = 1/3.145839 = 0.317880 = P; change = 4·√11·0.317880 = 4.21715.
    winner, loser = FIBS.update(Rating(1700, 1000), Rating(1500, 1000), 11)
    assert winner.rating == pytest.approx(1704.21715, abs=1e-3)
    assert loser.rating == pytest.approx(1495.78285, abs=1e-3)


def test_k_factor_falls_from_five_to_one_at_400_experience() -> None:
    assert FIBS.k_factor(0) == 5 and FIBS.k_factor(200) == 3 and FIBS.k_factor(400) == 1 and FIBS.k_factor(9000) == 1


def test_money_play_is_not_rated() -> None:
    with pytest.raises(ValueError, match="money play is unrated"):
        FIBS.update(Rating(), Rating(), 0)


ratings = st.floats(800, 2400)
experience = st.integers(0, 5000)
lengths = st.integers(1, 25)


@given(ratings, ratings, experience, lengths)
def test_zero_sum_when_experience_is_equal(a: float, b: float, exp: int, n: int) -> None:
    w, lo = FIBS.update(Rating(a, exp), Rating(b, exp), n)
    assert (w.rating - a) == pytest.approx(b - lo.rating)


@given(ratings, ratings, lengths)
def test_symmetric_in_the_two_players(a: float, b: float, n: int) -> None:
    assert FIBS.win_probability(a, b, n) + FIBS.win_probability(b, a, n) == pytest.approx(1.0)
    gain_ab, loss_ab = FIBS.change(Rating(a, 500), Rating(b, 500), n)
    gain_ba, loss_ba = FIBS.change(Rating(b, 500), Rating(a, 500), n)
    # Beating a stronger player is worth exactly what the stronger player would have won, reversed.
    assert gain_ab + gain_ba == pytest.approx(4 * math.sqrt(n))


@given(ratings, ratings, experience, experience, lengths)
def test_changes_are_bounded_and_the_winner_never_loses(a: float, b: float, ea: int, eb: int, n: int) -> None:
    gain, loss = FIBS.change(Rating(a, ea), Rating(b, eb), n)
    assert 0 <= gain <= 4 * 5 * math.sqrt(n) and 0 <= loss <= 4 * 5 * math.sqrt(n)
