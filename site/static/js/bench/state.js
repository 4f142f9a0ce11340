// The bench's state and its URL: what a link must carry to reproduce what the reader saw.
// The sim parses and checks the settings (command "settings"); this module only moves strings.

export const SETTING_NAMES = ["draft", "gamma", "greedy", "batch", "seed", "rule"];
// Besides the sim's settings, the link records how far the reader went: passes on the tape
// and rounds in the tubes. They are counts, checked here as whole numbers in a range.
export const PROGRESS_LIMITS = { steps: [0, 200], rounds: [0, 100] };

export function readQuery(search = window.location.search) {
  const params = new URLSearchParams(search);
  const query = {};
  for (const name of SETTING_NAMES) if (params.has(name)) query[name] = params.get(name);
  const progress = {};
  const errors = [];
  for (const [name, [low, high]] of Object.entries(PROGRESS_LIMITS)) {
    if (!params.has(name)) continue;
    const text = params.get(name);
    if (/^[0-9]{1,4}$/.test(text.trim()) && Number(text) >= low && Number(text) <= high) {
      progress[name] = Number(text);
    } else {
      errors.push({ param: name, value: text, message: `${name} must be a whole number from ${low} to ${high}` });
    }
  }
  return { query, progress, errors, hasAny: Object.keys(query).length + Object.keys(progress).length + errors.length > 0 };
}

export function queryString(settings, progress) {
  const params = new URLSearchParams();
  params.set("draft", settings.draft);
  params.set("gamma", String(settings.gamma));
  params.set("greedy", settings.greedy ? "1" : "0");
  params.set("batch", String(settings.batch));
  params.set("seed", String(settings.seed));
  params.set("rule", settings.rule);
  params.set("steps", String(progress.steps));
  params.set("rounds", String(progress.rounds));
  return "?" + params.toString();
}

export function writeURL(settings, progress) {
  const search = queryString(settings, progress);
  if (search === window.location.search) return search;
  history.replaceState(history.state, "", window.location.pathname + search + window.location.hash);
  return search;
}
