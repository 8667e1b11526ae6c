"""Stojcevska and Popov (packet pairing, Prompt Recovery): the throughput tables and
formula (7) (``tables``), fairness (``fairness``) and the range of improvement over
plain TCP (``improvement``)."""
