// The frames this page chooses between, as the style sheet does: its "beside" (the bench beside
// the text or the chapter) and its "bar" (the machine in a bar, the bench a sheet over the text).
// The media queries come from the page's data (templates/_page_data.html), written by the build
// from the one table of thresholds (sitebuild/frames.py) that frames.css is built from too.
const queries = JSON.parse(document.getElementById("page-frames").textContent);

export const BESIDE = window.matchMedia(queries.beside);
export const BAR = window.matchMedia(queries.bar);
