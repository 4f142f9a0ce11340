"""One exception type for every input the build refuses, so build.py can report it plainly."""


class BuildError(Exception):
    """Bad content, corpus or configuration, with the file (and line) at fault in the message."""
