"""The campaign's trust settings (audit.review.trust): an admin's act,
checked, kept between calls; the upper end of the 95% Wilson interval that
the settlement rule and the queue embed as SQL, against statsmodels."""
from __future__ import annotations

import duckdb
import pytest
from statsmodels.stats.proportion import proportion_confint

from audit.accounts import add_account
from audit.errors import InputError, PermissionDeniedError
from audit.review.trust import TrustSettings, get_trust, set_trust, trust_settings, wilson_upper_sql

PW = "a long password 1"


@pytest.mark.parametrize("k,n", [(0, 1), (11, 20), (12, 20), (13, 20), (29, 30), (30, 30), (447, 657)])
def test_the_wilson_bound_in_sql_is_statsmodels(k, n):
    got = duckdb.connect().execute(f"SELECT {wilson_upper_sql('k', 'n')} FROM (SELECT ?::BIGINT AS k, "
                                   "?::BIGINT AS n)", [k, n]).fetchone()[0]
    assert got == pytest.approx(proportion_confint(k, n, alpha=0.05, method="wilson")[1], abs=1e-12)


def test_one_wrong_first_answer_would_flag_anyone():
    # why the flag waits for flag_min_gold answers: 0 of 1 has an upper end just below 0.8
    high = proportion_confint(0, 1, alpha=0.05, method="wilson")[1]
    assert high < TrustSettings().flag_below and TrustSettings().flag_min_gold > 1


def test_settings_are_an_admins_act_checked_and_kept(db_path):
    assert get_trust(db=db_path) == TrustSettings()
    add_account("Admin Nyima", PW, db=db_path)
    add_account("Lead Dolkar", PW, role="lead", actor="Admin Nyima", db=db_path)
    with pytest.raises(PermissionDeniedError):
        set_trust(rule="weighted", actor="Lead Dolkar", db=db_path)
    with pytest.raises(InputError, match="unknown settlement rule"):
        set_trust(rule="majority", actor="Admin Nyima", db=db_path)
    with pytest.raises(InputError, match="below 0.5"):
        set_trust(threshold=0.4, actor="Admin Nyima", db=db_path)
    with pytest.raises(InputError, match="unknown trust setting"):
        set_trust(colour="red", actor="Admin Nyima", db=db_path)
    s = set_trust(rule="weighted", allow_lone=True, threshold=1, actor="Admin Nyima", db=db_path)
    assert (s.rule, s.allow_lone, s.threshold) == ("weighted", True, 1.0) and isinstance(s.threshold, float)
    # the others keep their value; without changes, the settings are shown and nothing is asked
    s2 = trust_settings(flag_below=0.7, actor="Admin Nyima", db=db_path)
    assert (s2.rule, s2.flag_below) == ("weighted", 0.7)
    assert trust_settings(db=db_path) == s2 == get_trust(db=db_path)
