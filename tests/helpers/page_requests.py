"""Every request a page has made so far, without waiting for its network to go quiet.

The `page` fixture (tests/browser/conftest.py) records each request the page makes in
page.requests_seen. A test that checks that nothing left the site needs all of them: rather than
Playwright's "networkidle" (no request for 500 ms, which a busy machine may never give in its
30 s), the page asks for one more file, its own style sheet under a query of its own, and once
that request is seen, every request the page made before it has been seen too: Playwright reports
a page's requests in the order it makes them.
"""

from __future__ import annotations

from itertools import count

MARK = "requests-until-now"
_marks = count(1)


def requests_until_now(page) -> list[str]:
    """page.requests_seen once every request made before this call is in it (the marker left out)."""
    query = f"{MARK}={next(_marks)}"
    with page.expect_request(lambda request: query in request.url):
        page.evaluate("""(query) => {
            const sheet = document.querySelector('link[rel=stylesheet]');
            fetch(`${sheet.href}${sheet.href.includes('?') ? '&' : '?'}${query}`).catch(() => {});
        }""", query)
    return [url for url in page.requests_seen if MARK not in url]
