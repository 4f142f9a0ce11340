// The bench's link. The page reads its query as ordered [name, value] pairs and hands them to
// the sim, which checks them (duplicates included); after every action the sim's canonical link
// for the state goes back into the address bar. Other parameters of the page are kept.

export function readQuery(search = window.location.search) {
  return [...new URLSearchParams(search)];
}

// A host's frame: its URL is not ours.
const framed = () => document.body.dataset.embed === "true" && window.parent !== window;

// names: the bench's own parameters (from the spec), replaced by the link's.
export function writeURL(link, names) {
  if (framed()) return;
  const others = readQuery().filter(([name]) => !names.includes(name));
  const search = "?" + new URLSearchParams([...new URLSearchParams(link), ...others]).toString();
  if (search === window.location.search) return;
  history.replaceState(history.state, "", window.location.pathname + search + window.location.hash);
}

// The address bar gets the state's link once the queue is through, not after each action: a
// burst of clicks or a dragged slider writes one history entry, not dozens (each write also makes
// Chromium fetch the favicon again). names: as writeURL's.
export class AddressView {
  constructor(names) {
    this.names = names;
    this.changed = false; // a bench action ran since the address bar was last written
  }

  onChange(change, state) {
    if (change.kind === "act") this.changed = true;
    else if (change.kind === "busy" && !change.busy && this.changed) {
      writeURL(state.view.link, this.names);
      this.changed = false;
    }
  }
}

// One parameter of the page's own (not the sim's): set to value, or removed with null.
export function setPageParam(name, value) {
  if (framed()) return;
  const params = new URLSearchParams(window.location.search);
  if (value == null) params.delete(name);
  else params.set(name, value);
  const search = params.toString() ? "?" + params.toString() : "";
  if (search === window.location.search) return;
  history.replaceState(history.state, "", window.location.pathname + search + window.location.hash);
}
