// The chart library the pages load: plotly.js's core (which brings the scatter trace, the axes, legends, shapes,
// annotations, error bars and colour bars) plus only the other trace types the page scripts draw
// (frontend/static/frontend/pages/*.js). A page drawing a new trace type adds it here and runs build.sh;
// tests/frontend/test_plotly_bundle.py fails until it does.
'use strict';

var Plotly = require('plotly.js/lib/core');

Plotly.register([
    require('plotly.js/lib/bar'),
    require('plotly.js/lib/heatmap'),
    require('plotly.js/lib/scatterpolar'),
    require('plotly.js/lib/sunburst'),
]);

module.exports = Plotly;
