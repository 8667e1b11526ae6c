"""Reports: the HTML pages of a results store and of ``tcpair reproduce``.

- ``site``: builds the pages and the index, drawing pages in worker processes;
- ``analysis``: runs a target's analysis over its sweep (figures and claims);
- ``page``, ``index_page``: one target's page and the index, as HTML;
- ``plotting``, ``metrics``: figures of a store (``tcpair plot``) and metric labels.
"""
