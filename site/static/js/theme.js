// The embed's colours, set before the first paint: theme=light|dark in the address becomes
// <html data-theme>, which style sheets read (site.css; any other value matches nothing, so the
// reader's own setting applies). The sim checks the value with the rest of the link and the
// page then sets what it accepted (embed.js), with a message if it was not understood.
// A classic script, not a module, so that it runs before the page is drawn.
(function () {
  var theme = new URLSearchParams(window.location.search).get("theme");
  if (theme !== null) document.documentElement.setAttribute("data-theme", theme);
})();
