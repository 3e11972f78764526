"""Reports: the HTML ROC-change report and the prose and pages of the commands' reports.

:mod:`~penlearn.report.roc_report` writes the self-contained HTML ROC-change report of
penalty predictions (:func:`roc_change_report`, with :func:`errors_at_predictions` and
:func:`summary_table`); :mod:`~penlearn.report.demo_notes` holds the paragraphs of the
``penlearn demo`` report (what learning did, with the run's numbers);
:mod:`~penlearn.report.joint_page` the HTML page of ``penlearn joint`` (the peaks ×
samples matrix, the summary, the label errors).
"""

from penlearn.report.roc_report import (
    best_constant_log_lambda,
    errors_at_predictions,
    roc_change_report,
    summary_table,
)

__all__ = ["best_constant_log_lambda", "errors_at_predictions", "roc_change_report",
           "summary_table"]
