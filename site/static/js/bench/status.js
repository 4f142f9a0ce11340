// What the bench says about itself: Python starting, ready or failed (in readable words, the raw
// detail in a disclosure, a Retry button), and the messages about a link's parameters, which the
// sim returns as codes with arguments and which are worded here in the page's language.
import { runtimeContract } from "../startup/sim-start.js";
import { el, setText } from "./dom.js";
import { format, text } from "./text.js";

// The worker's start stages and the failures, by the runtime contract's names
// (sitebuild/startup/contract.py; a test holds these tables to it): "download" (the bytes of the
// runtime's files, counted) and "start" always; the fallback adds "fallback", "package" and
// "model". Bytes are most of the wait, so they fill 90 % of the bar and the stages after them the
// rest, in the contract's order.
const megabytes = (bytes) => format.num((bytes || 0) / 1e6, 1);
const STAGE_TEXT = {
  download: (s) => (s.total
    ? text("b_loading_download", { loaded: megabytes(s.loaded), total: megabytes(s.total) })
    : text("b_loading_runtime")),
  start: () => text("b_loading_start"),
  fallback: () => text("b_loading_fallback"),
  package: () => text("b_loading_package"),
  model: () => text("b_loading_model"),
};
const STAGES = (runtimeContract().stages || []).filter((stage) => stage in STAGE_TEXT);
const share = (s) => (s.stage === "download"
  ? 0.9 * (s.total ? Math.min(1, s.loaded / s.total) : 0)
  : 0.9 + (0.1 * (STAGES.indexOf(s.stage) + 1)) / (STAGES.length + 1));
const FAILURES = {
  no_wasm: () => text("b_fail_no_wasm"),
  worker: () => text("b_fail_worker"),
  wasm: () => text("b_fail_wasm"),
  offline: () => text("b_fail_offline"),
  download: () => text("b_fail_download"),
  start: () => text("b_fail_start"),
  stalled: (f) => text("b_fail_stalled", { seconds: f.seconds }),
  died: () => text("b_fail_died"),
  message: () => text("b_fail_message"),
};
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
    this.runtime = root.querySelector(".b-runtime-value");
    this.retry.addEventListener("click", onRetry);
    this.box.hidden = false;
  }

  // The runtime's line: the build's Python until the worker's is ready (update), then the
  // worker's, and with each state drawn, the Python that computed it.
  onChange(change) {
    if (change.kind === "drawn") this.showRuntime(change.view.runtime);
  }

  showRuntime({ python, platform }) {
    setText(this.runtime, `Python ${python} (${platform})`);
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

  readyMessage(runtime) {
    return text("b_ready", { python: `Python ${runtime.python}` });
  }

  // status: {state: "loading" | "slow" | "linking" | "ready" | "failed" | "retrying", ...}.
  // Returns the sentence to announce for a failure.
  update(status) {
    if (status.state === "loading") {
      // The bar never moves back while Python starts (a retry starts it from 0 again).
      const floor = this.box.dataset.state === "loading" ? this.bar.value : 0;
      this.show("loading", STAGE_TEXT[status.stage](status), { progress: Math.max(floor, share(status) * this.bar.max) });
    } else if (status.state === "slow") {
      this.text.textContent = text("b_slow");
    } else if (status.state === "linking") {
      this.show("loading", text("b_loading_link"), { progress: this.bar.max });
    } else if (status.state === "ready") {
      this.show("ready", this.readyMessage(status.runtime));
      this.showRuntime(status.runtime);
    } else if (status.state === "failed") {
      const words = FAILURES[status.code] || FAILURES.start;
      const message = `${words(status)} ${text("b_fail_tail")}`;
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
