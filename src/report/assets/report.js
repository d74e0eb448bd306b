// inferlint report: the theme switch, and reading chart values by pointer or keyboard.
// Values are put on the page with textContent only: chart labels come from input files.
(function () {
  'use strict';
  var root = document.documentElement;

  function currentTheme() {
    var t = root.getAttribute('data-theme');
    if (t === 'light' || t === 'dark') return t;
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  var toggle = document.querySelector('[data-theme-toggle]');
  if (toggle) {
    toggle.addEventListener('click', function () {
      var next = currentTheme() === 'dark' ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { localStorage.setItem('inferlint-theme', next); } catch (e) { /* storage may be off for file:// */ }
    });
  }

  // Printed pages show the folded parts, but not the long data tables.
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details.gloss').forEach(function (d) {
      if (!d.open) { d.open = true; d.setAttribute('data-print-opened', ''); }
    });
  });
  window.addEventListener('afterprint', function () {
    document.querySelectorAll('details[data-print-opened]').forEach(function (d) {
      d.open = false; d.removeAttribute('data-print-opened');
    });
  });

  var tip = document.querySelector('.tt');

  function fmt(v) {
    if (v === null || v === undefined) return '\u2013';
    var digits = Math.abs(v) >= 100 || Number.isInteger(v) ? 0 : 1;
    return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  }

  function place(x, y) {
    if (!tip) return;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.min(x + 14, window.innerWidth - w - 8);
    var top = y - h - 12 < 8 ? y + 16 : y - h - 12;
    tip.style.left = Math.max(8, left) + 'px';
    tip.style.top = top + 'px';
  }

  function showLines(lines, x, y) {
    if (!tip) return;
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    lines.forEach(function (line, i) {
      var row = document.createElement('div');
      if (line.cls) {
        var k = document.createElement('span');
        k.className = 'k ' + line.cls;
        row.appendChild(k);
      }
      if (i === 0) {
        var b = document.createElement('b');
        b.textContent = line.text;
        row.appendChild(b);
      } else {
        row.appendChild(document.createTextNode(line.text));
      }
      tip.appendChild(row);
    });
    tip.hidden = false;
    place(x, y);
  }

  function hide() { if (tip) tip.hidden = true; }

  // The index of the x value nearest to v (xs ascending).
  function nearest(xs, v) {
    var lo = 0, hi = xs.length - 1;
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (xs[mid] <= v) lo = mid; else hi = mid;
    }
    return Math.abs(xs[hi] - v) < Math.abs(xs[lo] - v) ? hi : lo;
  }

  document.querySelectorAll('figure[data-chart]').forEach(function (fig) {
    var svg = fig.querySelector('.plot svg');
    if (!svg) return;
    fig.querySelectorAll('.bar[data-tip]').forEach(function (bar) {
      function on(ev) {
        var r = bar.getBoundingClientRect();
        var x = ev && ev.clientX !== undefined ? ev.clientX : r.right;
        var y = ev && ev.clientY !== undefined ? ev.clientY : r.top;
        showLines([{ text: bar.getAttribute('data-tip') }], x, y);
      }
      bar.addEventListener('pointermove', on);
      bar.addEventListener('focus', function () { on(null); });
      bar.addEventListener('pointerleave', hide);
      bar.addEventListener('blur', hide);
    });
    var script = fig.querySelector('script.chart-data');
    var hit = svg.querySelector('.hit');
    var cross = svg.querySelector('.cross');
    if (!script || !hit || !cross) return;
    var data;
    try { data = JSON.parse(script.textContent); } catch (e) { return; }
    if (!data.x || !data.x.length) return;
    var index = -1;

    function pxOf(x) {
      if (data.x1 === data.x0) return (data.px0 + data.px1) / 2;
      return data.px0 + (x - data.x0) / (data.x1 - data.x0) * (data.px1 - data.px0);
    }

    function show(i, clientX, clientY) {
      index = Math.max(0, Math.min(data.x.length - 1, i));
      var x = data.x[index];
      var px = pxOf(x);
      cross.setAttribute('x1', px);
      cross.setAttribute('x2', px);
      cross.setAttribute('visibility', 'visible');
      var lines = [{ text: fmt(x) + ' ' + data.xUnit }];
      data.series.forEach(function (s) {
        lines.push({ cls: s.cls, text: s.label + ': ' + fmt(s.ys[index]) });
      });
      (data.events || []).forEach(function (e) {
        var step = data.x.length > 1 ? Math.abs(data.x[Math.min(index + 1, data.x.length - 1)] - data.x[Math.max(index - 1, 0)]) / 2 : 0;
        if (Math.abs(e.x - x) <= step) lines.push({ text: e.label });
      });
      if (clientX === undefined) {
        var box = svg.getBoundingClientRect();
        var vb = svg.viewBox.baseVal;
        clientX = box.left + px / vb.width * box.width;
        clientY = box.top + box.height * 0.3;
      }
      showLines(lines, clientX, clientY);
    }

    hit.addEventListener('pointermove', function (ev) {
      var box = svg.getBoundingClientRect();
      var vb = svg.viewBox.baseVal;
      var px = (ev.clientX - box.left) / box.width * vb.width;
      var x = data.x0 + (px - data.px0) / (data.px1 - data.px0) * (data.x1 - data.x0);
      show(nearest(data.x, x), ev.clientX, ev.clientY);
    });
    function leave() { cross.setAttribute('visibility', 'hidden'); hide(); }
    hit.addEventListener('pointerleave', leave);
    hit.addEventListener('blur', leave);
    hit.addEventListener('focus', function () { show(index < 0 ? 0 : index); });
    hit.addEventListener('keydown', function (ev) {
      var step = ev.shiftKey ? 10 : 1;
      var next = null;
      if (ev.key === 'ArrowRight') next = index + step;
      else if (ev.key === 'ArrowLeft') next = index - step;
      else if (ev.key === 'Home') next = 0;
      else if (ev.key === 'End') next = data.x.length - 1;
      else if (ev.key === 'Escape') { leave(); return; }
      if (next === null) return;
      ev.preventDefault();
      show(next);
    });
  });
  // Lets a headless browser test see that the script ran to its end.
  root.setAttribute('data-js', 'ready');
})();
