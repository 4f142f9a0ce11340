// The first live proof: one speculative step computed by the sim in Pyodide, drawn as a row of tokens.
import { SimClient } from "./sim-client.js";

const strings = JSON.parse(document.getElementById("ui-strings").textContent);

function tokenCell(text, mark, label) {
  const cell = document.createElement("li");
  cell.className = `token token--${mark}`;
  const word = document.createElement("span");
  word.className = "token__text";
  word.textContent = text;
  const sign = document.createElement("span");
  sign.className = "token__mark";
  sign.setAttribute("aria-hidden", "true");
  sign.textContent = { kept: "●", rejected: "✕", void: "·", target: "◆" }[mark];
  const sr = document.createElement("span");
  sr.className = "visually-hidden";
  sr.textContent = ` (${label})`;
  cell.append(word, sign, sr);
  return cell;
}

export function drawStep(root, step) {
  const list = root.querySelector(".step__tokens");
  list.replaceChildren();
  let rejected = false;
  for (const guess of step.guesses) {
    let mark = guess.kept ? "kept" : "rejected";
    if (rejected) mark = "void";
    if (!guess.kept) rejected = true;
    list.append(tokenCell(guess.text, mark, strings[`mark_${mark}`]));
  }
  const last = step.written_text[step.written_text.length - 1];
  list.append(tokenCell(last, "target", strings[step.bonus != null ? "mark_bonus" : "mark_replacement"]));
  root.querySelector(".step__context").textContent = step.context_text;
  root.querySelector(".step__written").textContent = String(step.n_written);
  root.querySelector(".step__runtime").textContent = `Python ${step.runtime.python} (${step.runtime.platform})`;
  root.dataset.platform = step.runtime.platform;
  root.dataset.seed = String(step.settings.seed);
}

export function startLiveStep(config) {
  const root = document.getElementById("live-step");
  if (!root) return;
  const status = root.querySelector(".runtime-status");
  const button = root.querySelector("button.step__run");
  const setStatus = (state, text) => {
    status.dataset.state = state;
    status.textContent = text;
  };
  const client = new SimClient({
    workerURL: config.worker,
    pyodideURL: config.pyodide,
    simURL: config.sim,
    modelURL: config.model,
    onProgress: (stage) => setStatus("loading", strings[`loading_${stage}`]),
  });
  setStatus("loading", strings.loading_runtime);
  let seed = Number(root.dataset.seed || 1);
  client.ready.then(
    (runtime) => {
      setStatus("ready", strings.runtime_ready.replace("{python}", `Python ${runtime.python}`));
      button.disabled = false;
    },
    (error) => setStatus("failed", strings.runtime_failed.replace("{error}", error.message)),
  );
  button.addEventListener("click", async () => {
    seed += 1;
    button.disabled = true;
    try {
      const step = await client.call("step", { prefix: root.dataset.prefix, draft: "bigram", gamma: 4, seed });
      drawStep(root, step);
    } catch (error) {
      setStatus("failed", strings.runtime_failed.replace("{error}", error.message));
    } finally {
      button.disabled = false;
    }
  });
}
