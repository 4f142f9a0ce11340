// The page's words and numbers. Interface strings come from the JSON the build embeds
// (#ui-strings, the page's language); every one is read through text() whose first argument is
// a string literal (the key), so a build check can find each key and make sure both languages
// have it.
// Settings map to keys through object literals (see summary.js), never by building a key.

let strings = null;

export function text(key, vars = {}) {
  strings ||= JSON.parse(document.getElementById("ui-strings").textContent);
  const template = strings[key];
  if (template == null) throw new Error(`no interface string "${key}"`);
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

const lang = document.documentElement.lang || "en";
const formats = {};
const formatter = (name, options) => (formats[name] ||= new Intl.NumberFormat(lang, options));

// Numbers in the page's language: num(x, digits) fixed digits, int(x) grouped, pct(x) percent.
export const format = {
  num: (x, digits = 2) => formatter(`n${digits}`, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x),
  int: (x) => formatter("int", { maximumFractionDigits: 0 }).format(x),
  pct: (x) => formatter("pct", { style: "percent", maximumFractionDigits: 1 }).format(x),
};
