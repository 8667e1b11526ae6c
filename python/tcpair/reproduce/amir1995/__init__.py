"""Amir et al. 1995 (Snoop): Fig. 3, the throughput of TCP with and without the
snooping base station against the bit-error rate (target ``snoop_fig3``; its claims
in ``fig3_claims``)."""
