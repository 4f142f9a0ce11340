// The machine's SVG: drums, read head, mill and gauge, cache cabinet, tubes, mini bridge and
// this pass's strip of tape. The template drew every element; this view finds them inside its
// root and places the coordinates of the sim's answer (view.drawing.machine), or animates a pass.
import { ease, pause, scene, tween } from "./anim.js";
import { format, text } from "./text.js";

export class MachineView {
  constructor(root, spec) {
    this.svg = root.querySelector("svg.b-machine");
    this.layout = spec.layout;
    const all = (selector) => [...this.svg.querySelectorAll(selector)];
    this.rotors = {};
    for (const g of all(".b-rotor")) this.rotors[g.dataset.rotor] = { el: g, cx: g.dataset.cx, cy: g.dataset.cy, angle: 0 };
    this.lanes = all(".b-lane");
    this.sheets = all(".b-sheet");
    this.stacks = all(".b-cabinet-stack");
    this.drawers = all(".b-drawer");
    this.slots = all(".b-slot");
    this.minis = all(".b-mini");
    this.pencil = this.svg.querySelector(".b-pencil");
    this.typer = this.svg.querySelector(".b-typer");
    this.millTurns = 0;
    // The slots' words are fitted to the drawing's size on screen: fitted again when it changes
    // (focus mode, a resized window).
    this.words = []; // each slot's word as last set (setSlot)
    if (typeof ResizeObserver === "function") new ResizeObserver(() => fitTexts(this.words.filter(Boolean))).observe(this.svg);
  }

  one(selector) {
    return this.svg.querySelector(selector);
  }

  // At rest: a state drawn at once (a pass the player animated is drawn by animatePass, and one
  // it skipped is not drawn: the newer pass animates already; pass.js).
  onChange(change) {
    if (change.kind === "drawn" && !change.animated && !change.skipped) this.draw(change.view.drawing.machine);
  }

  // Everything at rest, as the sim drew it.
  draw(m) {
    this.lightLanes(m.lane_rects);
    this.drawLoad(m);
    fitTexts(m.slots.map((s, i) => this.setSlot(i, s, false)).filter(Boolean)); // measured together: one layout
    m.mini_meters.forEach((meter, i) => this.setMini(i, meter));
    this.move(this.pencil, m.pencil_dx);
    this.move(this.typer, m.typer_dx);
  }

  // The batch and its lanes: sheets behind the head, the gauge, the drawers, the labels.
  drawLoad(m) {
    this.sheets.forEach((s) => s.classList.toggle("b-off", Number(s.dataset.k) > m.sheets));
    this.stacks.forEach((s) => s.classList.toggle("b-off", Number(s.dataset.k) > m.stacks));
    this.drawers.forEach((d, i) => d.classList.toggle("b-in-use", i < m.drawers_in_use));
    const badge = this.one(".b-head-badge");
    badge.textContent = text("b_head_badge", { batch: format.int(m.batch) });
    badge.setAttribute("visibility", m.batch > 1 ? "visible" : "hidden");
    this.one(".b-head-value").textContent = text("b_head_value", { lanes: format.int(m.lanes) });
    this.one(".b-cabinet-value").textContent = text("b_drawers", { n: format.int(m.batch) });
    const g = m.gauge;
    this.one(".b-gauge-fill").setAttribute("width", g.fill_width);
    const over = this.one(".b-gauge-over");
    over.setAttribute("x", g.over_x);
    over.setAttribute("width", g.over_width);
    this.one(".b-mill-wheel").classList.toggle("b-full", g.full);
    this.millTurns = m.mill_turns;
  }

  // The head's lanes as the sim placed them (one column per candidate); on = false: none lit yet.
  lightLanes(rects, on = true) {
    this.lanes.forEach((lane, i) => {
      lane.setAttribute("x", rects[i].x);
      lane.setAttribute("width", rects[i].width);
      lane.classList.toggle("b-lit", on && rects[i].lit);
    });
  }

  move(el, dx) {
    el.setAttribute("transform", `translate(${dx} 0)`);
  }

  moveToSlot(el, i) {
    this.move(el, i * this.layout.tape.pitch);
  }

  // fit false: the word's text to fit is returned rather than fitted (fitTexts fits several at once).
  setSlot(i, slot, fit = true) {
    const g = this.slots[i];
    if (!g) return null;
    g.setAttribute("class", `b-slot b-slot--${slot.kind}`);
    g.querySelector(".b-slot-mark").textContent = slot.mark;
    const word = { el: g.querySelector(".b-slot-text"), shown: slot.short, whole: slot.text, width: this.layout.tape.slot_width - 3 };
    this.words[i] = word;
    if (!fit) return word;
    fitTexts([word]);
    return null;
  }

  setMini(i, meter, grow = 1) {
    const g = this.minis[i];
    if (!g) return;
    g.setAttribute("class", meter ? `b-mini b-meter--${meter.verdict}` : "b-mini b-off");
    if (!meter) return;
    const bar = g.querySelector(".b-meter-bar");
    const bottom = meter.bar_y + meter.bar_height;
    bar.setAttribute("y", (bottom - meter.bar_height * grow).toFixed(2));
    bar.setAttribute("height", (meter.bar_height * grow).toFixed(2));
    const line = g.querySelector(".b-rline");
    line.classList.toggle("b-off", meter.r_y == null || grow < 1);
    if (meter.r_y != null) {
      line.setAttribute("y1", meter.r_y);
      line.setAttribute("y2", meter.r_y);
    }
  }

  turn(name, degrees) {
    const rotor = this.rotors[name];
    rotor.angle = (rotor.angle + degrees) % 360;
    rotor.el.setAttribute("transform", `rotate(${rotor.angle.toFixed(2)} ${rotor.cx} ${rotor.cy})`);
  }

  // One full turn of a drum over `ms`; the mill turns alongside at its own speed.
  spin(name, ms, withMill = false) {
    let last = 0;
    return tween(ms, (t) => {
      const e = ease(t);
      this.turn(name, (e - last) * 360);
      if (withMill) this.turn("mill", (e - last) * 360 * this.millTurns);
      last = e;
    });
  }

  // A pass, shown as it happens: the draft writes its guesses, the big drum turns once with
  // the tree's lanes lit, the bridge checks left to right and the typing head inks what is kept.
  // Resolves true at its end, or false as soon as it was cut short (anim.js: the caller draws
  // the newer state at rest).
  async animatePass(m, bridge) {
    const s = scene();
    const empty = { text: "", short: "", kind: "empty", mark: "" };
    this.drawLoad(m);
    this.lightLanes(m.lane_rects, false);
    this.slots.forEach((_, i) => this.setSlot(i, empty));
    this.minis.forEach((_, i) => this.setMini(i, null));
    this.moveToSlot(this.typer, 0);
    const gamma = m.gamma;
    for (let i = 0; i < gamma; i++) {
      this.moveToSlot(this.pencil, i);
      this.setSlot(i, { ...m.slots[i], kind: "pencil", mark: "" });
      await this.spin("small", 260);
      if (s.over) return false;
    }
    this.lightLanes(m.lane_rects);
    await this.spin("big", 650, true);
    if (s.over) return false;
    for (let i = 0; i < gamma; i++) {
      const meter = m.mini_meters[i];
      await Promise.all([tween(220, (t) => this.setMini(i, meter, t)), bridge.showMeter(i, true)]);
      if (s.over) return false;
      this.setMini(i, meter);
      this.setSlot(i, m.slots[i]);
      if (meter.verdict === "kept") {
        this.moveToSlot(this.typer, i);
        await pause(120);
        if (s.over) return false;
      }
    }
    this.move(this.typer, m.typer_dx);
    this.setSlot(gamma, m.slots[gamma]);
    await pause(200);
    return !s.over;
  }
}

// A word drawn in a fixed width: whole where it fits; where it does not, drawn smaller, down to
// 12 px on screen (a drawing shown larger than its own size has room for the word at 12 px that
// its 12-unit lettering lacks); only a word that does not fit even then loses letters (never
// squeezed), and carries the whole one as its tooltip (the tables list it). Measured, not guessed
// from its length: the sim's cut (`shown`) is kept only where the drawing is not rendered.
export function fitText(el, shown, whole, width) {
  fitTexts([{ el, shown, whole, width }]);
}

const FLOOR_PX = 12; // the lettering's floor on screen (bench.css)

// The drawing's scale on screen: its box against its viewBox (letterboxing included).
function scaleOf(svg) {
  const box = svg.viewBox.baseVal;
  const r = svg.getBoundingClientRect();
  return box && box.width && box.height ? Math.min(r.width / box.width, r.height / box.height) : 1;
}

// Several words fitted at once: every text is written before any is measured, so the page is
// laid out once for all of them rather than once per word.
export function fitTexts(words) {
  for (const w of words) {
    w.el.style.removeProperty("font-size");
    w.el.textContent = w.whole;
    w.el.dataset.fitWidth = String(w.width);
  }
  const scales = new Map();
  for (const w of words) {
    let shown = w.whole;
    try {
      const length = w.el.getComputedTextLength();
      if (!length && w.whole) throw new Error("not rendered");
      if (length > w.width) {
        const svg = w.el.ownerSVGElement;
        if (!scales.has(svg)) scales.set(svg, scaleOf(svg));
        const size = parseFloat(getComputedStyle(w.el).fontSize);
        const floor = Math.min(size, (FLOOR_PX + 0.01) / scales.get(svg));
        const fitted = Math.max(floor, (0.995 * size * w.width) / length); // a hair under: the length is not linear to the last bit
        if (fitted < size) w.el.style.fontSize = `${fitted.toFixed(3)}px`;
        while (shown.length > 1 && w.el.getComputedTextLength() > w.width) {
          shown = shown.replace(/…$/, "").slice(0, -1) + "…";
          w.el.textContent = shown;
        }
      }
    } catch {
      shown = w.shown; // not rendered (display: none): the sim's cut
      w.el.textContent = shown;
    }
    if (shown !== w.whole) {
      const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
      title.textContent = w.whole;
      w.el.append(title);
    }
  }
}
