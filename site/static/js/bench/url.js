// The bench's link. The page reads its query as ordered [name, value] pairs and hands them to
// the sim, which checks them (duplicates included); after every action the sim's canonical link
// for the state goes back into the address bar. Other parameters of the page are kept.

export function readQuery(search = window.location.search) {
  return [...new URLSearchParams(search)];
}

// names: the bench's own parameters (from the spec), replaced by the link's.
export function writeURL(link, names) {
  if (document.body.dataset.embed === "true" && window.parent !== window) return; // a host's frame: its URL is not ours
  const others = readQuery().filter(([name]) => !names.includes(name));
  const search = "?" + new URLSearchParams([...new URLSearchParams(link), ...others]).toString();
  if (search === window.location.search) return;
  history.replaceState(history.state, "", window.location.pathname + search + window.location.hash);
}
