"""dtdecide: decision trees that make business decisions.

Decision matrices of profit, loss or revenue, case-level costs, priors, a decision
engine for any model's posteriors, profit trees with one decision per leaf,
profit-driven pruning, exports (leaf tables, rules, SQL) and profit charts; policy
trees from logged campaigns, and decisions under a capacity or a budget.

Public objects are imported lazily so that ``import dtdecide`` stays cheap and
optional dependencies (matplotlib) are only loaded when a plot is asked for.
"""

from importlib import import_module

__version__ = "0.1.0.dev0"

# public name -> submodule that defines it
_PUBLIC = {
    # decision engine
    "DecisionMatrix": "dtdecide.decision",
    "DecisionResult": "dtdecide.decision",
    "decide": "dtdecide.decision",
    "adjust_posteriors": "dtdecide.decision",
    "DecisionEstimator": "dtdecide.decision",
    "make_profit_scorer": "dtdecide.decision",
    "mean_costs": "dtdecide.decision",
    # trees
    "ProfitTreeClassifier": "dtdecide.tree",
    "ProfitTreeRegressor": "dtdecide.tree",
    "UnseenCategoryWarning": "dtdecide.tree",
    "IdentifierColumnWarning": "dtdecide.tree",
    "PruningStudy": "dtdecide.tree",
    "PruningStudyDisplay": "dtdecide.tree",
    "select_subtree": "dtdecide.tree",
    "best_subtrees_by_size": "dtdecide.tree",
    "best_subtree_of_size": "dtdecide.tree",
    "fit_recommended": "dtdecide.tree",
    "recommended_candidates": "dtdecide.tree",
    # policies learnt from logged campaigns
    "PolicyTree": "dtdecide.policy",
    "policy_rewards": "dtdecide.policy",
    "make_logged_campaign": "dtdecide.policy",
    "policy_value": "dtdecide.policy",
    # benefit- and cost-based classifiers
    "benefit_curve": "dtdecide.models",
    "benefit_metric": "dtdecide.models",
    "best_benefit_threshold": "dtdecide.models",
    "benefit_from_confusion": "dtdecide.models",
    "benefit_score": "dtdecide.models",
    "benefit_eta": "dtdecide.models",
    "one_vs_rest_benefits": "dtdecide.models",
    "BenefitWeightedLogisticRegression": "dtdecide.models",
    "CostSensitiveNaiveBayes": "dtdecide.models",
    "FlatCostSensitiveClassifier": "dtdecide.models",
    "HierarchicalCostSensitiveClassifier": "dtdecide.models",
    "make_kernel_logistic_regression": "dtdecide.models",
    "hierarchical_cost_parameters": "dtdecide.models",
    # assessment: profit charts, thresholds, comparison, what-if, rare classes
    "profit_curve": "dtdecide.assess",
    "profit_curves": "dtdecide.assess",
    "ProfitCurveDisplay": "dtdecide.assess",
    "plot_profit_curves": "dtdecide.assess",
    "best_depth": "dtdecide.assess",
    "best_threshold": "dtdecide.assess",
    "binary_threshold": "dtdecide.assess",
    "diagonal_form": "dtdecide.assess",
    "equivalent_priors": "dtdecide.assess",
    "compare_models": "dtdecide.assess",
    "ImplicitDoNothingWarning": "dtdecide.assess",
    "redecide": "dtdecide.assess",
    "what_if": "dtdecide.assess",
    "what_if_curves": "dtdecide.assess",
    "balanced_sample": "dtdecide.assess",
    "misclassification_rates": "dtdecide.assess",
    "uplift_curve": "dtdecide.assess",
    "UpliftCurveDisplay": "dtdecide.assess",
    # exports: leaf tables, rules, SQL, pictures, persistence
    "leaf_table": "dtdecide.export",
    "write_leaf_table": "dtdecide.export",
    "read_leaf_table": "dtdecide.export",
    "export_rules": "dtdecide.export",
    "to_sql": "dtdecide.export",
    "plot_tree": "dtdecide.export",
    "export_graphviz": "dtdecide.export",
    "export_html": "dtdecide.export",
    "variable_importance": "dtdecide.export",
    "plot_variable_importance": "dtdecide.export",
    "save": "dtdecide.export",
    "load": "dtdecide.export",
    "score_file": "dtdecide.export",
    # bundled data
    "load_bank_marketing": "dtdecide.datasets",
    # package settings (progress bars and other defaults)
    "config_context": "dtdecide._config",
    "get_config": "dtdecide._config",
    "set_config": "dtdecide._config",
}

__all__ = sorted([*_PUBLIC, "__version__"])


def __getattr__(name):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'dtdecide' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
