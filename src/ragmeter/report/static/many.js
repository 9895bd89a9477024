// The rows of N runs: a table (one line per row: its question and, per metric, the runs'
// lowest and highest scores), a "rows where the runs disagree" filter, and a detail with the
// runs' answers and reasons side by side. Data strings are only ever set as text.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ragmeter-many").textContent);
  var PAGE = 50;
  var table = document.getElementById("row-table");
  var detail = document.getElementById("detail");
  var state = { rows: data.rows, page: 0 };

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function fmt(v) { return v === null || v === undefined ? "-" : Number(v).toFixed(3); }

  // the same rule as report/many.py's disagreeing()
  function disagrees(row, metric, spread) {
    var columns = metric === null ? data.metrics.map(function (_, k) { return k; }) : [metric];
    return columns.some(function (k) {
      var s = row.runs.map(function (r) { return r.s[k]; }).filter(function (v) { return v !== null; });
      if (s.length < 2) return false;
      var lo = Math.min.apply(null, s), hi = Math.max.apply(null, s);
      return (lo < data.threshold && hi >= data.threshold) || hi - lo > spread;
    });
  }

  function apply() {
    var only = document.getElementById("disagree").checked;
    var chosen = document.getElementById("metric").value;
    var metric = chosen === "" ? null : Number(chosen);
    var spread = Number(document.getElementById("spread").value);
    if (!(spread >= 0)) spread = data.spread;
    state.rows = only ? data.rows.filter(function (r) { return disagrees(r, metric, spread); }) : data.rows;
    state.page = 0;
    document.getElementById("count").textContent = state.rows.length + " of " + data.rows.length + " rows";
    draw();
  }

  function drawHead() {
    var tr = el("tr");
    tr.appendChild(el("th", "id"));
    tr.appendChild(el("th", "question"));
    data.metrics.forEach(function (m) { tr.appendChild(el("th", m + " (lowest-highest)")); });
    table.tHead.appendChild(tr);
  }

  function draw() {
    var body = table.tBodies[0];
    body.textContent = "";
    state.rows.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (row) {
      var tr = el("tr");
      tr.tabIndex = 0;
      tr.appendChild(el("td", row.id));
      tr.appendChild(el("td", row.q));
      data.metrics.forEach(function (_, k) {
        var s = row.runs.map(function (r) { return r.s[k]; }).filter(function (v) { return v !== null; });
        tr.appendChild(el("td", s.length ? fmt(Math.min.apply(null, s)) + "-" + fmt(Math.max.apply(null, s)) : "-",
                          "nb"));
      });
      tr.addEventListener("click", function () { show(row); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") show(row); });
      body.appendChild(tr);
    });
    ragmeterPager(document.getElementById("pager"), state, PAGE, draw, el);
  }

  function show(row) {
    detail.textContent = "";
    detail.hidden = false;
    detail.appendChild(el("h3", row.id));
    detail.appendChild(el("p", row.q));
    var grid = el("table", null, "side");
    var head = el("tr");
    head.appendChild(el("th", ""));
    data.runs.forEach(function (name) { head.appendChild(el("th", name)); });
    grid.appendChild(head);
    var answer = el("tr");
    answer.appendChild(el("th", "answer"));
    row.runs.forEach(function (r) { answer.appendChild(el("td", r.a)); });
    grid.appendChild(answer);
    data.metrics.forEach(function (m, k) {
      var tr = el("tr");
      tr.appendChild(el("th", m));
      row.runs.forEach(function (r) {
        var td = el("td");
        td.appendChild(el("div", fmt(r.s[k]), "nb"));
        if (r.r[k]) td.appendChild(el("small", r.r[k]));
        tr.appendChild(td);
      });
      grid.appendChild(tr);
    });
    detail.appendChild(grid);
    detail.scrollIntoView();
  }

  drawHead();
  ["disagree", "metric", "spread"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", apply);
  });
  apply();
})();
