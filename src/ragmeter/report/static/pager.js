// The pager both report pages share: "previous", "page N of M", "next" over state.rows in
// pages of `size`; `draw` redraws the page, `el` makes an element with text (never HTML).
function ragmeterPager(pager, state, size, draw, el) {
  "use strict";
  pager.textContent = "";
  var pages = Math.max(1, Math.ceil(state.rows.length / size));
  var prev = el("button", "previous"), next = el("button", "next");
  prev.disabled = state.page === 0;
  next.disabled = state.page >= pages - 1;
  prev.addEventListener("click", function () { state.page -= 1; draw(); });
  next.addEventListener("click", function () { state.page += 1; draw(); });
  pager.appendChild(prev);
  pager.appendChild(el("span", " page " + (state.page + 1) + " of " + pages + " "));
  pager.appendChild(next);
}
