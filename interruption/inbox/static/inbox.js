// The inbox's one script: optional comfort on top of server-rendered forms.
// Everything works without it; nothing here is trusted by the server.
"use strict";
(function () {
  // Show only the fields of the decision chosen for each interrupt.
  function syncPanels() {
    document.querySelectorAll(".panel[data-for]").forEach(function (panel) {
      var group = panel.getAttribute("data-for");
      var radios = document.getElementsByName(group);
      var chosen = null;
      radios.forEach(function (r) { if (r.type !== "radio" || r.checked) chosen = r.value; });
      var show = radios.length === 0 || chosen === panel.getAttribute("data-mode");
      panel.hidden = !show;
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.type === "radio") syncPanels();
  });

  // JSON editors say at once whether their text is JSON.
  document.addEventListener("input", function (event) {
    var t = event.target;
    if (!t || !t.hasAttribute || !t.hasAttribute("data-json")) return;
    var ok = true;
    if (t.value.trim() !== "") { try { JSON.parse(t.value); } catch (e) { ok = false; } }
    t.setAttribute("aria-invalid", ok ? "false" : "true");
  });

  // Countdowns to each expiry.
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.countdown").forEach(function (el) {
      var left = Math.round((Date.parse(el.getAttribute("datetime")) - now) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) { el.textContent = "expired"; el.classList.add("over"); return; }
      var m = Math.floor(left / 60), s = left % 60, h = Math.floor(m / 60);
      el.textContent = "in " + (h ? h + "h " + (m % 60) + "m" : m ? m + "m " + s + "s" : s + "s");
      el.classList.toggle("soon", left < 60);
    });
  }

  // Live updates: the list refreshes itself; a turn screen says so.
  function listen() {
    var url = document.body.getAttribute("data-events");
    if (!url || !window.EventSource) return;
    var source = new EventSource(url);
    source.addEventListener("changed", function () {
      var list = document.querySelector("[data-live-list]");
      if (!list) { document.getElementById("live").hidden = false; return; }
      fetch(window.location.href, { credentials: "same-origin" })
        .then(function (r) { return r.text(); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.querySelector("[data-live-list]");
          if (fresh) { list.replaceWith(document.importNode(fresh, true)); tick(); }
        });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    syncPanels();
    tick();
    setInterval(tick, 1000);
    listen();
    document.body.setAttribute("data-ready", "");  // the script listens now
  });
})();
