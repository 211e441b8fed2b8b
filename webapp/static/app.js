// outreachd — small progressive enhancements; every page works without this file.
// 1. [data-copy]: a button that copies the value of the element named by its data-copy id.
// 2. form[data-inplace]: posted with fetch; the JSON answer {ok, text} is shown in the
//    <output> named by data-inplace, instead of loading a new page (Send test).
// 3. button[data-preview] (hidden without this file): posts its form's events, filter and id to
//    data-action and shows the answer {ok, text} in the <output> named by data-preview (a
//    destination filter's "matches N of the last 100 events").
"use strict";
document.addEventListener("click", function (e) {
  var btn = e.target.closest("button[data-copy]");
  if (!btn) return;
  e.preventDefault();
  var el = document.getElementById(btn.getAttribute("data-copy"));
  if (!el) return;
  var text = el.value || el.textContent;
  var done = function () {
    var old = btn.textContent;
    btn.textContent = "Copied";
    setTimeout(function () { btn.textContent = old; }, 1500);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { el.select && el.select(); });
  } else if (el.select) {
    el.select();
    try { document.execCommand("copy"); done(); } catch (err) { /* the text stays selected */ }
  }
});
// postAndShow posts body to url and shows the JSON answer {ok, text} in out, with btn disabled
// meanwhile (waiting says what is going on).
function postAndShow(url, body, out, btn, waiting) {
  if (btn) btn.disabled = true;
  out.className = "result";
  out.textContent = waiting;
  fetch(url, {
    method: "POST",
    body: body,
    headers: { "Accept": "application/json" },
    credentials: "same-origin"
  }).then(function (res) {
    return res.json().catch(function () { return { ok: false, text: "The server answered " + res.status + "." }; });
  }).then(function (data) {
    out.className = "result " + (data.ok ? "ok" : "bad");
    out.textContent = data.text;
  }).catch(function () {
    out.className = "result bad";
    out.textContent = "The request did not reach the server.";
  }).finally(function () {
    if (btn) btn.disabled = false;
  });
}
document.addEventListener("submit", function (e) {
  var form = e.target;
  var outId = form.getAttribute("data-inplace");
  if (!outId || !window.fetch) return;
  var out = document.getElementById(outId);
  if (!out) return;
  e.preventDefault();
  postAndShow(form.action, new URLSearchParams(new FormData(form)), out,
    form.querySelector("button[type=submit], button:not([type])"), "Sending…");
});
document.querySelectorAll("button[data-preview]").forEach(function (btn) {
  if (window.fetch) btn.hidden = false;
});
document.addEventListener("click", function (e) {
  var btn = e.target.closest("button[data-preview]");
  if (!btn || !btn.form) return;
  var out = document.getElementById(btn.getAttribute("data-preview"));
  if (!out) return;
  e.preventDefault();
  var body = new URLSearchParams();
  ["events", "filter", "id"].forEach(function (name) {
    var el = btn.form.elements[name];
    if (el) body.set(name, el.value);
  });
  postAndShow(btn.getAttribute("data-action"), body, out, btn, "Counting…");
});
