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
drawn over each other (CLIPPED's `overlaps`); the launcher's bar (LAUNCHER_SCOPE) is read as the
bench's head is.

A text or control is covered when another box is drawn over it, from the bench or the page
around it (the Play row's box over a rail squeezed under its content, say): COVERED, which
CLIPPED runs too (its `covered`), asks the browser's own hit test what is drawn on top at a few
points of each text's line boxes and each control's box, where a reader could see them, and
names any element that draws there and is neither the text's own nor the box it is drawn on.
What covers on purpose is left out (ON_PURPOSE: the settings opened over the machine, the status
box while Python starts, a sheet's or a dialog's controls kept in view over what scrolls under
them, the skip links, an open dialog over the rest); so are the drawings' words, which their
shapes lie under and over by design.

Dark mode changes colours and nothing else (tests/sitebuild/test_colour_scheme.py): TEXT_BOXES
reads where every text is drawn, for a test to find the same boxes in both schemes, and FAINT
finds a text drawn in (nearly) the colour it is drawn on; in_dark runs both in both schemes.

The same scripts serve tests/browser/test_clip_sweep.py, the launcher's sweep in
tests/browser/test_course_package.py, tests/browser/test_viewport_matrix.py (COVERED in every tab
beside the text, CLIPPED with a link's state).
"""

from __future__ import annotations

# The parts of the page the sweep reads: the bench (in the page, the sheet and the embed), the
# phone's bar and an open dialog.
SCOPE = "#b, .b-strip, dialog[open]"
# The course package's launcher (sitebuild/course/launcher/): its bar over the embed's frame.
LAUNCHER_SCOPE = ".launcher__bar"
# The least contrast a text may have with what it is drawn on (WCAG's ratio, 1 to 21): under it
# the text is hidden by its colours. WCAG's floor for large text; axe-core holds the page's body
# text to 4.5 (tests/browser/test_themes.py).
LEAST_CONTRAST = 3.0
# Two animation frames: what a resize or a new scheme changes is laid out and drawn.
FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"

# Hidden on purpose: not rendered, transparent, or a visually hidden box (1 px, clipped). Given
# the page's getComputedStyle (or a cache of it), the test of one element.
PURPOSELY_HIDDEN = r"""(styleOf) => (e) => {
    for (let a = e; a && a.nodeType === 1; a = a.parentElement) {
        const s = styleOf(a);
        if (s.opacity === '0' || s.visibility !== 'visible' && a === e) return true;
        if (s.position === 'absolute' && (s.clip && s.clip !== 'auto' || s.clipPath && s.clipPath !== 'none')) return true;
        if (a.classList && a.classList.contains('visually-hidden')) return true;
    }
    return false;
}"""

# What covers on purpose, and is no fault where it lies over a text or a control: the settings
# opened over the machine and the tape in a short window (frames.css, controls.js), the status
# box said over the machine while Python starts (gone at go-live), the sheet's close button fixed
# over the sheet's content as it scrolls, the "Embed this" dialog's row of Close, sticky at its
# foot over the rest of the dialog as it scrolls (dialog.css), and the page's skip links, which
# show over whatever is at the top of the window while focused. (An open dialog covers what is
# outside it: COVERED leaves that out too.)
ON_PURPOSE = '.b-controls[data-settings="open"] .b-settings, .b-status, .b-sheet-close, .embed-dialog__actions--end, .skip-link'

# The texts and controls of `scope` that another box is drawn over, as lines naming each, the
# box over it and how far the two overlap. Each text's line boxes and each control's boxes
# (a, button, select, input, summary, textarea) are sampled at their centre and two opposite
# corners inset 2 px, where a reader could see them (inside the window and inside every
# ancestor that clips or scrolls its overflow); `document.elementsFromPoint` lists what is drawn
# at each point, topmost first. The text or control is covered where, before it (or its own descendant, or an
# ancestor: the box it is drawn on) comes in that list, an element that draws there: a
# background (a colour not fully transparent, or an image), a replaced element or a form control,
# a shape of a drawing, or a text of its own whose line box holds the point. A box that draws
# nothing (a transparent wrapper, the launcher's menu made transparent over the name it shows)
# covers nothing. A word of a drawing (an SVG's text) is covered only by what lies outside that
# drawing (the Play row's box over the machine's foot): the drawing's own shapes lie under and
# over its words by design (CLIPPED's third check reads the words against the drawing's edge).
# Left out: texts hidden on purpose (PURPOSELY_HIDDEN; the tape's rows cut whole at its top edge
# are transparent), covers on purpose (ON_PURPOSE), and, while a
# dialog is open, what lies outside it. A cover is looked for among the scope's own elements and
# the siblings of its ancestors (the text beside the bench, the site's header), whose contents
# are taken to lie inside their boxes: a point no such box holds is not hit-tested. A box the hit
# test does not see (`pointer-events: none`) is not found.
COVERED = r"""(scope) => {
    const out = [];
    const styles = new Map();
    const styleOf = (e) => { let s = styles.get(e); if (!s) styles.set(e, s = getComputedStyle(e)); return s; };
    const purposelyHidden = (PURPOSELY_HIDDEN)(styleOf);
    const where = (e) => {
        const c = typeof e.className === 'string' ? e.className : (e.className && e.className.baseVal) || '';
        return `${e.tagName.toLowerCase()}${c ? '.' + c.trim().split(/\s+/).join('.') : ''}`;
    };
    const meet = (a, b) => ({ left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) });
    // What of an element's content a reader can see: the window, less what each ancestor (and
    // the element itself) that clips or scrolls its overflow hides; read once for each element.
    const insides = new Map();
    const inside = (e) => {
        if (!e || e === document.documentElement || e.nodeType !== 1) return { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
        let got = insides.get(e);
        if (got) return got;
        got = inside(e.parentElement);
        const s = styleOf(e);
        if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
            const r = e.getBoundingClientRect(), left = r.left + e.clientLeft, top = r.top + e.clientTop;
            got = meet(got, { left: s.overflowX === 'visible' ? -Infinity : left, right: s.overflowX === 'visible' ? Infinity : left + e.clientWidth,
                              top: s.overflowY === 'visible' ? -Infinity : top, bottom: s.overflowY === 'visible' ? Infinity : top + e.clientHeight });
        }
        insides.set(e, got);
        return got;
    };
    const owned = document.createRange();
    const holds = (r, x, y) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    const DRAWN = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'IMG', 'CANVAS', 'VIDEO', 'IFRAME', 'PROGRESS', 'METER', 'OBJECT', 'EMBED']);
    // A colour fully transparent: rgba()'s fourth number, or the alpha after a slash (oklch(… / 0)).
    const clear = (colour) => {
        const rgba = colour.match(/^rgba\((?:[^,]+,){3}\s*([\d.]+)\)$/);
        return colour === 'transparent' || (rgba ? Number(rgba[1]) === 0 : /\/\s*0(\.0*)?\)$/.test(colour));
    };
    // Whether `c` draws anything at (x, y).
    const draws = (c, x, y) => {
        if (!c.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
        if (DRAWN.has(c.tagName)) return true;
        if (c instanceof SVGElement && !['svg', 'g', 'a', 'switch'].includes(c.tagName.toLowerCase())) return true;
        const s = styleOf(c);
        if (s.backgroundImage !== 'none' || !clear(s.backgroundColor)) return true;
        for (const n of c.childNodes) {
            if (n.nodeType !== 3 || !n.textContent.trim()) continue;
            owned.selectNodeContents(n);
            if ([...owned.getClientRects()].some((r) => holds(r, x, y))) return true;
        }
        return false;
    };
    const dialog = document.querySelector('dialog[open]');
    const roots = [...document.querySelectorAll(scope)].filter((r) => r.checkVisibility({ visibilityProperty: true }));
    // The boxes that could be drawn over a text of the scope: each element of it (a drawing's
    // shapes lie inside its own box) and each sibling of its ancestors (the text beside the
    // bench, the site's header, the skip links: what they hold lies in their boxes), each filed
    // in the cells of a grid it meets. A point that no box holds but the text's own, its
    // descendants' and its ancestors' is drawn by them alone and needs no hit test (the hit
    // tests, tens of µs each, were nearly all the check's time: this leaves a third of them).
    const CELL = 64, cells = new Map();
    const cell = (x, y) => Math.floor(x / CELL) * 65536 + Math.floor(y / CELL);
    const file = (c) => {
        const r = meet(c.getBoundingClientRect(), inside(c.parentElement));  // (a tape's rows scrolled out of it draw nothing)
        if (r.right - r.left <= 0 || r.bottom - r.top <= 0) return;
        for (let x = r.left; x < r.right + CELL; x += CELL) {
            for (let y = r.top; y < r.bottom + CELL; y += CELL) {
                const k = cell(Math.min(x, r.right), Math.min(y, r.bottom));
                let l = cells.get(k);
                if (!l) cells.set(k, l = []);
                if (l[l.length - 1] !== c) l.push(c, r);
            }
        }
    };
    // (Above an ancestor raised over the page (the phone's sheet, z-index 20), only a box with a
    // place in the stacking order of its own can be drawn over it: the text under the sheet cannot.)
    const placed = (c) => styleOf(c).position !== 'static' || styleOf(c).zIndex !== 'auto';
    for (const root of roots) {
        file(root);
        for (const c of root.querySelectorAll('*')) if (!c.ownerSVGElement) file(c);
        let raised = false;
        for (let a = root; a.parentElement; a = a.parentElement) {
            raised = raised || placed(a) && parseInt(styleOf(a).zIndex, 10) > 0;
            for (const c of a.parentElement.children) if (c !== a && (!raised || placed(c))) file(c);
        }
    }
    const alone = (e, x, y) => {
        const l = cells.get(cell(x, y)) || [];
        for (let i = 0; i < l.length; i += 2) if (l[i] !== e && holds(l[i + 1], x, y) && !l[i].contains(e) && !e.contains(l[i])) return false;
        return true;
    };
    // The topmost element drawn over `e` at (x, y), or null; for a word of a drawing (`svg`), an
    // element outside that drawing.
    const coverAt = (e, x, y, svg) => {
        if (alone(e, x, y)) return null;
        // (The topmost element alone first: where it is the text's own or the box it is drawn
        // on, as nearly everywhere, the list under it is not needed.)
        const top = document.elementFromPoint(x, y);
        if (!top || top === e || e.contains(top) || top.contains(e)) return null;
        for (const c of document.elementsFromPoint(x, y)) {
            if (c === e || e.contains(c) || c.contains(e)) return null;
            if (svg && svg.contains(c)) continue;  // the drawing's own shapes, under and over its words by design
            if (c.closest(ON_PURPOSE) || dialog && dialog.contains(c) && !dialog.contains(e)) return null;
            // (The hit test may answer with a box that ends within a pixel of the point: not over it.)
            if (holds(c.getBoundingClientRect(), x, y) && draws(c, x, y)) return c;
        }
        return null;
    };
    // `e` covered in any of its boxes (`rects`, each cut to `room`): one line for it (and none
    // for a control whose text is already named).
    const named = [];
    const check = (e, text, rects, room, control, svg = null) => {
        if (control && named.some((n) => e.contains(n))) return;
        for (const rect of rects) {
            const v = meet(rect, room);
            const w = v.right - v.left, h = v.bottom - v.top;
            if (w < 1 || h < 1) continue;
            // Its centre and two opposite corners, inset 2 px: a box drawn over any of its edges
            // meets one of them, a box over its middle the centre (each hit test costs tens of µs:
            // the fourth and fifth point would add two thirds again for covers that come in at one
            // corner only).
            const dx = Math.min(2, w / 4), dy = Math.min(2, h / 4);
            const points = [[(v.left + v.right) / 2, (v.top + v.bottom) / 2], [v.left + dx, v.top + dy], [v.right - dx, v.bottom - dy]];
            for (const [x, y] of points) {
                const c = coverAt(e, x, y, svg);
                if (!c) continue;
                const r = c.getBoundingClientRect();
                const over = Math.min(v.bottom, r.bottom) - Math.max(v.top, r.top), across = Math.min(v.right, r.right) - Math.max(v.left, r.left);
                named.push(e);
                out.push(`${where(e)} "${text.trim().replace(/\s+/g, ' ').slice(0, 32)}" under ${where(c)} at ${Math.round(x)},${Math.round(y)} (${across.toFixed(0)}x${over.toFixed(0)} px of its ${w.toFixed(0)}x${h.toFixed(0)})`);
                return;
            }
        }
    };
    const range = document.createRange();
    for (const root of roots) {
        // Texts: each text node's line boxes, inside what its element shows.
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const e = n.parentElement;
            if (!n.textContent.trim() || !e || e.closest('select, option, script, style, template, title')) continue;
            if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true }) || purposelyHidden(e)) continue;
            if (e.tagName === 'DETAILS' && !e.open) continue;  // a closed details' own text, outside its summary: laid out, not shown
            const svg = e.closest('svg');
            range.selectNodeContents(n);
            check(e, n.textContent, svg ? [e.getBoundingClientRect()] : [...range.getClientRects()], inside(e), false, svg);
        }
        // Controls: their boxes (a link's, one a line), inside what their parent shows.
        for (const e of root.querySelectorAll('a, button, select, input, summary, textarea')) {
            if (e.closest('svg') || !e.checkVisibility({ opacityProperty: true, visibilityProperty: true }) || purposelyHidden(e)) continue;
            check(e, e.textContent || e.getAttribute('aria-label') || e.name || '', [...e.getClientRects()], inside(e.parentElement), true);
        }
    }
    return out;
}""".replace("PURPOSELY_HIDDEN", PURPOSELY_HIDDEN).replace("ON_PURPOSE", repr(ON_PURPOSE))

CLIPPED = r"""(scope) => {
    const out = { cut: [], tape: null, overlaps: [], covered: [] };
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
    const purposelyHidden = (PURPOSELY_HIDDEN)(styleOf);
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
    // measured on a copy of the menu beside it, out of the flow at its natural width: neither
    // stretched nor squeezed by a flex row or a grid's cell; the menu itself is left untouched).
    const canvas = document.createElement('canvas').getContext('2d');
    for (const root of roots) {
        for (const sel of root.querySelectorAll('select')) {
            // (A transparent menu shows no text: the launcher's lies over the name it shows.)
            if (!sel.checkVisibility({ opacityProperty: true, visibilityProperty: true }) || purposelyHidden(sel) || sel.selectedIndex < 0) continue;
            const s = getComputedStyle(sel);
            canvas.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
            const widths = [...sel.options].map((o) => canvas.measureText(o.text).width);
            const width = sel.getBoundingClientRect().width;
            const copy = sel.cloneNode(true);
            copy.removeAttribute('id');
            copy.style.cssText += ';position:absolute !important;visibility:hidden !important;width:auto !important;min-width:0 !important;max-width:none !important';
            sel.after(copy);
            const natural = copy.getBoundingClientRect().width;
            copy.remove();
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
    const leaves = [...document.querySelectorAll('#b .b-head *, #b .b-rail *, .b-strip *, .launcher__bar *')].filter((e) => {
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

    // 6. Texts and controls of the scope that a box from anywhere is drawn over.
    out.covered = (COVERED)(scope);
    return out;
}""".replace("COVERED", COVERED).replace("PURPOSELY_HIDDEN", PURPOSELY_HIDDEN)

# The HTML texts a reader sees in `scope` that are not inside `skip` (a selector): each as
# [its node, its element, its line boxes]. Put into the scripts below (as shownTexts).
SHOWN_TEXTS = r"""(scope, skip) => {
    const out = [], range = document.createRange();
    for (const root of document.querySelectorAll(scope)) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const e = n.parentElement;
            if (!n.textContent.trim() || !e || e.closest(skip)) continue;
            if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
            range.selectNodeContents(n);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
            if (rects.length) out.push([n, e, rects]);
        }
    }
    return out;
}"""

# The texts a reader sees in `scope` (as CLIPPED reads them: HTML text, menus, drawings' words),
# each as "element text: left,top,right,bottom" in the window's pixels, in document order.
TEXT_BOXES = r"""(scope) => {
    const shownTexts = SHOWN_TEXTS;
    const where = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '');
    const box = (r) => [r.left, r.top, r.right, r.bottom].map((v) => Math.round(v * 2) / 2).join(',');
    const out = shownTexts(scope, 'select, option, script, style, template, title')
        .flatMap(([n, e, rects]) => rects.map((r) => `${where(e)} ${n.textContent.trim().slice(0, 24)}: ${box(r)}`));
    for (const root of document.querySelectorAll(scope))
        for (const sel of root.querySelectorAll('select')) if (sel.checkVisibility()) out.push(`select ${sel.value}: ${box(sel.getBoundingClientRect())}`);
    return out;
}""".replace("SHOWN_TEXTS", SHOWN_TEXTS)

# Texts whose colour is too close to what is behind them (LEAST_CONTRAST): an HTML text against
# its element's and its ancestors' backgrounds, a drawing's word against the shapes drawn before
# it whose box holds its middle, over the drawing's background. Colours are read through a
# canvas (any CSS colour), layers with some transparency composed over those under them; a
# background image (a gradient) makes the colour behind unknown and the text is left out.
FAINT = r"""([scope, least]) => {
    const out = [];
    const ctx = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d', { willReadFrequently: true });
    const seen = new Map();
    const rgba = (css) => {
        let c = seen.get(css);
        if (!c) {
            ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000'; ctx.fillStyle = css; ctx.fillRect(0, 0, 1, 1);
            const d = ctx.getImageData(0, 0, 1, 1).data;
            seen.set(css, c = [d[0], d[1], d[2], d[3] / 255]);
        }
        return c;
    };
    const over = (top, under) => {  // top composed over an opaque colour
        const a = top[3];
        return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
    };
    const lum = (c) => {
        const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    // The colour behind an HTML element: its background and its ancestors', composed top down
    // (each element's read once: the texts of a panel share their ancestors).
    const behinds = new Map();
    const behind = (e) => {
        if (!e) return [255, 255, 255, 1];  // (the pages paint their body; one that did not would show the browser's white)
        if (behinds.has(e)) return behinds.get(e);
        const s = getComputedStyle(e);
        const c = s.backgroundImage !== 'none' ? null : rgba(s.backgroundColor);
        const under = !c || c[3] >= 1 ? null : behind(e.parentElement);
        const got = !c ? null : c[3] >= 1 ? c : under && over(c, under);
        behinds.set(e, got);
        return got;
    };
    const name = (e) => e.tagName.toLowerCase() + (e.getAttribute('class') ? '.' + e.getAttribute('class').trim().split(/\s+/).join('.') : '');
    const say = (e, text, fg, bg) => out.push(`${name(e)} in ${name(e.parentElement)} "${text.trim().replace(/\s+/g, ' ').slice(0, 30)}": ${ratio(fg, bg).toFixed(2)} (rgb ${fg.map((v) => +v.toFixed(2))} on ${bg.slice(0, 3).map(Math.round)})`);
    const shownTexts = SHOWN_TEXTS;
    // (Visually hidden texts are painted in a clipped 1 px box: no colour hides them from anyone.)
    for (const [n, e] of shownTexts(scope, 'svg, select, option, script, style, template, title, .visually-hidden, .launcher__title, .launcher__label')) {
        const bg = behind(e);
        if (!bg) continue;
        const fg = rgba(getComputedStyle(e).color);
        if (ratio(over(fg, bg), bg) < least) say(e, n.textContent, fg, bg);
    }
    for (const root of document.querySelectorAll(scope)) {
        for (const svg of root.querySelectorAll('svg')) {
            if (!svg.checkVisibility({ visibilityProperty: true })) continue;
            const base = behind(svg);
            if (!base) continue;
            // The filled shapes in drawing order, each with its box and colour read once, and each
            // word with how many of them are drawn before it (under it).
            const shapes = [], words = [];
            for (const s of svg.querySelectorAll('rect, circle, ellipse, path, polygon, text')) {
                if (s.closest('defs, clipPath, mask, marker, pattern') || !s.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
                if (s.tagName === 'text') { words.push([s, shapes.length]); continue; }
                const st = getComputedStyle(s);
                if (!st.fill || st.fill === 'none' || st.fill.startsWith('url')) continue;
                const c = rgba(st.fill).slice();
                c[3] *= Number(st.fillOpacity);
                if (c[3] > 0) shapes.push([s.getBoundingClientRect(), c]);
            }
            for (const [t, before] of words) {
                if (!t.textContent.trim() || t.closest('.b-off, [visibility=hidden]')) continue;
                const r = t.getBoundingClientRect();
                if (r.width < 0.5) continue;
                const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
                let bg = base;
                for (const [b, c] of shapes.slice(0, before))
                    if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) bg = over(c, bg);
                const st = getComputedStyle(t);
                if (!st.fill || st.fill === 'none' || st.fill.startsWith('url')) continue;
                const fg = rgba(st.fill).slice();
                fg[3] *= Number(st.fillOpacity);
                const shown = over(fg, bg);
                if (ratio(shown, bg) < least) say(t, t.textContent, fg, bg);
            }
        }
    }
    return out;
}""".replace("SHOWN_TEXTS", SHOWN_TEXTS)


def cut(frame, scope: str, at: str) -> list[str]:
    """What CLIPPED finds in `frame` within `scope`, as lines naming where."""
    got = frame.evaluate(CLIPPED, scope)
    found = [f"{at}: {line}" for line in got["cut"] + got["overlaps"]]
    found += [f"{at}: covered: {line}" for line in got["covered"]]
    if got["tape"] and got["tape"]["squeezed"]:
        found.append(f"{at}: the tape is squeezed to {got['tape']['room']:.0f} px ({got['tape']['rows']:.2f} rows)")
    return found


def in_dark(page, parts, at: str) -> list[str]:
    """The texts of each (frame, scope) where they are in light, and none hidden by its colours
    in either scheme, as lines naming where. The page is drawn in light when it is called, and
    left in light."""
    found, light, dark = [], [], []
    for frame, scope in parts:
        light.append(frame.evaluate(TEXT_BOXES, scope))
        found += [f"{at} light: faint {line}" for line in frame.evaluate(FAINT, [scope, LEAST_CONTRAST])]
    page.emulate_media(color_scheme="dark")
    for frame, scope in parts:
        frame.evaluate(FRAMES)
        found += [f"{at} dark: faint {line}" for line in frame.evaluate(FAINT, [scope, LEAST_CONTRAST])]
        dark.append(frame.evaluate(TEXT_BOXES, scope))
    page.emulate_media(color_scheme="light")
    for (_, scope), before, after in zip(parts, light, dark):
        moved = [f"{a} (light: {b})" for a, b in zip(after, before) if a != b]
        if len(after) != len(before):
            moved.append(f"{len(after)} texts in dark, {len(before)} in light")
        found += [f"{at} dark: {scope}: {line}" for line in moved[:5]]
    return found
