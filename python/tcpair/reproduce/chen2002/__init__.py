"""Chen et al. 2002 (Syndrome): Figs. 10-13 (``figs10_13``: Reno, Snoop, ELN-Snoop
and Syndrome against loss, duplication and a two-state channel; their claims in
``claims``) and Fig. 14 (``fig14``: hand-offs; its measures from the stored traces in
``fig14_traces``, its claims in ``fig14_claims``)."""
