"""`python -m ragmeter.cli`, as the `ragmeter` script."""

from ragmeter.cli.app import main

if __name__ == "__main__":
    main()
