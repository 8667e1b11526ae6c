"""``python3 -m tcpair``: the CLI without relying on a console-script shim."""

from tcpair.cli.main import main

if __name__ == "__main__":
    main()
