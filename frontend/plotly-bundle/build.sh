#!/usr/bin/env bash
# Rebuilds the chart library the pages load (frontend/static/frontend/vendor/plotly-<version>-charts.min.js) and
# its RECIPE.json from the locked npm packages (package-lock.json). Needs Node 20+ and the npm registry;
# node_modules/ stays here, untracked. Change a version in package.json and run `npm install` here first to
# update the lock; add a trace type in entry.js. Commit the bundle, RECIPE.json and the lock together.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
node build.mjs
