// ragmeter labelling page: one sampled row at a time, a label per metric (keys or buttons),
// saved as labels.jsonl by a download, and kept in the browser's storage for this data so
// that closing the tab loses nothing. Every string from the data is set with textContent.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ragmeter-label-data").textContent);
  var labels = {};  // metric -> id -> label, on the metric's own scale
  data.metrics.forEach(function (m) { labels[m.name] = Object.assign({}, data.given[m.name] || {}); });
  var at = 0, focus = 0;
  // one key per dataset, metric set and scale: another run's page over the same rows resumes
  // too, but 0/1 labels are never restored into a 1-5 page (a 1 would become the lowest rating)
  var storeKey = "ragmeter-labels:" + data.dataset_sha256 + ":" +
                 data.metrics.map(function (m) { return m.name + (m.scale ? "@" + m.scale.join("-") : "@0-1"); })
                   .join(",");

  function keep() {
    try {
      localStorage.setItem(storeKey, JSON.stringify({ labels: labels,
                                                      labeller: document.getElementById("labeller").value }));
    } catch (err) { /* storage off (private window, quota): labels.jsonl still saves them */ }
  }

  function restore() {
    var kept = null, count = 0;
    try { kept = JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (err) { kept = null; }
    if (kept && kept.labels) {
      data.metrics.forEach(function (m) {
        Object.keys(kept.labels[m.name] || {}).forEach(function (id) {
          labels[m.name][id] = kept.labels[m.name][id];
          count += 1;
        });
      });
      if (kept.labeller && !document.getElementById("labeller").value) document.getElementById("labeller").value = kept.labeller;
    }
    document.getElementById("stored").textContent = count ?
      "restored " + count + " labels kept in this browser; they stay here until saved or forgotten" :
      "labels are kept in this browser as you go and restored when this page is opened again";
  }

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function block(title, text) {
    var box = el("div", null, "block");
    box.appendChild(el("h5", title));
    var body = el("div", text === null || text === undefined ? "-" : text, "text");
    body.dir = "auto";
    box.appendChild(body);
    return box;
  }

  function done(row) {
    return data.metrics.every(function (m) { return Object.prototype.hasOwnProperty.call(labels[m.name], row.id); });
  }

  function draw() {
    var row = data.rows[at], item = document.getElementById("item");
    item.textContent = "";
    item.appendChild(el("h3", "row " + (at + 1) + " of " + data.rows.length + ": " + row.id));
    item.appendChild(block("Question", row.question));
    item.appendChild(block("Answer", row.answer));
    var contexts = el("div", null, "block");
    contexts.appendChild(el("h5", "Contexts"));
    var ol = el("ol", null, "contexts");
    row.contexts.forEach(function (c) { var li = el("li"); var t = el("div", c, "text"); t.dir = "auto"; li.appendChild(t); ol.appendChild(li); });
    contexts.appendChild(ol);
    item.appendChild(contexts);
    if (row.reference) item.appendChild(block("Reference", row.reference));
    data.metrics.forEach(function (m, k) {
      var box = el("div", null, "metric block" + (k === focus ? " focus" : ""));
      box.appendChild(el("h4", m.name + ": " + m.question));
      var chosen = labels[m.name][row.id];
      m.choices.forEach(function (c) {
        var button = el("button", c.key + " · " + c.text, chosen === c.value ? "chosen" : "");
        button.setAttribute("data-metric", m.name);
        button.setAttribute("data-value", String(c.value));
        button.addEventListener("click", function () { choose(k, c.value); });
        box.appendChild(button);
      });
      if (document.getElementById("show-judge").checked) {
        var judge = row.judge[m.name];
        box.appendChild(el("p", "the judge: " + (judge.score === null ? "unscored" : Number(judge.score).toFixed(3)) +
                                 (judge.reason ? " · " + judge.reason : ""), "reason"));
      }
      item.appendChild(box);
    });
    var count = data.rows.filter(done).length;
    document.getElementById("progress").textContent = count + " of " + data.rows.length + " rows labelled";
  }

  function choose(k, value) {
    var row = data.rows[at];
    labels[data.metrics[k].name][row.id] = value;
    keep();
    if (k < data.metrics.length - 1) {
      focus = k + 1;
    } else {
      focus = 0;
      if (at < data.rows.length - 1) at += 1;
    }
    draw();
  }

  function jsonl() {
    var who = document.getElementById("labeller").value.trim(), lines = [];
    data.metrics.forEach(function (m) {
      Object.keys(labels[m.name]).forEach(function (id) {
        var entry = { id: id, metric: m.name, label: labels[m.name][id], dataset_sha256: data.dataset_sha256 };
        if (m.scale) entry.scale = m.scale;
        if (who) entry.labeller = who;
        lines.push(JSON.stringify(entry));
      });
    });
    return lines.join("\n") + (lines.length ? "\n" : "");
  }

  function save() {
    var link = el("a");
    link.href = URL.createObjectURL(new Blob([jsonl()], { type: "application/x-ndjson" }));
    link.download = "labels.jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  document.getElementById("save").addEventListener("click", save);
  document.getElementById("forget").addEventListener("click", function () {
    try { localStorage.removeItem(storeKey); } catch (err) { /* nothing kept */ }
    document.getElementById("stored").textContent = "labels kept in this browser forgotten (those on the page stay until it is closed)";
  });
  // a control clicked keeps the focus, and with it the keys: give the keys back to the page
  document.getElementById("show-judge").addEventListener("change", function (e) { e.target.blur(); draw(); });
  document.getElementById("labeller").addEventListener("change", keep);
  document.getElementById("load").addEventListener("change", function (e) {
    var file = e.target.files[0];
    if (!file) return;
    file.text().then(function (text) {
      text.split("\n").forEach(function (line) {
        if (!line.trim()) return;
        var entry = JSON.parse(line);
        if (labels[entry.metric]) labels[entry.metric][String(entry.id)] = entry.label;
      });
      e.target.blur();
      keep();
      draw();
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.id === "labeller") {  // typing a name; Enter or Escape gives the keys back
      if (e.key === "Enter" || e.key === "Escape") { e.target.blur(); e.preventDefault(); }
      return;
    }
    var m = data.metrics[focus], hit = m.choices.filter(function (c) { return c.key === e.key; })[0];
    if (hit) { choose(focus, hit.value); e.preventDefault(); return; }
    if (e.key === "ArrowRight" && at < data.rows.length - 1) { at += 1; focus = 0; draw(); }
    else if (e.key === "ArrowLeft" && at > 0) { at -= 1; focus = 0; draw(); }
    else if (e.key === "s") save();
  });
  restore();
  at = Math.max(0, data.rows.findIndex(function (row) { return !done(row); }));  // resume at the first unlabelled row
  draw();
})();
