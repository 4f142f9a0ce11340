// Runs esbuild (npm, pinned in package.json) for sitebuild/bundles.py: reads a JSON list of esbuild
// build options on stdin, runs them side by side, and prints {outputs: [{path, text}], metafiles}
// on stdout. Nothing is written here (write: false): the build writes the outputs into its staging
// folder, so a failed build leaves no half-written site. Errors go to stderr, one line each with
// the file and line, and the exit status is 1.
import { build } from "esbuild";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const jobs = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// A job's `contents` ({path: text}): what esbuild reads for those files instead of their bytes on
// disk (the style sheets with their named frames written out), under their own paths, so the
// source maps name the files themselves.
const given = (contents) => ({
  name: "given-contents",
  setup(build) {
    build.onLoad({ filter: /.*/ }, (args) => (args.path in contents ? { contents: contents[args.path], loader: "css" } : undefined));
  },
});

try {
  const results = await Promise.all(jobs.map(({ contents, ...options }) =>
    build({ ...options, plugins: contents ? [given(contents)] : [], write: false, metafile: true, logLevel: "silent" })));
  const outputs = results.flatMap((result) => result.outputFiles.map((file) => ({ path: file.path, text: file.text })));
  process.stdout.write(JSON.stringify({ outputs, metafiles: results.map((result) => result.metafile) }));
} catch (failure) {
  for (const error of failure.errors || [{ text: String(failure) }]) {
    const where = error.location ? `${error.location.file}:${error.location.line}: ` : "";
    process.stderr.write(`${where}${error.text}\n`);
  }
  process.exit(1);
}
