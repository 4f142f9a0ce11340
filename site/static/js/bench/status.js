// What the bench says about itself: Python starting, ready or failed (in readable words, the raw
// detail in a disclosure, a Retry button), and the messages about a link's parameters, which the
// sim returns as codes with arguments and which are worded here in the page's language.
import { startContract } from "../startup/sim-start.js";
import { el, setText } from "./dom.js";
import { declaredText, format, text } from "./text.js";

// The worker's start stages and the failures are the start contract's, and so are the words for
// each (sitebuild/startup/contract.py, in the page's data: stageWords, failureWords): "download"
// (the bytes of Pyodide's files and the start files, counted) and "start" always; the fallback
// adds "fallback", "package" and "model". Before the download's total is known, the words say
// only that the worker's Python is loading. Bytes are most of the wait, so they fill 90 % of the
// bar and the stages after them the rest, in the contract's order. The contract is read when a
// status comes (this module may run before sim-boot.js has read it).
const megabytes = (bytes) => format.num((bytes || 0) / 1e6, 1);
function stageText(s) {
  if (s.stage === "download" && !s.total) return text("b_loading_python");
  return declaredText(startContract().stageWords[s.stage], { loaded: megabytes(s.loaded), total: megabytes(s.total) });
}
function failureText(f) {
  const words = startContract().failureWords;
  if (!words) return text("b_fail_worker"); // no contract: sim-boot.js, which holds it, did not load
  return declaredText(words[f.code] || words.start, { seconds: f.seconds });
}
function share(s) {
  if (s.stage === "download") return 0.9 * (s.total ? Math.min(1, s.loaded / s.total) : 0);
  const { stages = [], stageWords = {} } = startContract();
  const shown = stages.filter((stage) => stage in stageWords);
  return 0.9 + (0.1 * (shown.indexOf(s.stage) + 1)) / (shown.length + 1);
}
const LINK_MESSAGES = {
  not_one_of: (m) => (m.dropped ? text("b_link_option_dropped", m) : text("b_link_not_one_of", m)),
  not_yes_no: (m) => text("b_link_not_yes_no", m),
  not_whole_number: (m) => text("b_link_not_whole_number", m),
  out_of_range: (m) => text("b_link_out_of_range", m),
  over_cap: (m) => text("b_link_over_cap", m),
  given_twice: (m) => text("b_link_given_twice", m),
};

export class StatusView {
  constructor(root, onRetry) {
    this.box = root.querySelector(".b-status");
    this.text = root.querySelector(".b-status__text");
    this.bar = root.querySelector(".b-status__bar");
    this.retry = root.querySelector(".b-retry");
    this.detail = root.querySelector(".b-status__detail");
    this.raw = root.querySelector(".b-status__raw");
    this.python = root.querySelector(".b-python-value");
    this.retry.addEventListener("click", onRetry);
    this.box.hidden = false;
  }

  // The line naming the Python that computed what is drawn: the build's until the worker's
  // Python is ready (update), then the worker's, with each state drawn.
  onChange(change) {
    if (change.kind === "drawn") this.showPython(change.view.python);
  }

  showPython({ version, platform }) {
    setText(this.python, `Python ${version} (${platform})`);
  }

  show(kind, message, { progress = null, detail = "" } = {}) {
    this.box.dataset.state = kind;
    setText(this.text, message);
    this.bar.hidden = progress == null;
    if (progress != null) this.bar.value = progress;
    this.retry.hidden = kind !== "failed";
    this.detail.hidden = !detail;
    setText(this.raw, detail);
  }

  readyMessage(python) {
    return text("b_ready", { python: `Python ${python.version}` });
  }

  // status: {state: "loading" | "slow" | "linking" | "ready" | "failed" | "retrying", ...}.
  // Returns the sentence to announce for a failure.
  update(status) {
    if (status.state === "loading") {
      // The bar never moves back while Python starts (a retry starts it from 0 again).
      const floor = this.box.dataset.state === "loading" ? this.bar.value : 0;
      this.show("loading", stageText(status), { progress: Math.max(floor, share(status) * this.bar.max) });
    } else if (status.state === "slow") {
      this.text.textContent = text("b_slow");
    } else if (status.state === "linking") {
      this.show("loading", text("b_loading_link"), { progress: this.bar.max });
    } else if (status.state === "ready") {
      this.show("ready", this.readyMessage(status.python));
      this.showPython(status.python);
    } else if (status.state === "failed") {
      const message = `${failureText(status)} ${text("b_fail_tail")}`;
      this.show("failed", message, { detail: `${status.code}: ${status.detail}` });
      return message;
    } else if (status.state === "retrying") {
      this.show("loading", text("b_retrying"), { progress: 0 });
    }
    return null;
  }
}

export class LinkMessagesView {
  constructor(root, announcer) {
    this.announcer = announcer;
    this.box = root.querySelector(".b-urlerr");
    this.list = root.querySelector(".b-urlerr__list");
    root.querySelector(".b-urlerr__close").addEventListener("click", () => {
      this.box.hidden = true;
    });
  }

  // A link's messages are said with its summary (announce.js).
  onChange(change) {
    if (change.kind === "act" && change.action.type === "load") this.announcer.queue(this.draw(change.reply.messages));
  }

  // messages: the sim's [{code, param, value, used, args}] for a link (empty hides the box). An
  // embed's view option that was not understood is left out: its `used` is null.
  draw(messages) {
    const lines = messages.map((m) => {
      const vars = { param: m.param, value: m.value, used: m.used === null ? "" : shown(m.used), dropped: m.used === null, ...m.args };
      if (m.args.values) vars.values = m.args.values.join(", ");
      for (const name of ["min", "max"]) if (name in m.args) vars[name] = format.int(m.args[name]);
      return LINK_MESSAGES[m.code](vars);
    });
    this.list.replaceChildren(...lines.map((line) => el("li", null, line)));
    this.box.hidden = lines.length === 0;
    return lines.length ? [text("b_url_error_title"), ...lines].join(" ") : null;
  }
}

function shown(value) {
  if (typeof value === "boolean") return value ? "1" : "0";
  return typeof value === "number" ? format.int(value) : String(value);
}
