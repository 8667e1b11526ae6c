"""Evidence: statistics of runs (means and Student-t intervals, ratios of paired
runs: ``stats``), the rules that turn intervals into verdicts (holds / does not hold /
inconclusive: ``verdict``) and the analytical TCP throughput models the baseline is
checked against (``models``). Pure computation on numbers and tables."""
