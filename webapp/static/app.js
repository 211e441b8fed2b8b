// outreachd — small progressive enhancements; every page works without this file.
// 1. [data-copy]: a button that copies the value of the element named by its data-copy id.
// 2. form[data-inplace]: posted with fetch; the JSON answer {ok, text} is shown in the
//    <output> named by data-inplace, instead of loading a new page (Send test).
// 3. form[data-builder] (the campaign builder): Add step, Move up, Move down and Remove change
//    the page instead of asking the server to; a note's character count and each step's
//    preview follow the typing. Without this file the same buttons post the form and the
//    server shows it again with the change.
// 4. form[data-upload]: a file over the size limit is refused before it is sent.
// 5. button[data-filter-preview] (hidden without this file): posts its form's events, filter and
//    id to data-action and shows the answer {ok, text} in the <output> named by
//    data-filter-preview (a destination filter's "matches N of the last 100 events").
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
document.querySelectorAll("button[data-filter-preview]").forEach(function (btn) {
  if (window.fetch) btn.hidden = false;
});
document.addEventListener("click", function (e) {
  var btn = e.target.closest("button[data-filter-preview]");
  if (!btn || !btn.form) return;
  var out = document.getElementById(btn.getAttribute("data-filter-preview"));
  if (!out) return;
  e.preventDefault();
  var body = new URLSearchParams();
  ["events", "filter", "id"].forEach(function (name) {
    var el = btn.form.elements[name];
    if (el) body.set(name, el.value);
  });
  postAndShow(btn.getAttribute("data-action"), body, out, btn, "Counting…");
});

(function () {
  var pattern = /\{\{([^{}]{0,100})\}\}|\{(first_name|last_name|company|title|name)\}/g;
  var varName = function (m) { return m.replace(/^\{+|\}+$/g, "").trim().toLowerCase(); };
  var has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
  var chars = function (s) { return Array.from(s).length; };
  var uid = 0;

  // refresh brings a step's counter, type hint, preview and unknown variables up to date.
  function refresh(step, steps) {
    var vars = {};
    try { vars = JSON.parse(steps.getAttribute("data-vars") || "{}"); } catch (e) { vars = {}; }
    var max = parseInt(steps.getAttribute("data-max-note"), 10) || 300;
    var text = step.querySelector("[data-step-text]").value;
    var invite = step.querySelector("[data-step-type]").value === "invite";
    var counter = step.querySelector("[data-counter]");
    var n = chars(text);
    counter.hidden = !invite;
    counter.classList.toggle("over", invite && n > max);
    counter.textContent = n + " of " + max + " characters" + (invite && n > max ? ": too long" : "");
    step.querySelector("[data-type-hint]").textContent = invite ?
      "The invitation's note: optional, at most " + max + " characters." : "Required for a message, at most 8,000 characters.";
    var preview = step.querySelector("[data-preview]");
    var filled = text.replace(pattern, function (m) { var k = varName(m); return has(vars, k) ? vars[k] : m; });
    preview.textContent = filled || "(no text)";
    preview.classList.toggle("empty", !filled);
    var unknown = [];
    text.replace(pattern, function (m) { if (!has(vars, varName(m)) && unknown.indexOf(m) < 0) unknown.push(m); return m; });
    var box = step.querySelector("[data-unknown]");
    box.hidden = unknown.length === 0;
    box.querySelector("[data-unknown-list]").textContent = unknown.join(", ");
  }

  // renumber names the steps in their order and enables the moves that make sense.
  function renumber(form) {
    var steps = form.querySelectorAll("[data-step]");
    steps.forEach(function (step, i) {
      step.id = "step-" + (i + 1);
      step.querySelector("[data-step-num]").textContent = i + 1;
      step.querySelectorAll("[data-step-label]").forEach(function (s) { s.textContent = " step " + (i + 1); });
      step.querySelectorAll("button[data-step-op]").forEach(function (b) {
        var op = b.getAttribute("data-step-op");
        b.value = op + ":" + i;
        b.disabled = (op === "up" && i === 0) || (op === "down" && i === steps.length - 1);
      });
    });
    var none = form.querySelector("[data-no-steps]");
    if (none) none.hidden = steps.length > 0;
    var list = form.querySelector("[data-steps]");
    var add = form.querySelector("button[data-step-op=add]");
    if (add && list) add.disabled = steps.length >= (parseInt(list.getAttribute("data-max-steps"), 10) || 20);
  }

  document.addEventListener("click", function (e) {
    var btn = e.target.closest("form[data-builder] button[data-step-op]");
    if (!btn) return;
    var form = btn.form, list = form.querySelector("[data-steps]");
    var op = btn.getAttribute("data-step-op");
    var step = btn.closest("[data-step]");
    e.preventDefault();
    if (op === "add") {
      var tpl = document.getElementById("step-template");
      var node = tpl.content.firstElementChild.cloneNode(true);
      uid++;
      node.querySelectorAll("[id]").forEach(function (el) { el.id = el.id.replace(/^snew-/, "sjs" + uid + "-"); });
      node.querySelectorAll("label[for]").forEach(function (el) { el.htmlFor = el.htmlFor.replace(/^snew-/, "sjs" + uid + "-"); });
      node.querySelectorAll("[aria-describedby]").forEach(function (el) {
        el.setAttribute("aria-describedby", el.getAttribute("aria-describedby").replace(/snew-/g, "sjs" + uid + "-"));
      });
      var last = list.querySelectorAll("[data-step]");
      if (last.length === 0 && form.querySelector("#b-type") && form.querySelector("#b-type").value !== "inbound") {
        node.querySelector("[data-step-type]").value = "invite";
        node.querySelector("input[name=step_wait]").value = "0";
      } else {
        node.querySelector("[data-step-type]").value = "message";
        node.querySelector("input[name=step_wait]").value = "1";
      }
      list.appendChild(node);
      renumber(form);
      refresh(node, list);
      node.querySelector("[data-step-type]").focus();
      return;
    }
    if (op === "remove") {
      var next = step.nextElementSibling || step.previousElementSibling;
      step.remove();
      renumber(form);
      (next ? next.querySelector("[data-step-type]") : form.querySelector("button[data-step-op=add]")).focus();
      return;
    }
    if (op === "up" && step.previousElementSibling) list.insertBefore(step, step.previousElementSibling);
    if (op === "down" && step.nextElementSibling) list.insertBefore(step.nextElementSibling, step);
    renumber(form);
    if (btn.disabled) {
      var other = step.querySelector("button[data-step-op=" + (op === "up" ? "down" : "up") + "]");
      if (other) other.focus();
    } else {
      btn.focus();
    }
  });

  function onEdit(e) {
    var step = e.target.closest("form[data-builder] [data-step]");
    if (step && (e.target.matches("[data-step-text]") || e.target.matches("[data-step-type]"))) {
      refresh(step, step.closest("[data-steps]"));
    }
  }
  document.addEventListener("input", onEdit);
  document.addEventListener("change", onEdit);

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches("form[data-upload]")) return;
    var input = form.querySelector("input[type=file]");
    var max = parseInt(form.getAttribute("data-max-bytes"), 10);
    var f = input && input.files && input.files[0];
    if (!f) {
      e.preventDefault();
      input.setCustomValidity("Choose a CSV file to import.");
      input.reportValidity();
      input.addEventListener("change", function () { input.setCustomValidity(""); }, { once: true });
      return;
    }
    if (max && f.size > max) {
      e.preventDefault();
      input.setCustomValidity("The file is larger than " + Math.round(max / 1048576) + " MB; split it and import each part.");
      input.reportValidity();
      input.addEventListener("change", function () { input.setCustomValidity(""); }, { once: true });
    }
  });
})();
