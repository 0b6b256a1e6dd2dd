// Presenting mode: one section per slide; ← → (also PageUp/PageDown, Space, Home/End) move
// between slides, Esc leaves full screen and then presenting mode. Keys typed into a what-if
// control stay with the control.
(function () {
  var slides, index = 0;
  function show(i) {
    index = Math.max(0, Math.min(slides.length - 1, i));
    slides.forEach(function (s, n) { s.classList.toggle("active", n === index); });
    var counter = document.getElementById("slide-counter");
    counter.textContent = (index + 1) + " / " + slides.length + " · " + slides[index].dataset.title;
    fitCharts(slides[index]);
    history.replaceState(null, "", "#" + (index + 1));
  }
  // A slide's charts fill the screen: as wide as the slide, as tall as the window allows.
  function fitCharts(slide) {
    if (!window.Plotly) return;
    slide.querySelectorAll(".js-plotly-plot").forEach(function (el) {
      window.Plotly.relayout(el, {
        width: el.clientWidth, height: Math.max(420, window.innerHeight - 200),
      });
    });
  }
  // Charts are drawn after the page loads (charts.js): fit those of the slide on screen.
  window.addEventListener("load", function () { if (slides) fitCharts(slides[index]); });
  window.addEventListener("resize", function () { if (slides) fitCharts(slides[index]); });
  function typing(target) {
    return target.closest("input, select, textarea");
  }
  document.addEventListener("DOMContentLoaded", function () {
    slides = Array.prototype.slice.call(document.querySelectorAll(".slide"));
    var start = parseInt((location.hash || "#1").slice(1), 10) || 1;
    show(start - 1);
    document.getElementById("fullscreen").addEventListener("click", function () {
      document.documentElement.requestFullscreen && document.documentElement.requestFullscreen();
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") {
      if (typing(e.target)) { e.target.blur(); return; }
      if (document.fullscreenElement) return; // the browser leaves full screen itself
      location.href = document.body.dataset.exitUrl;
      return;
    }
    if (typing(e.target)) return;
    if (["ArrowRight", "PageDown", " "].indexOf(e.key) >= 0) { show(index + 1); e.preventDefault(); }
    if (["ArrowLeft", "PageUp"].indexOf(e.key) >= 0) { show(index - 1); e.preventDefault(); }
    if (e.key === "Home") show(0);
    if (e.key === "End") show(slides.length - 1);
  });
})();
