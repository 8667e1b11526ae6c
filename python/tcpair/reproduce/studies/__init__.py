"""Our own studies, beside the papers: the baseline against the PFTK and Mathis
models (``baseline``), every scheme side by side (``compare_all``, with its plan,
deployment table and plots), every detector against every responder
(``detector_matrix``) and the adaptive responder (``adaptive_responder``)."""
