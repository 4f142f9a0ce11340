// The one way scripts read interface strings (the build checks every key it sees here).
const strings = JSON.parse(document.getElementById("ui-strings").textContent);

export function text(key, values = {}) {
  let out = strings[key];
  for (const [name, value] of Object.entries(values)) out = out.replace(`{${name}}`, value);
  return out;
}
