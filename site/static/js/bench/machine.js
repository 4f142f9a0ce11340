// The machine's SVG: drums, read head, mill, cache cabinet and this pass's strip of tape.
// The template drew every element; this module only turns, lights and relabels them.
import { tween, ease } from "./anim.js";

const MARKS = { kept: "●", rejected: "✕", void: "·", target: "◆", pencil: "", empty: "" };

export class Machine {
  constructor(root, strings, fmt) {
    this.svg = root.querySelector("svg.b-machine");
    this.strings = strings;
    this.fmt = fmt;
    this.rotors = {};
    for (const g of this.svg.querySelectorAll(".b-rotor")) {
      this.rotors[g.dataset.rotor] = { el: g, cx: g.dataset.cx, cy: g.dataset.cy, angle: 0 };
    }
    this.lanes = [...this.svg.querySelectorAll(".b-lane")];
    this.drawers = [...this.svg.querySelectorAll(".b-drawer")];
    this.slots = [...this.svg.querySelectorAll(".b-slot")];
    this.pencil = this.svg.querySelector(".b-pencil");
    this.typer = this.svg.querySelector(".b-typer");
    this.gaugeFill = this.svg.querySelector(".b-gauge-fill");
    this.gaugeWidth = Number(this.svg.querySelector(".b-gauge").getAttribute("width"));
    this.millSpeed = 0;
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
      if (withMill) this.turn("mill", (e - last) * 360 * this.millSpeed);
      last = e;
    });
  }

  // Roofline readout: lanes lit for this pass, the mill's gauge and speed, the drawers in use.
  setRoofline(roofline, lanesPerSequence) {
    const fraction = Math.min(1, roofline.arith_busy_fraction);
    this.millSpeed = fraction * 8; // a full mill turns eight times per pass; idle, it barely moves
    this.gaugeFill.setAttribute("width", (fraction * this.gaugeWidth).toFixed(2));
    const s = this.strings;
    this.svg.querySelector(".b-mill-label").textContent = s.b_mill_reading
      .replace("{lanes}", this.fmt.int(roofline.lanes))
      .replace("{match}", this.fmt.int(roofline.lanes_to_match));
    this.svg.querySelector(".b-lanes-label").textContent = s.b_lanes_lit.replace("{n}", this.fmt.int(roofline.lanes));
    this.svg.querySelector(".b-cabinet-label").textContent = s.b_drawers.replace("{n}", this.fmt.int(roofline.batch));
    this.drawers.forEach((d, i) => d.classList.toggle("b-in-use", i < roofline.batch));
    this.lanesPerSequence = lanesPerSequence;
  }

  lightLanes(n) {
    this.lanes.forEach((lane, i) => lane.classList.toggle("b-lit", i < n));
  }

  moveTo(el, i) {
    const x = Number(el.dataset.dx) * i;
    el.setAttribute("transform", `translate(${x} 0)`);
  }

  setSlot(i, text, kind) {
    const slot = this.slots[i];
    if (!slot) return;
    slot.setAttribute("class", `b-slot b-slot--${kind}`);
    const label = slot.querySelector(".b-slot-text");
    label.textContent = text;
    fitText(label, 27);
    slot.querySelector(".b-slot-mark").textContent = MARKS[kind];
  }

  clearSlots() {
    for (let i = 0; i < this.slots.length; i++) this.setSlot(i, "", "empty");
    this.lightLanes(0);
    this.moveTo(this.pencil, 0);
    this.moveTo(this.typer, 0);
  }

  describe(text) {
    this.svg.querySelector("desc").textContent = text;
  }
}

// Long words are squeezed to fit their cell (layout only).
export function fitText(el, width) {
  el.removeAttribute("textLength");
  el.removeAttribute("lengthAdjust");
  if (!el.textContent) return;
  let length = 0;
  try {
    length = el.getComputedTextLength();
  } catch {
    return;
  }
  if (length > width) {
    el.setAttribute("textLength", String(width));
    el.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}
