"""dtdecide.policy: deciding from a logged campaign.

Rewards of every decision from logged decisions and outcomes (doubly robust, inverse
propensity weighting, direct method; cross-fitted nuisance models), a policy tree grown on
them as case-specific consequences of a profit tree, and the value of any policy on
held-out logged data with confidence intervals. A policy tree decides under a capacity
or a budget too (:meth:`PolicyTree.decide`, :meth:`PolicyTree.capacity_plan`), and its
fitted profit tree (``profit_tree_``) exports as any other: leaf tables, rules, SQL.
"""

from ._estimator import PolicyTree
from ._rewards import Rewards, policy_rewards
from ._simulate import make_logged_campaign
from ._value import policy_decisions, policy_value

__all__ = [
    "PolicyTree",
    "Rewards",
    "make_logged_campaign",
    "policy_decisions",
    "policy_rewards",
    "policy_value",
]
