// Bundles entry.js (plotly.js's core + the trace types the charts draw) into one minified file under
// frontend/static/frontend/vendor/, and writes RECIPE.json: the versions, the trace types and the file's sha256.
// Run through build.sh, which installs the locked packages first.
import {createHash} from "node:crypto";
import {copyFileSync, readFileSync, writeFileSync, unlinkSync, readdirSync} from "node:fs";
import {basename, dirname, join, relative} from "node:path";
import {fileURLToPath} from "node:url";
import {createRequire} from "node:module";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const vendor = join(repo, "frontend", "static", "frontend", "vendor");
const require = createRequire(import.meta.url);
const plotlyVersion = require("plotly.js/package.json").version;
const esbuildVersion = require("esbuild/package.json").version;
const out = join(vendor, `plotly-${plotlyVersion}-charts.min.js`);
const license = join(vendor, `plotly-${plotlyVersion}.LICENSE.txt`);

// The trace types: scatter comes with lib/core; the others are the lib/<trace> modules entry.js registers.
const entry = readFileSync(join(here, "entry.js"), "utf8");
const registered = [...entry.matchAll(/require\('plotly\.js\/lib\/(\w+)'\)/g)].map((m) => m[1]).filter((m) => m !== "core");
const traces = ["scatter", ...registered];

// plotly.js's own library build (its esbuild-config.js), without the plugins for what these traces do not use:
// WebGL shaders (gl traces) and maplibre's stylesheet (map traces), whose one require is stubbed out.
const noMapStyles = {
  name: "no-map-styles",
  setup(build) {
    build.onResolve({filter: /maplibre-gl\.css$/}, () => ({path: "maplibre-gl.css", namespace: "stub"}));
    build.onLoad({filter: /.*/, namespace: "stub"}, () => ({contents: "", loader: "js"}));
  },
};
await esbuild.build({
  entryPoints: [join(here, "entry.js")], outfile: out, bundle: true, format: "iife", globalName: "Plotly",
  minify: true, target: "es2016", legalComments: "eof", logLevel: "warning", plugins: [noMapStyles],
  banner: {js: `/*! plotly.js v${plotlyVersion} with the traces ${traces.join(", ")} (frontend/plotly-bundle). ` +
               `Copyright (c) Plotly Technologies Inc. MIT license: ${basename(license)} */`},
  define: {global: "window", "define.amd": "false", "process.env.NODE_DEBUG": "false"},
});
// iife + globalName assigns `var Plotly = ...`; the pages read window.Plotly, which a top-level var is.

copyFileSync(require.resolve("plotly.js/LICENSE"), license);
for (const name of readdirSync(vendor)) {  // an older version's files are replaced, not kept beside these
  const path = join(vendor, name);
  if (name.startsWith("plotly-") && path !== out && path !== license) unlinkSync(path);
}
const body = readFileSync(out);
const recipe = {
  file: relative(repo, out),
  license: relative(repo, license),
  sha256: createHash("sha256").update(body).digest("hex"),
  bytes: body.length,
  traces,
  packages: {"plotly.js": plotlyVersion, esbuild: esbuildVersion},
  entry: "frontend/plotly-bundle/entry.js",
  rebuild: "frontend/plotly-bundle/build.sh",
};
writeFileSync(join(here, "RECIPE.json"), JSON.stringify(recipe, null, 2) + "\n");
console.log(`${recipe.file}: ${body.length} bytes, traces ${traces.join(", ")}, sha256 ${recipe.sha256}`);
