"""The foundation every layer stands on: plain-data checks and user-terms messages
(``plain``), the shipped files' paths (``paths``), file permissions (``perms``), the
plug-in search folders (``plugin_dirs``) and a TOML writer (``tomlout``). Imports
nothing of tcpair but ``tcpair._errors``."""
