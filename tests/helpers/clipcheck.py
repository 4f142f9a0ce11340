"""What a reader cannot read whole in the bench, found in one page.evaluate (CLIPPED).

A text is cut when a box that hides its overflow ends before the text does: an ancestor with
`overflow: hidden` or `clip` (on either axis) whose padding box the text's own line boxes cross, an
element that shortens its text with `text-overflow: ellipsis`, a menu (`<select>`) narrower than
its chosen option, or an SVG word past its drawing's viewBox. A word the drawing shortens itself
(machine.js's fitTexts, which gives the cut word the whole one as its `<title>`) is cut too unless
the whole word would not fit the width it was fitted to. Texts hidden on purpose are left out: the
visually hidden ones (a 1 px box clipped to nothing, for screen readers), anything not rendered or
fully transparent (the tape's rows cut whole at its top edge are, tape.js), and what lies wholly
outside the window (a skip link parked off screen).

It also reads the tape's height against its rows: the tape is squeezed when its box is shorter
than one and a half of its rows (CLIPPED's `tape`), and two texts of the bench's head and rail
drawn over each other (CLIPPED's `overlaps`).

The same script serves tests/browser/test_clip_sweep.py and the screenshots' notes.
"""

from __future__ import annotations

# The parts of the page the sweep reads: the bench (in the page, the sheet and the embed), the
# phone's bar and an open dialog.
SCOPE = "#b, .b-strip, dialog[open]"

CLIPPED = r"""(scope) => {
    const out = { cut: [], tape: null, overlaps: [] };
    const where = (e) => {
        const c = typeof e.className === 'string' ? e.className : (e.className && e.className.baseVal) || '';
        return `${e.tagName.toLowerCase()}${c ? '.' + c.trim().split(/\s+/).join('.') : ''}`;
    };
    // Each element's style and clipping box read once (a text node's ancestors are shared by its neighbours).
    const styles = new Map(), clips = new Map();
    const styleOf = (e) => { let s = styles.get(e); if (!s) styles.set(e, s = getComputedStyle(e)); return s; };
    const clipBox = (a) => {
        let c = clips.get(a);
        if (c === undefined) {
            const s = styleOf(a);
            const x = ['hidden', 'clip'].includes(s.overflowX), y = ['hidden', 'clip'].includes(s.overflowY);
            c = null;
            if (x || y) {
                const r = a.getBoundingClientRect();
                c = { x, y, left: r.left + a.clientLeft, top: r.top + a.clientTop };
                c.right = c.left + a.clientWidth; c.bottom = c.top + a.clientHeight;
            }
            clips.set(a, c);
        }
        return c;
    };
    const say = (e, text, why) => out.cut.push(`${where(e)} "${text.trim().replace(/\s+/g, ' ').slice(0, 40)}": ${why}`);
    // Hidden on purpose: not rendered, transparent, or a visually hidden box (1 px, clipped).
    const purposelyHidden = (e) => {
        for (let a = e; a && a.nodeType === 1; a = a.parentElement) {
            const s = styleOf(a);
            if (s.opacity === '0' || s.visibility !== 'visible' && a === e) return true;
            if (s.clip && s.clip !== 'auto' && s.position === 'absolute') return true;
            if (a.classList && a.classList.contains('visually-hidden')) return true;
        }
        return false;
    };
        const outsideWindow = (r) => r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight;
    const roots = [...document.querySelectorAll(scope)].filter((r) => r.checkVisibility({ visibilityProperty: true }) || r.querySelector('svg'));

    // 1. HTML text: each text node's line boxes against every ancestor that hides its overflow.
    const range = document.createRange();
    for (const root of roots) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const e = n.parentElement;
            if (!n.textContent.trim() || !e || e.closest('svg, select, option, script, style, template, title')) continue;
            if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true }) || purposelyHidden(e)) continue;
            range.selectNodeContents(n);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
            if (!rects.length) continue;
            const box = { left: Math.min(...rects.map((r) => r.left)), right: Math.max(...rects.map((r) => r.right)),
                          top: Math.min(...rects.map((r) => r.top)), bottom: Math.max(...rects.map((r) => r.bottom)) };
            if (outsideWindow(box)) continue;
            if (styleOf(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 0.5) { say(e, n.textContent, 'ellipsis'); continue; }
            for (let a = e; a && a !== document.documentElement; a = a.parentElement) {
                const c = clipBox(a);
                if (!c) continue;
                // Half a pixel of slack for the glyphs' own rounding; overflow-x alone cuts sideways only.
                const over = (c.x && (box.left < c.left - 0.5 || box.right > c.right + 0.5))
                          || (c.y && (box.top < c.top - 0.5 || box.bottom > c.bottom + 0.5));
                if (over) {
                    say(e, n.textContent, `cut by ${where(a)} (${Math.round(box.right - box.left)}x${Math.round(box.bottom - box.top)} in ${Math.round(c.right - c.left)}x${Math.round(c.bottom - c.top)})`);
                    break;
                }
            }
        }
    }

    // 2. Menus: the chosen option's text against the menu's own width (its padding and arrow
    // measured on the menu itself, laid out at its natural width for a moment).
    const canvas = document.createElement('canvas').getContext('2d');
    for (const root of roots) {
        for (const sel of root.querySelectorAll('select')) {
            if (!sel.checkVisibility({ visibilityProperty: true }) || purposelyHidden(sel) || sel.selectedIndex < 0) continue;
            const s = getComputedStyle(sel);
            canvas.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
            const widths = [...sel.options].map((o) => canvas.measureText(o.text).width);
            const width = sel.getBoundingClientRect().width;
            const saved = sel.getAttribute('style');
            sel.style.cssText += ';width:auto !important;min-width:0 !important;max-width:none !important;flex:none !important';
            const natural = sel.getBoundingClientRect().width;
            if (saved === null) sel.removeAttribute('style'); else sel.setAttribute('style', saved);
            const chrome = natural - Math.max(...widths);  // padding, border and arrow
            const needs = widths[sel.selectedIndex] + chrome;
            if (width < needs - 0.5) say(sel, sel.options[sel.selectedIndex].text, `menu ${width.toFixed(1)} px of ${needs.toFixed(1)}`);
        }
    }

    // 3. Drawings: each word inside its viewBox, and a word the page shortened only where the
    // whole one would not fit the width it was fitted to (fitTexts: data-fit-width).
    for (const root of roots) {
        for (const svg of root.querySelectorAll('svg')) {
            if (!svg.checkVisibility({ visibilityProperty: true }) || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width || !svg.getScreenCTM()) continue;
            const vb = svg.viewBox.baseVal;
            for (const t of svg.querySelectorAll('text')) {
                if (!t.textContent.trim() || !t.checkVisibility({ visibilityProperty: true }) || purposelyHidden(t)) continue;
                if (getComputedStyle(t).display === 'none' || t.closest('.b-off, [visibility=hidden]')) continue;
                let b;
                try { b = t.getBBox(); } catch { continue; }
                if (!b.width) continue;
                // The word's box in the drawing's own units (through any transform of its groups).
                const m = svg.getScreenCTM().inverse().multiply(t.getScreenCTM());
                const corners = [[b.x, b.y], [b.x + b.width, b.y + b.height]].map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
                const [lo, hi] = corners;
                const shown = [...t.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join('');
                if (lo.x < vb.x - 0.5 || hi.x > vb.x + vb.width + 0.5 || lo.y < vb.y - 0.5 || hi.y > vb.y + vb.height + 0.5)
                    say(t, shown, `past the viewBox of ${where(svg)} (${lo.x.toFixed(1)}..${hi.x.toFixed(1)} of ${vb.x}..${vb.x + vb.width})`);
                const whole = t.querySelector('title');
                if (whole && t.dataset.fitWidth && shown.endsWith('…')) {
                    const keep = t.textContent;
                    const kids = [...t.childNodes];
                    t.textContent = whole.textContent;
                    const needs = t.getComputedTextLength();
                    t.replaceChildren(...kids);
                    if (t.textContent !== keep) t.textContent = keep;
                    if (needs <= Number(t.dataset.fitWidth) + 0.01) say(t, shown, `shortened though "${whole.textContent}" fits (${needs.toFixed(1)} of ${t.dataset.fitWidth})`);
                }
            }
        }
    }

    // 4. The tape: its box against its rows (one row: a token's box, or a line of its text).
    const tape = document.querySelector('#b .b-tape');
    if (tape && tape.checkVisibility()) {
        const tok = tape.querySelector('.b-tok');
        const row = tok ? tok.getBoundingClientRect().height : parseFloat(getComputedStyle(tape).lineHeight) || 20;
        const s = getComputedStyle(tape);
        const room = tape.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
        // Its rows, cut ones included: a tape holding less than its box has room for is not squeezed.
        const lis = [...tape.children].map((li) => li.getBoundingClientRect());
        const held = lis.length ? Math.max(...lis.map((r) => r.bottom)) - Math.min(...lis.map((r) => r.top)) : 0;
        out.tape = { room, row, rows: room / row, squeezed: room < 1.5 * row - 0.5 && held > room + 0.5 };
    }

    // 5. Texts of the bench's head and rail (beside the machine) drawn over each other.
    const leaves = [...document.querySelectorAll('#b .b-head *, #b .b-rail *, .b-strip *')].filter((e) => {
        if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true }) || purposelyHidden(e)) return false;
        if (e.closest('svg, .b-tape')) return false;
        // A control fixed over a sheet that scrolls (its close button) floats over the text by design.
        for (let f = e; f && f !== document.body; f = f.parentElement) if (getComputedStyle(f).position === 'fixed' && f.matches('button')) return false;
        return [...e.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()) || ['BUTTON', 'A', 'SUMMARY'].includes(e.tagName);
    });
    // A control's own box; a text's, the union of its line boxes (a heading padded for a button fixed over it is not covered).
    const textBox = (e) => {
        if (['BUTTON', 'A', 'SUMMARY'].includes(e.tagName)) return e.getBoundingClientRect();
        const rects = [...e.childNodes].filter((c) => c.nodeType === 3 && c.textContent.trim())
            .flatMap((c) => { range.selectNodeContents(c); return [...range.getClientRects()]; }).filter((r) => r.width > 0.5);
        if (!rects.length) return { width: 0, height: 0 };
        return { left: Math.min(...rects.map((r) => r.left)), right: Math.max(...rects.map((r) => r.right)),
                 top: Math.min(...rects.map((r) => r.top)), bottom: Math.max(...rects.map((r) => r.bottom)), width: 2, height: 2 };
    };
    const boxes = leaves.map((e) => [e, textBox(e)]).filter(([, r]) => r.width > 1 && r.height > 1);
    for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
            const [a, ra] = boxes[i], [b, rb] = boxes[j];
            if (a.contains(b) || b.contains(a)) continue;
            const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left), h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
            if (w > 1 && h > 1) out.overlaps.push(`${where(a)} "${a.textContent.trim().slice(0, 24)}" over ${where(b)} "${b.textContent.trim().slice(0, 24)}" (${w.toFixed(0)}x${h.toFixed(0)})`);
        }
    }
    return out;
}"""
