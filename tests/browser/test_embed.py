"""The embed route inside an iframe, as a course platform would show it."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_embed_reports_its_height_to_the_parent(page, site_url):
    page.goto(site_url)  # a same-origin parent page to hold the frame
    page.evaluate(
        """(src) => {
            window.heights = [];
            window.addEventListener('message', (e) => {
              if (e.data && e.data.subject === 'lti.frameResize') window.heights.push(e.data.height);
            });
            const frame = document.createElement('iframe');
            frame.src = src;
            frame.width = 400;
            frame.height = 300;
            document.body.append(frame);
        }""",
        f"{site_url}embed/zh/specdec/",
    )
    frame = page.frame_locator("iframe")
    expect(frame.locator("h1")).to_be_visible()
    expect(frame.locator(".site-header")).to_have_count(0)
    # Wait for the report (not a fixed time); it fails here if no height above 1000 px comes.
    page.wait_for_function("() => window.heights.some((h) => h > 1000)")
    heights = page.evaluate("() => window.heights")
    assert heights and max(heights) > 1000


def test_full_page_refuses_foreign_framing_but_embed_allows_it(page, site_url):
    full = page.request.get(f"{site_url}en/specdec/").headers["content-security-policy"]
    embed = page.request.get(f"{site_url}embed/en/specdec/").headers["content-security-policy"]
    assert "frame-ancestors 'self'" in full
    assert "frame-ancestors *" in embed
    for policy in (full, embed):
        assert "script-src 'self' 'wasm-unsafe-eval'" in policy
