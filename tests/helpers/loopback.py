"""A folder served on a loopback port of a test's own, with the site's production headers
(sitebuild.serve): for a test that needs a server the session's `site_url` is not (a copy it
rebuilds, a handler that holds or drops answers, a server it stops to go offline)."""

from __future__ import annotations

import threading
from pathlib import Path

from sitebuild.serve import make_server


class LoopbackSite:
    """root on 127.0.0.1 at a free port, from construction until close() (or the end of a `with`):
    `url` is its address with the prefix ('http://127.0.0.1:PORT/' by default). handler and
    prefix are make_server's."""

    def __init__(self, root: Path, handler=None, prefix: str = "/"):
        self.server = make_server(Path(root), "127.0.0.1", 0, verbose=False, handler=handler, prefix=prefix)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{prefix}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.serving = True

    def close(self) -> None:
        """Stop serving: every later request to the address is refused (as with the network off)."""
        if self.serving:
            self.server.shutdown()
            self.server.server_close()
            self.serving = False

    def __enter__(self) -> LoopbackSite:
        return self

    def __exit__(self, *_) -> None:
        self.close()
