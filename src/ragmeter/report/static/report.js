// ragmeter report: rows table (search, sort, filter, pages) and a drill-down per row.
// Every string from the data is set with textContent: nothing in it is parsed as HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ragmeter-data").textContent);
  var raw = data.runs.map(function (run, n) {
    return JSON.parse(document.getElementById("ragmeter-rows-" + n).textContent);
  });
  var metrics = data.metrics;
  var two = data.runs.length > 1;
  var PAGE = 50;
  var LONG = 4000;

  function pick(row, names) {
    for (var i = 0; i < names.length; i++) {
      var v = row[names[i]];
      if (v !== null && v !== undefined) return v;
    }
    return null;
  }

  function asText(v) { return v === null || v === undefined ? null : typeof v === "string" ? v : JSON.stringify(v); }

  function num(v) { return typeof v === "number" ? v : null; }

  // one run's view of a row: question, answer, contexts, reference, scores, [reason, evidence]
  function view(run, index) {
    var row = raw[run][index], fields = data.runs[run].fields;
    var contexts = pick(row, fields.retrieved_contexts);
    return { q: asText(pick(row, fields.user_input)), a: asText(pick(row, fields.response)),
             c: Array.isArray(contexts) ? contexts.map(asText) : [], r: asText(pick(row, fields.reference)),
             s: metrics.map(function (m) { return num(row[m]); }),
             e: metrics.map(function (m) { return [row[m + "_reason"], row[m + "_evidence"]]; }) };
  }

  // the table's rows: ids (paired by id for two runs), question and answer for search, scores
  function tableRows() {
    var idsA = data.runs[0].ids, inB = {};
    if (two) data.runs[1].ids.forEach(function (id, n) { inB[id] = n; });
    var rows = [];
    idsA.forEach(function (id, n) {
      if (two && !Object.prototype.hasOwnProperty.call(inB, id)) return;
      var a = view(0, n), row = { i: id, ia: n, q: a.q, a: a.a, s: a.s };
      if (two) {
        var b = view(1, inB[id]);
        row.ib = inB[id];
        row.a2 = b.a;
        row.s2 = b.s;
      }
      rows.push(row);
    });
    return rows;
  }

  data.rows = tableRows();
  var state = { search: "", filters: [], sortKey: null, sortDir: 1, page: 0, rows: data.rows };

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function fmt(v) { return v === null || v === undefined ? "-" : Number(v).toFixed(3); }

  // value of a column: "id", "q", or [side, metric index] with side "a", "b" or "d" (B - A)
  function value(row, side, k) {
    var a = row.s[k], b = two ? row.s2[k] : null;
    if (side === "a") return a;
    if (side === "b") return b;
    return a === null || b === null || a === undefined || b === undefined ? null : b - a;
  }

  // one column per metric; with two runs its cell holds A -> B and B - A (sorted by B - A)
  function columns() {
    var cols = [{ label: "id", key: "id" }, { label: "question", key: "q" }];
    metrics.forEach(function (m, k) {
      cols.push({ label: m, key: [two ? "d" : "a", k], metric: true });
    });
    return cols;
  }

  // a metric name that wraps after an underscore, never inside a word
  function nameNode(name) {
    var node = el("span");
    name.split("_").forEach(function (part, n, parts) {
      node.appendChild(el("span", part + (n < parts.length - 1 ? "_" : ""), "seg"));
      if (n < parts.length - 1) node.appendChild(document.createElement("wbr"));
    });
    return node;
  }

  function scoreSpan(v, cls) {
    var low = v !== null && v !== undefined && v < 0.5;
    return el("span", fmt(v), "nb" + (low ? " low" : "") + (cls ? " " + cls : ""));
  }

  function metricCell(row, k) {
    var td = el("td", null, "num");
    if (!two) {
      td.appendChild(scoreSpan(row.s[k]));
      return td;
    }
    td.appendChild(scoreSpan(row.s[k]));
    td.appendChild(el("span", " \u2192 ", "nb"));
    td.appendChild(scoreSpan(row.s2[k]));
    var d = value(row, "d", k);
    td.appendChild(el("span", d === null ? "-" : (d > 0 ? "+" : "") + Number(d).toFixed(3), "nb diff"));
    return td;
  }

  var OPS = { "<": function (x, y) { return x < y; }, "<=": function (x, y) { return x <= y; },
              ">": function (x, y) { return x > y; }, ">=": function (x, y) { return x >= y; },
              "=": function (x, y) { return x === y; }, "==": function (x, y) { return x === y; },
              "!=": function (x, y) { return x !== y; } };

  // "faithfulness < 0.5 and b.context_recall >= 0.8", "d.faithfulness < 0", "faithfulness unscored"
  function parseFilter(text) {
    var clauses = text.trim() ? text.trim().split(/\s+and\s+/i) : [];
    return clauses.map(function (clause) {
      var m = clause.match(/^(?:([abd])\.)?([\w@.\-]+?)\s*(<=|>=|==|!=|<|>|=)\s*(-?\d+(?:\.\d+)?)$/);
      var u = clause.match(/^(?:([abd])\.)?([\w@.\-]+?)\s+(unscored|scored)$/i);
      var found = m || u;
      if (!found) throw new Error("cannot read '" + clause + "': write METRIC < 0.5, b.METRIC >= 0.8, d.METRIC < 0 or METRIC unscored");
      var k = metrics.indexOf(found[2]);
      if (k < 0) throw new Error("unknown metric '" + found[2] + "' (metrics: " + metrics.join(", ") + ")");
      var side = found[1] || "a";
      if (side !== "a" && !two) throw new Error("b. and d. need two runs");
      if (u) {
        var want = u[3].toLowerCase() === "unscored";
        return function (row) { var v = value(row, side, k); return (v === null || v === undefined) === want; };
      }
      var op = OPS[m[3]], bar = parseFloat(m[4]);
      return function (row) { var v = value(row, side, k); return v !== null && v !== undefined && op(v, bar); };
    });
  }

  function apply() {
    var needle = state.search.toLowerCase();
    var rows = data.rows.filter(function (row) {
      if (needle && [row.i, row.q, row.a, row.a2].join("\u0000").toLowerCase().indexOf(needle) < 0) return false;
      return state.filters.every(function (f) { return f(row); });
    });
    if (state.sortKey !== null) {
      var key = state.sortKey, dir = state.sortDir;
      rows = rows.slice().sort(function (x, y) {
        var a = cell(x, key), b = cell(y, key);
        if (a === null || a === undefined) return (b === null || b === undefined) ? 0 : 1;  // unscored last
        if (b === null || b === undefined) return -1;
        return (a < b ? -1 : a > b ? 1 : 0) * dir;
      });
    }
    state.rows = rows;
    state.page = Math.min(state.page, Math.max(0, Math.ceil(rows.length / PAGE) - 1));
    draw();
  }

  function cell(row, key) {
    if (key === "id") return row.i;
    if (key === "q") return row.q || "";
    return value(row, key[0], key[1]);
  }

  function drawHead() {
    var tr = el("tr");
    columns().forEach(function (col) {
      var th = el("th");
      th.appendChild(col.metric ? nameNode(col.label) : el("span", col.label, "seg"));
      th.title = col.metric && two ? "sort by B - A" : "sort";
      th.addEventListener("click", function () {
        var same = JSON.stringify(state.sortKey) === JSON.stringify(col.key);
        state.sortDir = same ? -state.sortDir : 1;
        state.sortKey = col.key;
        apply();
      });
      tr.appendChild(th);
    });
    var thead = document.querySelector("#row-table thead");
    thead.textContent = "";
    thead.appendChild(tr);
  }

  function draw() {
    var body = document.querySelector("#row-table tbody");
    body.textContent = "";
    var start = state.page * PAGE;
    state.rows.slice(start, start + PAGE).forEach(function (row) {
      var tr = el("tr");
      columns().forEach(function (col) {
        if (col.metric) {
          tr.appendChild(metricCell(row, col.key[1]));
          return;
        }
        var td = el("td", short(cell(row, col.key), 140));
        td.dir = "auto";
        tr.appendChild(td);
      });
      tr.tabIndex = 0;
      tr.addEventListener("click", function () { showDetail(row); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") showDetail(row); });
      body.appendChild(tr);
    });
    document.getElementById("count").textContent = state.rows.length + " of " + data.rows.length + " rows";
    drawPager();
  }

  function drawPager() {
    ragmeterPager(document.getElementById("pager"), state, PAGE, draw, el);
  }

  function short(text, n) {
    text = text === null || text === undefined ? "" : String(text);
    return text.length > n ? text.slice(0, n) + "\u2026" : text;
  }

  // a long text is shown cut, with a button for the rest
  function textBlock(text, cls, marks, limit) {
    var box = el("div", null, "text " + (cls || ""));
    box.dir = "auto";
    var full = text === null || text === undefined ? "" : String(text);
    function fill(limit) {
      box.textContent = "";
      var shown = full.length > limit ? full.slice(0, limit) : full;
      highlight(box, shown, marks || []);
      if (full.length > limit) {
        var more = el("button", "show all " + full.length + " characters", "more");
        more.addEventListener("click", function () { fill(Infinity); });
        box.appendChild(more);
      }
    }
    fill(limit || LONG);
    return box;
  }

  // wraps each occurrence of the unsupported statements in <mark>, as text nodes
  function highlight(box, text, marks) {
    var spans = [];
    marks.forEach(function (m) {
      if (!m) return;
      var at = text.indexOf(m);
      if (at >= 0) spans.push([at, at + m.length]);
    });
    spans.sort(function (x, y) { return x[0] - y[0]; });
    var pos = 0;
    spans.forEach(function (s) {
      if (s[0] < pos) return;
      box.appendChild(document.createTextNode(text.slice(pos, s[0])));
      box.appendChild(el("mark", text.slice(s[0], s[1]), "unsupported"));
      pos = s[1];
    });
    box.appendChild(document.createTextNode(text.slice(pos)));
  }

  function isBad(item) {
    if (!item || typeof item !== "object") return false;
    return item.verdict === 0 || item.attributed === 0 || item.supported === false ||
      (typeof item.p_supported === "number" && item.p_supported < 0.5) ||
      (typeof item.p_attributed === "number" && item.p_attributed < 0.5) ||
      (typeof item.reprint === "number" && item.reprint < 0.5);
  }

  function unsupported(evidence, out) {
    if (Array.isArray(evidence)) {
      evidence.forEach(function (item) {
        if (isBad(item) && typeof item.statement === "string") out.push(item.statement);
        unsupported(item, out);
      });
    } else if (evidence && typeof evidence === "object") {
      Object.keys(evidence).forEach(function (k) { unsupported(evidence[k], out); });
    }
    return out;
  }

  // evidence keys as words people read ("statements_from" was shown as it is stored)
  var LABELS = { statements_from: "statements taken from", repeats_dropped: "repeated statements dropped",
                 bp: "brevity penalty", precisions: "n-gram precisions", p_supported: "probability supported",
                 p_attributed: "probability attributed", verdict: "verdict (1 = yes)", k: "k",
                 original_order: "A first", swapped_order: "B first", consistent: "same in both orders" };

  function label(key) {
    return Object.prototype.hasOwnProperty.call(LABELS, key) ? LABELS[key] : String(key).replace(/_/g, " ");
  }

  function renderValue(v, depth) {
    if (Array.isArray(v)) {
      if (v.length && v.every(function (x) { return x && typeof x === "object" && !Array.isArray(x); })) {
        var keys = [];
        v.forEach(function (x) { Object.keys(x).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
        var table = el("table", null, "evidence");
        var head = el("tr");
        keys.forEach(function (k) { head.appendChild(el("th", label(k))); });
        table.appendChild(head);
        v.slice(0, 500).forEach(function (x) {
          var tr = el("tr", null, isBad(x) ? "bad" : "");
          keys.forEach(function (k) {
            var td = el("td");
            td.dir = "auto";
            td.appendChild(renderValue(x[k], depth + 1));
            tr.appendChild(td);
          });
          table.appendChild(tr);
        });
        return table;
      }
      return el("span", v.map(function (x) { return typeof x === "object" ? JSON.stringify(x) : String(x); }).join(", "));
    }
    if (v && typeof v === "object") {
      var dl = el("dl", null, "evidence");
      Object.keys(v).forEach(function (k) {
        dl.appendChild(el("dt", label(k)));
        var dd = el("dd");
        dd.appendChild(renderValue(v[k], depth + 1));
        dl.appendChild(dd);
      });
      return dl;
    }
    if (typeof v === "string" && v.length > 300) return textBlock(v, "small", [], 600);
    return el("span", v === null || v === undefined ? "-" : typeof v === "number" ? String(Math.round(v * 1e4) / 1e4) : String(v));
  }

  // one run's blocks in order: heading, answer, contexts, then one block per metric; with two
  // runs the blocks are laid out in pairs, so each metric sits beside its counterpart
  function blocks(v, title) {
    var marks = [];
    v.e.forEach(function (pair) { unsupported(pair[1], marks); });
    var answer = el("div", null, "block");
    answer.appendChild(el("h5", "Answer"));
    answer.appendChild(textBlock(v.a, "answer", marks));
    var contexts = el("div", null, "block");
    contexts.appendChild(el("h5", "Contexts"));
    var ol = el("ol", null, "contexts");
    v.c.forEach(function (c) { var li = el("li"); li.appendChild(textBlock(c)); ol.appendChild(li); });
    contexts.appendChild(ol);
    var out = [el("h4", title), answer, contexts];
    metrics.forEach(function (m, k) {
      var pair = v.e[k];
      var section = el("div", null, "metric block");
      section.appendChild(el("h5", m + ": " + fmt(v.s[k])));
      if (pair[0]) section.appendChild(el("p", pair[0], "reason"));
      if (pair[1] && typeof pair[1] === "object" && Object.keys(pair[1]).length) {
        section.appendChild(renderValue(pair[1], 0));
      } else if (typeof pair[1] === "string" && pair[1]) {
        section.appendChild(textBlock(pair[1], "small", [], 600));
      }
      out.push(section);
    });
    return out;
  }

  function showDetail(row) {
    var detail = document.getElementById("detail");
    detail.textContent = "";
    var close = el("button", "close", "close");
    close.addEventListener("click", function () { detail.hidden = true; });
    detail.appendChild(close);
    var a = view(0, row.ia);
    detail.appendChild(el("h3", row.i));
    detail.appendChild(el("h5", "Question"));
    detail.appendChild(textBlock(a.q, "question"));
    if (a.r) {
      detail.appendChild(el("h5", "Reference"));
      detail.appendChild(textBlock(a.r, "reference"));
    }
    var sides = el("div", null, two ? "sides two" : "sides");
    var left = blocks(a, two ? "Run A" : "Scores and evidence");
    var right = two ? blocks(view(1, row.ib), "Run B") : [];
    left.forEach(function (block, n) {
      sides.appendChild(block);
      if (two) sides.appendChild(right[n]);
    });
    detail.appendChild(sides);
    detail.hidden = false;
    detail.scrollIntoView({ block: "start" });
  }

  document.getElementById("search").addEventListener("input", function (e) {
    state.search = e.target.value;
    state.page = 0;
    apply();
  });
  document.getElementById("filter").addEventListener("change", function (e) {
    var error = document.getElementById("filter-error");
    try {
      state.filters = parseFilter(e.target.value);
      error.textContent = "";
    } catch (err) {
      error.textContent = err.message;
      state.filters = [];
    }
    state.page = 0;
    apply();
  });
  drawHead();
  apply();
})();
