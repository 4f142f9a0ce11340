// The chapters' "Try it" buttons. Each runs its chapter's actions on the bench through the
// bench's public API (bench/api.js), then, once the bench shows their end (a pass animating
// drawn to its end), fills in its answer from the bench's view.
// Everything was declared and checked by the build (sitebuild/tryit/): the state to start from
// (a link), the actions, and, for each value the answer reports, where it is in the view and
// how it is formatted. This script only follows those paths and formats in the page's language.
import { bench, tell, whenBench } from "./bench/api.js";
import { nextTask, setText } from "./bench/dom.js";
import { format, text } from "./bench/text.js";

const lang = document.documentElement.lang || "en";
// Made when a Try-it first words a list, not as the page opens: an Intl formatter's first
// construction loads locale data, time a phone's first seconds need for the page itself (the
// numbers are written without Intl: text.js).
let lists = null;
const quoted = (t) => text("try_quote", { text: t == null ? text("b_other") : t });
const FORMATS = {
  int: (x) => format.int(x),
  num: (x) => format.upTo(x, 3),
  num2: (x) => format.num(x, 2),
  num3: (x) => format.num(x, 3),
  pct: (x) => format.pct(x),
  quoted,
  list: (xs) => (lists ||= new Intl.ListFormat(lang, { type: "conjunction" })).format(xs.map(quoted)),
};
const PLACEHOLDER = /\{([A-Za-z_]\w*(?:@\w*)?)\}/g;

// The value at a path in a view (sitebuild/tryit/values.py describes the steps), or null.
function resolve(node, path) {
  for (let i = 0; i < path.length; i++) {
    if (node == null) return null;
    const step = path[i];
    if (step === "*") return node.map((item) => resolve(item, path.slice(i + 1)));
    if (typeof step === "object") {
      const [[field, wanted]] = Object.entries(step.find);
      node = node.find((item) => item[field] === wanted);
    } else {
      node = node[step];
    }
  }
  return node ?? null;
}

// A template's words (the answer, a prediction's why) with every placeholder filled from the
// views; `complete` is false if a value was missing.
function fill(template, data, final, snapshots) {
  let complete = true;
  const words = template.replace(PLACEHOLDER, (whole, key) => {
    const value = data.values[key];
    const x = resolve(value.at ? snapshots[value.at] : final, value.path);
    if (x == null || (Array.isArray(x) && (!x.length || x.includes(null)))) {
      complete = false;
      return text("try_missing");
    }
    return FORMATS[value.format](x);
  });
  return { words, complete };
}

// A prediction's comparison with the sim's answer (the rule of sitebuild/tryit/predict.py's
// outcome()): a direction is right or wrong; a slider is close (on the notch nearest the answer,
// within half a step), high or low. The chapter's why, if it gives one, follows in the same line
// (filled by the caller).
const DIRECTION_WORDS = () => ({ up: text("predict_up"), same: text("predict_same"), down: text("predict_down") });

function direction(before, after, within) {
  if (Math.abs(after - before) <= within * Math.max(Math.abs(before), Math.abs(after))) return "same";
  return after > before ? "up" : "down";
}

function compare(predict, guess, start, final) {
  const show = FORMATS[predict.value.format];
  const before = resolve(start, predict.value.path);
  const after = resolve(final, predict.value.path);
  if (before == null || after == null) return null;
  if (predict.kind === "direction") {
    const words = DIRECTION_WORDS();
    const actual = direction(before, after, predict.same_within);
    const values = { guess: words[guess], actual: words[actual], before: show(before), after: show(after) };
    return guess === actual ? text("predict_right", values) : text("predict_wrong", values);
  }
  const values = { guess: show(guess), after: show(after), gap: show(Math.abs(guess - after)) };
  if (Math.abs(guess - after) <= (predict.step / 2) * (1 + 1e-9)) return text("predict_close", values);
  return guess > after ? text("predict_high", values) : text("predict_low", values);
}

// The reader's prediction in a Try-it's fieldset: a radio's value, or the slider's once moved.
class Prediction {
  constructor(box, predict) {
    this.predict = predict;
    this.field = box.querySelector(".try__predict");
    this.slider = this.field.querySelector('input[type="range"]');
    this.shown = this.field.querySelector(".try__guess");
    this.moved = false;
    if (this.slider) {
      this.slider.addEventListener("input", () => {
        this.moved = true;
        const words = FORMATS[predict.value.format](Number(this.slider.value));
        this.shown.textContent = words;
        this.slider.setAttribute("aria-valuetext", words);
      });
    }
  }

  // The committed guess, or null if the reader made none.
  guess() {
    if (this.slider) return this.moved ? Number(this.slider.value) : null;
    const picked = this.field.querySelector('input[type="radio"]:checked');
    return picked ? picked.value : null;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Run one Try-it: start from its state, apply its actions (snapshots and holds in between),
// show the chapter's part, and return the views the answer reads.
async function perform(api, data) {
  // The answer is what gets announced; a part lifted out is announced too (a tour of the parts).
  const quiet = (action) => ({ ...action, quiet: !(action.type === "isolate" && action.part) });
  await api.run([{ type: "pause" }, { type: "isolate", part: "" }, { type: "load", query: data.start }].map(quiet));
  const snapshots = { start: api.getState().view };
  let batch = [];
  const flush = async () => {
    if (batch.length) await api.run(batch.map(quiet));
    batch = [];
  };
  for (const entry of data.actions) {
    if ("snapshot" in entry) {
      await flush();
      snapshots[entry.snapshot] = api.getState().view;
    } else if ("hold" in entry) {
      await flush();
      await sleep((entry.hold * 1000) / (api.getState().ui.speed || 1));
    } else {
      batch.push(entry);
    }
  }
  await flush();
  await api.dispatch(quiet({ type: "focus", part: data.show, reveal: true }));
  await api.shown(); // the answer describes what the bench shows: its pass drawn to the end
  return { final: api.getState().view, snapshots };
}

class TryIt {
  constructor(box, runner) {
    this.box = box;
    this.data = JSON.parse(box.dataset.try);
    this.button = box.querySelector(".try__button");
    this.status = box.querySelector(".try__status");
    this.answer = box.querySelector(".try__answer");
    this.words = box.querySelector(".try__answer-words");
    this.prediction = this.data.predict ? new Prediction(box, this.data.predict) : null;
    this.compare = box.querySelector(".try__compare");
    this.button.addEventListener("click", () => runner.start(this));
  }

  // mode: the bench's (static, live, failed); running: the Try-it now running, if any.
  draw(mode, running) {
    const live = mode === "live";
    this.button.disabled = !live;
    const waiting = live && running !== null;
    this.button.setAttribute("aria-disabled", waiting ? "true" : "false");
    let reason = "";
    if (mode === "failed") reason = text("try_failed");
    else if (!live) reason = text("try_starting");
    else if (running === this) reason = text("try_running");
    else if (running) reason = text("try_other_running");
    else if (this.box.dataset.state === "error") reason = this.error;
    setText(this.status, reason);
  }

  async run(api) {
    this.box.dataset.state = "running";
    this.answer.hidden = true;
    const guess = this.prediction ? this.prediction.guess() : null; // committed as the button is pressed
    try {
      const { final, snapshots } = await perform(api, this.data);
      const { words, complete } = fill(this.data.answer, this.data, final, snapshots);
      this.words.textContent = words;
      let compared = guess == null ? null : compare(this.data.predict, guess, snapshots.start, final);
      if (compared != null && this.data.predict.why) {
        compared = text("predict_why", { compared, why: fill(this.data.predict.why, this.data, final, snapshots).words });
      }
      if (this.compare) {
        this.compare.hidden = compared == null;
        this.compare.querySelector(".try__compare-words").textContent = compared || "";
      }
      this.answer.hidden = false;
      this.box.dataset.state = complete ? "done" : "incomplete";
      const said = compared == null ? "" : ` ${text("predict_label")} ${compared}`;
      api.announce(`${text("try_answer_label")} ${words}${said}`);
      // the views the answer came from (debug.js); a prediction made counts in the progress (embed-host.js)
      tell("tryit", { box: this.box, final, snapshots, words, predicted: compared != null });
    } catch (error) {
      this.error = text("try_refused", { error: error.message });
      this.box.dataset.state = "error";
    }
  }
}

class Runner {
  constructor() {
    this.mode = "static"; // until the bench says it is live or failed
    this.running = null;
    this.blocks = [...document.querySelectorAll(".try[data-try]")].map((box) => new TryIt(box, this));
    // The bench's mode comes through its API, as everything of the bench does: as it is now,
    // then each change ({kind: "mode"} from live.js).
    whenBench().then((api) => {
      this.show(api.mode());
      api.subscribe((change) => change.kind === "mode" && this.show(change.mode));
    });
    this.draw();
  }

  show(mode) {
    this.mode = mode;
    this.draw();
  }

  draw() {
    for (const block of this.blocks) block.draw(this.mode, this.running);
  }

  async start(block) {
    const api = bench();
    if (this.running || !api || this.mode !== "live") return;
    this.running = block;
    this.draw();
    await block.run(api);
    this.running = null;
    this.draw();
  }
}

// In a task of its own, after the task that starts the bench (page.js, embed.js): reading every
// chapter's Try-it was a third of that task on a phone, and the buttons wait for the bench to be
// live anyway (the page has them disabled, their reason beside them). They hear the bench through
// its API alone; a page without a bench leaves them as the build drew them.
if (document.querySelector(".try[data-try]")) nextTask().then(() => new Runner());
