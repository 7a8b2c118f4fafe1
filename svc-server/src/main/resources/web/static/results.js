// svc results pages: draws the charts described by the page's embedded JSON (#chart-data) with
// Chart.js, and turns the list's ticked rows into a /results/compare?ids=a,b link.
(function () {
  'use strict';

  var COLORS = ['#2458d6', '#d1495b', '#1a7f37', '#b07a00', '#8250df', '#0a7ea4', '#bc4c00', '#57606a'];

  function readSpecs() {
    var block = document.getElementById('chart-data');
    if (!block) {
      return null;
    }
    try {
      return JSON.parse(block.textContent);
    } catch (e) {
      return null;
    }
  }

  function axisTitle(text) {
    return { display: !!text, text: text || '' };
  }

  function datasets(spec) {
    var category = spec.x.kind === 'category';
    return spec.series.map(function (s, i) {
      var color = COLORS[i % COLORS.length];
      var d = {
        label: s.label,
        borderColor: color,
        backgroundColor: spec.type === 'bar' ? color + 'b3' : color,
        borderWidth: spec.type === 'bar' ? 1 : 2
      };
      if (category) {
        d.data = s.values;
        if (spec.type === 'line') {
          d.spanGaps = true;
          d.pointRadius = 3;
        }
      } else {
        d.data = s.points.map(function (p) { return { x: p[0], y: p[1] }; });
        d.pointRadius = spec.markers ? 4 : 0;
        // unparsed data is taken as sorted by x (the axis would span the first and last points only);
        // a time trace is, a sweep's steps in the order run are not
        if (!spec.markers) {
          d.parsing = false;
        }
      }
      if (s.invalid) {
        // an invalid sweep step is drawn as a cross, a larger mark than the others
        d.pointStyle = s.invalid.map(function (bad) { return bad ? 'crossRot' : 'circle'; });
        d.pointRadius = s.invalid.map(function (bad) { return bad ? 7 : 4; });
      }
      if (s.steps) {
        d.svcSteps = s.steps;
        d.svcInvalid = s.invalid || [];
      }
      if (s.axis) {
        d.yAxisID = s.axis;
        if (spec.type === 'line') {
          d.borderDash = [6, 4];
        }
      }
      return d;
    });
  }

  // the tooltip of a sweep point names its step's load; other charts keep Chart.js's own title
  function stepTitle(items) {
    if (!items.length || !items[0].dataset.svcSteps) {
      return undefined;
    }
    var i = items[0].dataIndex;
    return items[0].dataset.svcSteps[i] + (items[0].dataset.svcInvalid[i] ? ' (invalid)' : '');
  }

  function config(spec) {
    var category = spec.x.kind === 'category';
    var y = {
      type: spec.y.log ? 'logarithmic' : 'linear',
      title: axisTitle(spec.y.title),
      beginAtZero: !spec.y.log
    };
    if (typeof spec.y.min === 'number') {
      y.min = spec.y.min;
    }
    if (typeof spec.y.max === 'number') {
      y.max = spec.y.max;
    }
    var scales = {
      x: category ? { type: 'category', title: axisTitle(spec.x.title) }
        : { type: 'linear', title: axisTitle(spec.x.title) },
      y: y
    };
    if (spec.y1) {
      scales.y1 = { type: 'linear', position: 'right', beginAtZero: true, title: axisTitle(spec.y1.title),
        grid: { drawOnChartArea: false } };
    }
    return {
      type: spec.type,
      data: { labels: category ? spec.x.labels : undefined, datasets: datasets(spec) },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: category ? 'index' : 'nearest', intersect: false },
        plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: { title: stepTitle } } },
        scales: scales
      }
    };
  }

  function drawCharts() {
    var specs = readSpecs();
    var canvases = document.querySelectorAll('canvas.chart[data-chart]');
    if (!specs || canvases.length === 0) {
      return;
    }
    if (!window.Chart) {
      canvases.forEach(function (c) {
        c.insertAdjacentHTML('afterend', '<p class="error">The chart library did not load.</p>');
      });
      return;
    }
    window.svcCharts = [];
    canvases.forEach(function (canvas) {
      var spec = specs[canvas.getAttribute('data-chart')];
      if (!spec) {
        return;
      }
      window.svcCharts.push(new window.Chart(canvas, config(spec)));
      canvas.setAttribute('data-rendered', 'true');
    });
  }

  function comparePicker(form) {
    var button = document.getElementById('compare');
    var hint = document.getElementById('compare-hint');
    function picked() {
      return Array.prototype.map.call(form.querySelectorAll('input[name="compare"]:checked'),
        function (box) { return box.value; });
    }
    function update() {
      var n = picked().length;
      if (button) {
        button.disabled = n < 2;
      }
      if (hint) {
        hint.textContent = n < 2 ? 'Tick two or more results.' : n + ' selected.';
      }
    }
    form.addEventListener('change', update);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var ids = picked();
      if (ids.length >= 2) {
        window.location.href = '/results/compare?ids=' + ids.map(encodeURIComponent).join(',');
      }
    });
    window.addEventListener('pageshow', update);
    update();
  }

  function start() {
    var form = document.getElementById('compare-form');
    if (form) {
      comparePicker(form);
    }
    drawCharts();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
