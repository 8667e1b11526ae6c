"""Park et al. 2010: the loss-differentiation algorithms' accuracy of Fig. 1
(``accuracy``; its measures in ``accuracy_measures``, its claims in
``accuracy_claims``) and the fifteen responding methods on the wireless-loss (W) and
congestion (C) chains (``respond``, shared by ``respond_w`` and ``respond_c``)."""
