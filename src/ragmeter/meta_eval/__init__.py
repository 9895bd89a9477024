"""`ragmeter meta-eval LABELS --metric M --judge J`: how well does this judge agree with people?

The work is in `agreement.py`; this package re-exports its public names."""

from ragmeter.meta_eval.agreement import (  # noqa: F401 - the package's public face
    MetaEvalResult,
    balanced_accuracy,
    balanced_sample,
    bootstrap_ci,
    cohen_kappa,
    kendall_tau_b,
    load_labelled,
    meta_evaluate,
    pearson,
    print_meta_eval,
    ranks,
    roc_auc,
    spearman,
    word_overlap,
    words,
)

__all__ = ["MetaEvalResult", "balanced_accuracy", "balanced_sample", "bootstrap_ci", "cohen_kappa", "kendall_tau_b",
           "load_labelled", "meta_evaluate", "pearson", "print_meta_eval", "ranks", "roc_auc", "spearman",
           "word_overlap", "words"]
