// The heads' table (models/<lang>-heads.json: sim.free_drafts.SkipGramHeads, counted by the build from
// the book) stays out of the bytes a page loads until live: a call that needs it is answered with code
// "needs_heads", and then the table is fetched beside the book's model, sent with use_heads, and the
// call asked again. A worker started afresh asks again, and the browser's cache answers.
export function withHeads(call) {
  return async (command, args, onPartial) => {
    try {
      return await call(command, args, onPartial);
    } catch (error) {
      if (error.code !== "needs_heads") throw error;
      const response = await fetch(headsAddress());
      if (!response.ok) throw new Error(`the heads' table: HTTP ${response.status}`);
      await call("use_heads", { heads: await response.text() });
      return call(command, args, onPartial);
    }
  };
}

// Beside the page's model file, with its version: the build counts both from the same books.
// The page's start settings give the model's address, relative to the page (sitebuild/startup).
function headsAddress() {
  const model = document.querySelector("[data-model]").dataset.model;
  return model.replace(/([a-z]+)\.json(\?|$)/, "$1-heads.json$2");
}
