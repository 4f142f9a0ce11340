// The page's words and numbers. Interface strings come from the JSON the build embeds
// (#ui-strings, the page's language); every one is read through text() whose first argument is
// a string literal (the key), so a build check can find each key and make sure both languages
// have it.
// A choice among keys is an object literal naming each key (parts.js's PART_NAMES), never a key built from parts.
// The one other way in is declaredText: a key that a table of the build declares and hands the
// page in its data (the start contract's words for each stage and failure), which the build
// checks where it is declared (sitebuild/js_strings.py, `declared`).

let strings = null;

function filled(key, vars) {
  strings ||= JSON.parse(document.getElementById("ui-strings").textContent);
  const template = strings[key];
  if (template == null) throw new Error(`no interface string "${key}"`);
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

export function text(key, vars = {}) {
  return filled(key, vars);
}

export function declaredText(key, vars = {}) {
  return filled(key, vars);
}

const lang = document.documentElement.lang || "en";

// Numbers in the page's language: num(x, digits) fixed digits, int(x) grouped, pct(x) percent,
// upTo(x, digits) at most that many digits. The page's languages (English, Chinese) write numbers
// alike, 1,234.5 and 12.5%, so they are written here as Intl.NumberFormat writes them, without it:
// its first construction loads the locale's data, 150 ms (en) to 350 ms (zh-Hans) of a phone's
// main thread at 4x CPU throttling, in one task as the bench opens. Another language uses Intl.
const OURS = /^(en|zh)\b/i.test(lang);
const formats = {};
const formatter = (name, options) => (formats[name] ||= new Intl.NumberFormat(lang, options));

// |x| as decimal digits and the place of the point, from its shortest round-trip form (as ICU
// rounds it): 12.5 -> ["125", 2], 0.05 -> ["5", -1], 0 -> ["", 0].
function decimal(x) {
  const [mantissa, exponent = "0"] = Math.abs(x).toString().split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = whole + fraction;
  const lead = digits.length - digits.replace(/^0+/, "").length;
  return [digits.slice(lead), whole.length + Number(exponent) - lead];
}

// x rounded half away from zero at `places` decimals (shift: the point moved right first, 2 for
// a percentage), grouped by three, with the fraction's trailing zeros down to `least` digits.
function written(x, places, least = places, shift = 0) {
  const [digits, at] = decimal(x);
  const keep = at + shift + places; // the digits kept, from the first
  let n = 0n;
  if (keep >= 0) {
    n = BigInt(digits.slice(0, keep).padEnd(keep, "0") || "0");
    if (digits[keep] >= "5") n += 1n;
  }
  const s = n.toString().padStart(places + 1, "0");
  const whole = s.slice(0, s.length - places).replace(/\B(?=(\d{3})+$)/g, ",");
  let fraction = s.slice(s.length - places);
  while (fraction.length > least && fraction.endsWith("0")) fraction = fraction.slice(0, -1);
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  return sign + whole + (fraction ? "." + fraction : "");
}

const ours = (write, name, options) => (x) => (OURS && Number.isFinite(x) ? write(x) : formatter(name, options).format(x));

export const format = {
  num: (x, digits = 2) => ours((v) => written(v, digits), `n${digits}`, { minimumFractionDigits: digits, maximumFractionDigits: digits })(x),
  int: ours((x) => written(x, 0), "int", { maximumFractionDigits: 0 }),
  pct: ours((x) => written(x, 1, 0, 2) + "%", "pct", { style: "percent", maximumFractionDigits: 1 }),
  upTo: (x, digits) => ours((v) => written(v, digits, 0), `u${digits}`, { maximumFractionDigits: digits })(x),
};
