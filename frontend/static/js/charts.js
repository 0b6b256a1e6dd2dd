// Draw every Plotly figure on the page from its JSON (json_script, no inline JS for the CSP),
// on first load and after each htmx swap.
(function () {
  function draw(root) {
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      if (el.dataset.drawn) return;
      var source = document.getElementById(el.dataset.figure);
      if (!source || !window.Plotly) return;
      var figure = JSON.parse(source.textContent);
      window.Plotly.newPlot(el, figure.data, figure.layout, {
        responsive: true, displaylogo: false,
      });
      el.dataset.drawn = "1";
    });
  }
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (e) { draw(e.target.parentNode || document); });
})();
