// The bench: holds the state, asks the sim (in a Web Worker) for every number, and draws.
// Start: the build's picture is on the page; Python loads with visible progress; then the
// link's settings are applied (the sim checks them) and the controls come alive.
import { motion, tween, pause } from "./anim.js";
import { connect, STAGES } from "./worker.js";
import { readQuery, writeURL, queryString } from "./state.js";
import { Machine } from "./machine.js";
import { Tape, Bridge, Readouts, Exactness } from "./panels.js";
import { Tubes } from "./tubes.js";
import { Controls } from "./controls.js";
import { fitText } from "./machine.js";

const EXACTNESS_TOP = 6;
const TUBE_TOP = 8;
const CONTEXT_SENT = 8; // the models look at two tokens; a few more are sent for the exactness label
const MAX_STEPS = 200;
const MAX_ROUNDS = 100;

function formatter(lang) {
  const nf = (digits) => new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const cache = {};
  return {
    num: (x, digits = 2) => (cache[digits] ||= nf(digits)).format(x),
    int: (x) => (cache.int ||= new Intl.NumberFormat(lang, { maximumFractionDigits: 0 })).format(x),
    pct: (x) => (cache.pct ||= new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 1 })).format(x),
  };
}

export function startBench(config) {
  const root = document.getElementById("b");
  if (!root) return;
  const strings = JSON.parse(document.getElementById("ui-strings").textContent);
  const initial = JSON.parse(document.getElementById("bench-state").textContent);
  const fmt = formatter(document.documentElement.lang || "en");
  const machine = new Machine(root, strings, fmt);
  const tape = new Tape(root, strings);
  const bridge = new Bridge(root, strings, fmt);
  const readouts = new Readouts(root, strings, fmt);
  const exactness = new Exactness(root, strings, fmt);
  const tubes = new Tubes(root, strings, fmt);
  const controls = new Controls(root, strings);
  const live = root.querySelector(".b-live");
  const statusBox = root.querySelector(".b-status");
  const statusText = root.querySelector(".b-status__text");
  const progressBar = root.querySelector(".b-status__bar");

  // Long words drawn by the build are squeezed into their cells once the fonts are known.
  for (const t of root.querySelectorAll(".b-slot-text")) fitText(t, 27);
  for (const t of root.querySelectorAll(".b-meter-text")) fitText(t, 38);

  const state = {
    settings: { ...initial.settings },
    steps: initial.steps,
    rounds: initial.rounds,
    context: [...initial.context],
    sentence: initial.sentence,
    written: initial.written,
    passes: initial.steps,
    readouts: initial.readouts,
    playing: false,
    ready: false,
  };
  tubes.add(initial.tube_round);
  machine.setRoofline(initial.readouts.roofline, initial.lanes_per_sequence);

  const setStatus = (kind, text, value) => {
    statusBox.dataset.state = kind;
    statusText.textContent = text;
    if (value != null) progressBar.value = value;
    progressBar.hidden = kind === "ready" || kind === "failed";
  };
  // The worker reports its stage and the bytes fetched so far (sim-worker.js): the message names
  // both. Bytes are most of the wait, so they fill 90 % of the bar; the stages after them (a
  // restore takes a few tenths of a second) the rest; the bar never moves back.
  const megabytes = (bytes) => fmt.num((bytes || 0) / 1e6, 1);
  const stageText = (stage, p) => (strings[`loading_${stage}`] || strings.b_loading_init)
    .replace("{loaded}", megabytes(p.loaded)).replace("{total}", megabytes(p.total));
  const barValue = (stage, p) => Math.max(progressBar.value, progressBar.max * (stage === "download"
    ? 0.9 * (p.total ? p.loaded / p.total : 0) : 0.9 + 0.1 * (STAGES.indexOf(stage) + 1) / (STAGES.length + 1)));
  setStatus("loading", strings.b_loading_init, 0);

  let lastProgress = performance.now();
  const sim = connect(config, (stage, p) => {
    lastProgress = performance.now();
    setStatus("loading", stageText(stage, p), barValue(stage, p));
  });
  // A runtime that stops reporting progress (a download cut off inside Pyodide) is named as such.
  const watchdog = setInterval(() => {
    if (state.ready || statusBox.dataset.state === "failed") return clearInterval(watchdog);
    const quiet = performance.now() - lastProgress;
    if (quiet > 120_000) {
      clearInterval(watchdog);
      controls.enable(false);
      setStatus("failed", strings.b_failed.replace("{error}", strings.b_timeout));
    } else if (quiet > 20_000) {
      statusText.textContent = strings.b_slow;
    }
  }, 2000);

  // One operation at a time: the worker answers in order, and the drawing must not interleave.
  let queue = Promise.resolve();
  let pending = 0;
  const serial = (fn) => {
    pending += 1;
    root.dataset.busy = "true";
    const done = () => {
      pending -= 1;
      if (pending === 0) root.dataset.busy = "false";
    };
    const run = queue.then(fn, fn).finally(done);
    queue = run.catch((error) => fail(error));
    return run.catch(() => null);
  };

  function fail(error) {
    state.playing = false;
    controls.setPlaying(false);
    setStatus("failed", strings.runtime_failed.replace("{error}", error && error.message ? error.message : String(error)));
  }

  const saveURL = () => {
    if (document.body.dataset.embed === "true" && window.parent !== window) {
      controls.link.href = queryString(state.settings, { steps: state.steps, rounds: state.rounds });
      return;
    }
    const search = writeURL(state.settings, { steps: state.steps, rounds: state.rounds });
    controls.link.href = search;
  };

  const announce = (text) => {
    live.textContent = "";
    // a fresh text node each time so screen readers announce a repeat
    setTimeout(() => (live.textContent = text), 30);
  };

  // --- the sim's calls ----------------------------------------------------------------------------
  async function newSentence() {
    const sentence = await sim.call("start", { seed: state.settings.seed });
    state.sentence = sentence.tokens;
    state.context = sentence.tokens.map((t) => t.id);
    state.steps = 0;
    state.passes = 0;
    state.written = 0;
    root.dataset.steps = "0";
    tape.reset(sentence.tokens);
    tape.setCount(0, 0);
    machine.clearSlots();
    bridge.clear(state.settings.gamma);
  }

  async function step(animate) {
    if (state.steps >= MAX_STEPS) {
      state.playing = false;
      controls.setPlaying(false);
      return null;
    }
    const s = state.settings;
    const res = await sim.call("step", {
      ...s,
      context: state.context.slice(-CONTEXT_SENT),
      step_index: state.steps,
      exactness_top: EXACTNESS_TOP,
    });
    state.steps += 1;
    state.passes += 1;
    state.written += res.n_written;
    state.context = state.context.concat(res.written.map((w) => w.id));
    root.dataset.platform = res.runtime.platform;
    root.dataset.seed = String(s.seed);
    root.querySelector(".b-runtime-value").textContent = `Python ${res.runtime.python} (${res.runtime.platform})`;
    const was = motion.instant;
    if (!animate) motion.instant = true;
    try {
      await drawStep(res);
    } finally {
      motion.instant = was;
    }
    tape.setCount(state.written, state.passes);
    root.dataset.written = String(res.n_written);
    root.dataset.steps = String(state.steps);
    saveURL();
    return res;
  }

  async function drawStep(res) {
    const guesses = res.guesses;
    const mode = res.settings.greedy ? "greedy" : res.settings.rule;
    for (const note of root.querySelectorAll(".b-bridge-mode")) note.hidden = note.dataset.mode !== mode;
    const gamma = guesses.length;
    machine.clearSlots();
    bridge.clear(gamma);
    exactness.show(res.exactness, res.context_text);
    // the small drum turns once per guess while the pencil cart writes it
    for (let i = 0; i < gamma; i++) {
      machine.moveTo(machine.pencil, i);
      machine.setSlot(i, guesses[i].text, "pencil");
      await machine.spin("small", 260);
    }
    // the big drum turns once, with gamma + 1 lanes lit
    machine.lightLanes(res.lanes_per_sequence);
    await machine.spin("big", 650, true);
    // the bridge checks the guesses left to right; the typing head inks what is kept
    let k = 0;
    for (let i = 0; i < gamma; i++) {
      const g = guesses[i];
      await bridge.show(i, g);
      const kind = g.kept ? "kept" : g.checked ? "rejected" : "void";
      machine.setSlot(i, g.text, kind);
      if (g.kept) {
        machine.moveTo(machine.typer, i);
        tape.append(res.written[k++]);
        await pause(120);
      }
    }
    const last = res.written[res.written.length - 1];
    machine.moveTo(machine.typer, gamma);
    machine.setSlot(gamma, last.text, "target");
    tape.append(last);
    await pause(200);
    tape.settle();
  }

  async function refreshReadouts() {
    readouts.busy(true);
    try {
      const ro = await sim.call("readouts", state.settings);
      state.readouts = ro;
      readouts.show(ro, state.settings);
      strip.querySelector(".b-strip__alpha").textContent = fmt.num(ro.alpha, 3);
      strip.querySelector(".b-strip__tpp").textContent = fmt.num(ro.tokens_per_pass_counted, 2);
      machine.setRoofline(ro.roofline, state.settings.gamma + 1);
      root.dataset.readouts = queryString(ro.settings, { steps: 0, rounds: 0 });
    } finally {
      readouts.busy(false);
    }
  }

  async function tubeRound() {
    if (state.rounds >= MAX_ROUNDS) return;
    const round = await sim.call("tube_round", { ...state.settings, round: state.rounds, top: TUBE_TOP });
    state.rounds += 1;
    tubes.add(round);
    tubes.draw();
    root.dataset.rounds = String(state.rounds);
    saveURL();
  }

  // Redraw the tubes from round 0 (a link, or a new seed, names the whole experiment), without animation.
  async function replayTubes(rounds) {
    state.rounds = 0;
    tubes.clear();
    const was = motion.instant;
    motion.instant = true;
    for (let i = 0; i < rounds; i++) await tubeRound();
    motion.instant = was;
    tubes.draw();
  }

  function clearTubes() {
    state.rounds = 0;
    tubes.clear();
    tubes.draw();
    root.dataset.rounds = "0";
    saveURL();
  }

  function settingsLine() {
    const s = state.settings;
    const ro = state.readouts;
    return strings.b_live_settings
      .replace("{draft}", strings["b_draft_" + s.draft])
      .replace("{gamma}", String(s.gamma))
      .replace("{batch}", String(s.batch))
      .replace("{mode}", strings[s.greedy ? "b_mode_greedy" : "b_mode_sampling"])
      .replace("{rule}", s.rule === "exact" ? strings.b_rule_exact : strings.b_rule_typical)
      .replace("{alpha}", fmt.num(ro.alpha, 3))
      .replace("{speedup}", fmt.num(ro.speedup, 2))
      .replace("{best}", String(ro.best_gamma));
  }

  function stepLine(res) {
    const ro = state.readouts;
    return strings.b_live_step
      .replace("{passes}", String(state.passes))
      .replace("{kept}", String(res.n_kept))
      .replace("{gamma}", String(res.guesses.length))
      .replace("{written}", String(res.n_written))
      .replace("{text}", res.written_text.join(document.documentElement.lang.startsWith("zh") ? "" : " "))
      .replace("{alpha}", fmt.num(ro.alpha, 3))
      .replace("{counted}", fmt.num(ro.tokens_per_pass_counted, 2))
      .replace("{formula}", fmt.num(ro.tokens_per_pass_formula, 2));
  }

  // Rebuild everything the settings and the link's progress describe, without animation.
  async function rebuild({ steps, rounds, keepTubes = false }) {
    state.playing = false;
    controls.setPlaying(false);
    await refreshReadouts();
    await newSentence();
    for (let i = 0; i < steps; i++) await step(false);
    if (!keepTubes) await replayTubes(rounds);
    saveURL();
  }

  // --- the controls --------------------------------------------------------------------------------
  let debounce = null;
  function onChange(name) {
    const next = controls.read(state.settings.seed);
    controls.warning.hidden = next.rule === "exact";
    clearTimeout(debounce);
    const delay = name === "gamma" || name === "batch" ? 250 : 0;
    debounce = setTimeout(() => serial(async () => {
      const before = state.settings;
      state.settings = next;
      if (name === "batch") {
        await refreshReadouts();
        saveURL();
      } else {
        // a new draft, gamma, mode or rule starts the sentence again, so a link can replay it
        const sameTubes = name === "gamma";
        await rebuild({ steps: 1, rounds: sameTubes ? state.rounds : 1, keepTubes: sameTubes && before.draft === next.draft });
      }
      announce(settingsLine());
    }), delay);
  }

  async function playLoop() {
    while (state.playing) {
      const res = await serial(() => step(true));
      if (!res) break;
      await pause(motion.still ? 700 : 350);
      if (motion.still) await new Promise((r) => setTimeout(r, 700));
    }
  }

  controls.wire({
    onChange,
    onPlay: () => {
      state.playing = !state.playing;
      controls.setPlaying(state.playing);
      if (state.playing) playLoop();
      else announce(tape.text().join(" "));
    },
    onStep: () => serial(async () => {
      const res = await step(true);
      if (res) announce(stepLine(res));
    }),
    onNew: () => serial(async () => {
      // The seed names the whole experiment in a link, so the tubes are redrawn under the new one
      // (same number of rounds) and the link still reproduces them.
      state.settings = { ...state.settings, seed: (state.settings.seed + 1) % 4294967296 };
      controls.set(state.settings);
      root.dataset.seed = String(state.settings.seed);
      await replayTubes(state.rounds);
      await newSentence();
      const res = await step(true);
      if (res) announce(stepLine(res));
    }),
    onRound: () => serial(async () => {
      await tubeRound();
      announce(strings.b_live_tubes.replace("{rounds}", String(state.rounds)));
    }),
    onClear: () => serial(async () => {
      clearTubes();
      announce(strings.b_live_tubes.replace("{rounds}", "0"));
    }),
    onSpeed: (v) => {
      motion.speed = v;
    },
  });

  // --- chapters drive the bench --------------------------------------------------------------------
  const focusables = [...root.querySelectorAll("[data-parts]")];
  const bench = root.closest(".bench");
  const strip = root.querySelector(".b-strip");
  const back = root.querySelector(".b-back");
  if ("IntersectionObserver" in window) {
    // Phones: the strip steps aside while the bench itself is on screen.
    new IntersectionObserver((entries) => {
      for (const e of entries) strip.classList.toggle("b-away", e.isIntersecting);
    }).observe(root);
  }
  document.addEventListener("specdec:chapter", (event) => {
    const part = event.detail && event.detail.part;
    if (!part) return;
    back.querySelector("a").setAttribute("href", "#" + event.detail.id);
    back.hidden = false;
    if (root.dataset.focus === part) return;
    root.dataset.focus = part;
    machine.svg.classList.toggle("b-exploded", part === "parts");
    strip.querySelector(".b-strip__part").textContent = strings["b_partname_" + part] || "";
    const whole = part === "parts" || part === "lab" || part === "selfdraft";
    let first = null;
    for (const f of focusables) {
      const on = !whole && f.dataset.parts.split(" ").includes(part);
      f.classList.toggle("b-focus", on);
      if (on && !first && f.classList.contains("b-panel")) first = f;
    }
    if (part === "lab") first = root.querySelector(".b-controls");
    // On wide screens the bench scrolls on its own beside the text: bring the part into view.
    if (first && bench && bench.scrollHeight > bench.clientHeight + 4 && getComputedStyle(bench).position === "sticky") {
      const top = first.offsetTop - root.offsetTop;
      const visible = top >= bench.scrollTop && top + Math.min(first.offsetHeight, bench.clientHeight) <= bench.scrollTop + bench.clientHeight;
      if (!visible) bench.scrollTo({ top: Math.max(0, top - 8), behavior: motion.still ? "auto" : "smooth" });
    }
  });

  // --- the parts, one by one: press a part to see it alone (and again to see them all) ----------------
  const partButtons = [...root.querySelectorAll(".b-part[data-part-name]")];
  const info = root.querySelector(".b-part-info");
  function isolate(name) {
    const svg = machine.svg;
    const same = svg.dataset.isolate === name;
    const next = same ? "" : name;
    svg.dataset.isolate = next;
    svg.classList.toggle("b-isolating", Boolean(next));
    for (const b of partButtons) {
      const on = b.dataset.partName === next;
      b.classList.toggle("b-isolated", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    }
    info.hidden = !next;
    if (next) {
      info.querySelector(".b-part-info__name").textContent = strings["b_partname_" + next];
      info.querySelector(".b-part-info__text").textContent = strings["b_partdesc_" + next];
    }
  }
  for (const b of partButtons) {
    b.addEventListener("click", () => isolate(b.dataset.partName));
    b.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        isolate(b.dataset.partName);
      }
    });
  }

  // --- start ------------------------------------------------------------------------------------------
  const link = readQuery();
  sim.ready.then(
    (runtime) => serial(async () => {
      setStatus("loading", strings.b_loading_init, 4);
      let errors = [...link.errors];
      if (link.hasAny) {
        const parsed = await sim.call("settings", { query: link.query });
        errors = parsed.errors.concat(errors);
        state.settings = parsed.settings;
        controls.set(state.settings);
        await rebuild({ steps: link.progress.steps ?? 1, rounds: link.progress.rounds ?? 1 });
      }
      // Without a link the build's picture is already the default state, drawn by the same sim.
      showURLErrors(errors);
      tubes.draw();
      controls.enable(true);
      state.ready = true;
      root.dataset.mode = "live";
      if (performance.mark) performance.mark("specdec:bench-live");
      setStatus("ready", strings.b_ready.replace("{python}", `Python ${runtime.python}`), 4);
      // Warm the sim's readout run in the background, so the first slider move answers quickly.
      if (!link.hasAny) serial(() => sim.call("readouts", state.settings));
    }),
    (error) => {
      controls.enable(false);
      setStatus("failed", strings.b_failed.replace("{error}", error.message));
      if (link.errors.length) showURLErrors(link.errors);
    },
  );

  function showURLErrors(errors) {
    const box = root.querySelector(".b-urlerr");
    const list = box.querySelector(".b-urlerr__list");
    list.replaceChildren(...errors.map((e) => {
      const li = document.createElement("li");
      li.textContent = strings.b_url_error_item.replace("{param}", e.param).replace("{value}", e.value).replace("{message}", e.message);
      return li;
    }));
    box.hidden = errors.length === 0;
  }
}
